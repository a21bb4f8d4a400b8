//! The base-10 logarithms of p-values, computed in log space where the p-values are
//! computed, against independent references far below the `f64` range: mpmath 1.4.1
//! for the binomial and normal tails, and exact subset counts in Python big integers
//! for the signed-rank null. Above the range they must equal log10 of the p-value.

use super::assert_relative;
use crate::stats::binomial::{ln_lower_tail, ln_upper_tail, lower_tail, upper_tail};
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::normal;
use crate::stats::signed_rank::{ZeroMethod, signed_rank};

/// Relative agreement required of a logarithm of a tail with its reference.
const LOG_TOLERANCE: f64 = 1e-12;

/// McNemar (b, c): log10 of p_improvement, p_regression and p_two_sided. mpmath 1.4.1
/// at 60 digits, n = b + c:
/// `log10(fsum(binomial(n, j) for j in range(k, n + 1))) - n*log10(2)` for the one-sided
/// tails (k = c, then k = b) and
/// `min(0, log10(2) + log10(fsum(binomial(n, j) for j in range(0, min(b, c) + 1))) - n*log10(2))`
/// for the two-sided one.
const MCNEMAR_LOG10: &[(u64, u64, f64, f64, f64)] = &[
    (0, 1100, -331.13299523037931, 0.0, -330.83196523471533),
    (
        3,
        1200,
        -353.67643765018407,
        -3.9827297778311307e-59,
        -353.37540765452009,
    ),
    (10, 2000, -578.60565737921078, 0.0, -578.3046273835468),
    (400, 1600, -168.94303031177272, 0.0, -168.64200031610874),
    (0, 5000, -1505.149978319906, 0.0, -1504.848948324242),
    (
        100,
        200,
        -8.3971332304448646,
        -8.5387207085189377e-10,
        -8.0961032347808834,
    ),
];

#[test]
fn mcnemar_log10_p_values_match_mpmath_far_below_the_double_range() {
    for &(b, c, improvement, regression, two_sided) in MCNEMAR_LOG10 {
        let result = mcnemar_exact(b, c);
        let what = format!("b {b}, c {c}");
        assert_relative(
            result.tails.log10_p_improvement,
            improvement,
            LOG_TOLERANCE,
            &what,
        );
        assert_relative(
            result.tails.log10_p_two_sided,
            two_sided,
            LOG_TOLERANCE,
            &what,
        );
        // Near 1 the log of the p-value is -P(X < b)/ln 10: absolute agreement.
        assert!(
            (result.tails.log10_p_regression - regression).abs() < 1e-15,
            "{what}: {} against {regression}",
            result.tails.log10_p_regression
        );
    }
    // The p-value itself underflows where the logarithm is still exact.
    assert_eq!(mcnemar_exact(0, 1100).tails.p_improvement, 0.0);
}

#[test]
fn log_tails_equal_the_log_of_the_tails_inside_the_double_range() {
    for (k, n, p) in [
        (3, 10, 0.5),
        (60, 100, 0.5),
        (5200, 10_000, 0.5),
        (30, 1000, 0.01),
    ] {
        let what = format!("k {k} of {n} at {p}");
        // Compared as probabilities: near 1, ln(tail) itself would cancel.
        assert_relative(
            ln_upper_tail(k, n, p).exp(),
            upper_tail(k, n, p),
            1e-13,
            &what,
        );
        assert_relative(
            ln_lower_tail(k, n, p).exp(),
            lower_tail(k, n, p),
            1e-13,
            &what,
        );
    }
    assert_eq!(ln_upper_tail(0, 10, 0.5), 0.0);
    assert_eq!(ln_upper_tail(11, 10, 0.5), f64::NEG_INFINITY);
}

/// mpmath 1.4.1 at 60 digits: `log(ncdf(-z))`.
const NORMAL_LN_UPPER: &[(f64, f64)] = &[
    (1.0, -1.8410216450092635),
    (5.0, -15.064998393988726),
    (10.0, -53.231285150512471),
    (30.0, -454.3212439563432),
    (38.0, -726.55721601882013),
    (40.0, -804.60844201375379),
    (100.0, -5005.5242086942051),
    (1000.0, -500007.82669481218),
];

#[test]
fn the_normal_log_tail_matches_mpmath_where_the_tail_underflows() {
    for &(z, expected) in NORMAL_LN_UPPER {
        assert_relative(
            normal::ln_upper_tail(z),
            expected,
            LOG_TOLERANCE,
            &format!("z {z}"),
        );
    }
    assert_eq!(normal::upper_tail(40.0), 0.0);
    assert_relative(
        normal::ln_upper_tail(-1.0),
        normal::upper_tail(-1.0).ln(),
        1e-15,
        "z -1",
    );
}

