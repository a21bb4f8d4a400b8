//! What a holdout of n pairs can detect with McNemar's exact one-sided test.
//!
//! The best case (every disagreement in the candidate's favour) gives the minimum
//! detectable shift that every admission report states; the exact power under a
//! discordance rate and a true shift gives the shift detectable with a chosen power.

use super::binomial;

/// The largest n at which [`mcnemar_power`] sums over every possible number of
/// discordant pairs; above it, only the ±12σ window around the mean (mass outside
/// below 1e-30).
const FULL_SUM_LIMIT: u64 = 10_000;

/// Bisection on a shift stops when the bracket is this narrow.
const SHIFT_RESOLUTION: f64 = 1e-10;

/// The largest holdout [`required_n`] will propose: 2^53, where counts stop being exact
/// in `f64`.
const MAX_N: u64 = 1 << 53;

/// The largest n for which [`mcnemar_power`] is computed, and so the largest that
/// [`required_n_for_power`] will propose. One evaluation sums about 24σ_D binomial
/// tails of about √n terms each and the searches evaluate it some 35 times: about 3 s
/// of one core at 10^6 pairs, hours at 10^12. No holdout that is graded by hand or by
/// a model comes near it.
pub const EXACT_POWER_LIMIT: u64 = 1_000_000;

/// Whether `alpha` is a usable significance level, in (0, 1].
fn valid_alpha(alpha: f64) -> bool {
    alpha > 0.0 && alpha <= 1.0
}

/// The smallest k with 0.5^k < alpha (strict): the fewest discordant pairs, all one
/// way, that can make the one-sided exact test significant at `alpha`.
///
/// alpha = 0.05 gives 5, alpha = 1/16 gives 5 (0.5^4 is not below it), alpha = 1/32
/// gives 6. `None` unless alpha is in (0, 1]. Powers of ½ are formed by halving, which
/// is exact in `f64` down to 2^-1074, so the comparison has no rounding.
pub fn min_discordant(alpha: f64) -> Option<u32> {
    if !valid_alpha(alpha) {
        return None;
    }
    let mut power = 1.0_f64;
    for k in 0..=1074 {
        if power < alpha {
            return Some(k);
        }
        power *= 0.5;
    }
    // alpha is at least the smallest subnormal, 2^-1074, and 2^-1075 is below it.
    Some(1075)
}

/// The smallest paired shift any result on n pairs could show at `alpha`: k/n with
/// k = [`min_discordant`], or `None` when n < k (no result could be significant).
///
/// n = 6, alpha 0.05 gives 5/6; n = 100 gives 0.05.
pub fn min_detectable_shift(n: u64, alpha: f64) -> Option<f64> {
    let k = u64::from(min_discordant(alpha)?);
    (n >= k && n > 0).then(|| k as f64 / n as f64)
}

/// The smallest n whose best case can detect `shift`: the least n with k/n ≤ shift,
/// compared exactly as [`min_detectable_shift`] computes k/n, so shift 0.05 at alpha
/// 0.05 gives 100 and not 101. `None` for a shift that is not positive or needs more
/// than 2^53 pairs.
pub fn required_n(shift: f64, alpha: f64) -> Option<u64> {
    let k = u64::from(min_discordant(alpha)?);
    if shift.is_nan() || shift <= 0.0 {
        return None;
    }
    let guess = (k as f64 / shift).ceil();
    if guess > MAX_N as f64 {
        return None;
    }
    // The guess may be one off either way after rounding; settle it with the same
    // division that min_detectable_shift performs.
    let mut n = (guess as u64).max(k);
    while n > k && k as f64 / (n - 1) as f64 <= shift {
        n -= 1;
    }
    while k as f64 / n as f64 > shift {
        n += 1;
    }
    Some(n)
}

