//! The normal approximations of power: scipy 1.17.1 `norm.ppf` sums, and Connor's
//! (1987) table of detectable differences, which his sample-size formula must invert.

use super::assert_relative;
use crate::stats::normal_power::{
    connor_required_n, detectable_mean_shift, required_n_for_mean, z_sum,
};

/// scipy 1.17.1: `norm.ppf(1 - alpha) + norm.ppf(power)` for (alpha, power).
const Z_SUMS: &[(f64, f64, f64)] = &[
    (0.05, 0.8, 2.4864748605243863),
    (0.01, 0.9, 3.607899439585441),
];

#[test]
fn z_sum_matches_scipy() {
    for &(alpha, power, expected) in Z_SUMS {
        let got = z_sum(alpha, power).expect("inside (0, 1)");
        assert_relative(
            got,
            expected,
            1e-14,
            &format!("alpha {alpha} power {power}"),
        );
    }
    assert_eq!(z_sum(0.0, 0.8), None);
    assert_eq!(z_sum(0.05, 1.0), None);
}

#[test]
fn the_detectable_mean_shift_scales_the_spread_by_the_z_sum_over_root_n() {
    // 2.4864748605243863 * 0.2 / 10 (scipy as above).
    let got = detectable_mean_shift(100, 0.2, 0.05, 0.8).unwrap();
    assert_relative(got, 0.04972949721048773, 1e-14, "n 100 sd 0.2");
    assert_eq!(detectable_mean_shift(100, 0.0, 0.05, 0.8), None);
    assert_eq!(detectable_mean_shift(0, 0.2, 0.05, 0.8), None);
    assert_eq!(detectable_mean_shift(100, f64::NAN, 0.05, 0.8), None);
}

#[test]
fn the_required_n_for_a_mean_rounds_the_normal_n_up() {
    // (2.4864748605243863 * 0.25 / 0.01)^2 = 3864.098 and (... * 0.05 / 0.02)^2 = 38.641.
    assert_eq!(required_n_for_mean(0.01, 0.25, 0.05, 0.8), Some(3865));
    assert_eq!(required_n_for_mean(0.02, 0.05, 0.05, 0.8), Some(39));
    // No spread: one pair is enough for the approximation (the signed-rank floor is the
    // caller's to add).
    assert_eq!(required_n_for_mean(0.01, 0.0, 0.05, 0.8), Some(1));
    assert_eq!(required_n_for_mean(0.0, 0.25, 0.05, 0.8), None);
    assert_eq!(required_n_for_mean(-0.1, 0.25, 0.05, 0.8), None);
    assert_eq!(required_n_for_mean(1e-300, 1.0, 0.05, 0.8), None);
}

/// Connor (1987) via shared/reference/test-vectors.md: the difference detectable with
/// 80% power at two-sided α = 0.05 on n pairs, as (n, psi, delta); the table's delta
/// has four significant digits, so the n it inverts to is within 0.5% of the row's,
/// plus one for rounding up (164.12 for the first row).
const CONNOR_TABLE: &[(u64, f64, f64)] = &[
    (164, 0.05, 0.04855),
    (164, 0.10, 0.06866),
    (164, 0.20, 0.09716),
    (500, 0.05, 0.02794),
    (500, 0.10, 0.03952),
    (500, 0.20, 0.05589),
    (1000, 0.05, 0.01981),
    (1000, 0.10, 0.02796),
    (1000, 0.20, 0.03957),
];

#[test]
fn connors_sample_size_inverts_his_table() {
    for &(n, psi, delta) in CONNOR_TABLE {
        let got = connor_required_n(delta, psi, 0.025, 0.8).expect("valid") as f64;
        let off = (got - n as f64).abs();
        assert!(off <= 1.0 + 0.005 * n as f64, "n {n} psi {psi}: got {got}");
    }
}

#[test]
fn connors_sample_size_matches_the_formula_in_scipy() {
    // ((norm.ppf(0.95) * sqrt(psi) + norm.ppf(0.8) * sqrt(psi - d^2)) / d)^2, scipy
    // 1.17.1: 34.94 for d = psi = 1/6, 492.51 for (0.05, 0.2), 6180.46 for (0.01, 0.1).
    assert_eq!(connor_required_n(1.0 / 6.0, 1.0 / 6.0, 0.05, 0.8), Some(35));
    assert_eq!(connor_required_n(0.05, 0.2, 0.05, 0.8), Some(493));
    assert_eq!(connor_required_n(0.01, 0.1, 0.05, 0.8), Some(6181));
    assert_eq!(connor_required_n(0.3, 0.2, 0.05, 0.8), None);
    assert_eq!(connor_required_n(0.0, 0.2, 0.05, 0.8), None);
}
