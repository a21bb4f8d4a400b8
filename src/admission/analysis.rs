//! One set of pairs tested (the whole holdout or one stratum), from its sufficient
//! statistics ([`super::summary::Set`]): the means, the paired difference with its
//! interval, and the one-sided p-values of the chosen test.
//! [`super::decide`] runs it on every set and [`super::criteria`] words its results.

use super::config::Test;
use super::summary::{MICROS, Set};
use super::{Delta, Discordant, TestMethod};
use crate::figures::number;
use crate::stats::bootstrap::mean_difference_interval;
use crate::stats::interval::{Interval, critical_value, paired_difference};
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::{Method, signed_rank_of_ties};

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

/// Tests one set of pairs, given by its sufficient statistics, with `test`, with a
/// two-sided interval at `confidence`. The means are the exact micro-unit sums over n.
pub(super) fn analyse(set: &Set, test: Test, confidence: f64) -> Analysis {
    let n = set.n as usize;
    let mean = |micros: i64| micros as f64 / (n as f64 * MICROS as f64);
    let baseline_mean = mean(set.baseline_micros);
    let candidate_mean = mean(set.candidate_micros);
    let mean_difference = mean(set.difference_micros());
    match test {
        Test::McNemar => {
            // McNemar is only resolved when every pair has both outcomes.
            let o = set.outcomes.unwrap_or_default();
            let (b, c) = (o.baseline_only, o.candidate_only);
            let result = mcnemar_exact(b, c);
            let interval = paired_difference(b, c, n as u64, confidence);
            Analysis {
                n,
                baseline_mean,
                candidate_mean,
                correct: Some((o.both_right + b, o.both_right + c)),
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
            let ties: Vec<(u64, u64)> = set.ties.iter().map(|t| (t.positive, t.negative)).collect();
            let result = signed_rank_of_ties(&ties, set.zeros, zero);
            let (interval, interval_name) = if n <= BOOTSTRAP_LIMIT {
                (
                    // Resampled in ascending order, the one order the pairs and a
                    // summary share, so the interval is a function of the histogram.
                    mean_difference_interval(
                        &set.differences(),
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
                    normal_mean_of_sums(
                        n,
                        set.difference_micros(),
                        set.square_micros(),
                        confidence,
                    ),
                    format!(
                        "normal interval of the mean difference, mean ± z·s/√n (more than {BOOTSTRAP_LIMIT} pairs)"
                    ),
                )
            };
            let method = match result.method {
                Method::Exact => TestMethod::Exact,
                Method::NormalApproximation => TestMethod::NormalApproximation,
            };
            let method_word = match method {
                TestMethod::Exact => "exact",
                TestMethod::NormalApproximation => "normal approximation",
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

/// The normal interval of the mean difference, mean ± z·s/√n, from the number of
/// differences, their sum and their sum of squares in micro-units: the squared
/// deviations n·Σd² − (Σd)² are summed exactly in whole numbers. `None` for fewer than
/// two differences or a confidence outside (0, 1).
fn normal_mean_of_sums(n: usize, sum: i64, squares: u128, confidence: f64) -> Option<Interval> {
    if n < 2 {
        return None;
    }
    let z = critical_value(confidence)?;
    let count = n as f64;
    let scale = MICROS as f64;
    let mean = sum as f64 / (count * scale);
    let deviations = (n as i128 * squares as i128 - i128::from(sum) * i128::from(sum)).max(0);
    let squares = deviations as f64 / count / (scale * scale);
    let standard_error = (squares / (count - 1.0) / count).sqrt();
    Some(Interval {
        low: mean - z * standard_error,
        high: mean + z * standard_error,
        confidence,
    })
}
