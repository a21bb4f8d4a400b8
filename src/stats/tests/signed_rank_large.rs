//! The signed-rank test at n = 2,600 to 20,000 against independent values: exact
//! integer arithmetic for few distinct magnitudes, an independent float64 dynamic
//! program for distinct ones and, for a hundred and three hundred distinct magnitudes at
//! n = 2,600 to 20,000, mpmath quadrature of the inversion integrals on another contour
//! (`tests/data/signed_rank_exact.tsv`, written by `benches/signed_rank_reference.py`;
//! its header names the methods and versions), the
//! saddlepoint against the same values, the tie-group convolution and the inversion
//! against the knapsack, each other and brute force.

use super::assert_relative;
use crate::stats::signed_rank::inversion;
use crate::stats::signed_rank::null_table::null_cdf;
use crate::stats::signed_rank::saddlepoint;
use crate::stats::signed_rank::tie_groups::{self, TieGroup};
use crate::stats::signed_rank::{
    EXACT_LIMIT, INVERSION_LIMIT, Method, SADDLEPOINT_RELATIVE_ERROR, ZeroMethod,
    saddlepoint_tails, signed_rank,
};
use proptest::prelude::*;

/// Agreement required with the independent values at large n.
const LARGE_N_TOLERANCE: f64 = 1e-9;

/// One row of the reference file.
struct Case {
    label: String,
    n: u64,
    zero: ZeroMethod,
    differences: Vec<f64>,
    n_nonzero: usize,
    n_zero: usize,
    doubled_w_plus: u64,
    greater: f64,
    less: f64,
}

/// d_i = float(sign · ((i·a + 7) mod m)) · scale, sign + when (i·b + 3) mod 1000 < thr,
/// as in the generating script.
fn generated(n: u64, a: u64, m: u64, b: u64, thr: u64, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let class = ((i * a + 7) % m) as i64;
            let sign = if (i * b + 3) % 1000 < thr { 1 } else { -1 };
            (sign * class) as f64 * scale
        })
        .collect()
}

fn cases() -> Vec<Case> {
    include_str!("../../../tests/data/signed_rank_exact.tsv")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 14, "{line}");
            let int = |i: usize| f[i].parse::<u64>().expect("whole number");
            let real = |i: usize| f[i].parse::<f64>().expect("number");
            let n = int(2);
            Case {
                label: f[0].to_string(),
                n,
                zero: if f[8] == "pratt" {
                    ZeroMethod::Pratt
                } else {
                    ZeroMethod::Wilcox
                },
                differences: generated(n, int(3), int(4), int(5), int(6), real(7)),
                n_nonzero: int(9) as usize,
                n_zero: int(10) as usize,
                doubled_w_plus: int(11),
                greater: real(12),
                less: real(13),
            }
        })
        .collect()
}

#[test]
// Prints the worst error (with --nocapture): the figure docs/statistics.md quotes.
#[allow(clippy::print_stderr)]
fn exact_tails_to_twenty_thousand_match_independent_values_to_a_billionth() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for label in ["ties-2", "ties-3", "ties-100", "ties-300"] {
        assert!(
            cases
                .iter()
                .any(|c| c.label == label && c.n == 20_000 && c.zero == ZeroMethod::Pratt),
            "{label}"
        );
    }
    // The deepest tail among the many-group rows reaches below 1e-40.
    assert!(
        cases
            .iter()
            .any(|c| c.label == "ties-300" && c.greater.min(c.less) < 1e-40)
    );
    let (mut worst, mut worst_at_twenty_thousand): (f64, f64) = (0.0, 0.0);
    for case in &cases {
        let result = signed_rank(&case.differences, case.zero);
        let what = format!("{} n {} {:?}", case.label, case.n, case.zero);
        assert_eq!(
            (result.n_nonzero, result.n_zero, result.w_plus),
            (
                case.n_nonzero,
                case.n_zero,
                case.doubled_w_plus as f64 / 2.0
            ),
            "{what}"
        );
        assert_eq!(result.method, Method::Exact, "{what}");
        assert_relative(
            result.tails.p_improvement,
            case.greater,
            LARGE_N_TOLERANCE,
            &what,
        );
        assert_relative(
            result.tails.p_regression,
            case.less,
            LARGE_N_TOLERANCE,
            &what,
        );
        for (got, want) in [
            (result.tails.p_improvement, case.greater),
            (result.tails.p_regression, case.less),
        ] {
            let error = ((got - want) / want).abs();
            worst = worst.max(error);
            if case.n == 20_000 {
                worst_at_twenty_thousand = worst_at_twenty_thousand.max(error);
            }
        }
    }
    eprintln!(
        "worst relative error of the exact tails: {worst:e}, at n = 20,000: \
         {worst_at_twenty_thousand:e}"
    );
}

