//! Binomial probabilities that stay accurate for any n up to 2^53, in any tail.
//!
//! Point probabilities use Loader's saddle-point form (C. Loader, "Fast and accurate
//! computation of binomial probabilities", 2000; R's `dbinom_raw`), which has no
//! cancellation between large log-gammas. Tails sum those terms outward from the
//! observed count with a proven stopping rule, in units of the first term, so nothing
//! overflows and nothing underflows while the tail itself is above about 1e-300.

use super::{TAIL_TRUNCATION, clamp_probability};

/// ln(2π).
const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// `stirlerr(n) = ln n! − (n + ½) ln n + n − ½ ln 2π` for n = 0..=15, computed with
/// mpmath 1.4.1 at 40 digits (`loggamma(n+1) - (n+0.5)*log(n) + n - log(2*pi)/2`).
/// Entry 0 is never used: a count of 0 takes its own branch.
const STIRLERR_TABLE: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// How many terms a tail sum takes by the ratio recurrence before it recomputes a term
/// from scratch, so that rounding in the recurrence cannot drift by more than about
/// `3 · 256` ulps.
const REANCHOR_EVERY: u32 = 256;

/// The error term of Stirling's series for ln n!, for an integer n ≥ 1.
///
/// Above 15 the asymptotic series is used with enough terms that the first omitted
/// one is below 2e-17 (Bernoulli-number coefficients 1/12, 1/360, 1/1260, 1/1680,
/// 1/1188, 691/360360).
fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    const S5: f64 = 691.0 / 360_360.0;
    if n <= 15.0 {
        // n is a whole number in 1..=15 here, so the cast indexes the table exactly.
        return STIRLERR_TABLE[n as usize];
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - (S4 - S5 / nn) / nn) / nn) / nn) / nn) / n
    }
}

/// The deviance term `x ln(x/m) + m − x` for x ≥ 0 and m > 0, without cancellation.
///
/// Near x = m it uses the series in `v = (x − m)/(x + m)` (all terms of one sign);
/// further out, `ln(x/m)` is taken as `ln_1p((x − m)/m)` so the relative error stays
/// a few ulps of the larger of the two terms, which are then within a factor 3.
fn bd0(x: f64, m: f64) -> f64 {
    if x == 0.0 {
        return m;
    }
    let diff = x - m;
    let v = diff / (x + m);
    if v.abs() < 0.5 {
        let mut sum = diff * v;
        let mut term = 2.0 * x * v;
        let v2 = v * v;
        // v² < 1/4, so 60 terms reach far below one ulp of the sum.
        for j in 1..60 {
            term *= v2;
            let next = sum + term / f64::from(2 * j + 1);
            if next == sum {
                break;
            }
            sum = next;
        }
        sum
    } else {
        x * (diff / m).ln_1p() - diff
    }
}

/// ln P(X = k) for real-valued k, n (whole numbers, 0 ≤ k ≤ n) and p = 1 − q.
fn ln_pmf_real(k: f64, n: f64, p: f64, q: f64) -> f64 {
    if p == 0.0 {
        return if k == 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if q == 0.0 {
        return if k == n { 0.0 } else { f64::NEG_INFINITY };
    }
    if k == 0.0 {
        if n == 0.0 {
            return 0.0;
        }
        return if p < 0.1 {
            -bd0(n, n * q) - n * p
        } else {
            n * (-p).ln_1p()
        };
    }
    if k == n {
        return if q < 0.1 {
            -bd0(n, n * p) - n * q
        } else {
            n * p.ln()
        };
    }
    let lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n * p) - bd0(n - k, n * q);
    let lf = LN_2PI + k.ln() + (-k / n).ln_1p();
    lc - 0.5 * lf
}

/// ln P(X = k) for X ~ Binomial(n, p).
///
/// Relative error of the probability is a few ulps times the size of its logarithm
/// (Loader 2000). Returns `f64::NEG_INFINITY`, the logarithm of an exact zero, when
/// k > n or p excludes k; p outside [0, 1] is clamped into it, and a NaN p counts as 0.
/// Counts above 2^53 are rounded to the nearest `f64`. Time: O(1).
pub fn ln_pmf(k: u64, n: u64, p: f64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    let p = clamp_probability(p);
    ln_pmf_real(k as f64, n as f64, p, 1.0 - p)
}

