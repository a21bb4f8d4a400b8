//! One row per task, checked without holding the tasks: the join keeps an 8-byte
//! fingerprint of every task it hands over, with the files the task was in
//! ([`Fingerprints`]). A task can only repeat in a file when its fingerprint came twice
//! from that file (in two tasks handed over, or as a row dropped for meeting a waiting
//! row of its own file); only then is the file read again, its rows with those
//! fingerprints compared by their task ids, and the earliest repeat named with both
//! rows, exactly as a reading that held every task would have. With an index of the
//! task list and the holdout ([`TaskIndex`]), a task it has leaves its mark in its
//! entry instead (see [`super::index`]).

use super::index::TaskIndex;
use super::presumed::Presumed;
use super::{HOLD, SIDES};
use crate::base::hash::{FastMap, FastSet, fingerprint};
use crate::error::InputError;
use crate::scores::{Repeat, TASK_ID_COLUMN, trim};
use crate::table::scan::RowScanner;
use crate::table::{Reopen, column};

/// A fingerprint as kept: its top four bits dropped, to make room for the files.
fn canonical(print: u64) -> u64 {
    print << 4 >> 4
}

/// The fingerprints of the tasks met.
#[derive(Debug, Default)]
pub(super) struct Fingerprints {
    /// One per task handed over: its fingerprint shifted past four bits that say which
    /// files it was in.
    tasks: Vec<u64>,
    /// Each file's fingerprints that may be repeated tasks.
    suspects: [FastSet<u64>; SIDES],
    /// Whether some task's fingerprint came twice from the holdout.
    holdout_repeats: bool,
    /// The task list's and the holdout's tasks, when read first.
    pub(super) index: Option<TaskIndex>,
    /// Or the presumption that they are the scores files' tasks.
    pub(super) presumed: Option<Presumed>,
}

impl Fingerprints {
    /// A task handed over, with the files it was in (one bit each).
    pub(super) fn task(&mut self, print: u64, mask: u8) {
        self.tasks.push(print << 4 | u64::from(mask));
    }

    /// A row of `side` that met another of its file with its task.
    pub(super) fn suspect(&mut self, side: usize, print: u64) {
        self.suspects[side].insert(canonical(print));
    }

    /// Once every task is in: marks every fingerprint that came twice from one file.
    pub(super) fn settle(&mut self) {
        self.tasks.sort_unstable();
        let mut at = 0;
        while at < self.tasks.len() {
            let print = self.tasks[at] >> 4;
            let mut end = at;
            let mut counts = [0_u32; SIDES];
            while end < self.tasks.len() && self.tasks[end] >> 4 == print {
                for (side, count) in counts.iter_mut().enumerate() {
                    *count += u32::from(self.tasks[end] >> side & 1 == 1);
                }
                end += 1;
            }
            for (side, &count) in counts.iter().enumerate() {
                if count > 1 {
                    if side == HOLD {
                        self.holdout_repeats = true;
                    } else {
                        self.suspects[side].insert(print);
                    }
                }
            }
            at = end;
        }
    }

    /// Whether some scores file may repeat a task (a fingerprint seen twice from it, or
    /// a row dropped for meeting a waiting row of its own file). Call
    /// [`Fingerprints::settle`] first.
    pub(super) fn suspects_any(&self) -> bool {
        self.suspects.iter().any(|suspects| !suspects.is_empty())
    }

    /// Whether the holdout may name a task twice (then the holdout check is made again
    /// on sorted files, where its repeats meet).
    pub(super) fn holdout_repeats(&self) -> bool {
        self.holdout_repeats
    }

    /// Whether a task with fingerprint `print` was met in `side`'s file, as far as the
    /// fingerprints tell: `false` is certain.
    fn met(&self, side: usize, print: u64) -> bool {
        let print = canonical(print);
        let from = self.tasks.partition_point(|&t| t >> 4 < print);
        self.tasks[from..]
            .iter()
            .take_while(|&&t| t >> 4 == print)
            .any(|&t| t >> side & 1 == 1)
            || self.suspects[side].contains(&print)
            || self.index.as_ref().is_some_and(|i| i.met(side, print))
    }

    /// The earliest row of `side`'s file that repeats an earlier row's task, given the
    /// first row that failed (with its task when it has one: that row counts too), as
    /// `ScoreStream::finish` asks for it. Reads the file again (`reopen`) only when a
    /// fingerprint was seen twice. Call [`Fingerprints::settle`] first.
    pub(super) fn earliest_repeat(
        &self,
        side: usize,
        source: &str,
        failed: Option<(u64, Option<&str>)>,
        reopen: Reopen<'_>,
    ) -> Result<Option<Repeat>, InputError> {
        let mut suspects = self.suspects[side].clone();
        if let Some((_, Some(task))) = failed {
            let print = canonical(fingerprint(task));
            if self.met(side, print) {
                suspects.insert(print);
            }
        }
        if suspects.is_empty() {
            return Ok(None);
        }
        let io = |error: std::io::Error| InputError::Io {
            file: source.to_string(),
            message: format!("reading it again to name a repeated task: {error}"),
        };
        let mut rows = RowScanner::new(source, reopen().map_err(io)?)?;
        let Some(id) = column(rows.headers(), TASK_ID_COLUMN) else {
            return Ok(None);
        };
        let mut first: FastMap<String, u64> = FastMap::default();
        while let Some(row) = rows.next_row()? {
            let task = trim(row.field(id));
            let counts = match failed {
                Some((line, with_task)) => {
                    row.line < line || (row.line == line && with_task.is_some())
                }
                None => true,
            };
            if !counts {
                break;
            }
            if !suspects.contains(&canonical(fingerprint(task))) {
                continue;
            }
            if let Some(&earlier) = first.get(task) {
                return Ok(Some(Repeat {
                    line: row.line,
                    first: earlier,
                    task: task.to_string(),
                }));
            }
            first.insert(task.to_string(), row.line);
        }
        Ok(None)
    }
}
