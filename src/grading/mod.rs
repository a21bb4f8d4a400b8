//! `score`'s core: grade every task of a tasks file with a verifier, pairing outputs by
//! `task_id`, and write the scores CSV as it goes. A task with no output, or whose
//! output carries an error instead of an answer, is unanswered: graded as an empty
//! answer with feedback saying so, and counted; an output for a task the file does not
//! hold, or a second output for one task, is an error.
//!
//! Both files are streamed. Each tasks row is looked up, graded and written before the
//! next is read; its output is read from the outputs file when the row asks for it.
//! Outputs read on the way to it, ahead of their own task, are held (their text in one
//! buffer, filed under the verifier's tasks) until their task's row comes, so two files
//! in the same order hold nothing, and a million outputs in another order take a few
//! allocations. Errors come in the order checking whole files gives them, whatever the
//! files' sizes and orders:
//!
//! 1. the tasks file unreadable or not CSV (its first such row);
//! 2. the outputs file unreadable or malformed;
//! 3. the tasks file without a `task_id` column, or without rows;
//! 4. a second output for a task (the first in the outputs file);
//! 5. a task the truth does not hold, or one listed twice (the first in the tasks file);
//! 6. an output for a task the tasks file does not list (the first in the outputs file).
//!
//! With the `answered` column asked for, a tasks file with a column of that name is
//! refused before any of that, from its header alone.
//!
//! This holds the verifier built from the whole truth. For the verifiers that grade a
//! task from its own truth row alone, [`joined`] gives the same scores and errors
//! holding nothing that grows with the rows.

use std::collections::HashMap;
use std::io::Read;

use crate::base::csv::{Cell, CsvWriter};
use crate::error::InputError;
use crate::outputs::{OutputRef, OutputsReader};
use crate::scores::{
    ANSWERED_COLUMN, CORRECT_COLUMN, FEEDBACK_COLUMN, GROUP_COLUMN, OUTCOME_COLUMN, SCORE_COLUMN,
    TASK_ID_COLUMN, UNANSWERED,
};
use crate::table::scan::RowScanner;
use crate::table::{column, require, trim_field};
use crate::task::{TASK_COLUMNS, task_id};
use crate::verify::{Grade, Verifier};

/// The columns `score` writes, before any extra columns carried from the tasks file.
pub(crate) const SCORE_COLUMNS: [&str; 9] = [
    TASK_ID_COLUMN,
    GROUP_COLUMN,
    "kind",
    CORRECT_COLUMN,
    "correctness",
    "composite",
    SCORE_COLUMN,
    OUTCOME_COLUMN,
    FEEDBACK_COLUMN,
];

/// No output, or an output for an id the truth does not hold.
const NONE: usize = usize::MAX;

/// How many tasks with no output the summary names.
const MISSING_SHOWN: usize = 5;

/// What reading the outputs file has found so far about the tasks it answers.
#[derive(Debug, Clone)]
struct Seen {
    /// The file as given.
    source: String,
    /// For each of the verifier's tasks, the line of its output (0 before one is read:
    /// lines start at 1).
    output_on: Vec<u64>,
    /// The first output whose id the truth does not hold: its line and id.
    first_unknown: Option<(u64, String)>,
    /// Ids the truth does not hold, with the line of their first output.
    unknown: HashMap<String, u64>,
    /// The first output that repeats a task, as an error.
    repeat: Option<InputError>,
    /// The task of the last output whose id the truth holds.
    last_task: usize,
}

impl Seen {
    fn new(source: &str, tasks: usize) -> Seen {
        Seen {
            source: source.to_string(),
            output_on: vec![0; tasks],
            first_unknown: None,
            unknown: HashMap::new(),
            repeat: None,
            last_task: NONE,
        }
    }

