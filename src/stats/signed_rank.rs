//! The Wilcoxon signed-rank test on paired score differences, exact conditional on the
//! observed ties and zeros.
//!
//! Magnitudes get midranks, doubled so that they stay whole numbers; under the null
//! every sign is a fair coin, so W+ is a sum of independent `rank · Bernoulli(½)`
//! terms and its distribution is found by dynamic programming over integer rank sums
//! ([`super::rank_sum::null_cdf`]). Beyond [`EXACT_LIMIT`] non-zero differences, a normal approximation
//! with the tie-corrected variance and a continuity correction is used instead.

use super::rank_sum::null_cdf;
use super::{TIE_TOLERANCE, log_tail, normal};

/// The largest number of non-zero differences for which the null distribution is
/// computed exactly. The cost grows as n³ in the worst case (W+ at the centre of its
/// null with half-integer midranks): about 0.5 s of one core at n = 2,000 and 1 s at
/// 2,500, with at most 25 MB of table; far from the centre, where admissions are
/// decided, it is much faster. Beyond it the normal approximation is used.
pub const EXACT_LIMIT: usize = 2_500;

/// What to do with zero differences (|d| ≤ [`TIE_TOLERANCE`]); `--zero-method`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ZeroMethod {
    /// Drop zeros before ranking (Wilcoxon; R's and scipy's default `wilcox`).
    Wilcox,
    /// Rank zeros with the rest, then drop them, so non-zero ranks start above the
    /// zeros (Pratt 1959; scipy's `pratt`).
    Pratt,
}

/// How the p-values were computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The exact conditional null distribution given the ties.
    Exact,
    /// A normal approximation with tie-corrected variance and continuity correction 0.5.
    NormalApproximation,
}

/// The result of [`signed_rank`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedRank {
    /// Differences that entered the test.
    pub n_nonzero: usize,
    /// Differences treated as zero (|d| ≤ 1e-9, or not finite).
    pub n_zero: usize,
    /// Sum of the (mid)ranks of the positive differences.
    pub w_plus: f64,
    /// P(W+ ≥ observed): evidence that differences (candidate − baseline) tend positive.
    pub p_improvement: f64,
    /// P(W+ ≤ observed): evidence that they tend negative.
    pub p_regression: f64,
    /// min(1, 2 · the smaller one-sided p-value), as R and scipy for this symmetric null.
    pub p_two_sided: f64,
    /// log10 of `p_improvement`, computed in log space: finite and exact where the
    /// p-value itself underflows (−331.133 for 1,100 positive differences).
    pub log10_p_improvement: f64,
    /// log10 of `p_regression`, likewise.
    pub log10_p_regression: f64,
    /// log10 of `p_two_sided`, likewise.
    pub log10_p_two_sided: f64,
    /// Which computation produced the p-values.
    pub method: Method,
    /// Matched-pairs rank-biserial correlation (W+ − W−)/(W+ + W−) in [−1, 1]; `None`
    /// without non-zero differences.
    pub rank_biserial: Option<f64>,
}

/// Doubled midranks of the non-zero magnitudes, in ascending order, and how many of the
/// values were zeros. Doubled ranks are whole numbers even for even-sized tie groups.
struct Ranked {
    /// (doubled rank, difference is positive) for each non-zero difference.
    ranks: Vec<(u64, bool)>,
    n_zero: usize,
}

