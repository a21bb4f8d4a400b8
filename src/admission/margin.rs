//! Verdicts with a margin: which question a run asks (superiority; non-inferiority at
//! margin M with `--margin`; equivalence within ±M with `--equivalence`), the exact tests
//! against the margin on each set of pairs ([`crate::stats::equivalence`]), and the
//! evidence and the inconclusive rule they lead to. [`super::decide`] calls these when
//! a margin is given; without one nothing here runs but [`Question::of`].

use serde::Serialize;

use super::analysis::Analysis;
use super::config::{Margin, MarginQuestion, Test};
use super::criteria::label;
use super::guard::{Spread, TARGET_POWER};
use super::sufficient::{MICROS, Set, micros};
use super::{Check, Criterion, Finding, Stratum};
use crate::alpha::Alpha;
use crate::base::numbers::{number, p_value};
use crate::stats::bounded_mean::Histogram;
use crate::stats::equivalence::{MarginTails, betting_margin, mcnemar_margin, signed_rank_margin};
use crate::stats::normal_power::required_n_for_mean;

/// Which claim a run tries to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum QuestionName {
    /// The candidate is better than the baseline (no margin).
    Superiority,
    /// The candidate is worse than the baseline by less than the margin (`--margin`).
    NonInferiority,
    /// The candidate differs from the baseline by less than the margin either way
    /// (`--equivalence`).
    Equivalence,
}

/// `question` in the report: the claim asked, which `verdict` says was shown
/// (`admitted`) or not.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Question {
    /// `superiority`, `non-inferiority` or `equivalence`.
    pub name: QuestionName,
    /// The margin M of non-inferiority or equivalence, on the 0–1 scale of the tested
    /// metric; null for superiority.
    pub margin: Option<f64>,
    /// The question in words, e.g. `non-inferiority at margin 0.05: is the candidate
    /// worse than the baseline by less than 0.05?`.
    pub words: String,
}

impl Question {
    /// The question a run with `margin` (or none) asks.
    pub fn of(margin: Option<Margin>) -> Question {
        let (name, words) = match margin {
            None => (
                QuestionName::Superiority,
                "superiority: is the candidate better than the baseline?".to_string(),
            ),
            Some(m) => {
                let value = number(m.get());
                match m.question() {
                    MarginQuestion::NonInferiority => (
                        QuestionName::NonInferiority,
                        format!(
                            "non-inferiority at margin {value}: is the candidate worse than the baseline by less than {value}?"
                        ),
                    ),
                    MarginQuestion::Equivalence => (
                        QuestionName::Equivalence,
                        format!(
                            "equivalence within ±{value}: does the candidate differ from the baseline by less than {value} either way?"
                        ),
                    ),
                }
            }
        };
        Question {
            name,
            margin: margin.map(Margin::get),
            words,
        }
    }

    /// The verdict in the question's words: `non-inferiority at margin 0.05 shown`,
    /// `... not shown`, or `... not shown yet (inconclusive: more tasks could show it)`.
    pub fn answer(&self, verdict: super::Verdict) -> String {
        let claim = self.claim();
        match verdict {
            super::Verdict::Admitted => format!("{claim} shown"),
            super::Verdict::Refused => format!("{claim} not shown"),
            super::Verdict::Inconclusive => {
                format!("{claim} not shown yet (inconclusive: more tasks could show it)")
            }
        }
    }

    /// The claim's name as the verdict sentence uses it: `superiority`,
    /// `non-inferiority at margin 0.05`, `equivalence within ±0.05`.
    pub fn claim(&self) -> String {
        let margin = self.margin.map(number).unwrap_or_default();
        match self.name {
            QuestionName::Superiority => "superiority".to_string(),
            QuestionName::NonInferiority => format!("non-inferiority at margin {margin}"),
            QuestionName::Equivalence => format!("equivalence within ±{margin}"),
        }
    }
}

/// The two one-sided p-values of one test against the margin.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MarginPair {
    /// H0: the difference is −M or lower; below alpha the candidate is shown
    /// non-inferior.
    pub p_noninferiority: f64,
    /// H0: the difference is +M or higher; below alpha the candidate is shown better by
    /// less than M.
    pub p_nonsuperiority: f64,
}