/// Exact power of the one-sided exact McNemar test for improvement at level `alpha`
/// (reject when `p_improvement < alpha`) on n pairs.
///
/// `discordance` is ψ = P(the arms disagree) and `shift` is δ = P(only the candidate is
/// right) − P(only the baseline is right), so |δ| ≤ ψ ≤ 1. The number of discordant
/// pairs is D ~ Binomial(n, ψ) and, given D = d, the candidate-only count is
/// Binomial(d, (ψ + δ)/(2ψ)); the power is Σ_d P(D = d) · P(reject | d), with the
/// rejection region found exactly for each d. `None` for parameters outside those
/// ranges, alpha outside (0, 1] or n above [`EXACT_POWER_LIMIT`].
/// Time: O(min(n, 24σ_D) · √n) binomial terms.
pub fn mcnemar_power(n: u64, discordance: f64, shift: f64, alpha: f64) -> Option<f64> {
    let valid = valid_alpha(alpha)
        && (0.0..=1.0).contains(&discordance)
        && shift.abs() <= discordance
        && n <= EXACT_POWER_LIMIT;
    if !valid {
        return None;
    }
    if discordance == 0.0 || n == 0 {
        return Some(0.0);
    }
    let share = ((discordance + shift) / (2.0 * discordance)).clamp(0.0, 1.0);
    let (first, last) = if n <= FULL_SUM_LIMIT {
        (0, n)
    } else {
        let mean = n as f64 * discordance;
        let spread = 12.0 * (mean * (1.0 - discordance)).sqrt() + 12.0;
        let first = (mean - spread).floor().max(0.0) as u64;
        let last = ((mean + spread).ceil() as u64).min(n);
        (first, last)
    };
    let mut critical = critical_count(first, alpha);
    let mut power = 0.0;
    for d in first..=last {
        // The critical count never falls as d grows and rises by at most one per step.
        if d > first && critical <= d && binomial::upper_tail(critical, d, 0.5) >= alpha {
            critical += 1;
        }
        if critical > d {
            continue;
        }
        let weight = binomial::ln_pmf(d, n, discordance).exp();
        power += weight * binomial::upper_tail(critical, d, share);
    }
    Some(power.clamp(0.0, 1.0))
}

