//! The GitHub step summary: where it is, and appending a report to it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The GitHub step summary's path, when the run has one.
pub(super) fn step_summary() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
}

/// Appends `text` to the step summary; GitHub concatenates every step's additions.
pub(super) fn append(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(format!("{text}\n").as_bytes()))
        .map_err(|e| {
            anyhow::anyhow!(
                "GITHUB_STEP_SUMMARY `{}`: cannot append to it: {e}",
                path.display()
            )
        })
}
