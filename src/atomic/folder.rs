//! A folder of outputs replaced as a whole. The new files are written into a fresh
//! sibling folder, and only when all of them are written and synced is the old folder
//! renamed aside and the new one renamed into its place. Every state an interrupted run
//! can leave is the complete old set (at the target, or set aside beside it) or the
//! complete new set, and the next run recognises the leftovers by name: it puts a
//! set-aside old folder back when the target is missing and removes the rest. An
//! exclusive lock on the folder holding it (on unix; a lock file beside it elsewhere)
//! keeps two runs from interleaving.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{FileToWrite, not_written};

/// The step of a swap that a test may interrupt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The old folder was renamed aside; the new one is not yet in place.
    OldSetAside,
    /// The new folder is in place; the old one is not yet removed.
    NewInPlace,
}

/// Replaces the folder `target` by one holding `files` and the `streamed` files, each
/// written straight into the new folder as it is made (every path inside `target`),
/// and the entries of the old folder that none of them replaces, which are carried
/// over by hard link (or copy) so that nothing else in the folder is lost.
pub fn replace_folder(
    target: &Path,
    files: &[FileToWrite],
    streamed: &[StreamedFile],
) -> anyhow::Result<()> {
    replace_folder_with(target, files, streamed, &mut |_| true)
}

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

/// [`replace_folder`], asking `go_on` after each step whether to continue:
/// `false` stops at once, leaving the file system as a kill at that moment would.
pub(crate) fn replace_folder_with(
    target: &Path,
    files: &[FileToWrite],
    streamed: &[StreamedFile],
    go_on: &mut dyn FnMut(Step) -> bool,
) -> anyhow::Result<()> {
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
    recover(&parent, &name, target)?;
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.evogate-new-"))
        .tempdir_in(&parent)
        .map_err(|e| cannot(target, "create the new folder beside it", &e))?;
    // Removed on SIGINT or SIGTERM until it is in place (a set-aside old folder is put
    // back by the next run).
    super::pending::track(staging.path());
    if let Err(error) = fill(target, staging.path(), files, streamed) {
        // Removed, then untracked: a signal in between finds nothing to remove.
        let path = staging.path().to_path_buf();
        drop(staging);
        super::pending::untrack(&path);
        return Err(error);
    }
    let _ = fs::File::open(staging.path()).and_then(|dir| dir.sync_all());
    let new = staging.keep();
    let old = parent.join(format!(
        ".{name}.evogate-old-{}",
        new.file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.rsplit('-').next())
            .unwrap_or("x")
    ));
    let had_old = target.is_dir();
    if had_old {
        fs::rename(target, &old).map_err(|e| {
            let _ = fs::remove_dir_all(&new);
            super::pending::untrack(&new);
            cannot(target, "move it aside", &e)
        })?;
        if !go_on(Step::OldSetAside) {
            return Ok(());
        }
    }
    if let Err(e) = fs::rename(&new, target) {
        if had_old {
            let _ = fs::rename(&old, target);
        }
        let _ = fs::remove_dir_all(&new);
        super::pending::untrack(&new);
        return Err(cannot(target, "move the new folder into place", &e));
    }
    super::pending::untrack(&new);
    let _ = fs::File::open(&parent).and_then(|dir| dir.sync_all());
    if !go_on(Step::NewInPlace) {
        return Ok(());
    }
    if had_old {
        let _ = fs::remove_dir_all(&old);
    }
    drop(lock);
    Ok(())
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
    let place = |final_path: &Path, write: &WriteBytes<'_>| -> anyhow::Result<()> {
        let relative = final_path.strip_prefix(target).map_err(|_| {
            anyhow::anyhow!(
                "`{}` is not inside `{}`",
                final_path.display(),
                target.display()
            )
        })?;
        let path = staging.join(relative);
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder).map_err(|e| cannot(folder, "create it", &e))?;
        }
        write_synced(&path, write).map_err(|e| not_written(final_path, &e))
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

