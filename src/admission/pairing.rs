//! Pairing two scores files by `task_id`. Without a task list both files must hold the
//! same tasks; with one (`--tasks`, e.g. the holdout) exactly its tasks are used and
//! each must be in both files. Pairs come out sorted by `task_id`, so the row order of
//! the inputs never reaches a result.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use thiserror::Error;

use crate::error::InputError;
use crate::scores::{ScoreFile, ScoreRow};
use crate::table::Table;

/// How many missing tasks an error names before it stops.
const SHOWN_TASKS: usize = 5;

/// One side of a pair.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// The row of its scores file.
    pub line: u64,
    /// The admission score.
    pub score: f64,
    /// The ground truth's verdict, when the file carries `correct`.
    pub correct: Option<bool>,
    /// The grader's feedback, untrusted text.
    pub feedback: Option<String>,
}

/// One task scored in both files.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// The task.
    pub task_id: String,
    /// Its stratum, when the pairs are stratified.
    pub stratum: Option<String>,
    /// Its group, when either file has a `group` column.
    pub group: Option<String>,
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

/// A complete pairing: at least one pair, sorted by `task_id`, each task once.
#[derive(Debug, Clone, PartialEq)]
pub struct Pairs {
    /// The pairs, sorted by `task_id`.
    pub pairs: Vec<Pair>,
    /// Whether every pair has `correct` on both sides.
    pub both_correct: bool,
    /// Whether the baseline file has a `correct` column.
    pub baseline_has_correct: bool,
    /// The strata column, when the pairs are stratified.
    pub strata_column: Option<String>,
    /// The baseline file as given.
    pub baseline: String,
    /// The candidate file as given.
    pub candidate: String,
    /// What the pairs were matched on.
    pub basis: Basis,
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

fn gap(file: &str, other: &str, lacking: Vec<(String, u64)>) -> Option<Gap> {
    (!lacking.is_empty()).then(|| Gap {
        file: file.to_string(),
        other: other.to_string(),
        count: lacking.len(),
        first: lacking.into_iter().take(SHOWN_TASKS).collect(),
    })
}

/// Pairs `baseline` and `candidate` by `task_id`, on `tasks` when given.
///
/// Both files were read with the same strata column. With `strata` required and in
/// neither file, or a task whose two rows disagree on its stratum, pairing fails.
pub fn pair(
    baseline: &ScoreFile,
    candidate: &ScoreFile,
    tasks: Option<&TaskList>,
    strata: Option<&StrataRequest>,
) -> Result<Pairs, PairingError> {
    let strata_column = match strata {
        Some(request) if baseline.has_stratum || candidate.has_stratum => {
            Some(request.column.clone())
        }
        Some(request) if request.required => {
            return Err(PairingError::NoStrataColumn {
                column: request.column.clone(),
                baseline: baseline.source.clone(),
                candidate: candidate.source.clone(),
            });
        }
        _ => None,
    };
    let base = index(baseline);
    let cand = index(candidate);
    let (ids, basis): (Vec<&str>, Basis) = match tasks {
        None => {
            let lacking = |have: &BTreeMap<&str, &ScoreRow>, lack: &BTreeMap<&str, &ScoreRow>| {
                have.iter()
                    .filter(|(id, _)| !lack.contains_key(*id))
                    .map(|(id, row)| (id.to_string(), row.line))
                    .collect::<Vec<_>>()
            };
            let gaps: Vec<Gap> = [
                gap(&candidate.source, &baseline.source, lacking(&base, &cand)),
                gap(&baseline.source, &candidate.source, lacking(&cand, &base)),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !gaps.is_empty() {
                return Err(PairingError::DifferentTasks(gaps));
            }
            (base.keys().copied().collect(), Basis::SameTasks)
        }
        Some(list) => {
            let mut sorted: Vec<(&str, u64)> =
                list.tasks.iter().map(|(t, l)| (t.as_str(), *l)).collect();
            sorted.sort();
            for (file, rows) in [(baseline, &base), (candidate, &cand)] {
                let lacking: Vec<(String, u64)> = sorted
                    .iter()
                    .filter(|(id, _)| !rows.contains_key(id))
                    .map(|(id, line)| (id.to_string(), *line))
                    .collect();
                if let Some(gap) = gap(&file.source, &list.source, lacking) {
                    return Err(PairingError::NotScored(gap));
                }
            }
            let wanted: BTreeSet<&str> = sorted.iter().map(|(id, _)| *id).collect();
            let ignored = |rows: &BTreeMap<&str, &ScoreRow>| {
                rows.keys().filter(|id| !wanted.contains(*id)).count()
            };
            let basis = Basis::TaskList {
                source: list.source.clone(),
                ignored_baseline: ignored(&base),
                ignored_candidate: ignored(&cand),
            };
            (wanted.into_iter().collect(), basis)
        }
    };
    let mut pairs = Vec::with_capacity(ids.len());
    for id in ids {
        let (Some(b), Some(c)) = (base.get(id), cand.get(id)) else {
            continue;
        };
        let stratum = match (&b.stratum, &c.stratum) {
            (Some(x), Some(y)) if x != y => {
                return Err(PairingError::StratumDisagrees(Box::new(Disagreement {
                    task: id.to_string(),
                    column: strata_column.clone().unwrap_or_default(),
                    baseline: (baseline.source.clone(), b.line, x.clone()),
                    candidate: (candidate.source.clone(), c.line, y.clone()),
                })));
            }
            (Some(x), _) | (None, Some(x)) => Some(x.clone()),
            (None, None) => None,
        };
        pairs.push(Pair {
            task_id: id.to_string(),
            stratum: strata_column.as_ref().and(stratum),
            group: b.group.clone().or_else(|| c.group.clone()),
            baseline: side(b),
            candidate: side(c),
        });
    }
    let both_correct = pairs
        .iter()
        .all(|p| p.baseline.correct.is_some() && p.candidate.correct.is_some());
    Ok(Pairs {
        pairs,
        both_correct,
        baseline_has_correct: baseline.has_correct,
        strata_column,
        baseline: baseline.source.clone(),
        candidate: candidate.source.clone(),
        basis,
    })
}

fn index(file: &ScoreFile) -> BTreeMap<&str, &ScoreRow> {
    file.rows.iter().map(|r| (r.task_id.as_str(), r)).collect()
}

fn side(row: &ScoreRow) -> Side {
    Side {
        line: row.line,
        score: row.score,
        correct: row.correct,
        feedback: row.feedback.clone(),
    }
}
