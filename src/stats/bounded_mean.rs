//! A confidence interval for the mean of paired score differences that holds its level
//! at every n: a betting (test-martingale) interval for a mean bounded in [−1, 1], after
//! Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting",
//! JRSS B 2024 (arXiv 2010.09686), with a fixed grid of constant bets so that it depends
//! on the differences only through their histogram. Why this one and not the bootstrap,
//! Anderson's or the empirical-Bernstein bound: `docs/statistics.md`.

use super::interval::Interval;
use super::valid_level;

/// The differences as distinct values in [−1, 1] with their counts, sorted by value.
/// Everything this module computes is a function of this summary alone, so it is the
/// same for any order of the pairs and can come from a database's `GROUP BY`.
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    counts: Vec<(f64, u64)>,
    n: u64,
}

impl Histogram {
    /// The histogram of `values`. `None` when a value is not finite or lies outside
    /// [−1, 1] (a score difference cannot), or there are no values. Time: O(n log n).
    pub fn of(values: &[f64]) -> Option<Histogram> {
        // One sorted copy counted in place (not a (value, 1) entry per difference for
        // `from_counts`): at 10^6 pairs that is 8 MB held, not 24 MB.
        let mut sorted = values.to_vec();
        for value in &mut sorted {
            if !(-1.0..=1.0).contains(value) {
                return None;
            }
            // −0 and 0 are one value: `total_cmp` would keep them apart.
            *value += 0.0;
        }
        sorted.sort_unstable_by(f64::total_cmp);
        let mut counts: Vec<(f64, u64)> = Vec::new();
        for value in sorted {
            match counts.last_mut() {
                Some(last) if last.0 == value => last.1 += 1,
                _ => counts.push((value, 1)),
            }
        }
        let n = values.len() as u64;
        (n > 0).then_some(Histogram { counts, n })
    }

    /// The histogram of (value, count) entries in any order, with repeated values
    /// merged. `None` under the same conditions as [`Histogram::of`], or when the
    /// counts overflow. Time: O(k log k) for k entries.
    pub fn from_counts(entries: impl IntoIterator<Item = (f64, u64)>) -> Option<Histogram> {
        let mut entries: Vec<(f64, u64)> = entries.into_iter().filter(|e| e.1 > 0).collect();
        if entries.iter().any(|(v, _)| !(-1.0..=1.0).contains(v)) {
            return None;
        }
        // −0 and 0 are one value: `total_cmp` would keep them apart.
        for entry in &mut entries {
            entry.0 += 0.0;
        }
        entries.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut counts: Vec<(f64, u64)> = Vec::with_capacity(entries.len());
        let mut n = 0u64;
        for (value, count) in entries {
            n = n.checked_add(count)?;
            match counts.last_mut() {
                Some(last) if last.0 == value => last.1 += count,
                _ => counts.push((value, count)),
            }
        }
        (n > 0).then_some(Histogram { counts, n })
    }

    /// The number of differences.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The mean difference, summed in value order.
    pub fn mean(&self) -> f64 {
        let total: f64 = self.counts.iter().map(|&(v, c)| v * c as f64).sum();
        total / self.n as f64
    }

    /// The same histogram with every value negated (baseline and candidate swapped).
    pub(crate) fn negated(&self) -> Histogram {
        Histogram {
            counts: self.counts.iter().rev().map(|&(v, c)| (-v, c)).collect(),
            n: self.n,
        }
    }
}

/// The bet fractions c of the mixture for n differences: 1, 1/2, 1/4, … down to the
/// first at or below 1/√n. The best constant bet against a mean m is about
/// (1 + m)·√(2·ln(1/α)/n)/σ; with σ ≤ 1 it never needs to be much below 1/√n, and a
/// grid in factors of 2 loses under 9% of the exponent to the nearest point.
pub fn bet_fractions(n: u64) -> Vec<f64> {
    let smallest = 1.0 / (n.max(1) as f64).sqrt();
    let mut fractions = vec![1.0];
    while fractions[fractions.len() - 1] > smallest {
        let next = 0.5 * fractions[fractions.len() - 1];
        fractions.push(next);
    }
    fractions
}