#[test]
// Prints the worst error (with --nocapture): the figure docs/statistics.md quotes.
#[allow(clippy::print_stderr)]
fn saddlepoint_stays_within_its_stated_error_on_every_reference_case() {
    let (mut worst, mut checked) = (0.0_f64, 0);
    // Where it is used: many distinct magnitudes (a hundred or more). With a few large
    // tie groups W+ lives on a coarse sub-lattice the approximation does not see (2%
    // off at two groups, n = 2,600), but those are exact far beyond the limit.
    for case in cases()
        .into_iter()
        .filter(|c| !c.label.starts_with("ties-") || c.label == "ties-100")
    {
        let (greater, less) = saddlepoint_tails(&case.differences, case.zero);
        let what = format!("{} n {} {:?}", case.label, case.n, case.zero);
        let smaller = case.greater.min(case.less);
        let got = if case.greater <= case.less {
            greater
        } else {
            less
        };
        assert_relative(got, smaller, SADDLEPOINT_RELATIVE_ERROR, &what);
        worst = worst.max(((got - smaller) / smaller).abs());
        checked += 1;
    }
    assert!(checked >= 8, "{checked} cases");
    eprintln!("worst relative error of the saddlepoint: {worst:e}");
}

#[test]
fn many_distinct_magnitudes_beyond_the_knapsack_limit_are_exact_and_near_the_saddlepoint() {
    // On main before the inversion this was the saddlepoint.
    let n = EXACT_LIMIT as u64 + 2_000;
    let d = generated(n, 7919, 1_000_003, 13, 530, 1e-6);
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    assert_eq!(result.method, Method::Exact);
    let (greater, _) = saddlepoint_tails(&d, ZeroMethod::Wilcox);
    assert_relative(
        result.tails.p_improvement,
        greater,
        SADDLEPOINT_RELATIVE_ERROR,
        "saddlepoint",
    );
    assert!(greater > 1e-12 && greater < 1e-2, "{greater}");
}

/// Differences in quarters: four tie groups and zeros, 53.7% of the signs positive, so
/// W+ is far into its upper tail.
fn quarters(n: u64) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let class = (i % 5) as f64 * 0.25;
            if (i * 13 + 3) % 997 < 462 {
                -class
            } else {
                class
            }
        })
        .collect()
}

#[test]
fn few_distinct_magnitudes_are_exact_to_a_hundred_thousand_non_zero_differences() {
    // 125,000 differences hold 100,000 non-zero ones (INVERSION_LIMIT): exact (on main
    // the saddlepoint past 20,000); 130,000 hold 104,000: the saddlepoint.
    let d = quarters(125_000);
    for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
        let result = signed_rank(&d, zero);
        assert_eq!(result.n_nonzero, INVERSION_LIMIT);
        assert_eq!(result.method, Method::Exact, "{zero:?}");
        assert!(
            result.tails.log10_p_improvement < -40.0 && result.tails.log10_p_improvement > -150.0,
            "{result:?}"
        );
        assert!(result.tails.p_regression > 0.999_999, "{result:?}");
    }
    // 130,000 hold 104,000: four tie groups are a lumpy lattice, still exact (on main
    // the saddlepoint, off by percents on such lattices).
    let beyond = signed_rank(&quarters(130_000), ZeroMethod::Wilcox);
    assert_eq!(beyond.method, Method::Exact);
}

#[test]
fn one_tie_group_at_a_million_is_the_binomial_tail() {
    // Every |d| equal: W+ is the rank times Binomial(10^6, 1/2). 501,500 positive:
    // P(W+ >= observed) = scipy.stats.binom.sf(501499, 1000000, 0.5) (scipy 1.17.1)
    // = 0.001354327653029687; 503,000 positive: binom.sf(502999, 1000000, 0.5) =
    // 9.92574881961445e-10.
    for (positive, want) in [
        (501_500_usize, 0.001_354_327_653_029_687),
        (503_000, 9.925_748_819_614_45e-10),
    ] {
        let d: Vec<f64> = (0..1_000_000)
            .map(|i| if i < positive { 0.5 } else { -0.5 })
            .collect();
        let result = signed_rank(&d, ZeroMethod::Wilcox);
        assert_eq!(result.method, Method::Exact);
        assert_relative(
            result.tails.p_improvement,
            want,
            LARGE_N_TOLERANCE,
            "binomial",
        );
    }
}

#[test]
fn many_distinct_magnitudes_past_a_hundred_thousand_are_left_to_the_saddlepoint() {
    // A smooth lattice (every |d| distinct) is where the saddlepoint's bound was tested;
    // the inversion would cost seconds there.
    let d = generated(101_000, 7919, 1_000_003, 13, 505, 1e-6);
    let result = signed_rank(&d, ZeroMethod::Wilcox);
    assert!(result.n_nonzero > INVERSION_LIMIT, "{}", result.n_nonzero);
    assert_eq!(result.method, Method::Saddlepoint);
}

