//! `score`'s core: grade every task of a tasks file with a verifier, pairing outputs by
//! `task_id`, and write the scores CSV as it goes. A task with no output is graded as
//! an empty answer and counted; an output for a task the file does not hold, or a
//! second output for one task, is an error.
//!
//! The outputs are held ([`Outputs`]: their text in one buffer, filed under the
//! verifier's tasks), and the tasks file is streamed: each row is looked up, graded and
//! written before the next is read, so neither file is held whole and no task is built.
//! Errors come in the order checking whole files gives them, whatever the files' sizes:
//!
//! 1. the tasks file unreadable or not CSV (its first such row);
//! 2. the outputs file unreadable or malformed;
//! 3. the tasks file without a `task_id` column, or without rows;
//! 4. a second output for a task (the first in the outputs file);
//! 5. a task the truth does not hold, or one listed twice (the first in the tasks file);
//! 6. an output for a task the tasks file does not list (the first in the outputs file).

use std::collections::HashMap;
use std::io::Read;

use crate::csvout::{Cell, CsvWriter};
use crate::error::InputError;
use crate::outputs::{OutputRef, read_outputs};
use crate::table::scan::RowScanner;
use crate::table::{column, require};
use crate::task::{TASK_COLUMNS, task_id};
use crate::verify::Verifier;

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

/// No output, or an output for an id the truth does not hold.
const NONE: usize = usize::MAX;

/// How many tasks with no output the summary names.
const MISSING_SHOWN: usize = 5;

/// An outputs file read for grading: every output's text in one buffer, and the output
/// of each of the verifier's tasks by position, so that a million outputs take three
/// allocations and a task finds its output without hashing its id again.
#[derive(Debug, Clone)]
pub struct Outputs {
    /// The file as given.
    source: String,
    /// The text of every output whose id the truth holds, in file order.
    text: String,
    /// Every output in file order.
    entries: Vec<Entry>,
    /// For each of the verifier's tasks, its entry, or [`NONE`].
    of_task: Vec<usize>,
    /// The id of the first output whose id the truth does not hold.
    first_unknown: Option<String>,
    /// Ids the truth does not hold, with the line of their first output.
    unknown: HashMap<String, u64>,
    /// The first output that repeats a task, as an error.
    repeat: Option<InputError>,
    /// The task of the last output whose id the truth holds.
    last_task: usize,
}

/// One output: where its text starts in [`Outputs::text`] (it ends where the next
/// starts), its line, and its task ([`NONE`] for an id the truth does not hold).
#[derive(Debug, Clone, Copy)]
struct Entry {
    start: usize,
    line: u64,
    task: usize,
}

impl Outputs {
    /// Reads the outputs file `input` (named `source`) and files every output under
    /// `verifier`'s task with its id.
    pub fn read(
        verifier: &dyn Verifier,
        source: &str,
        input: impl Read,
    ) -> Result<Outputs, InputError> {
        let mut outputs = Outputs {
            source: source.to_string(),
            text: String::new(),
            entries: Vec::new(),
            of_task: vec![NONE; verifier.task_count()],
            first_unknown: None,
            unknown: HashMap::new(),
            repeat: None,
            last_task: NONE,
        };
        read_outputs(source, input, |output| outputs.add(verifier, output))?;
        Ok(outputs)
    }

    fn add(&mut self, verifier: &dyn Verifier, output: OutputRef<'_>) {
        // After a repeat only the file's own errors can come before it: nothing more
        // is needed.
        if self.repeat.is_some() {
            return;
        }
        let task = verifier
            .find_task_near(output.task_id, self.last_task.wrapping_add(1))
            .unwrap_or(NONE);
        if task != NONE {
            self.last_task = task;
        }
        let first = if task == NONE {
            if self.first_unknown.is_none() {
                self.first_unknown = Some(output.task_id.to_string());
            }
            self.unknown.insert(output.task_id.to_string(), output.line)
        } else {
            match self.of_task[task] {
                NONE => {
                    self.of_task[task] = self.entries.len();
                    None
                }
                entry => Some(self.entries[entry].line),
            }
        };
        if let Some(first) = first {
            self.repeat = Some(InputError::invalid(
                &self.source,
                output.line,
                format!(
                    "a second output for task `{}` (the first is on row {first}); keep one output per task",
                    output.task_id
                ),
            ));
            return;
        }
        self.entries.push(Entry {
            start: self.text.len(),
            line: output.line,
            task,
        });
        if task != NONE {
            self.text.push_str(output.output);
        }
    }

    /// How many outputs the file holds (up to the first repeated task).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the file holds no outputs (never true of one [`Outputs::read`] read).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The output of the verifier's task `task`, if the file has one.
    fn of(&self, task: usize) -> Option<&str> {
        let entry = self.of_task[task];
        if entry == NONE {
            return None;
        }
        let end = self
            .entries
            .get(entry + 1)
            .map_or(self.text.len(), |next| next.start);
        Some(&self.text[self.entries[entry].start..end])
    }
}

/// What `score` says besides the scores CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Tasks graded: the tasks file's rows.
    pub tasks: usize,
    /// Tasks whose grade is correct.
    pub correct: usize,
    /// Tasks graded as empty answers because no output was given.
    pub missing: usize,
    /// The first five of those tasks, in the tasks file's order.
    pub first_missing: Vec<String>,
}

