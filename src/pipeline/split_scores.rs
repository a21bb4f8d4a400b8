//! `split --from-scores`: a holdout manifest for a suite evogate did not build, fixed
//! from a scores file (an `import` of lm-eval, Inspect, promptfoo, ...): its tasks
//! dealt to train, validation and holdout by the same sampling as `split`, whole groups
//! each (the group a task's id names, `<group>:<rest>`, as `score`, `admit` and `split
//! --check` read it: the benchmark task for lm-eval's `gsm8k:16`; else the id itself),
//! the holdout in the order in which it is to be scored, and `manifest.json`, so
//! `--manifest`, `holdout-intact`, `--ledger` and `admit --sequential` work for
//! imported runs.
//!
//! The file is read as a stream (digested on the way) into one buffer of its task ids
//! and kinds, a few numbers a row; the tasks are dealt by number and the files made
//! as they are written, as `split` makes them: memory holds the ids, not a table.

mod rows;

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::outcome::{CommandOutcome, Status, Write};
use super::split::files::{Dealt, Listed};
use super::split::{holdout_power, streamed};
use crate::alpha::Alpha;
use crate::import::record::companion_path;
use crate::report::split::summary;
use crate::split::build::split_tasks;
use crate::split::manifest::{MANIFEST_SCHEMA, Manifest};
use crate::split::{SplitError, SplitRequest};
use rows::ScoreRows;

/// The settings of one `split --from-scores`, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ScoresSplit {
    /// The scores file whose tasks are split.
    pub scores: PathBuf,
    /// Seed, ratios and cases.
    pub request: SplitRequest,
    /// `--cases` as given (trimmed), recorded in the manifest.
    pub cases: String,
    /// The level of the holdout's minimum detectable shift.
    pub alpha: Alpha,
}

/// Runs `split --from-scores`: the splits of the scores file's tasks written into the
/// folder `out`.
pub(crate) fn run(settings: &ScoresSplit, out: &Path) -> anyhow::Result<CommandOutcome> {
    let source = settings.scores.display().to_string();
    let (read, sha256) = rows::read(&settings.scores, &source)?;
    let verifier = import_format(&settings.scores, &sha256)?;
    let tasks = rows::tasks_of(read?, &source)?;
    let n = tasks.len();
    let dealt = split_tasks(n, &|i| tasks.group(i), &settings.request).map_err(|error| {
        match error {
            SplitError::EmptySplit { .. } => anyhow::anyhow!(
                "{error}; the groups here are those the task ids name (the benchmark task, `gsm8k` for `gsm8k:16`): --ratios 0,0,1 makes every task the holdout"
            ),
            other => other.into(),
        }
    })?;
    let repeat_rows = tasks.repeat_rows();
    let dealt = Rc::new(Dealt {
        tasks: Box::new(tasks),
        parts: dealt.parts,
        group_of: dealt.group_of,
        groups: dealt.groups,
    });
    let power = holdout_power(dealt.parts[2].len(), settings.alpha.get())?;
    let head = Manifest {
        schema: MANIFEST_SCHEMA.to_string(),
        verifier,
        truth: crate::split::manifest::FileDigest {
            path: source,
            sha256,
        },
        seed: settings.request.seed,
        ratios: settings.request.ratios,
        cases: settings.cases.clone(),
        algorithm: "evogate".to_string(),
        splits: (),
        holdout_power: power,
    };
    let (made, files) = streamed(&dealt, head, out);
    let mut outcome = CommandOutcome::new(Status::Success, summary(&made, out));
    if let Some(rows) = repeat_rows {
        outcome.notes.push(format!(
            "`{}` holds repeats (rows `<item>#<r>` whose group is the item): its {rows} rows are {n} items, and the splits list each item once (admit reads a listed item as all of its repeats)",
            settings.scores.display(),
        ));
    }
    outcome.writes.push(Write::Folder {
        dir: out.to_path_buf(),
        files: Vec::new(),
        large: files,
    });
    outcome.held.push(Box::new(dealt));
    Ok(outcome)
}

impl Listed for ScoreRows {
    fn task_id(&self, index: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.id(index))
    }

    fn names(&self, index: usize) -> (&str, &str) {
        (self.group(index), self.kind(index))
    }

    fn prompt(&self, _index: usize) -> Cow<'_, str> {
        Cow::Borrowed("")
    }
}

/// The manifest's `verifier`: `import:FORMAT` when the import's record sits beside the
/// scores file (checked to be that file's record), else `scores`.
fn import_format(scores: &Path, sha256: &str) -> anyhow::Result<String> {
    let record = companion_path(scores);
    if !record.is_file() {
        return Ok("scores".to_string());
    }
    let text = super::read_file(&record)?;
    let value: serde_json::Value = serde_json::from_slice(&text).map_err(|e| {
        anyhow::anyhow!(
            "`{}`: not an import record ({e}); remove it or import again",
            record.display()
        )
    })?;
    if let Some(written) = value["scores_sha256"].as_str()
        && written != sha256
    {
        anyhow::bail!(
            "`{}` was written for another scores file than `{}` (its scores_sha256 {written}, the file's {sha256}); import again",
            record.display(),
            scores.display()
        );
    }
    let format = value["format"].as_str().unwrap_or("unknown");
    Ok(format!("import:{format}"))
}
