//! `score` for the benchmark verifiers (`numeric`, `choice`, `short`), whose every task
//! is graded against its own truth row alone, and for `facts`, which grades it against
//! its row and its kind's distinct answers (held once each, or past a few MB looked up
//! in a table on disk): a merge join on disk
//! instead of a verifier held, in memory that does not grow with the rows.
//!
//! The truth, the tasks file and the outputs are each read once, in file order, into an
//! external sort by task id ([`Sorter`], whose runs go to the process's [`RunStore`]);
//! the three sorted streams are then merged side by side, each task graded as its id
//! comes, and its scores row sorted back by the tasks file's line. The scores CSV and
//! every error are the ones [`super::grade_tasks`] gives with the verifier built from
//! the whole truth, in the same order: each check that a whole file settles (a repeated
//! id, an unknown one) is found in the sort and the first in file order kept.

use std::io::Read;

use super::{MISSING_SHOWN, SCORE_COLUMNS, Summary, answer_text, extra_columns, grade_cells};
use crate::base::csv::{Cell, CsvWriter};
use crate::base::sorter::{Budget, RunStore, Sorted, Sorter};
use crate::error::InputError;
use crate::outputs::OutputsReader;
use crate::scores::ANSWERED_COLUMN;
use crate::table::scan::RowScanner;
use crate::table::{column, require, trim_field};
use crate::verify::{BadRow, Rowwise, TruthRow};

mod streams;

use streams::{Stream, Taken, get_number, get_text, put_number, put_text};

/// How many bytes of records each sort keeps in memory before it writes a run: four
/// sorts live at once, so the join holds a few tens of megabytes however many rows.
pub(crate) const SORT_BUDGET: Budget = Budget {
    least: 8 << 20,
    per_record: 0,
};

/// A repeated task id: the line of its second row, the first row's, and the id.
type Repeat = (u64, u64, String);

/// How many bytes of the scores CSV are gathered before they are handed on.
const HAND_ON_EVERY: usize = 1 << 20;

/// A truth sorted by task id, each record's payload its line, group, kind, answer,
/// options and distinct answer's number.
pub(crate) struct SortedTruth {
    sorted: Sorted,
}

