//! The Wilcoxon signed-rank test on paired score differences, exact conditional on the
//! observed ties and zeros.
//!
//! Magnitudes get midranks, doubled so that they stay whole numbers; under the null
//! every sign is a fair coin, so W+ is a sum of independent `rank · Bernoulli(½)`
//! terms, or per tie group `rank · Binomial(size, ½)`. Its lower tail comes from
//! whichever exact computation is estimated cheapest: the knapsack over single ranks
//! ([`null_table::null_cdf`], small n), the convolution over tie groups
//! (`tie_groups::lower_tail`, a few distinct magnitudes), or the numerical
//! inversion of the characteristic function (`inversion::lower_tail`, with a
//! proven bound on what it leaves out). The null is exact up to [`EXACT_LIMIT`]
//! non-zero differences whatever the ties, up to [`INVERSION_LIMIT`] whenever the
//! inversion fits [`INVERSION_BUDGET`] (in practice always below it), and beyond it on
//! lumpy lattices ([`LUMPY_GROUPS`], [`LUMPY_SHARE`]) within that budget; otherwise the
//! continuity-corrected saddlepoint approximation is used, within
//! [`SADDLEPOINT_RELATIVE_ERROR`] of the exact tail for many distinct magnitudes.

pub(crate) mod inversion;
pub(crate) mod log_tail;
pub mod null_table;
pub(crate) mod saddlepoint;
pub(crate) mod tie_groups;

use super::TIE_TOLERANCE;
use super::tails::Tails;
use null_table::null_cdf;
pub use saddlepoint::SADDLEPOINT_RELATIVE_ERROR;
use tie_groups::TieGroup;

/// The largest number of non-zero differences for which the null distribution is
/// always computed exactly, whatever the ties: the knapsack, whose cost grows as n³ at
/// worst (82–163 s at 10,000 with all magnitudes distinct), answers when the cheaper
/// inversion declines, which it has not been seen to do for many distinct magnitudes.
pub const EXACT_LIMIT: usize = 10_000;

/// Beyond [`EXACT_LIMIT`], the tie-group convolution is still used when it needs at
/// most this many products (about 2 s of one core at worst); with a few distinct
/// magnitudes that holds at n = 10^5 and beyond.
pub const GROUP_BUDGET: u64 = 1_500_000_000;

/// The most non-zero differences the tie-group convolution is tried on. Its tables
/// grow with the tail's reach (about n² rank units): with the limit at 10^5 an `admit`
/// of 10^6 quarter-point pairs spent 7 s and 524 MB tabulating strata tails of
/// p ≈ 1e-300. Beyond it the inversion, which needs memory only per tie group, answers.
pub const GROUPED_LIMIT: usize = 20_000;

/// The most non-zero differences the inversion of the characteristic function
/// (`inversion::lower_tail`) is tried on whatever the ties; past it the inversion is
/// tried only on a lumpy lattice ([`LUMPY_GROUPS`], [`LUMPY_SHARE`]) and the
/// saddlepoint answers the rest.
pub const INVERSION_LIMIT: usize = 100_000;

/// Past [`INVERSION_LIMIT`], a lattice of at most this many tie groups is lumpy: the
/// inversion answers it (within [`INVERSION_BUDGET`]), because the saddlepoint misses
/// such lattices beyond its stated bound. Measured at n = 10^6, z = 3, equal groups:
/// the saddlepoint is off by 1.2e-3 with two groups, 5e-4 with four, 2.4e-5 with a
/// hundred and 1.0e-5 with two hundred, and by 7.5e-7 with three hundred, 7.3e-7 with
/// five hundred and 2.8e-7 with a thousand; the inversion took 0.3–1 s on each.
pub const LUMPY_GROUPS: usize = 1_000;

/// Past [`INVERSION_LIMIT`], a lattice whose largest tie group holds at least
/// 1 / `LUMPY_SHARE` of the non-zero differences is lumpy too, however many groups
/// (the inversion still has to fit its budget).
pub const LUMPY_SHARE: u64 = 100;

/// The inversion gives up past this many integrand terms (values × tie groups, about
/// 40 ns each on one core: about 2 s), and the next method answers.
pub const INVERSION_BUDGET: u64 = 50_000_000;

/// One integrand term of the inversion (a sine, an arctangent and a logarithm) costs
/// about this many knapsack additions.
const INVERSION_VALUE_COST: u64 = 130;

/// The exact computations [`grouped_tails`] chooses from.
#[derive(Clone, Copy)]
enum Exact {
    Knapsack,
    /// With the work budget it was planned at.
    TieGroups(u64),
    Inversion,
}

