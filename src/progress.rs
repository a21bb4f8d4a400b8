//! A progress line on stderr for work that runs longer than a second: bytes read of the
//! inputs' total, redrawn in place a few times a second, and erased when the work
//! ends. Shown only when stderr is a terminal, so logs, pipes and tests see nothing.

use std::io::{IsTerminal, Read, Seek, SeekFrom, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long work runs before its line appears.
const QUIET: Duration = Duration::from_secs(1);
/// How often the line is redrawn.
const TICK: Duration = Duration::from_millis(200);

/// The pipeline's side of a progress display: it says when the counted reading begins
/// and ends, and reads through readers (`sink.reader(file)`) that count the bytes. Whether anything is shown, and where, is the command's choice: it
/// makes the [`Progress`] and hands the pipeline this view of it.
pub(crate) trait ProgressSink: Sync {
    /// Counted reading of `total` bytes (0 when unknown) begins.
    fn begin(&self, total: u64);
    /// `bytes` more were read.
    fn count(&self, bytes: u64);
    /// The counted work is done: a line shown is erased.
    fn end(&self);
}

impl<'a> dyn ProgressSink + 'a {
    /// `inner`, counting the bytes read through it into this sink.
    pub(crate) fn reader<R>(&'a self, inner: R) -> Counted<'a, R> {
        Counted { inner, sink: self }
    }
}

/// What the drawing thread shares with the readers.
struct Shared {
    read: AtomicU64,
    done: AtomicBool,
}

/// A progress line on stderr, made by a command; the pipeline counts into it through
/// [`ProgressSink`]. Dropping it stops the line and erases it.
pub(crate) struct Progress {
    label: String,
    /// Whether the line is drawn at all: stderr is a terminal.
    drawn: bool,
    shared: Arc<Shared>,
    drawing: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Progress {
    /// The line for `label`: drawn only when stderr is a terminal, from the pipeline's
    /// [`ProgressSink::begin`] to its [`ProgressSink::end`], once the work outlasts a
    /// second.
    pub(crate) fn on_stderr(label: &str) -> Progress {
        Progress {
            label: label.to_string(),
            drawn: std::io::stderr().is_terminal(),
            shared: Arc::new(Shared {
                read: AtomicU64::new(0),
                done: AtomicBool::new(false),
            }),
            drawing: Mutex::new(None),
        }
    }
}

impl ProgressSink for Progress {
    fn begin(&self, total: u64) {
        self.end();
        self.shared.read.store(0, Ordering::Relaxed);
        self.shared.done.store(false, Ordering::Relaxed);
        if self.drawn {
            let (shared, label) = (Arc::clone(&self.shared), self.label.clone());
            let drawing = std::thread::spawn(move || draw(&shared, &label, total));
            *self.drawing.lock().unwrap_or_else(PoisonError::into_inner) = Some(drawing);
        }
    }

    fn count(&self, bytes: u64) {
        self.shared.read.fetch_add(bytes, Ordering::Relaxed);
    }

    fn end(&self) {
        self.shared.done.store(true, Ordering::Relaxed);
        let drawing = self
            .drawing
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(drawing) = drawing {
            let _ = drawing.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.end();
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
pub(crate) fn line(label: &str, read: u64, total: u64, elapsed: Duration) -> String {
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

/// A reader that counts what is read through it into a [`ProgressSink`].
pub(crate) struct Counted<'a, R> {
    inner: R,
    sink: &'a dyn ProgressSink,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buffer)?;
        self.sink.count(n as u64);
        Ok(n)
    }
}

impl<R: Seek> Seek for Counted<'_, R> {
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
        let progress = Progress::on_stderr("test");
        let sink: &dyn ProgressSink = &progress;
        sink.begin(3);
        let mut text = String::new();
        sink.reader(&b"abc"[..]).read_to_string(&mut text).unwrap();
        assert_eq!(text, "abc");
        assert_eq!(progress.shared.read.load(Ordering::Relaxed), 3);
    }
}