/// ln K(m), the log of the mixture capital against "the mean is at most m", for m in
/// (−1, 1): K(m) = (1/J)·Σ_j Π_i (1 + c_j·(x_i − m)/(1 + m)) over the J bet fractions.
/// Each factor is at least 1 − c_j ≥ 0, and under a mean at most m each product has
/// expectation at most 1 (for independent pairs, identically distributed or not, by
/// the AM–GM inequality), so P(K(μ) ≥ 1/α) ≤ α by Markov's inequality.
fn log_capital(histogram: &Histogram, fractions: &[f64], m: f64) -> f64 {
    let logs: Vec<f64> = fractions
        .iter()
        .map(|&c| {
            histogram
                .counts
                .iter()
                .map(|&(x, count)| count as f64 * log_factor(c, x, m))
                .sum()
        })
        .collect();
    log_mean_exp(&logs)
}

/// ln(1 + c·(x − m)/(1 + m)): one pair's factor in the capital of the bet fraction c
/// against "the mean is at most m".
pub(crate) fn log_factor(c: f64, x: f64, m: f64) -> f64 {
    // c·(x − m)/(1 + m) in this order is exactly −c at x = −1 (c is a power of two), so
    // no factor rounds below 0; `max` guards the rest.
    (c * (x - m) / (1.0 + m)).max(-1.0).ln_1p()
}

/// ln((1/J)·Σ_j e^{logs_j}), by log-sum-exp: products of thousands of factors leave the
/// f64 range. −∞ when every entry is −∞ (every bettor lost everything).
pub(crate) fn log_mean_exp(logs: &[f64]) -> f64 {
    let top = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if top == f64::NEG_INFINITY {
        return top;
    }
    let sum: f64 = logs.iter().map(|l| (l - top).exp()).sum();
    top + (sum / logs.len() as f64).ln()
}

/// The p-value of "the mean is at most m" (m in (−1, 1)) from the betting capital:
/// min(1, 1/K(m)) for the mixture K of [`bet_fractions`]. K(μ) at the true mean μ ≤ m
/// is a non-negative variable of expectation at most 1, so P(1/K ≤ alpha) ≤ alpha by
/// Markov's inequality, at every n and for every distribution of independent
/// differences in [−1, 1]: a valid p-value, conservative rather than exact. It is below
/// alpha exactly when m lies below the one-sided (1 − alpha) [`betting_interval`]
/// bound. With more than [`DISTINCT_LIMIT`] distinct values they are first rounded down
/// to [`grid_step`], as for the interval, which can only raise the p-value.
pub fn p_mean_at_most(histogram: &Histogram, m: f64) -> f64 {
    let grid = on_grid(histogram);
    let histogram: &Histogram = &grid;
    let capital = log_capital(histogram, &bet_fractions(histogram.n), m);
    (-capital).exp().min(1.0)
}

/// The search stops when the bracket is this narrow: far below the four decimals a
/// report prints, and the bound returned is the rejected end, so the level still holds.
const RESOLUTION: f64 = 1e-10;

/// At most this many root-finding steps a bound; about 10 are usual.
const MAX_STEPS: u32 = 200;

/// Above this many distinct values, [`betting_interval`] first rounds them outward to a grid
/// (see [`grid_step`]): the cost is proportional to the number of distinct values.
pub const DISTINCT_LIMIT: usize = 4_096;

/// The grid for many distinct values: the largest power of two at most 1/(64·√n), a
/// sixty-fourth of the spread of a mean of n values in [−1, 1]. Rounding every value
/// down by less than this moves the lower bound down by about as much, and never up.
pub fn grid_step(n: u64) -> f64 {
    let exponent = (64.0 * (n.max(1) as f64).sqrt()).log2().ceil() as i32;
    2f64.powi(-exponent)
}

impl Histogram {
    /// Every value rounded down to a multiple of `step` (a power of two, so −1 stays −1).
    fn rounded_down(&self, step: f64) -> Histogram {
        Histogram::from_counts(
            self.counts
                .iter()
                .map(|&(v, c)| ((v / step).floor() * step, c)),
        )
        .expect("rounding down keeps values in [-1, 1] and the total")
    }
}

/// The one-sided lower bound at level 1 − alpha: the smallest m that the capital does
/// not reject. The capital falls as m rises (every product does), so the crossing is
/// found on a bracket by regula falsi with the Illinois modification (Dowell & Jarratt
/// 1971), bisecting while an end is still at infinite capital. With more than
/// [`DISTINCT_LIMIT`] distinct values they are first rounded down to [`grid_step`]:
/// the capital rises with every value, so this can only lower the bound, and the level
/// still holds.
fn lower_bound(histogram: &Histogram, alpha: f64) -> f64 {
    lower_bound_with(histogram, alpha, None)
}

