//! What `admit` keeps of the tasks as they are joined: the sufficient statistics, the
//! ten largest losses, each arm's unanswered tasks, the first stratum disagreement,
//! the tasks a file lacks, the holdout's missing and extra tasks, and (for a report
//! folder) every pair, sorted outside memory. Each figure is a count, a sum or the
//! first few by task, so the order the tasks come in changes nothing, and each list
//! holds a few entries however many tasks there are.

use std::io;

use super::engine::TaskSink;
use super::{BASE, CAND, HOLD, LIST, SIDES};
use crate::admission::losses::{Loss, SHOWN_LOSSES};
use crate::admission::outcomes::OutcomeCounts;
use crate::admission::repeats::repeat_in;
use crate::admission::rows::{PairSorter, PairView, SideView};
use crate::admission::sufficient::Accumulator;
use crate::scores::ScoreRow;
use crate::stats::TIE_TOLERANCE;

/// How many tasks a gap names.
const SHOWN_GAP: usize = 5;
/// How many unanswered tasks an arm names.
const SHOWN_UNANSWERED: usize = 5;
/// How many holdout tasks the holdout check names.
const SHOWN_HOLDOUT: usize = 3;

/// The first few of a set by order, and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct First<T: Ord> {
    /// How many.
    pub count: usize,
    /// The least few, in order.
    pub first: Vec<T>,
    most: usize,
}

impl<T: Ord> First<T> {
    fn new(most: usize) -> First<T> {
        First {
            count: 0,
            first: Vec::new(),
            most,
        }
    }

    /// Counts `item`, made only when it is among the least few.
    fn add(&mut self, item: impl FnOnce() -> T, below: impl Fn(&T) -> bool) {
        self.count += 1;
        if self.first.len() == self.most && self.first.last().is_some_and(|last| !below(last)) {
            return;
        }
        let item = item();
        let at = self.first.partition_point(|kept| kept < &item);
        self.first.insert(at, item);
        self.first.truncate(self.most);
    }
}

/// What the join must know before the first task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Plan {
    /// Whether the pairs are stratified.
    pub stratified: bool,
    /// Whether the baseline has the strata column (its value is the pair's).
    pub baseline_has_stratum: bool,
    /// Whether the candidate has it.
    pub candidate_has_stratum: bool,
    /// Whether a task list decides the tasks used.
    pub listed: bool,
    /// Whether a holdout is checked.
    pub recorded: bool,
}

/// A stratum disagreement: task, the baseline's row and value, the candidate's.
pub(crate) type Disagreeing = (String, u64, String, u64, String);

/// What was kept of the tasks.
pub(super) struct Collector<'s> {
    pub plan: Plan,
    pub sums: Accumulator,
    /// Pairs used.
    pub n: u64,
    /// Both arms' correct on every pair used.
    pub both_correct: bool,
    /// The losses shown: difference, task, then the loss.
    pub losses: Vec<(f64, Loss)>,
    /// Each arm's pairs by outcome (of the rows with one).
    pub outcomes: [OutcomeCounts; 2],
    /// Whether a scores file holds a repeat of an item.
    pub repeats: bool,
    /// Each arm's unanswered tasks.
    pub unanswered: [First<String>; 2],
    /// The first disagreement by task.
    pub disagreement: Option<Disagreeing>,
    /// Without a task list: the baseline's tasks the candidate lacks, and the
    /// candidate's the baseline lacks, with their rows.
    pub lacking: [First<(String, u64)>; 2],
    /// With a task list: its tasks the baseline lacks, and those only the baseline
    /// has, with the list's rows.
    pub not_scored: [First<(String, u64)>; 2],
    /// Holdout tasks not used, and tasks used that are not in the holdout.
    pub missing: First<String>,
    pub extra: First<String>,
    /// Distinct holdout tasks.
    pub recorded: u64,
    /// Every pair used, for `pairs.csv`.
    pub rows: Option<PairSorter<'s>>,
}

