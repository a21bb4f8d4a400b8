//! The sequential e-processes against a second, naive implementation (direct products
//! of the bettors' factors, no logarithms, no counts), the exact final look against
//! enumeration of every path of up to 14 coins, and the monitor's rules.

use super::{EXACT_TOLERANCE, assert_relative};
use crate::alpha::Alpha;
use crate::stats::bounded_mean::bet_fractions;
use crate::stats::sequential::{Design, FinalTest, Monitor, Reason, Standing, final_look};
use crate::stats::signed_rank::ZeroMethod;

/// The mixture capital after `values`, as the definition reads:
/// (1/J)·Σ_j Π_i (1 + c_j·(x_i − m)/(1 + m)).
fn naive_capital(bets: &[f64], values: &[f64], m: f64) -> f64 {
    let total: f64 = bets
        .iter()
        .map(|&c| {
            values
                .iter()
                .fold(1.0, |product, &x| product * (1.0 + c * (x - m) / (1.0 + m)))
        })
        .sum();
    total / bets.len() as f64
}

fn design(holdout: u64, binary: bool) -> Design {
    Design::new(
        Alpha::new(0.05).unwrap(),
        0.0,
        holdout,
        binary,
        ZeroMethod::Wilcox,
    )
}

/// A fixed sequence of score differences with ties, zeros and ±1, spread over [−1, 1]:
/// a multiplicative congruential stream, so it needs no generator of the crate.
fn scores(n: usize) -> Vec<f64> {
    let mut state: u64 = 12_345;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let cell = (state >> 40) % 23;
            // 0..=20 → −1.0..=1.0 in steps of 0.1, skewed up by the two extra cells.
            (cell.min(20) as f64 - 9.0).clamp(-10.0, 10.0) / 10.0
        })
        .collect()
}

#[test]
fn score_e_values_equal_the_naive_products_at_every_look() {
    let values = scores(120);
    let mut monitor = Monitor::new(design(1_000, false)).unwrap();
    let bets = bet_fractions(1_000);
    assert_eq!(monitor.bets(), bets.as_slice());
    for t in 0..values.len() {
        monitor.push(values[t], None);
        let look = &monitor.looks()[t];
        let prefix = &values[..=t];
        assert_relative(
            look.log_e_improvement.exp(),
            naive_capital(&bets, prefix, 0.0),
            EXACT_TOLERANCE,
            "improvement",
        );
        let negated: Vec<f64> = prefix.iter().map(|x| -x).collect();
        assert_relative(
            look.log_e_futility.exp(),
            naive_capital(&bets, &negated, 0.0),
            EXACT_TOLERANCE,
            "futility",
        );
        if monitor.status() != Standing::Continue {
            break;
        }
    }
}

#[test]
fn binary_e_values_and_the_margin_equal_the_naive_products() {
    let values: Vec<f64> = scores(200).iter().map(|x| x.signum()).collect();
    let mut with_margin = design(500, true);
    with_margin.margin = 0.1;
    let mut monitor = Monitor::new(with_margin).unwrap();
    let bets = bet_fractions(500);
    for t in 0..60 {
        if monitor.push(values[t], Some(if t % 3 == 0 { "a" } else { "b" })) != Standing::Continue {
            break;
        }
        let look = &monitor.looks()[t];
        let prefix = &values[..=t];
        let negated: Vec<f64> = prefix.iter().map(|x| -x).collect();
        assert_relative(
            look.log_e_improvement.exp(),
            naive_capital(&bets, prefix, 0.0),
            EXACT_TOLERANCE,
            "improvement",
        );
        assert_relative(
            look.log_e_futility.exp(),
            naive_capital(&bets, &negated, -0.1),
            EXACT_TOLERANCE,
            "futility at the margin",
        );
        let stratum_a: Vec<f64> = (0..=t).step_by(3).map(|i| -values[i]).collect();
        let strata = monitor.strata();
        assert_relative(
            strata["a"].log_e_regression.exp(),
            naive_capital(&bets, &stratum_a, 0.0),
            EXACT_TOLERANCE,
            "stratum a",
        );
    }
}

/// Enumerates every sequence of `d` fair coins: P(the naive capital reaches 1/alpha at
/// some step) and, for each k, P(never reached and wins ≥ k).
fn enumerate(bets: &[f64], alpha: f64, d: u32) -> (f64, Vec<f64>) {
    let mut crossed = 0.0;
    let mut tails = vec![0.0; d as usize + 2];
    let weight = 0.5_f64.powi(d as i32);
    for path in 0u32..(1 << d) {
        let coins: Vec<f64> = (0..d)
            .map(|i| if path >> i & 1 == 1 { 1.0 } else { -1.0 })
            .collect();
        let ever = (1..=coins.len()).any(|s| naive_capital(bets, &coins[..s], 0.0) >= 1.0 / alpha);
        if ever {
            crossed += weight;
        } else {
            let wins = path.count_ones() as usize;
            for tail in &mut tails[..=wins] {
                *tail += weight;
            }
        }
    }
    (crossed, tails)
}

