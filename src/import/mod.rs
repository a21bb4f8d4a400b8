//! Reading the per-sample logs of other eval tools (lm-evaluation-harness, Inspect AI,
//! promptfoo, OpenAI evals, HELM, DSPy) into the scores that `admit` reads. One file per
//! format turns a log's bytes or JSON values into [`Found`] samples; [`assemble`] then
//! applies the rules every format shares: nothing guessed (a needed selector that is
//! missing or names something the log lacks is an error listing the choices found),
//! missing, duplicated and errored samples refused unless the caller opts in, and scores
//! outside [0, 1] refused unless a scale maps them. Nothing here prints or opens a
//! file: `crate::pipeline::log_files` turns what `--from` names into files, and the
//! Inspect reader reads a stream it is given.
//!
//! Inspect's `.eval` logs are zip archives, read with the `zip` crate (the standard Rust
//! zip reader), built with deflate only.

pub(crate) mod dspy;
pub(crate) mod gepa;
pub(crate) mod helm;
pub(crate) mod inspect;
pub mod lm_eval;
mod lm_eval_chunks;
mod lm_eval_line;
mod lm_eval_scan;
#[doc(hidden)]
pub use lm_eval_scan::readings as lm_eval_scan_readings;
mod decide;
pub(crate) mod openai_evals;
pub(crate) mod plan;
pub(crate) mod promptfoo;
pub(crate) mod record;
mod repeats;
pub(crate) mod sorted;
pub(crate) mod written;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::base::csv::CsvWriter;

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

/// The reducer a log names for the repeats of one `kind` (Inspect's
/// `eval.config.epochs_reducer`, scored by one scorer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogReducer {
    /// One reducer evogate applies as the log's tool defines it: the default.
    Known(Repeats),
    /// Names evogate cannot apply: a reducer of the task's own (the log records its
    /// name, not its rule) or several reducers (the tool reports each on its own).
    /// Repeated items then need `--repeats`, and the refusal names these.
    Unusable {
        /// The scorer whose scores the import reads.
        scorer: String,
        /// The names as the log records them (`worst`, `my_evals/worst_of`).
        names: Vec<String>,
    },
}

/// How the repeats of one item (Inspect epochs, promptfoo `--repeat`, HELM train
/// trials) become its score. `mean`, `majority`, `first` and `all` are evogate's; the
/// others are Inspect's own reducers (`median`, `mode`, `max`, `pass_at_K`,
/// `at_least_K`), which an Inspect log names as its `epochs_reducer` and which are used
/// by default when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeats {
    /// The mean of the repeats' values (0/1 outcomes become scores).
    Mean,
    /// The value more than half of the repeats hold; an even split is refused.
    Majority,
    /// The value of the lowest repeat.
    First,
    /// Every repeat as a row `<item>#<repeat>`, the item as its `group`, so that
    /// `admit --cluster group` tests on items.
    All,
    /// Inspect's `median`.
    Median,
    /// Inspect's `mode`: the most common value, the earliest repeat's on a tie.
    Mode,
    /// Inspect's `max`.
    Max,
    /// Inspect's `pass_at_K`: the unbiased estimate of the chance that one of K
    /// repeats drawn without replacement is correct (value 1).
    PassAt(u32),
    /// Inspect's `at_least_K`: 1 when at least K repeats are correct (value 1), else 0.
    AtLeast(u32),
}

impl Repeats {
    /// Parses a `--repeats` value or an Inspect reducer name.
    pub fn parse(text: &str) -> Result<Repeats, String> {
        let k = |rest: &str| -> Option<u32> { rest.parse().ok().filter(|k| *k > 0) };
        let parsed = match text {
            "mean" => Some(Repeats::Mean),
            "majority" => Some(Repeats::Majority),
            "first" => Some(Repeats::First),
            "all" => Some(Repeats::All),
            "median" => Some(Repeats::Median),
            "mode" => Some(Repeats::Mode),
            "max" => Some(Repeats::Max),
            _ => match (
                text.strip_prefix("pass_at_"),
                text.strip_prefix("at_least_"),
            ) {
                (Some(rest), _) => k(rest).map(Repeats::PassAt),
                (_, Some(rest)) => k(rest).map(Repeats::AtLeast),
                _ => None,
            },
        };
        parsed.ok_or_else(|| {
            format!(
                "`{text}` is not a way to reduce repeats: give mean, majority, first, all, median, mode, max, pass_at_K or at_least_K"
            )
        })
    }

