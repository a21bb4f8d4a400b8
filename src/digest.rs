//! SHA-256 of inputs and outputs, as lowercase hex, for manifests and reports.

use std::io::Read;

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The SHA-256 of a text written piece by piece, read off as often as wanted: the
/// digests of its prefixes, in one pass.
#[derive(Clone, Default)]
pub struct RunningDigest {
    hasher: Sha256,
}

impl RunningDigest {
    /// Adds `bytes` to the text.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    /// The SHA-256 of the text so far, in lowercase hex.
    pub fn hex(&self) -> String {
        hex(&self.hasher.clone().finalize())
    }
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A reader that hashes every byte read through it, so a file can be parsed and
/// digested in one pass without holding it.
pub struct HashingReader<R> {
    inner: R,
    /// `None` when nothing is hashed ([`HashingReader::plain`]).
    hasher: Option<Sha256>,
}

impl<R: Read> HashingReader<R> {
    /// Hashes what is read from `inner`.
    pub fn new(inner: R) -> HashingReader<R> {
        HashingReader {
            inner,
            hasher: Some(Sha256::new()),
        }
    }

    /// Reads `inner` without hashing it, for a file whose digest no output records:
    /// [`HashingReader::finish_if`] then gives `None`.
    pub(crate) fn plain(inner: R) -> HashingReader<R> {
        HashingReader {
            inner,
            hasher: None,
        }
    }

    /// Reads whatever the consumer left unread, and returns the SHA-256 of all of it in
    /// lowercase hex; an error for a reader made not to hash (inside the crate only).
    pub fn finish(self) -> std::io::Result<String> {
        self.finish_if()?
            .ok_or_else(|| std::io::Error::other("the file was read without its digest"))
    }

    /// [`HashingReader::finish`], or `None` (reading nothing more) for a
    /// [plain](HashingReader::plain) reader.
    pub(crate) fn finish_if(mut self) -> std::io::Result<Option<String>> {
        let Some(mut hasher) = self.hasher.take() else {
            return Ok(None);
        };
        std::io::copy(&mut self.inner, &mut HashSink(&mut hasher))?;
        Ok(Some(hex(&hasher.finalize())))
    }
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buffer)?;
        if let Some(hasher) = &mut self.hasher {
            hasher.update(&buffer[..n]);
        }
        Ok(n)
    }
}

/// A writer that keeps nothing but the SHA-256 of what is written to it.
#[derive(Default)]
pub(crate) struct HashingWriter {
    hasher: Sha256,
}

impl HashingWriter {
    /// The SHA-256 of everything written, in lowercase hex.
    pub(crate) fn finish(self) -> String {
        hex(&self.hasher.finalize())
    }
}

impl std::io::Write for HashingWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct HashSink<'a>(&'a mut Sha256);

impl std::io::Write for HashSink<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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
    fn a_hashing_reader_digests_what_was_read_and_what_was_left() {
        use std::io::Read;
        let mut reader = super::HashingReader::new(&b"abc"[..]);
        let mut first = [0u8; 1];
        reader.read_exact(&mut first).unwrap();
        assert_eq!(
            reader.finish().unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_plain_reader_reads_the_same_bytes_and_gives_no_digest() {
        use std::io::Read;
        let mut reader = super::HashingReader::plain(&b"abc"[..]);
        let mut read = Vec::new();
        reader.read_to_end(&mut read).unwrap();
        assert_eq!(read, b"abc");
        assert_eq!(reader.finish_if().unwrap(), None);
        assert!(super::HashingReader::plain(&b"abc"[..]).finish().is_err());
    }
}
