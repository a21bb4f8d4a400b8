//! `split --from-scores`: a holdout manifest for a suite evogate did not build, fixed
//! from a scores file (an `import` of lm-eval, Inspect, promptfoo, ...): its tasks
//! dealt to train, validation and holdout by the same sampling as `split`, whole groups
//! each (the group a task's id names, `<group>:<rest>`, as `score`, `admit` and `split
//! --check` read it: the benchmark task for lm-eval's `gsm8k:16`; else the id itself),
//! the holdout in the order in which it is to be scored, and `manifest.json`, so
//! `--manifest`, `holdout-intact`, `--ledger` and `admit --sequential` work for
//! imported runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::outcome::{CommandOutcome, Status, Write};
use super::read_file;
use super::split::{entries, folder_files, holdout_power, tasks_csv};
use crate::admission::repeats::repeat_in;
use crate::alpha::Alpha;
use crate::digest::sha256_hex;
use crate::import::record::companion_path;
use crate::report::split::summary;
use crate::split::manifest::{FileDigest, MANIFEST_SCHEMA, Manifest};
use crate::split::{SplitRequest, build_splits};
use crate::table::Table;
use crate::task::Task;

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
    let bytes = read_file(&settings.scores)?;
    let source = settings.scores.display().to_string();
    let sha256 = sha256_hex(&bytes);
    let verifier = import_format(&settings.scores, &sha256)?;
    let (tasks, repeat_rows) = tasks_of(&Table::parse(&source, &bytes)?)?;
    let splits = build_splits(&tasks, &settings.request).map_err(|error| match error {
        crate::split::SplitError::EmptySplit { .. } => anyhow::anyhow!(
            "{error}; the groups here are those the task ids name (the benchmark task, `gsm8k` for `gsm8k:16`): --ratios 0,0,1 makes every task the holdout"
        ),
        other => other.into(),
    })?;
    let csvs: Vec<String> = splits.parts.iter().map(|part| tasks_csv(part)).collect();
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA.to_string(),
        verifier,
        truth: FileDigest {
            path: source,
            sha256,
        },
        seed: settings.request.seed,
        ratios: settings.request.ratios,
        cases: settings.cases.clone(),
        algorithm: "evogate".to_string(),
        splits: entries(&splits, &csvs),
        holdout_power: holdout_power(splits.parts[2].len(), settings.alpha.get())?,
    };
    let files = folder_files(out, &csvs, &manifest)?;
    let mut outcome = CommandOutcome::new(Status::Success, summary(&manifest.made(), out));
    if let Some(rows) = repeat_rows {
        outcome.notes.push(format!(
            "`{}` holds repeats (rows `<item>#<r>` whose group is the item): its {rows} rows are {} items, and the splits list each item once (admit reads a listed item as all of its repeats)",
            settings.scores.display(),
            tasks.len()
        ));
    }
    outcome.writes.push(Write::Folder {
        dir: out.to_path_buf(),
        files,
        large: Vec::new(),
    });
    Ok(outcome)
}

/// The manifest's `verifier`: `import:FORMAT` when the import's record sits beside the
/// scores file (checked to be that file's record), else `scores`.
fn import_format(scores: &Path, sha256: &str) -> anyhow::Result<String> {
    let record = companion_path(scores);
    if !record.is_file() {
        return Ok("scores".to_string());
    }
    let text = read_file(&record)?;
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

/// The tasks of a scores file, in its row order: `task_id`, the group its id names
/// (the part before its last `:`, else the id itself: a `group` column is not read for
/// this, as `score` and `split --check` go by the id), its `kind` when it has one. A
/// blank or repeated task id is an error naming its row.
///
/// Repeats of an item (rows `<item>#<r>` whose `group` is `<item>`, as `import
/// --repeats all` writes them) are one task, the item, at its first repeat's place:
/// a holdout lists items, and `admit` reads each listed item as all of its repeats. The
/// count of rows read is handed back when any row was a repeat.
fn tasks_of(table: &Table) -> anyhow::Result<(Vec<Task>, Option<usize>)> {
    let id = table.require("task_id")?;
    table.require_rows()?;
    let kind = table.column("kind");
    let group = table.column("group");
    let mut first: BTreeMap<&str, u64> = BTreeMap::new();
    // Each item of repeats: its place in `tasks` and its first repeat's row.
    let mut items: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
    let mut tasks: Vec<Task> = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let task_id = row.fields[id].trim();
        let at =
            |message: String| anyhow::anyhow!("`{}` row {}: {message}", table.source, row.line);
        if task_id.is_empty() {
            return Err(at("the task id is blank".to_string()));
        }
        if let Some(earlier) = first.insert(task_id, row.line) {
            return Err(at(format!(
                "task `{task_id}` is listed twice (first on row {earlier}); a holdout lists each task once: import with --repeats, or remove the repeat"
            )));
        }
        let row_kind = kind
            .map(|c| row.fields[c].trim().to_string())
            .unwrap_or_default();
        let row_group = group.map(|c| row.fields[c].trim());
        let Some((item, _)) = repeat_in(task_id, row_group) else {
            tasks.push(task(task_id, row_kind));
            continue;
        };
        match items.get(item) {
            Some(&(place, line)) if tasks[place].kind != row_kind => {
                return Err(at(format!(
                    "the repeats of item `{item}` have different kinds (`{}` on row {line}, `{row_kind}` here): repeats of one item are one task; give them one kind",
                    tasks[place].kind
                )));
            }
            Some(_) => {}
            None => {
                items.insert(item, (tasks.len(), row.line));
                tasks.push(task(item, row_kind));
            }
        }
    }
    if let Some((item, (_, line))) = items.iter().find(|(item, _)| first.contains_key(*item)) {
        anyhow::bail!(
            "`{}` row {}: task `{item}` is a row of its own and also the item of the repeats `{item}#…` (row {line}, their group): an item is either run once or repeated; rename one",
            table.source,
            first[item]
        );
    }
    let repeats = (!items.is_empty()).then_some(table.rows.len());
    Ok((tasks, repeats))
}

/// A task of `task_id` and `kind`, its group the one its id names.
fn task(task_id: &str, kind: String) -> Task {
    let group = task_id.rsplit_once(':').map_or(task_id, |(group, _)| group);
    Task {
        task_id: task_id.to_string(),
        group: group.to_string(),
        kind,
        prompt: String::new(),
    }
}