/// Up to this n, tails at p = ½ are sums of whole binomial coefficients below 2^53,
/// so they are computed exactly: a p-value that equals a dyadic alpha such as 1/16 is
/// then exactly equal to it, and `p < alpha` is decided without rounding.
const EXACT_HALF_LIMIT: u64 = 53;

/// Σ C(n, j) for j in `from..=to` (n ≤ 53), scaled by 2^-n: exact in `f64`.
fn exact_half_sum(from: u64, to: u64, n: u64) -> f64 {
    let mut coefficient = 1_u64;
    let mut total = 0_u64;
    for j in 0..=to {
        if j >= from {
            total += coefficient;
        }
        // C(n, j + 1) = C(n, j) (n − j)/(j + 1) is a whole number below 2^53 · 53.
        coefficient = coefficient * (n - j) / (j + 1);
    }
    total as f64 * 0.5_f64.powi(n as i32)
}

/// P(X = k) for X ~ Binomial(n, p): exact at p = ½ for n ≤ 53, otherwise `ln_pmf`
/// exponentiated (0 below about 1e-308).
pub fn pmf(k: u64, n: u64, p: f64) -> f64 {
    if k <= n && n <= EXACT_HALF_LIMIT && p == 0.5 {
        return exact_half_sum(k, k, n);
    }
    ln_pmf(k, n, p).exp()
}

/// Which way a tail sum walks from its first term.
#[derive(Clone, Copy)]
enum Walk {
    /// k, k + 1, …, n.
    Up,
    /// k, k − 1, …, 0.
    Down,
}

/// ln Σ P(X = j) from j = `start` away from the mean to the end of the support, for a
/// start on the far side of the mean so that the terms only shrink. The logarithm is
/// that of the first term plus that of the sum relative to it, so it stays exact far
/// below the `f64` range (ln 2^-5000 for 5,000 wins of 5,000).
///
/// Terms are kept relative to the first, so the sum neither overflows nor underflows;
/// the ratios `P(X = j ± 1)/P(X = j)` decrease along the walk, so once the current term
/// times `r/(1 − r)` is below `TAIL_TRUNCATION` of the sum, everything left is too.
fn ln_tail_from(start: f64, n: f64, p: f64, q: f64, walk: Walk) -> f64 {
    let anchor = ln_pmf_real(start, n, p, q);
    if anchor == f64::NEG_INFINITY {
        return f64::NEG_INFINITY;
    }
    let odds = match walk {
        Walk::Up => p / q,
        Walk::Down => q / p,
    };
    let mut j = start;
    let mut term = 1.0_f64;
    let mut sum = 1.0_f64;
    let mut since_anchor = 0;
    loop {
        let ratio = match walk {
            Walk::Up if j < n => (n - j) / (j + 1.0) * odds,
            Walk::Down if j > 0.0 => j / (n - j + 1.0) * odds,
            _ => break,
        };
        if ratio < 1.0 && term * ratio / (1.0 - ratio) <= TAIL_TRUNCATION * sum {
            break;
        }
        j = match walk {
            Walk::Up => j + 1.0,
            Walk::Down => j - 1.0,
        };
        since_anchor += 1;
        term = if since_anchor == REANCHOR_EVERY {
            since_anchor = 0;
            (ln_pmf_real(j, n, p, q) - anchor).exp()
        } else {
            term * ratio
        };
        sum += term;
    }
    anchor + sum.ln()
}

/// [`ln_tail_from`] exponentiated: 0 once the tail is below the `f64` range.
fn tail_from(start: f64, n: f64, p: f64, q: f64, walk: Walk) -> f64 {
    ln_tail_from(start, n, p, q, walk).exp()
}

/// P(X ≥ k) for X ~ Binomial(n, p).
///
/// The smaller of the two tails is always summed directly and the larger taken as its
/// complement, so the relative error is about 1e-14 whichever side k is on (proof in
/// the module tests: exact rational arithmetic for n ≤ 2,000, mpmath for n to 2^53).
/// p is clamped into [0, 1] (NaN counts as 0). Time: O(min(|k − np|, 40·σ) + 1) with
/// σ = √(npq), about 1 ms at n = 10^9; at n near 2^53 and k near the mean it is
/// seconds, because about 40·σ ≈ 10^9 terms matter.
pub fn upper_tail(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if n <= EXACT_HALF_LIMIT && p == 0.5 {
        return exact_half_sum(k, n, n);
    }
    let p = clamp_probability(p);
    let q = 1.0 - p;
    let (kf, nf) = (k as f64, n as f64);
    if kf > nf * p {
        tail_from(kf, nf, p, q, Walk::Up)
    } else {
        1.0 - tail_from(kf - 1.0, nf, p, q, Walk::Down)
    }
}