/// One product of the tie-group convolution (a scattered multiply-add) costs about this
/// many knapsack additions (vectorised, streaming; measured at n = 2,500 with a
/// hundred tie groups): used to pick the cheaper method.
const GROUP_PRODUCT_COST: u64 = 20;

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
    /// The continuity-corrected saddlepoint approximation (Lugannani–Rice with
    /// Daniels' lattice correction), within [`SADDLEPOINT_RELATIVE_ERROR`] of the
    /// exact tail for many distinct magnitudes: beyond [`INVERSION_LIMIT`] non-zero
    /// differences, or where the inversion declines.
    Saddlepoint,
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
    /// The p-values: improvement P(W+ ≥ observed), regression P(W+ ≤ observed),
    /// two-sided min(1, 2 · the smaller); each with its log10 from the log-space tail.
    pub tails: Tails,
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
/// tail sums); beyond [`EXACT_LIMIT`] the tie groups go to the same tail computation
/// without being expanded, so memory grows with the number of distinct magnitudes, not
/// of pairs. Time: O(groups) plus the exact null's cost.
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
    let doubled_total: u64 = groups
        .iter()
        .map(|&(r, plus, minus)| r * (plus + minus))
        .sum();
    let doubled_plus: u64 = groups.iter().map(|&(r, plus, _)| r * plus).sum();
    let sizes: Vec<(u64, u64)> = groups
        .iter()
        .map(|&(r, plus, minus)| (r, plus + minus))
        .collect();
    let tails = grouped_tails(&sizes, doubled_plus);
    from_tails(
        n_nonzero as usize,
        zeros as usize,
        doubled_plus,
        doubled_total,
        tails,
    )
}

/// The result from the two one-sided tails, their natural logarithms and the method:
/// the one place the rank-biserial correlation is derived, and the two-sided tail
/// chosen for [`Tails::from_ln`].
fn from_tails(
    n_nonzero: usize,
    n_zero: usize,
    doubled_plus: u64,
    doubled_total: u64,
    tails: ((f64, f64), (f64, f64), Method),
) -> SignedRank {
    let ((p_improvement, p_regression), (ln_improvement, ln_regression), method) = tails;
    SignedRank {
        n_nonzero,
        n_zero,
        w_plus: doubled_plus as f64 / 2.0,
        tails: Tails::from_ln(
            (p_improvement, ln_improvement),
            (p_regression, ln_regression),
            (
                p_improvement.min(p_regression),
                ln_improvement.min(ln_regression),
            ),
        ),
        method,
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
            tails: Tails::none(),
            method: Method::Exact,
            rank_biserial: None,
        };
    }
    let tails = tails(ranks, doubled_plus);
    from_tails(n_nonzero, n_zero, doubled_plus, doubled_total, tails)
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

/// The saddlepoint tails of [`signed_rank`] whatever n: (P(W+ ≥ observed), P(W+ ≤
/// observed)), for measuring the approximation against exact values. Both are 1 without
/// non-zero differences.
pub fn saddlepoint_tails(differences: &[f64], zero: ZeroMethod) -> (f64, f64) {
    let Ranked { ranks, .. } = rank(differences, zero);
    if ranks.is_empty() {
        return (1.0, 1.0);
    }
    let unit = ranks.iter().fold(0, |g, r| gcd(g, r.0));
    let groups = tie_groups(&ranks, unit);
    let total: u64 = groups.iter().map(|g| g.rank * g.count).sum();
    let observed = ranks.iter().filter(|r| r.1).map(|r| r.0).sum::<u64>() / unit;
    (
        saddlepoint::lower_tail(&groups, total - observed),
        saddlepoint::lower_tail(&groups, observed),
    )
}

/// The tie groups of ascending doubled ranks, in rank units of `unit`.
fn tie_groups(ranks: &[(u64, bool)], unit: u64) -> Vec<TieGroup> {
    let mut groups: Vec<TieGroup> = Vec::new();
    for &(doubled, _) in ranks {
        match groups.last_mut() {
            Some(last) if last.rank == doubled / unit => last.count += 1,
            _ => groups.push(TieGroup {
                rank: doubled / unit,
                count: 1,
            }),
        }
    }
    groups
}

/// P(W+ ≥ observed), P(W+ ≤ observed), their natural logarithms (exact below the
/// `f64` range too) and the method that gave them.
fn tails(ranks: &[(u64, bool)], doubled_plus: u64) -> ((f64, f64), (f64, f64), Method) {
    let mut sizes: Vec<(u64, u64)> = Vec::new();
    for &(doubled, _) in ranks {
        match sizes.last_mut() {
            Some(last) if last.0 == doubled => last.1 += 1,
            _ => sizes.push((doubled, 1)),
        }
    }
    grouped_tails(&sizes, doubled_plus)
}

