//! Brute-force oracle for the signed-rank test: every one of the 2^n sign vectors, with
//! midranks computed naively from the definition, for samples with ties and zeros up
//! to n = 16.

use super::{EXACT_TOLERANCE, assert_relative};
use crate::stats::signed_rank::{ZeroMethod, signed_rank};

/// Doubled midranks by definition: 2·(number strictly smaller) + (number equal) + 1,
/// among the magnitudes that are ranked; magnitudes here are exact multiples of ½.
fn naive_doubled_ranks(d: &[f64], zero: ZeroMethod) -> Vec<(u64, bool)> {
    let ranked: Vec<f64> = match zero {
        ZeroMethod::Wilcox => d.iter().copied().filter(|x| *x != 0.0).collect(),
        ZeroMethod::Pratt => d.to_vec(),
    };
    ranked
        .iter()
        .filter(|x| **x != 0.0)
        .map(|x| {
            let smaller = ranked.iter().filter(|y| y.abs() < x.abs()).count() as u64;
            let equal = ranked.iter().filter(|y| y.abs() == x.abs()).count() as u64;
            (2 * smaller + equal + 1, *x > 0.0)
        })
        .collect()
}

pub(super) fn brute_force(d: &[f64], zero: ZeroMethod) -> (f64, f64, f64) {
    let ranks = naive_doubled_ranks(d, zero);
    let observed: u64 = ranks.iter().filter(|r| r.1).map(|r| r.0).sum();
    let n = ranks.len();
    let (mut at_least, mut at_most) = (0_u64, 0_u64);
    for signs in 0..(1_u64 << n) {
        let w: u64 = (0..n)
            .filter(|i| signs >> i & 1 == 1)
            .map(|i| ranks[i].0)
            .sum();
        at_least += u64::from(w >= observed);
        at_most += u64::from(w <= observed);
    }
    let total = (1_u64 << n) as f64;
    let (greater, less) = (at_least as f64 / total, at_most as f64 / total);
    (greater, less, (2.0 * greater.min(less)).min(1.0))
}

/// Samples on a half-unit grid: varied tie patterns (even and odd group sizes, so
/// half-integer midranks occur) and zeros.
fn samples() -> Vec<Vec<f64>> {
    let mut all = vec![
        vec![1.0, -1.0, 1.0, 2.0, -2.0, 0.0, 3.0, 0.5],
        vec![
            0.0, 0.0, 0.5, -0.5, 0.5, 1.5, -1.5, 1.5, 2.0, 2.5, 3.0, -3.0, 0.0, 4.0, 4.0, 4.0,
        ],
        vec![2.0; 16],
        vec![-1.0, -1.0, -1.0, 2.0, 2.0, -3.0, 0.0, 0.0, 0.0, 0.0, 5.0],
    ];
    for seed in 0..40_u64 {
        let n = 4 + seed % 13;
        all.push(
            (0..n)
                .map(|i| ((i * (seed + 3) * 7 + seed) % 9) as f64 * 0.5 - 2.0)
                .collect(),
        );
    }
    all
}

#[test]
fn every_sign_flip_enumerated_agrees_with_ties_and_zeros() {
    for d in samples() {
        for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
            let (greater, less, two) = brute_force(&d, zero);
            let result = signed_rank(&d, zero);
            let what = format!("{d:?} {zero:?}");
            assert_relative(result.tails.p_improvement, greater, EXACT_TOLERANCE, &what);
            assert_relative(result.tails.p_regression, less, EXACT_TOLERANCE, &what);
            assert_relative(result.tails.p_two_sided, two, EXACT_TOLERANCE, &what);
        }
    }
}

proptest::proptest! {
    /// Regression: fused passes whose lag exceeded the table width were skipped when
    /// block coordinates were clipped at zero; every subset counted by brute force.
    #[test]
    fn null_cdf_counts_every_subset_even_when_ranks_exceed_the_window(
        ranks in proptest::collection::vec(1_u64..40, 1..14),
        fraction in 0.0_f64..1.0,
    ) {
        let total: u64 = ranks.iter().sum();
        let w = (fraction * total as f64) as u64;
        let n = ranks.len();
        let (mut at_most, mut equal) = (0_u64, 0_u64);
        for subset in 0..(1_u64 << n) {
            let sum: u64 = (0..n).filter(|i| subset >> i & 1 == 1).map(|i| ranks[i]).sum();
            at_most += u64::from(sum <= w);
            equal += u64::from(sum == w);
        }
        let scale = (1_u64 << n) as f64;
        let tail = crate::stats::signed_rank::null_table::null_cdf(&ranks, w);
        proptest::prop_assert!((tail.cdf - at_most as f64 / scale).abs() <= 1e-15);
        proptest::prop_assert!((tail.point - equal as f64 / scale).abs() <= 1e-15);
    }
}
