//! Pairing while reading. The baseline's scores file becomes one pair per row (its
//! strings in one [`Texts`] buffer), put in task order once read, which also finds its
//! repeated tasks; the candidate's file then streams past them, each row completing
//! its pair, so the candidate's rows are never held. A candidate row is looked for in
//! the pair after the last one it filled, in the baseline's row order and in task
//! order, so files in either order pair without a lookup; a file in another order
//! gets an index from task to pair. [`Joined::pair`] checks that the two files (or the
//! task list) hold the same tasks and puts the pairs in task order.
//!
//! What a sort-and-merge of two whole files reported, this reports too, in the same
//! order: each file's own errors first (see
//! [`read_scores`](crate::scores::read_scores)), then a missing strata column, tasks
//! one file lacks, and the first task (by `task_id`) whose two rows name different
//! strata.

mod finish;
mod index;
mod order;
mod sinks;

use std::collections::BTreeMap;
use std::io::Read;

use self::index::{TaskIndex, tag};
use self::sinks::{BaselineSink, CandidateSink};
use super::pairing::Pair;
use crate::base::arena::{Text, Texts};
use crate::error::InputError;
use crate::scores::{Shape, read_score_rows};
use crate::table::scan::{RowScanner, Rows};

/// Which of the candidate's feedback to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Only that of pairs the candidate lost (by more than
    /// [`TIE_TOLERANCE`](crate::stats::TIE_TOLERANCE)): all the
    /// reports show without `pairs.csv`.
    Losses,
    /// Every row's, for `pairs.csv`.
    All,
}

/// How many recent strata or group values are looked up before a value is stored
/// again. Strata take a handful of values, and the rows of one group come together in
/// the files `score` writes, so nearly every row finds its value here; a value met
/// again after that is stored again, equal all the same.
const RECENT_VALUES: usize = 8;

/// A scores file as read: its path as given and what the read found.
#[derive(Debug, Clone)]
struct File {
    source: String,
    shape: Shape,
}

/// What both files' reads build: the pairs in the baseline's row order, their strings,
/// their task order, and (only when the candidate's rows come in neither order) an
/// index from task to pair.
#[derive(Debug, Default)]
struct Parts {
    strata: Option<String>,
    texts: Texts,
    pairs: Vec<Pair>,
    /// The pairs in task order, then row order.
    order: Vec<u32>,
    index: Option<TaskIndex>,
    /// The last few strata (0) and group (1) values stored.
    recent: [Vec<Text>; 2],
}

impl Parts {
    /// One stored copy of a strata (`column` 0) or group (1) value.
    fn intern(&mut self, column: usize, value: &str) -> Text {
        let recent = &mut self.recent[column];
        if let Some(known) = recent.iter().rev().find(|t| self.texts.get(**t) == value) {
            return *known;
        }
        let text = self.texts.push(value);
        if recent.len() == RECENT_VALUES {
            recent.remove(0);
        }
        recent.push(text);
        text
    }

    fn task(&self, pair: u32) -> &str {
        self.texts.get(self.pairs[pair as usize].task)
    }

    /// The pair of `task`. The pair at `next.0` in row order, and the one at `next.1`
    /// in task order, are tried first, and moved past when found; after that an index
    /// is built, once.
    fn find(&mut self, task: &str, next: &mut (usize, usize)) -> Option<u32> {
        if next.0 < self.pairs.len() && self.task(next.0 as u32) == task {
            next.0 += 1;
            return Some(next.0 as u32 - 1);
        }
        if let Some(&pair) = self.order.get(next.1)
            && self.task(pair) == task
        {
            next.1 += 1;
            return Some(pair);
        }
        let Parts {
            texts,
            pairs,
            index,
            ..
        } = self;
        let index = index.get_or_insert_with(|| {
            TaskIndex::build(pairs.len(), pairs.iter().map(|p| tag(texts.get(p.task))))
        });
        let found = index.find(tag(task), |p| texts.get(pairs[p as usize].task) == task)?;
        next.0 = found as usize + 1;
        Some(found)
    }
}

/// A baseline's scores file read into pairs that wait for their candidate.
#[derive(Debug)]
pub struct Baseline {
    parts: Parts,
    file: File,
}

