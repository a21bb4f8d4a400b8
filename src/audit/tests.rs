//! Each claim column and each verdict, with p-values checked against exact values
//! computed elsewhere, and the worst case checked against every feasible pairing.

use super::*;
use crate::stats::mcnemar::mcnemar_exact;
use crate::table::Table;

/// p-values from scipy agree with ours to this relative error.
const P_TOLERANCE: f64 = 1e-9;

/// Shifts found by bisection agree with scipy's root to this.
const SHIFT_TOLERANCE: f64 = 1e-8;

fn claims(text: &str) -> Result<Vec<Claim>, crate::error::InputError> {
    parse_claims(&Table::parse("claims.csv", text.as_bytes()).unwrap())
}

/// The one claim of a claims file with the columns `header` and the row `row`.
fn judged(header: &str, row: &str) -> Judgement {
    let claim = &claims(&format!("claim_id,{header}\nx,{row}\n")).unwrap()[0];
    judge(claim, five_percent()).unwrap()
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() <= P_TOLERANCE * expected.abs().max(1e-300)
}

#[test]
fn the_worst_case_is_the_largest_p_over_every_feasible_pairing() {
    // Brute-force oracle: every b with 0 ≤ b, c = b + C − B ≥ 0, b ≤ B, c ≤ n − B.
    for n in 1..=30u64 {
        for base in 0..=n {
            for cand in base + 1..=n {
                let feasible = base.saturating_sub(cand)..=base.min(n - cand);
                let largest = feasible
                    .map(|b| mcnemar_exact(b, b + cand - base).tails.p_improvement)
                    .fold(0.0_f64, f64::max);
                let (b, c, p) = worst_case(n, base, cand).unwrap();
                assert_eq!((b, c - b), (base.min(n - cand), cand - base));
                assert_eq!(p, largest, "n {n}, {base} -> {cand}");
            }
        }
    }
    assert_eq!(worst_case(10, 5, 5), None);
}

#[test]
fn single_run_binary_rates_significant_in_the_worst_case_are_supported() {
    // dspy MATH tutorial, 259 -> 310 of 350: worst b = min(259, 40) = 40, c = 91.
    // scipy 1.17.1: binomtest(91, 131, 0.5, alternative="greater").pvalue
    let dspy = judged("n,baseline,candidate", "350,0.74,0.886");
    assert_eq!(dspy.verdict, ClaimVerdict::Supported);
    assert_eq!((dspy.worst_case_b, dspy.worst_case_c), (Some(40), Some(91)));
    assert!(close(dspy.p_worst_case.unwrap(), 4.89786457540767e-06));
    assert_eq!(dspy.p_best_case, 0.5f64.powi(51));
    assert!(
        dspy.reason.contains("even the worst pairing"),
        "{}",
        dspy.reason
    );
    // 127 -> 187 of 300: worst b = 113, c = 173.
    // scipy 1.17.1: binomtest(173, 286, 0.5, alternative="greater").pvalue
    let three = judged("n,baseline,candidate", "300,0.4233,0.6233");
    assert_eq!(three.verdict, ClaimVerdict::Supported);
    assert!(close(three.p_worst_case.unwrap(), 0.00023238791831941308));
}

#[test]
fn rates_significant_only_in_the_best_case_are_unverifiable() {
    // 240 -> 260 of 400: best 2^-20; worst b = 140, c = 160.
    // scipy 1.17.1: binomtest(160, 300, 0.5, alternative="greater").pvalue
    let rates = judged("n,baseline,candidate", "400,0.60,0.65");
    assert_eq!(rates.verdict, ClaimVerdict::Unverifiable);
    assert_eq!(rates.p_best_case, 0.5f64.powi(20));
    assert!(close(rates.p_worst_case.unwrap(), 0.13631495635040833));
    assert_eq!(rates.p_improvement, None);
}

#[test]
fn a_mean_score_can_improve_on_every_item_so_its_best_case_is_half_to_the_n() {
    // hermes PR 158: 0.5628 x 5 = 2.814 is no count, so mean; five wins: 2^-5 < 0.05.
    let mean = judged("n,baseline,candidate", "5,0.5628,0.6177");
    assert_eq!(
        (mean.metric, mean.metric_inferred, mean.verdict),
        (Metric::Mean, true, ClaimVerdict::Unverifiable)
    );
    assert_eq!(mean.p_best_case, 1.0 / 32.0);
    assert_eq!(mean.p_worst_case, None);
    assert!(
        mean.reason.contains("Metric inferred mean"),
        "{}",
        mean.reason
    );
    // The same numbers said to be binary are refused: they are no count of 5.
    let error = claims("claim_id,n,baseline,candidate,metric\nx,5,0.5628,0.6177,binary\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a whole count"), "{error}");
}

