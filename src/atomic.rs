//! Atomic, all-or-nothing writes of a set of files. Each file is first written in full
//! to a temporary file in its own folder, and only when every one is written are they
//! renamed into place, so an interrupted or failed run never leaves a half-written file
//! and never replaces a report with part of a new one.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file to write: where, and its whole contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The final path.
    pub path: PathBuf,
    /// The bytes it must hold.
    pub bytes: Vec<u8>,
}

impl Output {
    /// A file at `path` holding `bytes`.
    pub fn new(path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) -> Output {
        Output {
            path: path.into(),
            bytes: bytes.into(),
        }
    }
}

/// Writes every output atomically with the real file system.
pub fn write_all(outputs: &[Output]) -> anyhow::Result<()> {
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
    outputs: &[Output],
    write_temp: &mut dyn FnMut(&Path, &[u8]) -> io::Result<()>,
) -> anyhow::Result<()> {
    if let Some(folder) = outputs.iter().find(|o| o.path.is_dir()) {
        return Err(a_folder(&folder.path));
    }
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| -> anyhow::Result<()> {
        for output in outputs {
            let temp = temp_path(&output.path);
            written.push((temp.clone(), &output.path));
            write_temp(&temp, &output.bytes).map_err(|e| not_written(&output.path, &e))?;
        }
        Ok(())
    })();
    if let Err(error) = result {
        for (temp, _) in &written {
            let _ = fs::remove_file(temp);
        }
        return Err(error);
    }
    for (index, (temp, path)) in written.iter().enumerate() {
        fs::rename(temp, path)
            .inspect_err(|_| {
                for (left, _) in &written[index..] {
                    let _ = fs::remove_file(left);
                }
            })
            .map_err(|e| not_moved(path, &e))?;
    }
    Ok(())
}

/// One file written as it is made, atomically: its bytes go to a temporary file beside
/// it, created at the first write, and [`Streamed::commit`] moves that into place.
/// The first failure is kept, and later writes are dropped, so a caller that must
/// finish reading its inputs (whose errors come first) reports it afterwards. A file
/// never committed leaves nothing behind.
#[derive(Debug)]
pub struct Streamed {
    path: PathBuf,
    temp: PathBuf,
    file: Option<io::BufWriter<fs::File>>,
    failure: Option<io::Error>,
    /// Whether the file was moved into place.
    committed: bool,
}

impl Streamed {
    /// A file to be written at `path`; nothing is created yet.
    pub fn new(path: impl Into<PathBuf>) -> Streamed {
        let path = path.into();
        Streamed {
            temp: temp_path(&path),
            path,
            file: None,
            failure: None,
            committed: false,
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
        }
    }

    /// Creates the temporary file, unless the final path is a folder (reported at
    /// [`Streamed::commit`]).
    fn start(&mut self) -> io::Result<&mut io::BufWriter<fs::File>> {
        if self.path.is_dir() {
            return Err(io::Error::other("a folder"));
        }
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
    pub fn commit(mut self) -> anyhow::Result<()> {
        if self.path.is_dir() {
            return Err(a_folder(&self.path));
        }
        if self.file.is_none() {
            self.write(b"");
        }
        let written = match (self.failure.take(), self.file.take()) {
            (Some(error), _) => Err(error),
            (None, Some(file)) => file
                .into_inner()
                .map_err(io::IntoInnerError::into_error)
                .and_then(|file| file.sync_all()),
            (None, None) => Ok(()),
        };
        written.map_err(|e| not_written(&self.path, &e))?;
        fs::rename(&self.temp, &self.path).map_err(|e| not_moved(&self.path, &e))?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for Streamed {
    /// Removes the temporary file of a file not committed, if it was created.
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.committed {
            let _ = fs::remove_file(&self.temp);
        }
    }
}

/// The error of an output path that is a folder.
fn a_folder(path: &Path) -> anyhow::Error {
    anyhow::anyhow!(
        "`{}` is a folder: give the path of a file to write",
        path.display()
    )
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
        let outputs = [Output::new(&first, "new a"), Output::new(&second, "new b")];
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
        write_all(&[Output::new(&path, "a,b\n")]).unwrap();
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