impl From<MarginTails> for MarginPair {
    fn from(tails: MarginTails) -> MarginPair {
        MarginPair {
            p_noninferiority: tails.p_noninferiority,
            p_nonsuperiority: tails.p_nonsuperiority,
        }
    }
}

/// `margin_tests` in the report: the tests against the margin on the whole set of
/// pairs (each stratum's non-inferiority p-value is in its row).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarginTests {
    /// How the p-values were computed.
    pub method: String,
    /// The p-value that decides non-inferiority (for scores the larger of the two tests'
    /// below).
    pub p_noninferiority: f64,
    /// The p-value of the other side of equivalence, likewise.
    pub p_nonsuperiority: f64,
    /// The p-value of equivalence (two one-sided tests): the larger of the two above.
    pub p_equivalence: f64,
    /// Scores only: the signed-rank test on the differences shifted by the margin.
    pub signed_rank: Option<MarginPair>,
    /// Scores only: the betting test of the mean difference.
    pub betting: Option<MarginPair>,
}

/// The melded test's name in reports.
pub(crate) const MELDED_METHOD: &str = "melded exact McNemar test for the difference in proportions (Fay & Lumbard 2021; R exact2x2::mcnemarExactDP), McNemar's exact test at margin 0";

/// The scores' method in reports.
pub(crate) const SCORES_METHOD: &str = "signed-rank test on the differences shifted by the margin (exact, conditional on their magnitudes) and betting test of the mean difference (valid at every n); both must reject";

/// Tests one set of pairs against `margin`: the melded test on its outcome counts for
/// McNemar; for scores the signed-rank test on its differences shifted by the margin
/// (in micro-units, the margin rounded to a millionth as scores are) and the betting
/// test of their mean, each p-value the larger of the two (both must reject).
pub(super) fn test_set(set: &Set, test: Test, margin: f64) -> MarginTests {
    match test {
        Test::McNemar => {
            let o = set.outcomes.unwrap_or_default();
            let tails = mcnemar_margin(o.baseline_only, o.candidate_only, set.n, margin);
            tests(MELDED_METHOD, tails, None, None)
        }
        Test::SignedRank(zero) => {
            let histogram = set.histogram();
            let ranks = signed_rank_margin(&histogram, micros(margin), zero);
            let bets = Histogram::from_counts(
                histogram
                    .iter()
                    .map(|&(d, count)| (d as f64 / MICROS as f64, count)),
            )
            .map_or(MarginTails::none(), |h| betting_margin(&h, margin));
            tests(
                SCORES_METHOD,
                ranks.both(bets),
                Some(ranks.into()),
                Some(bets.into()),
            )
        }
    }
}

fn tests(
    method: &str,
    tails: MarginTails,
    signed_rank: Option<MarginPair>,
    betting: Option<MarginPair>,
) -> MarginTests {
    MarginTests {
        method: method.to_string(),
        p_noninferiority: tails.p_noninferiority,
        p_nonsuperiority: tails.p_nonsuperiority,
        p_equivalence: tails.p_equivalence(),
        signed_rank,
        betting,
    }
}

