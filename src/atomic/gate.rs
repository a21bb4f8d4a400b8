//! The gate between the run and a stopping signal. SIGINT and SIGTERM are taken by a
//! thread of their own ([`watch_signals`]) while the run goes on, so the two must agree
//! on one moment: the commit. Every step that makes a temporary file, moves outputs
//! into place or appends to a file the user keeps runs inside a [`Section`]; a stop
//! waits for the open section to end and then lets no other begin. A stop before the
//! commit removes every temporary file and folder this process made ([`track`]) and
//! exits 2 with the targets as they were; a stop after it exits with the status the
//! run's result means, its new outputs whole. So the exit code always says what is on
//! disk, and no signal lands between two renames of one commit.

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// What the gate knows of the run.
struct State {
    /// Temporary files and folders made and not yet in place or removed.
    pending: Vec<PathBuf>,
    /// Sections open now.
    sections: usize,
    /// A stop is under way: no section may begin.
    stopping: bool,
    /// The run's exit status, set in the section that moved its outputs into place.
    committed: Option<u8>,
    /// What was written for good before the commit (a ledger's attempt).
    recorded: Vec<String>,
    /// The run is returning its status: a signal now changes nothing.
    ending: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    pending: Vec::new(),
    sections: 0,
    stopping: false,
    committed: None,
    recorded: Vec::new(),
    ending: false,
});
static CHANGED: Condvar = Condvar::new();

fn state() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A step that a stop waits for (a temporary file's creation, a commit's renames, an
/// append): short and bounded, so the stop still comes at once.
#[derive(Debug)]
pub(crate) struct Section(());

/// Opens a section; once a stop is under way, waits for the process to end instead
/// (a section already open in this run may nest another).
pub(crate) fn section() -> Section {
    let mut state = state();
    while state.stopping && state.sections == 0 {
        state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    state.sections += 1;
    Section(())
}

impl Drop for Section {
    fn drop(&mut self) {
        let mut state = state();
        state.sections -= 1;
        CHANGED.notify_all();
    }
}

/// Tracks `path`, about to be created or holding what a stop must remove.
pub(crate) fn track(path: &Path) {
    state().pending.push(path.to_path_buf());
}

/// Untracks `path`, now in place or removed.
pub(crate) fn untrack(path: &Path) {
    let mut state = state();
    if let Some(at) = state.pending.iter().rposition(|p| p == path) {
        state.pending.swap_remove(at);
    }
}

/// Says, inside the section that moved the run's outputs into place, that the run is
/// committed: a later stop exits with `status`.
pub(crate) fn committed(status: u8) {
    state().committed = Some(status);
}

/// Says that `what` was written for good before the commit, for a stop's message.
pub(crate) fn recorded(what: String) {
    state().recorded.push(what);
}

/// The tracked paths inside `folder` (tests run at once, each in its own folder).
#[cfg(test)]
pub(crate) fn tracked_in(folder: &Path) -> Vec<PathBuf> {
    (state().pending.iter())
        .filter(|p| p.starts_with(folder))
        .cloned()
        .collect()
}

/// Removes each file, and each folder with what it holds.
pub(crate) fn remove(paths: &[PathBuf]) {
    for path in paths {
        let removed = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
            _ => std::fs::remove_file(path),
        };
        drop(removed);
    }
}

/// A stop: the signal, and what the run had done when it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// `SIGINT` or `SIGTERM`.
    pub signal: &'static str,
    /// The run's status when its outputs were already in place, else `None`.
    pub committed: Option<u8>,
    /// What was written for good before the commit.
    pub recorded: Vec<String>,
}

impl Stop {
    /// The exit code: the run's own once committed, else 2.
    pub fn code(&self) -> i32 {
        self.committed.map_or(2, i32::from)
    }

    /// The line for stderr, saying what is on disk.
    pub fn message(&self) -> String {
        match self.committed {
            Some(_) => format!(
                "note: stopped by {} after the outputs were in place: they are whole and new, and the exit status is the run's",
                self.signal
            ),
            None => {
                let mut line = format!(
                    "error: stopped by {}; the files being written were removed and nothing was replaced",
                    self.signal
                );
                for what in &self.recorded {
                    line.push_str(&format!("; {what} before the stop"));
                }
                line
            }
        }
    }
}

/// Takes a stop: waits for the open section, removes what is pending and hands the
/// stop to `end` with the gate closed for good (so nothing is created, moved or
/// appended after the clean-up), unless the run is already returning its status.
fn stop(signal: &'static str, end: fn(&Stop)) {
    let mut state = state();
    if state.ending {
        return;
    }
    state.stopping = true;
    while state.sections > 0 {
        state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    remove(&state.pending);
    let stop = Stop {
        signal,
        committed: state.committed,
        recorded: state.recorded.clone(),
    };
    // The guard stays held: `end` exits the process.
    end(&stop);
}

/// Marks the run as returning its status. After a stop has begun this waits for the
/// process to end, so the stop's exit code is the one the process ends with.
pub fn end_run() {
    let mut state = state();
    while state.stopping {
        state = CHANGED.wait(state).unwrap_or_else(PoisonError::into_inner);
    }
    state.ending = true;
}

/// Whether a stop has begun (the fault hook waits for it).
#[cfg(debug_assertions)]
pub(crate) fn stopping() -> bool {
    state().stopping
}

/// Whether a section is open (the fault hook's signal waits for the stop only outside
/// one).
#[cfg(debug_assertions)]
pub(crate) fn in_section() -> bool {
    state().sections > 0
}

/// Starts a thread that waits for SIGINT and SIGTERM and takes the stop,
/// handing it to `end` (the binary prints [`Stop::message`] and exits with
/// [`Stop::code`]). SIGXFSZ is caught as well and dropped: with a handler in place the
/// kernel fails a write past `ulimit -f` with EFBIG instead of killing the process, so
/// the write's error ends the run with exit 2 and its temporary file removed, as on a
/// full disk.
#[cfg(unix)]
pub fn watch_signals(end: fn(&Stop)) -> std::io::Result<()> {
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
                stop(name, end);
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

    #[test]
    fn a_stop_says_exit_2_and_nothing_replaced_before_the_commit_and_the_runs_status_after() {
        let before = Stop {
            signal: "SIGTERM",
            committed: None,
            recorded: vec!["attempt 2 was recorded in `l.jsonl`".into()],
        };
        assert_eq!(before.code(), 2);
        assert_eq!(
            before.message(),
            "error: stopped by SIGTERM; the files being written were removed and nothing was replaced; attempt 2 was recorded in `l.jsonl` before the stop"
        );
        let after = Stop {
            signal: "SIGINT",
            committed: Some(1),
            recorded: Vec::new(),
        };
        assert_eq!(after.code(), 1);
        assert!(
            after
                .message()
                .starts_with("note: stopped by SIGINT after the outputs were in place")
        );
    }
}