/// [`tails`] from (doubled midrank, group size) in ascending order: single ranks are
/// expanded only for the knapsack, within [`EXACT_LIMIT`].
fn grouped_tails(sizes: &[(u64, u64)], doubled_plus: u64) -> ((f64, f64), (f64, f64), Method) {
    // Dividing by the common factor (2 when there are no even-sized tie groups)
    // shrinks the tables without changing the distribution.
    let unit = sizes.iter().fold(0, |g, r| gcd(g, r.0));
    let groups: Vec<TieGroup> = sizes
        .iter()
        .map(|&(doubled, count)| TieGroup {
            rank: doubled / unit,
            count,
        })
        .collect();
    let n: u64 = groups.iter().map(|g| g.count).sum();
    let total: u64 = groups.iter().map(|g| g.rank * g.count).sum();
    let observed = doubled_plus / unit;
    // W+ and total − W+ have the same null distribution, so only the lower tail up to
    // the nearer of the two is ever tabulated.
    let nearer = observed.min(total - observed);
    let estimate = saddlepoint::lower_tail(&groups, nearer);
    let largest = groups.iter().map(|g| g.count).max().unwrap_or(0);
    let knapsack_work = (n - largest).saturating_mul(nearer + 1);
    let within_limit = n as usize <= EXACT_LIMIT;
    // The exact computations that apply, cheapest first by their estimated cost in
    // knapsack additions; the first to answer wins (the knapsack always does).
    let mut candidates: Vec<(u64, Exact)> = Vec::new();
    if within_limit {
        candidates.push((knapsack_work, Exact::Knapsack));
    }
    if let Some(work) = tie_groups::work(&groups, nearer, estimate)
        .filter(|&work| n as usize <= GROUPED_LIMIT && work <= GROUP_BUDGET)
    {
        candidates.push((
            work.saturating_mul(GROUP_PRODUCT_COST),
            Exact::TieGroups(work),
        ));
    }
    // Past the limit only a lumpy lattice goes to the inversion: a smooth one is where
    // the saddlepoint's stated bound was tested, and the inversion's cost grows with
    // the number of groups.
    let lumpy = groups.len() <= LUMPY_GROUPS || largest.saturating_mul(LUMPY_SHARE) >= n;
    let inversion_work = inversion::work(&groups);
    if n as usize <= INVERSION_LIMIT || (lumpy && inversion_work <= INVERSION_BUDGET) {
        candidates.push((
            inversion_work.saturating_mul(INVERSION_VALUE_COST),
            Exact::Inversion,
        ));
    }
    candidates.sort_by_key(|c| c.0);
    let exact = candidates.iter().find_map(|&(_, kind)| match kind {
        Exact::Knapsack => {
            let units: Vec<u64> = groups
                .iter()
                .flat_map(|g| std::iter::repeat_n(g.rank, g.count as usize))
                .collect();
            let tail = null_cdf(&units, nearer);
            Some((tail.cdf, tail.point, ln_tail(tail.cdf, &units, nearer)))
        }
        Exact::TieGroups(budget) => tie_groups::lower_tail(&groups, nearer, estimate, budget)
            .map(|t| (t.cdf, t.point, t.ln_cdf)),
        Exact::Inversion => inversion::lower_tail(&groups, nearer, INVERSION_BUDGET)
            .map(|t| (t.cdf, t.point, t.ln_cdf)),
    });
    let Some((cdf, point, ln_cdf)) = exact else {
        let (regression, ln_regression) = saddlepoint::tail(&groups, observed);
        let (improvement, ln_improvement) = saddlepoint::tail(&groups, total - observed);
        return (
            (improvement, regression),
            (ln_improvement, ln_regression),
            Method::Saddlepoint,
        );
    };
    let nearer_tail = (cdf.clamp(0.0, 1.0), ln_cdf.min(0.0));
    let farther = (1.0 - cdf + point).clamp(0.0, 1.0);
    let farther_tail = (farther, farther.ln().min(0.0));
    let ((improvement, ln_improvement), (regression, ln_regression)) =
        if observed <= total - observed {
            (farther_tail, nearer_tail)
        } else {
            (nearer_tail, farther_tail)
        };
    (
        (improvement, regression),
        (ln_improvement, ln_regression),
        Method::Exact,
    )
}
