//! A testing hook for the fault-injection tests, compiled into debug builds only (the
//! binary `cargo test` runs; a release build has none of it). `EVOGATE_TEST_FAULT=STEP:ACTION`
//! acts at one named step of writing outputs:
//!
//! - `write`: the first temporary file (or the first file of a new folder) is partly written;
//! - `synced`: every temporary file is written and synced, nothing is in place;
//! - `journal`: the commit record of a set of several files is in place;
//! - `aside`: a folder replaced without an atomic exchange has its old set renamed aside;
//! - `replace-N`: the N-th file or folder of the set is in place;
//! - `committed`: every output is in place, the old contents not yet removed.
//!
//! ACTION is `kill` (SIGKILL to itself), `int` or `term` (SIGINT or SIGTERM to itself,
//! then, outside a section, waiting for the stop to end the process, so the signal
//! lands at that step), or `fail` (the step's write or rename fails with an I/O error).
//! `EVOGATE_TEST_NO_EXCHANGE=1` makes every replacement take the path of a platform
//! without an atomic exchange.

#[cfg(debug_assertions)]
use std::sync::OnceLock;

/// The step and action the hook names, if any.
#[cfg(debug_assertions)]
fn fault() -> Option<&'static (String, String)> {
    static FAULT: OnceLock<Option<(String, String)>> = OnceLock::new();
    FAULT
        .get_or_init(|| {
            let text = std::env::var("EVOGATE_TEST_FAULT").ok()?;
            let (step, action) = text.split_once(':')?;
            Some((step.to_string(), action.to_string()))
        })
        .as_ref()
}

/// Acts at `step` when the hook names it with a signal.
#[cfg(debug_assertions)]
pub(crate) fn at(step: &str) {
    let Some((named, action)) = fault() else {
        return;
    };
    if named != step {
        return;
    }
    #[cfg(not(unix))]
    let _ = action;
    #[cfg(unix)]
    {
        use rustix::process::{Signal, getpid, kill_process};
        let signal = match action.as_str() {
            "kill" => Signal::KILL,
            "int" => Signal::INT,
            "term" => Signal::TERM,
            _ => return,
        };
        let _ = kill_process(getpid(), signal);
        // Inside a section the stop begins and waits for the section to end; outside
        // one it ends the process here. Either is waited for (bounded, should no watcher
        // be installed), so the signal lands at this step.
        let in_section = super::gate::in_section();
        for _ in 0..1000 {
            if in_section && super::gate::stopping() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}

/// The error to fail `step` with, when the hook names it with `fail`.
#[cfg(debug_assertions)]
pub(crate) fn fails(step: &str) -> std::io::Result<()> {
    match fault() {
        Some((named, action)) if named == step && action == "fail" => Err(std::io::Error::other(
            format!("injected failure at step {step}"),
        )),
        _ => Ok(()),
    }
}

/// Whether the atomic exchange is to be taken as missing.
#[cfg(debug_assertions)]
pub(crate) fn no_exchange() -> bool {
    static NO: OnceLock<bool> = OnceLock::new();
    *NO.get_or_init(|| std::env::var_os("EVOGATE_TEST_NO_EXCHANGE").is_some_and(|v| v == "1"))
}

/// No hook in a release build.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn at(_step: &str) {}

/// No hook in a release build.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn fails(_step: &str) -> std::io::Result<()> {
    Ok(())
}

/// No hook in a release build.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn no_exchange() -> bool {
    false
}
