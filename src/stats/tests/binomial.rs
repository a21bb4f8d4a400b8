//! Binomial tails against exact rationals (n ≤ 2,000, and n = 100,000), scipy at large
//! n, R's two-sided `binom.test`, enumeration of every outcome, and properties.

use super::binomial_tables::{EXACT, EXACT_LARGE, SCIPY};
use super::{EXACT_TOLERANCE, SCIPY_TOLERANCE, assert_relative, choose};
use crate::stats::binomial::{ln_pmf, lower_tail, two_sided_minlike, upper_tail};
use proptest::prelude::*;

#[test]
fn tails_match_exact_rational_arithmetic_up_to_two_thousand() {
    assert!(EXACT.len() > 100, "the exact table must not be empty");
    for &(k, n, p, upper, lower, point) in EXACT {
        let what = format!("k {k} n {n} p {p}");
        assert_relative(
            upper_tail(k, n, p),
            upper,
            EXACT_TOLERANCE,
            &format!("upper {what}"),
        );
        assert_relative(
            lower_tail(k, n, p),
            lower,
            EXACT_TOLERANCE,
            &format!("lower {what}"),
        );
        assert_relative(
            ln_pmf(k, n, p).exp(),
            point,
            EXACT_TOLERANCE,
            &format!("pmf {what}"),
        );
    }
}

#[test]
fn tails_near_1e_minus_300_do_not_underflow() {
    // Exact: P(X ≥ 1777) for n = 2000, p = ½ is 1.3927625544370983e-300 (table row).
    let tail = upper_tail(1777, 2000, 0.5);
    assert!(tail > 1e-300);
    assert_relative(
        tail,
        1.392_762_554_437_098_3e-300,
        EXACT_TOLERANCE,
        "deep tail",
    );
    assert_relative(lower_tail(223, 2000, 0.5), tail, EXACT_TOLERANCE, "mirror");
}

#[test]
fn tails_match_exact_rationals_at_one_hundred_thousand() {
    assert_eq!(EXACT_LARGE.len(), 3);
    for &(k, n, upper) in EXACT_LARGE {
        assert_relative(
            upper_tail(k, n, 0.5),
            upper,
            EXACT_TOLERANCE,
            &format!("k {k} n {n}"),
        );
    }
}

#[test]
fn tails_match_scipy_to_a_billion() {
    assert_eq!(SCIPY.len(), 14);
    for &(k, n, p, upper, lower) in SCIPY {
        let what = format!("k {k} n {n} p {p}");
        let (got_upper, got_lower) = (upper_tail(k, n, p), lower_tail(k, n, p));
        if upper == 1.0 || lower == 0.0 {
            // scipy rounds a tail below 1e-300 to 0; ours must be as small.
            assert!(got_lower < 1e-300 && got_upper == 1.0, "{what}");
            continue;
        }
        assert_relative(got_upper, upper, SCIPY_TOLERANCE, &format!("upper {what}"));
        assert_relative(got_lower, lower, SCIPY_TOLERANCE, &format!("lower {what}"));
    }
}

#[test]
fn counts_near_two_to_the_fifty_third_stay_finite_and_exact_at_the_edges() {
    let n = 1_u64 << 53;
    assert_eq!(upper_tail(0, n, 0.5), 1.0);
    assert_eq!(lower_tail(n, n, 0.5), 1.0);
    // P(X = n) = 2^-n: its logarithm is exact to a few ulps even though the value is 0.
    assert_relative(
        ln_pmf(n, n, 0.5),
        -(n as f64) * std::f64::consts::LN_2,
        1e-14,
        "ln pmf",
    );
    assert_eq!(upper_tail(n, n, 0.5), 0.0);
    // Beyond 40σ of the mean (σ ≈ 4.7e7) both tails are below 1e-300.
    assert!(upper_tail(n / 2 + 3_000_000_000, n, 0.5) < 1e-300);
}

#[test]
fn r_binom_test_two_sided_value_holds() {
    // R 4.2.2: binom.test(682, 925, p = 3/4)$p.value = 0.38249155957485192.
    assert_relative(
        two_sided_minlike(682, 925, 0.75),
        0.382_491_559_574_851_92,
        1e-12,
        "binom.test",
    );
    // At p = ½ the distribution is symmetric and R's rule is twice the smaller tail.
    assert_relative(
        two_sided_minlike(2, 11, 0.5),
        0.065_429_687_5,
        1e-14,
        "symmetric",
    );
    assert_eq!(two_sided_minlike(5, 10, 0.5), 1.0);
}

