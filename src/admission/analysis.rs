//! One set of pairs tested (the whole holdout or one stratum), from its sufficient
//! statistics ([`super::sufficient::Set`]): the means, the paired difference with its
//! interval, and the one-sided p-values of the chosen test.
//! [`super::decide`] runs it on every set and [`super::criteria`] words its results.

use super::config::Test;
use super::guard::Spread;
use super::sufficient::{MICROS, Set};
use super::{Delta, Discordant, TestMethod};
use crate::base::numbers::number;
use crate::stats::bounded_mean::{self, Histogram, betting_interval};
use crate::stats::interval::paired_difference;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::{Method, signed_rank_of_ties};
use crate::stats::tails::Tails;

/// One set of pairs tested: the whole holdout or one stratum.
pub(super) struct Analysis {
    pub(super) n: usize,
    pub(super) baseline_mean: f64,
    pub(super) candidate_mean: f64,
    pub(super) correct: Option<(u64, u64)>,
    pub(super) delta: Delta,
    pub(super) discordant: Option<Discordant>,
    /// The test's p-values and their log10s.
    pub(super) tails: Tails,
    pub(super) method: TestMethod,
    pub(super) mean_difference: f64,
    /// What the test's power depends on besides n.
    pub(super) spread: Spread,
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
                tails: result.tails,
                method: TestMethod::Exact,
                mean_difference,
                spread: Spread::Discordance((b + c) as f64 / n as f64),
                detail: format!("McNemar exact, b {b}, c {c}"),
            }
        }
        Test::SignedRank(zero) => {
            let ties: Vec<(u64, u64)> = set.ties.iter().map(|t| (t.positive, t.negative)).collect();
            let result = signed_rank_of_ties(&ties, set.zeros, zero);
            // Valid at every n and never a point (docs/statistics.md); `None` only if a
            // difference left [−1, 1], which validated scores cannot. Built from the
            // histogram, so pairs and a summary give the same interval.
            let histogram = set
                .histogram()
                .into_iter()
                .map(|(d, count)| (d as f64 / MICROS as f64, count));
            let interval =
                Histogram::from_counts(histogram).and_then(|h| betting_interval(&h, confidence));
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
                tails: result.tails,
                method,
                mean_difference,
                spread: Spread::Differences {
                    sd: standard_deviation(set, mean_difference),
                    nonzero: result.n_nonzero,
                },
                detail: format!(
                    "Wilcoxon signed-rank {method_word}, {} non-zero of {n}, W+ {}",
                    result.n_nonzero,
                    number(result.w_plus)
                ),
            }
        }
    }
}

/// The sample standard deviation (divisor n − 1) of the set's differences about their
/// `mean`, from their histogram (so pairs and a summary give the same figure); `None`
/// below two pairs.
fn standard_deviation(set: &Set, mean: f64) -> Option<f64> {
    (set.n >= 2).then(|| {
        let squares: f64 = set
            .histogram()
            .into_iter()
            .map(|(micros, count)| {
                let deviation = micros as f64 / MICROS as f64 - mean;
                count as f64 * deviation * deviation
            })
            .sum();
        (squares / (set.n - 1) as f64).sqrt()
    })
}
