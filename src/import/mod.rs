//! Reading the per-sample logs of other eval tools (lm-evaluation-harness, Inspect AI,
//! promptfoo, OpenAI evals, HELM, DSPy) into the scores that `admit` reads. One file per
//! format turns a log's bytes or JSON values into [`Found`] samples; [`assemble`] then
//! applies the rules every format shares: nothing guessed (a needed selector that is
//! missing or names something the log lacks is an error listing the choices found),
//! missing, duplicated and errored samples refused unless the caller opts in, and scores
//! outside [0, 1] refused unless a scale maps them. Nothing here prints or opens files.
//!
//! Inspect's `.eval` logs are zip archives, read with the `zip` crate (the standard Rust
//! zip reader), built with deflate only.

pub mod dspy;
pub mod gepa;
pub mod helm;
pub mod inspect;
pub mod lm_eval;
mod lm_eval_chunks;
mod lm_eval_scan;
#[doc(hidden)]
pub use lm_eval_scan::readings as lm_eval_scan_readings;
pub mod openai_evals;
pub mod promptfoo;
pub mod record;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::base::csv::{Cell, CsvWriter};
use crate::table::trim_field;

/// The formats `evogate import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// lm-evaluation-harness `--log_samples` files (`samples_<task>_<date>.jsonl`).
    LmEval,
    /// Inspect AI logs, `.eval` (zip) or `.json`.
    Inspect,
    /// `promptfoo eval --output results.json`.
    Promptfoo,
    /// The `oaieval` record log (JSON Lines).
    OpenaiEvals,
    /// A HELM run folder (or its `per_instance_stats.json`).
    Helm,
    /// The JSON that `dspy.Evaluate(save_as_json=...)` writes, or a GEPA result
    /// (`GEPAResult` or `DspyGEPAResult` `.to_dict()`).
    Dspy,
}

impl Format {
    /// The name as given on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::LmEval => "lm-eval",
            Format::Inspect => "inspect",
            Format::Promptfoo => "promptfoo",
            Format::OpenaiEvals => "openai-evals",
            Format::Helm => "helm",
            Format::Dspy => "dspy",
        }
    }
}

/// How Inspect's epochs of one sample become one score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Repeats {
    /// The mean of the epochs' values (0/1 outcomes become scores).
    Mean,
    /// The value more than half of the epochs hold; an even split is refused.
    Majority,
    /// The value of the lowest epoch.
    First,
}

/// What to do with missing, duplicated and errored samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum OnMissing {
    /// Refuse the import, with counts and the first ids.
    #[default]
    Fail,
    /// Leave those tasks out and record how many in the companion record.
    Intersect,
}

/// A linear map from a log's score range onto [0, 1]: `--scale MIN:MAX`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The score that becomes 0.
    pub min: f64,
    /// The score that becomes 1.
    pub max: f64,
}

impl Scale {
    /// Parses `MIN:MAX`, finite with MIN < MAX.
    pub fn parse(text: &str) -> Result<Scale, ImportError> {
        let bad = || {
            ImportError::Refused(format!(
                "--scale `{text}`: give MIN:MAX with MIN < MAX, e.g. 0:100 for percentages"
            ))
        };
        let (min, max) = text.split_once(':').ok_or_else(bad)?;
        let min: f64 = min.trim().parse().map_err(|_| bad())?;
        let max: f64 = max.trim().parse().map_err(|_| bad())?;
        if !(min.is_finite() && max.is_finite() && min < max) {
            return Err(bad());
        }
        Ok(Scale { min, max })
    }

    fn apply(self, value: f64) -> f64 {
        (value - self.min) / (self.max - self.min)
    }
}

/// Why a log cannot be imported as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The log is not what the format says it should be.
    #[error("`{file}`{}: {message}", row_text(*line))]
    Malformed {
        /// The input file as given.
        file: String,
        /// The 1-based line, for line-based logs.
        line: Option<u64>,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A selector is needed and missing, or names something the log lacks.
    #[error("{}", choice_text(option, given.as_deref(), choices, why))]
    Choice {
        /// The option, e.g. `--filter`.
        option: String,
        /// What was given, if anything.
        given: Option<String>,
        /// Every value the log holds.
        choices: Vec<String>,
        /// Why a choice is needed, when that is not obvious.
        why: String,
    },
    /// The samples do not make a scores file under the rules (missing, duplicated,
    /// errored, out of range).
    #[error("{0}")]
    Refused(String),
}

fn row_text(line: Option<u64>) -> String {
    line.map(|l| format!(" row {l}")).unwrap_or_default()
}

fn choice_text(option: &str, given: Option<&str>, choices: &[String], why: &str) -> String {
    let found = if choices.is_empty() {
        "none".to_string()
    } else {
        choices
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(" ({why})")
    };
    match given {
        None => format!("{option} is needed{why}; the log has: {found}; give one with {option}"),
        Some(given) => {
            format!("{option} `{given}` is not in the log{why}; the log has: {found}")
        }
    }
}