    /// The name as `--repeats` takes it.
    pub fn name(self) -> String {
        match self {
            Repeats::Mean => "mean".into(),
            Repeats::Majority => "majority".into(),
            Repeats::First => "first".into(),
            Repeats::All => "all".into(),
            Repeats::Median => "median".into(),
            Repeats::Mode => "mode".into(),
            Repeats::Max => "max".into(),
            Repeats::PassAt(k) => format!("pass_at_{k}"),
            Repeats::AtLeast(k) => format!("at_least_{k}"),
        }
    }

    /// One score from the values of an item's repeats, in repeat order (not empty);
    /// `None` when the rule has no answer (an even split under `majority`).
    pub fn reduce(self, values: &[f64]) -> Option<f64> {
        let n = values.len();
        let correct = values.iter().filter(|v| **v == 1.0).count();
        match self {
            Repeats::Mean => Some(values.iter().sum::<f64>() / n as f64),
            Repeats::Majority => majority(values),
            Repeats::First | Repeats::All => values.first().copied(),
            Repeats::Median => {
                let mut sorted = values.to_vec();
                sorted.sort_by(f64::total_cmp);
                Some(match n % 2 {
                    1 => sorted[n / 2],
                    _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
                })
            }
            Repeats::Mode => {
                // The most frequent value; on a tie, the one whose first repeat comes first.
                let runs = value_runs(values);
                let most = runs.values().map(|&(count, _)| count).max()?;
                runs.values()
                    .filter(|&&(count, _)| count == most)
                    .map(|&(_, first)| first)
                    .min()
                    .map(|first| values[first])
            }
            Repeats::Max => values.iter().copied().reduce(f64::max),
            // Inspect's pass_at: 1 - prod(1 - k / arange(n - c + 1, n + 1)).
            Repeats::PassAt(k) => {
                let k = k as usize;
                if n < k {
                    // The estimator assumes at least k repeats: with fewer, every item
                    // would score 1, wrong ones included.
                    return None;
                }
                if n - correct < k {
                    return Some(1.0);
                }
                let product: f64 = (n - correct + 1..=n)
                    .map(|i| 1.0 - k as f64 / i as f64)
                    .product();
                Some(1.0 - product)
            }
            Repeats::AtLeast(k) => Some(if correct >= k as usize { 1.0 } else { 0.0 }),
        }
    }
}

/// The value more than half of `values` hold.
fn majority(values: &[f64]) -> Option<f64> {
    let (count, first) = value_runs(values).into_values().max()?;
    (count * 2 > values.len()).then(|| values[first])
}

/// Each distinct value (by its bits, -0 as 0) with how often it occurs and the index of
/// its first occurrence: one pass, O(n log n), so an item with 10^6 repeats costs no
/// more than sorting them.
fn value_runs(values: &[f64]) -> std::collections::BTreeMap<u64, (usize, usize)> {
    let mut runs = std::collections::BTreeMap::new();
    for (index, value) in values.iter().enumerate() {
        let entry = runs.entry((value + 0.0).to_bits()).or_insert((0, index));
        entry.0 += 1;
    }
    runs
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

/// A linear map from a log's score range onto [0, 1]: `--scale MIN:MAX`. MIN becomes
/// 0 and MAX 1, so `--scale 10:0` maps a lower-is-better metric on [0, 10].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The score that becomes 0.
    pub min: f64,
    /// The score that becomes 1.
    pub max: f64,
}

impl Scale {
    /// Parses `MIN:MAX`, finite with MIN ≠ MAX and a finite width (`1e308:-1e308`
    /// would divide every score by infinity and write zeros).
    pub fn parse(text: &str) -> Result<Scale, ImportError> {
        let bad = || {
            ImportError::Refused(format!(
                "--scale `{text}`: give MIN:MAX, two different numbers: the score that becomes 0, then the one that becomes 1 (0:100 for percentages, 10:0 for a lower-is-better metric on [0, 10])"
            ))
        };
        let (min, max) = text.split_once(':').ok_or_else(bad)?;
        let min: f64 = min.trim().parse().map_err(|_| bad())?;
        let max: f64 = max.trim().parse().map_err(|_| bad())?;
        if !(min.is_finite() && max.is_finite() && min != max && (max - min).is_finite()) {
            return Err(bad());
        }
        Ok(Scale { min, max })
    }

