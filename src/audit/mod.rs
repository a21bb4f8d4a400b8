//! `audit`'s core: re-test claims of improvement made in the past on the strongest
//! evidence each claim has. Per-task score files rerun the full admission test (the
//! caller runs it and passes the outcome in, [`judge_admission`]); discordant counts
//! get McNemar's exact test; rates on n tasks are judged by their best case and, for
//! single-run binary rates, their worst case over every pairing the rates allow
//! ([`judge`]). Each verdict has one meaning, see [`ClaimVerdict`].

mod cases;
mod judge;
mod parse;
#[cfg(test)]
mod tests;

pub use cases::{best_case_p, detectable_shift_80, worst_case};
pub use judge::{Rerun, judge, judge_admission};
pub use parse::parse_claims;

use serde::Serialize;

/// The most discordant pairs (`b` + `c`), and the most tasks `n`, a claim may give.
/// McNemar's exact tails sum about 40·√(b + c) terms, a fraction of a second here;
/// near 2^53 they take minutes, and past it they never end. No holdout comes near
/// 2^40 tasks.
pub const MAX_DISCORDANT: u64 = 1 << 40;

/// How a claim's scores are measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Right or wrong per task: a rate is a count over n.
    Binary,
    /// A graded, mean or multi-run score: any task may improve by any amount.
    Mean,
}

/// A rate as written in the claims file: its value and how many decimals it was
/// given with, which says how far it may have been rounded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The rate, in [0, 1].
    pub value: f64,
    /// Half a unit in the last decimal written: `0.886` may stand for 0.8855..0.8865.
    pub rounding: f64,
}

/// The evidence a claim carries, strongest first.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// Paths (relative to the claims file) of per-task score files.
    ScoreFiles {
        /// The baseline's scores.
        baseline: String,
        /// The candidate's scores.
        candidate: String,
    },
    /// McNemar's discordant counts.
    Discordant {
        /// Baseline right, candidate wrong.
        b: u64,
        /// Candidate right, baseline wrong.
        c: u64,
    },
    /// Rates (or mean scores) of both arms on `n` tasks.
    Rates {
        /// The baseline's rate.
        baseline: Rate,
        /// The candidate's rate.
        candidate: Rate,
    },
}

/// One claim of improvement.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// 1-based line in the claims file.
    pub line: u64,
    /// Its identifier.
    pub claim_id: String,
    /// What was claimed, untrusted text.
    pub description: String,
    /// Where it was published, untrusted text (`source`), when given.
    pub source: Option<String>,
    /// The strongest evidence the row has.
    pub evidence: Evidence,
    /// Tasks scored (`n`), counting every copy; required with rates.
    pub n: Option<u64>,
    /// `metric` as given; inferred from the rates when absent.
    pub metric: Option<Metric>,
    /// Copies of each item (`repeats`, 1 when absent): the test runs on n / repeats items.
    pub repeats: u64,
    /// Independent clusters the tasks fall into (`clusters`), when given.
    pub clusters: Option<u64>,
    /// Candidates tried on this set, the claimed one the best of them (`attempts`, 1
    /// when absent): the claim is tested at alpha / attempts.
    pub attempts: u64,
    /// `selected_on_scored_set` is `yes`: the candidate was chosen on the set it is
    /// scored on, so at best `unverifiable`.
    pub selected_on_scored_set: bool,
}

/// What the evidence says of a claim: each verdict has one meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimVerdict {
    /// Significant under every pairing the evidence allows: per-task or discordant data
    /// significant, or binary single-run rates whose worst case is significant.
    Supported,
    /// The data exist and are not significant.
    NotSupported,
    /// Significant in the best case only, or selected on the scored set.
    Unverifiable,
    /// Not significant even in the best case at its effective n.
    Unsupportable,
}

impl ClaimVerdict {
    /// The name written in reports, e.g. `not-supported`.
    pub fn name(self) -> &'static str {
        match self {
            ClaimVerdict::Supported => "supported",
            ClaimVerdict::NotSupported => "not-supported",
            ClaimVerdict::Unverifiable => "unverifiable",
            ClaimVerdict::Unsupportable => "unsupportable",
        }
    }
}

/// The judgement of one claim; its field docs are the schema of `audit.json`'s
/// `judgements`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The claim's identifier.
    pub claim_id: String,
    /// What was claimed.
    pub description: String,
    /// Where it was published, when the claims file says.
    pub source: Option<String>,
    /// `score-files`, `discordant` or `rates`.
    pub evidence: &'static str,
    /// `binary` or `mean`.
    pub metric: Metric,
    /// Whether `metric` was inferred from the rates rather than given.
    pub metric_inferred: bool,
    /// The verdict.
    pub verdict: ClaimVerdict,
    /// Sentences a reviewer can read: the finding, then every adjustment made.
    pub reason: String,
    /// Tasks scored, every copy counted, when known.
    pub n: Option<u64>,
    /// The independent units the test runs on: tasks, items (n / repeats), clusters,
    /// or for bare discordant counts the discordant pairs.
    pub effective_n: u64,
    /// The level the claim was tested at: alpha / attempts.
    pub alpha: f64,
    /// Candidates tried on the set.
    pub attempts: u64,
    /// Copies of each item.
    pub repeats: u64,
    /// Independent clusters, when given or found in the score files' `group`.
    pub clusters: Option<u64>,
    /// Whether the candidate was selected on the scored set.
    pub selected_on_scored_set: bool,
    /// The one-sided p-value the data give (admission or McNemar); null for rates.
    pub p_improvement: Option<f64>,
    /// log10 of `p_improvement`, computed in log space: finite where the p-value
    /// underflows to 0 (text prints it as `< 1e-300`).
    pub log10_p_improvement: Option<f64>,
    /// The least p-value any result at `effective_n` consistent with the claim could
    /// give: every disagreement the claim implies won by the candidate.
    pub p_best_case: f64,
    /// log10 of `p_best_case`: −k·log10 2 for k wins.
    pub log10_p_best_case: f64,
    /// Binary single-run rates: McNemar's p at the most discordance the rates allow,
    /// the largest over every pairing.
    pub p_worst_case: Option<f64>,
    /// log10 of `p_worst_case`, computed in log space.
    pub log10_p_worst_case: Option<f64>,
    /// McNemar's b (baseline right, candidate wrong), when known.
    pub b: Option<u64>,
    /// McNemar's c (candidate right, baseline wrong), when known.
    pub c: Option<u64>,
    /// b of the worst-case pairing (binary single-run rates).
    pub worst_case_b: Option<u64>,
    /// c of the worst-case pairing.
    pub worst_case_c: Option<u64>,
    /// The smallest shift any result on `effective_n` units could show at `alpha`
    /// (every disagreement one way); null when no result could.
    pub min_detectable_shift_best_case: Option<f64>,
    /// The smallest share of units that, each improving with that probability and none
    /// worsening, the test detects with 80% power at `alpha`; null when none does.
    pub min_detectable_shift_80_power: Option<f64>,
}