/// Creates `path`, writes it through a buffer and syncs it.
fn write_synced(path: &Path, write: &WriteBytes<'_>) -> io::Result<()> {
    let mut out = io::BufWriter::with_capacity(1 << 16, fs::File::create(path)?);
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

/// Finishes what an interrupted run left beside `target`: a set-aside old folder goes
/// back when `target` is missing, and every other leftover is removed.
fn recover(parent: &Path, name: &str, target: &Path) -> anyhow::Result<()> {
    let old_prefix = format!(".{name}.evogate-old-");
    let new_prefix = format!(".{name}.evogate-new-");
    let Ok(entries) = fs::read_dir(parent) else {
        return Ok(());
    };
    let mut leftovers: Vec<(bool, PathBuf)> = entries
        .flatten()
        .filter_map(|entry| {
            let file_name = entry.file_name().to_string_lossy().into_owned();
            let old = file_name.starts_with(&old_prefix);
            (old || file_name.starts_with(&new_prefix)).then(|| (old, entry.path()))
        })
        .collect();
    leftovers.sort();
    for (old, path) in leftovers {
        if old && !target.exists() {
            fs::rename(&path, target).map_err(|e| cannot(&path, "put it back", &e))?;
        } else {
            let _ = fs::remove_dir_all(&path);
        }
    }
    Ok(())
}

/// Copies into `to` every entry of `from` that `to` does not hold: folders entry by
/// entry, files by hard link where the file system allows it.
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
                fs::create_dir(&destination).map_err(|e| cannot(&destination, "create it", &e))?;
            }
            if destination.is_dir() {
                carry_over(&source, &destination)?;
            }
        } else if destination.symlink_metadata().is_err() {
            let linked = if kind.is_symlink() {
                link_symlink(&source, &destination)
            } else {
                fs::hard_link(&source, &destination)
                    .or_else(|_| fs::copy(&source, &destination).map(|_| ()))
            };
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

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
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

    #[test]
    fn a_run_killed_between_the_two_renames_shows_the_old_set_or_the_new_never_a_mix() {
        for stop in [Step::OldSetAside, Step::NewInPlace] {
            let root = tempfile::tempdir().unwrap();
            let target = root.path().join("report");
            replace_folder(&target, &set(&target, "old json", "old md"), &[]).unwrap();
            fs::write(target.join("mine.txt"), "kept").unwrap();
            replace_folder_with(
                &target,
                &set(&target, "new json", "new md"),
                &[],
                &mut |step| step != stop,
            )
            .unwrap();
            let seen = read(&target);
            assert!(
                seen.is_none() || seen == Some(("new json".into(), "new md".into())),
                "{stop:?}: a reader saw {seen:?}"
            );
            // The next run puts the old set back or clears what is left, then writes.
            replace_folder(&target, &set(&target, "third json", "third md"), &[]).unwrap();
            assert_eq!(
                read(&target),
                Some(("third json".into(), "third md".into()))
            );
            assert_eq!(fs::read_to_string(target.join("mine.txt")).unwrap(), "kept");
            assert_eq!(names(root.path()), ["report"], "{stop:?}: leftovers stayed");
        }
    }

    #[test]
    fn an_interrupted_swap_is_rolled_back_to_the_complete_old_set() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("split");
        replace_folder(&target, &set(&target, "old json", "old md"), &[]).unwrap();
        replace_folder_with(
            &target,
            &set(&target, "new json", "new md"),
            &[],
            &mut |_| false,
        )
        .unwrap();
        assert!(!target.exists());
        recover(root.path(), "split", &target).unwrap();
        assert_eq!(read(&target), Some(("old json".into(), "old md".into())));
        assert_eq!(names(root.path()), ["split"]);
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
            super::super::pending::tracked_in(root.path()),
            Vec::<PathBuf>::new(),
            "removed new folders are still tracked"
        );
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
