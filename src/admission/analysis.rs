//! One set of pairs tested (the whole holdout or one stratum): the means, the paired
//! difference with its interval, and the one-sided p-values of the chosen test.
//! [`super::decide`] runs it on every set and [`super::criteria`] words its results.

use super::config::Test;
use super::pairing::Pair;
use super::{Delta, Discordant, TestMethod};
use crate::figures::number;
use crate::stats::bootstrap::mean_difference_interval;
use crate::stats::interval::{normal_mean, paired_difference};
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::{Method, signed_rank};

/// The seed of the bootstrap stream behind signed-rank intervals (the same 13 as
/// `split`'s default), fixed so a report never changes between runs.
pub const BOOTSTRAP_SEED: u64 = 13;

/// Resamples per bootstrap interval: the interval's bounds move by well under 0.01
/// between seeds at this count on a few hundred pairs.
pub const BOOTSTRAP_RESAMPLES: u32 = 10_000;

/// Above this many pairs a signed-rank interval is the normal interval of the mean
/// difference instead of the percentile bootstrap. The two differ by about
/// 0.28·γ/√n standard errors at alpha 0.05 (γ the skewness of the differences), under
/// 0.006·γ here, while the 10,000-resample percentile bounds themselves wander by about
/// 0.02 standard errors between seeds: past this n the bootstrap's 10,000·n draws buy
/// nothing the normal interval does not give (at 10^6 pairs they were 10^10 draws).
pub const BOOTSTRAP_LIMIT: usize = 2_500;

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
                method: TestMethod::Exact,
                mean_difference,
                detail: format!("McNemar exact, b {b}, c {c}"),
            }
        }
        Test::SignedRank(zero) => {
            let differences: Vec<f64> = pairs.iter().map(|p| p.difference()).collect();
            let result = signed_rank(&differences, zero);
            let (interval, interval_name) = if differences.len() <= BOOTSTRAP_LIMIT {
                (
                    mean_difference_interval(
                        &differences,
                        confidence,
                        BOOTSTRAP_RESAMPLES,
                        BOOTSTRAP_SEED,
                    ),
                    format!(
                        "percentile bootstrap of the mean difference, {BOOTSTRAP_RESAMPLES} resamples, ChaCha20 seed {BOOTSTRAP_SEED}"
                    ),
                )
            } else {
                (
                    normal_mean(&differences, confidence),
                    format!(
                        "normal interval of the mean difference, mean ± z·s/√n (more than {BOOTSTRAP_LIMIT} pairs)"
                    ),
                )
            };
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
                    interval: interval_name,
                },
                discordant: None,
                p_improvement: result.p_improvement,
                p_regression: result.p_regression,
                p_two_sided: result.p_two_sided,
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
