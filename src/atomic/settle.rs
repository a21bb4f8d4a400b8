//! Clearing what a killed run left beside the files and folders a run is about to read
//! or write: a commit record is completed ([`super::journal`]), a temporary file
//! (`.NAME.PID.evogate-tmp`) or old file set aside (`.NAME.PID.evogate-old`) is
//! removed, a new folder (`.NAME.evogate-new-PID-N`) is removed and an old folder set
//! aside (`.NAME.evogate-old-PID-N`) is put back when `NAME` is missing, else removed;
//! a report folder a ledger record made stale (`.NAME.evogate-stale-PID`) is removed.
//! A leftover is touched only when the process that made it has ended (its PID names no
//! live process), so a run never clears another's work in progress; the folders of a
//! replacement are cleared again under its lock by the writer ([`clear_folders`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// What a leftover's name says.
#[derive(Debug, PartialEq, Eq)]
enum Leftover {
    /// A commit record.
    Journal,
    /// A temporary file or an old file set aside, for the target `name`.
    File { name: String },
    /// A new folder, or (`old`) an old folder set aside, for the target `name`.
    Folder { name: String, old: bool },
}

/// Reads a leftover's file name: what it is and the PID that made it (`None` for a
/// name without one, which no live run of this version makes).
fn parse(file: &str) -> Option<(Leftover, Option<u32>)> {
    let rest = file.strip_prefix('.')?;
    for suffix in [".evogate-tmp", ".evogate-old", ".evogate-commit"] {
        if let Some(stem) = rest.strip_suffix(suffix) {
            let (name, pid) = stem.rsplit_once('.')?;
            let leftover = match suffix {
                ".evogate-commit" => Leftover::Journal,
                _ => Leftover::File {
                    name: name.to_string(),
                },
            };
            return Some((leftover, pid.parse().ok()));
        }
    }
    for (marker, old) in [
        (".evogate-new-", false),
        (".evogate-old-", true),
        (".evogate-stale-", false),
    ] {
        if let Some(at) = rest.rfind(marker) {
            let (name, tail) = (&rest[..at], &rest[at + marker.len()..]);
            let pid = tail.split('-').next().and_then(|p| p.parse().ok());
            let name = name.to_string();
            return Some((Leftover::Folder { name, old }, pid));
        }
    }
    None
}

/// Whether the process `pid` has ended (or the name has no PID). This process's own
/// leftovers are in progress; a process that cannot be signalled is alive.
fn ended(pid: Option<u32>) -> bool {
    let Some(pid) = pid else {
        return true;
    };
    if pid == std::process::id() {
        return false;
    }
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH)
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Clears the leftovers of ended runs beside each of `paths` and beside the folder
/// holding it (a file inside a replaced folder). Best effort: what cannot be cleared
/// stays for a later run.
pub fn settle<'a>(paths: impl IntoIterator<Item = &'a Path>) {
    let mut wanted: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let mut at = Some(path);
        for _ in 0..2 {
            let Some((folder, name)) = at.and_then(folder_and_name) else {
                break;
            };
            wanted.entry(folder).or_default().insert(name);
            at = at
                .and_then(Path::parent)
                .filter(|p| !p.as_os_str().is_empty());
        }
    }
    for (folder, names) in wanted {
        clear(&folder, names, false);
    }
}

/// Clears every leftover for the folder `name` in `parent`, whoever made it: the caller
/// holds the lock that every replacement of that folder takes.
pub(crate) fn clear_folders(parent: &Path, name: &str) {
    clear(parent, BTreeSet::from([name.to_string()]), true);
}

/// The folder holding `path` (`.` for a bare name) and `path`'s own name.
fn folder_and_name(path: &Path) -> Option<(PathBuf, String)> {
    let name = path.file_name()?.to_str()?.to_string();
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Some((folder, name))
}

/// Clears in `folder` the leftovers for `names` (every one when `locked`, else those of
/// ended runs): records first, as completing one names more targets.
fn clear(folder: &Path, mut names: BTreeSet<String>, locked: bool) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let mut found: Vec<(String, Leftover, Option<u32>)> = entries
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().to_str()?.to_string();
            let (leftover, pid) = parse(&file)?;
            Some((file, leftover, pid))
        })
        .collect();
    found.sort_by_key(|(file, leftover, _)| (!matches!(leftover, Leftover::Journal), file.clone()));
    for (file, leftover, pid) in found {
        let path = folder.join(&file);
        match leftover {
            Leftover::Journal if ended(pid) => {
                names.extend(super::journal::complete(folder, &path));
            }
            Leftover::File { name } if names.contains(&name) && ended(pid) => {
                let _ = fs::remove_file(&path);
            }
            Leftover::Folder { name, old } if names.contains(&name) && (locked || ended(pid)) => {
                let target = folder.join(&name);
                if old && fs::symlink_metadata(&target).is_err() {
                    let _ = fs::rename(&path, &target);
                } else {
                    let _ = fs::remove_dir_all(&path);
                }
            }
            _ => {}
        }
    }
}

/// The files of an earlier report moved aside by [`set_aside_stale`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Stale {
    /// The folder `.NAME.evogate-stale-PID` beside the report folder `NAME`.
    pub(crate) aside: PathBuf,
    /// Each file moved, from where to where.
    moved: Vec<(PathBuf, PathBuf)>,
}

impl Stale {
    /// Moves the files back where they were and removes the folder aside.
    pub(crate) fn put_back(&self) {
        for (from, to) in &self.moved {
            let _ = fs::rename(to, from);
        }
        let _ = fs::remove_dir(&self.aside);
    }
}