fn rank(differences: &[f64], zero: ZeroMethod) -> Ranked {
    let mut magnitudes: Vec<(f64, bool)> = Vec::with_capacity(differences.len());
    let mut n_zero = 0;
    for &d in differences {
        if d.is_finite() && d.abs() > TIE_TOLERANCE {
            magnitudes.push((d.abs(), d > 0.0));
        } else {
            n_zero += 1;
        }
    }
    magnitudes.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Pratt: the zeros occupy positions 1..=n_zero and push every other rank up.
    let offset = match zero {
        ZeroMethod::Wilcox => 0,
        ZeroMethod::Pratt => n_zero as u64,
    };
    let mut ranks = Vec::with_capacity(magnitudes.len());
    let mut start = 0;
    while start < magnitudes.len() {
        // A tie group is every value within the tolerance of its smallest member, so
        // ties cannot chain across a long run of near-equal values.
        let head = magnitudes[start].0;
        let end = magnitudes[start..]
            .iter()
            .position(|m| m.0 - head > TIE_TOLERANCE)
            .map_or(magnitudes.len(), |len| start + len);
        let size = (end - start) as u64;
        let doubled = 2 * (offset + start as u64) + size + 1;
        ranks.extend(magnitudes[start..end].iter().map(|m| (doubled, m.1)));
        start = end;
    }
    Ranked { ranks, n_zero }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The Wilcoxon signed-rank test on paired differences (candidate − baseline).
///
/// Differences with |d| ≤ 1e-9 are zeros, handled by `zero`; magnitudes within 1e-9 of
/// the smallest of their group are ties and share a midrank. Inputs should be finite;
/// a NaN or infinite difference is counted as a zero rather than allowed to poison the
/// result. With no non-zero differences every p-value is 1. The exact null is used up
/// to [`EXACT_LIMIT`] non-zero differences and `method` says which was used.
/// Time: O(n log n) plus the cost of [`null_cdf`].
pub fn signed_rank(differences: &[f64], zero: ZeroMethod) -> SignedRank {
    let Ranked { ranks, n_zero } = rank(differences, zero);
    test_ranks(&ranks, n_zero)
}

/// The signed-rank test on differences already grouped into ties: `ties` holds, in
/// ascending order of magnitude, how many differences of each non-zero magnitude are
/// positive and how many negative, and `zeros` counts the zero differences. The
/// result is [`signed_rank`]'s on those differences (the same ranks, the same exact
/// tail sums); beyond [`EXACT_LIMIT`] the normal approximation's moments are summed in
/// whole numbers over the tie groups, so memory grows with the number of distinct
/// magnitudes, not of pairs. Time: O(groups) plus the exact null's cost.
pub fn signed_rank_of_ties(ties: &[(u64, u64)], zeros: u64, zero: ZeroMethod) -> SignedRank {
    let n_nonzero: u64 = ties.iter().map(|&(plus, minus)| plus + minus).sum();
    // Pratt: the zeros occupy positions 1..=zeros and push every other rank up.
    let offset = match zero {
        ZeroMethod::Wilcox => 0,
        ZeroMethod::Pratt => zeros,
    };
    // (doubled midrank, positives, negatives) of each tie group.
    let mut start = 0;
    let groups: Vec<(u64, u64, u64)> = ties
        .iter()
        .filter(|&&(plus, minus)| plus + minus > 0)
        .map(|&(plus, minus)| {
            let doubled = 2 * (offset + start) + plus + minus + 1;
            start += plus + minus;
            (doubled, plus, minus)
        })
        .collect();
    if n_nonzero as usize <= EXACT_LIMIT {
        let ranks: Vec<(u64, bool)> = groups
            .iter()
            .flat_map(|&(doubled, plus, minus)| {
                let positive = std::iter::repeat_n((doubled, true), plus as usize);
                positive.chain(std::iter::repeat_n((doubled, false), minus as usize))
            })
            .collect();
        return test_ranks(&ranks, zeros as usize);
    }
    let doubled_total: u128 = groups
        .iter()
        .map(|&(r, plus, minus)| u128::from(r) * u128::from(plus + minus))
        .sum();
    let doubled_plus: u128 = groups
        .iter()
        .map(|&(r, plus, _)| u128::from(r) * u128::from(plus))
        .sum();
    let doubled_squares: u128 = groups
        .iter()
        .map(|&(r, plus, minus)| u128::from(r) * u128::from(r) * u128::from(plus + minus))
        .sum();
    let w_plus = doubled_plus as f64 / 2.0;
    // W+ has mean Σr/2 and variance Σr²/4 over the midranks r = doubled/2.
    let mean = doubled_total as f64 / 4.0;
    let sd = (doubled_squares as f64 / 16.0).sqrt();
    let (z_improvement, z_regression) = ((w_plus - mean - 0.5) / sd, (w_plus - mean + 0.5) / sd);
    let p_improvement = normal::upper_tail(z_improvement).clamp(0.0, 1.0);
    let p_regression = normal::lower_tail(z_regression).clamp(0.0, 1.0);
    let ln_improvement = normal::ln_upper_tail(z_improvement).min(0.0);
    let ln_regression = normal::ln_upper_tail(-z_regression).min(0.0);
    let log10 = std::f64::consts::LOG10_E;
    SignedRank {
        n_nonzero: n_nonzero as usize,
        n_zero: zeros as usize,
        w_plus,
        p_improvement,
        p_regression,
        p_two_sided: (2.0 * p_improvement.min(p_regression)).min(1.0),
        log10_p_improvement: log10 * ln_improvement,
        log10_p_regression: log10 * ln_regression,
        log10_p_two_sided: (std::f64::consts::LOG10_2 + log10 * ln_improvement.min(ln_regression))
            .min(0.0),
        method: Method::NormalApproximation,
        rank_biserial: Some(
            (2.0 * doubled_plus as f64 - doubled_total as f64) / doubled_total as f64,
        ),
    }
}

/// The test on doubled midranks (with their signs) and the number of zeros.
fn test_ranks(ranks: &[(u64, bool)], n_zero: usize) -> SignedRank {
    let n_nonzero = ranks.len();
    let doubled_total: u64 = ranks.iter().map(|r| r.0).sum();
    let doubled_plus: u64 = ranks.iter().filter(|r| r.1).map(|r| r.0).sum();
    let w_plus = doubled_plus as f64 / 2.0;
    if n_nonzero == 0 {
        return SignedRank {
            n_nonzero,
            n_zero,
            w_plus,
            p_improvement: 1.0,
            p_regression: 1.0,
            p_two_sided: 1.0,
            log10_p_improvement: 0.0,
            log10_p_regression: 0.0,
            log10_p_two_sided: 0.0,
            method: Method::Exact,
            rank_biserial: None,
        };
    }
    let rank_biserial =
        Some((2.0 * doubled_plus as f64 - doubled_total as f64) / doubled_total as f64);
    let ((p_improvement, p_regression), (ln_improvement, ln_regression), method) =
        if n_nonzero <= EXACT_LIMIT {
            let (p, ln) = exact_tails(ranks, doubled_plus);
            (p, ln, Method::Exact)
        } else {
            let (p, ln) = normal_tails(ranks, w_plus);
            (p, ln, Method::NormalApproximation)
        };
    let log10 = std::f64::consts::LOG10_E;
    SignedRank {
        n_nonzero,
        n_zero,
        w_plus,
        p_improvement,
        p_regression,
        p_two_sided: (2.0 * p_improvement.min(p_regression)).min(1.0),
        log10_p_improvement: log10 * ln_improvement,
        log10_p_regression: log10 * ln_regression,
        log10_p_two_sided: (std::f64::consts::LOG10_2 + log10 * ln_improvement.min(ln_regression))
            .min(0.0),
        method,
        rank_biserial,
    }
}

/// Below this a tail from [`null_cdf`] (which flushes entries under 1e-300) is taken in
/// log space from [`log_tail::ln_lower_tail`] instead.
const LOG_SPACE_BELOW: f64 = 1e-280;

/// ln of a lower tail `cdf` that [`null_cdf`] gave for `units` up to `w`: its own
/// logarithm, or the log-space count where it is too small to be exact.
fn ln_tail(cdf: f64, units: &[u64], w: u64) -> f64 {
    if cdf >= LOG_SPACE_BELOW {
        cdf.ln()
    } else {
        log_tail::ln_lower_tail(units, w)
    }
}

/// P(W+ ≥ observed) and P(W+ ≤ observed) under the exact conditional null, and their
/// natural logarithms.
fn exact_tails(ranks: &[(u64, bool)], doubled_plus: u64) -> ((f64, f64), (f64, f64)) {
    // Dividing by the common factor (2 when there are no even-sized tie groups)
    // shrinks the table without changing the distribution.
    let unit = ranks.iter().fold(0, |g, r| gcd(g, r.0));
    let units: Vec<u64> = ranks.iter().map(|r| r.0 / unit).collect();
    let total: u64 = units.iter().sum();
    let observed = doubled_plus / unit;
    // W+ and total − W+ have the same null distribution, so only the lower tail up to
    // the nearer of the two is ever tabulated.
    if observed <= total - observed {
        let tail = null_cdf(&units, observed);
        let regression = tail.cdf;
        let improvement = (1.0 - tail.cdf + tail.point).clamp(0.0, 1.0);
        let ln = (improvement.ln(), ln_tail(regression, &units, observed));
        ((improvement, regression.clamp(0.0, 1.0)), ln)
    } else {
        let tail = null_cdf(&units, total - observed);
        let improvement = tail.cdf;
        let regression = (1.0 - tail.cdf + tail.point).clamp(0.0, 1.0);
        let ln = (
            ln_tail(improvement, &units, total - observed),
            regression.ln(),
        );
        ((improvement.clamp(0.0, 1.0), regression), ln)
    }
}

/// One-sided p-values from the normal approximation: mean Σr/2, variance Σr²/4 over
/// the midranks actually observed (the tie correction), continuity correction ½; and
/// their natural logarithms, from the normal tail in log space.
fn normal_tails(ranks: &[(u64, bool)], w_plus: f64) -> ((f64, f64), (f64, f64)) {
    let mean: f64 = ranks.iter().map(|r| r.0 as f64 / 2.0).sum::<f64>() / 2.0;
    let variance: f64 = ranks
        .iter()
        .map(|r| (r.0 as f64 / 2.0).powi(2))
        .sum::<f64>()
        / 4.0;
    let sd = variance.sqrt();
    let (z_improvement, z_regression) = ((w_plus - mean - 0.5) / sd, (w_plus - mean + 0.5) / sd);
    let improvement = normal::upper_tail(z_improvement);
    let regression = normal::lower_tail(z_regression);
    (
        (improvement.clamp(0.0, 1.0), regression.clamp(0.0, 1.0)),
        (
            normal::ln_upper_tail(z_improvement).min(0.0),
            normal::ln_upper_tail(-z_regression).min(0.0),
        ),
    )
}
