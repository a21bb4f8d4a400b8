//! Wilson's and Tango's score intervals against statsmodels and two independent
//! computations of Tango's interval.

use super::assert_relative;
use crate::stats::interval::{normal_mean, paired_difference, wilson};

/// Interval endpoints depend on the quantile and a square root: 1e-12 relative.
const INTERVAL_TOLERANCE: f64 = 1e-12;

/// statsmodels 0.15.0: `proportion_confint(x, n, alpha=1 - conf, method="wilson")`.
/// Rows: (x, n, conf, low, high).
const WILSON: &[(u64, u64, f64, f64, f64)] = &[
    (0, 10, 0.95, 0.0, 0.2775327998628892),
    (1, 10, 0.95, 0.017876213095072896, 0.4041500267952385),
    (5, 10, 0.95, 0.236593090512564, 0.7634069094874361),
    (10, 10, 0.95, 0.7224672001371107, 0.9999999999999999),
    (81, 263, 0.95, 0.2552885198782742, 0.36620957698280004),
    (15, 148, 0.99, 0.05364486961396486, 0.1832673501131525),
    (0, 1, 0.9, 0.0, 0.730134051215946),
    (999, 1000, 0.95, 0.9943574414020421, 0.9998234536293739),
];

#[test]
fn wilson_matches_statsmodels() {
    for &(x, n, conf, low, high) in WILSON {
        let interval = wilson(x, n, conf).expect("valid");
        let what = format!("{x}/{n} at {conf}");
        assert_relative(interval.low, low, INTERVAL_TOLERANCE, &what);
        assert_relative(interval.high, high, INTERVAL_TOLERANCE, &what);
        assert_eq!(interval.confidence, conf);
    }
    assert_eq!(wilson(0, 0, 0.95), None);
    assert_eq!(wilson(3, 2, 0.95), None);
    assert_eq!(wilson(1, 2, 1.0), None);
}

/// Tango (1998) score interval for (c − b)/n. mpmath 1.4.1: bisection (200 steps, 50
/// digits) on Tango's score statistic with z = √2·erfinv(conf); it agrees to 1e-12 with
/// the outer roots of the closed-form quartic of Yang, Sun & Hardin (Stat Med 2013,
/// "A non-iterative implementation of Tango's score confidence interval"), ported to
/// numpy 2.4.6 `roots`. The first row is the airway data of Fagerland, Lydersen & Laake
/// (Stat Med 2014), b = 1, c = 7, n = 21. Rows: (b, c, n, conf, low, high).
const TANGO: &[(u64, u64, u64, f64, f64, f64)] = &[
    (1, 7, 21, 0.95, 0.026003032480868597, 0.5172322764213774),
    (7, 1, 21, 0.95, -0.5172322764213774, -0.026003032480868597),
    (0, 0, 50, 0.95, -0.07134759913335871, 0.07134759913335871),
    (0, 5, 5, 0.95, 0.13103507043365056, 1.0),
    (2, 9, 40, 0.95, 0.014425731152365007, 0.33902340277462406),
    (
        10,
        20,
        100,
        0.95,
        -0.007682903858708937,
        0.20821177526763274,
    ),
    (86, 150, 500, 0.95, 0.06838166343192137, 0.18677910341823345),
    (3, 3, 30, 0.9, -0.14838972521317292, 0.14838972521317292),
    (12, 2, 44, 0.99, -0.43662847154126544, -0.009891669697707009),
];

#[test]
fn paired_difference_matches_two_independent_tango_computations() {
    for &(b, c, n, conf, low, high) in TANGO {
        let interval = paired_difference(b, c, n, conf).expect("valid");
        let what = format!("b {b} c {c} n {n} at {conf}");
        assert_relative(interval.low, low, INTERVAL_TOLERANCE, &what);
        assert_relative(interval.high, high, INTERVAL_TOLERANCE, &what);
    }
}

#[test]
fn paired_interval_is_wider_than_the_disagreement_rate_allows_a_wald_interval() {
    // The reference pipeline's interval could never be wider than (b + c)/n; with no
    // disagreement at all Tango's interval still has width 0.143 at n = 50.
    let interval = paired_difference(0, 0, 50, 0.95).expect("valid");
    assert!(interval.high - interval.low > 0.14);
    let interval = paired_difference(1, 2, 20, 0.95).expect("valid");
    assert!(interval.high - interval.low > 3.0 / 20.0);
}

#[test]
fn paired_interval_refuses_impossible_counts() {
    assert_eq!(paired_difference(3, 4, 6, 0.95), None);
    assert_eq!(paired_difference(0, 0, 0, 0.95), None);
    assert_eq!(paired_difference(1, 1, 10, 0.0), None);
    assert_eq!(paired_difference(u64::MAX, 1, 10, 0.95), None);
}

/// scipy 1.17.1, numpy 2.4.6: `stats.norm.interval(conf, loc=d.mean(), scale=stats.sem(d))`
/// for d = [0, 0.25, −0.5, 1, 0.75, 0, −0.25, 0.5, 1, 0.25]. Rows: (conf, low, high).
const NORMAL_MEAN: &[(f64, f64, f64)] = &[
    (0.9, 0.03420920680763845, 0.5657907931923614),
    (0.95, -0.01670926430387565, 0.6167092643038756),
];

#[test]
fn normal_mean_matches_scipy() {
    let d = [0.0, 0.25, -0.5, 1.0, 0.75, 0.0, -0.25, 0.5, 1.0, 0.25];
    for &(conf, low, high) in NORMAL_MEAN {
        let interval = normal_mean(&d, conf).expect("valid");
        let what = format!("normal mean at {conf}");
        assert_relative(interval.low, low, INTERVAL_TOLERANCE, &what);
        assert_relative(interval.high, high, INTERVAL_TOLERANCE, &what);
    }
    assert_eq!(normal_mean(&[0.5], 0.9), None);
    assert_eq!(normal_mean(&[0.5, f64::NAN], 0.9), None);
    assert_eq!(normal_mean(&[0.5, 0.25], 1.0), None);
    let constant = normal_mean(&[0.25; 5], 0.9).expect("valid");
    assert_eq!((constant.low, constant.high), (0.25, 0.25));
}
