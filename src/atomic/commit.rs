//! The commit: outputs written in full beside their targets ([`Prepared`]) take their
//! targets' places in one [`gate`](super::gate) section, with the appends the run makes
//! to files it does not own (the GitHub step summary). A target that exists is
//! exchanged with its replacement by one atomic `renameat2(RENAME_EXCHANGE)` (Linux;
//! `renameatx_np(RENAME_SWAP)` on macOS), so it holds the old or the new contents at
//! every instant and the old ones stay at hand for an undo. Where the platform or the
//! file system has no exchange, a file is renamed over its target (atomic too) after the
//! old file is linked aside, and a folder takes two renames: the old one aside, the new
//! one into place. A failure at any replacement undoes the ones made, so an error leaves
//! every target as it was; a set of several files first writes a commit record
//! ([`super::journal`]) that the next run completes should the process be killed midway.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use super::{fault, gate, journal};

/// Whether a replacement is a file or a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file.
    File,
    /// A folder and what it holds.
    Folder,
}

/// A replacement: the temporary `temp`, written in full beside `target`, takes its place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Swap {
    pub(crate) kind: Kind,
    pub(crate) temp: PathBuf,
    pub(crate) target: PathBuf,
}

/// How a replacement was made: what its undo does and where the old contents went.
#[derive(Debug)]
enum Made {
    /// Exchanged atomically: the old contents are now at the temporary path.
    Exchanged,
    /// Moved to a target that did not exist.
    Moved,
    /// The old file linked aside to this path, then the new one renamed over it.
    OverBackup(PathBuf),
    /// The old folder renamed aside to this path, then the new one into place.
    Aside(PathBuf),
}

/// Outputs written in full beside their targets and not yet in place: [`commit`]
/// moves them in. Dropped uncommitted, its temporary files and folders are removed.
#[derive(Debug, Default)]
pub struct Prepared {
    pub(crate) swaps: Vec<Swap>,
    /// The lock on the folder holding a replaced folder, held until the set is done.
    pub(crate) _lock: Option<fs::File>,
}

impl Prepared {
    /// A set with nothing to replace (a commit of appends alone).
    pub fn nothing() -> Prepared {
        Prepared::default()
    }

    /// Whether the set replaces nothing.
    pub fn is_empty(&self) -> bool {
        self.swaps.is_empty()
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        for swap in self.swaps.drain(..) {
            gate::remove(std::slice::from_ref(&swap.temp));
            gate::untrack(&swap.temp);
        }
    }
}

/// An append to a file the run does not own (the GitHub step summary), made in the
/// commit's section before the replacements and cut back if one of them fails.
#[derive(Debug)]
pub struct Append {
    label: String,
    file: fs::File,
    length: u64,
    text: Vec<u8>,
}

impl Append {
    /// Opens `path` (creating it) to append `text` at the commit; `label` names the
    /// file in messages. Opening early makes a file that cannot take the append an error
    /// before anything is replaced.
    pub fn open(path: &Path, text: &str, label: String) -> anyhow::Result<Append> {
        let cannot = |e: io::Error| anyhow::anyhow!("{label}: cannot append to it: {e}");
        let file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(cannot)?;
        let length = file.metadata().map_err(cannot)?.len();
        Ok(Append {
            label,
            file,
            length,
            text: format!("{text}\n").into_bytes(),
        })
    }

    fn apply(&mut self) -> anyhow::Result<()> {
        self.file
            .write_all(&self.text)
            .map_err(|e| anyhow::anyhow!("{}: cannot append to it: {e}", self.label))
    }

    fn undo(&mut self) {
        let _ = self.file.set_len(self.length);
    }
}