#[test]
fn a_rate_that_is_no_count_of_n_is_read_as_a_mean() {
    // 76.7% of 100 is 76.7 tasks: neither 76 nor 77 rounds to 0.767.
    let odd = judged("n,baseline,candidate", "100,0.70,0.767");
    assert_eq!((odd.metric, odd.metric_inferred), (Metric::Mean, true));
    assert_eq!(odd.p_worst_case, None);
    // 0.886 of 350 is 310 within its rounding (310/350 = 0.88571).
    let rounded = judged("n,baseline,candidate", "350,0.74,0.886");
    assert_eq!(
        (rounded.metric, rounded.metric_inferred),
        (Metric::Binary, true)
    );
    assert!(
        rounded.reason.contains("259 and 310 of 350"),
        "{}",
        rounded.reason
    );
    // Given explicitly, the metric is not inferred.
    let given = judged("n,baseline,candidate,metric", "100,0.70,0.77,mean");
    assert_eq!((given.metric, given.metric_inferred), (Metric::Mean, false));
    assert_eq!(given.p_best_case, 0.5f64.powi(100));
}

#[test]
fn no_result_on_too_few_units_makes_the_claim_unsupportable() {
    // Six tasks, one more right: best case 1/2.
    let six = judged("n,baseline,candidate", "6,0.5,0.6667");
    assert_eq!(six.verdict, ClaimVerdict::Unsupportable);
    assert_eq!(six.p_best_case, 0.5);
    let worse = judged("n,baseline,candidate", "6,0.5,0.3333");
    assert_eq!(worse.verdict, ClaimVerdict::Unsupportable);
    assert!(worse.reason.contains("not above"), "{}", worse.reason);
    // A two-example claim with score files: even two wins give 1/4.
    let claim = &claims("claim_id,baseline_scores,candidate_scores\nx,a.csv,b.csv\n").unwrap()[0];
    let rerun = Rerun {
        admitted: false,
        p_improvement: 0.5,
        log10_p_improvement: -std::f64::consts::LOG10_2,
        n: 2,
        clusters: None,
        discordant: None,
        metric: Metric::Mean,
        first_reason: String::new(),
    };
    let two = judge_admission(claim, five_percent(), &rerun, "claims.csv").unwrap();
    assert_eq!(two.verdict, ClaimVerdict::Unsupportable);
    assert_eq!(two.p_best_case, 0.25);
    // Discordant b 0, c 1: only one pair enters McNemar's test.
    let one = judged("b,c", "0,1");
    assert_eq!(
        (one.verdict, one.effective_n),
        (ClaimVerdict::Unsupportable, 1)
    );
}

#[test]
fn discordant_counts_get_the_exact_one_sided_test() {
    // scipy 1.17.1: binomtest(14, 16, 0.5, alternative="greater").pvalue = 137/65536.
    let supported = judged("b,c", "2,14");
    assert_eq!(supported.verdict, ClaimVerdict::Supported);
    assert!(close(supported.p_improvement.unwrap(), 0.0020904541015625));
    assert_eq!((supported.b, supported.c), (Some(2), Some(14)));
    // esg dev, 7 degradations and 9 improvements.
    // scipy 1.17.1: binomtest(9, 16, 0.5, alternative="greater").pvalue
    let not = judged("b,c", "7,9");
    assert_eq!(not.verdict, ClaimVerdict::NotSupported);
    assert!(close(not.p_improvement.unwrap(), 0.4018096923828125));
}

#[test]
fn repeats_test_on_items_not_on_copies() {
    // 60 -> 120 of 150 single-run: the worst case b 30, c 90 is significant.
    let copies = judged("n,baseline,candidate", "150,0.40,0.80");
    assert_eq!(copies.verdict, ClaimVerdict::Supported);
    // As 30 problems copied five times there is no single-run pairing to bound.
    let items = judged("n,baseline,candidate,repeats", "150,0.40,0.80,5");
    assert_eq!(
        (items.verdict, items.effective_n, items.p_worst_case),
        (ClaimVerdict::Unverifiable, 30, None)
    );
    assert_eq!(items.p_best_case, 0.5f64.powi(30));
    assert!(items.reason.contains("scored 5 times"), "{}", items.reason);
    // Ten copies of two items: even both improved give 1/4.
    let two = judged("n,baseline,candidate,repeats,metric", "10,0.4,0.6,5,mean");
    assert_eq!(
        (two.verdict, two.p_best_case),
        (ClaimVerdict::Unsupportable, 0.25)
    );
    let error = claims("claim_id,n,baseline,candidate,repeats\nx,10,0.4,0.6,3\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a multiple of `repeats` 3"), "{error}");
}