/// How many bytes of the scores CSV [`grade_tasks`] gathers before it hands them on.
const HAND_ON_EVERY: usize = 1 << 20;

/// Grades every row of `tasks` (a tasks file, its header read) with `verifier` against
/// `outputs` (as read, or why they could not be), and hands the scores CSV to `sink`
/// a megabyte at a time as it is made: [`SCORE_COLUMNS`], then the tasks file's
/// columns beyond `task_id,group,kind,prompt`. The errors and their order are those of
/// the module's list; after an error, what `sink` got is not the scores CSV.
pub fn grade_tasks<R: Read>(
    verifier: &dyn Verifier,
    tasks: RowScanner<R>,
    outputs: Result<Outputs, InputError>,
    sink: &mut dyn FnMut(&str),
) -> Result<Summary, InputError> {
    grade_tasks_handing_on(verifier, tasks, outputs, sink, HAND_ON_EVERY)
}

/// [`grade_tasks`], handing the CSV on once `every` bytes are gathered.
fn grade_tasks_handing_on<R: Read>(
    verifier: &dyn Verifier,
    mut tasks: RowScanner<R>,
    outputs: Result<Outputs, InputError>,
    sink: &mut dyn FnMut(&str),
    every: usize,
) -> Result<Summary, InputError> {
    let headers = tasks.headers().to_vec();
    let source = tasks.source().to_string();
    let id_column = column(&headers, "task_id");
    let extra: Vec<usize> = (0..headers.len())
        .filter(|&i| !TASK_COLUMNS.contains(&headers[i].as_str()))
        .collect();
    // Rows are graded only while no error is sure to come; after one, the file is
    // still read to its end, since an error of its own would come first.
    let graded = match (&outputs, id_column) {
        (Ok(outputs), Some(id_column)) if outputs.repeat.is_none() => Some((outputs, id_column)),
        _ => None,
    };
    let mut csv = CsvWriter::with_capacity(every + 4096);
    let mut header: Vec<&str> = SCORE_COLUMNS.to_vec();
    header.extend(extra.iter().map(|&i| headers[i].as_str()));
    csv.header(&header);
    // The line each task is listed on (0 before it is: data rows start on line 2).
    let mut listed_on: Vec<u64> = vec![0; verifier.task_count()];
    let mut summary = Summary {
        tasks: 0,
        correct: 0,
        missing: 0,
        first_missing: Vec::new(),
    };
    let mut failure: Option<InputError> = None;
    // The task of the last row, whose next is likely the next row's.
    let mut last_task = NONE;
    while let Some(row) = tasks.next_row()? {
        summary.tasks += 1;
        let Some((outputs, id_column)) = graded else {
            continue;
        };
        if failure.is_some() {
            continue;
        }
        let task_id = row.field(id_column).trim();
        let Some(index) = verifier.find_task_near(task_id, last_task.wrapping_add(1)) else {
            failure = Some(InputError::invalid(
                &source,
                row.line,
                format!(
                    "task `{task_id}` is not in the ground truth; use the tasks file `split` wrote from the same truth file"
                ),
            ));
            continue;
        };
        let first = listed_on[index];
        if first != 0 {
            failure = Some(InputError::invalid(
                &source,
                row.line,
                format!(
                    "task `{task_id}` is listed twice (first on row {first}); remove the repeat"
                ),
            ));
            continue;
        }
        listed_on[index] = row.line;
        last_task = index;
        let answer = outputs.of(index).unwrap_or_else(|| {
            summary.missing += 1;
            if summary.first_missing.len() < MISSING_SHOWN {
                summary.first_missing.push(task_id.to_string());
            }
            ""
        });
        let grade = verifier.grade_at(index, answer);
        summary.correct += usize::from(grade.correct);
        // The id found the task, so it is the task's own id.
        let (group, kind) = verifier.task_names(index);
        csv.cell(Cell::Text(task_id));
        csv.cell(Cell::Text(group));
        csv.cell(Cell::Text(kind));
        csv.cell(Cell::Trusted(if grade.correct { "1" } else { "0" }));
        csv.number(grade.correctness);
        csv.number(grade.composite);
        csv.number(grade.score);
        csv.cell(Cell::Text(&grade.feedback));
        for &i in &extra {
            csv.cell(Cell::Text(row.field(i)));
        }
        csv.end_row();
        csv.hand_on(every, sink);
    }
    let outputs = outputs?;
    require(&source, &headers, "task_id")?;
    if summary.tasks == 0 {
        return Err(InputError::NoRows { file: source });
    }
    if let Some(repeat) = outputs.repeat {
        return Err(repeat);
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    let stray = outputs
        .entries
        .iter()
        .find(|entry| entry.task == NONE || listed_on[entry.task] == 0);
    if let Some(stray) = stray {
        let id = match stray.task {
            // The first output an id the truth lacks is the first such output.
            NONE => outputs.first_unknown.clone().unwrap_or_default(),
            task => {
                let (group, kind) = verifier.task_names(task);
                task_id(group, kind)
            }
        };
        return Err(InputError::invalid(
            &outputs.source,
            stray.line,
            format!(
                "output for task `{id}`, which is not in `{source}`; remove it or score against the tasks file it was made for"
            ),
        ));
    }
    csv.hand_on(0, sink);
    Ok(summary)
}

#[cfg(test)]
mod tests;