/// Moves every output of `set` into place and makes the `appends`, in one section: a
/// stop waits for it. On success the old contents are removed afterwards; on failure
/// every replacement and append made is undone and the targets are as they were. With
/// `status`, this commit is the run's last: a stop after it exits with `status`.
pub fn commit(mut set: Prepared, appends: &mut [Append], status: Option<u8>) -> anyhow::Result<()> {
    let section = gate::section();
    let undo_appends = |appends: &mut [Append]| appends.iter_mut().for_each(Append::undo);
    for at in 0..appends.len() {
        if let Err(error) = appends[at].apply() {
            undo_appends(&mut appends[..at]);
            return Err(error);
        }
    }
    let files: Vec<(&Path, &Path)> = (set.swaps.iter())
        .filter(|swap| swap.kind == Kind::File)
        .map(|swap| (swap.temp.as_path(), swap.target.as_path()))
        .collect();
    let journal = if set.swaps.len() > 1 && files.len() == set.swaps.len() {
        match journal::write(&files) {
            Ok(journal) => journal,
            Err(e) => {
                undo_appends(appends);
                return Err(super::not_moved(&set.swaps[0].target, &e));
            }
        }
    } else {
        None
    };
    if journal.is_some() {
        fault::at("journal");
    }
    let mut made: Vec<Made> = Vec::new();
    for (index, swap) in set.swaps.iter().enumerate() {
        match apply(swap, index + 1) {
            Ok(how) => made.push(how),
            Err(error) => {
                for (swap, how) in set.swaps.iter().zip(made).rev() {
                    undo(swap, how);
                }
                if let Some(journal) = journal {
                    journal.remove();
                }
                undo_appends(appends);
                return Err(super::not_moved(&swap.target, &error));
            }
        }
        fault::at(&format!("replace-{}", index + 1));
    }
    for folder in folders_of(&set.swaps) {
        let _ = fs::File::open(folder).and_then(|dir| dir.sync_all());
    }
    if let Some(journal) = journal {
        journal.remove();
    }
    if let Some(status) = status {
        gate::committed(status);
    }
    drop(section);
    fault::at("committed");
    for (swap, how) in set.swaps.drain(..).zip(made) {
        let old = match how {
            Made::Exchanged => Some(swap.temp.clone()),
            Made::Moved => None,
            Made::OverBackup(old) | Made::Aside(old) => Some(old),
        };
        if let Some(old) = old {
            gate::remove(std::slice::from_ref(&old));
            gate::untrack(&old);
        }
        gate::untrack(&swap.temp);
    }
    Ok(())
}

/// The folders holding the targets, each once.
fn folders_of(swaps: &[Swap]) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = (swaps.iter())
        .map(|swap| match swap.target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        })
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// Makes the `index`-th replacement of a commit (1-based, for the fault hook).
fn apply(swap: &Swap, index: usize) -> io::Result<Made> {
    fault::fails(&format!("replace-{index}"))?;
    if fs::symlink_metadata(&swap.target).is_err() {
        fs::rename(&swap.temp, &swap.target)?;
        return Ok(Made::Moved);
    }
    if exchange(&swap.temp, &swap.target)? {
        return Ok(Made::Exchanged);
    }
    match swap.kind {
        Kind::File => {
            let backup = beside(&swap.temp, "evogate-old");
            gate::track(&backup);
            let linked = fs::hard_link(&swap.target, &backup)
                .or_else(|_| fs::copy(&swap.target, &backup).map(|_| ()))
                .and_then(|()| fs::rename(&swap.temp, &swap.target));
            if let Err(error) = linked {
                let _ = fs::remove_file(&backup);
                gate::untrack(&backup);
                return Err(error);
            }
            Ok(Made::OverBackup(backup))
        }
        Kind::Folder => {
            let aside = beside(&swap.temp, "evogate-old");
            fault::fails("aside")?;
            gate::track(&aside);
            fs::rename(&swap.target, &aside).inspect_err(|_| gate::untrack(&aside))?;
            fault::at("aside");
            if let Err(error) = fs::rename(&swap.temp, &swap.target) {
                let _ = fs::rename(&aside, &swap.target);
                gate::untrack(&aside);
                return Err(error);
            }
            Ok(Made::Aside(aside))
        }
    }
}

/// Undoes a replacement made by [`apply`]: the old contents go back to the target.
fn undo(swap: &Swap, how: Made) {
    match how {
        Made::Exchanged => {
            let _ = exchange(&swap.temp, &swap.target);
        }
        Made::Moved => {
            let _ = fs::rename(&swap.target, &swap.temp);
        }
        Made::OverBackup(old) | Made::Aside(old) => {
            if swap.kind == Kind::Folder {
                let _ = fs::rename(&swap.target, &swap.temp);
            }
            let _ = fs::rename(&old, &swap.target);
            gate::untrack(&old);
        }
    }
}

