//! The admission gate's pure core: pair a baseline's and a candidate's scores by
//! `task_id` (`pairing`), then [`decide()`] whether the candidate is admitted.
//!
//! A claim of improvement is false until evidence proves it: every admission criterion
//! becomes a [`Finding`] entry carrying the numbers that decided it, and the verdict
//! is [`Verdict::Admitted`] only when every entry passes. A candidate that leans better
//! on a holdout too small to show it is [`Verdict::Inconclusive`], with the tasks that
//! would; every other failure is [`Verdict::Refused`]. All three come back as values;
//! only unusable input is an error.

mod analysis;
pub(crate) mod answers;
pub(crate) mod calibration;
pub(crate) mod clustering;
pub(crate) mod config;
mod criteria;
pub(crate) mod decide;
mod guard;
pub mod holdout;
pub(crate) mod join;
pub(crate) mod losses;
pub(crate) mod margin;
mod notes;
pub(crate) mod outcomes;
pub(crate) mod pairing;
pub(crate) mod recorded;
pub(crate) mod repeats;
pub(crate) mod rows;
mod skeleton;
pub(crate) mod stream;
pub(crate) mod sufficient;
pub(crate) mod wording;

#[cfg(test)]
mod join_oracle;
#[cfg(test)]
mod margin_tests;
#[cfg(test)]
mod tests;

pub use answers::{Answers, LeftOut};
pub use config::{Config, ConfigError, Margin, MarginQuestion, Test, TestChoice};
pub use decide::{decide, decide_summary};
pub use guard::{EXACT_GUARD_LIMIT, TARGET_POWER};
pub use holdout::HoldoutRecord;
pub use join::{Baseline, Joined, Keep};
pub use losses::{Loss, SHOWN_LOSSES};
pub use margin::{MarginPair, MarginTests, Question, QuestionName};
pub use notes::stratum_note;
pub use outcomes::OutcomeCounts;
pub use pairing::{Pair, PairingError, Pairs, Side, StrataChoice, StrataRequest, TaskList};
pub use sufficient::Statistics;

use crate::stats::tails::{OneSided, Tails};
use serde::Serialize;

/// The decision (also the verdict a ledger record keeps). Exit status 0 for admitted,
/// 1 for the other two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Every criterion passed.
    Admitted,
    /// A criterion failed: a stratum regressed, the margin failed, the evidence points
    /// the other way (or nowhere), an integrity criterion failed, or the holdout had 80%
    /// power for the observed shift and still did not show it.
    Refused,
    /// Only the improvement criteria failed, the observed shift favours the candidate,
    /// and the holdout had less than 80% power to detect that shift: more tasks could
    /// settle it (`tasks_needed`).
    Inconclusive,
}

impl Verdict {
    /// The word written in reports: `admitted`, `refused` or `inconclusive`.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Admitted => "admitted",
            Verdict::Refused => "refused",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The paired test that decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TestName {
    /// McNemar's exact test on the `correct` outcomes.
    #[serde(rename = "mcnemar")]
    McNemar,
    /// The Wilcoxon signed-rank test on the score differences.
    #[serde(rename = "signed-rank")]
    SignedRank,
}

/// How the p-values were computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestMethod {
    /// Exact null distribution.
    Exact,
    /// Continuity-corrected saddlepoint approximation (signed-rank with many distinct
    /// magnitudes beyond its exact limit; relative error below 1e-5).
    Saddlepoint,
}

/// What the test compares, and so what the arms' columns and every `delta` measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TestedMetric {
    /// McNemar: the share of tasks graded correct; `delta` is the difference of the two
    /// arms' proportions correct, (c − b)/n.
    ProportionCorrect,
    /// Signed-rank: the mean score; `delta` is the mean of the paired score differences,
    /// which is the difference of the two arms' mean scores.
    MeanScore,
}

