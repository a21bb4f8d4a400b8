//! A folder of outputs replaced as a whole. The new files are written into a fresh
//! sibling folder (`.NAME.evogate-new-PID-N`), and only when all of them are written
//! and synced does it take the old folder's place in the [commit](super::commit): by
//! one atomic exchange where the platform has one, so the target holds the complete old
//! set or the complete new set at every instant, else by two renames (the old folder
//! aside as `.NAME.evogate-old-PID-N`, the new one into place) with a moment, open only
//! to a kill, in which the target is missing. The next run recognises the leftovers by
//! name ([`super::settle`]): it puts a set-aside old folder back when the target is
//! missing and removes the rest. An exclusive lock on the folder holding it (on unix; a
//! lock file beside it elsewhere) keeps two runs from interleaving.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::commit::{Kind, Prepared, Swap, commit};
use super::streamed::{StreamedFile, WriteBytes};
use super::{FileToWrite, fault, gate, not_written};

/// Replaces the folder `target` by one holding `files` and the `streamed` files, each
/// written straight into the new folder as it is made (every path inside `target`),
/// and the entries of the old folder that none of them replaces, which are carried
/// over by hard link (or copy) so that nothing else in the folder is lost.
pub fn replace_folder(
    target: &Path,
    files: &[FileToWrite],
    streamed: &[StreamedFile],
) -> anyhow::Result<()> {
    commit(prepare_folder(target, files, streamed)?, &mut [], Some(0))
}

/// Writes the new folder for `target` ([`replace_folder`]) under the lock on the
/// folder holding it, which the returned set holds until it is committed or dropped.
pub fn prepare_folder(
    target: &Path,
    files: &[FileToWrite],
    streamed: &[StreamedFile],
) -> anyhow::Result<Prepared> {
    if target.exists() && !target.is_dir() {
        anyhow::bail!(
            "`{}` is a file, not a folder: give a folder to write into",
            target.display()
        );
    }
    let (parent, name) = parent_and_name(target)?;
    fs::create_dir_all(&parent).map_err(|e| {
        anyhow::anyhow!(
            "`{}`: cannot create the folder: {e}; give a folder you may write into",
            target.display()
        )
    })?;
    let lock = lock_beside(&parent, &name)
        .map_err(|e| cannot(target, "lock the folder holding it", &e))?;
    super::settle::clear_folders(&parent, &name);
    let staging = new_folder(&parent, &name)
        .map_err(|e| cannot(target, "create the new folder beside it", &e))?;
    let set = Prepared {
        swaps: vec![Swap {
            kind: Kind::Folder,
            temp: staging.clone(),
            target: target.to_path_buf(),
        }],
        _lock: Some(lock),
    };
    // On an error the set is dropped, and the new folder with it.
    fill(target, &staging, files, streamed)?;
    fs::File::open(&staging)
        .and_then(|dir| dir.sync_all())
        .and_then(|()| fault::fails("synced"))
        .map_err(|e| not_written(target, &e))?;
    fault::at("synced");
    Ok(set)
}

/// Creates the new folder `.NAME.evogate-new-PID-N` beside `name` in `parent`, tracked
/// for removal on a stop from before it exists.
fn new_folder(parent: &Path, name: &str) -> io::Result<PathBuf> {
    for attempt in 0..1000 {
        let path = parent.join(format!(
            ".{name}.evogate-new-{}-{attempt}",
            std::process::id()
        ));
        let _section = gate::section();
        gate::track(&path);
        match fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(error) => {
                gate::untrack(&path);
                if error.kind() != io::ErrorKind::AlreadyExists {
                    return Err(error);
                }
            }
        }
    }
    Err(io::Error::other("no free name for the new folder"))
}

/// Writes `files` and the `streamed` files (each a path inside `target`) into the new
/// folder `staging`, and carries over what else the old `target` holds. The new folder
/// is not in place until every file in it is written and synced, so each is written
/// straight into it; an error names the file's final path, not the new folder's
/// temporary name.
fn fill(
    target: &Path,
    staging: &Path,
    files: &[FileToWrite],
    streamed: &[StreamedFile],
) -> anyhow::Result<()> {
    let mut first = true;
    let mut place = |final_path: &Path, write: &WriteBytes<'_>| -> anyhow::Result<()> {
        let relative = final_path.strip_prefix(target).map_err(|_| {
            anyhow::anyhow!(
                "`{}` is not inside `{}`",
                final_path.display(),
                target.display()
            )
        })?;
        let path = staging.join(relative);
        if let (Some(folder), Some(shown)) = (path.parent(), final_path.parent()) {
            created(|| fs::create_dir_all(folder)).map_err(|e| cannot(shown, "create it", &e))?;
        }
        let failed = if first { fault::fails("write") } else { Ok(()) };
        failed
            .and_then(|()| write_synced(&path, write))
            .map_err(|e| not_written(final_path, &e))?;
        if std::mem::take(&mut first) {
            fault::at("write");
        }
        Ok(())
    };
    for file in files {
        place(&file.path, &|out| out.write_all(&file.bytes))?;
    }
    for file in streamed {
        place(&file.path, &*file.write)?;
    }
    if target.is_dir() {
        carry_over(target, staging)?;
    }
    Ok(())
}
/// Makes an entry inside the new folder in a section: once a stop has begun nothing is
/// added to the folder it removes, so the removal is whole.
fn created<T>(make: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    let _section = gate::section();
    make()
}

