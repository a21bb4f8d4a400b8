//! Atomic, all-or-nothing writes of a set of outputs: files, a folder, a file written as
//! it is made. Each output is first written in full beside its target (a temporary file
//! `.NAME.PID.evogate-tmp`, or a new folder `.NAME.evogate-new-PID-N`) and synced; only
//! then does the [`commit`] move them all into place, by atomic exchange where the
//! platform has one, in a section that a SIGINT or SIGTERM waits for
//! ([`watch_signals`]). So a failed or stopped run leaves every target as it was and
//! exits 2, a finished one leaves every target new and whole, and what a kill leaves
//! beside them is completed or cleared by the next run that reads or writes them
//! ([`settle()`]).

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

mod commit;
mod fault;
mod folder;
mod gate;
mod inputs;
mod journal;
pub mod ledger;
mod runs;
mod settle;
mod streamed;
pub use commit::{Append, Prepared, commit};
pub use folder::{prepare_folder, replace_folder};
pub(crate) use gate::section;
#[cfg(unix)]
pub use gate::watch_signals;
pub use gate::{Stop, end_run};
pub use inputs::{refuse_overwriting_inputs, refuse_same_file};
pub(crate) use runs::TempRuns;
pub use settle::settle;
pub use streamed::{SYNC_EVERY, Streamed, StreamedFile, WriteBytes};

use commit::{Kind, Swap};

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
    commit(prepare_files(outputs)?, &mut [], Some(0))
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

/// Writes every output in full to a temporary file beside it, synced: the set, ready
/// for [`commit`]. Leftovers of killed runs beside the targets are cleared first.
pub fn prepare_files(outputs: &[FileToWrite]) -> anyhow::Result<Prepared> {
    prepare_files_with(outputs, &mut |file, bytes| file.write_all(bytes))
}

/// [`prepare_files`] with the temporary files' writer supplied, so tests can make it
/// fail midway. On failure the temporary files are removed and no target is touched.
fn prepare_files_with(
    outputs: &[FileToWrite],
    write: &mut dyn FnMut(&mut fs::File, &[u8]) -> io::Result<()>,
) -> anyhow::Result<Prepared> {
    let paths: Vec<&Path> = outputs.iter().map(|o| o.path.as_path()).collect();
    prepare_each(&paths, &mut |index, file| {
        let bytes = &outputs[index].bytes;
        if index == 0 {
            // The fault hook's `write` step: the first file half written.
            let half = bytes.len() / 2;
            (fault::fails("write"))
                .and_then(|()| write(file, &bytes[..half]))
                .and_then(|()| file.flush())?;
            fault::at("write");
            write(file, &bytes[half..])
        } else {
            write(file, bytes)
        }
    })
}

/// [`prepare_files`] for files too large to hold whole: each file's closure writes
/// its bytes (the fault hook's `write` step comes once the first is written).
pub fn prepare_streamed_files(outputs: &[StreamedFile]) -> anyhow::Result<Prepared> {
    let paths: Vec<&Path> = outputs.iter().map(|o| o.path.as_path()).collect();
    prepare_each(&paths, &mut |index, file| {
        if index == 0 {
            fault::fails("write")?;
        }
        let mut buffered = io::BufWriter::with_capacity(1 << 16, &mut *file);
        (outputs[index].write)(&mut buffered)?;
        buffered.flush()?;
        drop(buffered);
        if index == 0 {
            fault::at("write");
        }
        Ok(())
    })
}

/// Creates a temporary file beside each of `paths`, has `write` fill the one of each
/// index, and syncs it: the set, ready for [`commit`]. Leftovers of killed runs beside
/// the targets are cleared first. On failure the temporary files are removed and no
/// target is touched.
fn prepare_each(
    paths: &[&Path],
    write: &mut dyn FnMut(usize, &mut fs::File) -> io::Result<()>,
) -> anyhow::Result<Prepared> {
    if let Some(error) = paths.iter().find_map(|p| not_a_file(p)) {
        return Err(error);
    }
    settle(paths.iter().copied());
    let mut set = Prepared::nothing();
    for (index, path) in paths.iter().enumerate() {
        let temp = temp_path(path);
        let failed = |e: io::Error| not_written(path, &e);
        let mut file = {
            let _section = gate::section();
            gate::track(&temp);
            let created = fs::File::create(&temp);
            set.swaps.push(Swap {
                kind: Kind::File,
                temp,
                target: path.to_path_buf(),
            });
            created.map_err(failed)?
        };
        write(index, &mut file).map_err(failed)?;
        file.sync_all().map_err(failed)?;
    }
    if let Some(first) = paths.first() {
        fault::fails("synced").map_err(|e| not_written(first, &e))?;
    }
    fault::at("synced");
    Ok(set)
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

/// The names of the entries in `dir`, sorted: what a test sees left in a folder.
#[cfg(test)]
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
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
        let error = prepare_files_with(&outputs, &mut |file, bytes| {
            calls += 1;
            // The first file is written in two halves.
            if calls == 3 {
                return Err(io::Error::other("disk full"));
            }
            file.write_all(bytes)
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