impl TestedMetric {
    /// The metric of `name`'s test.
    pub fn of(name: TestName) -> TestedMetric {
        match name {
            TestName::McNemar => TestedMetric::ProportionCorrect,
            TestName::SignedRank => TestedMetric::MeanScore,
        }
    }

    /// The metric in words, for column headers and sentences: `proportion correct`.
    pub fn words(self) -> &'static str {
        match self {
            TestedMetric::ProportionCorrect => "proportion correct",
            TestedMetric::MeanScore => "mean score",
        }
    }
}

/// `test` in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestInfo {
    /// `mcnemar` or `signed-rank`.
    pub name: TestName,
    /// What the arms' figures and every `delta` measure: `proportion-correct` (McNemar)
    /// or `mean-score` (signed-rank).
    pub metric: TestedMetric,
    /// `exact` or `saddlepoint`.
    pub method: TestMethod,
    /// Signed-rank only: how zero differences were handled, `wilcox` (dropped) or
    /// `pratt` (ranked, then dropped).
    pub zero_method: Option<String>,
}

/// One arm's summary (`baseline` and `candidate` in the report).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmSummary {
    /// Mean admission score over the pairs.
    pub mean: f64,
    /// Tasks graded correct, when both files carry `correct`.
    pub correct: Option<u64>,
    /// How many of the pairs' answers came to each outcome (right, hedged, partial,
    /// wrong, invalid, abstained, unanswered), when the arm's file has the `outcome`
    /// column that `score` writes; left out of the JSON otherwise. So a reviewer sees a
    /// candidate that answers less (invalid, abstained) apart from one that answers
    /// worse (wrong).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcomes: Option<OutcomeCounts>,
}

/// A paired difference (candidate − baseline) with its two-sided interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delta {
    /// McNemar: the difference of proportions correct, (c − b)/n. Signed-rank: the mean
    /// score difference.
    pub estimate: f64,
    /// Lower bound; it is also the one-sided (1 − alpha) lower bound that the margin
    /// is checked against. Absent when no interval exists.
    pub low: Option<f64>,
    /// Upper bound, absent when no interval exists.
    pub high: Option<f64>,
    /// Two-sided confidence level, 1 − 2·alpha.
    pub confidence: f64,
    /// How the interval was computed.
    pub interval: String,
}

/// McNemar's discordant pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Discordant {
    /// b: the baseline right and the candidate wrong.
    pub baseline_only: u64,
    /// c: the candidate right and the baseline wrong.
    pub candidate_only: u64,
}

/// One stratum's test for regression.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Stratum {
    /// The strata column, e.g. `kind`.
    pub name: String,
    /// This stratum's value of it, e.g. `year`.
    pub value: String,
    /// Pairs in the stratum.
    pub n: usize,
    /// Mean baseline score in the stratum.
    pub baseline_mean: f64,
    /// Mean candidate score in the stratum.
    pub candidate_mean: f64,
    /// Tasks the baseline got right in the stratum (McNemar only): with `n`, the
    /// proportion that `delta` is a difference of.
    pub baseline_correct: Option<u64>,
    /// Tasks the candidate got right in the stratum (McNemar only).
    pub candidate_correct: Option<u64>,
    /// The stratum's paired difference and interval, in the test's metric
    /// (`test.metric`): candidate − baseline of the proportions correct, or of the mean
    /// scores.
    pub delta: Delta,
    /// McNemar's b and c in the stratum (McNemar only).
    pub discordant: Option<Discordant>,
    /// The one-sided p-values within the stratum and their log10s (computed in log
    /// space, finite where a p-value underflows to 0), written as the fields
    /// `p_improvement`, `p_regression`, `log10_p_improvement`, `log10_p_regression`.
    #[serde(flatten)]
    pub tails: OneSided,
    /// `p_regression < alpha`: this stratum alone refuses the candidate.
    pub significant_regression: bool,
    /// With a margin: the p-value of the stratum's exact test of H0 "worse by the
    /// margin or more" (the melded McNemar test, or for scores the larger of the
    /// shifted signed-rank and betting tests); null without a margin.
    pub p_noninferiority: Option<f64>,
    /// With a margin: whether the stratum is shown non-inferior, `p_noninferiority <
    /// alpha` (`false` refuses the candidate); null without a margin.
    pub margin_holds: Option<bool>,
    /// McNemar only: the smallest shift the stratum's n could show at alpha, every
    /// disagreement one way; absent when too small, and for signed-rank, which has no
    /// such floor on a shift.
    pub min_detectable_shift: Option<f64>,
    /// The guard's strength: the regression this stratum's check would catch with 80%
    /// power (McNemar: difference of proportions, exact power at the stratum's observed
    /// discordance up to 500 pairs; signed-rank: mean score difference, normal
    /// approximation from the stratum's spread). Absent when the stratum has too few
    /// pairs to reach alpha or its differences do not vary.
    pub regression_detectable_80_power: Option<f64>,
    /// Why the row reads as it does when its interval and its test seem to disagree
    /// (an interval wholly below zero that is not a significant regression), else null.
    pub note: Option<String>,
}

