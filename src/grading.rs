//! `score`'s core: grade every task of a tasks file with a verifier, pairing outputs by
//! `task_id`. A task with no output is graded as an empty answer and counted; an output
//! for a task the file does not hold, or a second output for one task, is an error.

use std::collections::BTreeMap;

use crate::csvout::{Cell, CsvWriter, number};
use crate::error::InputError;
use crate::outputs::Output;
use crate::table::Table;
use crate::verify::{Grade, Verifier};

/// The columns `score` writes, before any extra columns carried from the tasks file.
pub const SCORE_COLUMNS: [&str; 8] = [
    "task_id",
    "group",
    "kind",
    "correct",
    "correctness",
    "composite",
    "score",
    "feedback",
];

/// One graded task.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    /// The task.
    pub task_id: String,
    /// Its group.
    pub group: String,
    /// Its kind.
    pub kind: String,
    /// The grade.
    pub grade: Grade,
    /// Extra columns of the tasks file, in its order.
    pub extra: Vec<String>,
}

/// Every task graded, with the extra column names and how many tasks had no output.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSheet {
    /// Graded tasks in the tasks file's order.
    pub rows: Vec<Scored>,
    /// Names of the tasks file's columns beyond `task_id,group,kind,prompt`.
    pub extra_columns: Vec<String>,
    /// Tasks graded as empty answers because no output was given.
    pub missing_outputs: Vec<String>,
}

/// Grades the tasks of `tasks` (a tasks file) with `outputs` (from `outputs_source`).
pub fn grade_tasks(
    verifier: &dyn Verifier,
    tasks: &Table,
    outputs_source: &str,
    outputs: &[Output],
) -> Result<ScoreSheet, InputError> {
    let id_column = tasks.require("task_id")?;
    tasks.require_rows()?;
    let known: BTreeMap<&str, &crate::task::Task> = verifier
        .tasks()
        .iter()
        .map(|task| (task.task_id.as_str(), task))
        .collect();
    let standard = ["task_id", "group", "kind", "prompt"];
    let extra: Vec<usize> = (0..tasks.headers.len())
        .filter(|&i| !standard.contains(&tasks.headers[i].as_str()))
        .collect();
    let mut by_task: BTreeMap<&str, &Output> = BTreeMap::new();
    for output in outputs {
        if let Some(first) = by_task.insert(&output.task_id, output) {
            return Err(InputError::invalid(
                outputs_source,
                output.line,
                format!(
                    "a second output for task `{}` (the first is on row {}); keep one output per task",
                    output.task_id, first.line
                ),
            ));
        }
    }
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    let mut rows = Vec::with_capacity(tasks.rows.len());
    let mut missing = Vec::new();
    for row in &tasks.rows {
        let task_id = row.fields[id_column].trim();
        let task = known.get(task_id).ok_or_else(|| {
            InputError::invalid(
                &tasks.source,
                row.line,
                format!("task `{task_id}` is not in the ground truth; use the tasks file `split` wrote from the same truth file"),
            )
        })?;
        if let Some(first) = seen.insert(task_id, row.line) {
            return Err(InputError::invalid(
                &tasks.source,
                row.line,
                format!(
                    "task `{task_id}` is listed twice (first on row {first}); remove the repeat"
                ),
            ));
        }
        let answer = match by_task.get(task_id) {
            Some(output) => output.output.as_str(),
            None => {
                missing.push(task_id.to_string());
                ""
            }
        };
        rows.push(Scored {
            task_id: task.task_id.clone(),
            group: task.group.clone(),
            kind: task.kind.clone(),
            grade: verifier.grade(task, answer),
            extra: extra.iter().map(|&i| row.fields[i].clone()).collect(),
        });
    }
    if let Some(stray) = outputs
        .iter()
        .find(|o| !seen.contains_key(o.task_id.as_str()))
    {
        return Err(InputError::invalid(
            outputs_source,
            stray.line,
            format!(
                "output for task `{}`, which is not in `{}`; remove it or score against the tasks file it was made for",
                stray.task_id, tasks.source
            ),
        ));
    }
    Ok(ScoreSheet {
        rows,
        extra_columns: extra.iter().map(|&i| tasks.headers[i].clone()).collect(),
        missing_outputs: missing,
    })
}

/// The scores CSV of a sheet: [`SCORE_COLUMNS`], then the extra columns.
pub fn scores_csv(sheet: &ScoreSheet) -> String {
    let mut csv = CsvWriter::new();
    let mut header: Vec<&str> = SCORE_COLUMNS.to_vec();
    header.extend(sheet.extra_columns.iter().map(String::as_str));
    csv.header(&header);
    for row in &sheet.rows {
        let grade = &row.grade;
        let numbers = [
            if grade.correct {
                "1".to_string()
            } else {
                "0".to_string()
            },
            number(grade.correctness),
            number(grade.composite),
            number(grade.score),
        ];
        let mut cells = vec![
            Cell::Text(&row.task_id),
            Cell::Text(&row.group),
            Cell::Text(&row.kind),
        ];
        cells.extend(numbers.iter().map(|n| Cell::Trusted(n)));
        cells.push(Cell::Text(&grade.feedback));
        cells.extend(row.extra.iter().map(|e| Cell::Text(e)));
        csv.row(&cells);
    }
    csv.finish()
}
