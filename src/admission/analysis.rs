//! One set of pairs tested (the whole holdout or one stratum): the means, the paired
//! difference with its interval, and the one-sided p-values of the chosen test.
//! [`super::decide`] runs it on every set and [`super::criteria`] words its results.

use super::config::Test;
use super::pairing::Pair;
use super::{Delta, Discordant, TestMethod};
use crate::figures::number;
use crate::stats::bounded_mean::{self, Histogram, betting_interval};
use crate::stats::interval::paired_difference;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::{Method, signed_rank};

/// One set of pairs tested: the whole holdout or one stratum.
pub(super) struct Analysis {
    pub(super) n: usize,
    pub(super) baseline_mean: f64,
    pub(super) candidate_mean: f64,
    pub(super) correct: Option<(u64, u64)>,
    pub(super) delta: Delta,
    pub(super) discordant: Option<Discordant>,
    pub(super) p_improvement: f64,
    pub(super) p_regression: f64,
    pub(super) p_two_sided: f64,
    /// log10 of the three p-values, from the tests' log-space tails.
    pub(super) log10_p: [f64; 3],
    pub(super) method: TestMethod,
    pub(super) mean_difference: f64,
    /// The test's own figures, e.g. `McNemar exact, b 0, c 8`.
    pub(super) detail: String,
}

/// What one walk over the pairs adds up: the sums of baseline scores, candidate scores
/// and differences (each in pair order, from −0 as `Iterator::sum` does, so the means
/// are those of three separate sums), and over the pairs with `correct` on both sides
/// the discordant counts (baseline only, candidate only) and each arm's count right.
struct Totals {
    baseline: f64,
    candidate: f64,
    difference: f64,
    discordant: (u64, u64),
    correct: (u64, u64),
}

impl Totals {
    fn of(pairs: &[&Pair]) -> Totals {
        let mut totals = Totals {
            baseline: -0.0,
            candidate: -0.0,
            difference: -0.0,
            discordant: (0, 0),
            correct: (0, 0),
        };
        for pair in pairs {
            totals.baseline += pair.baseline.score;
            totals.candidate += pair.candidate.score;
            totals.difference += pair.difference();
            if let (Some(b), Some(c)) = (pair.baseline.correct, pair.candidate.correct) {
                totals.discordant.0 += u64::from(b && !c);
                totals.discordant.1 += u64::from(c && !b);
                totals.correct.0 += u64::from(b);
                totals.correct.1 += u64::from(c);
            }
        }
        totals
    }
}

/// Tests one set of pairs with `test`, with a two-sided interval at `confidence`.
pub(super) fn analyse(pairs: &[&Pair], test: Test, confidence: f64) -> Analysis {
    let n = pairs.len();
    let totals = Totals::of(pairs);
    let baseline_mean = totals.baseline / n as f64;
    let candidate_mean = totals.candidate / n as f64;
    let mean_difference = totals.difference / n as f64;
    match test {
        Test::McNemar => {
            let (b, c) = totals.discordant;
            let result = mcnemar_exact(b, c);
            let interval = paired_difference(b, c, n as u64, confidence);
            Analysis {
                n,
                baseline_mean,
                candidate_mean,
                correct: Some(totals.correct),
                delta: Delta {
                    estimate: (c as f64 - b as f64) / n as f64,
                    low: interval.map(|i| i.low),
                    high: interval.map(|i| i.high),
                    confidence,
                    interval: "Tango score interval for the paired difference of proportions"
                        .to_string(),
                },
                discordant: Some(Discordant {
                    baseline_only: b,
                    candidate_only: c,
                }),
                p_improvement: result.p_improvement,
                p_regression: result.p_regression,
                p_two_sided: result.p_two_sided,
                log10_p: [
                    result.log10_p_improvement,
                    result.log10_p_regression,
                    result.log10_p_two_sided,
                ],
                method: TestMethod::Exact,
                mean_difference,
                detail: format!("McNemar exact, b {b}, c {c}"),
            }
        }
        Test::SignedRank(zero) => {
            let differences: Vec<f64> = pairs.iter().map(|p| p.difference()).collect();
            let result = signed_rank(&differences, zero);
            // Valid at every n and never a point (docs/statistics.md); `None` only if a
            // difference left [−1, 1], which validated scores cannot.
            let interval =
                Histogram::of(&differences).and_then(|h| betting_interval(&h, confidence));
            let method = match result.method {
                Method::Exact => TestMethod::Exact,
                Method::Saddlepoint => TestMethod::Saddlepoint,
            };
            let method_word = match method {
                TestMethod::Exact => "exact",
                TestMethod::Saddlepoint => "saddlepoint approximation",
            };
            Analysis {
                n,
                baseline_mean,
                candidate_mean,
                correct: None,
                delta: Delta {
                    estimate: mean_difference,
                    low: interval.map(|i| i.low),
                    high: interval.map(|i| i.high),
                    confidence,
                    interval: bounded_mean::METHOD.to_string(),
                },
                discordant: None,
                p_improvement: result.p_improvement,
                p_regression: result.p_regression,
                p_two_sided: result.p_two_sided,
                log10_p: [
                    result.log10_p_improvement,
                    result.log10_p_regression,
                    result.log10_p_two_sided,
                ],
                method,
                mean_difference,
                detail: format!(
                    "Wilcoxon signed-rank {method_word}, {} non-zero of {n}, W+ {}",
                    result.n_nonzero,
                    number(result.w_plus)
                ),
            }
        }
    }
}
