//! The signed-rank test against the reference vectors (including the ones scipy gets
//! wrong), exact big-integer tables up to n = 1,000 (larger n: `signed_rank_large.rs`),
//! and properties.

use super::signed_rank_tables::BIG_INTEGER;
use super::{EXACT_TOLERANCE, SCIPY_TOLERANCE, assert_relative};
use crate::stats::signed_rank::null_table::null_cdf;
use crate::stats::signed_rank::{Method, SignedRank, ZeroMethod, signed_rank};
use proptest::prelude::*;

fn check(result: &SignedRank, greater: f64, less: f64, two_sided: f64, tolerance: f64, what: &str) {
    assert_relative(
        result.tails.p_improvement,
        greater,
        tolerance,
        &format!("{what}: improvement"),
    );
    assert_relative(
        result.tails.p_regression,
        less,
        tolerance,
        &format!("{what}: regression"),
    );
    assert_relative(
        result.tails.p_two_sided,
        two_sided,
        tolerance,
        &format!("{what}: two-sided"),
    );
}

fn differences(x: &[f64], y: &[f64]) -> Vec<f64> {
    x.iter().zip(y).map(|(a, b)| a - b).collect()
}

// shared/reference/test-vectors.md (exact conditional values, cross-checked there with R
// coin 1.4-2 `wilcoxsign_test(distribution = "exact")`), and the one-sided tails by
// exact enumeration in Python 3 `fractions` over all 2^n sign vectors.

#[test]
fn untied_pairs_give_five_in_one_hundred_twenty_eight() {
    let x = [1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30];
    // 3.14 is a measurement from the reference data, not an approximation of π.
    #[allow(clippy::approx_constant)]
    let y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    let result = signed_rank(&differences(&x, &y), ZeroMethod::Wilcox);
    check(
        &result,
        5.0 / 256.0,
        505.0 / 512.0,
        5.0 / 128.0,
        EXACT_TOLERANCE,
        "no ties",
    );
    assert_eq!(result.method, Method::Exact);
}

#[test]
fn ties_and_zeros_follow_wilcox_and_pratt() {
    let x1 = [
        9., 14., 8., 11., 14., 10., 8., 14., 12., 14., 13., 9., 15., 12., 9.,
    ];
    let x2 = [
        13., 15., 9., 12., 16., 10., 8., 13., 12., 16., 9., 10., 16., 12., 9.,
    ];
    let d = differences(&x1, &x2);
    let wilcox = signed_rank(&d, ZeroMethod::Wilcox);
    check(
        &wilcox,
        483.0 / 512.0,
        35.0 / 512.0,
        35.0 / 256.0,
        EXACT_TOLERANCE,
        "wilcox",
    );
    assert_eq!((wilcox.n_nonzero, wilcox.n_zero), (10, 5));
    let pratt = signed_rank(&d, ZeroMethod::Pratt);
    check(
        &pratt,
        493.0 / 512.0,
        25.0 / 512.0,
        0.097_656_25,
        EXACT_TOLERANCE,
        "pratt",
    );
}

#[test]
fn pre_post_ties_give_eleven_in_1024_where_scipy_gives_0_0122() {
    let pre = [18., 23., 24., 27., 9., 40., 17., 33., 6., 8., 9., 26.];
    let post = [26., 4., 3., 26., 0., 3., 10., 9., 7., 1., 4., 9.];
    let result = signed_rank(&differences(&pre, &post), ZeroMethod::Wilcox);
    check(
        &result,
        11.0 / 2048.0,
        255.0 / 256.0,
        11.0 / 1024.0,
        EXACT_TOLERANCE,
        "pre-post",
    );
}

#[test]
fn small_tied_sample_gives_0_03125_where_scipy_exact_gives_0_0234() {
    let result = signed_rank(&[1., 1., 2., 2., 3., -1., 4., 5.], ZeroMethod::Wilcox);
    check(
        &result,
        1.0 / 64.0,
        255.0 / 256.0,
        0.03125,
        EXACT_TOLERANCE,
        "ties",
    );
    assert!((result.tails.p_two_sided - 0.023_437_5).abs() > 0.007);
}

#[test]
fn statistic_at_the_centre_gives_one() {
    let d = [-1., -2., 3., 4., -5., 6., 7., 8., -9., -10., 11., -12.];
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    check(
        &result,
        1055.0 / 2048.0,
        1055.0 / 2048.0,
        1.0,
        EXACT_TOLERANCE,
        "centre",
    );
    assert_eq!(result.w_plus, 39.0);
}

