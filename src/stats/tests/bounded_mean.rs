//! The betting interval against an independent high-precision computation, its level
//! checked by exact enumeration on three-valued differences, and its properties.

use super::BISECTION_TOLERANCE;
use crate::stats::bounded_mean::{
    DISTINCT_LIMIT, Histogram, bet_fractions, betting_interval, grid_step,
};
use proptest::prelude::*;

// Reference bounds from mpmath 1.4.1 at 50 digits, written for this test: the mixture
// K(m) = mean over c in bet_fractions(n) of prod_x (1 + c·(x − m)/(1 + m))^count, and
// `mpmath.findroot(lambda m: log(K(m)) - log(1/a), (-1 + 1e-40, max x),
// solver='anderson', tol=1e-40)` with a = (1 − confidence)/2; the upper bound is minus
// the lower bound of the negated values. Twelve zeros also by hand: at m = −0.27677,
// (1/3)·(1.3827^12 + 1.1914^12 + 1.0957^12) = (48.8 + 8.17 + 3.0)/3 = 20 = 1/0.05.
/// (value, count) entries, two-sided confidence, reference low and high.
type Case = (&'static [(f64, u64)], f64, f64, f64);

const REFERENCE: [Case; 5] = [
    (
        &[(0.0, 12)],
        0.90,
        -0.27677321416731721,
        0.27677321416731721,
    ),
    (
        &[(-1.0, 3), (0.0, 20), (1.0, 7)],
        0.90,
        -0.19757844899160279,
        0.43137435100642812,
    ),
    (
        &[
            (0.25, 1),
            (-0.5, 1),
            (0.75, 1),
            (0.1, 1),
            (0.0, 1),
            (1.0, 1),
            (-0.2, 1),
            (0.3, 1),
        ],
        0.95,
        -0.36860774714595393,
        0.7453459292104427,
    ),
    (&[(-1.0, 5)], 0.90, -1.0, 0.072601166832083955),
    (
        &[(-1.0, 100), (0.0, 750), (1.0, 150)],
        0.90,
        0.0029559277803219166,
        0.097814635414501117,
    ),
];

#[test]
fn betting_bounds_match_an_independent_high_precision_root() {
    for (counts, confidence, low, high) in REFERENCE {
        let histogram = Histogram::from_counts(counts.iter().copied()).expect("valid");
        let interval = betting_interval(&histogram, confidence).expect("valid level");
        // Each bound stops on its safe side of the root, within the bisection's reach.
        assert!(
            interval.low <= low + 1e-15 && interval.low >= low - BISECTION_TOLERANCE,
            "{counts:?}: low {} against {low}",
            interval.low
        );
        assert!(
            interval.high >= high - 1e-15 && interval.high <= high + BISECTION_TOLERANCE,
            "{counts:?}: high {} against {high}",
            interval.high
        );
    }
}

#[test]
fn twelve_unchanged_pairs_give_an_interval_around_zero_not_a_point() {
    let histogram = Histogram::of(&[0.0; 12]).expect("valid");
    let interval = betting_interval(&histogram, 0.90).expect("valid level");
    assert!(interval.low < -0.27 && interval.high > 0.27, "{interval:?}");
}

#[test]
fn bet_fractions_halve_from_one_to_the_first_at_or_below_one_over_root_n() {
    assert_eq!(bet_fractions(1), [1.0]);
    assert_eq!(bet_fractions(12), [1.0, 0.5, 0.25]);
    assert_eq!(bet_fractions(16), [1.0, 0.5, 0.25]);
    assert_eq!(bet_fractions(17), [1.0, 0.5, 0.25, 0.125]);
    assert_eq!(bet_fractions(1_000).len(), 6);
    // The counts docs/statistics.md gives for the sequential holdouts, and the closed
    // form J = 1 + ⌈log₂ √N⌉ they follow (it once said 6 at 136 and 8 at 1,000).
    for (n, j) in [(100, 5), (136, 5), (400, 6), (1_000, 6), (20_000, 9)] {
        assert_eq!(bet_fractions(n).len(), j, "N = {n}");
        let closed = 1 + (n as f64).sqrt().log2().ceil() as usize;
        assert_eq!(closed, j, "N = {n}");
    }
}

#[test]
fn histograms_refuse_values_outside_minus_one_to_one_and_empty_input() {
    assert!(Histogram::of(&[0.5, 1.5]).is_none());
    assert!(Histogram::of(&[f64::NAN]).is_none());
    assert!(Histogram::of(&[]).is_none());
    assert!(Histogram::from_counts([(0.5, 0)]).is_none());
    assert!(betting_interval(&Histogram::of(&[0.0]).unwrap(), 1.0).is_none());
}

#[test]
fn many_distinct_values_are_rounded_outward_to_the_grid_before_the_search() {
    // 5,000 distinct values: past the limit, the lower bound is that of the values
    // rounded down to the grid and the upper bound that of the values rounded up.
    let n = 5_000;
    let values: Vec<f64> = (0..n)
        .map(|i| (i as f64 * 0.618_034).fract() - 0.4)
        .collect();
    let step = grid_step(n as u64);
    assert!(n > DISTINCT_LIMIT && step == 2f64.powi(-13));
    let interval = betting_interval(&Histogram::of(&values).unwrap(), 0.90).unwrap();
    let down: Vec<f64> = values.iter().map(|v| (v / step).floor() * step).collect();
    let up: Vec<f64> = values.iter().map(|v| (v / step).ceil() * step).collect();
    let lower = betting_interval(&Histogram::of(&down).unwrap(), 0.90).unwrap();
    let upper = betting_interval(&Histogram::of(&up).unwrap(), 0.90).unwrap();
    assert_eq!(interval.low, lower.low);
    assert_eq!(interval.high, upper.high);
    // Moving every value up by one grid step moves the lower bound up by about one step:
    // the rounding costs the bound at most about a step.
    assert!(lower.low <= upper.low && upper.low - lower.low <= 2.0 * step);
}

/// P(lower bound ≤ true mean), summed exactly over every histogram of n differences in
/// {−1, 0, 1} with probabilities (minus, 1 − minus − plus, plus).
fn exact_lower_coverage(n: u64, minus: f64, plus: f64, bounds: &[((u64, u64), f64)]) -> f64 {
    let truth = plus - minus;
    let zero = (1.0 - minus - plus).max(0.0);
    let log_factorial = |k: u64| (1..=k).map(|i| (i as f64).ln()).sum::<f64>();
    bounds
        .iter()
        .filter(|(_, low)| *low <= truth)
        .map(|&((a, c), _)| {
            let z = n - a - c;
            let mut log = log_factorial(n) - log_factorial(a) - log_factorial(c) - log_factorial(z);
            for (count, p) in [(a, minus), (c, plus), (z, zero)] {
                if count > 0 {
                    log += count as f64 * p.ln();
                }
            }
            log.exp()
        })
        .sum()
}

#[test]
fn the_lower_bound_holds_its_level_on_every_three_valued_distribution_at_n_12() {
    // The guarantee is for every distribution; three-valued ones (0/1 scores) are where
    // the bootstrap failed, and at n = 12 all 91 histograms can be enumerated.
    let n = 12;
    let bounds: Vec<((u64, u64), f64)> = (0..=n)
        .flat_map(|a| (0..=n - a).map(move |c| (a, c)))
        .map(|(a, c)| {
            let histogram =
                Histogram::from_counts([(-1.0, a), (0.0, n - a - c), (1.0, c)]).expect("valid");
            (
                (a, c),
                betting_interval(&histogram, 0.90).expect("valid").low,
            )
        })
        .collect();
    for i in 0..=20 {
        for j in 0..=(20 - i) {
            let (minus, plus) = (i as f64 / 20.0, j as f64 / 20.0);
            let coverage = exact_lower_coverage(n, minus, plus, &bounds);
            assert!(coverage >= 0.95 - 1e-12, "({minus}, {plus}): {coverage}");
        }
    }
}

proptest! {
    #[test]
    fn the_interval_ignores_order_and_holds_the_mean_strictly_inside(
        values in prop::collection::vec((-4i32..=4).prop_map(|q| f64::from(q) / 4.0), 1..40),
        rotation in 0usize..40,
    ) {
        let histogram = Histogram::of(&values).expect("valid");
        let interval = betting_interval(&histogram, 0.90).expect("valid");
        let mut rotated = values.clone();
        rotated.rotate_left(rotation % values.len());
        let again = betting_interval(&Histogram::of(&rotated).unwrap(), 0.90).unwrap();
        prop_assert_eq!(interval, again);
        let mean = histogram.mean();
        prop_assert!(interval.low < interval.high);
        prop_assert!(interval.low <= mean && mean <= interval.high);
        prop_assert!(interval.low >= -1.0 && interval.high <= 1.0);
        let negated: Vec<f64> = values.iter().map(|v| -v).collect();
        let swapped = betting_interval(&Histogram::of(&negated).unwrap(), 0.90).unwrap();
        prop_assert_eq!((swapped.low, swapped.high), (-interval.high, -interval.low));
    }

    #[test]
    fn a_higher_confidence_gives_a_wider_interval(
        values in prop::collection::vec((-4i32..=4).prop_map(|q| f64::from(q) / 4.0), 1..30),
    ) {
        let histogram = Histogram::of(&values).expect("valid");
        let narrow = betting_interval(&histogram, 0.80).unwrap();
        let wide = betting_interval(&histogram, 0.95).unwrap();
        prop_assert!(wide.low <= narrow.low && narrow.high <= wide.high);
    }
}