/// Sorts the truth `read` hands on (the rows of [`crate::verify::read_rowwise`]) by
/// task id, and refuses it as [`crate::verify::build`] would: the first bad row, or
/// the first repeated task id (by the line of its second row) when that comes first, or
/// a truth without rows.
pub(crate) fn sort_truth(
    source: &str,
    store: &dyn RunStore,
    budget: Budget,
    read: impl FnOnce(&mut dyn FnMut(&TruthRow<'_>)) -> Result<u64, BadRow>,
) -> anyhow::Result<SortedTruth> {
    let mut sorter = Sorter::new(store, budget);
    let mut failed: Option<std::io::Error> = None;
    let mut payload = Vec::new();
    let mut key = String::new();
    let read = read(&mut |row| {
        if failed.is_some() {
            return;
        }
        key.clear();
        key.push_str(row.group);
        key.push(':');
        key.push_str(row.kind);
        payload.clear();
        put_number(&mut payload, row.line);
        for part in [row.group, row.kind, row.answer, row.options] {
            put_text(&mut payload, part);
        }
        put_number(&mut payload, row.distinct);
        if let Err(error) = sorter.push(key.as_bytes(), &payload) {
            failed = Some(error);
        }
    });
    if let Some(error) = failed {
        return Err(runs_error(error));
    }
    let sorted = sorter.finish();
    // The bad row, or the end of the file.
    let (line, bad, bad_id) = match read {
        Ok(_) => (u64::MAX, None, None),
        Err(bad) => (bad.line, Some(bad.error), bad.id),
    };
    let (repeat, rows) = first_repeat(&sorted, bad_id.as_deref(), line).map_err(runs_error)?;
    if let Some((second, first, id)) = repeat.filter(|(second, _, _)| *second <= line) {
        return Err(InputError::invalid(
            source,
            second,
            format!(
                "task `{id}` appears again (first on row {first}); keep one row per group and kind"
            ),
        )
        .into());
    }
    if let Some(error) = bad {
        return Err(error.into());
    }
    if rows == 0 {
        return Err(InputError::NoRows {
            file: source.to_string(),
        }
        .into());
    }
    Ok(SortedTruth { sorted })
}

/// The first repeated task id of a sorted truth, by the line of its second row: that
/// line, the first row's and the id; with the rows sorted. `bad`, the id of a bad row
/// on `line` read after them all, counts as a repeat on that line.
fn first_repeat(
    sorted: &Sorted,
    bad: Option<&str>,
    line: u64,
) -> std::io::Result<(Option<Repeat>, u64)> {
    let mut repeat: Option<Repeat> = None;
    let mut keep = |second: u64, first: u64, id: &[u8]| {
        if repeat.as_ref().is_none_or(|(at, _, _)| second < *at) {
            repeat = Some((second, first, String::from_utf8_lossy(id).into_owned()));
        }
    };
    let mut merged = sorted.merge()?;
    // The first row of the run of records with one id: its id and line.
    let (mut previous, mut first) = (Vec::new(), 0);
    let mut rows = 0_u64;
    while let Some((key, payload)) = merged.next_record()? {
        let at = get_number(&mut &payload[..]);
        if rows > 0 && previous == key {
            keep(at, first, key);
        } else {
            if bad.is_some_and(|bad| bad.as_bytes() == key) {
                keep(line, at, key);
            }
            previous.clear();
            previous.extend_from_slice(key);
            first = at;
        }
        rows += 1;
    }
    Ok((repeat, rows))
}

/// Grades every row of `tasks` (its header read) against `truth` and `outputs` (as
/// opened, or why not) with `verifier`, handing the scores CSV to `sink` as
/// [`super::grade_tasks`] does, with the same errors in the same order. Nothing is held
/// but the sorts' budgets.
pub(crate) fn grade_joined<T: Read, O: Read>(
    verifier: &dyn Rowwise,
    truth: &SortedTruth,
    mut tasks: RowScanner<T>,
    outputs: Result<OutputsReader<O>, InputError>,
    (store, budget): (&dyn RunStore, Budget),
    sink: &mut dyn FnMut(&str),
    answered: bool,
) -> anyhow::Result<Summary> {
    let headers = tasks.headers().to_vec();
    let source = tasks.source().to_string();
    let id_column = column(&headers, "task_id");
    let extra = extra_columns(&headers);
    if answered && extra.iter().any(|&i| headers[i] == ANSWERED_COLUMN) {
        return Err(InputError::invalid(
            &source,
            1,
            format!(
                "a column `{ANSWERED_COLUMN}`, which `score --allow-missing` writes; rename it"
            ),
        )
        .into());
    }
    // The tasks by id: each row's line and its extra cells.
    let mut listed = Sorter::new(store, budget);
    let mut rows = 0_usize;
    let mut payload = Vec::new();
    while let Some(row) = tasks.next_row()? {
        rows += 1;
        let Some(id_column) = id_column else {
            continue;
        };
        payload.clear();
        put_number(&mut payload, row.line);
        for &i in &extra {
            put_text(&mut payload, row.field(i));
        }
        listed
            .push(trim_field(row.field(id_column)).as_bytes(), &payload)
            .map_err(runs_error)?;
    }
    let listed = listed.finish();
    // The outputs by id: each one's line, whether it failed, and its text.
    let (outputs, outputs_source) = sort_outputs(outputs, store, budget)?;
    require(&source, &headers, "task_id")?;
    if rows == 0 {
        return Err(InputError::NoRows { file: source }.into());
    }
    let mut join = Join {
        verifier,
        answered,
        summary: Summary {
            tasks: rows,
            correct: 0,
            missing: 0,
            errored: 0,
            first_missing: Vec::new(),
        },
        missing: Vec::new(),
        repeat: None,
        failure: None,
        stray: None,
        rows: Sorter::new(store, budget),
        csv: CsvWriter::new(),
    };
    let mut streams = [
        Stream::new(truth.sorted.merge().map_err(runs_error)?).map_err(runs_error)?,
        Stream::new(listed.merge().map_err(runs_error)?).map_err(runs_error)?,
        Stream::new(outputs.merge().map_err(runs_error)?).map_err(runs_error)?,
    ];
    let mut key = Vec::new();
    let mut taken: [Taken; 3] = Default::default();
    while let Some(least) = streams.iter().filter(|s| s.live).map(|s| &s.key).min() {
        key.clone_from(least);
        for (stream, taken) in streams.iter_mut().zip(&mut taken) {
            stream.take(&key, taken).map_err(runs_error)?;
        }
        join.one(&key, &taken, &source)?;
    }
    if let Some((line, first, id)) = join.repeat {
        return Err(InputError::invalid(
            &outputs_source,
            line,
            format!(
                "a second output for task `{id}` (the first is on row {first}); keep one output per task"
            ),
        )
        .into());
    }
    if let Some((_, error)) = join.failure {
        return Err(error.into());
    }
    if let Some((line, id)) = join.stray {
        return Err(InputError::invalid(
            &outputs_source,
            line,
            format!(
                "output for task `{id}`, which is not in `{source}`; remove it or score against the tasks file it was made for"
            ),
        )
        .into());
    }
    let mut header: Vec<&str> = SCORE_COLUMNS.to_vec();
    if answered {
        header.push(ANSWERED_COLUMN);
    }
    header.extend(extra.iter().map(|&i| headers[i].as_str()));
    let mut csv = CsvWriter::with_capacity(HAND_ON_EVERY + 4096);
    csv.header(&header);
    let mut text = csv.finish();
    let scored = join.rows.finish();
    let mut merged = scored.merge().map_err(runs_error)?;
    while let Some((_, row)) = merged.next_record().map_err(runs_error)? {
        text.push_str(std::str::from_utf8(row)?);
        if text.len() >= HAND_ON_EVERY {
            sink(&text);
            text.clear();
        }
    }
    if !text.is_empty() {
        sink(&text);
    }
    let mut summary = join.summary;
    join.missing.sort_unstable();
    summary.first_missing = join.missing.into_iter().map(|(_, id)| id).collect();
    Ok(summary)
}

/// An error of the sorts' runs (their temporary files), said as one, with the fix.
fn runs_error(error: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "cannot keep the rows being sorted in the temporary folder (TMPDIR, else /tmp): {error}; free space there, or set TMPDIR to a folder with room"
    )
}

/// Sorts the outputs by id, or keeps why they could not be read; with the file's name.
fn sort_outputs<O: Read>(
    outputs: Result<OutputsReader<O>, InputError>,
    store: &dyn RunStore,
    budget: Budget,
) -> anyhow::Result<(Sorted, String)> {
    let mut reader = outputs?;
    let source = reader.source().to_string();
    let mut sorter = Sorter::new(store, budget);
    let mut payload = Vec::new();
    while reader.advance()? {
        let output = reader.current_output();
        payload.clear();
        put_number(&mut payload, output.line);
        payload.push(u8::from(output.failed));
        payload.extend_from_slice(output.output.as_bytes());
        sorter
            .push(output.task_id.as_bytes(), &payload)
            .map_err(runs_error)?;
    }
    reader.finish()?;
    Ok((sorter.finish(), source))
}

/// What the join has found so far.
struct Join<'v> {
    verifier: &'v dyn Rowwise,
    answered: bool,
    summary: Summary,
    /// The first unanswered tasks by line: at most [`MISSING_SHOWN`].
    missing: Vec<(u64, String)>,
    /// The first second output (by its line): its line, the first's, and the id.
    repeat: Option<Repeat>,
    /// The first tasks row that is an error (an id the truth does not hold, a repeat).
    failure: Option<(u64, InputError)>,
    /// The first output whose id no tasks row lists: its line and id.
    stray: Option<(u64, String)>,
    /// Each scores row, by its tasks row's line.
    rows: Sorter<'v>,
    csv: CsvWriter,
}