#[test]
fn ten_aligned_differences_give_two_in_1024() {
    let d: Vec<f64> = (1..=10).map(f64::from).collect();
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    check(
        &result,
        1.0 / 1024.0,
        1.0,
        2.0 / 1024.0,
        EXACT_TOLERANCE,
        "aligned",
    );
    assert_eq!(result.rank_biserial, Some(1.0));
}

#[test]
fn a_thousand_positive_differences_reach_two_to_the_minus_thousand() {
    // Every sign positive: P(W+ ≥ observed) = 2^-1000 = 9.33e-302, ties or not.
    let distinct: Vec<f64> = (1..=1000).map(f64::from).collect();
    let tied: Vec<f64> = (0..1000).map(|i| f64::from(i % 7 + 1)).collect();
    for d in [distinct, tied] {
        let result = signed_rank(&d, ZeroMethod::Wilcox);
        assert_relative(
            result.tails.p_improvement,
            0.5_f64.powi(1000),
            EXACT_TOLERANCE,
            "all positive",
        );
        assert_eq!(result.tails.p_regression, 1.0);
    }
}

#[test]
fn no_nonzero_differences_give_one() {
    let result = signed_rank(&[0.0, 1e-12, -3e-10, f64::NAN], ZeroMethod::Pratt);
    assert_eq!(
        (
            result.tails.p_improvement,
            result.tails.p_regression,
            result.tails.p_two_sided
        ),
        (1.0, 1.0, 1.0)
    );
    assert_eq!(
        (result.n_nonzero, result.n_zero, result.rank_biserial),
        (0, 4, None)
    );
    assert_eq!(signed_rank(&[], ZeroMethod::Wilcox).tails.p_two_sided, 1.0);
}

#[test]
fn magnitudes_within_a_billionth_are_ties() {
    // 0.3 − 0.1 − 0.2 style residues must not split a tie: both samples rank alike.
    let clean = signed_rank(&[0.1, 0.1, -0.2, 0.3], ZeroMethod::Wilcox);
    let noisy = signed_rank(&[0.1, 0.1 + 4e-17, -0.2, 0.3 - 5e-10], ZeroMethod::Wilcox);
    assert_eq!(clean, noisy);
    assert_eq!(clean.w_plus, 7.0);
}

/// d_i = (((i · a + 7) mod m) − shift) · scale for i in 0..n, in both Python and Rust:
/// integer arithmetic then one multiplication, so the values are bit-identical.
fn generated(n: u64, a: u64, m: u64, shift: i64, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|i| (((i * a + 7) % m) as i64 - shift) as f64 * scale)
        .collect()
}

#[test]
fn exact_tables_up_to_a_thousand_match_big_integer_arithmetic() {
    assert_eq!(BIG_INTEGER.len(), 9);
    for &(n, a, m, shift, scale, zero, n_nonzero, n_zero, w_plus, greater, less, two) in BIG_INTEGER
    {
        let result = signed_rank(&generated(n, a, m, shift, scale), zero);
        let what = format!("n {n} a {a} m {m} {zero:?}");
        assert_eq!(
            (result.n_nonzero, result.n_zero, result.w_plus),
            (n_nonzero, n_zero, w_plus),
            "{what}"
        );
        assert_eq!(result.method, Method::Exact);
        check(&result, greater, less, two, EXACT_TOLERANCE, &what);
    }
}

/// scipy 1.17.1: `wilcoxon(d, method="exact", alternative=A).pvalue` for A = greater,
/// less, two-sided, on d_i = (i + 1)·(1 if i mod k else −1): no ties and no zeros, where
/// scipy's exact method is right. Rows: (n, k, greater, less, two-sided).
const SCIPY_EXACT: &[(i32, i32, f64, f64, f64)] = &[
    (
        50,
        3,
        0.01998417326421187,
        0.9804922372390692,
        0.03996834652842374,
    ),
    (
        25,
        4,
        0.027535229921340942,
        0.9742118716239929,
        0.055070459842681885,
    ),
    (
        60,
        5,
        5.367490999774738e-06,
        0.9999948420526119,
        1.0734981999549476e-05,
    ),
];

