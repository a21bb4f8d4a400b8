//! A large line-based log read on every core: one thread reads the file in chunks of
//! whole lines and computes its SHA-256 on the way; worker threads parse the chunks;
//! the calling thread merges what they found in file order, so the result, and the
//! first error with its line, are those of reading the lines one by one.
//!
//! Chunk buffers go back to the reading thread once parsed, so a large log is read
//! into the same few buffers (no fresh, zeroed megabyte per chunk). A line cut by a
//! chunk's end is carried to the start of the next chunk (a line longer than a chunk
//! grows the buffer, up to [`MAX_ROW_BYTES`]: a longer line, `/dev/zero` included, is
//! a named error), so each chunk holds whole lines and its line count is exact.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};

use memchr::memrchr;
use sha2::{Digest, Sha256};

use crate::table::scan::MAX_ROW_BYTES;

/// Bytes read per chunk.
pub(super) const CHUNK: usize = 1 << 20;

/// Why reading stopped early.
#[derive(Debug)]
pub(super) enum Stop<E> {
    /// A merged chunk was refused (the first such chunk in file order).
    Merge(E),
    /// The file could not be read.
    Read(io::Error),
    /// A line is longer than [`MAX_ROW_BYTES`]: its 1-based number.
    LineTooLong(u64),
}

/// A chunk: its buffer and how many of its bytes are whole lines to parse.
struct Chunk {
    index: usize,
    bytes: Vec<u8>,
    len: usize,
}

/// Reads `input` in chunks of whole lines of about `chunk` bytes, parses each with
/// `parse` on `workers` threads, hands the results to `merge` in file order, and
/// returns the SHA-256 of every byte of `input` in lowercase hex. The first error of
/// `merge` stops the reading (the digest is then not needed).
pub(super) fn read_parallel<P: Send, E>(
    input: impl Read + Send,
    chunk: usize,
    workers: usize,
    parse: impl Fn(&[u8]) -> P + Sync,
    mut merge: impl FnMut(P) -> Result<(), E>,
) -> Result<String, Stop<E>> {
    let stop = AtomicBool::new(false);
    let (send_chunk, chunks) = mpsc::sync_channel::<Chunk>(2 * workers.max(1));
    let chunks = Mutex::new(chunks);
    let (spare, spares) = mpsc::channel::<Vec<u8>>();
    let (send_part, parts) = mpsc::channel::<(usize, P)>();
    std::thread::scope(|scope| {
        let reading = scope.spawn(|| read_chunks(input, chunk.max(1), send_chunk, spares, &stop));
        let mut parsing = Vec::with_capacity(workers.max(1));
        for _ in 0..workers.max(1) {
            let (send_part, spare, chunks, stop, parse) =
                (send_part.clone(), spare.clone(), &chunks, &stop, &parse);
            parsing.push(scope.spawn(move || {
                loop {
                    // The lock is held while waiting: the other workers are busy parsing.
                    let next = chunks.lock().ok().and_then(|c| c.recv().ok());
                    let Some(Chunk { index, bytes, len }) = next else {
                        break;
                    };
                    if stop.load(Ordering::Relaxed) {
                        // Draining, so the reading thread is never left blocked.
                        continue;
                    }
                    let part = parse(&bytes[..len]);
                    let _ = spare.send(bytes);
                    if send_part.send((index, part)).is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }));
        }
        drop((send_part, spare));
        let mut waiting: BTreeMap<usize, P> = BTreeMap::new();
        let mut next = 0;
        let mut refused = None;
        for (index, part) in parts.iter() {
            waiting.insert(index, part);
            while let Some(part) = waiting.remove(&next) {
                next += 1;
                if let Err(e) = merge(part) {
                    refused = Some(e);
                    break;
                }
            }
            if refused.is_some() {
                stop.store(true, Ordering::Relaxed);
                break;
            }
        }
        drop(parts);
        let digest = reading.join();
        // Joined, not left to the scope: the scope only waits for the closures, while
        // a join also waits for each thread's exit (its thread-local channel state
        // freed), so nothing of this call outlives it.
        // A worker's panic goes on up, as the scope would have sent it.
        for worker in parsing {
            if let Err(panic) = worker.join() {
                std::panic::resume_unwind(panic);
            }
        }
        match (refused, digest) {
            (Some(e), _) => Err(Stop::Merge(e)),
            (None, Ok(Ok(digest))) => Ok(digest),
            (None, Ok(Err(e))) if e.kind() == io::ErrorKind::FileTooLarge => {
                Err(Stop::LineTooLong(long_line(&e)))
            }
            (None, Ok(Err(e))) => Err(Stop::Read(e)),
            (None, Err(_)) => Err(Stop::Read(io::Error::other("the reading thread failed"))),
        }
    })
}

/// The line number a [`too_long`] error carries.
fn long_line(error: &io::Error) -> u64 {
    error.to_string().parse().unwrap_or(0)
}

/// A line past [`MAX_ROW_BYTES`], as the reading thread reports it: the line's
/// 1-based number.
fn too_long(line: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, line.to_string())
}

/// The reading thread: chunks of whole lines (the last may lack its newline) sent in
/// order, and the SHA-256 of everything read.
fn read_chunks(
    mut input: impl Read,
    chunk: usize,
    send: mpsc::SyncSender<Chunk>,
    spares: mpsc::Receiver<Vec<u8>>,
    stop: &AtomicBool,
) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut tail: Vec<u8> = Vec::new();
    // Newlines in the chunks sent so far: the number of the line a chunk starts with.
    let mut lines_before = 0u64;
    for index in 0.. {
        if stop.load(Ordering::Relaxed) {
            return Ok(String::new());
        }
        let mut bytes = spares.try_recv().unwrap_or_default();
        // Buffers only grow, so each is zeroed once, not once per chunk.
        if bytes.len() < tail.len() + chunk {
            bytes.resize(tail.len() + chunk, 0);
        }
        bytes[..tail.len()].copy_from_slice(&tail);
        let mut len = tail.len();
        tail.clear();
        let mut end = false;
        loop {
            if len == bytes.len() {
                if memrchr(b'\n', &bytes[..len]).is_some() {
                    break;
                }
                // One line longer than the buffer: grow it, up to the cap.
                if len > MAX_ROW_BYTES {
                    return Err(too_long(lines_before + 1));
                }
                bytes.resize((2 * len).min(MAX_ROW_BYTES + 1), 0);
            }
            let n = match input.read(&mut bytes[len..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                end = true;
                break;
            }
            hasher.update(&bytes[len..len + n]);
            len += n;
        }
        let cut = match end {
            true => len,
            false => memrchr(b'\n', &bytes[..len]).map_or(len, |i| i + 1),
        };
        tail.extend_from_slice(&bytes[cut..len]);
        lines_before += memchr::memchr_iter(b'\n', &bytes[..cut]).count() as u64;
        if tail.len() > MAX_ROW_BYTES {
            return Err(too_long(lines_before + 1));
        }
        if cut > 0
            && send
                .send(Chunk {
                    index,
                    bytes,
                    len: cut,
                })
                .is_err()
        {
            return Ok(String::new());
        }
        if end {
            break;
        }
    }
    Ok(format!("{:x}", hasher.finalize()))
}
