//! [`ScoreStream`]: a scores file read one checked row at a time, each row copied out
//! of the reader ([`ScoreRow`]) so that a caller can hold rows of two files at once and
//! pair them as they come. [`read_score_rows`](super::read_score_rows) is this stream
//! handing its rows to a [`Sink`](super::Sink); both give the same rows and errors.

use super::{
    ANSWERED_COLUMN, CORRECT_COLUMN, Columns, FEEDBACK_COLUMN, GROUP_COLUMN, OUTCOME_COLUMN,
    Refusal, Repeat, SCORE_COLUMN, ScoredOutcome, Shape, TASK_ID_COLUMN, Values, parse_answered,
    parse_correct, parse_outcome, parse_score, repeat_error, trim,
};
use crate::error::InputError;
use crate::table::scan::Rows;
use crate::table::{column, require};

/// One checked row of a scores file, owned; its buffers are reused from row to row.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ScoreRow {
    /// 1-based line of the file the row starts on.
    pub line: u64,
    /// The task, trimmed.
    pub task: String,
    /// The admission score, finite and in [0, 1]; `-0` is read as 0.
    pub score: f64,
    /// The ground truth's verdict, when the file has a `correct` column.
    pub correct: Option<bool>,
    /// Whether the task was answered, when the file has an `answered` column.
    pub answered: Option<bool>,
    /// The grader's outcome, when the file has an `outcome` column.
    pub outcome: Option<ScoredOutcome>,
    stratum: Option<String>,
    group: Option<String>,
    feedback: Option<String>,
}

impl ScoreRow {
    /// A row from its values; `texts` are its stratum, group and feedback.
    pub(crate) fn from_parts(
        line: u64,
        task: &str,
        score: f64,
        correct: Option<bool>,
        answered: Option<bool>,
        texts: [Option<String>; 3],
    ) -> ScoreRow {
        let [stratum, group, feedback] = texts;
        ScoreRow {
            line,
            task: task.to_string(),
            score,
            correct,
            answered,
            outcome: None,
            stratum,
            group,
            feedback,
        }
    }

    /// The value of the strata column, trimmed, when the file has it.
    pub(crate) fn stratum(&self) -> Option<&str> {
        self.stratum.as_deref()
    }

    /// The task's group, trimmed, when the file has a `group` column.
    pub(crate) fn group(&self) -> Option<&str> {
        self.group.as_deref()
    }

    /// The grader's feedback as written, when the file has a `feedback` column and
    /// the stream keeps it.
    pub(crate) fn feedback(&self) -> Option<&str> {
        self.feedback.as_deref()
    }

    /// The row's values as a [`Sink`](super::Sink) is given them.
    pub(crate) fn values(&self) -> Values<'_> {
        Values {
            line: self.line,
            score: self.score,
            correct: self.correct,
            stratum: self.stratum(),
            group: self.group(),
            feedback: self.feedback(),
            answered: self.answered,
            outcome: self.outcome,
        }
    }
}

/// Copies `value` into `slot`, reusing its buffer; `None` empties it.
fn keep(slot: &mut Option<String>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(held), Some(value)) => {
            held.clear();
            held.push_str(value);
        }
        (None, Some(value)) => *slot = Some(value.to_string()),
        (_, None) => *slot = None,
    }
}

/// A scores file read as checked rows: the first row that fails (an empty task, a task
/// its caller refuses, a bad value) ends the rows handed out, the rest is read through
/// for the reader's own errors, and [`ScoreStream::finish`] gives the file's error in
/// the order `read_score_rows` documents.
pub(crate) struct ScoreStream<'r, R: Rows> {
    source: String,
    reader: &'r mut R,
    headers: Vec<String>,
    columns: Columns,
    /// Whether feedback is copied into the rows.
    feedback: bool,
    rows: usize,
    /// The first row that failed, its task when it has one, and why.
    failure: Option<(u64, Option<String>, InputError)>,
    /// The reader's own error, which ends the file.
    broken: Option<InputError>,
    ended: bool,
    row: ScoreRow,
}

