//! The admission report: one serialisable model, and writers that render it and
//! compute nothing. [`Report`] with the doc comments on its fields (and on the
//! [`crate::admission`] types it holds) is the schema of `admission.json`,
//! `evogate/admission/v1`.

pub mod audit;
pub mod escape;
pub mod json;
pub mod markdown;
pub mod pairs;
pub mod svg;
pub mod text;

use serde::Serialize;

use crate::admission::{
    Admission, ArmSummary, Delta, Discordant, Evidence, Pairs, Stratum, TestInfo, Verdict,
};
use crate::stats::TIE_TOLERANCE;

/// The schema name written in every report.
pub const SCHEMA: &str = "evogate/admission/v1";

/// How many of the candidate's losses the report lists.
pub const SHOWN_LOSSES: usize = 10;

/// An input file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    /// `baseline`, `candidate`, `tasks` or `manifest`.
    pub role: String,
    /// The path as given on the command line (never made absolute).
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

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

/// `admission.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Always `evogate/admission/v1`.
    pub schema: String,
    /// `admitted` or `refused`.
    pub verdict: Verdict,
    /// Why, as sentences: the failed criteria when refused, every finding when admitted.
    pub reasons: Vec<String>,
    /// `name` (`mcnemar` or `signed-rank`), `method` (`exact` or
    /// `normal-approximation`) and, for signed-rank, `zero_method`.
    pub test: TestInfo,
    /// The level of every one-sided test.
    pub alpha: f64,
    /// Number of pairs.
    pub n: usize,
    /// Baseline `mean` admission score, and `correct` count when both files carry it.
    pub baseline: ArmSummary,
    /// Candidate `mean` admission score, and `correct` count when both files carry it.
    pub candidate: ArmSummary,
    /// The paired difference (candidate − baseline): `estimate`, `low`, `high`,
    /// `confidence` (1 − 2·alpha, so `low` is the one-sided bound) and `interval` (how
    /// it was computed).
    pub delta: Delta,
    /// McNemar's `baseline_only` (b) and `candidate_only` (c); null for signed-rank.
    pub discordant: Option<Discordant>,
    /// One-sided p-value for improvement.
    pub p_improvement: f64,
    /// One-sided p-value for regression.
    pub p_regression: f64,
    /// Two-sided p-value.
    pub p_two_sided: f64,
    /// The smallest paired shift any result on n pairs could show at alpha (every
    /// disagreement one way: k/n with k the smallest count where 0.5^k < alpha); null
    /// when n < k.
    pub min_detectable_shift: Option<f64>,
    /// The k of `min_detectable_shift`: the fewest discordant pairs, all one way, that
    /// reach alpha (0.5^k < alpha).
    pub min_discordant: u32,
    /// What `min_detectable_shift` means for the non-regression claim.
    pub power: String,
    /// The non-inferiority margin, null without `--margin`.
    pub margin: Option<f64>,
    /// The strata column, null when not stratified.
    pub strata_column: Option<String>,
    /// Per stratum: `name`, `value`, `n`, means, `delta`, `discordant`,
    /// `p_improvement`, `p_regression`, `significant_regression`,
    /// `min_detectable_shift`; sorted by value.
    pub strata: Vec<Stratum>,
    /// Per criterion: `criterion`, `result` (`pass`/`fail`), `proof`.
    pub evidence: Vec<Evidence>,
    /// Up to ten pairs the candidate lost, largest loss first, then by task.
    pub losses: Vec<Loss>,
    /// The cluster view (tasks of one group tested as one unit), whenever every pair
    /// has a group.
    pub cluster: Option<crate::admission::clustering::ClusterSummary>,
    /// This attempt's place in the holdout-reuse ledger (only with `--ledger`).
    pub ledger: Option<LedgerInfo>,
    /// Every input's path as given and SHA-256, in the order baseline, candidate,
    /// tasks, manifest.
    pub inputs: Vec<InputFile>,
}

impl Report {
    /// The report of `admission` on `pairs`.
    pub fn new(admission: Admission, pairs: &Pairs, inputs: Vec<InputFile>) -> Report {
        // Largest loss first, then by task: a total order (tasks are unique). Pairs
        // come in task order, so among equal losses the earlier pair goes first, and
        // the ten are kept in one walk that compares numbers only.
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
        let losses = lost
            .into_iter()
            .map(|(_, at)| &pairs.pairs[at])
            .map(|p| Loss {
                task_id: pairs.task(p).to_string(),
                stratum: pairs.stratum(p).map(str::to_string),
                baseline_score: p.baseline.score,
                candidate_score: p.candidate.score,
                candidate_feedback: pairs.feedback(&p.candidate).map(str::to_string),
            })
            .collect();
        Report {
            schema: SCHEMA.to_string(),
            verdict: admission.verdict,
            reasons: admission.reasons,
            test: admission.test,
            alpha: admission.alpha,
            n: admission.n,
            baseline: admission.baseline,
            candidate: admission.candidate,
            delta: admission.delta,
            discordant: admission.discordant,
            p_improvement: admission.p_improvement,
            p_regression: admission.p_regression,
            p_two_sided: admission.p_two_sided,
            min_detectable_shift: admission.min_detectable_shift,
            min_discordant: admission.min_discordant,
            power: admission.power,
            margin: admission.margin,
            strata_column: admission.strata_column,
            strata: admission.strata,
            evidence: admission.evidence,
            cluster: admission.cluster,
            ledger: None,
            losses,
            inputs,
        }
    }
}

/// Where an attempt stands in the holdout-reuse ledger.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerInfo {
    /// The ledger file as given.
    pub path: String,
    /// SHA-256 of the sorted task ids of the holdout.
    pub holdout_sha256: String,
    /// 1-based attempt on this holdout.
    pub attempt: u64,
    /// The alpha declared for the holdout.
    pub declared_alpha: f64,
    /// The alpha this attempt was decided at: declared · 6 / (π² k²).
    pub alpha_this_attempt: f64,
    /// Alpha spent by the attempts before this one.
    pub alpha_spent_before: f64,
    /// Alpha left after this attempt.
    pub alpha_left: f64,
}