#[test]
fn every_outcome_enumerated_agrees_for_small_n() {
    // Brute force: sum C(n, j) over j directly, as integers, for every k and n ≤ 16.
    for n in 0..=16_u64 {
        let total = (1_u128 << n) as f64;
        for k in 0..=n {
            let upper: u128 = (k..=n).map(|j| choose(n, j)).sum();
            let lower: u128 = (0..=k).map(|j| choose(n, j)).sum();
            let what = format!("k {k} n {n}");
            assert_relative(
                upper_tail(k, n, 0.5),
                upper as f64 / total,
                EXACT_TOLERANCE,
                &what,
            );
            assert_relative(
                lower_tail(k, n, 0.5),
                lower as f64 / total,
                EXACT_TOLERANCE,
                &what,
            );
        }
    }
}

#[test]
fn degenerate_probabilities_give_certain_outcomes() {
    assert_eq!(upper_tail(1, 10, 0.0), 0.0);
    assert_eq!(lower_tail(0, 10, 0.0), 1.0);
    assert_eq!(upper_tail(10, 10, 1.0), 1.0);
    assert_eq!(lower_tail(9, 10, 1.0), 0.0);
    assert_eq!(upper_tail(11, 10, 0.5), 0.0);
    assert_eq!(ln_pmf(11, 10, 0.5), f64::NEG_INFINITY);
    // NaN is clamped to 0 rather than carried into the result.
    assert_eq!(upper_tail(1, 10, f64::NAN), 0.0);
}

proptest! {
    #[test]
    fn tails_are_probabilities_that_add_up(n in 0_u64..5_000, k_frac in 0.0_f64..1.0, p in 0.0_f64..=1.0) {
        let k = (k_frac * n as f64) as u64;
        let (upper, lower) = (upper_tail(k, n, p), lower_tail(k, n, p));
        let point = ln_pmf(k, n, p).exp();
        prop_assert!((0.0..=1.0).contains(&upper) && (0.0..=1.0).contains(&lower));
        prop_assert!((upper + lower - point - 1.0).abs() < 1e-12);
    }

    #[test]
    fn upper_tail_falls_as_k_rises_and_rises_with_n(n in 1_u64..3_000, k_frac in 0.0_f64..1.0) {
        let k = (k_frac * n as f64) as u64;
        prop_assert!(upper_tail(k + 1, n, 0.5) <= upper_tail(k, n, 0.5));
        prop_assert!(upper_tail(k, n + 1, 0.5) >= upper_tail(k, n, 0.5));
    }

    #[test]
    fn half_is_symmetric(n in 0_u64..3_000, k_frac in 0.0_f64..=1.0) {
        let k = (k_frac * n as f64) as u64;
        let (upper, lower) = (upper_tail(n - k, n, 0.5), lower_tail(k, n, 0.5));
        prop_assert!(((upper - lower) / lower.max(1e-300)).abs() < EXACT_TOLERANCE);
    }
}

#[test]
fn deep_tail_found_by_property_search_matches_exact_rationals() {
    // Python 3 fractions: sum of C(1539, j) for j <= 147, over 2^1539.
    let exact = 8.332_955_037_395_538e-255;
    assert_relative(lower_tail(147, 1539, 0.5), exact, EXACT_TOLERANCE, "lower");
    assert_relative(upper_tail(1392, 1539, 0.5), exact, EXACT_TOLERANCE, "upper");
}

#[test]
fn dyadic_tails_at_half_are_exact_so_p_equal_to_alpha_is_not_below_it() {
    // Regression: P(X ≥ 4 | n = 4) rounded to just under 1/16, so a test at alpha = 1/16
    // rejected where it must not (found by the power enumeration).
    assert_eq!(upper_tail(4, 4, 0.5), 0.0625);
    assert_eq!(lower_tail(0, 4, 0.5), 0.0625);
    assert_eq!(upper_tail(5, 6, 0.5), 7.0 / 64.0);
    // n = 53 is odd: P(X ≥ 27) = ½ exactly by symmetry.
    assert_eq!(upper_tail(27, 53, 0.5), 0.5);
}