/// Signed-rank log10 p_improvement. Python 3 big integers (no floating point): doubled
/// midranks of the non-zero |d| (offset by the zeros for Pratt), divided by their gcd,
/// then the count of subsets with sum ≤ total − W+ by the recurrence `t[s] += t[s − u]`
/// over exact integers, and `mpmath.log10(count) - n*mpmath.log10(2)` (mpmath 1.4.1,
/// 50 digits). The differences are those of [`differences`].
const SIGNED_RANK_LOG10: &[(&str, f64)] = &[
    ("1100 distinct, all positive", -331.13299523037931),
    (
        "1200 distinct, the three smallest negative",
        -360.0898667610992,
    ),
    (
        "1400 in 7 tie groups, 4 negative, 50 zeros, wilcox",
        -401.44355393041067,
    ),
    (
        "1400 in 7 tie groups, 4 negative, 50 zeros, pratt",
        -404.89481786091178,
    ),
];

/// The differences of each case of [`SIGNED_RANK_LOG10`], with its zero method.
fn differences(case: usize) -> (Vec<f64>, ZeroMethod) {
    match case {
        0 => (
            (1..=1100).map(|i| f64::from(i) / 1000.0).collect(),
            ZeroMethod::Wilcox,
        ),
        1 => (
            (0..1200)
                .map(|i| f64::from(i + 1) / 1000.0 * if i < 3 { -1.0 } else { 1.0 })
                .collect(),
            ZeroMethod::Wilcox,
        ),
        _ => {
            let mut d: Vec<f64> = (0..1400)
                .map(|i| {
                    let magnitude = f64::from(i % 7 + 1) / 10.0;
                    if [0, 1, 2, 9].contains(&i) {
                        -magnitude
                    } else {
                        magnitude
                    }
                })
                .collect();
            d.extend([0.0; 50]);
            let zero = if case == 2 {
                ZeroMethod::Wilcox
            } else {
                ZeroMethod::Pratt
            };
            (d, zero)
        }
    }
}

#[test]
fn exact_signed_rank_log10_p_values_match_big_integer_counts_below_the_double_range() {
    for (case, &(name, expected)) in SIGNED_RANK_LOG10.iter().enumerate() {
        let (d, zero) = differences(case);
        let result = signed_rank(&d, zero);
        assert_relative(
            result.tails.log10_p_improvement,
            expected,
            LOG_TOLERANCE,
            name,
        );
        assert!(
            result.tails.p_improvement < 1e-300,
            "{name}: {:e}",
            result.tails.p_improvement
        );
        assert!(result.tails.log10_p_regression.abs() < 1e-12, "{name}");
        assert_relative(
            result.tails.log10_p_two_sided,
            expected + std::f64::consts::LOG10_2,
            LOG_TOLERANCE,
            name,
        );
        // Swapping the arms swaps the tails, logarithms included.
        let flipped: Vec<f64> = d.iter().map(|x| -x).collect();
        let swapped = signed_rank(&flipped, zero);
        assert_relative(
            swapped.tails.log10_p_regression,
            expected,
            LOG_TOLERANCE,
            name,
        );
    }
}

#[test]
fn signed_rank_log10_p_values_are_the_log_of_the_p_values_inside_the_range() {
    let d: Vec<f64> = (0..40).map(|i| f64::from(i % 9) / 10.0 - 0.3).collect();
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    for (log10, p) in [
        (result.tails.log10_p_improvement, result.tails.p_improvement),
        (result.tails.log10_p_regression, result.tails.p_regression),
        (result.tails.log10_p_two_sided, result.tails.p_two_sided),
    ] {
        assert_relative(log10, p.log10(), 1e-13, "in range");
    }
}

#[test]
fn three_thousand_positive_differences_give_log10_of_two_to_the_minus_three_thousand() {
    // Beyond the old exact limit of 2,500 (where a normal approximation gave
    // log10 p = −490.7): every sign positive, so P(W+ ≥ observed) = 2^-3000 exactly.
    let d: Vec<f64> = (1..=3000).map(|i| f64::from(i) / 3000.0).collect();
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    assert_eq!(result.tails.p_improvement, 0.0);
    assert_eq!(result.method, crate::stats::signed_rank::Method::Exact);
    let expected = -3000.0 * std::f64::consts::LOG10_2;
    assert_relative(
        result.tails.log10_p_improvement,
        expected,
        LOG_TOLERANCE,
        "exact",
    );
}