    /// Files `output` under its task and returns the task: [`NONE`] for an id the
    /// truth does not hold, and for any output from the first that repeats a task on
    /// (after which only the file's own errors can come before that one).
    fn file(&mut self, verifier: &dyn Verifier, output: &OutputRef<'_>) -> usize {
        if self.repeat.is_some() {
            return NONE;
        }
        let task = verifier
            .find_task_near(output.task_id, self.last_task.wrapping_add(1))
            .unwrap_or(NONE);
        let first = if task == NONE {
            if self.first_unknown.is_none() {
                self.first_unknown = Some((output.line, output.task_id.to_string()));
            }
            self.unknown.insert(output.task_id.to_string(), output.line)
        } else {
            self.last_task = task;
            match self.output_on[task] {
                0 => {
                    self.output_on[task] = output.line;
                    None
                }
                line => Some(line),
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
            return NONE;
        }
        task
    }
}

/// Outputs read ahead of their task's row: their text in one buffer, and the output
/// of each of the verifier's tasks by position (made at the first output held).
#[derive(Debug, Clone, Default)]
struct Held {
    text: String,
    /// Every output held, in file order.
    entries: Vec<Entry>,
    /// For each of the verifier's tasks, its entry, or [`NONE`].
    of_task: Vec<usize>,
}

/// One held output: where its text starts in [`Held::text`] (it ends where the next
/// starts), its line, its task and whether it carries an error instead of an answer.
#[derive(Debug, Clone, Copy)]
struct Entry {
    start: usize,
    line: u64,
    task: usize,
    failed: bool,
}

impl Held {
    fn hold(&mut self, tasks: usize, task: usize, output: &OutputRef<'_>) {
        if self.of_task.is_empty() {
            self.of_task = vec![NONE; tasks];
        }
        self.of_task[task] = self.entries.len();
        self.entries.push(Entry {
            start: self.text.len(),
            line: output.line,
            task,
            failed: output.failed,
        });
        self.text.push_str(output.output);
    }

    /// The output held for task `task`, which must have one, and whether it failed.
    fn of(&self, task: usize) -> (&str, bool) {
        let entry = self.of_task[task];
        let end = self
            .entries
            .get(entry + 1)
            .map_or(self.text.len(), |next| next.start);
        let entry = &self.entries[entry];
        (&self.text[entry.start..end], entry.failed)
    }
}

/// The outputs file as `score` reads it: the reader until the file ends or fails,
/// and what it has read.
struct Outputs<R: Read> {
    reader: Option<OutputsReader<R>>,
    /// Why the file could not be read, once known.
    failure: Option<InputError>,
    seen: Seen,
    held: Held,
}

impl<R: Read> Outputs<R> {
    /// Reads outputs until the one for task `task` (whose row just came, and which has
    /// no output read yet), filing and holding those before it, with whether it carries
    /// an error; `None` at the end of the file or once it failed.
    fn read_to(&mut self, verifier: &dyn Verifier, task: usize) -> Option<(&str, bool)> {
        let tasks = verifier.task_count();
        let found = self.read_until(verifier, |held, output, filed| {
            if filed == task {
                return true;
            }
            held.hold(tasks, filed, output);
            false
        });
        // Borrowed from the reader: the output is graded without a copy.
        let reader = self.reader.as_ref().filter(|_| found)?;
        Some((reader.current_text(), reader.current_output().failed))
    }

    /// Reads the rest of the file, filing every output and telling `each` the line
    /// and task of each whose id the truth holds, and keeps the file's error.
    fn drain_noting(&mut self, verifier: &dyn Verifier, mut each: impl FnMut(u64, usize)) {
        self.read_until(verifier, |_, output, task| {
            each(output.line, task);
            false
        });
    }

