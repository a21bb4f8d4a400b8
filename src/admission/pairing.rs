//! Pairs of scores by `task_id`, as [`join`](super::join) makes them from two scores
//! files. Without a task list both files must hold the same tasks; with one
//! (`--tasks`, e.g. the holdout) exactly its tasks are used and each must be in both
//! files. Pairs come out sorted by `task_id`, so the row order of the inputs never
//! reaches a result. Their strings live in one [`Texts`] buffer and are read through
//! [`Pairs`].

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::base::arena::{Text, Texts};
use crate::error::InputError;
use crate::scores::ScoredOutcome;
use crate::table::Table;

/// How many missing tasks an error names before it stops.
const SHOWN_TASKS: usize = 5;

/// One side of a pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    /// The row of its scores file.
    pub line: u64,
    /// The admission score.
    pub score: f64,
    /// The ground truth's verdict, when the file carries `correct`.
    pub correct: Option<bool>,
    /// Whether the task was answered: false only where the file's `answered` column
    /// says 0 (no output, or an error instead of one). Such a side keeps the score
    /// and `correct` its file gives it, the empty answer's (0) for files `score`
    /// writes, so it counts as a wrong answer.
    pub answered: bool,
    /// The grader's feedback (untrusted text), read through [`Pairs::feedback`]; kept
    /// only where a report shows it.
    pub(super) feedback: Option<Text>,
    /// The grader's outcome, when the file has an `outcome` column.
    pub(crate) outcome: Option<ScoredOutcome>,
}

/// One task scored in both files. Its strings are read through [`Pairs`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub(super) task: Text,
    pub(super) stratum: Option<Text>,
    pub(super) group: Option<Text>,
    /// The baseline's score.
    pub baseline: Side,
    /// The candidate's score.
    pub candidate: Side,
}

impl Pair {
    /// candidate − baseline score.
    pub fn difference(&self) -> f64 {
        self.candidate.score - self.baseline.score
    }
}

/// What the pairs were matched on, for the pairing evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Basis {
    /// Both files, which held the same tasks.
    SameTasks,
    /// A task list; rows of the scores files outside it were left out.
    TaskList {
        /// The task list's path as given.
        source: String,
        /// Baseline rows not in the list.
        ignored_baseline: usize,
        /// Candidate rows not in the list.
        ignored_candidate: usize,
    },
}

/// A complete pairing: at least one pair, sorted by `task_id`, each task once. Two
/// pairings are equal when they hold the same pairs and strings, wherever the strings
/// sit in their buffers.
#[derive(Debug, Clone)]
pub struct Pairs {
    /// The pairs, sorted by `task_id`.
    pub pairs: Vec<Pair>,
    /// Their task ids, strata, groups and feedback.
    pub(super) texts: Texts,
    /// Whether every pair has `correct` on both sides.
    pub both_correct: bool,
    /// Whether the baseline file has a `correct` column.
    pub baseline_has_correct: bool,
    /// Whether the candidate file has a `correct` column.
    pub candidate_has_correct: bool,
    /// Whether the baseline file has an `answered` column.
    pub baseline_has_answered: bool,
    /// Whether the candidate file has an `answered` column.
    pub candidate_has_answered: bool,
    /// Whether the baseline file has an `outcome` column.
    pub baseline_has_outcome: bool,
    /// Whether the candidate file has an `outcome` column.
    pub candidate_has_outcome: bool,
    /// The strata column, when the pairs are stratified.
    pub strata_column: Option<String>,
    /// The baseline file as given.
    pub baseline: String,
    /// The candidate file as given.
    pub candidate: String,
    /// What the pairs were matched on.
    pub basis: Basis,
}

