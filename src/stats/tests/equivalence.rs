//! The tests against a margin (`stats::equivalence`) against independent computations:
//! an exact-polynomial oracle and McNemar's enumeration for the melded test, every sign
//! vector for the shifted signed-rank test, the reference tables of
//! `benches/equivalence_reference.py` (exact rationals, mpmath, scipy), the exact size
//! of each rule at the margin, and properties.

use super::equivalence_tables::{BETTING, MELDED, SHIFTED};
use super::{EXACT_TOLERANCE, assert_relative, choose};
use crate::stats::binomial;
use crate::stats::bounded_mean::{Histogram, betting_interval, p_mean_at_most};
use crate::stats::equivalence::{
    betting_margin, mcnemar_margin, melded_noninferiority, signed_rank_margin,
};
use crate::stats::interval::paired_difference;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::ZeroMethod;
use crate::stats::signed_rank::inversion::gauss_legendre;

/// Agreement required with the reference tables (the brief's 1e-9).
const TABLE_TOLERANCE: f64 = 1e-9;

/// The melded p-value as its polynomial: Σ_{j ≥ x} C(m, j) 2^−m (t − M)^j (t + M)^(m − j)
/// (1 − t)^(n − m − 1) · n!/(m!(n − m − 1)!), every term non-negative on [M, 1], integrated
/// by one n-point Gauss–Legendre rule over [M, 1], exact for a polynomial of degree
/// n − 1. No binomial tail, no beta density, no panels.
fn polynomial_oracle(x: u64, m: u64, n: u64, margin: f64) -> f64 {
    assert!(x >= 1 && m < n && margin > 0.0);
    let scale = n as f64 * choose(n - 1, m) as f64 / 2f64.powi(m as i32);
    let rule = gauss_legendre(n as usize);
    let (half, middle) = (0.5 * (1.0 - margin), 0.5 * (1.0 + margin));
    rule.iter()
        .map(|&(node, weight)| {
            let t = middle + half * node;
            let sum: f64 = (x..=m)
                .map(|j| {
                    choose(m, j) as f64
                        * (t - margin).powi(j as i32)
                        * (t + margin).powi((m - j) as i32)
                })
                .sum();
            half * weight * sum * (1.0 - t).powi((n - m - 1) as i32) * scale
        })
        .sum()
}

#[test]
fn melded_test_is_the_exact_polynomial_integral_for_every_outcome_up_to_thirty_pairs() {
    for n in [5_u64, 12, 21, 30] {
        for margin in [0.01, 0.05, 0.1, 0.25, 0.6] {
            for m in 1..n {
                for x in 1..=m {
                    let expected = polynomial_oracle(x, m, n, margin);
                    let what = format!("x {x} m {m} n {n} margin {margin}");
                    let got = melded_noninferiority(x, m, n, margin);
                    assert_relative(got, expected, EXACT_TOLERANCE, &what);
                }
            }
        }
    }
}

#[test]
fn at_margin_zero_the_melded_test_is_mcnemars_exact_test() {
    for b in 0..25_u64 {
        for c in 0..25_u64 {
            let exact = mcnemar_exact(b, c).tails;
            let margin = mcnemar_margin(b, c, 60, 0.0);
            assert_eq!(margin.p_noninferiority, exact.p_improvement, "b {b} c {c}");
            assert_eq!(margin.p_nonsuperiority, exact.p_regression, "b {b} c {c}");
        }
    }
    // And it approaches McNemar continuously as the margin shrinks.
    let near = mcnemar_margin(3, 11, 40, 1e-9).p_noninferiority;
    assert_relative(
        near,
        mcnemar_exact(3, 11).tails.p_improvement,
        1e-6,
        "margin 1e-9",
    );
}

#[test]
fn melded_test_matches_the_reference_table_to_a_billionth() {
    for &(n, b, c, numerator, denominator, ni, ns) in MELDED {
        let margin = numerator as f64 / denominator as f64;
        let got = mcnemar_margin(b, c, n, margin);
        let what = format!("n {n} b {b} c {c} margin {margin}");
        assert_relative(got.p_noninferiority, ni, TABLE_TOLERANCE, &what);
        assert_relative(got.p_nonsuperiority, ns, TABLE_TOLERANCE, &what);
    }
}

#[test]
fn melded_closed_forms_are_the_binomial_tails_they_reduce_to() {
    // No candidate-only pair: P(T ≥ M) = P(Binomial(n, M) ≤ m).
    assert_eq!(
        melded_noninferiority(0, 7, 50, 0.1),
        binomial::lower_tail(7, 50, 0.1)
    );
    // Every pair discordant: T = 1, so P(Binomial(m, (1 − M)/2) ≥ x).
    assert_eq!(
        melded_noninferiority(9, 20, 20, 0.1),
        binomial::upper_tail(9, 20, 0.45)
    );
}

#[test]
fn melded_p_values_are_probabilities_monotone_in_the_margin_and_the_wins() {
    let n = 80;
    for b in (0..40_u64).step_by(3) {
        for c in (0..40_u64).step_by(3) {
            let mut last = f64::INFINITY;
            for margin in [0.0, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8] {
                let tails = mcnemar_margin(b, c, n, margin);
                let p = tails.p_noninferiority;
                assert!((0.0..=1.0).contains(&p), "b {b} c {c} margin {margin}: {p}");
                // A larger margin is an easier claim: its p-value is no larger.
                assert!(
                    p <= last + 1e-15,
                    "b {b} c {c} margin {margin}: {p} > {last}"
                );
                last = p;
                // Swapping the arms swaps the two one-sided tests.
                let swapped = mcnemar_margin(c, b, n, margin);
                assert_eq!(swapped.p_nonsuperiority, p);
                // One more win for the candidate among the discordant pairs (one fewer
                // for the baseline) can only lower the non-inferiority p-value.
                if b > 0 {
                    let better = mcnemar_margin(b - 1, c + 1, n, margin).p_noninferiority;
                    assert!(better <= p + 1e-15, "b {b} c {c} margin {margin}");
                }
            }
        }
    }
}