impl<'r, R: Rows> ScoreStream<'r, R> {
    /// The rows of `reader` (its header read); `source` names the file in messages,
    /// `strata` the strata column; with `feedback` false no feedback is copied.
    pub(crate) fn new(
        source: &str,
        reader: &'r mut R,
        strata: Option<&str>,
        feedback: bool,
    ) -> ScoreStream<'r, R> {
        let headers = reader.headers().to_vec();
        let columns = Columns {
            id: column(&headers, TASK_ID_COLUMN),
            score: column(&headers, SCORE_COLUMN),
            correct: column(&headers, CORRECT_COLUMN),
            stratum: strata.and_then(|name| column(&headers, name)),
            group: column(&headers, GROUP_COLUMN),
            feedback: column(&headers, FEEDBACK_COLUMN),
            answered: column(&headers, ANSWERED_COLUMN),
            outcome: column(&headers, OUTCOME_COLUMN),
        };
        ScoreStream {
            source: source.to_string(),
            reader,
            headers,
            columns,
            feedback,
            rows: 0,
            failure: None,
            broken: None,
            ended: false,
            row: ScoreRow::default(),
        }
    }

    /// What the file has besides its rows, as far as its header tells.
    pub(crate) fn has(&self) -> (bool, bool, bool) {
        (
            self.columns.correct.is_some(),
            self.columns.stratum.is_some(),
            self.columns.answered.is_some(),
        )
    }

    /// Whether the file has an `outcome` column.
    pub(crate) fn has_outcome(&self) -> bool {
        self.columns.outcome.is_some()
    }

    /// The task id (trimmed) of the row `k` rows after the one [`ScoreStream::next_row`]
    /// reads next, when the reader has it in memory already: a hint for what is to
    /// come, checked by nothing.
    pub(crate) fn upcoming(&self, k: usize) -> Option<&str> {
        let id = self.columns.id?;
        if self.ended {
            return None;
        }
        self.reader.ahead(k).map(|row| trim(row.field(id)))
    }

    /// The next row, once `claim` accepts its task (it is asked before the row's
    /// values are checked, so a refused task is reported even when its values are bad
    /// too); `None` once the file has ended, or a row failed.
    pub(crate) fn next_row(
        &mut self,
        claim: impl FnOnce(&str, u64) -> Result<(), Refusal>,
    ) -> Option<&ScoreRow> {
        if self.ended {
            return None;
        }
        let (Some(id), Some(score)) = (self.columns.id, self.columns.score) else {
            self.drain();
            return None;
        };
        let row = match self.reader.next_row() {
            Ok(Some(row)) => row,
            Ok(None) => {
                self.ended = true;
                return None;
            }
            Err(error) => {
                self.broken = Some(error);
                self.ended = true;
                return None;
            }
        };
        self.rows += 1;
        let line = row.line;
        let source = &self.source;
        let task_id = trim(row.field(id));
        if task_id.is_empty() {
            let error = InputError::invalid(
                source,
                line,
                "empty task_id; every row needs the task it scores",
            );
            self.failure = Some((line, None, error));
            self.drain();
            return None;
        }
        if let Err(refusal) = claim(task_id, line) {
            let error = match refusal {
                Refusal::Repeat(first) => {
                    let task = task_id.to_string();
                    repeat_error(source, &Repeat { line, first, task })
                }
                Refusal::TooMany(limit) => InputError::invalid(
                    source,
                    line,
                    format!(
                        "more than {limit} tasks, the most one admission holds; split the tasks and admit each part"
                    ),
                ),
            };
            self.failure = Some((line, None, error));
            self.drain();
            return None;
        }
        let columns = self.columns;
        let checked = parse_score(source, line, task_id, row.field(score)).and_then(|value| {
            let correct = match columns.correct {
                Some(c) => Some(parse_correct(source, line, task_id, row.field(c))?),
                None => None,
            };
            let answered = match columns.answered {
                Some(c) => Some(parse_answered(source, line, task_id, row.field(c))?),
                None => None,
            };
            let outcome = match columns.outcome {
                Some(c) => Some(parse_outcome(source, line, task_id, row.field(c))?),
                None => None,
            };
            Ok((value, correct, answered, outcome))
        });
        match checked {
            Ok((score, correct, answered, outcome)) => {
                let kept = &mut self.row;
                kept.line = line;
                kept.task.clear();
                kept.task.push_str(task_id);
                kept.score = score;
                kept.correct = correct;
                kept.answered = answered;
                kept.outcome = outcome;
                keep(
                    &mut kept.stratum,
                    columns.stratum.map(|c| trim(row.field(c))),
                );
                keep(&mut kept.group, columns.group.map(|c| trim(row.field(c))));
                let feedback = columns.feedback.filter(|_| self.feedback);
                keep(&mut kept.feedback, feedback.map(|c| row.field(c)));
                Some(&self.row)
            }
            Err(error) => {
                self.failure = Some((line, Some(task_id.to_string()), error));
                self.drain();
                None
            }
        }
    }

    /// Reads the rest of the file, counting its rows, for the reader's own errors.
    fn drain(&mut self) {
        self.ended = true;
        loop {
            match self.reader.next_row() {
                Ok(Some(_)) => self.rows += 1,
                Ok(None) => return,
                Err(error) => {
                    self.broken = Some(error);
                    return;
                }
            }
        }
    }

    /// Once the rows are read (the rest is read through now): the file's shape, or its
    /// error: the reader's, a missing `task_id` or `score` column, no rows, then the
    /// earliest row that repeats an earlier row's task (which `earliest_repeat` finds,
    /// given [`ScoreStream::failed`]) or else the row that failed.
    pub(crate) fn finish(
        mut self,
        earliest_repeat: impl FnOnce(Option<(u64, Option<&str>)>) -> Option<Repeat>,
    ) -> Result<Shape, InputError> {
        if !self.ended {
            self.drain();
        }
        if let Some(error) = self.broken {
            return Err(error);
        }
        require(&self.source, &self.headers, TASK_ID_COLUMN)?;
        require(&self.source, &self.headers, SCORE_COLUMN)?;
        if self.rows == 0 {
            return Err(InputError::NoRows { file: self.source });
        }
        let failed = self
            .failure
            .as_ref()
            .map(|(line, task, _)| (*line, task.as_deref()));
        if let Some(repeat) = earliest_repeat(failed) {
            return Err(repeat_error(&self.source, &repeat));
        }
        if let Some((_, _, error)) = self.failure {
            return Err(error);
        }
        Ok(Shape {
            rows: self.rows,
            has_correct: self.columns.correct.is_some(),
            has_stratum: self.columns.stratum.is_some(),
            has_answered: self.columns.answered.is_some(),
            has_outcome: self.columns.outcome.is_some(),
        })
    }
}