/// Creates `path`, writes it through a buffer and syncs it.
fn write_synced(path: &Path, write: &WriteBytes<'_>) -> io::Result<()> {
    let file = created(|| fs::File::create(path))?;
    let mut out = io::BufWriter::with_capacity(1 << 16, file);
    write(&mut out)?;
    out.into_inner()
        .map_err(io::IntoInnerError::into_error)?
        .sync_all()
}

/// An exclusive lock held while `name` in `parent` is replaced. On unix the folder
/// holding it is locked itself, so that no lock file is left beside the outputs.
#[cfg(unix)]
fn lock_beside(parent: &Path, _name: &str) -> io::Result<fs::File> {
    let folder = fs::File::open(parent)?;
    folder.lock()?;
    Ok(folder)
}

/// An exclusive lock held while `name` in `parent` is replaced: a lock file beside it.
#[cfg(not(unix))]
fn lock_beside(parent: &Path, name: &str) -> io::Result<fs::File> {
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(parent.join(format!(".{name}.evogate-lock")))?;
    file.lock()?;
    Ok(file)
}

/// The folder holding `target` (`.` for a bare name) and `target`'s own name.
fn parent_and_name(target: &Path) -> anyhow::Result<(PathBuf, String)> {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "`{}`: give a folder by name, not `.` or `..`",
                target.display()
            )
        })?;
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name))
}

