//! pass@1, pass@k and pass^k per item against brute-force enumeration of every set of k
//! repeats, and Wilson's interval at the effective number of items against
//! statsmodels.

use super::{EXACT_TOLERANCE, assert_relative};
use crate::stats::interval::wilson;
use crate::stats::repeats::{ItemRepeats, arm_repeats, beta, item_figure, item_figure_wilson};

/// The share of the k-subsets of `runs` repeats (the first `right` of them right) that
/// hold at least one right repeat, and that hold only right ones: every subset counted.
fn enumerated(runs: u64, right: u64, k: u64) -> (f64, f64) {
    let (mut subsets, mut any, mut all) = (0u64, 0u64, 0u64);
    for mask in 0u32..(1 << runs) {
        if u64::from(mask.count_ones()) != k {
            continue;
        }
        subsets += 1;
        let hits = u64::from((mask & ((1 << right) - 1)).count_ones());
        any += u64::from(hits > 0);
        all += u64::from(hits == k);
    }
    (any as f64 / subsets as f64, all as f64 / subsets as f64)
}

#[test]
fn per_item_pass_at_k_and_pass_hat_k_equal_the_enumerated_shares_of_k_subsets() {
    for runs in 1..=10 {
        for right in 0..=runs {
            for k in 1..=runs {
                let item = ItemRepeats { runs, right };
                let (any, all) = enumerated(runs, right, k);
                let what = format!("{right} of {runs} right, k {k}");
                assert_relative(item.pass_at_k(k), any, EXACT_TOLERANCE, &what);
                assert_relative(item.pass_hat_k(k), all, EXACT_TOLERANCE, &what);
            }
            let item = ItemRepeats { runs, right };
            assert_eq!(item.pass_at_1(), right as f64 / runs as f64);
            assert_eq!(item.flaky(), right > 0 && right < runs);
        }
    }
}

/// statsmodels 0.14.4: `proportion_confint(x, n, alpha=1 - conf, method="beta")`
/// (Clopper–Pearson). Rows: (x, n, conf, low, high).
const CLOPPER_PEARSON: &[(u64, u64, f64, f64, f64)] = &[
    (4, 6, 0.9, 0.27133837251975246, 0.9371501082916456),
    (2, 6, 0.9, 0.06284989170835438, 0.7286616274802475),
    (6, 6, 0.9, 0.6069622310029172, 1.0),
    (50, 60, 0.9, 0.7337092016272058, 0.9066930672947636),
    (20, 60, 0.9, 0.23303698490236113, 0.4464656444652258),
    (0, 7, 0.9, 0.0, 0.3481636551311609),
    (199, 200, 0.9, 0.9765015295650493, 0.9997435664127765),
];

#[test]
fn for_0_1_values_the_interval_is_clopper_pearson_over_items() {
    for &(x, n, conf, low, high) in CLOPPER_PEARSON {
        let mut values = vec![1.0; x as usize];
        values.resize(n as usize, 0.0);
        let figure = item_figure(&values, (5 * n) as f64, conf).unwrap();
        let what = format!("{x}/{n} at {conf}");
        assert_relative(figure.effective_items, n as f64, 1e-12, &what);
        assert_relative(figure.interval.low, low, 1e-10, &what);
        assert_relative(figure.interval.high, high, 1e-10, &what);
    }
}

#[test]
fn at_equal_k_the_figures_are_shares_of_items() {
    // 60 items of 5 repeats: 20 all right, 10 none, 30 with 2 right.
    let mut items = vec![ItemRepeats { runs: 5, right: 5 }; 20];
    items.extend(vec![ItemRepeats { runs: 5, right: 0 }; 10]);
    items.extend(vec![ItemRepeats { runs: 5, right: 2 }; 30]);
    let arm = arm_repeats(&items, 0.9).unwrap();
    assert_relative(
        arm.pass_at_k.estimate,
        50.0 / 60.0,
        EXACT_TOLERANCE,
        "pass@5",
    );
    assert_relative(
        arm.pass_hat_k.estimate,
        20.0 / 60.0,
        EXACT_TOLERANCE,
        "pass^5",
    );
    assert_relative(
        arm.pass_at_1.estimate,
        (20.0 * 5.0 + 30.0 * 2.0) / 300.0,
        EXACT_TOLERANCE,
        "pass@1",
    );
    // The 0/1 figures use the 60 items: the rows of CLOPPER_PEARSON for 50 and 20 of 60.
    assert_relative(
        arm.pass_at_k.interval.low,
        0.7337092016272058,
        1e-10,
        "pass@5 low",
    );
    assert_relative(
        arm.pass_hat_k.interval.high,
        0.4464656444652258,
        1e-10,
        "pass^5 high",
    );
    assert_relative(arm.pass_at_k.effective_items, 60.0, 1e-12, "n_eff");
}