impl<'s> Collector<'s> {
    pub(super) fn new(plan: Plan, rows: Option<PairSorter<'s>>) -> Collector<'s> {
        Collector {
            plan,
            sums: Accumulator::new(plan.stratified),
            n: 0,
            both_correct: true,
            losses: Vec::with_capacity(SHOWN_LOSSES + 1),
            outcomes: Default::default(),
            repeats: false,
            unanswered: [First::new(SHOWN_UNANSWERED), First::new(SHOWN_UNANSWERED)],
            disagreement: None,
            lacking: [First::new(SHOWN_GAP), First::new(SHOWN_GAP)],
            not_scored: [First::new(SHOWN_GAP), First::new(SHOWN_GAP)],
            missing: First::new(SHOWN_HOLDOUT),
            extra: First::new(SHOWN_HOLDOUT),
            recorded: 0,
            rows,
        }
    }

    fn pair(&mut self, b: &ScoreRow, c: &ScoreRow, in_holdout: bool) -> io::Result<()> {
        let task = b.task.as_str();
        self.n += 1;
        let stratum = if self.plan.baseline_has_stratum {
            b.stratum()
        } else {
            c.stratum()
        };
        if self.plan.baseline_has_stratum
            && let (Some(own), Some(value)) = (b.stratum(), c.stratum())
            && own != value
            && self
                .disagreement
                .as_ref()
                .is_none_or(|d| task < d.0.as_str())
        {
            self.disagreement = Some((
                task.to_string(),
                b.line,
                own.to_string(),
                c.line,
                value.to_string(),
            ));
        }
        let group = b.group().or(c.group());
        for (arm, row) in [(BASE, b), (CAND, c)] {
            if let Some(outcome) = row.outcome {
                self.outcomes[arm].add(outcome);
            }
        }
        let correct = b.correct.zip(c.correct);
        self.both_correct &= correct.is_some();
        self.sums.add(stratum, group, (b.score, c.score), correct);
        let difference = c.score - b.score;
        if difference < -TIE_TOLERANCE {
            self.loss(difference, task, stratum, b, c);
        }
        for (arm, row) in [(BASE, b), (CAND, c)] {
            if !row.answered.unwrap_or(true) {
                self.unanswered[arm].add(|| task.to_string(), |last| task < last.as_str());
            }
        }
        if self.plan.recorded && !in_holdout {
            self.extra
                .add(|| task.to_string(), |last| task < last.as_str());
        }
        if let Some(rows) = &mut self.rows {
            rows.push(&PairView {
                task,
                group,
                stratum,
                baseline: side_view(b),
                candidate: side_view(c),
            })?;
        }
        Ok(())
    }

    /// Keeps the loss when it is among the largest: by difference, then by task.
    fn loss(
        &mut self,
        difference: f64,
        task: &str,
        stratum: Option<&str>,
        b: &ScoreRow,
        c: &ScoreRow,
    ) {
        let before = |kept: &(f64, Loss)| {
            kept.0
                .total_cmp(&difference)
                .then_with(|| kept.1.task_id.as_str().cmp(task))
                .is_lt()
        };
        if self.losses.len() == SHOWN_LOSSES && self.losses.last().is_some_and(before) {
            return;
        }
        let at = self.losses.partition_point(before);
        self.losses.insert(
            at,
            (
                difference,
                Loss {
                    task_id: task.to_string(),
                    stratum: stratum.map(str::to_string),
                    baseline_score: b.score,
                    candidate_score: c.score,
                    candidate_feedback: c.feedback().map(str::to_string),
                },
            ),
        );
        self.losses.truncate(SHOWN_LOSSES);
    }
}

/// One side of a pair, as `pairs.csv` shows it.
fn side_view(row: &ScoreRow) -> SideView<'_> {
    SideView {
        score: row.score,
        correct: row.correct,
        feedback: row.feedback(),
    }
}

impl TaskSink for Collector<'_> {
    fn task(&mut self, rows: [Option<&ScoreRow>; SIDES]) -> io::Result<()> {
        let task = rows
            .iter()
            .flatten()
            .next()
            .map_or("", |row| row.task.as_str());
        // A repeat of an item in either scores file, paired or not (a task list or a
        // holdout may name its items).
        self.repeats |= [rows[BASE], rows[CAND]]
            .into_iter()
            .flatten()
            .any(|row| row.group().is_some() && repeat_in(&row.task, row.group()).is_some());
        let in_holdout = rows[HOLD].is_some();
        if in_holdout {
            self.recorded += 1;
        }
        let listed = !self.plan.listed || rows[LIST].is_some();
        let used = listed && rows[BASE].is_some() && rows[CAND].is_some();
        if let (true, Some(b), Some(c)) = (used, rows[BASE], rows[CAND]) {
            return self.pair(b, c, in_holdout);
        }
        if in_holdout {
            self.missing
                .add(|| task.to_string(), |last| task < last.as_str());
        }
        let gap = |first: &mut First<(String, u64)>, line: u64| {
            first.add(
                || (task.to_string(), line),
                |last| (task, line) < (last.0.as_str(), last.1),
            );
        };
        match (self.plan.listed, rows[LIST], rows[BASE], rows[CAND]) {
            (false, _, Some(b), None) => gap(&mut self.lacking[0], b.line),
            (false, _, None, Some(c)) => gap(&mut self.lacking[1], c.line),
            (true, Some(l), None, _) => gap(&mut self.not_scored[0], l.line),
            (true, Some(l), Some(_), None) => gap(&mut self.not_scored[1], l.line),
            _ => {}
        }
        Ok(())
    }
}