impl ImportError {
    /// A [`ImportError::Malformed`] without a line.
    pub fn malformed(file: &str, message: impl Into<String>) -> ImportError {
        ImportError::Malformed {
            file: file.to_string(),
            line: None,
            message: message.into(),
        }
    }
}

/// Picks the value of `option` among `found`: the one given when the log has it, the
/// only one when the log has one and none was given; otherwise an error listing them.
pub fn choose(
    option: &str,
    given: Option<&str>,
    found: &BTreeSet<String>,
    why: &str,
) -> Result<String, ImportError> {
    let error = || ImportError::Choice {
        option: option.to_string(),
        given: given.map(str::to_string),
        choices: found.iter().cloned().collect(),
        why: why.to_string(),
    };
    match given {
        Some(value) if found.contains(value) => Ok(value.to_string()),
        Some(_) => Err(error()),
        None if found.len() == 1 => Ok(found.iter().next().cloned().unwrap_or_default()),
        None => Err(error()),
    }
}

/// One sample as a log gives it, selectors applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The task, as both runs of a pair name it.
    pub task_id: String,
    /// The score as logged (before `--scale`).
    pub score: f64,
    /// The task's stratum (`kind`), when the log has one; shared, as a log's many
    /// samples of one task name the same stratum.
    pub kind: Option<Arc<str>>,
    /// lm-eval's document, as 64 bits of its `doc_hash` ([`record::doc_key`]), so that
    /// runs on different documents do not pair.
    pub doc_key: Option<u64>,
}

/// What a format's reader found in the logs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Found {
    /// The samples of the selected run, in log order; a task may repeat.
    pub samples: Vec<Sample>,
    /// Tasks whose sample carries an error (missing, not wrong).
    pub errored: Vec<String>,
    /// Tasks the reader itself found twice (e.g. one Inspect epoch twice).
    pub duplicated: Vec<String>,
    /// Tasks the logs hold under other selector values (or without the selected
    /// value): those without a sample are missing. Tasks with a sample may be left out.
    pub universe: BTreeSet<String>,
    /// The selectors as resolved (option name without dashes → value).
    pub selectors: BTreeMap<String, String>,
    /// Things the report should say (e.g. that a mean turned outcomes into scores).
    pub notes: Vec<String>,
}

/// Tasks left out, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dropped {
    /// Tasks with no sample under the selectors although the log holds them.
    pub missing: Tally,
    /// Tasks with more than one sample.
    pub duplicated: Tally,
    /// Tasks whose sample carries an error.
    pub errored: Tally,
}

/// How many tasks, and the first few (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// The number of tasks.
    pub count: usize,
    /// The first [`FIRST_IDS`] of them, sorted.
    pub first: Vec<String>,
}

/// How many ids an error or a record names.
pub const FIRST_IDS: usize = 5;

impl Tally {
    fn of(ids: &BTreeSet<String>) -> Tally {
        Tally {
            count: ids.len(),
            first: ids.iter().take(FIRST_IDS).cloned().collect(),
        }
    }

    fn describe(&self, what: &str) -> Option<String> {
        (self.count > 0).then(|| {
            let ids: Vec<String> = self.first.iter().map(|i| format!("`{i}`")).collect();
            format!("{} {what} (first: {})", self.count, ids.join(", "))
        })
    }
}

/// The scores of one run, one row per task, sorted by task, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The rows, scores in [0, 1].
    pub rows: Vec<Sample>,
    /// Whether every score is 0 or 1 (then the file has a `correct` column).
    pub outcomes: bool,
    /// What was left out.
    pub dropped: Dropped,
    /// The selectors as resolved.
    pub selectors: BTreeMap<String, String>,
    /// Notes for the user and the record.
    pub notes: Vec<String>,
}

