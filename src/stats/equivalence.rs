//! Tests against a margin M on the paired difference Δ = candidate − baseline: the
//! one-sided test of non-inferiority (H0: Δ ≤ −M, the candidate is worse by M or more)
//! and of non-superiority (H0: Δ ≥ +M); equivalence within ±M is shown when both reject
//! (Schuirmann's two one-sided tests, TOST), so its p-value is the larger of the two.
//!
//! For 0/1 outcomes the test is the melded exact McNemar test for the difference in
//! proportions (Fay & Lumbard, Stat. Med. 2021; R's `exact2x2::mcnemarExactDP`), which
//! is McNemar's exact conditional test at M = 0. For scores it is the signed-rank test
//! on the differences shifted by the margin, and the betting test of their mean. Why
//! these and not others, and their measured size: `docs/statistics.md`.

use std::sync::OnceLock;

use super::binomial;
use super::bounded_mean::{Histogram, p_mean_at_most};
use super::signed_rank::{SignedRank, ZeroMethod, signed_rank_of_ties};

/// The p-values of the two one-sided tests against a margin M.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarginTails {
    /// The test of H0: Δ ≤ −M. Below alpha, the candidate is shown non-inferior: worse
    /// by less than M.
    pub p_noninferiority: f64,
    /// The test of H0: Δ ≥ +M. Below alpha, the candidate is shown better by less
    /// than M.
    pub p_nonsuperiority: f64,
}

impl MarginTails {
    /// No evidence either way (no pairs): both p-values 1.
    pub const fn none() -> MarginTails {
        MarginTails {
            p_noninferiority: 1.0,
            p_nonsuperiority: 1.0,
        }
    }

    /// The p-value of equivalence within ±M (TOST): the larger one-sided p-value, since
    /// equivalence is shown only when both tests reject.
    pub fn p_equivalence(self) -> f64 {
        self.p_noninferiority.max(self.p_nonsuperiority)
    }

    /// The intersection–union of two tests of the same hypotheses (each must reject):
    /// the larger p-value on each side.
    pub fn both(self, other: MarginTails) -> MarginTails {
        MarginTails {
            p_noninferiority: self.p_noninferiority.max(other.p_noninferiority),
            p_nonsuperiority: self.p_nonsuperiority.max(other.p_nonsuperiority),
        }
    }
}

/// The melded exact McNemar tests at `margin` in [0, 1) on n pairs with b pairs only the
/// baseline got right and c only the candidate got right: non-inferiority from
/// [`melded_noninferiority`] on c, non-superiority on b (the arms swapped). At margin 0
/// both are McNemar's exact one-sided p-values, P(X ≥ c) and P(X ≥ b) for
/// X ~ Binomial(b + c, ½). Time: see [`melded_noninferiority`].
pub fn mcnemar_margin(b: u64, c: u64, n: u64, margin: f64) -> MarginTails {
    let m = b.saturating_add(c);
    MarginTails {
        p_noninferiority: melded_noninferiority(c, m, n, margin),
        p_nonsuperiority: melded_noninferiority(b, m, n, margin),
    }
}

/// The melded p-value of H0: Δ ≤ −`margin` with x of the m discordant pairs won by the
/// candidate among n pairs: P(T·(2B − 1) ≤ −margin) for independent T ~ Beta(m + 1,
/// n − m) and B ~ Beta(x, m − x + 1), the upper confidence distribution of the
/// discordance ψ and the lower one of the share θ of discordant pairs the candidate wins
/// (Δ = ψ·(2θ − 1)). This is R's `exact2x2::mcnemarExactDP(x, m, n, nullparm =
/// -margin, alternative = "greater")$p.value`.
///
/// Since P(B ≤ q) = P(Binomial(m, q) ≥ x) and T's density is n·P(Binomial(n − 1, t) =
/// m), the p-value is ∫ P(Binomial(m, ½ − margin/(2t)) ≥ x) · n·P(Binomial(n − 1, t) =
/// m) dt over [margin, 1]: a polynomial of degree n − 1 in t, integrated by adaptive
/// Gauss–Legendre panels around T's mode (exact for the polynomial up to 39th degree).
/// Closed forms: margin 0 gives P(Binomial(m, ½) ≥ x) (McNemar); x = 0 gives P(T ≥
/// margin) = P(Binomial(n, margin) ≤ m); m = n gives P(Binomial(m, (1 − margin)/2) ≥
/// x). Arguments outside 0 ≤ x ≤ m ≤ n, 0 ≤ margin < 1 are clamped into them.
/// Time: O(panels · 20 · binomial tail), about 1 ms at n = 10^6.
pub fn melded_noninferiority(x: u64, m: u64, n: u64, margin: f64) -> f64 {
    let n = n.max(1);
    let m = m.min(n);
    let x = x.min(m);
    let margin = if margin > 0.0 { margin.min(1.0) } else { 0.0 };
    if margin == 0.0 {
        return binomial::upper_tail(x, m, 0.5);
    }
    if x == 0 {
        return if m == n {
            1.0
        } else {
            binomial::lower_tail(m, n, margin)
        };
    }
    if m == n {
        return binomial::upper_tail(x, m, 0.5 * (1.0 - margin));
    }
    let integrand = |t: f64| {
        let share = 0.5 - margin / (2.0 * t);
        binomial::upper_tail(x, m, share) * n as f64 * binomial::pmf(m, n - 1, t)
    };
    super::clamp_probability(integrate(&integrand, &panel_edges(m, n, margin)))
}