/// [`lower_bound`] with the bet fractions given (`None`: [`bet_fractions`] of the
/// histogram's n). A sequential monitor fixes them before the first pair, so that the
/// bound holds at every look at once (`stats::sequential`).
pub(crate) fn lower_bound_with(histogram: &Histogram, alpha: f64, bets: Option<&[f64]>) -> f64 {
    let grid = on_grid(histogram);
    let histogram: &Histogram = &grid;
    let own;
    let fractions = match bets {
        Some(bets) => bets,
        None => {
            own = bet_fractions(histogram.n);
            &own
        }
    };
    let threshold = -alpha.ln();
    let excess = |m: f64| log_capital(histogram, fractions, m) - threshold;
    // At the observed mean every product is at most exp(Σ c·(x − m)/(1 + m)) = 1, below
    // 1/alpha; m = −1 has infinite capital unless every difference is −1, when the mean
    // is −1 too and the bracket is empty.
    let (mut rejected, mut kept) = (-1.0_f64, histogram.mean().max(-1.0));
    let (mut excess_rejected, mut excess_kept) = (f64::INFINITY, excess(kept));
    let mut last_moved_kept: Option<bool> = None;
    for _ in 0..MAX_STEPS {
        let width = kept - rejected;
        if width <= RESOLUTION {
            break;
        }
        let secant = rejected + width * excess_rejected / (excess_rejected - excess_kept);
        let mid = if secant.is_finite() && rejected < secant && secant < kept {
            secant
        } else {
            0.5 * (rejected + kept)
        };
        let value = excess(mid);
        let moved_kept = value < 0.0;
        if moved_kept {
            (kept, excess_kept) = (mid, value);
            // Illinois: an end left standing twice has its value halved, so the next
            // secant lands beyond the root and that end moves too.
            if last_moved_kept == Some(true) {
                excess_rejected *= 0.5;
            }
        } else {
            (rejected, excess_rejected) = (mid, value);
            if last_moved_kept == Some(false) {
                excess_kept *= 0.5;
            }
        }
        last_moved_kept = Some(moved_kept);
    }
    // The rejected end is on the safe side of the crossing: the level holds exactly.
    rejected
}

/// The betting confidence interval for the mean of differences in [−1, 1] at two-sided
/// `confidence`: the lower and upper one-sided bounds each at level 1 − (1 −
/// confidence)/2, from the mixture of constant bets [`bet_fractions`].
///
/// Guarantee: for independent differences in [−1, 1], P(mean < low) ≤ (1 −
/// confidence)/2 and P(mean > high) ≤ (1 − confidence)/2 at every n, with no
/// assumption on the distribution (test martingales and Markov's inequality; Ville
/// 1939, Waudby-Smith & Ramdas 2024, §4 "betting"). The bounds are never equal (all
/// differences c gives a bound on each side of c, away from ±1) and the observed mean
/// lies between them. `None` for a confidence outside (0, 1). Time: O(J·k) per
/// root-finding step for k distinct values (at most [`DISTINCT_LIMIT`], or the grid's
/// at most 256·√n + 1 grid points beyond) and J ≈ log2(√n) + 1 bets, about 10 steps a side.
pub fn betting_interval(histogram: &Histogram, confidence: f64) -> Option<Interval> {
    if !valid_level(confidence) {
        return None;
    }
    let alpha = 0.5 * (1.0 - confidence);
    Some(Interval {
        low: lower_bound(histogram, alpha),
        high: -lower_bound(&histogram.negated(), alpha),
        confidence,
    })
}

/// What a report says the interval is.
pub const METHOD: &str =
    "betting interval for a mean in [-1, 1] (Waudby-Smith & Ramdas), valid at every n";

/// The histogram as the betting bounds read it: rounded down to [`grid_step`] when it
/// holds more than [`DISTINCT_LIMIT`] distinct values (which can only lower the mean).
fn on_grid(histogram: &Histogram) -> std::borrow::Cow<'_, Histogram> {
    if histogram.counts.len() > DISTINCT_LIMIT {
        std::borrow::Cow::Owned(histogram.rounded_down(grid_step(histogram.n)))
    } else {
        std::borrow::Cow::Borrowed(histogram)
    }
}