/// Applies the shared rules to what a reader found. Time: O(n log n).
pub fn assemble(
    found: Found,
    on_missing: OnMissing,
    scale: Option<Scale>,
) -> Result<Imported, ImportError> {
    let Found {
        samples,
        errored,
        duplicated,
        universe,
        selectors,
        mut notes,
    } = found;
    // The one identifier rule: ids and strata are trimmed as every reader trims a
    // cell ([`trim_field`]), so ids `x` and `x<TAB>` are one task here as they are for
    // `admit`, and are refused as duplicated instead of written as two.
    let mut samples = samples;
    for sample in &mut samples {
        trim_in_place(&mut sample.task_id);
        if let Some(kind) = &sample.kind
            && trim_field(kind).len() != kind.len()
        {
            sample.kind = Some(Arc::from(trim_field(kind)));
        }
    }
    let trimmed = |ids: Vec<String>| {
        ids.into_iter().map(|mut id| {
            trim_in_place(&mut id);
            id
        })
    };
    let (errored, duplicated) = (trimmed(errored), trimmed(duplicated));
    let universe: BTreeSet<String> = trimmed(universe.into_iter().collect()).collect();
    let errored: BTreeSet<String> = errored.collect();
    // Sorted by task, a task's samples are adjacent. The sort need not be stable: a
    // task with two samples is refused or left out whole, so their order never shows.
    // (In place: a million samples need no second buffer.)
    samples.sort_unstable_by(|a, b| a.task_id.cmp(&b.task_id));
    let mut twice: BTreeSet<String> = duplicated.collect();
    for pair in samples.windows(2) {
        if pair[0].task_id == pair[1].task_id {
            twice.insert(pair[0].task_id.clone());
        }
    }
    let has_sample = |task: &str| {
        samples
            .binary_search_by(|s| s.task_id.as_str().cmp(task))
            .is_ok()
    };
    let missing: BTreeSet<String> = universe
        .iter()
        .filter(|t| !has_sample(t) && !errored.contains(*t))
        .cloned()
        .collect();
    let dropped = Dropped {
        missing: Tally::of(&missing),
        duplicated: Tally::of(&twice),
        errored: Tally::of(&errored),
    };
    let problems: Vec<String> = [
        dropped.missing.describe("missing"),
        dropped.duplicated.describe("duplicated"),
        dropped.errored.describe("errored"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !problems.is_empty() {
        match on_missing {
            OnMissing::Fail => {
                return Err(ImportError::Refused(format!(
                    "tasks {}; fix the log, or leave them out with --on-missing intersect (the counts go into the companion record)",
                    problems.join("; ")
                )));
            }
            OnMissing::Intersect => notes.push(format!("left out: {}", problems.join("; "))),
        }
    }
    // The rows are the samples kept, in place.
    let mut rows = samples;
    let mut outside: Vec<(String, f64)> = Vec::new();
    let left_out = !(twice.is_empty() && errored.is_empty());
    rows.retain_mut(|sample| {
        if left_out && (twice.contains(&sample.task_id) || errored.contains(&sample.task_id)) {
            return false;
        }
        let logged = sample.score;
        sample.score = scale.map_or(logged, |s| s.apply(logged)) + 0.0;
        if !(sample.score.is_finite() && (0.0..=1.0).contains(&sample.score)) {
            outside.push((sample.task_id.clone(), logged));
            return false;
        }
        true
    });
    if let Some((task, value)) = outside.first() {
        let how = match scale {
            Some(s) => format!(
                "outside the --scale {}:{} given; give the range the metric takes",
                s.min, s.max
            ),
            None => "outside [0, 1]; give --scale MIN:MAX to map the metric's range onto [0, 1]"
                .to_string(),
        };
        return Err(ImportError::Refused(format!(
            "{} scores are {how} (first: task `{task}` scores {value})",
            outside.len()
        )));
    }
    if rows.is_empty() {
        return Err(ImportError::Refused(
            "no task is left to write; check the selectors".to_string(),
        ));
    }
    let outcomes = rows.iter().all(|r| r.score == 0.0 || r.score == 1.0);
    Ok(Imported {
        rows,
        outcomes,
        dropped,
        selectors,
        notes,
    })
}

/// `id` trimmed as [`trim_field`] trims a cell, without a copy when nothing is trimmed.
fn trim_in_place(id: &mut String) {
    let trimmed = trim_field(id);
    if trimmed.len() != id.len() {
        *id = trimmed.to_string();
    }
}

/// The scores CSV: `task_id`, `kind` when the log has it, `correct` when every score is
/// 0 or 1, and `score`; free text goes through the formula guard, numbers through
/// [`crate::base::numbers::number`].
pub fn render_csv(imported: &Imported) -> String {
    let with_kind = imported.rows.iter().any(|r| r.kind.is_some());
    let mut header = vec!["task_id"];
    if with_kind {
        header.push("kind");
    }
    if imported.outcomes {
        header.push("correct");
    }
    header.push("score");
    let mut csv = CsvWriter::with_capacity(imported.rows.len() * 24 + 32);
    csv.header(&header);
    for row in &imported.rows {
        // Identifiers are data (issue 19): written as they are, never neutralised, so
        // the two arms' files pair on exactly the ids the logs hold.
        csv.cell(Cell::Trusted(&row.task_id));
        if with_kind {
            csv.cell(Cell::Trusted(row.kind.as_deref().unwrap_or("")));
        }
        if imported.outcomes {
            csv.cell(Cell::Trusted(if row.score == 1.0 { "1" } else { "0" }));
        }
        csv.number(row.score);
        csv.end_row();
    }
    csv.finish()
}

/// A JSON value as a task id: strings as they are, anything else as compact JSON.
pub(crate) fn id_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A number or a boolean as a score; `None` for anything else.
pub(crate) fn numeric(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