/// The claim's criterion on the whole set: `non-inferiority-shown` (p_noninferiority <
/// alpha) or `equivalence-shown` (both one-sided p-values < alpha).
pub(super) fn claim_evidence(
    margin: Margin,
    overall: &MarginTests,
    analysis: &Analysis,
    metric: &str,
    alpha: Alpha,
) -> Finding {
    let m = number(margin.get());
    let level = crate::base::numbers::level(alpha.get());
    let compare = |name, p| super::wording::compare(name, p, alpha);
    let detail = parts(overall);
    match margin.question() {
        MarginQuestion::NonInferiority => {
            let p = overall.p_noninferiority;
            let pass = alpha.rejects(p);
            let proof = format!("{} ({detail}, margin {m})", compare("p_noninferiority", p));
            let sentence = if pass {
                format!(
                    "The candidate is shown non-inferior at margin {m}: a loss of {m} or more in {metric} is rejected (p_noninferiority {} < alpha {level}).",
                    p_value(p)
                )
            } else {
                format!(
                    "Non-inferiority at margin {m} is not shown: a loss of {m} or more in {metric} cannot be ruled out (p_noninferiority {} is not below alpha {level}; the difference is {}).",
                    p_value(p),
                    crate::base::numbers::signed(analysis.delta.estimate)
                )
            };
            finding(Criterion::NonInferiorityShown, pass, proof, sentence)
        }
        MarginQuestion::Equivalence => {
            let (lower, upper) = (overall.p_noninferiority, overall.p_nonsuperiority);
            let pass = alpha.rejects(lower) && alpha.rejects(upper);
            let proof = format!(
                "{} and {} ({detail}, margin ±{m})",
                compare("p_noninferiority", lower),
                compare("p_nonsuperiority", upper)
            );
            let sentence = if pass {
                format!(
                    "The candidate is shown equivalent within ±{m}: a difference of {m} or more in {metric} either way is rejected (p_equivalence {} < alpha {level}).",
                    p_value(overall.p_equivalence)
                )
            } else {
                let side = if alpha.rejects(lower) {
                    "a gain"
                } else if alpha.rejects(upper) {
                    "a loss"
                } else {
                    "a difference"
                };
                format!(
                    "Equivalence within ±{m} is not shown: {side} of {m} or more in {metric} cannot be ruled out (p_equivalence {} is not below alpha {level}; the difference is {}).",
                    p_value(overall.p_equivalence),
                    crate::base::numbers::signed(analysis.delta.estimate)
                )
            };
            finding(Criterion::EquivalenceShown, pass, proof, sentence)
        }
    }
}

/// The figures behind a margin p-value: the test and, for scores, its two parts.
fn parts(tests: &MarginTests) -> String {
    match (&tests.signed_rank, &tests.betting) {
        (Some(ranks), Some(bets)) => format!(
            "signed-rank on shifted differences {} / {}, betting test of the mean {} / {}",
            p_value(ranks.p_noninferiority),
            p_value(ranks.p_nonsuperiority),
            p_value(bets.p_noninferiority),
            p_value(bets.p_nonsuperiority)
        ),
        _ => "melded exact McNemar".to_string(),
    }
}

fn finding(criterion: Criterion, pass: bool, proof: String, sentence: String) -> Finding {
    Finding {
        criterion,
        result: if pass { Check::Pass } else { Check::Fail },
        proof,
        sentence,
    }
}

