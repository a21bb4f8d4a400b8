//! The temporary files and folders this process has made and not yet moved into place
//! or removed, so that SIGINT or SIGTERM can remove them before the process ends
//! ([`watch_signals`]): an interrupted `score --out` or `import` leaves no
//! `.NAME.PID.evogate-tmp` behind. A path is tracked before it is created and untracked
//! once it is in place or gone.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The paths not yet in place.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Tracks `path`, about to be created.
pub(crate) fn track(path: &Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(path.to_path_buf());
    }
}

/// Untracks `path`, now in place or removed.
pub(crate) fn untrack(path: &Path) {
    if let Ok(mut pending) = PENDING.lock()
        && let Some(at) = pending.iter().rposition(|p| p == path)
    {
        pending.swap_remove(at);
    }
}

/// The tracked paths inside `folder` (tests run at once, each in its own folder).
#[cfg(test)]
pub(crate) fn tracked_in(folder: &Path) -> Vec<PathBuf> {
    PENDING
        .lock()
        .map(|pending| {
            pending
                .iter()
                .filter(|p| p.starts_with(folder))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// Removes every tracked file and folder and holds the list locked until the process
/// ends, so that no new temporary file is tracked (and left) after them.
#[cfg(unix)]
fn remove_all() -> Option<std::sync::MutexGuard<'static, Vec<PathBuf>>> {
    let pending = PENDING.lock().ok()?;
    remove(&pending);
    Some(pending)
}

/// Removes each file, and each folder with what it holds.
fn remove(paths: &[PathBuf]) {
    for path in paths {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Starts a thread that waits for SIGINT and SIGTERM, removes every temporary file and
/// folder not yet in place, and calls `end` with the signal's name (the binary prints
/// it and exits 2). SIGXFSZ is caught as well and dropped: with a handler in place the
/// kernel fails a write past `ulimit -f` with EFBIG instead of killing the process, so
/// the write's error ends the run with exit 2 and its temporary file removed, as on a
/// full disk.
#[cfg(unix)]
pub fn watch_signals(end: fn(&str)) -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM, SIGXFSZ};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGXFSZ])?;
    std::thread::Builder::new()
        .name("evogate-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let name = match signal {
                    SIGINT => "SIGINT",
                    SIGTERM => "SIGTERM",
                    _ => continue,
                };
                let _held = remove_all();
                end(name);
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tracked_files_and_folders_are_removed_and_untracked_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (file, folder, kept) = (
            dir.path().join(".a.evogate-tmp"),
            dir.path().join(".r.evogate-new-x"),
            dir.path().join("kept.csv"),
        );
        for path in [&file, &folder, &kept] {
            track(path);
        }
        std::fs::write(&file, "x").unwrap();
        std::fs::write(&kept, "x").unwrap();
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("pairs.csv"), "x").unwrap();
        untrack(&kept);
        // Only this test's paths: other tests write temporary files at the same time.
        let mine = tracked_in(dir.path());
        assert_eq!(mine.len(), 2, "{mine:?}");
        remove(&mine);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["kept.csv"]);
        for path in [&file, &folder] {
            untrack(path);
        }
    }
}
