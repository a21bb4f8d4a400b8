//! McNemar's exact test against the reference table, enumeration of every outcome of
//! the discordant pairs, and properties.

use super::{EXACT_TOLERANCE, SCIPY_TOLERANCE, assert_relative, choose};
use crate::stats::mcnemar::{discordant_counts, mcnemar_exact};
use proptest::prelude::*;

/// shared/reference/test-vectors.md, exact rational values cross-checked there against
/// scipy 1.17.1 `binomtest(c, b + c, 0.5).pvalue`, statsmodels 0.15.0
/// `mcnemar(table, exact=True)` and R 4.2.2 `binom.test`. Mid-p is the exact two-sided
/// value minus P(X = min(b, c)). Rows: (b, c, two-sided, mid-p two-sided or −1 when the
/// table gives none).
const TWO_SIDED: &[(u64, u64, f64, f64)] = &[
    (0, 0, 1.0, 1.0),
    (1, 0, 1.0, 0.5),
    (0, 5, 0.0625, 0.03125),
    (0, 6, 0.03125, 0.015625),
    (2, 9, 0.065_429_687_5, 0.038_574_218_75),
    (10, 20, 0.098_737_146_705_389_023, 0.070_755_545_981_228_352),
    (18, 33, 0.048_873_892_318_270_329, 0.036_483_400_008_359_812),
    (
        86,
        150,
        3.715_936_139_571_442_2e-5,
        2.893_389_517_615_490_2e-5,
    ),
    (100, 130, 0.055_613_577_781_392_386, -1.0),
    (49_500, 50_500, 0.001_582_359_878_851_595_6, -1.0),
];

#[test]
fn reference_table_holds() {
    for &(b, c, two_sided, mid) in TWO_SIDED {
        let test = mcnemar_exact(b, c);
        let what = format!("b {b} c {c}");
        assert_relative(test.tails.p_two_sided, two_sided, EXACT_TOLERANCE, &what);
        if mid >= 0.0 {
            assert_relative(
                test.mid_p.p_two_sided,
                mid,
                EXACT_TOLERANCE,
                &format!("mid-p {what}"),
            );
        }
    }
}

#[test]
fn reference_pipeline_vectors_still_hold() {
    // (10, 2): two-sided 0.0385742…, one-sided regression 79/4096.
    let test = mcnemar_exact(10, 2);
    assert_relative(
        test.tails.p_two_sided,
        158.0 / 4096.0,
        EXACT_TOLERANCE,
        "two-sided",
    );
    assert_relative(
        test.tails.p_regression,
        79.0 / 4096.0,
        EXACT_TOLERANCE,
        "regression",
    );
    assert_relative(
        mcnemar_exact(0, 5).tails.p_improvement,
        0.03125,
        EXACT_TOLERANCE,
        "improvement",
    );
    assert_eq!(mcnemar_exact(0, 1).tails.p_improvement, 0.5);
    // Every pair one way: 5 pairs reach one-sided p < 0.05, 6 reach two-sided.
    assert!(
        mcnemar_exact(0, 4).tails.p_improvement >= 0.05
            && mcnemar_exact(0, 5).tails.p_improvement < 0.05
    );
    assert!(
        mcnemar_exact(0, 5).tails.p_two_sided >= 0.05
            && mcnemar_exact(0, 6).tails.p_two_sided < 0.05
    );
}

#[test]
fn no_discordant_pairs_give_one_everywhere() {
    let test = mcnemar_exact(0, 0);
    assert_eq!(
        (
            test.tails.p_improvement,
            test.tails.p_regression,
            test.tails.p_two_sided
        ),
        (1.0, 1.0, 1.0)
    );
    assert_eq!(test.mid_p.p_improvement, 1.0);
    assert_eq!(test.odds_ratio, None);
}

#[test]
fn a_billion_discordant_pairs_stay_finite_and_agree_with_scipy() {
    // scipy 1.17.1: binom.sf(500_100_000 - 1, 10**9, 0.5) = 1.270074179881551e-10.
    let test = mcnemar_exact(499_900_000, 500_100_000);
    assert_relative(
        test.tails.p_improvement,
        1.270_074_179_881_551e-10,
        SCIPY_TOLERANCE,
        "improvement",
    );
    assert_relative(
        test.tails.p_two_sided,
        2.0 * 1.270_074_179_881_551e-10,
        SCIPY_TOLERANCE,
        "two-sided",
    );
    assert!(test.tails.p_regression > 0.999_999_999 && test.tails.p_regression <= 1.0);
}