#[test]
fn a_hundred_distinct_magnitudes_at_twenty_thousand_are_exact_with_both_zero_methods() {
    // On main this was the saddlepoint (the tie-group tables did not fit their budget).
    // The values are checked against independent ones in the reference file.
    let d = generated(20_000, 7, 101, 13, 530, 0.01);
    for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
        let result = signed_rank(&d, zero);
        assert_eq!(result.method, Method::Exact, "{zero:?}");
        let (greater, _) = saddlepoint_tails(&d, zero);
        assert_relative(
            result.tails.p_improvement,
            greater,
            SADDLEPOINT_RELATIVE_ERROR,
            "saddlepoint",
        );
    }
}

#[test]
fn a_hundred_distinct_magnitudes_at_a_hundred_thousand_are_exact_with_both_zero_methods() {
    // A hundred tie groups of about a thousand, and zeros. On main: the saddlepoint,
    // which misses the lattice's secondary peaks here by about 6e-5.
    let d = generated(101_000, 7, 101, 13, 505, 0.01);
    for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
        let result = signed_rank(&d, zero);
        assert!(result.n_nonzero <= INVERSION_LIMIT, "{}", result.n_nonzero);
        assert_eq!(result.method, Method::Exact, "{zero:?}");
        let (greater, _) = saddlepoint_tails(&d, zero);
        assert_relative(result.tails.p_improvement, greater, 1e-3, "saddlepoint");
    }
}

#[test]
fn inversion_agrees_with_the_tie_group_convolution_on_lumpy_lattices_and_deep_tails() {
    // Few large tie groups put secondary peaks in the integrand, which the inversion
    // must integrate rather than bound; the tie-group convolution is exact here.
    for (n, m, a, thr) in [
        (2_600_u64, 4_u64, 11_u64, 575_u64),
        (5_000, 5, 13, 590),
        (20_000, 3, 7, 527),
        (20_000, 4, 11, 540),
        (6_000, 5, 13, 700),
    ] {
        let mut counts = vec![0_u64; m as usize];
        let mut plus = vec![0_u64; m as usize];
        for i in 0..n {
            let class = ((i * a + 7) % m) as usize;
            counts[class] += 1;
            plus[class] += u64::from((i * 13 + 3) % 1000 < thr);
        }
        // Wilcoxon: class 0 holds the zeros; doubled midranks, divided by their gcd.
        let (mut start, mut observed, mut groups) = (0, 0, Vec::new());
        for class in 1..m as usize {
            let rank = 2 * start + counts[class] + 1;
            start += counts[class];
            observed += rank * plus[class];
            groups.push(TieGroup {
                rank,
                count: counts[class],
            });
        }
        let unit = groups.iter().fold(0, |g, t| gcd(g, t.rank));
        for g in &mut groups {
            g.rank /= unit;
        }
        let total: u64 = groups.iter().map(|g| g.rank * g.count).sum();
        let w = (observed / unit).min(total - observed / unit);
        let estimate = saddlepoint::lower_tail(&groups, w);
        let convolution = tie_groups::lower_tail(&groups, w, estimate, u64::MAX).expect("fits");
        let inverted = inversion::lower_tail(&groups, w, u64::MAX).expect("proved");
        let what = format!("n {n} m {m} thr {thr}");
        assert_relative(inverted.cdf, convolution.cdf, 1e-12, &what);
        assert!(
            (inverted.ln_cdf - convolution.ln_cdf).abs() < 1e-12 * convolution.ln_cdf.abs(),
            "{what}"
        );
        // P(S = w) only enters 1 − P(S ≤ w) + P(S = w) ≥ ½: absolute agreement suffices.
        assert!(
            (inverted.point - convolution.point).abs() <= 1e-12 * convolution.cdf,
            "{what}"
        );
    }
}

