//! The end of a streamed pairing: the task list's and the strata's checks, the tasks a
//! file lacks, a stratum disagreement, in the order [`Joined::pair`](super::super::Joined::pair)
//! reports them; then the decision on what was kept, as
//! [`decide`](super::super::decide) takes it on held pairs.

use super::collect::First;
use super::{Kept, StreamJoined};
use crate::admission::answers::answers_finding;
use crate::admission::config::Config;
use crate::admission::decide::decide_on;
use crate::admission::holdout::holdout_finding;
use crate::admission::losses::Loss;
use crate::admission::outcomes::OutcomeCounts;
use crate::admission::pairing::{
    Basis, Disagreement, Gap, PairingError, StrataChoice, StrataRequest,
};
use crate::admission::recorded::Recorded;
use crate::admission::rows::SortedPairs;
use crate::admission::sufficient::{Pairing, Statistics, Strata};
use crate::admission::{Admission, Finding};

/// Pairs read as streams, paired: what the decision and the report need of them.
pub(crate) struct Streamed {
    /// The sufficient statistics.
    pub statistics: Statistics,
    /// Whether every pair has `correct` on both sides.
    pub both_correct: bool,
    has_answered: [bool; 2],
    /// Each arm's pairs by outcome, when its file has the `outcome` column.
    outcomes: [Option<OutcomeCounts>; 2],
    unanswered: [First<String>; 2],
    n: u64,
    missing: First<String>,
    extra: First<String>,
    recorded: u64,
    losses: Vec<Loss>,
    /// Every pair, in task order, when kept for `pairs.csv`.
    pub rows: Option<SortedPairs>,
}

fn gap(file: &str, other: &str, lacking: First<(String, u64)>) -> Option<Gap> {
    (lacking.count > 0).then(|| Gap {
        file: file.to_string(),
        other: other.to_string(),
        count: lacking.count,
        first: lacking.first,
    })
}

impl StreamJoined {
    /// The pairs on the task list when one was given (its rows `listed`), else on both
    /// files' tasks; the errors of [`Joined::pair`](super::super::Joined::pair) for the
    /// same files, in its order. Call once every file's own error was reported.
    pub(crate) fn pair(
        self,
        strata: Option<&StrataRequest>,
        listed: Option<usize>,
    ) -> Result<Streamed, PairingError> {
        let StreamJoined {
            files,
            list,
            sources: [baseline, candidate],
            has_stratum,
            has_correct,
            has_answered,
            has_outcome,
            kept,
            ..
        } = self;
        let rows = files.map(|f| f.map_or(0, |shape| shape.rows));
        let present = has_stratum[0] || has_stratum[1];
        let column = strata.filter(|_| present).map(|r| r.column.as_str());
        let strata_column = match StrataRequest::choose(strata, column) {
            StrataChoice::By(column) => Some(column.to_string()),
            StrataChoice::Unstratified => None,
            StrataChoice::Missing(request) => {
                return Err(PairingError::NoStrataColumn {
                    column: request.column.clone(),
                    baseline,
                    candidate,
                });
            }
        };
        let Kept {
            plan,
            statistics: (overall, sets, clusters),
            n,
            both_correct,
            losses,
            outcomes,
            unanswered,
            disagreement,
            lacking,
            not_scored,
            missing,
            extra,
            recorded,
            rows: kept_rows,
        } = kept;
        let basis = match (list, listed) {
            (Some((source, _)), Some(count)) if plan.listed => {
                let [absent, unscored] = not_scored;
                if let Some(gap) = gap(&baseline, &source, absent) {
                    return Err(PairingError::NotScored(gap));
                }
                if let Some(gap) = gap(&candidate, &source, unscored) {
                    return Err(PairingError::NotScored(gap));
                }
                Basis::TaskList {
                    source,
                    ignored_baseline: rows[0] - count,
                    ignored_candidate: rows[1] - count,
                }
            }
            _ => {
                let [candidate_lacks, baseline_lacks] = lacking;
                let gaps: Vec<Gap> = [
                    gap(&candidate, &baseline, candidate_lacks),
                    gap(&baseline, &candidate, baseline_lacks),
                ]
                .into_iter()
                .flatten()
                .collect();
                if !gaps.is_empty() {
                    return Err(PairingError::DifferentTasks(gaps));
                }
                Basis::SameTasks
            }
        };
        if let Some((task, b_line, own, c_line, value)) = disagreement {
            return Err(PairingError::StratumDisagrees(Box::new(Disagreement {
                task,
                column: strata_column.clone().unwrap_or_default(),
                baseline: (baseline, b_line, own),
                candidate: (candidate, c_line, value),
            })));
        }
        let strata = strata_column
            .zip(sets)
            .map(|(column, sets)| Strata { column, sets });
        let statistics = Statistics {
            baseline,
            candidate,
            pairing: Pairing::Files(basis),
            baseline_has_correct: has_correct[0],
            candidate_has_correct: has_correct[1],
            overall,
            strata,
            clusters,
            holdout_sha256: None,
        };
        Ok(Streamed {
            statistics,
            both_correct: both_correct && n > 0,
            has_answered,
            outcomes: [0, 1].map(|arm| has_outcome[arm].then_some(outcomes[arm])),
            unanswered,
            n,
            missing,
            extra,
            recorded,
            losses,
            rows: kept_rows,
        })
    }
}

/// The holdout check's facts besides the counts kept: the manifest, what it recorded,
/// and the task list with its SHA-256.
pub(crate) struct HoldoutFacts<'a> {
    /// The manifest as given.
    pub manifest: &'a str,
    /// What it recorded.
    pub recorded: &'a Recorded,
    /// The task list as given and its SHA-256.
    pub tasks_file: Option<&'a (String, String)>,
}

/// The first few of `first`, borrowed.
fn names(first: &First<String>) -> Vec<&str> {
    first.first.iter().map(String::as_str).collect()
}

impl Streamed {
    /// Decides on the pairs read, as [`decide`](crate::admission::decide) decides on
    /// the same pairs held.
    pub(crate) fn decide(&self, config: &Config, holdout: Option<&HoldoutFacts<'_>>) -> Admission {
        let names = [
            self.statistics.baseline.as_str(),
            self.statistics.candidate.as_str(),
        ];
        let arms = [0, 1].map(|arm| {
            let first: Vec<&str> = self.unanswered[arm]
                .first
                .iter()
                .map(String::as_str)
                .collect();
            (self.unanswered[arm].count, first)
        });
        let answers = answers_finding(
            self.has_answered,
            names,
            arms,
            self.n as usize,
            &config.answers,
        );
        let holdout = holdout.map(|facts| self.holdout(facts));
        let mut admission = decide_on(&self.statistics, config, answers, holdout);
        admission.losses = self.losses.clone();
        admission.baseline.outcomes = self.outcomes[0];
        admission.candidate.outcomes = self.outcomes[1];
        admission
    }

    fn holdout(&self, facts: &HoldoutFacts<'_>) -> Finding {
        holdout_finding(
            facts.manifest,
            (self.recorded as usize, self.n as usize),
            (self.missing.count, &names(&self.missing)),
            (self.extra.count, &names(&self.extra)),
            &facts.recorded.sha256,
            facts.tasks_file,
        )
    }
}