/// Copies into `to` every entry of `from` that `to` does not hold: folders entry by
/// entry, files by hard link where the file system allows it. An error names the entry
/// of `from`, never the new folder's temporary name.
fn carry_over(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in fs::read_dir(from).map_err(|e| cannot(from, "read it", &e))? {
        let entry = entry.map_err(|e| cannot(from, "read it", &e))?;
        let source = entry.path();
        let destination = to.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(|e| cannot(&source, "read it", &e))?;
        if kind.is_dir() {
            if destination.symlink_metadata().is_err() {
                created(|| fs::create_dir(&destination))
                    .map_err(|e| cannot(&source, "carry it over to the new folder", &e))?;
            }
            if destination.is_dir() {
                carry_over(&source, &destination)?;
            }
        } else if destination.symlink_metadata().is_err() {
            let linked = created(|| {
                if kind.is_symlink() {
                    link_symlink(&source, &destination)
                } else {
                    fs::hard_link(&source, &destination)
                        .or_else(|_| fs::copy(&source, &destination).map(|_| ()))
                }
            });
            linked.map_err(|e| cannot(&source, "carry it over to the new folder", &e))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn link_symlink(source: &Path, destination: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(fs::read_link(source)?, destination)
}

#[cfg(not(unix))]
fn link_symlink(source: &Path, destination: &Path) -> io::Result<()> {
    fs::copy(source, destination).map(|_| ())
}

fn cannot(path: &Path, what: &str, error: &io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "`{}`: cannot {what}: {error}; check that its folder is writable and has room",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atomic::names;

    fn set(dir: &Path, a: &str, b: &str) -> Vec<FileToWrite> {
        vec![
            FileToWrite::new(dir.join("admission.json"), a),
            FileToWrite::new(dir.join("admission.md"), b),
        ]
    }

    fn read(dir: &Path) -> Option<(String, String)> {
        Some((
            fs::read_to_string(dir.join("admission.json")).ok()?,
            fs::read_to_string(dir.join("admission.md")).ok()?,
        ))
    }

    #[test]
    fn a_streamed_file_that_fails_is_named_by_its_final_path_and_the_old_set_stays() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("rep");
        replace_folder(&target, &set(&target, "old json", "old md"), &[]).unwrap();
        let pairs = StreamedFile::new(target.join("pairs.csv"), |out| {
            out.write_all(b"task_id\n")?;
            Err(io::Error::other("File too large"))
        });
        let error = replace_folder(&target, &set(&target, "new json", "new md"), &[pairs])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "`{}`: cannot write it: File too large",
                target.join("pairs.csv").display()
            )),
            "{error}"
        );
        assert!(!error.contains("evogate-new"), "{error}");
        assert_eq!(read(&target), Some(("old json".into(), "old md".into())));
        assert_eq!(names(root.path()), ["rep"], "leftovers stayed");
        let pairs = StreamedFile::new(target.join("pairs.csv"), |out| out.write_all(b"task_id\n"));
        replace_folder(&target, &set(&target, "new json", "new md"), &[pairs]).unwrap();
        assert_eq!(
            fs::read_to_string(target.join("pairs.csv")).unwrap(),
            "task_id\n"
        );
    }

    /// Leaves in `root` what a run killed at `step` leaves (a PID above Linux's largest
    /// names its folders): after the exchange, the old set in the new folder's place;
    /// between the two renames of the path without one, no target at all.
    fn killed_at(root: &Path, target: &Path, step: &str) {
        let new = root.join(".report.evogate-new-4194305-0");
        fs::create_dir(&new).unwrap();
        // What the run wrote, and what it carried over from the old folder.
        for (name, text) in [
            ("admission.json", "new json"),
            ("admission.md", "new md"),
            ("mine.txt", "kept"),
        ] {
            fs::write(new.join(name), text).unwrap();
        }
        match step {
            "exchanged" => {
                let aside = root.join("aside");
                fs::rename(target, &aside).unwrap();
                fs::rename(&new, target).unwrap();
                fs::rename(&aside, &new).unwrap();
            }
            _ => fs::rename(target, root.join(".report.evogate-old-4194305-0")).unwrap(),
        }
    }

    #[test]
    fn a_run_killed_midway_shows_the_old_set_or_the_new_and_the_next_run_clears_it() {
        for step in ["exchanged", "aside"] {
            let root = tempfile::tempdir().unwrap();
            let target = root.path().join("report");
            replace_folder(&target, &set(&target, "old json", "old md"), &[]).unwrap();
            fs::write(target.join("mine.txt"), "kept").unwrap();
            killed_at(root.path(), &target, step);
            let seen = read(&target);
            assert!(
                seen.is_none() || seen == Some(("new json".into(), "new md".into())),
                "{step}: a reader saw {seen:?}"
            );
            // The next run puts the old set back or clears what is left, then writes.
            replace_folder(&target, &set(&target, "third json", "third md"), &[]).unwrap();
            assert_eq!(
                read(&target),
                Some(("third json".into(), "third md".into()))
            );
            assert_eq!(fs::read_to_string(target.join("mine.txt")).unwrap(), "kept");
            assert_eq!(names(root.path()), ["report"], "{step}: leftovers stayed");
        }
    }

    #[test]
    fn a_reader_puts_back_the_old_set_that_a_killed_run_left_aside() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("report");
        replace_folder(&target, &set(&target, "old json", "old md"), &[]).unwrap();
        killed_at(root.path(), &target, "aside");
        assert!(!target.exists());
        super::super::settle::settle([target.join("admission.json").as_path()]);
        assert_eq!(read(&target), Some(("old json".into(), "old md".into())));
        assert_eq!(names(root.path()), ["report"]);
    }

    #[test]
    fn a_failed_write_leaves_the_old_folder_and_no_new_one() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("fresh");
        let files = [FileToWrite::new(target.join("sub/x"), "x")];
        fs::write(root.path().join("blocker"), "").unwrap();
        let bad = [FileToWrite::new(root.path().join("elsewhere/x"), "x")];
        assert!(replace_folder(&target, &bad, &[]).is_err());
        assert!(!target.exists(), "a failed run left an empty folder");
        replace_folder(&target, &files, &[]).unwrap();
        assert_eq!(fs::read_to_string(target.join("sub/x")).unwrap(), "x");
        assert_eq!(names(root.path()), ["blocker", "fresh"]);
    }

    #[test]
    fn a_failed_write_leaves_no_new_folder_tracked_for_removal_on_a_signal() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("rep");
        let outside = [FileToWrite::new(root.path().join("elsewhere/x"), "x")];
        let pairs = StreamedFile::new(target.join("pairs.csv"), |_| {
            Err(io::Error::other("File too large"))
        });
        assert!(replace_folder(&target, &outside, &[]).is_err());
        assert!(replace_folder(&target, &[], &[pairs]).is_err());
        assert_eq!(names(root.path()), Vec::<String>::new());
        assert_eq!(
            super::super::gate::tracked_in(root.path()),
            Vec::<PathBuf>::new(),
            "removed new folders are still tracked"
        );
    }

    /// Hostile K04: the error named the new folder's temporary path
    /// (`…/.rep.evogate-new-OZChOd`), which tempfile adds to its errors, not the target.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_folder_that_cannot_be_made_is_named_by_its_target_alone() {
        let target = Path::new("/proc/evogate-report");
        let error = replace_folder(target, &set(target, "a", "b"), &[])
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("`/proc/evogate-report`: cannot create the new folder beside it"),
            "{error}"
        );
        assert!(!error.contains("evogate-new"), "{error}");
    }

    #[test]
    fn two_writers_to_one_folder_never_interleave() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("report");
        std::thread::scope(|scope| {
            for writer in 0..4 {
                let target = &target;
                scope.spawn(move || {
                    for round in 0..20 {
                        let tag = format!("{writer}-{round}");
                        replace_folder(target, &set(target, &tag, &tag), &[]).unwrap();
                    }
                });
            }
        });
        let (json, md) = read(&target).unwrap();
        assert_eq!(json, md);
        assert_eq!(names(root.path()), ["report"]);
    }
}