    fn apply(self, value: f64) -> f64 {
        (value - self.min) / (self.max - self.min)
    }

    /// Whether the map reverses the order (MIN > MAX).
    fn reverses(self) -> bool {
        self.min > self.max
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
    let found = choices
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match given {
        None if choices.is_empty() => format!(
            "{option} has nothing to choose from: the log holds no value for it{}; is this the right file for this format?",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        ),
        // The reason is only said where it is true: several values to choose from.
        None => format!(
            "{option} is needed{}; the log has: {found}; give one with {option}",
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({why})")
            }
        ),
        Some(given) if choices.is_empty() => {
            format!("{option} `{given}` is not in the log, which holds no value for it")
        }
        Some(given) => format!("{option} `{given}` is not in the log; the log has: {found}"),
    }
}

/// A selector given per task: `NAME` for every task, `TASK=NAME` for one (the last
/// `=` splits, so a HELM subject `mmlu:subject=philosophy=exact_match` works). Returns
/// the name for each of `tasks` that has one; a `TASK=` naming no task of the run is an
/// error listing the tasks.
pub fn per_task(
    option: &str,
    given: &[String],
    tasks: &BTreeSet<String>,
) -> Result<BTreeMap<String, String>, ImportError> {
    let mut every: Option<&str> = None;
    let mut chosen: BTreeMap<String, String> = BTreeMap::new();
    for value in given {
        match value.rsplit_once('=') {
            Some((task, name)) => {
                if !tasks.contains(task) {
                    return Err(ImportError::Choice {
                        option: option.to_string(),
                        given: Some(value.clone()),
                        choices: tasks.iter().map(|t| format!("{t}=NAME")).collect(),
                        why: String::new(),
                    });
                }
                if chosen.insert(task.to_string(), name.to_string()).is_some() {
                    return Err(ImportError::Refused(format!(
                        "{option} names task `{task}` twice; give one {option} {task}=NAME"
                    )));
                }
            }
            None if every.is_some() => {
                return Err(ImportError::Refused(format!(
                    "{option} is given twice without a task; give {option} NAME once, or {option} TASK=NAME per task"
                )));
            }
            None => every = Some(value),
        }
    }
    if let Some(name) = every {
        for task in tasks {
            chosen
                .entry(task.clone())
                .or_insert_with(|| name.to_string());
        }
    }
    Ok(chosen)
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
    /// The document or input the sample ran on, as 64 bits (`record::doc_key`):
    /// lm-eval's `doc_hash`, a digest of Inspect's sample `input`, of promptfoo's
    /// `vars`, of HELM's instance; so that runs on different inputs do not pair.
    pub doc_key: Option<u64>,
    /// Which repeat of its item this is (Inspect's epoch, promptfoo's repeat, HELM's
    /// train trial); samples of one task with different repeats are reduced by
    /// [`Repeats`], not refused as duplicates.
    pub repeat: Option<u64>,
    /// Under `--repeats all`, the item a repeat belongs to (the file's `group`).
    pub group: Option<Arc<str>>,
    /// A 64-bit digest of the output text, where the log carries it (Inspect's
    /// `output.completion`, promptfoo's `response.output`, a DSPy record): repeats of
    /// one item with one digest are byte-identical copies.
    pub output_key: Option<u64>,
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
    /// The log's own reducer of repeats, by `kind` (Inspect's `epochs_reducer`).
    pub reducers: BTreeMap<String, LogReducer>,
    /// The repeats the log declares for each item, by `kind` (Inspect's `epochs`).
    pub declared_repeats: BTreeMap<String, u64>,
    /// The metric's direction when the log records it (`Some(true)`: lower is better).
    pub lower_is_better: Option<bool>,
    /// Where the direction was read, for the record (e.g. `higher_is_better` in a file).
    pub direction_source: Option<String>,
    /// Metrics whose direction the log does not record and that the format cannot
    /// take as higher-is-better unsaid (lm-eval samples read without the
    /// `higher_is_better` of their results file), in words: the import then needs
    /// `--higher-is-better` or `--lower-is-better`.
    pub direction_unknown: Vec<String>,
    /// The log chose these scores' arm on these very scores (GEPA's best candidate).
    pub selected_on_these_scores: bool,
    /// What identifies the data each input ran on (Inspect's `eval.dataset`), by input.
    pub datasets: BTreeMap<String, String>,
}