/// statsmodels 0.14.4, numpy: with v the values, p = v.mean(), var = ((v - p)**2).sum()
/// / n**2, neff = min(max(p*(1 - p)/var, n), cap) (cap when var is 0),
/// `proportion_confint(p*neff, neff, alpha=1 - conf, method="beta")`. Rows: (values,
/// cap, conf, p, neff, low, high).
type EffectiveRow = (&'static [f64], f64, f64, f64, f64, f64, f64);
const EFFECTIVE: &[EffectiveRow] = &[
    (
        &[0.2, 0.4, 1.0, 0.0, 0.6, 0.8, 0.4, 0.2],
        40.0,
        0.9,
        0.45,
        20.30769230769231,
        0.2600740499347046,
        0.6514667029715553,
    ),
    (
        &[
            0.3333333333333333,
            0.6666666666666666,
            1.0,
            1.0,
            0.0,
            0.3333333333333333,
        ],
        18.0,
        0.95,
        0.5555555555555556,
        10.909090909090908,
        0.24044219031664346,
        0.8403599517570305,
    ),
    // Little spread: the effective number reaches the cap (the repeats).
    (
        &[0.5, 0.5, 0.5, 0.25, 0.75],
        20.0,
        0.9,
        0.5,
        20.0,
        0.3019539112864935,
        0.6980460887135065,
    ),
    (
        &[0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.4],
        50.0,
        0.9,
        0.06000000000000001,
        34.39024390243902,
        0.011193925724143697,
        0.17446615299325852,
    ),
];

#[test]
fn clopper_pearson_at_the_effective_number_of_items_matches_statsmodels() {
    for &(values, cap, conf, p, neff, low, high) in EFFECTIVE {
        let figure = item_figure(values, cap, conf).unwrap();
        let what = format!("{values:?}");
        assert_relative(figure.estimate, p, 1e-12, &what);
        assert_relative(figure.effective_items, neff, 1e-12, &what);
        assert_relative(figure.interval.low, low, 1e-10, &what);
        assert_relative(figure.interval.high, high, 1e-10, &what);
    }
    // All 0: the n items' interval; none: no figure.
    let zeros = item_figure(&[0.0; 7], 35.0, 0.9).unwrap();
    assert_eq!(zeros.interval.low, 0.0);
    assert_relative(zeros.interval.high, 0.3481636551311609, 1e-10, "zeros");
    assert_eq!(item_figure(&[], 1.0, 0.9), None);
    assert_eq!(item_figure(&[0.5], 1.0, 1.0), None);
    // The Wilson variant, for the coverage bench, is Wilson's interval at n_eff.
    let binary = item_figure_wilson(&[1.0, 1.0, 0.0, 1.0], 8.0, 0.95).unwrap();
    let expected = wilson(3, 4, 0.95).unwrap();
    assert_relative(binary.interval.low, expected.low, 1e-12, "wilson low");
    assert_relative(binary.interval.high, expected.high, 1e-12, "wilson high");
}

/// scipy 1.17.1: `scipy.special.betainc(a, b, x)`. Rows: (x, a, b, I_x(a, b)).
const BETAINC: &[(f64, f64, f64, f64)] = &[
    (0.3, 2.5, 4.0, 0.3521975859067672),
    (0.9, 0.2, 0.7, 0.9470994143297896),
    (0.01, 30.0, 2.0, 3.0700000000000017e-59),
    (0.5, 100.0, 100.0, 0.4999999999999996),
    (0.999, 3.3, 0.05, 0.23391621814311095),
    (0.2, 1.0, 1.0, 0.2),
    (
        0.75,
        10.714285714285712,
        3.142857142857142,
        0.37617971229708164,
    ),
];

#[test]
fn the_beta_cdf_matches_scipy_betainc_and_its_quantile_inverts_it() {
    for &(x, a, b, expected) in BETAINC {
        let what = format!("I_{x}({a}, {b})");
        assert_relative(beta::cdf(x, a, b), expected, 1e-11, &what);
        if expected > 1e-300 {
            let back = beta::quantile(expected, a, b);
            assert!((back - x).abs() < 1e-9, "{what}: quantile {back}");
        }
    }
}