/// Moves the report files `files` (all in one report folder `NAME`) that exist into a
/// new folder `.NAME.evogate-stale-PID` beside it (removed by the next run's
/// [`settle`], never put back), leaving every other file of the folder where it is (a
/// ledger, an input, a file of the user's). `None` when none of them exists. Used for
/// the report that a new ledger record makes stale.
pub(crate) fn set_aside_stale(files: &[PathBuf]) -> std::io::Result<Option<Stale>> {
    let present: Vec<&PathBuf> = files
        .iter()
        .filter(|file| fs::symlink_metadata(file).is_ok())
        .collect();
    let Some(folder) = present.first().and_then(|file| file.parent()) else {
        return Ok(None);
    };
    let Some((parent, name)) = folder_and_name(folder) else {
        return Ok(None);
    };
    let aside = parent.join(format!(".{name}.evogate-stale-{}", std::process::id()));
    // One left under this PID can only be a dead process's: this one makes one per run.
    let _ = fs::remove_dir_all(&aside);
    fs::create_dir(&aside)?;
    let mut stale = Stale {
        aside,
        moved: Vec::new(),
    };
    for file in present {
        let Some(file_name) = file.file_name() else {
            continue;
        };
        let to = stale.aside.join(file_name);
        if let Err(error) = fs::rename(file, &to) {
            stale.put_back();
            return Err(error);
        }
        stale.moved.push((file.clone(), to));
    }
    Ok(Some(stale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_report_folder_is_read_as_one_to_remove_never_to_put_back() {
        assert_eq!(
            parse(".rep.evogate-stale-77"),
            Some((
                Leftover::Folder {
                    name: "rep".into(),
                    old: false
                },
                Some(77)
            ))
        );
        let dir = tempfile::tempdir().unwrap();
        let rep = dir.path().join("rep");
        fs::create_dir(&rep).unwrap();
        fs::write(rep.join("admission.json"), "{}").unwrap();
        let files = [rep.join("admission.json"), rep.join("pairs.csv")];
        let stale = set_aside_stale(&files).unwrap().unwrap();
        assert_eq!(
            stale.aside,
            dir.path()
                .join(format!(".rep.evogate-stale-{}", std::process::id()))
        );
        assert!(!files[0].exists() && stale.aside.join("admission.json").exists());
        // A dead process's stale folder is removed.
        let dead = dir.path().join(".rep.evogate-stale-2147483647");
        fs::rename(&stale.aside, &dead).unwrap();
        settle([rep.as_path()]);
        assert!(!dead.exists());
        // No report file: nothing to set aside.
        assert_eq!(set_aside_stale(&files).unwrap(), None);
    }

    #[test]
    fn setting_a_stale_report_aside_leaves_the_folders_other_files_in_place() {
        // Regression: the whole folder was set aside and removed, with a ledger or an
        // input kept in it.
        let dir = tempfile::tempdir().unwrap();
        let rep = dir.path().join("rep");
        fs::create_dir(&rep).unwrap();
        fs::write(rep.join("admission.json"), "{}").unwrap();
        fs::write(rep.join("ledger.jsonl"), "{}\n").unwrap();
        let stale = set_aside_stale(&[rep.join("admission.json")])
            .unwrap()
            .unwrap();
        assert!(rep.join("ledger.jsonl").exists() && !rep.join("admission.json").exists());
        stale.put_back();
        assert!(rep.join("admission.json").exists() && !stale.aside.exists());
    }

    #[test]
    fn leftover_names_are_read_with_their_pid() {
        let file = |name: &str| Leftover::File { name: name.into() };
        assert_eq!(
            parse(".k.csv.42.evogate-tmp"),
            Some((file("k.csv"), Some(42)))
        );
        assert_eq!(
            parse(".k.csv.42.evogate-old"),
            Some((file("k.csv"), Some(42)))
        );
        assert_eq!(
            parse(".k.csv.9.evogate-commit"),
            Some((Leftover::Journal, Some(9)))
        );
        assert_eq!(
            parse(".rep.evogate-new-77-0"),
            Some((
                Leftover::Folder {
                    name: "rep".into(),
                    old: false
                },
                Some(77)
            ))
        );
        assert_eq!(
            parse(".my.rep.evogate-old-k1"),
            Some((
                Leftover::Folder {
                    name: "my.rep".into(),
                    old: true
                },
                None
            ))
        );
        assert_eq!(parse("k.csv"), None);
        assert_eq!(parse(".hidden"), None);
    }

    #[test]
    fn a_live_runs_leftovers_are_kept_and_an_ended_runs_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir
            .path()
            .join(format!(".k.csv.{}.evogate-tmp", std::process::id()));
        // PID 2^22 + 1 is above Linux's largest.
        let dead = dir.path().join(".k.csv.4194305.evogate-tmp");
        let other = dir.path().join(".other.csv.4194305.evogate-tmp");
        for path in [&mine, &dead, &other] {
            fs::write(path, "x").unwrap();
        }
        fs::write(dir.path().join("k.csv"), "kept").unwrap();
        settle([dir.path().join("k.csv").as_path()]);
        assert!(mine.exists() && other.exists());
        assert!(!dead.exists());
    }

    #[test]
    fn an_old_folder_set_aside_goes_back_and_a_new_one_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join(".split.evogate-old-4194305-0");
        let new = dir.path().join(".split.evogate-new-4194305-0");
        for folder in [&old, &new] {
            fs::create_dir(folder).unwrap();
            fs::write(folder.join("train.csv"), folder.display().to_string()).unwrap();
        }
        settle([dir.path().join("split/train.csv").as_path()]);
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["split"]);
        assert_eq!(
            fs::read_to_string(dir.path().join("split/train.csv")).unwrap(),
            old.display().to_string()
        );
    }
}