impl Found {
    /// Takes in what the reader found in another input of the same run.
    pub fn absorb(&mut self, other: Found) {
        self.samples.extend(other.samples);
        self.errored.extend(other.errored);
        self.duplicated.extend(other.duplicated);
        self.universe.extend(other.universe);
        for (option, value) in other.selectors {
            match self.selectors.get_mut(&option) {
                Some(known) if known.split(';').any(|v| v == value) => {}
                Some(known) => {
                    known.push(';');
                    known.push_str(&value);
                }
                None => {
                    self.selectors.insert(option, value);
                }
            }
        }
        for note in other.notes {
            if !self.notes.contains(&note) {
                self.notes.push(note);
            }
        }
        self.reducers.extend(other.reducers);
        for (kind, k) in other.declared_repeats {
            let known = self.declared_repeats.entry(kind).or_insert(k);
            *known = (*known).max(k);
        }
        self.lower_is_better = match (self.lower_is_better, other.lower_is_better) {
            (Some(a), _) => Some(a),
            (None, b) => b,
        };
        self.direction_source = self.direction_source.take().or(other.direction_source);
        self.direction_unknown.extend(other.direction_unknown);
        self.selected_on_these_scores |= other.selected_on_these_scores;
        self.datasets.extend(other.datasets);
    }
}

/// Where a reader hands its samples, and the ids of the tasks it read without one
/// (the universe): a [`Found`] keeps them in memory, [`sorted::Entries`] in an
/// external sort.
pub(crate) trait Gather {
    /// Takes one sample.
    fn sample(&mut self, sample: Sample) -> Result<(), ImportError>;
    /// Takes the id of a task the log holds.
    fn universe(&mut self, id: String) -> Result<(), ImportError>;
}

impl Gather for Found {
    fn sample(&mut self, sample: Sample) -> Result<(), ImportError> {
        self.samples.push(sample);
        Ok(())
    }

    fn universe(&mut self, id: String) -> Result<(), ImportError> {
        self.universe.insert(id);
        Ok(())
    }
}

/// How [`assemble`] treats what a reader found.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Rules {
    /// Missing, duplicated and errored samples.
    pub on_missing: OnMissing,
    /// `--scale MIN:MAX`.
    pub scale: Option<Scale>,
    /// `--repeats`, else the log's reducer.
    pub repeats: Option<Repeats>,
    /// `--lower-is-better`.
    pub lower_is_better: bool,
    /// `--higher-is-better`.
    pub higher_is_better: bool,
}

/// The direction of the logged metric and where it was read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Direction {
    /// `higher` or `lower`: which logged values are better.
    pub logged: &'static str,
    /// Where that was read: the log's field, `--lower-is-better`, `--scale` (MIN >
    /// MAX) or `default` (higher, nothing in the log says otherwise).
    pub source: String,
    /// Always `higher is better, on [0, 1]`: what the written scores are.
    pub written: &'static str,
}

impl Default for Direction {
    /// Higher is better, as nothing in the log says otherwise.
    fn default() -> Direction {
        Direction {
            logged: "higher",
            source: "default (nothing in the log says otherwise)".to_string(),
            written: "higher is better, on [0, 1]",
        }
    }
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
    /// How repeats were reduced, when items had several.
    pub repeats: Option<String>,
    /// The logged metric's direction.
    pub direction: Direction,
    /// The log chose this arm on these scores.
    pub selected_on_these_scores: bool,
    /// What identifies the data each input ran on.
    pub datasets: BTreeMap<String, String>,
    /// Items whose every repeat gave byte-identical output text.
    pub identical_repeats: Option<Tally>,
}

