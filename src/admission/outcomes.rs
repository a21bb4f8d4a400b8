//! How each arm's answers came out: the pairs counted by the `outcome` column that
//! `score` writes, so a report tells a candidate that answers less (invalid, abstained,
//! unanswered) from one that answers worse (wrong). Reported beside the test, never
//! tested: the verdict rests on `correct` or `score` alone.

use serde::Serialize;

use super::pairing::{Pairs, Side};
use crate::scores::ScoredOutcome;

/// One arm's pairs by outcome. The fields are the outcomes, in the order reports list
/// them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OutcomeCounts {
    /// The expected answer alone.
    pub right: u64,
    /// The expected answer among others (credit 1/k among k).
    pub hedged: u64,
    /// Partial credit.
    pub partial: u64,
    /// Only other answers.
    pub wrong: u64,
    /// Nothing the grader could read as an answer (no candidate, an expression, a list).
    pub invalid: u64,
    /// A refusal, or "I don't know".
    pub abstained: u64,
    /// No output, or an error instead of one (`score --allow-missing`).
    pub unanswered: u64,
}

impl OutcomeCounts {
    /// Every outcome with its count, in report order.
    pub fn each(&self) -> [(&'static str, u64); 7] {
        ScoredOutcome::ALL.map(|outcome| (outcome.name(), self.of(outcome)))
    }

    fn of(&self, outcome: ScoredOutcome) -> u64 {
        match outcome {
            ScoredOutcome::Right => self.right,
            ScoredOutcome::Hedged => self.hedged,
            ScoredOutcome::Partial => self.partial,
            ScoredOutcome::Wrong => self.wrong,
            ScoredOutcome::Invalid => self.invalid,
            ScoredOutcome::Abstained => self.abstained,
            ScoredOutcome::Unanswered => self.unanswered,
        }
    }

    pub(crate) fn add(&mut self, outcome: ScoredOutcome) {
        let count = match outcome {
            ScoredOutcome::Right => &mut self.right,
            ScoredOutcome::Hedged => &mut self.hedged,
            ScoredOutcome::Partial => &mut self.partial,
            ScoredOutcome::Wrong => &mut self.wrong,
            ScoredOutcome::Invalid => &mut self.invalid,
            ScoredOutcome::Abstained => &mut self.abstained,
            ScoredOutcome::Unanswered => &mut self.unanswered,
        };
        *count += 1;
    }
}

/// The baseline's and the candidate's pairs by outcome, each when its file has the
/// `outcome` column. Time: O(pairs).
pub(crate) fn count(pairs: &Pairs) -> (Option<OutcomeCounts>, Option<OutcomeCounts>) {
    let arm = |has: bool, side: fn(&super::Pair) -> &Side| {
        has.then(|| {
            let mut counts = OutcomeCounts::default();
            for outcome in pairs.pairs.iter().filter_map(|pair| side(pair).outcome) {
                counts.add(outcome);
            }
            counts
        })
    };
    (
        arm(pairs.baseline_has_outcome, |pair| &pair.baseline),
        arm(pairs.candidate_has_outcome, |pair| &pair.candidate),
    )
}
