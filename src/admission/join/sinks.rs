//! Where the rows of the two scores files go as they are read: the baseline's each
//! become a pair, the candidate's each complete one.

use std::collections::BTreeMap;

use super::order::task_order;
use super::{Keep, Parts};
use crate::admission::pairing::{Pair, Side};
use crate::scores::{Refusal, Repeat, Sink, Values};
use crate::stats::TIE_TOLERANCE;

/// No side yet.
pub(super) const UNSCORED: Side = Side {
    line: 0,
    score: 0.0,
    correct: None,
    answered: true,
    feedback: None,
    outcome: None,
};

/// The baseline's rows as they arrive.
pub(super) struct BaselineSink<'a> {
    pub(super) parts: &'a mut Parts,
    pub(super) feedback: bool,
}

impl Sink for BaselineSink<'_> {
    type Slot = usize;

    /// Every row gets a pair; repeats are found once the file is read.
    fn claim(&mut self, task: &str, line: u64) -> Result<usize, Refusal> {
        let parts = &mut *self.parts;
        let number = parts.pairs.len();
        // Pair numbers are `u32`, and the index keeps number + 1.
        if number >= u32::MAX as usize {
            return Err(Refusal::TooMany(number as u64));
        }
        let task = parts.texts.push(task);
        parts.pairs.push(Pair {
            task,
            stratum: None,
            group: None,
            baseline: Side { line, ..UNSCORED },
            candidate: UNSCORED,
        });
        Ok(number)
    }

    fn fill(&mut self, slot: usize, values: &Values<'_>) {
        let stratum = values.stratum.map(|s| self.parts.intern(0, s));
        let group = values.group.map(|g| self.parts.intern(1, g));
        let feedback = match values.feedback {
            Some(text) if self.feedback => Some(self.parts.texts.push(text)),
            _ => None,
        };
        let pair = &mut self.parts.pairs[slot];
        pair.stratum = stratum;
        pair.group = group;
        pair.baseline.score = values.score;
        pair.baseline.correct = values.correct;
        pair.baseline.answered = values.answered.unwrap_or(true);
        pair.baseline.outcome = values.outcome;
        pair.baseline.feedback = feedback;
    }

    /// Puts the pairs in task order, where a repeated task's rows are neighbours.
    fn earliest_repeat(&mut self, failed: Option<(u64, Option<&str>)>) -> Option<Repeat> {
        let parts = &mut *self.parts;
        // A row whose values failed got its pair before they were checked.
        if let Some((line, Some(_))) = failed
            && parts.pairs.last().is_some_and(|p| p.baseline.line == line)
        {
            parts.pairs.pop();
        }
        let (order, neighbours) = task_order(&parts.texts, &parts.pairs);
        parts.order = order;
        let line = |pair: u32| parts.pairs[pair as usize].baseline.line;
        // Every row with a pair comes before the row that failed.
        let earliest = neighbours
            .into_iter()
            .filter(|w| parts.task(w.0) == parts.task(w.1))
            .min_by_key(|w| line(w.1));
        if let Some((first, repeat)) = earliest {
            let task = parts.task(first).to_string();
            return Some(Repeat {
                line: line(repeat),
                first: line(first),
                task,
            });
        }
        let (failed, Some(task)) = failed? else {
            return None;
        };
        let at = parts.order.partition_point(|&p| parts.task(p) < task);
        let first = *parts.order.get(at).filter(|&&p| parts.task(p) == task)?;
        Some(Repeat {
            line: failed,
            first: line(first),
            task: task.to_string(),
        })
    }
}

/// Where a candidate row goes.
pub(super) enum Slot {
    /// Into this pair.
    Pair(usize),
    /// Nowhere: the baseline lacks its task (kept in `extras` for the error).
    Extra,
}

/// The candidate's rows as they arrive.
pub(super) struct CandidateSink<'a> {
    pub(super) parts: &'a mut Parts,
    pub(super) keep: Keep,
    pub(super) baseline_has_stratum: bool,
    /// Where to look first: the pair after the last one filled, in row order and in
    /// task order.
    pub(super) next: (usize, usize),
    /// Tasks the baseline lacks, with their rows.
    pub(super) extras: BTreeMap<String, u64>,
    /// Pairs whose candidate row names another stratum: pair, row, value.
    pub(super) disagreements: Vec<(usize, u64, String)>,
}

impl Sink for CandidateSink<'_> {
    type Slot = Slot;

    fn claim(&mut self, task: &str, line: u64) -> Result<Slot, Refusal> {
        let Some(pair) = self.parts.find(task, &mut self.next) else {
            if let Some(&first) = self.extras.get(task) {
                return Err(Refusal::Repeat(first));
            }
            self.extras.insert(task.to_string(), line);
            return Ok(Slot::Extra);
        };
        let pair = pair as usize;
        let side = &mut self.parts.pairs[pair].candidate;
        if side.line != 0 {
            return Err(Refusal::Repeat(side.line));
        }
        side.line = line;
        Ok(Slot::Pair(pair))
    }

    fn fill(&mut self, slot: Slot, values: &Values<'_>) {
        let Slot::Pair(at) = slot else { return };
        let pair = self.parts.pairs[at];
        let lost = values.score - pair.baseline.score < -TIE_TOLERANCE;
        let feedback = match (values.feedback, self.keep) {
            (Some(text), Keep::All) => Some(self.parts.texts.push(text)),
            (Some(text), Keep::Losses) if lost => Some(self.parts.texts.push(text)),
            _ => None,
        };
        let mut stratum = pair.stratum;
        match (values.stratum, pair.stratum) {
            (Some(value), Some(own)) if self.baseline_has_stratum => {
                if self.parts.texts.get(own) != value {
                    self.disagreements
                        .push((at, values.line, value.to_string()));
                }
            }
            (Some(value), _) => stratum = Some(self.parts.intern(0, value)),
            (None, _) => {}
        }
        let group = match (pair.group, values.group) {
            (None, Some(value)) => Some(self.parts.intern(1, value)),
            (own, _) => own,
        };
        let pair = &mut self.parts.pairs[at];
        pair.stratum = stratum;
        pair.group = group;
        pair.candidate.score = values.score;
        pair.candidate.correct = values.correct;
        pair.candidate.answered = values.answered.unwrap_or(true);
        pair.candidate.outcome = values.outcome;
        pair.candidate.feedback = feedback;
    }
}