#[test]
fn final_look_equals_enumeration_of_every_path() {
    for (holdout, alpha) in [(40_u64, 0.05), (16, 0.2), (200, 0.1)] {
        let bets = bet_fractions(holdout);
        for d in 1..=14 {
            let look = final_look(&bets, alpha, u64::from(d));
            let (crossed, tails) = enumerate(&bets, alpha, d);
            assert!(
                (look.crossed - crossed).abs() <= EXACT_TOLERANCE,
                "crossed at d {d}: {} vs {crossed}",
                look.crossed
            );
            let k = (0..tails.len())
                .find(|&k| crossed + tails[k] <= alpha)
                .unwrap();
            assert_eq!(look.critical, k as u64, "critical at d {d}, alpha {alpha}");
            assert!(
                (look.size - tails[k]).abs() <= EXACT_TOLERANCE,
                "size at d {d}"
            );
            assert!(look.crossed + look.size <= alpha + 1e-15);
        }
    }
}

#[test]
fn final_look_at_many_coins_keeps_the_level_and_nearly_spends_it() {
    let bets = bet_fractions(2_000);
    let look = final_look(&bets, 0.05, 600);
    assert!(look.crossed > 0.005 && look.crossed < 0.05, "{look:?}");
    assert!(look.crossed + look.size <= 0.05);
    // The lattice leaves at most one point's mass unspent: near 0.05 at 600 coins.
    assert!(look.crossed + look.size > 0.04, "{look:?}");
    let k = look.critical;
    // The fixed-n exact test at 0.05 on 600 coins needs 321 wins; the left-over
    // alpha asks for a few more, never fewer.
    assert!((321..=330).contains(&k), "k = {k}");
}

#[test]
fn a_clear_improvement_is_admitted_early_and_later_pairs_are_not_used() {
    // Eleven wins in a row: the mixture at holdout 100 has bets 1, 1/2, …, 1/16, and
    // (2^11 + 1.5^11 + …)/5 ≥ 20 well before the eleventh.
    let mut monitor = Monitor::new(design(100, true)).unwrap();
    let mut decided_at = None;
    for t in 1..=30u64 {
        let status = monitor.push(if t <= 11 { 1.0 } else { -1.0 }, None);
        if status == Standing::Admitted && decided_at.is_none() {
            decided_at = Some(t);
        }
    }
    let bets = bet_fractions(100);
    let first = (1..=11)
        .find(|&w| naive_capital(&bets, &vec![1.0; w], 0.0) >= 20.0)
        .unwrap() as u64;
    assert_eq!(decided_at, Some(first));
    assert_eq!(monitor.pairs(), first);
    assert_eq!(monitor.decision(), Some((&Reason::ImprovementShown, first)));
    let interval = monitor.interval().unwrap();
    assert!(interval.low > 0.0, "{interval:?}");
}

#[test]
fn steady_losses_are_refused_as_unable_to_be_better() {
    let mut monitor = Monitor::new(design(1_000, false)).unwrap();
    let mut t = 0;
    while monitor.status() == Standing::Continue {
        monitor.push(if t % 2 == 0 { -0.5 } else { 0.1 }, None);
        t += 1;
    }
    assert_eq!(monitor.status(), Standing::Refused);
    assert_eq!(monitor.decision().unwrap().0, &Reason::CannotBeBetter);
    assert!(monitor.interval().unwrap().high <= 0.0);
}

#[test]
fn a_regressing_stratum_refuses_although_the_whole_improves() {
    let mut guarded = Monitor::new(design(1_000, true)).unwrap();
    for t in 0..400 {
        let (difference, stratum) = if t % 2 == 0 {
            (-1.0, "worse")
        } else {
            (1.0, "better")
        };
        guarded.push(difference, Some(stratum));
    }
    assert_eq!(guarded.status(), Standing::Refused);
    assert_eq!(
        guarded.decision().unwrap().0,
        &Reason::StratumRegressed("worse".to_string())
    );
}

#[test]
fn a_prefix_decided_at_look_t_answers_alike_for_every_longer_prefix() {
    let values: Vec<f64> = scores(300).iter().map(|x| x + 0.0).collect();
    let mut full = Monitor::new(design(300, false)).unwrap();
    for &v in &values {
        full.push(v, None);
    }
    let (reason, look) = full.decision().map(|(r, l)| (r.clone(), l)).unwrap();
    for k in [look as usize - 1, look as usize, look as usize + 7, 300] {
        let mut prefix = Monitor::new(design(300, false)).unwrap();
        for &v in &values[..k] {
            prefix.push(v, None);
        }
        if k < look as usize {
            assert_eq!(prefix.status(), Standing::Continue);
        } else {
            assert_eq!(prefix.decision(), Some((&reason, look)));
        }
    }
}

