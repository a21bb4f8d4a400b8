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
        anyhow::bail!(
            "`{}` is a folder: give the path of a file to write",
            folder.path.display()
        );
    }
    let mut written: Vec<(PathBuf, &Path)> = Vec::new();
    let result = (|| -> anyhow::Result<()> {
        for output in outputs {
            let temp = temp_path(&output.path);
            written.push((temp.clone(), &output.path));
            write_temp(&temp, &output.bytes).map_err(|e| {
                anyhow::anyhow!(
                    "`{}`: cannot write it: {e}; check that its folder exists, is writable and has room",
                    output.path.display()
                )
            })?;
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
            .map_err(|e| {
            anyhow::anyhow!(
                "`{}`: cannot move it into place: {e}; check that it is not a folder and its folder is writable",
                path.display()
            )
        })?;
    }
    Ok(())
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