/// Applies the shared rules to what a reader found: repeats reduced (by `--repeats`,
/// else the log's own reducer), missing, duplicated and errored tasks refused or left
/// out, scores mapped onto [0, 1] with higher better. Time: O(n log n). The rows are
/// gathered here; an import too large to hold goes through `plan::plan` and
/// writes its rows as they are read.
pub fn assemble(mut found: Found, rules: Rules) -> Result<Imported, ImportError> {
    let mut entries = sorted::Entries::new(crate::base::sorter::run_store());
    entries.absorb(&mut found)?;
    let selectors = std::mem::take(&mut found.selectors);
    let datasets = std::mem::take(&mut found.datasets);
    let selected_on_these_scores = found.selected_on_these_scores;
    let plan = plan::plan(found, entries, rules)?;
    let mut rows = Vec::with_capacity(plan.rows);
    plan.rows(&mut |row| {
        rows.push(Sample {
            task_id: row.task_id.clone(),
            score: row.score,
            kind: plan.kind(row).cloned(),
            doc_key: row.doc_key,
            repeat: row.repeat,
            group: row.group.as_deref().map(Arc::from),
            output_key: row.output_key,
        });
        Ok(())
    })?;
    Ok(Imported {
        rows,
        outcomes: plan.outcomes,
        dropped: plan.dropped,
        selectors,
        notes: plan.notes,
        repeats: plan.repeats,
        direction: plan.direction,
        selected_on_these_scores,
        datasets,
        identical_repeats: plan.identical_repeats,
    })
}

/// Refuses the tasks left out (missing, duplicated, errored) and the items missing a
/// repeat, unless `--on-missing intersect`; then says what was left out in `notes`.
fn refuse_or_note(
    dropped: &Dropped,
    check: &repeats::RepeatCheck,
    on_missing: OnMissing,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let problems: Vec<String> = [
        dropped.missing.describe("missing"),
        dropped.duplicated.describe("duplicated"),
        dropped.errored.describe("errored"),
    ]
    .into_iter()
    .flatten()
    .collect();
    // Missing repeats are said apart from the tasks; under intersect their items are
    // among the missing tasks already.
    let mut refusal: Vec<String> = Vec::new();
    if !problems.is_empty() {
        refusal.push(format!("tasks {}", problems.join("; ")));
    }
    if let Some(incomplete) = check.describe() {
        match on_missing {
            OnMissing::Fail => refusal.push(incomplete),
            OnMissing::Intersect => notes.push(format!(
                "{incomplete}: those items are left out whole and counted as missing"
            )),
        }
    }
    if !refusal.is_empty() {
        match on_missing {
            OnMissing::Fail => {
                return Err(ImportError::Refused(format!(
                    "{}; fix the log, or leave them out with --on-missing intersect (the counts go into the companion record)",
                    refusal.join("; ")
                )));
            }
            OnMissing::Intersect => notes.push(format!("left out: {}", problems.join("; "))),
        }
    }
    Ok(())
}

/// The note on items whose repeats are byte-identical copies, when there are some.
fn identical_note(check: &repeats::RepeatCheck) -> Option<String> {
    let copies = check.identical_tally()?;
    Some(format!(
        "the repeats of {} of the {} items whose outputs the log carries are byte-identical copies of one output (first: {}), as a cache replays them: such repeats add no evidence, so the effective number of those items is {}, not {} rows",
        copies.count,
        check.with_outputs,
        copies
            .first
            .iter()
            .map(|i| format!("`{i}`"))
            .collect::<Vec<_>>()
            .join(", "),
        copies.count,
        check.identical_rows
    ))
}

/// The refusal of `count` scores outside [0, 1] (after `scale`), the first of task
/// `task` logged as `value`.
fn outside_error(count: usize, task: &str, value: f64, scale: Option<Scale>) -> ImportError {
    let how = match scale {
        Some(s) => format!(
            "outside the --scale {}:{} given; give the range the metric takes",
            s.min, s.max
        ),
        None => "outside [0, 1]; give --scale MIN:MAX to map the metric's range onto [0, 1] (MIN > MAX for a lower-is-better metric)"
            .to_string(),
    };
    ImportError::Refused(format!(
        "{} {how} (first: task `{task}` scores {value})",
        if count == 1 {
            "1 score is".to_string()
        } else {
            format!("{count} scores are")
        }
    ))
}