impl Join<'_> {
    /// Joins the records of the id `key`.
    fn one(&mut self, key: &[u8], taken: &[Taken; 3], source: &str) -> anyhow::Result<()> {
        let [truth, listed, outputs] = taken;
        let id = std::str::from_utf8(key)?;
        let first_output = outputs.first().map(|mut p| {
            let line = get_number(&mut p);
            (line, p)
        });
        if let (Some((first, _)), Some(second)) = (first_output, outputs.second()) {
            let second = get_number(&mut &second[..]);
            if self.repeat.as_ref().is_none_or(|(at, _, _)| second < *at) {
                self.repeat = Some((second, first, id.to_string()));
            }
        }
        let Some(mut row) = listed.first() else {
            if let Some((line, _)) = first_output
                && self.stray.as_ref().is_none_or(|(at, _)| line < *at)
            {
                self.stray = Some((line, id.to_string()));
            }
            return Ok(());
        };
        let line = get_number(&mut row);
        let Some(truth) = truth.first() else {
            self.fail(InputError::invalid(
                source,
                line,
                format!(
                    "task `{id}` is not in the ground truth; use the tasks file `split` wrote from the same truth file"
                ),
            ));
            return Ok(());
        };
        if let Some(second) = listed.second() {
            let second = get_number(&mut &second[..]);
            self.fail(InputError::invalid(
                source,
                second,
                format!("task `{id}` is listed twice (first on row {line}); remove the repeat"),
            ));
        }
        if self.repeat.is_some() || self.failure.is_some() || self.stray.is_some() {
            // An error will be said: the scores are not made.
            return Ok(());
        }
        let mut truth = truth;
        let _ = get_number(&mut truth);
        let [group, kind, answer, options] = [(); 4].map(|()| get_text(&mut truth));
        let distinct = get_number(&mut truth);
        let answer_of = match first_output {
            Some((_, p)) if p[0] == 1 => Some(("", true)),
            Some((_, p)) => Some((std::str::from_utf8(&p[1..])?, false)),
            None => None,
        };
        let (text, unanswered) = answer_text(answer_of);
        let mut grade = self
            .verifier
            .grade(answer, options, distinct, text)
            .map_err(|not_graded| anyhow::anyhow!("{not_graded}"))?;
        if let Some(why) = unanswered {
            grade.feedback = why.to_string();
            self.summary.missing += 1;
            self.summary.errored += usize::from(answer_of.is_some());
            self.missing.push((line, id.to_string()));
            if self.missing.len() > MISSING_SHOWN {
                self.missing.sort_unstable();
                self.missing.pop();
            }
        }
        self.summary.correct += usize::from(grade.correct);
        let csv = &mut self.csv;
        grade_cells(
            csv,
            [id, group, kind],
            &grade,
            unanswered.is_some(),
            self.answered,
        );
        while !row.is_empty() {
            csv.cell(Cell::Text(get_text(&mut row)));
        }
        csv.end_row();
        let (rows, mut pushed) = (&mut self.rows, Ok(()));
        csv.hand_on(0, &mut |made| {
            pushed = rows.push(&line.to_be_bytes(), made.as_bytes())
        });
        pushed.map_err(runs_error)
    }

    /// Keeps `error`, a tasks row's, if it is the first in the file so far.
    fn fail(&mut self, error: InputError) {
        let line = match &error {
            InputError::Invalid { line, .. } => *line,
            _ => 0,
        };
        if self.failure.as_ref().is_none_or(|(at, _)| line < *at) {
            self.failure = Some((line, error));
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod arxiv_tests;
