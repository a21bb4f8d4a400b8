//! A percentile bootstrap interval for the mean paired score difference, on the seeded
//! stream of [`crate::base::random`] (its `expanded` seeding), so the interval for a
//! given seed never changes when `rand` does.

use super::interval::Interval;
use super::valid_level;
use crate::base::random::Random;

/// The p-quantile of sorted values with linear interpolation between order statistics
/// (Hyndman & Fan type 7, numpy's and R's default).
fn interpolated_quantile(sorted: &[f64], p: f64) -> f64 {
    let position = p * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let fraction = position - below as f64;
    sorted[below] + fraction * (sorted[above] - sorted[below])
}

/// Percentile bootstrap interval for the mean of `differences`.
///
/// Draws `resamples` resamples of the same size with replacement, from
/// [`Random::expanded`]`(seed)` through [`Random::below`], and takes the
/// (1 − confidence)/2 and (1 + confidence)/2 type-7 quantiles of their means. `None`
/// for no differences, a non-finite difference, zero resamples or a confidence outside
/// (0, 1). Time: O(resamples · n + resamples log resamples).
pub fn mean_difference_interval(
    differences: &[f64],
    confidence: f64,
    resamples: u32,
    seed: u64,
) -> Option<Interval> {
    if differences.is_empty()
        || resamples == 0
        || !valid_level(confidence)
        || differences.iter().any(|d| !d.is_finite())
    {
        return None;
    }
    let mut rng = Random::expanded(seed);
    let n = differences.len() as u64;
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let total: f64 = (0..n).map(|_| differences[rng.below(n) as usize]).sum();
            total / n as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let tail = 0.5 * (1.0 - confidence);
    Some(Interval {
        low: interpolated_quantile(&means, tail),
        high: interpolated_quantile(&means, 1.0 - tail),
        confidence,
    })
}