#[test]
fn clusters_test_on_clusters() {
    // 100 tasks in 4 clusters: 2^-4 = 0.0625, not below 0.05.
    let four = judged("n,baseline,candidate,clusters,metric", "100,0.5,0.6,4,mean");
    assert_eq!(
        (four.verdict, four.effective_n, four.p_best_case),
        (ClaimVerdict::Unsupportable, 4, 0.0625)
    );
    let five = judged("n,baseline,candidate,clusters,metric", "100,0.5,0.6,5,mean");
    assert_eq!(five.verdict, ClaimVerdict::Unverifiable);
    // Discordant counts in clusters cannot be tested cluster by cluster.
    let counts = judged("n,b,c,clusters", "40,2,14,8");
    assert_eq!(counts.verdict, ClaimVerdict::Unverifiable);
    assert_eq!(counts.p_improvement, None);
    let error = claims("claim_id,n,baseline,candidate,clusters\nx,10,0.4,0.6,11\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("more than the 10 items"), "{error}");
}

#[test]
fn attempts_divide_alpha_bonferroni() {
    // p = 137/65536 = 0.00209: below 0.05/20 = 0.0025, above 0.05/30 = 0.00167.
    let twenty = judged("b,c,attempts", "2,14,20");
    assert_eq!(twenty.verdict, ClaimVerdict::Supported);
    assert!(close(twenty.alpha, 0.0025));
    assert!(twenty.reason.contains("Bonferroni"), "{}", twenty.reason);
    let thirty = judged("b,c,attempts", "2,14,30");
    assert_eq!(thirty.verdict, ClaimVerdict::NotSupported);
    assert!(close(thirty.alpha, 0.05 / 30.0));
    let error = claims("claim_id,b,c,attempts\nx,2,14,0\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("`attempts` is `0`"), "{error}");
}

#[test]
fn selection_on_the_scored_set_caps_the_verdict_at_unverifiable() {
    let selected = judged(
        "n,baseline,candidate,selected_on_scored_set",
        "350,0.74,0.886,yes",
    );
    assert_eq!(selected.verdict, ClaimVerdict::Unverifiable);
    assert!(
        selected.reason.contains("selected on the set"),
        "{}",
        selected.reason
    );
    // A claim that fails anyway keeps its verdict.
    let failing = judged("b,c,selected_on_scored_set", "7,9,yes");
    assert_eq!(failing.verdict, ClaimVerdict::NotSupported);
    let error = claims("claim_id,b,c,selected_on_scored_set\nx,2,14,maybe\n")
        .unwrap_err()
        .to_string();
    assert!(error.contains("give `yes` or `no`"), "{error}");
}

#[test]
fn every_claim_states_what_its_effective_n_could_detect() {
    // Best case: 5 wins of 350 (0.5^5 < 0.05). 80% power: the root of
    // scipy 1.17.1 binom.sf(4, 350, d) = 0.8 by brentq(xtol=1e-14): 0.019128184920698604.
    let dspy = judged("n,baseline,candidate", "350,0.74,0.886");
    assert_eq!(dspy.min_detectable_shift_best_case, Some(5.0 / 350.0));
    let shift = dspy.min_detectable_shift_80_power.unwrap();
    assert!(
        (shift - 0.019128184920698604).abs() < SHIFT_TOLERANCE,
        "{shift}"
    );
    // At alpha 0.05/3 six wins are needed: binom.sf(5, 93, d) = 0.8 at 0.08368233990988724.
    let three = judged("n,b,c,attempts", "93,4,11,3");
    let shift = three.min_detectable_shift_80_power.unwrap();
    assert!(
        (shift - 0.08368233990988724).abs() < SHIFT_TOLERANCE,
        "{shift}"
    );
    assert_eq!(three.min_detectable_shift_best_case, Some(6.0 / 93.0));
    // Four units can detect nothing at 0.05.
    let four = judged("b,c", "0,4");
    assert_eq!(four.min_detectable_shift_best_case, None);
    assert_eq!(four.min_detectable_shift_80_power, None);
}

#[test]
fn discordant_counts_are_capped_where_the_exact_test_stays_fast() {
    let half = MAX_DISCORDANT / 2;
    let text = |b: u64, c: u64| format!("claim_id,b,c\nx,{b},{c}\n");
    assert_eq!(
        claims(&text(half, half)).unwrap()[0].evidence,
        Evidence::Discordant { b: half, c: half }
    );
    let error = claims(&text(half, half + 1)).unwrap_err().to_string();
    assert!(
        error.starts_with("`claims.csv` row 2: `b` + `c` is 1099511627777"),
        "{error}"
    );
    assert!(claims(&text(u64::MAX, u64::MAX)).is_err());
}

#[test]
fn parsing_names_the_row_and_what_to_fill_in() {
    let cases = [
        (
            "claim_id,description,b,c\nx,d,2,14\ny,d,-1,3\n",
            "`claims.csv` row 3: `b` is `-1`",
        ),
        ("claim_id,b,c\nx,1.5,3\n", "non-negative whole number"),
        ("claim_id,description\nx,nothing\n", "no evidence"),
        ("claim_id,baseline,candidate\nx,0.5,0.6\n", "`n` is empty"),
        (
            "claim_id,n,b,c\nx,10,6,6\n",
            "`b` + `c` is 12 but `n` is 10",
        ),
        (
            "claim_id,b,c,metric\nx,2,14,counts\n",
            "`metric` is `counts`",
        ),
        ("claim_id,b,c,repeats\nx,2,14,3\n", "`repeats` needs `n`"),
    ];
    for (text, needle) in cases {
        let error = claims(text).unwrap_err().to_string();
        assert!(error.contains(needle), "{text}: {error}");
    }
}

/// The verdict agrees with the p-values it reports, whatever the columns say (the same
/// invariants as `fuzz/fuzz_targets/claims.rs`).
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn check(judgement: &Judgement, selected: bool) {
        let probability = |p: f64| p.is_finite() && (0.0..=1.0).contains(&p);
        let best = judgement.p_best_case;
        assert!(probability(best), "{judgement:?}");
        assert!(judgement.p_improvement.is_none_or(probability));
        assert!(
            judgement
                .p_worst_case
                // McNemar's tail and 0.5^k round differently in the last bits.
                .is_none_or(|w| probability(w) && w >= best * (1.0 - 1e-12)),
            "{judgement:?}"
        );
        let (alpha, data) = (judgement.alpha, judgement.p_improvement);
        match judgement.verdict {
            ClaimVerdict::Supported => {
                assert!(!selected && best < alpha, "{judgement:?}");
                let worst_holds = judgement.p_worst_case.is_some_and(|w| w < alpha);
                assert!(data.map_or(worst_holds, |p| p < alpha), "{judgement:?}");
            }
            ClaimVerdict::NotSupported => assert!(data.is_some_and(|p| p >= alpha)),
            ClaimVerdict::Unverifiable => assert!(best < alpha, "{judgement:?}"),
            ClaimVerdict::Unsupportable => {}
        }
        assert!(!judgement.reason.contains('\n'));
    }

    proptest! {
        #[test]
        fn verdicts_agree_with_the_p_values_they_report(
            n in 1u64..400,
            base in 0u64..400,
            cand in 0u64..400,
            decimals in 1usize..5,
            mean in any::<bool>(),
            repeats in 1u64..4,
            clusters in proptest::option::of(1u64..50),
            attempts in 1u64..40,
            selected in any::<bool>(),
        ) {
            let n = n * repeats;
            let rate = |k: u64| format!("{:.*}", decimals, (k % (n + 1)) as f64 / n as f64);
            let metric = if mean { "mean" } else { "" };
            let clusters = clusters.filter(|&g| g <= n / repeats).map_or(String::new(), |g| g.to_string());
            let yes = if selected { "yes" } else { "no" };
            let (b, c) = (base % (n + 1), cand % (n + 1));
            let (b, c) = (b.min(n - c), c);
            let rates = format!(
                "claim_id,n,baseline,candidate,metric,repeats,clusters,attempts,selected_on_scored_set\n\
                 r,{n},{},{},{metric},{repeats},{clusters},{attempts},{yes}\n",
                rate(base),
                rate(cand)
            );
            let counts = format!(
                "claim_id,n,b,c,repeats,clusters,attempts,selected_on_scored_set\nd,{n},{b},{c},{repeats},{clusters},{attempts},{yes}\n"
            );
            for text in [rates, counts] {
                // Every row is valid: metric is mean or inferred, never a binary that
                // the rates contradict.
                let parsed = claims(&text).unwrap();
                check(&judge(&parsed[0], five_percent()).unwrap(), selected);
            }
        }
    }
}

fn five_percent() -> crate::alpha::Alpha {
    crate::alpha::Alpha::new(0.05).unwrap()
}