#[test]
fn untied_samples_match_scipy_exact() {
    for &(n, k, greater, less, two) in SCIPY_EXACT {
        let d: Vec<f64> = (0..n)
            .map(|i| f64::from(i + 1) * if i % k != 0 { 1.0 } else { -1.0 })
            .collect();
        check(
            &signed_rank(&d, ZeroMethod::Wilcox),
            greater,
            less,
            two,
            SCIPY_TOLERANCE,
            &format!("n {n}"),
        );
    }
    // scipy's n = 60 greater tail is 9.5e-12 off: the big-integer product (as above) gives
    // 5.367490999723563e-06, which is what we must match to 1e-12.
    let d: Vec<f64> = (0..60)
        .map(|i| f64::from(i + 1) * if i % 5 != 0 { 1.0 } else { -1.0 })
        .collect();
    let exact = 5.367_490_999_723_563e-6;
    assert_relative(
        signed_rank(&d, ZeroMethod::Wilcox).tails.p_improvement,
        exact,
        EXACT_TOLERANCE,
        "n 60",
    );
}

#[test]
fn null_cdf_of_ranks_one_to_four_counts_subsets() {
    // Subsets of {1, 2, 3, 4} with sum ≤ 3: {}, {1}, {2}, {3}, {1, 2} = 5 of 16; sum 3: 2.
    let tail = null_cdf(&[1, 2, 3, 4], 3);
    assert_eq!((tail.cdf, tail.point), (5.0 / 16.0, 2.0 / 16.0));
    assert_eq!(null_cdf(&[1, 2, 3, 4], 10).cdf, 1.0);
    assert_eq!(null_cdf(&[1, 2, 3, 4], 0).cdf, 1.0 / 16.0);
}

fn sample() -> impl Strategy<Value = Vec<f64>> {
    // Quarter steps in [−2, 2]: many ties and some zeros, as with graded scores.
    proptest::collection::vec((-8_i32..=8).prop_map(|q| f64::from(q) * 0.25), 0..60)
}

proptest! {
    #[test]
    fn p_values_are_probabilities(d in sample()) {
        for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
            let r = signed_rank(&d, zero);
            for p in [r.tails.p_improvement, r.tails.p_regression, r.tails.p_two_sided] {
                prop_assert!((0.0..=1.0).contains(&p));
            }
            prop_assert!(r.tails.p_improvement + r.tails.p_regression >= 1.0 - 1e-12);
        }
    }

    #[test]
    fn swapping_the_arms_swaps_the_one_sided_p_values(d in sample()) {
        let negated: Vec<f64> = d.iter().map(|x| -x).collect();
        let (forward, backward) = (signed_rank(&d, ZeroMethod::Wilcox), signed_rank(&negated, ZeroMethod::Wilcox));
        prop_assert!((forward.tails.p_improvement - backward.tails.p_regression).abs() <= 1e-13);
        prop_assert!((forward.tails.p_regression - backward.tails.p_improvement).abs() <= 1e-13);
        prop_assert!((forward.tails.p_two_sided - backward.tails.p_two_sided).abs() <= 1e-13);
    }

    #[test]
    fn zeros_do_not_move_the_wilcox_test(d in sample(), zeros in 0_usize..20) {
        let mut padded = d.clone();
        padded.extend(std::iter::repeat_n(0.0, zeros));
        let (before, after) = (signed_rank(&d, ZeroMethod::Wilcox), signed_rank(&padded, ZeroMethod::Wilcox));
        prop_assert_eq!(before.tails.p_improvement, after.tails.p_improvement);
        prop_assert_eq!(before.tails.p_two_sided, after.tails.p_two_sided);
    }

    #[test]
    fn turning_a_loss_into_a_win_strengthens_improvement(d in sample(), pick in 0_usize..60) {
        let losses: Vec<usize> = (0..d.len()).filter(|&i| d[i] < 0.0).collect();
        prop_assume!(!losses.is_empty());
        let i = losses[pick % losses.len()];
        let mut flipped = d.clone();
        flipped[i] = -flipped[i];
        let (before, after) = (signed_rank(&d, ZeroMethod::Wilcox), signed_rank(&flipped, ZeroMethod::Wilcox));
        prop_assert!(after.tails.p_improvement <= before.tails.p_improvement + 1e-15);
        prop_assert!(after.tails.p_regression >= before.tails.p_regression - 1e-15);
    }
}
