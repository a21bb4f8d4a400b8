//! The files the join reads, as [`Source`]s: a scores file ([`ScoreStream`]), the task
//! list (`--tasks`, [`ListSource`]) and the holdout a manifest recorded
//! ([`HoldSource`], fed by the manifest's reader on a thread of its own).

use std::sync::mpsc::Receiver;

use super::engine::Source;
use crate::admission::recorded::IdBatch;
use crate::error::InputError;
use crate::scores::{ScoreRow, ScoreStream, TASK_ID_COLUMN};
use crate::table::scan::Rows;
use crate::table::{column, require};

impl<R: Rows> Source for ScoreStream<'_, R> {
    fn next(&mut self) -> Option<&ScoreRow> {
        self.next_row(|_, _| Ok(()))
    }

    fn upcoming(&self, k: usize) -> Option<&str> {
        ScoreStream::upcoming(self, k)
    }
}

/// The task list's rows: each row's trimmed `task_id` and line. Its errors wait for
/// [`ListSource::finish`], where they come in the order reading the list whole met
/// them: the reader's, a missing `task_id` column, no rows.
pub(crate) struct ListSource<'r, R: Rows> {
    source: String,
    reader: Option<&'r mut R>,
    id: Option<usize>,
    headers: Vec<String>,
    rows: usize,
    broken: Option<InputError>,
    row: ScoreRow,
}

impl<'r, R: Rows> ListSource<'r, R> {
    /// The list read from `reader` (its header read), or the error its header met.
    pub(crate) fn new(source: &str, reader: Result<&'r mut R, InputError>) -> ListSource<'r, R> {
        let (reader, broken) = match reader {
            Ok(reader) => (Some(reader), None),
            Err(error) => (None, Some(error)),
        };
        let headers = reader
            .as_ref()
            .map_or_else(Vec::new, |r| r.headers().to_vec());
        ListSource {
            source: source.to_string(),
            id: column(&headers, TASK_ID_COLUMN),
            reader,
            headers,
            rows: 0,
            broken,
            row: ScoreRow::default(),
        }
    }

    /// Whether the list can decide the tasks: it opened and has a `task_id` column.
    pub(crate) fn usable(&self) -> bool {
        self.reader.is_some() && self.id.is_some()
    }

    /// Reads what is left of the list; its rows, or its error.
    pub(crate) fn finish(mut self) -> Result<usize, InputError> {
        while self.next_row().is_some() {}
        if let Some(error) = self.broken {
            return Err(error);
        }
        require(&self.source, &self.headers, TASK_ID_COLUMN)?;
        if self.rows == 0 {
            return Err(InputError::NoRows { file: self.source });
        }
        Ok(self.rows)
    }

    /// The next row; without a `task_id` column the rows are read through for the
    /// reader's errors and none is handed out.
    fn next_row(&mut self) -> Option<&ScoreRow> {
        loop {
            let reader = self.reader.as_mut()?;
            match reader.next_row() {
                Ok(Some(row)) => {
                    self.rows += 1;
                    if let Some(id) = self.id {
                        self.row.line = row.line;
                        self.row.task.clear();
                        self.row.task.push_str(row.field(id).trim());
                        return Some(&self.row);
                    }
                }
                Ok(None) => {
                    self.reader = None;
                    return None;
                }
                Err(error) => {
                    self.broken = Some(error);
                    self.reader = None;
                    return None;
                }
            }
        }
    }
}

impl<R: Rows> Source for ListSource<'_, R> {
    fn next(&mut self) -> Option<&ScoreRow> {
        self.id?;
        self.next_row()
    }
}

/// The holdout's task ids, in the manifest's order, as its reader sends them in
/// batches; the reader's verdict on the manifest comes separately.
pub(crate) struct HoldSource {
    batches: Receiver<IdBatch>,
    batch: IdBatch,
    /// The next id of `batch` to hand out.
    at: usize,
    row: ScoreRow,
}

impl HoldSource {
    /// The ids `batches` brings.
    pub(crate) fn new(batches: Receiver<IdBatch>) -> HoldSource {
        HoldSource {
            batches,
            batch: IdBatch::default(),
            at: 0,
            row: ScoreRow::default(),
        }
    }
}

impl Source for HoldSource {
    fn next(&mut self) -> Option<&ScoreRow> {
        loop {
            if let Some(id) = self.batch.get(self.at) {
                self.at += 1;
                self.row.task.clear();
                self.row.task.push_str(id);
                return Some(&self.row);
            }
            self.batch = self.batches.recv().ok()?;
            self.at = 0;
        }
    }
}
