//! `score`'s core: grade every task of a tasks file with a verifier, pairing outputs by
//! `task_id`. A task with no output is graded as an empty answer and counted; an output
//! for a task the file does not hold, or a second output for one task, is an error.

use std::collections::HashMap;

use crate::csvout::{Cell, CsvWriter, number};
use crate::error::InputError;
use crate::outputs::Output;
use crate::table::Table;
use crate::verify::fasthash::FastMap;
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

/// One graded task, borrowing its names from the verifier's task and the tasks file.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored<'a> {
    /// The task.
    pub task_id: &'a str,
    /// Its group.
    pub group: &'a str,
    /// Its kind.
    pub kind: &'a str,
    /// The grade.
    pub grade: Grade,
    /// Extra columns of the tasks file, in its order.
    pub extra: Vec<&'a str>,
}

/// Every task graded, with the extra column names and how many tasks had no output.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreSheet<'a> {
    /// Graded tasks in the tasks file's order.
    pub rows: Vec<Scored<'a>>,
    /// Names of the tasks file's columns beyond `task_id,group,kind,prompt`.
    pub extra_columns: Vec<String>,
    /// Tasks graded as empty answers because no output was given.
    pub missing_outputs: Vec<String>,
}

/// No output (or no row) for a task yet.
const NONE: u32 = u32::MAX;

/// Grades the tasks of `tasks` (a tasks file) with `outputs` (from `outputs_source`).
///
/// Each task id is looked up once in a map of the verifier's tasks; the output of a
/// task and the row that lists it are then found by the task's position, so a million
/// outputs cost a million lookups in each file rather than a map per file.
pub fn grade_tasks<'a>(
    verifier: &'a dyn Verifier,
    tasks: &'a Table,
    outputs_source: &str,
    outputs: &[Output],
) -> Result<ScoreSheet<'a>, InputError> {
    let id_column = tasks.require("task_id")?;
    tasks.require_rows()?;
    let known_tasks = verifier.tasks();
    let known: FastMap<&str, u32> = known_tasks
        .iter()
        .enumerate()
        .map(|(index, task)| (task.task_id.as_str(), index as u32))
        .collect();
    let standard = ["task_id", "group", "kind", "prompt"];
    let extra: Vec<usize> = (0..tasks.headers.len())
        .filter(|&i| !standard.contains(&tasks.headers[i].as_str()))
        .collect();
    // The known task of each output (NONE for an id the truth does not hold), the
    // output of each known task, and the first line of outputs for unknown ids, which
    // are strays at best but must still be reported as repeats first.
    let mut output_task: Vec<u32> = Vec::with_capacity(outputs.len());
    let mut output_of: Vec<u32> = vec![NONE; known_tasks.len()];
    let mut unknown: HashMap<&str, u64> = HashMap::new();
    for (position, output) in outputs.iter().enumerate() {
        let task = known.get(output.task_id.as_str()).copied().unwrap_or(NONE);
        output_task.push(task);
        let first = if task == NONE {
            unknown.insert(&output.task_id, output.line)
        } else {
            let slot = &mut output_of[task as usize];
            let first = (*slot != NONE).then(|| outputs[*slot as usize].line);
            if first.is_none() {
                *slot = position as u32;
            }
            first
        };
        if let Some(first) = first {
            return Err(InputError::invalid(
                outputs_source,
                output.line,
                format!(
                    "a second output for task `{}` (the first is on row {first}); keep one output per task",
                    output.task_id
                ),
            ));
        }
    }
    let mut listed_on: Vec<Option<u64>> = vec![None; known_tasks.len()];
    let mut rows = Vec::with_capacity(tasks.rows.len());
    let mut missing = Vec::new();
    for row in &tasks.rows {
        let task_id = row.fields[id_column].trim();
        let index = *known.get(task_id).ok_or_else(|| {
            InputError::invalid(
                &tasks.source,
                row.line,
                format!("task `{task_id}` is not in the ground truth; use the tasks file `split` wrote from the same truth file"),
            )
        })? as usize;
        if let Some(first) = listed_on[index].replace(row.line) {
            return Err(InputError::invalid(
                &tasks.source,
                row.line,
                format!(
                    "task `{task_id}` is listed twice (first on row {first}); remove the repeat"
                ),
            ));
        }
        let task = &known_tasks[index];
        let answer = match output_of[index] {
            NONE => {
                missing.push(task_id.to_string());
                ""
            }
            position => outputs[position as usize].output.as_str(),
        };
        rows.push(Scored {
            task_id: &task.task_id,
            group: &task.group,
            kind: &task.kind,
            grade: verifier.grade(task, answer),
            extra: extra.iter().map(|&i| row.fields[i].as_str()).collect(),
        });
    }
    if let Some(stray) = outputs
        .iter()
        .zip(&output_task)
        .find(|(_, task)| **task == NONE || listed_on[**task as usize].is_none())
        .map(|(output, _)| output)
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
    // About 150 bytes a row (ids, numbers and a feedback line), so the document is
    // not copied as it grows.
    let mut csv = CsvWriter::with_capacity(150 * (sheet.rows.len() + 1));
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
        let mut cells = Vec::with_capacity(SCORE_COLUMNS.len() + row.extra.len());
        cells.extend([
            Cell::Text(row.task_id),
            Cell::Text(row.group),
            Cell::Text(row.kind),
        ]);
        cells.extend(numbers.iter().map(|n| Cell::Trusted(n)));
        cells.push(Cell::Text(&grade.feedback));
        cells.extend(row.extra.iter().map(|e| Cell::Text(e)));
        csv.row(&cells);
    }
    csv.finish()
}