/// The smallest c with P(X ≥ c) < alpha for X ~ Binomial(d, ½), or d + 1 when even c = d
/// is not significant.
fn critical_count(d: u64, alpha: f64) -> u64 {
    let (mut low, mut high) = (0, d + 1);
    while low < high {
        let mid = low + (high - low) / 2;
        if binomial::upper_tail(mid, d, 0.5) < alpha {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    low
}

/// The smallest shift δ in (0, ψ] at which [`mcnemar_power`] reaches `power`, by
/// bisection to 1e-10 (power rises with δ because the rejection region is fixed and
/// the candidate-only count grows stochastically). `None` when even δ = ψ falls short
/// or the arguments are invalid.
pub fn detectable_shift(n: u64, discordance: f64, alpha: f64, power: f64) -> Option<f64> {
    if !(power > 0.0 && power < 1.0) {
        return None;
    }
    if mcnemar_power(n, discordance, discordance, alpha)? < power {
        return None;
    }
    let (mut low, mut high) = (0.0_f64, discordance);
    while high - low > SHIFT_RESOLUTION {
        let mid = 0.5 * (low + high);
        if mcnemar_power(n, discordance, mid, alpha)? >= power {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// The smallest shift δ in (0, 1] that n pairs detect with probability `power` when
/// they disagree at rate max(`observed`, δ): the observed discordance, or, for a shift
/// beyond it, the least discordance that shift needs (every disagreement one way, so
/// that a stratum where the arms never disagreed still gets a finite answer).
///
/// Power rises with δ on both pieces (a fixed discordance as in [`detectable_shift`];
/// with ψ = δ it is P(D ≥ k) for D ~ Binomial(n, δ)) and they meet at δ = `observed`,
/// so bisection finds the crossing. `None` when even δ = 1 falls short (n below
/// [`min_discordant`]) or the arguments are invalid.
pub fn detectable_shift_at_observed(n: u64, observed: f64, alpha: f64, power: f64) -> Option<f64> {
    if !((0.0..=1.0).contains(&observed) && power > 0.0 && power < 1.0) {
        return None;
    }
    if observed > 0.0
        && let Some(shift) = detectable_shift(n, observed, alpha, power)
    {
        return Some(shift);
    }
    if mcnemar_power(n, 1.0, 1.0, alpha)? < power {
        return None;
    }
    let (mut low, mut high) = (observed, 1.0_f64);
    while high - low > SHIFT_RESOLUTION {
        let mid = 0.5 * (low + high);
        if mcnemar_power(n, mid, mid, alpha)? >= power {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// An n at which [`mcnemar_power`] reaches `power` for this discordance and shift:
/// doubling until it does, then bisection between the last n that failed and the first
/// that passed.
///
/// The power of an exact test saw-tooths in n, so a few n just below the answer may
/// also reach the target and a few above may not; this is only a crossing, the starting
/// point of [`n_for_power`], which names the two n a user needs. `None` for invalid
/// arguments, a shift that is not positive, or no n up to [`EXACT_POWER_LIMIT`].
pub fn required_n_for_power(shift: f64, discordance: f64, alpha: f64, power: f64) -> Option<u64> {
    if !(power > 0.0 && power < 1.0 && shift > 0.0) {
        return None;
    }
    let reaches = |n: u64| mcnemar_power(n, discordance, shift, alpha).map(|p| p >= power);
    let mut high = u64::from(min_discordant(alpha)?).max(1);
    let mut low = 0;
    while !reaches(high)? {
        if high >= EXACT_POWER_LIMIT {
            return None;
        }
        low = high;
        high = (high * 2).min(EXACT_POWER_LIMIT);
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if reaches(mid)? {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high)
}

/// The two sample sizes a saw-toothed power curve has: the smallest n whose power
/// reaches the target, and the n from which power stays at or above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PowerCrossings {
    /// The smallest n with power ≥ target.
    pub smallest: u64,
    /// The n from which every larger n (within the scan) also has power ≥ target.
    pub stays_from: u64,
}

/// Shortest scan on either side of the bisection's crossing, in pairs.
const CROSSING_SCAN_MIN: u64 = 64;
/// Longest scan below the crossing, and the run of passing n that ends the scan above.
const CROSSING_SCAN_MAX: u64 = 512;

/// The smallest n with [`mcnemar_power`] ≥ `power`, and the n from which it stays there.
///
/// Exact power is not monotone in n (for ψ = 1, δ = 0.16, α = 0.05, 80%: n = 245 reaches
/// it, 246 does not, and it holds from 258 on), so bisection alone returns whichever
/// crossing it meets. From that crossing H this scans every n in [H − w, H] for the
/// first that passes, and upward until w consecutive n pass, where w = H/4 clamped to
/// [64, 512]: the saw-tooth's dips shrink as n grows and span far fewer pairs than w at
/// the sizes checked (scipy reference in the tests), and each n scanned costs one exact
/// power, so the cap bounds the cost at large n. A dip further than w from the crossing
/// would go unseen. `None` as for [`required_n_for_power`].
pub fn n_for_power(shift: f64, discordance: f64, alpha: f64, power: f64) -> Option<PowerCrossings> {
    let crossing = required_n_for_power(shift, discordance, alpha, power)?;
    let reaches = |n: u64| mcnemar_power(n, discordance, shift, alpha).map(|p| p >= power);
    let window = (crossing / 4).clamp(CROSSING_SCAN_MIN, CROSSING_SCAN_MAX);
    let mut smallest = crossing;
    let mut last_failure = None;
    for n in crossing.saturating_sub(window).max(1)..crossing {
        if reaches(n)? {
            smallest = smallest.min(n);
        } else if n > smallest {
            last_failure = Some(n);
        }
    }
    let mut run = 0;
    let mut n = crossing;
    while run < window && n < EXACT_POWER_LIMIT {
        n += 1;
        if reaches(n)? {
            run += 1;
        } else {
            run = 0;
            last_failure = Some(n);
        }
    }
    let stays_from = last_failure.map_or(smallest, |n| n + 1);
    Some(PowerCrossings {
        smallest,
        stays_from,
    })
}