#[test]
fn the_last_look_applies_the_exact_test_at_the_alpha_left_over() {
    // 60 pairs: 14 candidate wins, 6 losses, 40 ties, the wins spread out so that the
    // e-process never reaches 20: the last look decides.
    let mut values = vec![0.0; 60];
    for i in 0..14 {
        values[i * 4 + 2] = 1.0;
    }
    for i in 0..6 {
        values[i * 10 + 1] = -1.0;
    }
    let mut monitor = Monitor::new(design(60, true)).unwrap();
    for &v in &values {
        monitor.push(v, None);
    }
    let (reason, look) = monitor.decision().unwrap();
    assert_eq!(look, 60);
    let look_test = final_look(monitor.bets(), 0.05, 20);
    let shown = 14 >= look_test.critical;
    assert_eq!(reason, &Reason::FinalLook { shown });
    // The fixed-n exact test: P(Bin(20, ½) ≥ 14) = 0.0577 > 0.05, so not shown either.
    assert!(!shown);
    assert_eq!(monitor.status(), Standing::Refused);
}

#[test]
fn tasks_needed_is_absent_without_evidence_and_a_steady_run_crosses_within_it() {
    let mut monitor = Monitor::new(design(1_000, true)).unwrap();
    monitor.push(-1.0, None);
    assert_eq!(monitor.tasks_needed(), None);
    // Then a steady win, win, loss: each bettor's log-capital grows by the same amount
    // every three pairs, so the bettor behind the estimate passes J·20 by then, and the
    // mixture crosses 20 no later (up to the period).
    let pattern = |t: u64| if t % 3 == 2 { -1.0 } else { 1.0 };
    let mut t = 0;
    let estimate_at_30 = loop {
        monitor.push(pattern(t), None);
        t += 1;
        if t == 30 {
            break monitor.tasks_needed().unwrap();
        }
    };
    while monitor.status() == Standing::Continue {
        monitor.push(pattern(t), None);
        t += 1;
    }
    assert_eq!(monitor.status(), Standing::Admitted);
    assert!(
        t <= 30 + estimate_at_30 + 3,
        "crossed at {t}, estimate 30 + {estimate_at_30}"
    );
}

/// The e-values of the Python reimplementation after every pair
/// (`python3 benches/sequential_vector.py`, python/evogate/sequential.py).
const PYTHON_VECTOR: &str = include_str!("../../../tests/data/sequential_vector.tsv");

#[test]
fn e_values_equal_the_python_reimplementation_to_1e_12() {
    use crate::stats::sequential::{BetOn, Track};
    let mut tracks: Option<(String, Track, Track, Vec<f64>)> = None;
    let mut checked = 0;
    for line in PYTHON_VECTOR.lines().skip(2) {
        let fields: Vec<&str> = line.split('\t').collect();
        let kind = fields[0];
        let number = |i: usize| fields[i].parse::<f64>().unwrap();
        if tracks.as_ref().is_none_or(|t| t.0 != kind) {
            let (holdout, margin, binary) = match kind {
                "scores" => (200, 0.05, false),
                _ => (500, 0.0, true),
            };
            let bets = bet_fractions(holdout);
            tracks = Some((
                kind.to_string(),
                Track::new(BetOn::Candidate, 0.0, &bets, binary),
                Track::new(BetOn::Baseline, -margin, &bets, binary),
                bets,
            ));
        }
        let (_, improvement, futility, bets) = tracks.as_mut().unwrap();
        improvement.push(number(2), bets);
        futility.push(number(2), bets);
        for (actual, expected) in [
            (improvement.log_e_value(bets), number(3)),
            (futility.log_e_value(bets), number(4)),
        ] {
            assert_relative(actual.exp(), expected.exp(), EXACT_TOLERANCE, line);
        }
        checked += 1;
    }
    assert_eq!(checked, 300);
}

#[test]
fn an_admission_waits_while_a_stratum_looks_worse_and_comes_when_it_does_not() {
    let mut monitor = Monitor::new(design(40, true)).unwrap();
    monitor.push(-1.0, Some("b"));
    for _ in 0..13 {
        monitor.push(1.0, Some("a"));
    }
    // 13 wins and a loss: (0 + 1.5^13/2 + 1.25^13·0.75 + 1.125^13·0.875)/4 = 28.8 ≥ 20,
    // but `b` is one loss down: held.
    let bets = bet_fractions(40);
    let mut values = vec![-1.0];
    values.extend([1.0; 13]);
    assert!(naive_capital(&bets, &values, 0.0) >= 20.0);
    assert!(monitor.looks()[13].log_e_improvement >= 20f64.ln());
    assert_eq!(monitor.status(), Standing::Continue);
    // A win on `b` brings its mean to 0: admitted at that look.
    assert_eq!(monitor.push(1.0, Some("b")), Standing::Admitted);
    assert_eq!(monitor.decision(), Some((&Reason::ImprovementShown, 15)));
}