/// P(X ≤ k) for X ~ Binomial(n, p).
///
/// The mirror of [`upper_tail`], with the same accuracy and cost.
pub fn lower_tail(k: u64, n: u64, p: f64) -> f64 {
    if k >= n {
        return 1.0;
    }
    if n <= EXACT_HALF_LIMIT && p == 0.5 {
        return exact_half_sum(0, k, n);
    }
    let p = clamp_probability(p);
    let q = 1.0 - p;
    let (kf, nf) = (k as f64, n as f64);
    if kf < nf * p {
        tail_from(kf, nf, p, q, Walk::Down)
    } else {
        1.0 - tail_from(kf + 1.0, nf, p, q, Walk::Up)
    }
}

/// ln P(X ≥ k) for X ~ Binomial(n, p), in log space where the tail is summed, so that
/// it stays finite and accurate for tails far below the `f64` range (the McNemar
/// p-value of 0 of 1,100 discordant pairs won by the baseline is 2^-1100; its natural
/// log is −762.46). `f64::NEG_INFINITY` only for an impossible k (k > n, or p
/// excluding it). Same accuracy and cost as [`upper_tail`].
pub fn ln_upper_tail(k: u64, n: u64, p: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    if k > n {
        return f64::NEG_INFINITY;
    }
    if n <= EXACT_HALF_LIMIT && p == 0.5 {
        // At least 2^-53: exact, and its logarithm is all the precision there is.
        return exact_half_sum(k, n, n).ln();
    }
    let p = clamp_probability(p);
    let q = 1.0 - p;
    let (kf, nf) = (k as f64, n as f64);
    if kf > nf * p {
        ln_tail_from(kf, nf, p, q, Walk::Up)
    } else {
        (-tail_from(kf - 1.0, nf, p, q, Walk::Down)).ln_1p()
    }
}

/// ln P(X ≤ k) for X ~ Binomial(n, p): the mirror of [`ln_upper_tail`].
pub fn ln_lower_tail(k: u64, n: u64, p: f64) -> f64 {
    if k >= n {
        return 0.0;
    }
    if n <= EXACT_HALF_LIMIT && p == 0.5 {
        return exact_half_sum(0, k, n).ln();
    }
    let p = clamp_probability(p);
    let q = 1.0 - p;
    let (kf, nf) = (k as f64, n as f64);
    if kf < nf * p {
        ln_tail_from(kf, nf, p, q, Walk::Down)
    } else {
        (-tail_from(kf + 1.0, nf, p, q, Walk::Up)).ln_1p()
    }
}

/// Two-sided p-value of R's `binom.test(k, n, p)`: the total probability of every
/// outcome no more likely than the one observed (with R's relative slack of 1e-7).
///
/// The outcomes on the far side of the mean form one tail because the probabilities
/// fall monotonically away from the mode, so a binary search finds where it starts.
/// Time: O(log n) point probabilities plus two tails.
pub fn two_sided_minlike(k: u64, n: u64, p: f64) -> f64 {
    if k > n || n == 0 {
        return 1.0;
    }
    let p = clamp_probability(p);
    let threshold = ln_pmf(k, n, p) + 1e-7_f64.ln_1p();
    let mean = n as f64 * p;
    let kf = k as f64;
    let total = if kf == mean {
        1.0
    } else if kf < mean {
        // First i in [ceil(mean), n] whose probability is at most the observed one.
        let mut low = mean.ceil() as u64;
        let mut high = n + 1;
        while low < high {
            let mid = low + (high - low) / 2;
            if ln_pmf(mid, n, p) <= threshold {
                high = mid;
            } else {
                low = mid + 1;
            }
        }
        lower_tail(k, n, p) + upper_tail(low, n, p)
    } else {
        // Number of i in [0, floor(mean)] whose probability is at most the observed one.
        let mut low = 0_u64;
        let mut high = mean.floor() as u64 + 1;
        while low < high {
            let mid = low + (high - low) / 2;
            if ln_pmf(mid, n, p) <= threshold {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        let below = if low == 0 {
            0.0
        } else {
            lower_tail(low - 1, n, p)
        };
        below + upper_tail(k, n, p)
    };
    total.min(1.0)
}