/// The admission criteria, in the order they are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Criterion {
    /// Every task is in both files, exactly once.
    PairingComplete,
    /// Both arms answered every paired task (only when a file says which were
    /// answered); with `--allow-missing` unanswered tasks pass as wrong answers.
    AnswersComplete,
    /// The candidate's scores are not the ones it was chosen on (only when its import
    /// record says it was, as for GEPA's best candidate on its validation set: then
    /// it fails, as a gain there is no evidence).
    NotSelectedOnTheseScores,
    /// The one-sided test for improvement is significant at alpha (and, for
    /// signed-rank, the mean agrees in direction). Superiority only.
    ImprovementSignificant,
    /// With `--margin`: the exact test of "worse by the margin or more" rejects at alpha
    /// on the whole set.
    NonInferiorityShown,
    /// With `--equivalence`: both one-sided tests against the margin reject at alpha on
    /// the whole set.
    EquivalenceShown,
    /// No stratum's one-sided test for regression is significant at alpha (superiority
    /// only).
    NoStratumRegressed,
    /// Every stratum is shown non-inferior at the margin by its own exact test (with a
    /// margin and strata).
    MarginHolds,
    /// The tasks are the holdout recorded in the manifest (only with `--manifest`).
    HoldoutIntact,
    /// The signed-rank test on cluster mean differences is significant (only with
    /// `--cluster`).
    ClusteredImprovementSignificant,
}

impl Criterion {
    /// The name written in reports, e.g. `improvement-significant`.
    pub fn name(self) -> &'static str {
        match self {
            Criterion::PairingComplete => "pairing-complete",
            Criterion::AnswersComplete => "answers-complete",
            Criterion::NotSelectedOnTheseScores => "not-selected-on-these-scores",
            Criterion::ImprovementSignificant => "improvement-significant",
            Criterion::NonInferiorityShown => "non-inferiority-shown",
            Criterion::EquivalenceShown => "equivalence-shown",
            Criterion::NoStratumRegressed => "no-stratum-regressed",
            Criterion::MarginHolds => "margin-holds",
            Criterion::HoldoutIntact => "holdout-intact",
            Criterion::ClusteredImprovementSignificant => "clustered-improvement-significant",
        }
    }
}

/// Whether a criterion held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Check {
    /// It held.
    Pass,
    /// It did not.
    Fail,
}

/// One criterion with the numbers that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Which criterion.
    pub criterion: Criterion,
    /// `pass` or `fail`.
    pub result: Check,
    /// The numbers that decided it, e.g. `p_improvement 0.0039 < alpha 0.05 (McNemar
    /// exact, b 0, c 8)`.
    pub proof: String,
    /// The same finding as a sentence a person can read.
    #[serde(skip)]
    pub sentence: String,
}