#[test]
fn the_last_look_refuses_a_stratum_whose_exact_regression_test_is_significant() {
    // 60 pairs: `a` wins 30 of 40, `b` loses 5 of 20 and wins none; the whole never
    // crosses early since `b` holds it back, and at the last look the improvement is
    // shown but `b`'s exact test gives P(Bin(5, ½) = 0) = 1/32 < 0.05, while its
    // e-value, (2^5 + 1.5^5 + 1.25^5 + 1.125^5)/4 = 11.1, stays below 20.
    let mut monitor = Monitor::new(design(60, true)).unwrap();
    for i in 0..60 {
        let (d, s) = if i % 3 == 2 {
            (if i < 15 { -1.0 } else { 0.0 }, "b")
        } else {
            (if i % 4 == 3 { 0.0 } else { 1.0 }, "a")
        };
        monitor.push(d, Some(s));
    }
    assert_eq!(monitor.status(), Standing::Refused);
    assert_eq!(
        monitor.decision(),
        Some((&Reason::StratumRegressedAtLastLook("b".to_string()), 60))
    );
}

#[test]
fn the_scores_last_look_tests_at_the_alpha_left_and_shows_nothing_when_none_is_left() {
    // 40 differences of +0.01: far too small for the e-process (its threshold is
    // 1/(0.05 · 0.25) = 80), while every signed rank is positive, p = 2^-40.
    let run = |share: f64| {
        let mut design = design(40, false);
        design.scores_share = share;
        let mut monitor = Monitor::new(design).unwrap();
        for _ in 0..40 {
            monitor.push(0.01, None);
        }
        monitor
    };
    let monitor = run(0.25);
    let Some(FinalTest::SignedRank {
        p_improvement,
        alpha,
        ..
    }) = monitor.final_test().cloned()
    else {
        panic!("the last look was reached: {:?}", monitor.decision());
    };
    assert_relative(p_improvement, 0.5_f64.powi(40), EXACT_TOLERANCE, "p");
    // 0.05 less the e-process's 0.05 · 0.25 = 0.0125: 0.0375.
    assert_relative(alpha.unwrap().get(), 0.0375, EXACT_TOLERANCE, "alpha left");
    assert_eq!(
        monitor.decision(),
        Some((&Reason::FinalLook { shown: true }, 40))
    );
    // With the whole of alpha given to the e-process nothing is left to test at.
    let monitor = run(1.0);
    let Some(FinalTest::SignedRank { alpha, .. }) = monitor.final_test() else {
        panic!("the last look was reached: {:?}", monitor.decision());
    };
    assert_eq!(*alpha, None);
    assert_eq!(
        monitor.decision(),
        Some((&Reason::FinalLook { shown: false }, 40))
    );
    assert_eq!(monitor.status(), Standing::Refused);
}

/// The last look's positive-mean rule decides on exact micro-unit sums, as `admit`'s
/// does: one difference of −1 and ten of 0.4 − 0.3 (0.10000000000000003 in floats) sum
/// to exactly 0 in micro-units, where float addition gives +2.2e-16. The signed-rank
/// test (ten tied wins of rank 5.5, one loss of rank 11: W− ≤ 11 in 1 + 1 + 10 + 45 of
/// the 2^11 sign patterns, p = 57/2048 = 0.0278) is below the alpha left (0.0375), so
/// the mean alone decides: a mean of exactly 0 is not positive, and the run is refused.
/// Summed in floats it would be admitted, where `admit` refuses such data.
#[test]
fn a_mean_of_exactly_zero_in_micro_units_is_not_positive_whatever_float_addition_gives() {
    let differences: Vec<f64> = std::iter::once(0.0 - 1.0)
        .chain(std::iter::repeat_n(0.4 - 0.3, 10))
        .collect();
    assert!(
        differences.iter().sum::<f64>() > 0.0,
        "the float sum is positive"
    );
    let mut monitor = Monitor::new(design(11, false)).unwrap();
    for &difference in &differences {
        monitor.push(difference, None);
    }
    let Some(FinalTest::SignedRank { p_improvement, .. }) = monitor.final_test().cloned() else {
        panic!("the last look was reached: {:?}", monitor.decision());
    };
    assert_relative(p_improvement, 57.0 / 2048.0, EXACT_TOLERANCE, "p");
    assert_eq!(monitor.mean_difference(), Some(0.0));
    assert_eq!(
        monitor.decision(),
        Some((&Reason::FinalLook { shown: false }, 11))
    );
    assert_eq!(monitor.status(), Standing::Refused);
}
