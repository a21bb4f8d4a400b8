//! Carrying out a run's writes: each set of outputs written in full beside its targets,
//! then committed together with the report appended to the GitHub step summary, so the
//! run changes every target or none ([`crate::atomic::commit`]).

use std::path::PathBuf;

use crate::atomic::{
    Append, Prepared, Streamed, commit, prepare_files, prepare_folder, prepare_streamed_files,
};
use crate::pipeline::outcome::Write;

/// Carries out `writes` for a run whose result means the exit `status`; `stream` is the
/// file the use case streamed into, if any. A note says when the step summary was
/// appended to.
pub(super) fn carry_out(
    writes: Vec<Write>,
    stream: &mut Option<Streamed>,
    status: u8,
    notes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut appends = Vec::new();
    let mut sets = Vec::new();
    for write in writes {
        match write {
            Write::StepSummary(text) => {
                if let Some(summary) = step_summary() {
                    let label = format!("GITHUB_STEP_SUMMARY `{}`", summary.display());
                    appends.push(Append::open(&summary, &text, label)?);
                    notes.push("appended the report to the GitHub step summary".to_string());
                }
            }
            write => sets.push(write),
        }
    }
    if sets.len() > 1 {
        // Several sets (the demo's folders): each is prepared once the one before is in
        // place, as a folder carries over what it holds, and a stop waits for them all.
        let _all = crate::atomic::section();
        for write in sets {
            commit(prepare(write, stream)?, &mut [], None)?;
        }
        return commit(Prepared::nothing(), &mut appends, Some(status));
    }
    let set = match sets.pop() {
        Some(write) => prepare(write, stream)?,
        None => Prepared::nothing(),
    };
    // A run that writes nothing (its output is stdout) has no commit point: a stop while
    // it prints exits 2, its output cut short.
    let writes = !set.is_empty() || !appends.is_empty();
    commit(set, &mut appends, writes.then_some(status))
}

/// Writes the outputs of `write` in full beside their targets.
fn prepare(write: Write, stream: &mut Option<Streamed>) -> anyhow::Result<Prepared> {
    match write {
        Write::Files(files) => prepare_files(&files),
        Write::Streamed(files) => prepare_streamed_files(&files),
        Write::Folder { dir, files, large } => prepare_folder(&dir, &files, &large),
        Write::Stream(path) => match stream.take() {
            Some(stream) if stream.path() == path => stream.prepare(),
            _ => anyhow::bail!("`{}` was not opened to stream into", path.display()),
        },
        Write::StepSummary(_) => Ok(Prepared::nothing()),
    }
}

/// The GitHub step summary's path, when the run has one.
pub(crate) fn step_summary() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
}