/// The refusal of an import left without a row, of a log of `universe` tasks.
fn nothing_left(universe: usize, left_out: bool) -> ImportError {
    ImportError::Refused(format!(
        "no task is left to write: {} in the log{}",
        crate::base::numbers::count(universe as u64, "task"),
        if left_out {
            ", every one of them left out as duplicated, errored or missing a repeat"
        } else {
            ", none with a score under the selectors"
        }
    ))
}

/// The logged metric's direction: the log's word, `--lower-is-better`,
/// `--higher-is-better` or a reversed `--scale`; two that disagree, or two reversals,
/// are an error, and so is a metric whose direction the log leaves `unknown` (lm-eval
/// samples without their results file) when no flag gives it.
fn direction(
    logged: Option<bool>,
    source: Option<String>,
    unknown: &[String],
    rules: &Rules,
) -> Result<Direction, ImportError> {
    let reversed = rules.scale.is_some_and(Scale::reverses);
    let source = source.unwrap_or_else(|| "the log".to_string());
    if rules.higher_is_better && (rules.lower_is_better || reversed) {
        return Err(ImportError::Refused(
            "--higher-is-better contradicts --lower-is-better or a --scale with MIN > MAX; give one direction".to_string(),
        ));
    }
    if rules.higher_is_better && logged == Some(true) {
        return Err(ImportError::Refused(format!(
            "the log says lower is better for this metric ({source}), so --higher-is-better would leave it upside down; leave it out"
        )));
    }
    if let Some(first) = unknown.first()
        && !(rules.higher_is_better || rules.lower_is_better || reversed)
    {
        let more = match unknown.len() {
            1 => String::new(),
            n => format!(" ({n} metrics in all)"),
        };
        return Err(ImportError::Refused(format!(
            "which way the metric runs is not in the log: {first}{more}, and a metric such as a WER or a perplexity is better lower; give --higher-is-better or --lower-is-better (or import the samples beside their results_<date>.json)"
        )));
    }
    let lower = match (logged, rules.lower_is_better, reversed) {
        (Some(false), true, _) | (Some(false), _, true) => {
            return Err(ImportError::Refused(format!(
                "the log says higher is better for this metric ({source}), so --lower-is-better or a --scale with MIN > MAX would turn it upside down; leave them out"
            )));
        }
        (Some(true), true, true) | (Some(true), false, true) | (None, true, true) => {
            return Err(ImportError::Refused(
                "the metric is lower-is-better and --scale MIN:MAX with MIN > MAX reverses it again; give --scale with MIN < MAX (the lower-is-better map is applied once)".to_string(),
            ));
        }
        (Some(lower), _, _) => Some((lower, source)),
        (None, true, false) => Some((true, "--lower-is-better".to_string())),
        (None, false, true) => Some((true, "--scale with MIN > MAX".to_string())),
        (None, false, false) if rules.higher_is_better => {
            Some((false, "--higher-is-better".to_string()))
        }
        (None, false, false) => None,
    };
    Ok(match lower {
        Some((lower, source)) => Direction {
            logged: if lower { "lower" } else { "higher" },
            source,
            written: "higher is better, on [0, 1]",
        },
        None => Direction::default(),
    })
}

/// The scores CSV: `task_id`, `kind` when the log has it, `correct` when every score is
/// 0 or 1, and `score`; free text goes through the formula guard, numbers through
/// [`crate::base::numbers::number`].
pub fn render_csv(imported: &Imported) -> String {
    let columns = written::Columns {
        group: imported.rows.iter().any(|r| r.group.is_some()),
        kind: imported.rows.iter().any(|r| r.kind.is_some()),
        outcomes: imported.outcomes,
    };
    let mut csv = CsvWriter::with_capacity(imported.rows.len() * 24 + 32);
    csv.header(&written::header(
        columns.group,
        columns.kind,
        columns.outcomes,
    ));
    for row in &imported.rows {
        written::row(
            &mut csv,
            columns,
            &row.task_id,
            row.group.as_deref(),
            row.kind.as_deref(),
            row.score,
        );
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
