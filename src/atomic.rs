//! Atomic, all-or-nothing writes of a set of files. Each file is first written in full
//! to a temporary file in its own folder, and only when every one is written are they
//! renamed into place, so an interrupted or failed run never leaves a half-written file
//! and never replaces a report with part of a new one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

mod folder;
mod inputs;
pub mod ledger;
mod pending;
pub use folder::{StreamedFile, WriteBytes, replace_folder};
pub use inputs::{refuse_overwriting_inputs, refuse_same_file};
#[cfg(unix)]
pub use pending::watch_signals;

/// A file to write: where, and its whole contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileToWrite {
    /// The final path.
    pub path: PathBuf,
    /// The bytes it must hold.
    pub bytes: Vec<u8>,
}

impl FileToWrite {
    /// A file at `path` holding `bytes`.
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> FileToWrite {
        FileToWrite {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// Writes every output atomically with the real file system.
pub fn write_all(outputs: &[FileToWrite]) -> anyhow::Result<()> {
    write_all_with(outputs, &mut |path, bytes| {
        let mut file = fs::File::create(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    })
}

/// Creates `dir` (and its parents) unless it exists, refusing a path that is a file.
pub fn ensure_dir(dir: &Path) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!(
            "`{}` is a file, not a folder: give a folder to write into",
            dir.display()
        );
    }
    fs::create_dir_all(dir).map_err(|e| {
        anyhow::anyhow!(
            "`{}`: cannot create the folder: {e}; give a folder you may write into",
            dir.display()
        )
    })
}

/// [`write_all`] with the temporary-file writer supplied, so tests can make it fail
/// midway. Temporary files are removed on failure; the final paths are untouched
/// unless every temporary file was written.
pub fn write_all_with(
    outputs: &[FileToWrite],
    write_temp: &mut dyn FnMut(&Path, &[u8]) -> io::Result<()>,
) -> anyhow::Result<()> {
    if let Some(error) = outputs.iter().find_map(|o| not_a_file(&o.path)) {
        return Err(error);
    }
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let remove = |temps: &[(PathBuf, &Path)]| {
        for (temp, _) in temps {
            let _ = fs::remove_file(temp);
            pending::untrack(temp);
        }
    };
    let result = (|| -> anyhow::Result<()> {
        for output in outputs {
            let temp = temp_path(&output.path);
            pending::track(&temp);
            written.push((temp.clone(), &output.path));
            write_temp(&temp, &output.bytes).map_err(|e| not_written(&output.path, &e))?;
        }
        Ok(())
    })();
    if let Err(error) = result {
        remove(&written);
        return Err(error);
    }
    for (index, (temp, path)) in written.iter().enumerate() {
        fs::rename(temp, path)
            .inspect_err(|_| remove(&written[index..]))
            .map_err(|e| not_moved(path, &e))?;
        pending::untrack(temp);
    }
    Ok(())
}

/// One file written as it is made, atomically: its bytes go to a temporary file beside
/// it, created at the first write, and [`Streamed::commit`] moves that into place.
/// The first failure is kept, and later writes are dropped, so a caller that must
/// finish reading its inputs (whose errors come first) reports it afterwards. A file
/// never committed leaves nothing behind.
///
/// A long file is synced to disk while it is being written: once every
/// [`SYNC_EVERY`] bytes a background thread syncs what the file holds so far, so the
/// sync at [`Streamed::commit`] waits only for the last stretch instead of the whole
/// file (for `score`'s 88 MB of scores, about 0.2 s of a 2.5 s run).
#[derive(Debug)]
pub struct Streamed {
    path: PathBuf,
    temp: PathBuf,
    file: Option<io::BufWriter<fs::File>>,
    failure: Option<io::Error>,
    /// Whether the file was moved into place.
    committed: bool,
    /// Bytes written since the last background sync was asked for.
    unsynced: usize,
    /// Bytes after which a background sync is asked for.
    sync_every: usize,
    syncer: Option<Syncer>,
}

/// How many bytes of a [`Streamed`] file are written between background syncs.
pub const SYNC_EVERY: usize = 4 << 20;

/// A thread syncing a file whenever asked, until the asking side hangs up; it ends
/// with how many syncs it made, or the first failure.
#[derive(Debug)]
struct Syncer {
    asks: mpsc::Sender<()>,
    thread: thread::JoinHandle<io::Result<usize>>,
}

impl Syncer {
    /// The thread for `file`, or `None` when no thread can be started.
    fn start(file: fs::File) -> Option<Syncer> {
        let (asks, asked) = mpsc::channel::<()>();
        let thread = thread::Builder::new()
            .name("evogate-sync".into())
            .spawn(move || {
                let mut syncs = 0;
                while asked.recv().is_ok() {
                    // Asks that came during the last sync are served by this one.
                    while asked.try_recv().is_ok() {}
                    file.sync_data()?;
                    syncs += 1;
                }
                Ok(syncs)
            })
            .ok()?;
        Some(Syncer { asks, thread })
    }

    /// Stops asking and waits for the sync under way: how many syncs were made.
    fn finish(self) -> io::Result<usize> {
        drop(self.asks);
        self.thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the syncing thread panicked")))
    }
}

impl Streamed {
    /// A file to be written at `path`; nothing is created yet.
    pub fn new(path: impl Into<PathBuf>) -> Streamed {
        Streamed::syncing_every(path, SYNC_EVERY)
    }

    /// [`Streamed::new`], synced in the background every `bytes` bytes.
    fn syncing_every(path: impl Into<PathBuf>, bytes: usize) -> Streamed {
        let path = path.into();
        Streamed {
            temp: temp_path(&path),
            path,
            file: None,
            failure: None,
            committed: false,
            unsynced: 0,
            sync_every: bytes,
            syncer: None,
        }
    }

    /// Appends `bytes`, unless a write failed already.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.failure.is_some() {
            return;
        }
        let result = match &mut self.file {
            Some(file) => file.write_all(bytes),
            None => self.start().and_then(|file| file.write_all(bytes)),
        };
        if let Err(error) = result {
            self.failure = Some(error);
            return;
        }
        self.unsynced += bytes.len();
        if self.unsynced >= self.sync_every {
            self.unsynced = 0;
            self.ask_sync();
        }
    }

