//! SHA-256 of inputs and outputs, as lowercase hex, for manifests and reports.

use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// How many bytes the reading thread reads at a time.
const CHUNK: usize = 1 << 18;

/// How many chunks the reading thread may have read ahead of the consumer.
const AHEAD: usize = 4;

/// A reader that hashes every byte read through it, so a file can be parsed and
/// digested in one pass without holding it. The input is read and hashed on a thread
/// of its own, a few chunks ahead of the consumer, which gets the same bytes in the
/// same order: the parsing and the hashing (a tenth of `admit`'s time on a million
/// rows) run side by side.
pub struct HashingReader {
    chunks: Receiver<std::io::Result<Vec<u8>>>,
    /// Chunks the consumer is done with, for the thread to read into again.
    spent: SyncSender<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
    thread: JoinHandle<String>,
}

impl HashingReader {
    /// Reads and hashes `inner` on a thread of its own; fails only when the system
    /// cannot start one.
    pub fn new<R: Read + Send + 'static>(inner: R) -> std::io::Result<HashingReader> {
        let (sender, chunks) = sync_channel(AHEAD);
        let (spent, reuse) = sync_channel(AHEAD + 2);
        let thread = std::thread::Builder::new()
            .name("read-and-hash".to_string())
            .spawn(move || read_ahead(inner, &sender, &reuse))?;
        Ok(HashingReader {
            chunks,
            spent,
            chunk: Vec::new(),
            at: 0,
            thread,
        })
    }

    /// Reads whatever the consumer left unread, and returns the SHA-256 of all of it in
    /// lowercase hex.
    pub fn finish(self) -> std::io::Result<String> {
        let HashingReader { chunks, thread, .. } = self;
        for chunk in chunks.iter() {
            chunk?;
        }
        Ok(thread.join().expect("the hashing thread does not panic"))
    }
}

/// The reading thread: sends `input` in chunks, hashing each, and returns the digest
/// once the input ends; stops at the first error (sent on) or when the consumer is
/// gone.
fn read_ahead<R: Read>(
    mut input: R,
    chunks: &SyncSender<std::io::Result<Vec<u8>>>,
    reuse: &Receiver<Vec<u8>>,
) -> String {
    let mut hasher = Sha256::new();
    loop {
        let mut chunk = reuse.try_recv().unwrap_or_default();
        chunk.resize(CHUNK, 0);
        let n = loop {
            match input.read(&mut chunk) {
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other,
            }
        };
        match n {
            Ok(0) => break,
            Ok(n) => {
                chunk.truncate(n);
                hasher.update(&chunk);
                if chunks.send(Ok(chunk)).is_err() {
                    break;
                }
            }
            Err(error) => {
                let _ = chunks.send(Err(error));
                break;
            }
        }
    }
    hex(&hasher.finalize())
}

impl Read for HashingReader {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.chunk.len() {
            let Ok(next) = self.chunks.recv() else {
                return Ok(0);
            };
            let spent = std::mem::replace(&mut self.chunk, next?);
            // The thread allocates a chunk when none comes back.
            let _ = self.spent.try_send(spent);
            self.at = 0;
        }
        let rest = &self.chunk[self.at..];
        let n = rest.len().min(buffer.len());
        buffer[..n].copy_from_slice(&rest[..n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn matches_the_fips_180_2_abc_vector() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_hashing_reader_hands_over_every_byte_it_hashes_in_order() {
        use std::io::Read;
        // Several chunks and a part of one, read in pieces that straddle chunk ends.
        let bytes: Vec<u8> = (0..3 * super::CHUNK + 17)
            .map(|i| (i * 7 + i / 251) as u8)
            .collect();
        let mut reader = super::HashingReader::new(std::io::Cursor::new(bytes.clone())).unwrap();
        let mut read = Vec::new();
        let mut piece = vec![0u8; 1000];
        loop {
            let n = reader.read(&mut piece).unwrap();
            if n == 0 {
                break;
            }
            read.extend_from_slice(&piece[..n]);
        }
        assert_eq!(read, bytes);
        assert_eq!(reader.finish().unwrap(), super::sha256_hex(&bytes));
    }

    #[test]
    fn a_hashing_reader_passes_on_the_input_error() {
        use std::io::Read;
        /// One chunk of bytes, then an error.
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
                if std::mem::replace(&mut self.0, true) {
                    return Err(std::io::Error::other("disk on fire"));
                }
                buffer[..3].copy_from_slice(b"abc");
                Ok(3)
            }
        }
        let mut reader = super::HashingReader::new(Failing(false)).unwrap();
        let mut read = Vec::new();
        let error = reader.read_to_end(&mut read).unwrap_err();
        assert_eq!(error.to_string(), "disk on fire");
        assert_eq!(read, b"abc");
        let reader = super::HashingReader::new(Failing(false)).unwrap();
        assert_eq!(reader.finish().unwrap_err().to_string(), "disk on fire");
    }

    #[test]
    fn a_hashing_reader_digests_what_was_read_and_what_was_left() {
        use std::io::Read;
        let mut reader = super::HashingReader::new(&b"abc"[..]).unwrap();
        let mut first = [0u8; 1];
        reader.read_exact(&mut first).unwrap();
        assert_eq!(
            reader.finish().unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