impl Baseline {
    /// Reads the baseline's scores file. `strata` names the strata column (both files
    /// are read with the same); with `feedback` false its feedback is not kept (it
    /// appears only in `pairs.csv`). Time: O(n) expected; memory about 80 bytes per
    /// row plus its task id (and feedback).
    pub fn read<R: Read>(
        source: &str,
        input: R,
        strata: Option<&str>,
        feedback: bool,
    ) -> Result<Baseline, InputError> {
        Baseline::read_rows(
            source,
            &mut RowScanner::new(source, input)?,
            strata,
            feedback,
        )
    }

    /// [`Baseline::read`] on rows already started, e.g. by a reader on a thread of its
    /// own.
    pub fn read_rows(
        source: &str,
        rows: &mut impl Rows,
        strata: Option<&str>,
        feedback: bool,
    ) -> Result<Baseline, InputError> {
        let mut parts = Parts {
            strata: strata.map(str::to_string),
            ..Parts::default()
        };
        let mut sink = BaselineSink {
            parts: &mut parts,
            feedback,
        };
        let shape = read_score_rows(source, rows, strata, &mut sink)?;
        let file = File {
            source: source.to_string(),
            shape,
        };
        Ok(Baseline { parts, file })
    }

    /// Reads the candidate's scores file into the baseline's pairs, keeping the
    /// feedback `keep` says. Time: O(n) expected; memory: the feedback kept, and the
    /// tasks the baseline does not have.
    pub fn join<R: Read>(self, source: &str, input: R, keep: Keep) -> Result<Joined, InputError> {
        self.join_rows(source, &mut RowScanner::new(source, input)?, keep)
    }

    /// [`Baseline::join`] on rows already started, e.g. by a reader on a thread of its
    /// own.
    pub fn join_rows(
        self,
        source: &str,
        rows: &mut impl Rows,
        keep: Keep,
    ) -> Result<Joined, InputError> {
        let Baseline { mut parts, file } = self;
        let strata = parts.strata.clone();
        let mut sink = CandidateSink {
            parts: &mut parts,
            keep,
            baseline_has_stratum: file.shape.has_stratum,
            next: (0, 0),
            extras: BTreeMap::new(),
            disagreements: Vec::new(),
        };
        let shape = read_score_rows(source, rows, strata.as_deref(), &mut sink)?;
        let (extras, disagreements) = (sink.extras, sink.disagreements);
        Ok(Joined {
            parts,
            baseline: file,
            candidate: File {
                source: source.to_string(),
                shape,
            },
            extras,
            disagreements,
        })
    }
}

/// Both files read: every baseline task with the candidate's row where it had one.
#[derive(Debug)]
pub struct Joined {
    parts: Parts,
    baseline: File,
    candidate: File,
    extras: BTreeMap<String, u64>,
    disagreements: Vec<(usize, u64, String)>,
}

/// One task of either file, as [`Joined::tasks`] gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct JoinedTask<'a> {
    /// Its id.
    pub task: &'a str,
    /// The baseline's `group` for it (none for a task only the candidate has).
    pub group: Option<&'a str>,
    /// Its row in the baseline's file, 0 when the baseline lacks it.
    pub baseline_line: u64,
    /// Its row in the candidate's file, 0 when the candidate lacks it.
    pub candidate_line: u64,
}

impl Joined {
    /// Every task either file holds, the baseline's in its row order and then the
    /// candidate's own: for reading a task list against the files before pairing on it
    /// (a list that names items whose rows are repeats). Time: O(n).
    pub(crate) fn tasks(&self) -> impl Iterator<Item = JoinedTask<'_>> {
        let texts = &self.parts.texts;
        let baseline = self.parts.pairs.iter().map(|pair| JoinedTask {
            task: texts.get(pair.task),
            group: pair.group.map(|g| texts.get(g)),
            baseline_line: pair.baseline.line,
            candidate_line: pair.candidate.line,
        });
        let candidate = self.extras.iter().map(|(task, &line)| JoinedTask {
            task,
            group: None,
            baseline_line: 0,
            candidate_line: line,
        });
        baseline.chain(candidate)
    }

    /// The baseline's and the candidate's files as given.
    pub(crate) fn sources(&self) -> (&str, &str) {
        (&self.baseline.source, &self.candidate.source)
    }
}