    /// Asks the syncing thread, started on the first ask, to sync the file. The bytes
    /// still in the write buffer wait for the next sync.
    fn ask_sync(&mut self) {
        if self.syncer.is_none() {
            let Some(file) = &self.file else {
                return;
            };
            // Without a second handle or a thread, the whole file is synced at commit.
            let Ok(handle) = file.get_ref().try_clone() else {
                return;
            };
            self.syncer = Syncer::start(handle);
        }
        if let Some(syncer) = &self.syncer {
            // A thread that stopped on a failure reports it at commit.
            let _ = syncer.asks.send(());
        }
    }

    /// Creates the temporary file, unless the final path is a folder (reported at
    /// [`Streamed::commit`]).
    fn start(&mut self) -> io::Result<&mut io::BufWriter<fs::File>> {
        if not_a_file(&self.path).is_some() {
            return Err(io::Error::other("not a file"));
        }
        pending::track(&self.temp);
        let file = fs::File::create(&self.temp)?;
        Ok(self
            .file
            .insert(io::BufWriter::with_capacity(1 << 16, file)))
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes what is buffered, syncs it, and moves the file into place (an empty file
    /// when nothing was written); reports the first failure, with [`write_all`]'s
    /// messages.
    pub fn commit(self) -> anyhow::Result<()> {
        self.commit_counting().map(|_| ())
    }

    /// [`Streamed::commit`], telling how many background syncs were made.
    fn commit_counting(mut self) -> anyhow::Result<usize> {
        if let Some(error) = not_a_file(&self.path) {
            return Err(error);
        }
        if self.file.is_none() {
            self.write(b"");
        }
        let background = self.syncer.take().map_or(Ok(0), Syncer::finish);
        let written = match (self.failure.take(), self.file.take(), background) {
            (Some(error), _, _) | (None, _, Err(error)) => Err(error),
            (None, Some(file), Ok(syncs)) => file
                .into_inner()
                .map_err(io::IntoInnerError::into_error)
                .and_then(|file| file.sync_all())
                .map(|()| syncs),
            (None, None, Ok(syncs)) => Ok(syncs),
        };
        let syncs = written.map_err(|e| not_written(&self.path, &e))?;
        fs::rename(&self.temp, &self.path).map_err(|e| not_moved(&self.path, &e))?;
        pending::untrack(&self.temp);
        self.committed = true;
        Ok(syncs)
    }
}

impl Drop for Streamed {
    /// Removes the temporary file of a file not committed, if it was created.
    fn drop(&mut self) {
        if let Some(syncer) = self.syncer.take() {
            let _ = syncer.finish();
        }
        drop(self.file.take());
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
            pending::untrack(&self.temp);
        }
    }
}

/// The error of an output path that is a folder.
/// Why an output cannot go to `path`: a folder, or a device, FIFO or socket, which
/// the rename into place would replace (as root, `--out /dev/null` would leave a
/// regular file where the device was). A symbolic link is fine: the rename replaces
/// the link, not what it points to.
fn not_a_file(path: &Path) -> Option<anyhow::Error> {
    if path.is_dir() {
        return Some(anyhow::anyhow!(
            "`{}` is a folder: give the path of a file to write",
            path.display()
        ));
    }
    let kind = fs::symlink_metadata(path).ok()?.file_type();
    (!kind.is_file() && !kind.is_symlink()).then(|| {
        anyhow::anyhow!(
            "`{}` is not a regular file (a device, FIFO or socket), and writing the output \
             would replace it: give the path of a file to write",
            path.display()
        )
    })
}

/// The error of a temporary file that could not be written.
fn not_written(path: &Path, error: &io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "`{}`: cannot write it: {error}; check that its folder exists, is writable and has room",
        path.display()
    )
}

