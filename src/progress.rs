//! A progress line on stderr for work that runs longer than a second: bytes read of the
//! inputs' total, redrawn in place a few times a second, and erased when the work
//! ends. Shown only when stderr is a terminal, so logs, pipes and tests see nothing.

use std::io::{IsTerminal, Read, Seek, SeekFrom, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long work runs before its line appears.
const QUIET: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// What the drawing thread shares with the readers.
struct Shared {
    read: AtomicU64,
    done: AtomicBool,
}

/// A progress line; readers made by [`Progress::reader`] count into it. Dropping it
/// stops the line and erases it.
pub struct Progress {
    shared: Arc<Shared>,
    drawing: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    /// Starts the line for `label` over `total` bytes (0 when unknown): drawn only when
    /// stderr is a terminal and the work outlasts a second.
    pub fn start(label: &str, total: u64) -> Progress {
        let shared = Arc::new(Shared {
            read: AtomicU64::new(0),
            done: AtomicBool::new(false),
        });
        let drawing = std::io::stderr().is_terminal().then(|| {
            let (shared, label) = (Arc::clone(&shared), label.to_string());
            std::thread::spawn(move || draw(&shared, &label, total))
        });
        Progress { shared, drawing }
    }

    /// `inner`, counting the bytes read through it into this line.
    pub fn reader<R>(&self, inner: R) -> Counted<R> {
        Counted {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.shared.done.store(true, Ordering::Relaxed);
        if let Some(drawing) = self.drawing.take() {
            let _ = drawing.join();
        }
    }
}

fn draw(shared: &Shared, label: &str, total: u64) {
    let start = Instant::now();
    let mut shown = false;
    while !shared.done.load(Ordering::Relaxed) {
        std::thread::sleep(TICK);
        if start.elapsed() < QUIET || shared.done.load(Ordering::Relaxed) {
            continue;
        }
        let line = line(
            label,
            shared.read.load(Ordering::Relaxed),
            total,
            start.elapsed(),
        );
        let _ = write!(std::io::stderr(), "\r{line}\x1b[K");
        shown = true;
    }
    if shown {
        let _ = write!(std::io::stderr(), "\r\x1b[K");
    }
}

/// The line: `import: 412 MB of 1,024 MB read (40%), 6 s`.
pub fn line(label: &str, read: u64, total: u64, elapsed: Duration) -> String {
    let mb = |bytes: u64| bytes / 1_000_000;
    let seconds = elapsed.as_secs();
    if total == 0 {
        return format!("{label}: {} MB read, {seconds} s", mb(read));
    }
    let percent = (read.min(total) as u128 * 100 / total as u128) as u64;
    format!(
        "{label}: {} MB of {} MB read ({percent}%), {seconds} s",
        mb(read),
        mb(total)
    )
}

/// A reader that counts what is read through it into a [`Progress`].
pub struct Counted<R> {
    inner: R,
    shared: Arc<Shared>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buffer)?;
        self.shared.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counted<R> {
    fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(to)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_bytes_read_of_the_total_and_the_time() {
        let line = line("import", 412_000_000, 1_024_000_000, Duration::from_secs(6));
        assert_eq!(line, "import: 412 MB of 1024 MB read (40%), 6 s");
        assert_eq!(
            super::line("import", 5_000_000, 0, Duration::from_millis(1500)),
            "import: 5 MB read, 1 s"
        );
    }

    #[test]
    fn a_counted_reader_counts_every_byte_and_changes_none() {
        let progress = Progress::start("test", 3);
        let mut text = String::new();
        progress
            .reader(&b"abc"[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "abc");
        assert_eq!(progress.shared.read.load(Ordering::Relaxed), 3);
    }
}
