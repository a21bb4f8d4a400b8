//! Normal approximations of power for a paired mean difference, where no exact power
//! is at hand: the signed-rank test on scores (whose exact power depends on the whole
//! distribution of the differences, not on a few rates), and McNemar's test past the
//! sizes at which [`super::power::mcnemar_power`] is affordable inside `admit`.
//!
//! A one-sided level-α test of a mean shift μ on n pairs whose differences have
//! standard deviation σ has power about Φ(μ√n/σ − z₁₋α); 80% power therefore needs
//! μ√n/σ ≥ z₁₋α + z₀.₈. The signed-rank test's efficiency against this z-test is at
//! least 0.864 for any continuous distribution and 0.955 for a normal one (Hodges and
//! Lehmann 1956), so the figures are a guide, which every report says.

use super::normal::quantile;

/// The largest n these functions propose: counts stay exact in `f64` below 2^53.
const MAX_N: f64 = 9_007_199_254_740_992.0;

/// z₁₋α + z_power: the standardised shift a one-sided level-`alpha` z-test detects with
/// probability `power`. `None` unless both are in (0, 1).
///
/// alpha 0.05, power 0.8: 1.6448536269514722 + 0.8416212335729143 (scipy
/// `norm.ppf(0.95) + norm.ppf(0.8)`).
pub(crate) fn z_sum(alpha: f64, power: f64) -> Option<f64> {
    Some(quantile(1.0 - alpha)? + quantile(power)?)
}

/// The mean shift that n pairs whose differences have standard deviation `sd` detect
/// with probability `power` at one-sided `alpha`: (z₁₋α + z_power)·sd/√n. `None` for
/// n = 0, an `sd` that is not positive and finite, or alpha or power outside (0, 1).
#[cfg(test)]
pub(crate) fn detectable_mean_shift(n: u64, sd: f64, alpha: f64, power: f64) -> Option<f64> {
    if n == 0 || !(sd > 0.0 && sd.is_finite()) {
        return None;
    }
    Some(z_sum(alpha, power)? * sd / (n as f64).sqrt())
}

/// The pairs needed to detect a mean shift `mean` with probability `power` at one-sided
/// `alpha` when the differences have standard deviation `sd`: ⌈((z₁₋α + z_power)·sd /
/// mean)²⌉, at least 1. `None` for a mean that is not positive, an `sd` that is negative
/// or not finite, alpha or power outside (0, 1), or more than 2^53 pairs.
pub(crate) fn required_n_for_mean(mean: f64, sd: f64, alpha: f64, power: f64) -> Option<u64> {
    if !(mean > 0.0 && mean.is_finite() && sd >= 0.0 && sd.is_finite()) {
        return None;
    }
    let root = z_sum(alpha, power)? * sd / mean;
    counted(root * root)
}

/// Connor's (1987) sample size for McNemar's test: ⌈((z₁₋α·√ψ + z_power·√(ψ − δ²)) /
/// δ)²⌉ for a shift δ = P(only the candidate right) − P(only the baseline right) and a
/// discordance ψ = P(the arms disagree), δ ≤ ψ (Connor, "Sample size for testing
/// differences in proportions for the paired-sample design", Biometrics 43, 1987).
/// `None` for δ not in (0, ψ], ψ above 1, alpha or power outside (0, 1), or more than
/// 2^53 pairs.
pub(crate) fn connor_required_n(
    shift: f64,
    discordance: f64,
    alpha: f64,
    power: f64,
) -> Option<u64> {
    if !(shift > 0.0 && shift <= discordance && discordance <= 1.0) {
        return None;
    }
    let spread = (discordance - shift * shift).max(0.0).sqrt();
    let root = (quantile(1.0 - alpha)? * discordance.sqrt() + quantile(power)? * spread) / shift;
    counted(root * root)
}

/// ⌈x⌉ as a count of pairs, at least 1; `None` past 2^53 or for NaN.
fn counted(x: f64) -> Option<u64> {
    let n = x.ceil().max(1.0);
    (n <= MAX_N).then_some(n as u64)
}