#[test]
fn inversion_declines_when_its_budget_is_too_small() {
    let groups: Vec<TieGroup> = (1..=500).map(|rank| TieGroup { rank, count: 1 }).collect();
    let w = 500 * 501 / 4 - 2_000;
    assert!(inversion::lower_tail(&groups, w, 1_000).is_none());
    let tail = inversion::lower_tail(&groups, w, u64::MAX).expect("proved");
    let units: Vec<u64> = (1..=500).collect();
    assert_relative(tail.cdf, null_cdf(&units, w).cdf, 1e-12, "knapsack");
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn brute_force(ranks: &[u64], w: u64) -> (f64, f64) {
    let n = ranks.len();
    let (mut at_most, mut equal) = (0_u64, 0_u64);
    for subset in 0..(1_u64 << n) {
        let sum: u64 = (0..n)
            .filter(|i| subset >> i & 1 == 1)
            .map(|i| ranks[i])
            .sum();
        at_most += u64::from(sum <= w);
        equal += u64::from(sum == w);
    }
    let scale = (1_u64 << n) as f64;
    (at_most as f64 / scale, equal as f64 / scale)
}

fn groups_of(ranks: &[u64]) -> Vec<TieGroup> {
    let mut sorted = ranks.to_vec();
    sorted.sort_unstable();
    let mut groups: Vec<TieGroup> = Vec::new();
    for r in sorted {
        match groups.last_mut() {
            Some(g) if g.rank == r => g.count += 1,
            _ => groups.push(TieGroup { rank: r, count: 1 }),
        }
    }
    groups
}

proptest! {
    #[test]
    fn tie_group_convolution_counts_every_subset(
        ranks in proptest::collection::vec(prop_oneof![1_u64..6, 1_u64..40], 1..15),
        fraction in 0.0_f64..1.0,
    ) {
        let total: u64 = ranks.iter().sum();
        let w = (fraction * total as f64) as u64;
        let groups = groups_of(&ranks);
        let estimate = saddlepoint::lower_tail(&groups, w);
        let (cdf, point) = brute_force(&ranks, w);
        let tail = tie_groups::lower_tail(&groups, w, estimate, u64::MAX);
        let tail = tail.expect("small cases fit");
        prop_assert!((tail.cdf - cdf).abs() <= 1e-14 * cdf.max(1e-300) + 1e-300, "{} {}", tail.cdf, cdf);
        prop_assert!((tail.point - point).abs() <= 1e-14 * point.max(1e-300) + 1e-300);
    }
}

proptest! {
    #[test]
    fn inversion_counts_every_subset_whenever_it_answers(
        ranks in proptest::collection::vec(prop_oneof![1_u64..6, 1_u64..40], 1..15),
        fraction in 0.0_f64..0.5,
    ) {
        let total: u64 = ranks.iter().sum();
        let w = (fraction * total as f64) as u64;
        let groups = groups_of(&ranks);
        let (cdf, point) = brute_force(&ranks, w);
        // Small, lumpy cases may be declined (the budget); what is given must be right.
        if let Some(tail) = inversion::lower_tail(&groups, w, 10_000_000) {
            prop_assert!((tail.cdf - cdf).abs() <= 1e-12 * cdf, "{} {}", tail.cdf, cdf);
            prop_assert!((tail.point - point).abs() <= 1e-12 * cdf, "{} {}", tail.point, point);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn tie_group_convolution_agrees_with_the_knapsack_on_large_tied_samples(
        sizes in proptest::collection::vec(1_u64..300, 1..7),
        fraction in 0.05_f64..0.5,
    ) {
        // Doubled midranks of consecutive tie groups of these sizes.
        let mut ranks = Vec::new();
        let mut start = 0;
        for &size in &sizes {
            ranks.extend(std::iter::repeat_n(2 * start + size + 1, size as usize));
            start += size;
        }
        let total: u64 = ranks.iter().sum();
        let w = (fraction * total as f64) as u64;
        let groups = groups_of(&ranks);
        let estimate = saddlepoint::lower_tail(&groups, w);
        let expected = null_cdf(&ranks, w);
        if let Some(tail) = tie_groups::lower_tail(&groups, w, estimate, u64::MAX) {
            prop_assert!(((tail.cdf - expected.cdf) / expected.cdf).abs() <= 1e-11, "{} {}", tail.cdf, expected.cdf);
        } else {
            // Refused only when the tail is too small for the mass left out to be bounded.
            prop_assert!(expected.cdf < 1e-250, "{}", expected.cdf);
        }
    }
}
#[test]
fn inversion_answers_small_lumpy_cases_and_counts_every_subset() {
    // 300 small cases, ranks from 1..=5 (lumpy) or 1..=39, w from 0 to 45% of the total:
    // within its budget the inversion answers every one, to 1e-12 of brute force.
    for seed in 0..300_u64 {
        let len = 1 + (seed * 7 % 14) as usize;
        let spread = if seed % 2 == 0 { 5 } else { 39 };
        let ranks: Vec<u64> = (0..len as u64)
            .map(|i| 1 + (seed * 31 + i * 17) % spread)
            .collect();
        let total: u64 = ranks.iter().sum();
        let w = (total as f64 * ((seed % 10) as f64 / 20.0)) as u64;
        let tail = inversion::lower_tail(&groups_of(&ranks), w, 10_000_000);
        let tail = tail.unwrap_or_else(|| panic!("declined {ranks:?} {w}"));
        let (cdf, point) = brute_force(&ranks, w);
        assert!((tail.cdf - cdf).abs() <= 1e-12 * cdf, "{ranks:?} {w}");
        assert!((tail.point - point).abs() <= 1e-12 * cdf, "{ranks:?} {w}");
    }
}