#[test]
fn every_outcome_enumerated_agrees_for_small_n() {
    // Brute force over all 2^n assignments of n discordant pairs to the two arms.
    for n in 1..=16_u64 {
        let total = (1_u128 << n) as f64;
        for c in 0..=n {
            let b = n - c;
            let mut at_least_c = 0_u128;
            let mut at_least_b = 0_u128;
            let mut at_most_min = 0_u128;
            for outcome in 0..(1_u64 << n) {
                let candidate = u64::from(outcome.count_ones());
                at_least_c += u128::from(candidate >= c);
                at_least_b += u128::from(candidate >= b);
                at_most_min += u128::from(candidate <= b.min(c));
            }
            let test = mcnemar_exact(b, c);
            let what = format!("b {b} c {c}");
            assert_relative(
                test.tails.p_improvement,
                at_least_c as f64 / total,
                EXACT_TOLERANCE,
                &what,
            );
            assert_relative(
                test.tails.p_regression,
                at_least_b as f64 / total,
                EXACT_TOLERANCE,
                &what,
            );
            let two = (2.0 * at_most_min as f64 / total).min(1.0);
            assert_relative(test.tails.p_two_sided, two, EXACT_TOLERANCE, &what);
            let point = choose(n, c) as f64 / total;
            assert_relative(
                test.mid_p.p_improvement,
                at_least_c as f64 / total - point / 2.0,
                EXACT_TOLERANCE,
                &what,
            );
        }
    }
}

proptest! {
    #[test]
    fn p_values_are_probabilities(b in 0_u64..100_000, c in 0_u64..100_000) {
        let t = mcnemar_exact(b, c);
        for p in [t.tails.p_improvement, t.tails.p_regression, t.tails.p_two_sided, t.mid_p.p_improvement, t.mid_p.p_regression, t.mid_p.p_two_sided] {
            prop_assert!((0.0..=1.0).contains(&p));
        }
        prop_assert!(t.mid_p.p_improvement <= t.tails.p_improvement);
    }

    #[test]
    fn swapping_the_arms_swaps_the_one_sided_p_values(b in 0_u64..20_000, c in 0_u64..20_000) {
        let (forward, backward) = (mcnemar_exact(b, c), mcnemar_exact(c, b));
        prop_assert_eq!(forward.tails.p_improvement, backward.tails.p_regression);
        prop_assert_eq!(forward.tails.p_regression, backward.tails.p_improvement);
        prop_assert_eq!(forward.tails.p_two_sided, backward.tails.p_two_sided);
    }

    #[test]
    fn more_candidate_wins_never_weaken_the_evidence(b in 0_u64..5_000, c in 0_u64..5_000) {
        prop_assert!(mcnemar_exact(b, c + 1).tails.p_improvement <= mcnemar_exact(b, c).tails.p_improvement);
        prop_assert!(mcnemar_exact(b + 1, c).tails.p_improvement >= mcnemar_exact(b, c).tails.p_improvement);
        prop_assert!(mcnemar_exact(b + 1, c).tails.p_regression <= mcnemar_exact(b, c).tails.p_regression);
    }
}

proptest! {
    #[test]
    fn adding_concordant_pairs_never_changes_the_test(
        pairs in proptest::collection::vec((any::<bool>(), any::<bool>()), 0..200),
        both_right in 0_usize..100,
        both_wrong in 0_usize..100,
    ) {
        let before = mcnemar_exact_from(&pairs);
        let mut padded = pairs.clone();
        padded.extend(std::iter::repeat_n((true, true), both_right));
        padded.extend(std::iter::repeat_n((false, false), both_wrong));
        prop_assert_eq!(before, mcnemar_exact_from(&padded));
    }
}

fn mcnemar_exact_from(pairs: &[(bool, bool)]) -> crate::stats::mcnemar::McNemar {
    let (b, c) = discordant_counts(pairs.iter().copied());
    mcnemar_exact(b, c)
}

#[test]
fn counts_discordant_pairs_by_direction() {
    let pairs = [
        (true, false),
        (false, true),
        (false, true),
        (true, true),
        (false, false),
    ];
    assert_eq!(discordant_counts(pairs), (1, 2));
    // P(X >= 11 | 14 discordant) = 470/16384 by direct summation of C(14, j), j >= 11.
    assert_relative(
        mcnemar_exact(3, 11).tails.p_improvement,
        470.0 / 16384.0,
        EXACT_TOLERANCE,
        "tail",
    );
}