/// The whole decision, ready for the report writers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Admission {
    /// `admitted` (the question's claim is shown), `refused` or `inconclusive`.
    pub verdict: Verdict,
    /// The question asked: superiority, non-inferiority at a margin (`--margin`) or
    /// equivalence within a margin (`--equivalence`), in words too.
    pub question: Question,
    /// Inconclusive only: the tasks that would give 80% power for the observed shift
    /// (McNemar: exact power at the observed discordance, Connor's approximation past
    /// 500; signed-rank: normal approximation from the spread of the differences, and
    /// at least enough pairs to hold the fewest non-zero differences that can reach
    /// alpha). Absent for the other verdicts.
    pub tasks_needed: Option<u64>,
    /// Why, as sentences: the failed criteria when refused or inconclusive (the
    /// inconclusive one first), every finding when admitted, and after them any stratum
    /// whose estimate is a regression its check did not flag.
    pub reasons: Vec<String>,
    /// The test that decided.
    pub test: TestInfo,
    /// The significance level of every one-sided test.
    pub alpha: f64,
    /// Number of pairs.
    pub n: usize,
    /// The baseline's summary.
    pub baseline: ArmSummary,
    /// The candidate's summary.
    pub candidate: ArmSummary,
    /// The overall paired difference with its interval.
    pub delta: Delta,
    /// McNemar's b and c (McNemar only).
    pub discordant: Option<Discordant>,
    /// The p-values, one-sided for improvement (candidate better) and regression
    /// (candidate worse) and two-sided, with their log10s computed in log space: finite
    /// and exact where a p-value underflows to 0 (reports then print the p-value as
    /// `< 1e-300`). Written as the six fields `p_improvement`, `p_regression`,
    /// `p_two_sided`, `log10_p_improvement`, `log10_p_regression`, `log10_p_two_sided`.
    #[serde(flatten)]
    pub tails: Tails,
    /// McNemar: the smallest paired shift any result on n pairs could show at alpha
    /// (every disagreement one way); absent when n is too small for any significant
    /// result, and for signed-rank, whose floor is a count of non-zero differences, not a
    /// shift (ten differences of +0.01 can be significant). With `--cluster`, the
    /// clusters' figure.
    pub min_detectable_shift: Option<f64>,
    /// The fewest discordant pairs (McNemar) or non-zero differences (signed-rank), all
    /// one way, that reach alpha: the smallest k with 0.5^k < alpha.
    pub min_discordant: u32,
    /// The shift the test for improvement would detect with 80% power: McNemar, the
    /// difference of proportions at the observed discordance (exact power up to 500
    /// pairs); signed-rank, the mean score difference (z₁₋α + z₀.₈)·sd/√n from the
    /// observed spread of the differences (a normal approximation). Absent when n is too
    /// small to reach alpha or the differences do not vary.
    pub min_detectable_shift_80_power: Option<f64>,
    /// What the test could detect, and what each stratum's regression check would
    /// catch, as sentences.
    pub power: String,
    /// The margin of non-inferiority or equivalence, when one was given.
    pub margin: Option<f64>,
    /// With a margin: the exact tests against it on the whole set of pairs.
    pub margin_tests: Option<MarginTests>,
    /// The strata column, absent when the pairs are not stratified.
    pub strata_column: Option<String>,
    /// One entry per value of the strata column, sorted by value.
    pub strata: Vec<Stratum>,
    /// One entry per criterion, in [`Criterion`] order.
    pub evidence: Vec<Finding>,
    /// Up to ten pairs the candidate lost, largest loss first, then by task.
    pub losses: Vec<Loss>,
    /// The cluster view (tasks of one group tested as one unit), whenever every pair
    /// has a group.
    pub cluster: Option<clustering::ClusterSummary>,
    /// Only when the scores hold repeats of items (`<item>#<r>` rows grouped by item):
    /// what the repeats say per arm (pass@1, pass@k, pass^k with intervals, the flaky
    /// items) and the warnings; every test above then counted items. Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeats: Option<repeats::RepeatsView>,
}
