//! The commit record of a set of several files in one folder (`import`'s scores file and
//! its record). Two files cannot change places in one step, so before the first is
//! moved the set is written down in `.NAME.PID.evogate-commit` beside them: which
//! temporary file takes which target's place, and the new file's identity (device and
//! inode on unix). Once that record is whole and synced the set is committed; it is
//! removed when every file is in place. A run killed in between leaves it, and the next
//! run that reads or writes one of the files completes the set ([`complete`]): each
//! target not yet holding its new file gets it. A record cut short by a kill while it
//! was written does not parse, and the set it began is not committed: it is removed,
//! with the temporary files, and the old files stay.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The name's ending.
pub(crate) const SUFFIX: &str = "evogate-commit";

/// What the record holds.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    schema: String,
    files: Vec<Entry>,
}

/// One file of the set, by name inside the folder.
#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    target: String,
    temp: String,
    /// The new file's device and inode, absent where the platform has none.
    identity: Option<(u64, u64)>,
}

const SCHEMA: &str = "evogate/commit/v1";

/// A commit record in place.
#[derive(Debug)]
pub(crate) struct Journal {
    path: PathBuf,
}

impl Journal {
    /// Removes the record: every file is in place, or every replacement was undone.
    pub(crate) fn remove(self) {
        let _ = fs::remove_file(&self.path);
        super::gate::untrack(&self.path);
    }
}

/// Writes and syncs the record of a set of files, each a `(temporary, target)` pair, or
/// `None` when they are not all in one folder with names in UTF-8 (then the set is moved
/// without one).
pub(crate) fn write(files: &[(&Path, &Path)]) -> io::Result<Option<Journal>> {
    let Some((_, first)) = files.first() else {
        return Ok(None);
    };
    let folder = first.parent().unwrap_or(Path::new(""));
    let name = |path: &Path| -> Option<String> {
        (path.parent().unwrap_or(Path::new("")) == folder)
            .then(|| path.file_name()?.to_str().map(str::to_string))?
    };
    let mut entries = Vec::new();
    for (temp, target) in files {
        let (Some(target_name), Some(temp_name)) = (name(target), name(temp)) else {
            return Ok(None);
        };
        entries.push(Entry {
            target: target_name,
            temp: temp_name,
            identity: identity(temp),
        });
    }
    let record = Record {
        schema: SCHEMA.to_string(),
        files: entries,
    };
    let path = first.with_file_name(format!(
        ".{}.{}.{SUFFIX}",
        record.files[0].target,
        std::process::id()
    ));
    super::fault::fails("journal")?;
    super::gate::track(&path);
    let written = (|| {
        let mut file = fs::File::create(&path)?;
        file.write_all(&serde_json::to_vec(&record).map_err(io::Error::other)?)?;
        file.sync_all()?;
        let folder = if folder.as_os_str().is_empty() {
            Path::new(".")
        } else {
            folder
        };
        fs::File::open(folder)?.sync_all()
    })();
    match written {
        Ok(()) => Ok(Some(Journal { path })),
        Err(error) => {
            let _ = fs::remove_file(&path);
            super::gate::untrack(&path);
            Err(error)
        }
    }
}

/// Completes the set a killed run's record at `path` (in `folder`) began, then removes
/// the record; a record that does not parse began no commit and is removed alone.
/// Returns the targets' names, whose leftover temporary files may then go.
pub(crate) fn complete(folder: &Path, path: &Path) -> Vec<String> {
    let record: Option<Record> = fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .filter(|r: &Record| r.schema == SCHEMA);
    let mut names = Vec::new();
    for entry in record.map(|r| r.files).unwrap_or_default() {
        let (target, temp) = (folder.join(&entry.target), folder.join(&entry.temp));
        let in_place = entry.identity.is_some() && identity(&target) == entry.identity;
        let waiting =
            temp.exists() && (entry.identity.is_none() || identity(&temp) == entry.identity);
        if !in_place && waiting {
            let _ = fs::rename(&temp, &target);
        }
        names.push(entry.target);
    }
    let _ = fs::remove_file(path);
    names
}

#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = fs::symlink_metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
fn identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file's temporary and target paths, old and new contents written.
    fn swaps(dir: &Path) -> Vec<(PathBuf, PathBuf)> {
        ["k.csv", "k.import.json"]
            .iter()
            .map(|name| {
                let temp = dir.join(format!(".{name}.7.evogate-tmp"));
                fs::write(&temp, format!("new {name}")).unwrap();
                fs::write(dir.join(name), format!("old {name}")).unwrap();
                (temp, dir.join(name))
            })
            .collect()
    }

    fn pairs(swaps: &[(PathBuf, PathBuf)]) -> Vec<(&Path, &Path)> {
        swaps
            .iter()
            .map(|(t, p)| (t.as_path(), p.as_path()))
            .collect()
    }

    #[test]
    fn a_set_killed_after_its_first_rename_is_completed_from_its_record() {
        let dir = tempfile::tempdir().unwrap();
        let swaps = swaps(dir.path());
        let journal = write(&pairs(&swaps)).unwrap().unwrap();
        fs::rename(&swaps[0].0, &swaps[0].1).unwrap();
        let names = complete(dir.path(), &journal.path);
        assert_eq!(names, ["k.csv", "k.import.json"]);
        for name in ["k.csv", "k.import.json"] {
            assert_eq!(
                fs::read_to_string(dir.path().join(name)).unwrap(),
                format!("new {name}")
            );
        }
        assert!(!journal.path.exists());
        super::super::gate::untrack(&journal.path);
    }

    #[test]
    fn a_record_cut_short_commits_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let swaps = swaps(dir.path());
        let journal = write(&pairs(&swaps)).unwrap().unwrap();
        let whole = fs::read(&journal.path).unwrap();
        fs::write(&journal.path, &whole[..whole.len() / 2]).unwrap();
        assert_eq!(complete(dir.path(), &journal.path), Vec::<String>::new());
        assert_eq!(
            fs::read_to_string(dir.path().join("k.csv")).unwrap(),
            "old k.csv"
        );
        super::super::gate::untrack(&journal.path);
    }
}
