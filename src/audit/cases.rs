//! The bounds a claim without per-task data can be held to: the best case (every
//! disagreement the claim implies won by the candidate), the worst case of single-run
//! binary rates (the most discordance the two counts allow), and what the claim's
//! effective n could detect.

use crate::stats::binomial::upper_tail;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::power::min_discordant;

/// Bisection on the 80%-power shift stops when the bracket is this narrow.
const SHIFT_RESOLUTION: f64 = 1e-10;

/// The power [`detectable_shift_80`] asks for.
const POWER: f64 = 0.8;

/// 0.5^k: the one-sided p-value of k disagreements all won, for McNemar's exact test
/// and for the exact signed-rank test with every difference positive alike, and the
/// least either can give on k units. Exact in `f64` (halving) down to 2^-1074.
pub fn best_case_p(k: u64) -> f64 {
    0.5f64.powi(k.min(1100) as i32)
}

/// The worst pairing single-run binary rates allow, as `(b, c, p_improvement)`:
/// `baseline` and `candidate` tasks right of `n`, with `candidate > baseline`.
///
/// Every pairing has c − b = candidate − baseline, b at most `baseline` (the baseline's
/// right answers) and at most n − candidate (the candidate's wrong ones). McNemar's
/// one-sided p grows with b at a fixed difference, so it is largest at
/// b = min(baseline, n − candidate). Checked by enumerating every feasible b for every
/// n ≤ 40 (see the module tests). `None` when the candidate is not ahead or the counts
/// exceed n.
pub fn worst_case(n: u64, baseline: u64, candidate: u64) -> Option<(u64, u64, f64)> {
    if candidate <= baseline || candidate > n {
        return None;
    }
    let b = baseline.min(n - candidate);
    let c = b + candidate - baseline;
    Some((b, c, mcnemar_exact(b, c).tails.p_improvement))
}

/// The smallest share δ of `units` that the test detects with 80% power at `alpha`
/// when each unit improves with probability δ and none worsens: then the p-value is
/// 0.5^D with D ~ Binomial(units, δ), significant when D reaches k = the fewest wins
/// with 0.5^k < alpha, so the power is P(D ≥ k), which rises with δ. This is
/// `stats::power::mcnemar_power` at discordance = shift (all disagreements one way),
/// solved for the shift by bisection to 1e-10. `None` when units < k or alpha is
/// outside (0, 1].
pub fn detectable_shift_80(units: u64, alpha: f64) -> Option<f64> {
    let k = u64::from(min_discordant(alpha)?);
    if units < k {
        return None;
    }
    let (mut low, mut high) = (0.0_f64, 1.0_f64);
    while high - low > SHIFT_RESOLUTION {
        let mid = 0.5 * (low + high);
        if upper_tail(k, units, mid) >= POWER {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// The whole count k of n that `rate` stands for, if one is within its rounding:
/// |k/n − rate| ≤ half a unit in the rate's last decimal. `0.886` of 350 is 310
/// (310/350 = 0.88571); `0.767` of 100 is none (0.77 and 0.76 are both too far).
pub(super) fn whole_count(rate: super::Rate, n: u64) -> Option<u64> {
    let k = (rate.value * n as f64).round().clamp(0.0, n as f64);
    // A hair of slack for the binary representation of the decimal text.
    let close = (k / n as f64 - rate.value).abs() <= rate.rounding * (1.0 + 1e-9) + 1e-15;
    close.then_some(k as u64)
}