    /// Reads outputs, filing each, until `stop` (given the held outputs, an output
    /// whose id the truth holds and its task) says to stop at one: `true` then, with
    /// that output the reader's current one; `false` at the end of the file, whose
    /// error is then kept, or once it failed.
    fn read_until(
        &mut self,
        verifier: &dyn Verifier,
        mut stop: impl FnMut(&mut Held, &OutputRef<'_>, usize) -> bool,
    ) -> bool {
        let Some(reader) = self.reader.as_mut() else {
            return false;
        };
        loop {
            match reader.advance() {
                Ok(true) => {}
                Ok(false) => break,
                Err(error) => {
                    self.failure = Some(error);
                    self.reader = None;
                    return false;
                }
            }
            let output = reader.current_output();
            let task = self.seen.file(verifier, &output);
            if task != NONE && stop(&mut self.held, &output, task) {
                return true;
            }
        }
        self.end();
        false
    }

    /// At the end of the file: the error only the whole file shows, if any.
    fn end(&mut self) {
        if let Some(reader) = self.reader.take()
            && let Err(error) = reader.finish()
        {
            self.failure = Some(error);
        }
    }
}

/// What `score` says besides the scores CSV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Summary {
    /// Tasks graded: the tasks file's rows.
    pub tasks: usize,
    /// Tasks whose grade is correct.
    pub correct: usize,
    /// Tasks unanswered: no output, or one carrying an error; graded as empty answers.
    pub missing: usize,
    /// Of those, the tasks whose output carried an error.
    pub errored: usize,
    /// The first five unanswered tasks, in the tasks file's order.
    pub first_missing: Vec<String>,
}

/// How many bytes of the scores CSV [`grade_tasks`] gathers before it hands them on.
const HAND_ON_EVERY: usize = 1 << 20;

/// The tasks file's columns beyond [`TASK_COLUMNS`], carried into the scores file
/// after the grade's.
fn extra_columns(headers: &[String]) -> Vec<usize> {
    (0..headers.len())
        .filter(|&i| !TASK_COLUMNS.contains(&headers[i].as_str()))
        .collect()
}

/// The text to grade of a task's output (`(text, errored)`, or none), and why the
/// task is unanswered when it is: an output carrying an error, or no output. An
/// unanswered task is graded as an empty answer.
fn answer_text(answer: Option<(&str, bool)>) -> (&str, Option<&'static str>) {
    match answer {
        Some((text, false)) => (text, None),
        Some((_, true)) => (
            "",
            Some("unanswered: the output carries an error instead of an answer"),
        ),
        None => ("", Some("unanswered: no output for this task")),
    }
}

/// Writes a scores row's cells from `task_id, group, kind` through `feedback` (and
/// `answered` when the file has that column); the tasks file's extra columns follow.
fn grade_cells(
    csv: &mut CsvWriter,
    [task_id, group, kind]: [&str; 3],
    grade: &Grade,
    unanswered: bool,
    answered: bool,
) {
    csv.cell(Cell::Trusted(task_id));
    csv.cell(Cell::Trusted(group));
    csv.cell(Cell::Trusted(kind));
    csv.cell(Cell::Trusted(if grade.correct { "1" } else { "0" }));
    csv.number(grade.correctness);
    csv.number(grade.composite);
    csv.number(grade.score);
    csv.cell(Cell::Trusted(if unanswered {
        UNANSWERED
    } else {
        grade.outcome.name()
    }));
    csv.cell(Cell::Text(&grade.feedback));
    if answered {
        csv.cell(Cell::Trusted(if unanswered { "0" } else { "1" }));
    }
}

/// Grades every row of `tasks` (a tasks file, its header read) with `verifier` against
/// `outputs` (an outputs file as opened, or why it could not be), and hands the scores
/// CSV to `sink` a megabyte at a time as it is made: [`SCORE_COLUMNS`], then
/// [`ANSWERED_COLUMN`] when `answered` is set, then the tasks file's columns beyond
/// `task_id,group,kind,prompt`. The errors and their order are those of the module's
/// list; after an error, what `sink` got is not the scores CSV.
pub(crate) fn grade_tasks<T: Read, O: Read>(
    verifier: &dyn Verifier,
    tasks: RowScanner<T>,
    outputs: Result<OutputsReader<O>, InputError>,
    sink: &mut dyn FnMut(&str),
    answered: bool,
) -> Result<Summary, InputError> {
    grade_tasks_handing_on(verifier, tasks, outputs, sink, HAND_ON_EVERY, answered)
}

/// [`grade_tasks`], handing the CSV on once `every` bytes are gathered.
fn grade_tasks_handing_on<T: Read, O: Read>(
    verifier: &dyn Verifier,
    mut tasks: RowScanner<T>,
    outputs: Result<OutputsReader<O>, InputError>,
    sink: &mut dyn FnMut(&str),
    every: usize,
    answered: bool,
) -> Result<Summary, InputError> {
    let headers = tasks.headers().to_vec();
    let source = tasks.source().to_string();
    let id_column = column(&headers, "task_id");
    let extra = extra_columns(&headers);
    let (reader, failure) = match outputs {
        Ok(reader) => (Some(reader), None),
        Err(error) => (None, Some(error)),
    };
    let outputs_source = reader.as_ref().map_or("", |r| r.source()).to_string();
    let mut outputs = Outputs {
        reader,
        failure,
        seen: Seen::new(&outputs_source, verifier.task_count()),
        held: Held::default(),
    };
    let mut csv = CsvWriter::with_capacity(every + 4096);
    if answered && extra.iter().any(|&i| headers[i] == ANSWERED_COLUMN) {
        return Err(InputError::invalid(
            &source,
            1,
            format!(
                "a column `{ANSWERED_COLUMN}`, which `score --allow-missing` writes; rename it"
            ),
        ));
    }
    let mut header: Vec<&str> = SCORE_COLUMNS.to_vec();
    if answered {
        header.push(ANSWERED_COLUMN);
    }
    header.extend(extra.iter().map(|&i| headers[i].as_str()));
    csv.header(&header);
    // The line each task is listed on (0 before it is: data rows start on line 2).
    let mut listed_on: Vec<u64> = vec![0; verifier.task_count()];
    let mut summary = Summary {
        tasks: 0,
        correct: 0,
        missing: 0,
        errored: 0,
        first_missing: Vec::new(),
    };
    let mut failure: Option<InputError> = None;
    // The task of the last row, whose next is likely the next row's.
    let mut last_task = NONE;
    while let Some(row) = tasks.next_row()? {
        summary.tasks += 1;
        // Rows are graded only while no error is sure to come; after one, the file is
        // still read to its end, since an error of its own would come first.
        let Some(id_column) = id_column else {
            continue;
        };
        if failure.is_some() || outputs.failure.is_some() || outputs.seen.repeat.is_some() {
            continue;
        }
        let task_id = trim_field(row.field(id_column));
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
        let answer = if outputs.seen.output_on[index] != 0 {
            Some(outputs.held.of(index))
        } else {
            outputs.read_to(verifier, index)
        };
        let (text, unanswered) = answer_text(answer);
        let mut grade = verifier.grade(index, text);
        if let Some(why) = unanswered {
            // Graded as an empty answer; the feedback says why, not what was expected.
            grade.feedback = why.to_string();
            summary.missing += 1;
            summary.errored += usize::from(answer.is_some());
            if summary.first_missing.len() < MISSING_SHOWN {
                summary.first_missing.push(task_id.to_string());
            }
        }
        summary.correct += usize::from(grade.correct);
        // The id found the task, so it is the task's own id.
        let (group, kind) = verifier.task_names(index);
        grade_cells(
            &mut csv,
            [task_id, group, kind],
            &grade,
            unanswered.is_some(),
            answered,
        );
        for &i in &extra {
            csv.cell(Cell::Text(row.field(i)));
        }
        csv.end_row();
        csv.hand_on(every, sink);
    }
    // The outputs after the last one a row asked for: read for the file's own errors,
    // repeats, and outputs for tasks no row lists.
    let mut stray: Option<(u64, usize)> = None;
    outputs.drain_noting(verifier, |line, task| {
        if stray.is_none() && listed_on[task] == 0 {
            stray = Some((line, task));
        }
    });
    if let Some(error) = outputs.failure {
        return Err(error);
    }
    require(&source, &headers, "task_id")?;
    if summary.tasks == 0 {
        return Err(InputError::NoRows { file: source });
    }
    if let Some(repeat) = outputs.seen.repeat {
        return Err(repeat);
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    // The first output in the file whose task no row lists: an id the truth does not
    // hold, an output held for a task whose row never came, or one read after the
    // last row asked.
    let held = outputs
        .held
        .entries
        .iter()
        .find(|entry| listed_on[entry.task] == 0)
        .map(|entry| (entry.line, entry.task));
    let first_known = [held, stray].into_iter().flatten().min();
    let stray = match (outputs.seen.first_unknown, first_known) {
        (Some((line, id)), known) if known.is_none_or(|(other, _)| line < other) => {
            Some((line, id))
        }
        (_, Some((line, task))) => {
            let (group, kind) = verifier.task_names(task);
            Some((line, task_id(group, kind)))
        }
        (_, None) => None,
    };
    if let Some((line, id)) = stray {
        return Err(InputError::invalid(
            &outputs_source,
            line,
            format!(
                "output for task `{id}`, which is not in `{source}`; remove it or score against the tasks file it was made for"
            ),
        ));
    }
    csv.hand_on(0, sink);
    Ok(summary)
}

pub(crate) mod joined;
#[cfg(test)]
mod tests;
