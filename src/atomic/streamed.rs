//! Files written as they are made, too large to hold whole: [`Streamed`] (`score
//! --out`'s scores, millions of rows) goes to a temporary file beside its target that is
//! moved into place only once it is whole, and a [`StreamedFile`] (`pairs.csv`) is
//! written straight into a new folder ([`super::replace_folder`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;

use super::commit::{Kind, Prepared, Swap, commit};
use super::{fault, gate, not_a_file, not_written, temp_path};

/// Writes a file's bytes, in order, to the writer given.
pub type WriteBytes<'a> = dyn Fn(&mut dyn io::Write) -> io::Result<()> + 'a;

/// A file of a folder whose bytes are written as they are made, for a file too large
/// to hold whole (`pairs.csv` of millions of pairs with their feedback).
pub struct StreamedFile {
    /// The final path, inside the folder.
    pub path: PathBuf,
    /// Writes the file's bytes, in order, to the writer given.
    pub write: Box<WriteBytes<'static>>,
}

impl StreamedFile {
    /// The file at `path` whose bytes `write` writes.
    pub fn new(
        path: PathBuf,
        write: impl Fn(&mut dyn io::Write) -> io::Result<()> + 'static,
    ) -> StreamedFile {
        StreamedFile {
            path,
            write: Box::new(write),
        }
    }
}

impl std::fmt::Debug for StreamedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// One file written as it is made, atomically: its bytes go to a temporary file beside
/// it, created at the first write, and [`Streamed::prepare`] hands it to the commit.
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
    /// Whether the temporary file was handed to a commit.
    handed: bool,
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
            handed: false,
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
            None => self.start().and_then(|file| {
                fault::fails("write")?;
                file.write_all(bytes)?;
                file.flush()?;
                fault::at("write");
                Ok(())
            }),
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
        let file = {
            let _section = gate::section();
            gate::track(&self.temp);
            fs::File::create(&self.temp)?
        };
        Ok(self
            .file
            .insert(io::BufWriter::with_capacity(1 << 16, file)))
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes what is buffered, syncs it, and moves the file into place (an empty file
    /// when nothing was written); reports the first failure, with [`super::write_all`]'s
    /// messages.
    pub fn commit(self) -> anyhow::Result<()> {
        commit(self.prepare()?, &mut [], Some(0))
    }

    /// Writes what is buffered and syncs it: the file, whole, ready for [`commit`].
    pub fn prepare(self) -> anyhow::Result<Prepared> {
        self.prepare_counting().map(|(set, _)| set)
    }

    /// [`Streamed::prepare`], telling how many background syncs were made.
    fn prepare_counting(mut self) -> anyhow::Result<(Prepared, usize)> {
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
                .and_then(|()| fault::fails("synced"))
                .map(|()| syncs),
            (None, None, Ok(syncs)) => Ok(syncs),
        };
        let syncs = written.map_err(|e| not_written(&self.path, &e))?;
        fault::at("synced");
        self.handed = true;
        let set = Prepared {
            swaps: vec![Swap {
                kind: Kind::File,
                temp: self.temp.clone(),
                target: self.path.clone(),
            }],
            _lock: None,
        };
        Ok((set, syncs))
    }
}

impl Drop for Streamed {
    /// Removes the temporary file of a file not committed, if it was created.
    fn drop(&mut self) {
        if let Some(syncer) = self.syncer.take() {
            let _ = syncer.finish();
        }
        drop(self.file.take());
        if !self.handed {
            let _ = fs::remove_file(&self.temp);
            gate::untrack(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Commits `file`, telling how many background syncs were made.
    fn commit_counting(file: Streamed) -> usize {
        let (set, syncs) = file.prepare_counting().unwrap();
        commit(set, &mut [], None).unwrap();
        syncs
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
        let syncs = commit_counting(file);
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
        assert_eq!(commit_counting(file), 0);
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
}
