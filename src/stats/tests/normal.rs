//! The normal tail and quantile against mpmath 1.4.1 at 50 digits (scipy 1.17.1 beside).

use super::assert_relative;
use crate::stats::normal::{erfc, lower_tail, quantile, upper_tail};

/// Relative agreement required with 50-digit mpmath.
const NORMAL_TOLERANCE: f64 = 1e-13;

/// mpmath 1.4.1 (50 digits): `erfc(x)`.
const ERFC: &[(f64, f64)] = &[
    (-3.0, 1.9999779095030015),
    (-0.5, 1.5204998778130465),
    (0.0, 1.0),
    (1e-08, 0.9999999887162083),
    (0.3, 0.6713732405408726),
    (1.0, 0.15729920705028513),
    (1.4999, 0.03390674833770473),
    (1.5, 0.033894853524689274),
    (2.0, 0.004677734981047266),
    (3.7, 1.6715105790914599e-07),
    (6.0, 2.1519736712498913e-17),
    (10.0, 2.088487583762545e-45),
    (26.5, 2.2109076642637343e-307),
];

/// mpmath 1.4.1: `erfc(z / sqrt(2)) / 2`; scipy 1.17.1 `norm.sf(z)` agrees to 3e-14.
const UPPER_TAIL: &[(f64, f64)] = &[
    (-2.0, 0.9772498680518208),
    (0.0, 0.5),
    (0.5, 0.3085375387259869),
    (1.959963984540054, 0.025000000000000012),
    (3.0, 0.0013498980316300946),
    (8.0, 6.220960574271784e-16),
    (20.0, 2.7536241186062337e-89),
    (37.5, 4.605353009581955e-308),
];

/// mpmath 1.4.1: `findroot(ncdf(x) - p)` at 50 digits; scipy 1.17.1 `norm.ppf(p)` agrees
/// to 2e-16 relative.
const QUANTILE: &[(f64, f64)] = &[
    (1e-300, -37.0470962993612),
    (1e-20, -9.262340089798407),
    (1e-10, -6.361340902404057),
    (0.001, -3.0902323061678136),
    (0.025, -1.9599639845400543),
    (0.1, -1.2815515655446004),
    (0.3, -0.5244005127080408),
    (0.5, 0.0),
    (0.7, 0.5244005127080407),
    (0.975, 1.9599639845400538),
    (0.995, 2.5758293035489004),
    (0.999999999999, 7.0344869100478356),
];

#[test]
fn erfc_matches_mpmath() {
    for &(x, expected) in ERFC {
        assert_relative(erfc(x), expected, NORMAL_TOLERANCE, &format!("erfc({x})"));
    }
}

#[test]
fn tails_match_mpmath_into_the_subnormal_edge() {
    for &(z, expected) in UPPER_TAIL {
        // Beyond z ≈ 8 the division z/√2 rounds, which costs up to z²·1.1e-16.
        let tolerance = NORMAL_TOLERANCE.max(z * z * 2.5e-16);
        assert_relative(upper_tail(z), expected, tolerance, &format!("upper({z})"));
        assert_relative(
            lower_tail(-z),
            expected,
            tolerance,
            &format!("lower({})", -z),
        );
    }
}

#[test]
fn quantile_matches_mpmath_and_refuses_the_edges() {
    for &(p, expected) in QUANTILE {
        let got = quantile(p).expect("p inside (0, 1)");
        if expected == 0.0 {
            assert!(got.abs() < 1e-15, "quantile(0.5) = {got}");
        } else {
            assert_relative(got, expected, NORMAL_TOLERANCE, &format!("quantile({p})"));
        }
    }
    for p in [0.0, 1.0, -0.1, f64::NAN] {
        assert_eq!(quantile(p), None);
    }
}
