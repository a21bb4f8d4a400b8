//! The pairs the candidate lost that a report shows: the largest losses first, then by
//! task, at most [`SHOWN_LOSSES`] of them, with the grader's feedback on the candidate's
//! answer.

use serde::Serialize;

use super::pairing::Pairs;
use crate::stats::TIE_TOLERANCE;

/// How many of the candidate's losses a report lists.
pub const SHOWN_LOSSES: usize = 10;

/// A pair the candidate lost: it scored lower than the baseline.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Loss {
    /// The task.
    pub task_id: String,
    /// Its stratum, when stratified.
    pub stratum: Option<String>,
    /// The baseline's score.
    pub baseline_score: f64,
    /// The candidate's score.
    pub candidate_score: f64,
    /// The grader's feedback on the candidate's answer (untrusted: it may quote the
    /// model), when the file has it.
    pub candidate_feedback: Option<String>,
}

/// The largest losses of `pairs`, then by task. Time: O(n) comparisons of numbers.
pub(crate) fn largest_losses(pairs: &Pairs) -> Vec<Loss> {
    // Largest loss first, then by task: a total order (tasks are unique). Pairs come in
    // task order, so among equal losses the earlier pair goes first, and the ten are
    // kept in one walk that compares numbers only.
    let mut lost: Vec<(f64, usize)> = Vec::with_capacity(SHOWN_LOSSES + 1);
    for (at, pair) in pairs.pairs.iter().enumerate() {
        let difference = pair.difference();
        let shown = |&(kept, _): &(f64, usize)| kept.total_cmp(&difference).is_le();
        if difference < -TIE_TOLERANCE
            && (lost.len() < SHOWN_LOSSES || !lost.last().is_some_and(shown))
        {
            lost.insert(lost.partition_point(shown), (difference, at));
            lost.truncate(SHOWN_LOSSES);
        }
    }
    lost.into_iter()
        .map(|(_, at)| &pairs.pairs[at])
        .map(|p| Loss {
            task_id: pairs.task(p).to_string(),
            stratum: pairs.stratum(p).map(str::to_string),
            baseline_score: p.baseline.score,
            candidate_score: p.candidate.score,
            candidate_feedback: pairs.feedback(&p.candidate).map(str::to_string),
        })
        .collect()
}