/// The edges of the panels over [margin, 1]: T's mode ± 1, 2, 4, …, 64 standard
/// deviations, clipped, so that every panel sees a smooth stretch of the density and
/// the panels far out hold too little mass to matter.
fn panel_edges(m: u64, n: u64, margin: f64) -> Vec<f64> {
    let (a, b) = ((m + 1) as f64, (n - m) as f64);
    let mode = if n > 1 {
        m as f64 / (n - 1) as f64
    } else {
        1.0
    };
    let sd = (a * b / ((a + b) * (a + b) * (a + b + 1.0))).sqrt();
    let mut edges = vec![margin, 1.0];
    let mut width = sd;
    for _ in 0..7 {
        edges.extend([mode - width, mode + width]);
        width *= 2.0;
    }
    edges.push(mode);
    edges.retain(|e| (margin..=1.0).contains(e));
    edges.sort_by(f64::total_cmp);
    edges.dedup();
    edges
}

/// Panels whose 10- and 20-point estimates differ by more than this fraction of the
/// whole integral are halved.
const PANEL_RELATIVE: f64 = 1e-14;

/// How many times a panel may be halved.
const MAX_DEPTH: u32 = 40;

/// (node, weight) pairs of one Gauss–Legendre rule on [−1, 1].
type Rule = Vec<(f64, f64)>;

/// The 10- and 20-point Gauss–Legendre rules on [−1, 1], computed once.
fn rules() -> &'static (Rule, Rule) {
    static RULES: OnceLock<(Rule, Rule)> = OnceLock::new();
    RULES.get_or_init(|| {
        use super::signed_rank::inversion::gauss_legendre;
        (gauss_legendre(10), gauss_legendre(20))
    })
}

/// ∫ f over [lo, hi] by the Gauss–Legendre `rule`.
fn panel(f: &dyn Fn(f64) -> f64, lo: f64, hi: f64, rule: &[(f64, f64)]) -> f64 {
    let (half, middle) = (0.5 * (hi - lo), 0.5 * (hi + lo));
    half * rule
        .iter()
        .map(|&(x, w)| w * f(middle + half * x))
        .sum::<f64>()
}

/// ∫ f over the span of `edges`: a first pass of 20-point panels sets the scale, then
/// each panel is halved until its two rules agree to [`PANEL_RELATIVE`] of the whole.
fn integrate(f: &dyn Fn(f64) -> f64, edges: &[f64]) -> f64 {
    let (coarse, fine) = rules();
    let scale: f64 = edges
        .windows(2)
        .map(|w| panel(f, w[0], w[1], fine).abs())
        .sum();
    if scale == 0.0 {
        return 0.0;
    }
    let tolerance = PANEL_RELATIVE * scale;
    let mut total = 0.0;
    let mut stack: Vec<(f64, f64, u32)> = edges.windows(2).map(|w| (w[0], w[1], 0)).collect();
    while let Some((lo, hi, depth)) = stack.pop() {
        let precise = panel(f, lo, hi, fine);
        let rough = panel(f, lo, hi, coarse);
        if (precise - rough).abs() <= tolerance || depth >= MAX_DEPTH {
            total += precise;
        } else {
            let mid = 0.5 * (lo + hi);
            stack.push((lo, mid, depth + 1));
            stack.push((mid, hi, depth + 1));
        }
    }
    total
}

/// The signed-rank tests against `margin` on differences given as distinct values with
/// their counts, in any whole units (micro-units of score for `admit`), `margin` in the
/// same units: non-inferiority is the test for improvement on every difference plus the
/// margin, non-superiority the test for regression on every difference minus it. Exact
/// conditional on the shifted magnitudes (their ties and zeros handled by `zero` as for
/// the unshifted test), under the null that the differences are symmetric about −M
/// (respectively +M): a shift of a symmetric distribution. It speaks of the centre of
/// the differences, not of their mean; [`betting_margin`] speaks of the mean.
pub fn signed_rank_margin(values: &[(i64, u64)], margin: i64, zero: ZeroMethod) -> MarginTails {
    MarginTails {
        p_noninferiority: shifted(values, margin, zero).tails.p_improvement,
        p_nonsuperiority: shifted(values, -margin, zero).tails.p_regression,
    }
}

/// The signed-rank test on every value plus `shift`.
fn shifted(values: &[(i64, u64)], shift: i64, zero: ZeroMethod) -> SignedRank {
    let mut moved: Vec<(i128, u64)> = values
        .iter()
        .filter(|v| v.1 > 0)
        .map(|&(v, count)| (i128::from(v) + i128::from(shift), count))
        .collect();
    moved.sort_by_key(|&(v, _)| (v.unsigned_abs(), v));
    let zeros = moved.iter().filter(|v| v.0 == 0).map(|v| v.1).sum();
    let mut ties: Vec<(u128, u64, u64)> = Vec::new();
    for &(value, count) in moved.iter().filter(|v| v.0 != 0) {
        let (plus, minus) = if value > 0 { (count, 0) } else { (0, count) };
        match ties.last_mut() {
            Some(last) if last.0 == value.unsigned_abs() => {
                last.1 += plus;
                last.2 += minus;
            }
            _ => ties.push((value.unsigned_abs(), plus, minus)),
        }
    }
    let ties: Vec<(u64, u64)> = ties.iter().map(|&(_, plus, minus)| (plus, minus)).collect();
    signed_rank_of_ties(&ties, zeros, zero)
}

/// The betting tests against `margin` of the mean of differences in [−1, 1]: p =
/// min(1, 1/K) for the mixture capital K against "the mean is at most −M" (and, on the
/// negated differences, "at least +M"), valid at every n for any distribution of
/// independent differences (Markov's inequality on a test martingale; see
/// [`p_mean_at_most`]).
pub fn betting_margin(histogram: &Histogram, margin: f64) -> MarginTails {
    MarginTails {
        p_noninferiority: p_mean_at_most(histogram, -margin),
        p_nonsuperiority: p_mean_at_most(&histogram.negated(), -margin),
    }
}