impl PartialEq for Pairs {
    fn eq(&self, other: &Pairs) -> bool {
        let same_side = |x: &Side, y: &Side| {
            (x.line, x.score.to_bits(), x.correct, x.answered, x.outcome)
                == (y.line, y.score.to_bits(), y.correct, y.answered, y.outcome)
                && self.feedback(x) == other.feedback(y)
        };
        let same_pair = |x: &Pair, y: &Pair| {
            self.task(x) == other.task(y)
                && self.stratum(x) == other.stratum(y)
                && self.group(x) == other.group(y)
                && same_side(&x.baseline, &y.baseline)
                && same_side(&x.candidate, &y.candidate)
        };
        self.pairs.len() == other.pairs.len()
            && self
                .pairs
                .iter()
                .zip(&other.pairs)
                .all(|(x, y)| same_pair(x, y))
            && (
                self.both_correct,
                self.baseline_has_correct,
                self.candidate_has_correct,
                self.baseline_has_answered,
                self.candidate_has_answered,
                self.baseline_has_outcome,
                self.candidate_has_outcome,
            ) == (
                other.both_correct,
                other.baseline_has_correct,
                other.candidate_has_correct,
                other.baseline_has_answered,
                other.candidate_has_answered,
                other.baseline_has_outcome,
                other.candidate_has_outcome,
            )
            && (
                &self.strata_column,
                &self.baseline,
                &self.candidate,
                &self.basis,
            ) == (
                &other.strata_column,
                &other.baseline,
                &other.candidate,
                &other.basis,
            )
    }
}

impl Pairs {
    /// The task of `pair`, one of these pairs.
    pub fn task<'a>(&'a self, pair: &Pair) -> &'a str {
        self.texts.get(pair.task)
    }

    /// The stratum of `pair`, when the pairs are stratified.
    pub fn stratum<'a>(&'a self, pair: &Pair) -> Option<&'a str> {
        pair.stratum.map(|text| self.texts.get(text))
    }

    /// The group of `pair`, when either file has a `group` column.
    pub fn group<'a>(&'a self, pair: &Pair) -> Option<&'a str> {
        pair.group.map(|text| self.texts.get(text))
    }

    /// The feedback of one side of a pair, when its file has a `feedback` column and
    /// it was kept (the baseline's only for `pairs.csv`, the candidate's for every
    /// pair it lost, and for all with `pairs.csv`).
    pub fn feedback<'a>(&'a self, side: &Side) -> Option<&'a str> {
        side.feedback.map(|text| self.texts.get(text))
    }

    /// Every task, in order.
    pub fn tasks(&self) -> impl Iterator<Item = &str> {
        self.pairs.iter().map(|pair| self.task(pair))
    }

    /// Every pair with its group, in order: [`Pairs::group`] of each, read once for
    /// each run of pairs that share a stored value (and then the same `&str`). The
    /// tasks of one group sit together in task order and share its stored value, which
    /// lies where the file had it: reading it for every pair of a million costs a cache
    /// miss each.
    pub fn with_groups(&self) -> impl Iterator<Item = (&Pair, Option<&str>)> {
        let mut last: Option<(Text, &str)> = None;
        self.pairs.iter().map(move |pair| {
            let value = pair.group.map(|text| match last {
                Some((known, value)) if known == text => value,
                _ => {
                    let value = self.texts.get(text);
                    last = Some((text, value));
                    value
                }
            });
            (pair, value)
        })
    }
}

/// The strata column asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrataRequest {
    /// The column, e.g. `kind`.
    pub column: String,
    /// Whether its absence from both files is an error (given explicitly) or means
    /// "not stratified" (the default `kind`).
    pub required: bool,
}

/// What the strata rule makes of a request against the evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrataChoice<'a> {
    /// Stratify by this column.
    By(&'a str),
    /// Do not stratify.
    Unstratified,
    /// The column was asked for explicitly and the evidence is not stratified by it:
    /// an error, which the caller words for its evidence.
    Missing(&'a StrataRequest),
}

impl StrataRequest {
    /// `--strata` as given: `none` for no strata, a column (required), or, absent, the
    /// default `kind` when a file has it.
    pub fn from_flag(flag: Option<&str>) -> Option<StrataRequest> {
        match flag.map(str::trim) {
            Some("none") => None,
            Some(column) => Some(StrataRequest {
                column: column.to_string(),
                required: true,
            }),
            None => Some(StrataRequest {
                column: "kind".to_string(),
                required: false,
            }),
        }
    }

    /// The one strata rule, for files and summaries alike: with no request (`--strata
    /// none`) nothing is stratified; evidence stratified by the requested column is
    /// stratified by it; otherwise an explicit request is [`StrataChoice::Missing`] and
    /// the default `kind` quietly means "not stratified". `stratified_by` is the column
    /// the evidence carries strata for, if any.
    pub fn choose<'a>(
        request: Option<&'a StrataRequest>,
        stratified_by: Option<&str>,
    ) -> StrataChoice<'a> {
        match request {
            None => StrataChoice::Unstratified,
            Some(request) if stratified_by == Some(request.column.as_str()) => {
                StrataChoice::By(&request.column)
            }
            Some(request) if request.required => StrataChoice::Missing(request),
            Some(_) => StrataChoice::Unstratified,
        }
    }
}