/// `margin-holds` with strata: every stratum's own non-inferiority test rejects at
/// alpha (an intersection–union test, so no correction: all must hold).
pub(super) fn strata_evidence(
    strata: &[&Stratum],
    margin: f64,
    metric: &str,
    alpha: Alpha,
) -> Finding {
    let m = number(margin);
    let level = crate::base::numbers::level(alpha.get());
    let p_of = |s: &Stratum| s.p_noninferiority.unwrap_or(1.0);
    let failing: Vec<&&Stratum> = strata
        .iter()
        .filter(|s| s.margin_holds != Some(true))
        .collect();
    if failing.is_empty() {
        let weakest = strata
            .iter()
            .max_by(|x, y| p_of(x).total_cmp(&p_of(y)))
            .expect("strata is not empty here");
        let proof = format!(
            "largest {} on {}, across {} strata",
            super::wording::compare("p_noninferiority", p_of(weakest), alpha),
            label(weakest),
            strata.len()
        );
        let sentence = format!(
            "Every {} is shown non-inferior at margin {m}: the largest p_noninferiority is {} ({}).",
            weakest.name,
            p_value(p_of(weakest)),
            label(weakest)
        );
        return finding(Criterion::MarginHolds, true, proof, sentence);
    }
    let proof = failing
        .iter()
        .map(|s| {
            format!(
                "{} on {}",
                super::wording::compare("p_noninferiority", p_of(s), alpha),
                label(s)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let sentence = failing
        .iter()
        .map(|s| {
            format!(
                "Cannot rule out a loss of {m} or more in {metric} on {}: p_noninferiority {} is not below alpha {level} (difference {}).",
                label(s),
                p_value(p_of(s)),
                crate::base::numbers::signed(s.delta.estimate)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    finding(Criterion::MarginHolds, false, proof, sentence)
}

/// The tasks needed and the first reason when a claim with a margin is inconclusive:
/// the only failed criteria are the claim's and `margin-holds`, the observed difference
/// lies inside the claim (above −M; within ±M for equivalence) on the whole set and on
/// every stratum that failed, and by the normal approximation the pairs had under 80%
/// power at those differences. n pairs at a distance d from the nearer margin need
/// ⌈((z₁₋α + z₀.₈)·σ/d)²⌉, σ the standard deviation of one pair's difference (McNemar
/// √(ψ − Δ²) at the observed discordance ψ; scores the sample standard deviation); a
/// stratum holding n_s of the n pairs needs that many times n/n_s in all. The tasks
/// needed are the largest of these. `None` means refused.
pub(super) fn shortfall(
    margin: Margin,
    evidence: &[Finding],
    overall: &Analysis,
    strata: &[(&Stratum, Spread)],
    alpha: Alpha,
) -> Option<(u64, String)> {
    let claim = match margin.question() {
        MarginQuestion::NonInferiority => Criterion::NonInferiorityShown,
        MarginQuestion::Equivalence => Criterion::EquivalenceShown,
    };
    let only_claim = evidence.iter().all(|e| {
        e.result == Check::Pass || e.criterion == claim || e.criterion == Criterion::MarginHolds
    });
    if !only_claim {
        return None;
    }
    let m = margin.get();
    let estimate = overall.delta.estimate;
    let distance = match margin.question() {
        MarginQuestion::NonInferiority => estimate + m,
        MarginQuestion::Equivalence => m - estimate.abs(),
    };
    let n = overall.n as u64;
    let claim_failed = evidence
        .iter()
        .any(|e| e.criterion == claim && e.result == Check::Fail);
    let mut tasks_needed = if claim_failed {
        needed(distance, estimate, overall.spread, alpha)?
    } else {
        0
    };
    let mut leaning: Vec<String> = Vec::new();
    for (stratum, spread) in strata.iter().filter(|(s, _)| s.margin_holds == Some(false)) {
        let own = stratum.delta.estimate;
        let pairs = needed(own + m, own, *spread, alpha)?;
        let scaled = (pairs as f64 * n as f64 / stratum.n.max(1) as f64).ceil() as u64;
        tasks_needed = tasks_needed.max(scaled);
        leaning.push(label(stratum));
    }
    if tasks_needed <= n {
        return None;
    }
    let question = Question::of(Some(margin)).claim();
    let inside = match (claim_failed, leaning.is_empty()) {
        (true, true) => format!(
            "the difference {} lies inside the claim ({question})",
            crate::base::numbers::signed(estimate)
        ),
        (true, false) => format!(
            "the difference {} lies inside the claim ({question}), and so does every stratum that fails the margin ({})",
            crate::base::numbers::signed(estimate),
            leaning.join(", ")
        ),
        (false, _) => format!(
            "the claim ({question}) is shown on the whole set, and every stratum that fails the margin leans inside it ({})",
            leaning.join(", ")
        ),
    };
    Some((
        tasks_needed,
        format!(
            "Inconclusive: {inside}, but the {n} pairs had less than 80% power to show it; about {tasks_needed} tasks would give 80% power at differences this far from the margin (normal approximation)."
        ),
    ))
}

/// The pairs that show a difference `distance` inside the margin with 80% power, given
/// the spread of the pairs it was observed on (and their difference `estimate`);
/// `None` when the difference is not inside or the spread is unknown.
fn needed(distance: f64, estimate: f64, spread: Spread, alpha: Alpha) -> Option<u64> {
    if distance <= 0.0 {
        return None;
    }
    let sd = match spread {
        Spread::Discordance(psi) => Some((psi - estimate * estimate).max(0.0).sqrt()),
        Spread::Differences { sd, .. } => sd,
    }?;
    required_n_for_mean(distance, sd, alpha.get(), TARGET_POWER)
}
