//! Pairing two scores files by `task_id`. Without a task list both files must hold the
//! same tasks; with one (`--tasks`, e.g. the holdout) exactly its tasks are used and
//! each must be in both files. Pairs come out sorted by `task_id`, so the row order of
//! the inputs never reaches a result.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

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
    pub stratum: Option<Arc<str>>,
    /// Its group, when either file has a `group` column.
    pub group: Option<Arc<str>>,
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
/// Copies the files; [`pair_files`] takes them.
pub fn pair(
    baseline: &ScoreFile,
    candidate: &ScoreFile,
    tasks: Option<&TaskList>,
    strata: Option<&StrataRequest>,
) -> Result<Pairs, PairingError> {
    pair_files(baseline.clone(), candidate.clone(), tasks, strata)
}

/// [`pair`], moving each row's task and feedback into its pair instead of copying it.
/// Time: O(n) merges of the rows, which come sorted by task.
pub fn pair_files(
    baseline: ScoreFile,
    candidate: ScoreFile,
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
    let (wanted, basis): (Option<Vec<&str>>, Basis) = match tasks {
        None => {
            let mut lacking_in_candidate = Vec::new();
            let mut lacking_in_baseline = Vec::new();
            merge(&baseline.rows, &candidate.rows, |b, c| match (b, c) {
                (Some(b), None) => lacking_in_candidate.push((b.task_id.clone(), b.line)),
                (None, Some(c)) => lacking_in_baseline.push((c.task_id.clone(), c.line)),
                _ => {}
            });
            let gaps: Vec<Gap> = [
                gap(&candidate.source, &baseline.source, lacking_in_candidate),
                gap(&baseline.source, &candidate.source, lacking_in_baseline),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !gaps.is_empty() {
                return Err(PairingError::DifferentTasks(gaps));
            }
            (None, Basis::SameTasks)
        }
        Some(list) => {
            let mut sorted: Vec<(&str, u64)> =
                list.tasks.iter().map(|(t, l)| (t.as_str(), *l)).collect();
            sorted.sort();
            for file in [&baseline, &candidate] {
                let lacking: Vec<(String, u64)> = sorted
                    .iter()
                    .filter(|(id, _)| find(&file.rows, id).is_none())
                    .map(|(id, line)| (id.to_string(), *line))
                    .collect();
                if let Some(gap) = gap(&file.source, &list.source, lacking) {
                    return Err(PairingError::NotScored(gap));
                }
            }
            // Every listed task is in both files, each once, so the rest are left out.
            let basis = Basis::TaskList {
                source: list.source.clone(),
                ignored_baseline: baseline.rows.len() - sorted.len(),
                ignored_candidate: candidate.rows.len() - sorted.len(),
            };
            (Some(sorted.into_iter().map(|(id, _)| id).collect()), basis)
        }
    };
    let mut pairs = Vec::with_capacity(wanted.as_ref().map_or(baseline.rows.len(), Vec::len));
    let mut wanted = wanted.as_deref().map(|w| w.iter());
    let mut base = baseline.rows.into_iter();
    let mut cand = candidate.rows.into_iter();
    while let (Some(b), Some(c)) = (base.next(), cand.next()) {
        // Both files hold the same tasks, or every wanted task: step both in step.
        let (b, c) = match &mut wanted {
            None => (b, c),
            Some(list) => {
                let Some(next) = list.next() else { break };
                (advance(b, &mut base, next), advance(c, &mut cand, next))
            }
        };
        debug_assert_eq!(b.task_id, c.task_id);
        let stratum = match (&b.stratum, &c.stratum) {
            (Some(x), Some(y)) if x != y => {
                return Err(PairingError::StratumDisagrees(Box::new(Disagreement {
                    task: b.task_id.clone(),
                    column: strata_column.clone().unwrap_or_default(),
                    baseline: (baseline.source.clone(), b.line, x.to_string()),
                    candidate: (candidate.source.clone(), c.line, y.to_string()),
                })));
            }
            (Some(x), _) | (None, Some(x)) => Some(Arc::clone(x)),
            (None, None) => None,
        };
        let group = b.group.clone().or_else(|| c.group.clone());
        pairs.push(Pair {
            stratum: strata_column.as_ref().and(stratum),
            group,
            baseline: side(b.line, b.score, b.correct, b.feedback),
            candidate: side(c.line, c.score, c.correct, c.feedback),
            task_id: b.task_id,
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
        baseline: baseline.source,
        candidate: candidate.source,
        basis,
    })
}

/// Walks two task-sorted row lists together, calling `visit` with the row of each task
/// in either list (both when both have it), in task order.
fn merge<'a>(
    left: &'a [ScoreRow],
    right: &'a [ScoreRow],
    mut visit: impl FnMut(Option<&'a ScoreRow>, Option<&'a ScoreRow>),
) {
    let (mut i, mut j) = (0, 0);
    while i < left.len() || j < right.len() {
        let order = match (left.get(i), right.get(j)) {
            (Some(x), Some(y)) => x.task_id.cmp(&y.task_id),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match order {
            Ordering::Less => {
                visit(Some(&left[i]), None);
                i += 1;
            }
            Ordering::Greater => {
                visit(None, Some(&right[j]));
                j += 1;
            }
            Ordering::Equal => {
                visit(Some(&left[i]), Some(&right[j]));
                i += 1;
                j += 1;
            }
        }
    }
}

/// The row of `task` in task-sorted `rows`.
fn find<'a>(rows: &'a [ScoreRow], task: &str) -> Option<&'a ScoreRow> {
    let index = rows.partition_point(|r| r.task_id.as_str() < task);
    rows.get(index).filter(|r| r.task_id == task)
}

/// From `row` on, the row of `task`, which the caller knows is there.
fn advance(mut row: ScoreRow, rest: &mut impl Iterator<Item = ScoreRow>, task: &str) -> ScoreRow {
    while row.task_id != task {
        row = rest.next().expect("every wanted task is in both files");
    }
    row
}

fn side(line: u64, score: f64, correct: Option<bool>, feedback: Option<String>) -> Side {
    Side {
        line,
        score,
        correct,
        feedback,
    }
}