/// The path beside a temporary `.NAME.evogate-tmp` file or `.NAME.evogate-new-…`
/// folder where its target's old contents are set aside: the same name with `kind`
/// (`evogate-old`) in place of `evogate-tmp` or `evogate-new`.
fn beside(temp: &Path, kind: &str) -> PathBuf {
    let name = temp
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name
        .replace("evogate-tmp", kind)
        .replace("evogate-new", kind);
    temp.with_file_name(name)
}

/// Exchanges `a` and `b` atomically; `Ok(false)` when the platform or the file system
/// has no exchange (or the fault hook says so).
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn exchange(a: &Path, b: &Path) -> io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    if fault::no_exchange() {
        return Ok(false);
    }
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => Ok(false),
        Err(error) => Err(error.into()),
    }
}

/// No atomic exchange on this platform: the two-rename path is taken.
#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn exchange(_a: &Path, _b: &Path) -> io::Result<bool> {
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atomic::names;

    fn file_set(dir: &Path) -> Prepared {
        let mut set = Prepared::nothing();
        for (name, text) in [("k.csv", "new csv"), ("k.import.json", "new json")] {
            let temp = dir.join(format!(".{name}.1.evogate-tmp"));
            fs::write(&temp, text).unwrap();
            set.swaps.push(Swap {
                kind: Kind::File,
                temp,
                target: dir.join(name),
            });
        }
        set
    }

    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    #[test]
    fn an_existing_target_is_exchanged_and_its_old_contents_removed_after() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("k.csv"), "old csv").unwrap();
        let swap = Swap {
            kind: Kind::File,
            temp: dir.path().join(".k.csv.1.evogate-tmp"),
            target: dir.path().join("k.csv"),
        };
        fs::write(&swap.temp, "new csv").unwrap();
        // tmpfs and ext4 have the exchange; a file system without it takes the other path.
        let how = apply(&swap, 1).unwrap();
        assert_eq!(fs::read_to_string(&swap.target).unwrap(), "new csv");
        if matches!(how, Made::Exchanged) {
            assert_eq!(fs::read_to_string(&swap.temp).unwrap(), "old csv");
        }
        undo(&swap, how);
        assert_eq!(fs::read_to_string(&swap.target).unwrap(), "old csv");
    }

    #[test]
    fn a_commit_of_two_files_moves_both_and_leaves_nothing_beside_them() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("k.csv"), "old csv").unwrap();
        let set = file_set(dir.path());
        commit(set, &mut [], None).unwrap();
        assert_eq!(names(dir.path()), ["k.csv", "k.import.json"]);
        assert_eq!(
            fs::read_to_string(dir.path().join("k.import.json")).unwrap(),
            "new json"
        );
    }

    #[test]
    fn an_append_is_cut_back_when_a_replacement_fails() {
        let dir = tempfile::tempdir().unwrap();
        let summary = dir.path().join("summary.md");
        fs::write(&summary, "earlier step\n").unwrap();
        fs::write(dir.path().join("k.csv"), "old csv").unwrap();
        let mut set = file_set(dir.path());
        // The second target's temporary file is gone: its rename fails.
        fs::remove_file(&set.swaps[1].temp).unwrap();
        set.swaps[1].target = dir.path().join("k.import.json");
        let mut appends = [Append::open(&summary, "report", "summary".into()).unwrap()];
        let error = commit(set, &mut appends, None).unwrap_err().to_string();
        assert!(error.contains("k.import.json"), "{error}");
        assert!(!error.contains("evogate-tmp"), "{error}");
        assert_eq!(fs::read_to_string(&summary).unwrap(), "earlier step\n");
        assert_eq!(
            fs::read_to_string(dir.path().join("k.csv")).unwrap(),
            "old csv"
        );
        assert_eq!(names(dir.path()), ["k.csv", "summary.md"]);
    }
}