/// The tasks to use, from a tasks file (`--tasks`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskList {
    /// The file as given.
    pub source: String,
    /// Each task with its row, in file order.
    pub tasks: Vec<(String, u64)>,
}

impl TaskList {
    /// Reads the `task_id` column of a tasks table; a task listed twice is an error.
    pub fn from_table(table: &Table) -> Result<TaskList, InputError> {
        let id = table.require("task_id")?;
        table.require_rows()?;
        let mut first: BTreeMap<&str, u64> = BTreeMap::new();
        let mut tasks = Vec::with_capacity(table.rows.len());
        for row in &table.rows {
            let task = row.fields[id].trim();
            if let Some(earlier) = first.insert(task, row.line) {
                return Err(InputError::invalid(
                    &table.source,
                    row.line,
                    format!(
                        "task `{task}` is listed twice (first on row {earlier}); remove the repeat"
                    ),
                ));
            }
            tasks.push((task.to_string(), row.line));
        }
        Ok(TaskList {
            source: table.source.clone(),
            tasks,
        })
    }
}

/// Tasks one file lacks: how many, and the first few with the row where they are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    /// The file that lacks them.
    pub file: String,
    /// The file that has them.
    pub other: String,
    /// How many are lacking.
    pub count: usize,
    /// The first few (by `task_id`) with their row in `other`.
    pub first: Vec<(String, u64)>,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown: Vec<String> = self
            .first
            .iter()
            .map(|(task, line)| format!("`{task}` (row {line})"))
            .collect();
        let more = if self.count > self.first.len() {
            ", ..."
        } else {
            ""
        };
        write!(
            f,
            "`{}` lacks {} task{} that `{}` has (first: {}{more})",
            self.file,
            self.count,
            if self.count == 1 { "" } else { "s" },
            self.other,
            shown.join(", ")
        )
    }
}

/// Why two files cannot be paired (exit status 2).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum PairingError {
    /// The files hold different tasks.
    #[error(
        "the two scores files hold different tasks: {}; score both on the same tasks file, or pin the tasks with --tasks",
        join_gaps(.0)
    )]
    DifferentTasks(Vec<Gap>),
    /// A task of the task list is not in a scores file.
    #[error("{0}; every task of `{tasks}` must be scored in both files: rescore on that tasks file", tasks = .0.other)]
    NotScored(Gap),
    /// The two files give one task different strata.
    #[error("{0}")]
    StratumDisagrees(Box<Disagreement>),
    /// An explicitly requested strata column is in neither file.
    #[error(
        "--strata {column}: neither `{baseline}` nor `{candidate}` has a `{column}` column; name a column they have, or give --strata none"
    )]
    NoStrataColumn {
        /// The column.
        column: String,
        /// The baseline file.
        baseline: String,
        /// The candidate file.
        candidate: String,
    },
}

/// A task whose two rows name different strata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// The task.
    pub task: String,
    /// The strata column.
    pub column: String,
    /// The baseline file, its row and its value.
    pub baseline: (String, u64, String),
    /// The candidate file, its row and its value.
    pub candidate: (String, u64, String),
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (b_file, b_line, b_value) = &self.baseline;
        let (c_file, c_line, c_value) = &self.candidate;
        write!(
            f,
            "task `{}`: `{b_file}` row {b_line} has {} `{b_value}` but `{c_file}` row {c_line} has `{c_value}`; both files must describe the same task",
            self.task, self.column
        )
    }
}

fn join_gaps(gaps: &[Gap]) -> String {
    let parts: Vec<String> = gaps.iter().map(Gap::to_string).collect();
    parts.join(", and ")
}

pub(super) fn gap(file: &str, other: &str, lacking: Vec<(String, u64)>) -> Option<Gap> {
    (!lacking.is_empty()).then(|| Gap {
        file: file.to_string(),
        other: other.to_string(),
        count: lacking.len(),
        first: lacking.into_iter().take(SHOWN_TASKS).collect(),
    })
}