/// Which (b, c) a rule rejects on n pairs, indexed [b][c].
fn rejections(n: u64, rejects: &dyn Fn(u64, u64) -> bool) -> Vec<Vec<bool>> {
    (0..=n)
        .map(|b| (0..=n - b).map(|c| rejects(b, c)).collect())
        .collect()
}

/// P(reject) at the boundary Δ = −margin, discordance ψ, summed over every (b, c) with its
/// trinomial probability: the exact size of a rule at that point, no simulation.
fn exact_size(n: u64, discordance: f64, margin: f64, rejected: &[Vec<bool>]) -> f64 {
    let share = (discordance - margin) / (2.0 * discordance);
    let mut size = 0.0;
    for m in 0..=n {
        let p_m = binomial::pmf(m, n, discordance);
        for c in 0..=m {
            if rejected[(m - c) as usize][c as usize] {
                size += p_m * binomial::pmf(c, m, share);
            }
        }
    }
    size
}

#[test]
fn the_melded_margin_test_keeps_its_level_where_the_tango_bound_did_not() {
    // `admit --margin` used to pass a stratum when Tango's asymptotic 90% lower bound was
    // above −M. At 30 pairs, margin 0.05 and the arms disagreeing on 7% of tasks (all
    // losses then more often than wins by the margin), the bound passed a candidate truly
    // worse by the margin more often than alpha; the melded test does not.
    let (n, margin, alpha) = (30, 0.05, 0.05);
    let tango = rejections(n, &|b, c| {
        paired_difference(b, c, n, 1.0 - 2.0 * alpha).is_some_and(|i| i.low > -margin)
    });
    let melded = rejections(n, &|b, c| {
        mcnemar_margin(b, c, n, margin).p_noninferiority < alpha
    });
    let mut worst_tango: f64 = 0.0;
    for step in 0..=40 {
        let discordance = margin + (1.0 - margin) * f64::from(step) / 40.0;
        worst_tango = worst_tango.max(exact_size(n, discordance, margin, &tango));
        let size = exact_size(n, discordance, margin, &melded);
        assert!(
            size <= alpha,
            "discordance {discordance}: melded size {size}"
        );
    }
    assert!(worst_tango > alpha, "Tango's worst size {worst_tango}");
}

/// Every sign vector of the shifted differences, ranks from the definition.
fn shifted_brute_force(values: &[(i64, u64)], shift: i64, zero: ZeroMethod) -> (f64, f64) {
    let expanded: Vec<f64> = values
        .iter()
        .flat_map(|&(v, count)| std::iter::repeat_n((v + shift) as f64, count as usize))
        .collect();
    let (greater, less, _) = super::signed_rank_oracle::brute_force(&expanded, zero);
    (greater, less)
}

#[test]
fn shifted_signed_rank_is_every_sign_vector_of_the_shifted_differences() {
    for &(values, margin, zero, _, _) in SHIFTED {
        let got = signed_rank_margin(values, margin, zero);
        let (greater, _) = shifted_brute_force(values, margin, zero);
        let (_, less) = shifted_brute_force(values, -margin, zero);
        let what = format!("{values:?} margin {margin} {zero:?}");
        assert_relative(got.p_noninferiority, greater, EXACT_TOLERANCE, &what);
        assert_relative(got.p_nonsuperiority, less, EXACT_TOLERANCE, &what);
    }
}

#[test]
fn shifted_signed_rank_matches_scipy_to_a_billionth() {
    for &(values, margin, zero, ni, ns) in SHIFTED {
        let got = signed_rank_margin(values, margin, zero);
        let what = format!("{values:?} margin {margin} {zero:?}");
        assert_relative(got.p_noninferiority, ni, TABLE_TOLERANCE, &what);
        assert_relative(got.p_nonsuperiority, ns, TABLE_TOLERANCE, &what);
    }
}

#[test]
fn betting_margin_matches_mpmath_to_a_billionth() {
    for &(values, margin, ni, ns) in BETTING {
        let histogram = Histogram::from_counts(values.iter().copied()).unwrap();
        let got = betting_margin(&histogram, margin);
        let what = format!("{values:?} margin {margin}");
        assert_relative(got.p_noninferiority, ni, TABLE_TOLERANCE, &what);
        assert_relative(got.p_nonsuperiority, ns, TABLE_TOLERANCE, &what);
    }
}

#[test]
fn betting_p_value_rejects_exactly_below_the_betting_lower_bound() {
    let alpha = 0.05;
    let samples: [&[(f64, u64)]; 3] = [
        &[(0.0, 80), (0.5, 10), (-0.5, 10)],
        &[(0.0, 300), (1.0, 40), (-1.0, 20)],
        &[(-0.25, 7), (0.25, 9), (0.75, 2)],
    ];
    for counts in samples {
        let histogram = Histogram::from_counts(counts.iter().copied()).unwrap();
        let low = betting_interval(&histogram, 1.0 - 2.0 * alpha).unwrap().low;
        for m in [low - 1e-6, low - 0.01, low + 1e-6, low + 0.02] {
            if m <= -1.0 {
                continue;
            }
            let p = p_mean_at_most(&histogram, m);
            assert_eq!(p < alpha, m < low, "{counts:?} m {m} low {low} p {p}");
        }
    }
}