/// The error of a temporary file that could not be moved into place.
fn not_moved(path: &Path, error: &io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "`{}`: cannot move it into place: {error}; check that it is not a folder and its folder is writable",
        path.display()
    )
}

/// `dir/.name.<pid>.evogate-tmp`, beside the final file so the rename stays on one
/// device, and named by process so that two runs writing the same report at once never
/// write into, or rename, each other's half-written file.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.{}.evogate-tmp", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_that_fails_midway_leaves_every_previous_file_intact() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("a.json");
        let second = dir.path().join("b.md");
        fs::write(&first, "old a").unwrap();
        fs::write(&second, "old b").unwrap();
        let outputs = [
            FileToWrite::new(&first, "new a"),
            FileToWrite::new(&second, "new b"),
        ];
        let mut calls = 0;
        let error = write_all_with(&outputs, &mut |path, bytes| {
            calls += 1;
            if calls == 2 {
                return Err(io::Error::other("disk full"));
            }
            fs::write(path, bytes)
        })
        .unwrap_err();
        assert!(error.to_string().contains("b.md"), "{error}");
        assert_eq!(fs::read_to_string(&first).unwrap(), "old a");
        assert_eq!(fs::read_to_string(&second).unwrap(), "old b");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 2, "temporary files were left behind");
    }

    #[test]
    fn writes_every_file_when_nothing_fails() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.csv");
        write_all(&[FileToWrite::new(&path, "a,b\n")]).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a,b\n");
    }

    #[test]
    fn a_streamed_file_appears_whole_at_commit_and_not_before() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        fs::write(&path, "old").unwrap();
        let mut file = Streamed::new(&path);
        file.write(b"a,b\n");
        file.write(b"1,2\n");
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        file.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "a,b\n1,2\n");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "a temporary file was left behind");
    }

    #[test]
    fn a_long_streamed_file_is_synced_while_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("long.csv");
        let mut file = Streamed::syncing_every(&path, 1000);
        let mut expected = Vec::new();
        for row in 0..2000 {
            let line = format!("{row},{}\n", row * 7);
            file.write(line.as_bytes());
            expected.extend_from_slice(line.as_bytes());
        }
        // 2000 rows of 4 to 10 bytes ask for a sync about every 1000 bytes; asks made
        // during a sync are served by the next one, so there is at least one.
        let syncs = file.commit_counting().unwrap();
        assert!(
            (1..=expected.len() / 1000).contains(&syncs),
            "{syncs} syncs"
        );
        assert_eq!(fs::read(&path).unwrap(), expected);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_short_streamed_file_is_synced_only_at_commit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short.csv");
        let mut file = Streamed::syncing_every(&path, 1000);
        file.write(&[b'x'; 999]);
        assert_eq!(file.commit_counting().unwrap(), 0);
        assert_eq!(fs::read(&path).unwrap().len(), 999);
    }

    #[test]
    fn a_streamed_file_dropped_after_background_syncs_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let mut file = Streamed::syncing_every(&path, 10);
        for _ in 0..100 {
            file.write(b"0123456789");
        }
        assert!(file.syncer.is_some(), "no background sync was asked for");
        drop(file);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_streamed_file_dropped_uncommitted_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        let mut file = Streamed::new(&path);
        file.write(b"half");
        drop(file);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_streamed_file_reports_a_folder_and_a_missing_folder_at_commit() {
        let dir = tempfile::tempdir().unwrap();
        let mut folder = Streamed::new(dir.path());
        folder.write(b"x");
        let error = folder.commit().unwrap_err().to_string();
        assert!(error.contains("is a folder"), "{error}");
        let mut missing = Streamed::new(dir.path().join("no/such/s.csv"));
        missing.write(b"x");
        let error = missing.commit().unwrap_err().to_string();
        assert!(error.contains("cannot write it"), "{error}");
        let empty = dir.path().join("e.csv");
        Streamed::new(&empty).commit().unwrap();
        assert_eq!(fs::read(&empty).unwrap(), b"");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_socket_at_an_output_path_is_refused_and_left_in_place() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("out.csv");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let other = dir.path().join("out.import.json");
        let error = write_all(&[
            FileToWrite::new(&socket, "a"),
            FileToWrite::new(&other, "b"),
        ])
        .unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        let mut streamed = Streamed::new(&socket);
        streamed.write(b"a");
        let error = streamed.commit().unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
        let kind = fs::symlink_metadata(&socket).unwrap().file_type();
        assert!(kind.is_socket(), "the socket was replaced");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn refuses_a_folder_that_is_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, "").unwrap();
        assert!(
            ensure_dir(&file)
                .unwrap_err()
                .to_string()
                .contains("is a file")
        );
    }
}
