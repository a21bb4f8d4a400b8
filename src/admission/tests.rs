//! The decision on small cases whose p-values are known exactly by counting: under the
//! null each of m discordant pairs (or non-zero differences) falls either way with
//! probability ½, so P(all m one way) = 2^-m and tails are sums of C(m, k) / 2^m.

use super::*;
use crate::alpha::Alpha;
use crate::stats::signed_rank::ZeroMethod;

/// Tolerance for p-values compared with exact fractions.
const EXACT: f64 = 1e-12;

/// `(kind, baseline correct, candidate correct)` rows as two scores files with
/// `correct` (score = correct) or without it (scores only).
pub(super) fn files(rows: &[(&str, u8, u8)], with_correct: bool) -> (String, String) {
    let header = if with_correct {
        "task_id,kind,correct,score\n"
    } else {
        "task_id,kind,score\n"
    };
    let mut base = header.to_string();
    let mut cand = header.to_string();
    for (index, (kind, b, c)) in rows.iter().enumerate() {
        let id = format!("t{index:03}:{kind}");
        if with_correct {
            base.push_str(&format!("{id},{kind},{b},{b}\n"));
            cand.push_str(&format!("{id},{kind},{c},{c}\n"));
        } else {
            base.push_str(&format!("{id},{kind},{b}\n"));
            cand.push_str(&format!("{id},{kind},{c}\n"));
        }
    }
    (base, cand)
}

/// `b.csv` and `c.csv` read and paired as `admit` does (on `list` when given), keeping
/// all feedback.
pub(super) fn pair_texts(
    base: &str,
    cand: &str,
    list: Option<&TaskList>,
    strata: Option<&StrataRequest>,
) -> Result<Pairs, String> {
    let column = strata.map(|s| s.column.as_str());
    let b = Baseline::read("b.csv", base.as_bytes(), column, true).map_err(|e| e.to_string())?;
    let joined = b
        .join("c.csv", cand.as_bytes(), Keep::All)
        .map_err(|e| e.to_string())?;
    joined.pair(list, strata).map_err(|e| e.to_string())
}

pub(super) fn pairs_of(base: &str, cand: &str) -> Pairs {
    let strata = StrataRequest {
        column: "kind".into(),
        required: false,
    };
    pair_texts(base, cand, None, Some(&strata)).unwrap()
}

pub(super) fn run(base: &str, cand: &str, margin: Option<f64>) -> Admission {
    let pairs = pairs_of(base, cand);
    let test = TestChoice::Auto
        .resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv")
        .unwrap();
    let config = Config {
        alpha: Alpha::new(0.05).unwrap(),
        test,
        margin: margin.map(|m| Margin::new(m).unwrap()),
        holdout: None,
        cluster: false,
        answers: Default::default(),
    };
    decide(&pairs, &config)
}

pub(super) fn repeat(
    kind: &'static str,
    b: u8,
    c: u8,
    times: usize,
) -> Vec<(&'static str, u8, u8)> {
    vec![(kind, b, c); times]
}

pub(super) fn result(admission: &Admission, criterion: Criterion) -> Check {
    admission
        .evidence
        .iter()
        .find(|e| e.criterion == criterion)
        .map(|e| e.result)
        .expect("the criterion is in the evidence")
}

#[test]
fn one_win_and_five_ties_is_inconclusive_with_the_tasks_that_would_settle_it() {
    let mut rows = repeat("id", 0, 1, 1);
    rows.extend(repeat("id", 0, 0, 5));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, None);
    assert_eq!(a.verdict, Verdict::Inconclusive);
    // P(X >= 1 | X ~ Binomial(1, 1/2)) = 1/2.
    assert!((a.tails.p_improvement - 0.5).abs() < EXACT);
    assert_eq!(a.test.name, TestName::McNemar);
    assert_eq!(result(&a, Criterion::ImprovementSignificant), Check::Fail);
    // Every disagreement favours the candidate (psi = delta = 1/6), so exact power at n
    // is P(D >= 5), D ~ Binomial(n, 1/6); scipy 1.17.1 binom.sf(4, n, 1/6) is 0.000664
    // at n = 6, 0.78219 at 38 and 0.80148 at 39.
    assert_eq!(a.tasks_needed, Some(39));
    assert!(
        a.reasons[0].starts_with("Inconclusive: the candidate leans better (a shift of 0.1667 in the share correct) but the 6 pairs had 0.1% power to detect it; about 39 tasks would give 80% power"),
        "{}",
        a.reasons[0]
    );
    assert!(a.reasons[1].contains("p_improvement 0.5 is not below alpha 0.05"));
}

#[test]
fn the_same_pairs_with_a_regressed_stratum_are_refused_not_inconclusive() {
    // b 6, c 12 overall: P(X >= 12 | 18) = 31180 / 2^18 = 0.119, and exact power at the
    // observed shift 1/3 is P(Binomial(18, 2/3) >= 13) = 0.412 (scipy 1.17.1).
    let mut rows = repeat("id", 0, 1, 12);
    rows.extend(repeat("year", 1, 0, 6));
    let (b, c) = files(&rows, true);
    let stratified = run(&b, &c, None);
    assert!((stratified.tails.p_improvement - 31_180.0 / 262_144.0).abs() < EXACT);
    assert_eq!(stratified.verdict, Verdict::Refused);
    assert_eq!(stratified.tasks_needed, None);
    assert_eq!(
        result(&stratified, Criterion::NoStratumRegressed),
        Check::Fail
    );
    // The same outcomes as one kind: nothing regressed, so more tasks could settle it.
    let one_kind: Vec<_> = rows.iter().map(|&(_, b, c)| ("id", b, c)).collect();
    let (b, c) = files(&one_kind, true);
    let pooled = run(&b, &c, None);
    assert_eq!(pooled.verdict, Verdict::Inconclusive);
    assert!(pooled.tasks_needed.is_some_and(|n| n > 18));
}

#[test]
fn a_candidate_that_leans_worse_or_below_the_margin_is_refused_not_inconclusive() {
    let mut rows = repeat("id", 1, 0, 1);
    rows.extend(repeat("id", 0, 0, 5));
    let (b, c) = files(&rows, true);
    let worse = run(&b, &c, None);
    assert_eq!(worse.verdict, Verdict::Refused);
    assert_eq!(worse.tasks_needed, None);
    let (b, c) = files(&repeat("id", 1, 1, 6), true);
    assert_eq!(run(&b, &c, None).verdict, Verdict::Refused);
    // One loss in six is a difference of -1/6, below the margin -0.05: no number of
    // tasks would show non-inferiority there.
    let mut rows = repeat("id", 1, 0, 1);
    rows.extend(repeat("id", 0, 0, 5));
    let (b, c) = files(&rows, true);
    let margin = run(&b, &c, Some(0.05));
    assert_eq!(result(&margin, Criterion::MarginHolds), Check::Fail);
    assert_eq!(margin.verdict, Verdict::Refused);
    assert_eq!(margin.tasks_needed, None);
}

#[test]
fn an_underpowered_signed_rank_lean_is_inconclusive_with_the_normal_tasks_needed() {
    // Differences 0.2, 0.1, 0.15, -0.05, 0.3, -0.12, 0, 0.07 (no ties): scipy 1.17.1
    // wilcoxon(d, alternative="greater", method="exact") p = 0.078125, mean 0.08125, sd
    // 0.137054; ((norm.ppf(0.95) + norm.ppf(0.8)) * sd / mean)^2 = 17.59, so 18 tasks.
    let mut base = "task_id,score\n".to_string();
    let mut cand = base.clone();
    for (i, d) in [0.2, 0.1, 0.15, -0.05, 0.3, -0.12, 0.0, 0.07]
        .iter()
        .enumerate()
    {
        base.push_str(&format!("t{i},0.5\n"));
        cand.push_str(&format!("t{i},{}\n", 0.5 + d));
    }
    let a = run(&base, &cand, None);
    assert_eq!(a.test.name, TestName::SignedRank);
    assert!((a.tails.p_improvement - 0.078125).abs() < EXACT);
    assert_eq!(a.verdict, Verdict::Inconclusive);
    assert_eq!(a.tasks_needed, Some(18));
    assert!(
        a.reasons[0].contains("but the 8 pairs had less than 80% power to detect it; about 18 tasks would give 80% power for a shift this size (normal approximation)"),
        "{}",
        a.reasons[0]
    );
}

#[test]
fn ten_pairs_each_up_a_hundredth_claim_no_floor_of_fifty_percent() {
    // Ten differences of +0.01: W+ is its maximum, p = 2^-10, admitted; the old power
    // sentence said no shift smaller than 50% could have been detected.
    let mut base = "task_id,score\n".to_string();
    let mut cand = base.clone();
    for i in 0..10 {
        base.push_str(&format!("t{i},0.5\n"));
        cand.push_str(&format!("t{i},0.51\n"));
    }
    let a = run(&base, &cand, None);
    assert_eq!(a.verdict, Verdict::Admitted);
    assert!((a.tails.p_improvement - 1.0 / 1024.0).abs() < EXACT);
    assert!(!a.power.contains("no shift smaller than"), "{}", a.power);
    assert!(!a.power.contains("50.0%"), "{}", a.power);
    assert!(
        a.power
            .contains("as few as 5 non-zero differences all one way"),
        "{}",
        a.power
    );
    assert_eq!(a.min_detectable_shift, None);
    // The differences do not vary: no 80% figure is claimed from a spread of rounding.
    assert_eq!(a.min_detectable_shift_80_power, None);
    assert!(a.power.contains("do not vary"), "{}", a.power);
}

#[test]
fn each_stratum_states_the_regression_its_check_would_catch_and_an_unflagged_lean_is_named() {
    let mut rows = Vec::new();
    rows.extend(repeat("id", 0, 1, 20));
    rows.extend(repeat("year", 1, 0, 2));
    rows.extend(repeat("year", 1, 1, 3));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, None);
    assert_eq!(a.verdict, Verdict::Admitted);
    let year = a.strata.iter().find(|s| s.value == "year").unwrap();
    // scipy 1.17.1 brentq on the exact power at discordance max(0.4, d), n 5 (the same
    // call as AT_OBSERVED in stats/tests/power.rs): 0.956352499790037.
    let catch = year.regression_detectable_80_power.unwrap();
    assert!((catch - 0.956_352_499_790_037).abs() < 1e-8, "{catch}");
    let id = a.strata.iter().find(|s| s.value == "id").unwrap();
    assert!(id.regression_detectable_80_power.is_some());
    let last = a.reasons.last().unwrap();
    assert!(
        last.starts_with("kind=year leans worse (difference -0.4) without a significant regression, and its check would catch only a regression of 0.9564 or more with 80% power (5 pairs)"),
        "{last}"
    );
    assert!(last.contains("--margin"), "{last}");
    assert!(
        a.power.contains("0.9564 on kind=year (5 pairs)"),
        "{}",
        a.power
    );
    // With a margin the margin criterion speaks for it.
    let with_margin = run(&b, &c, Some(0.99));
    assert!(
        with_margin
            .reasons
            .iter()
            .all(|r| !r.contains("leans worse"))
    );
}

#[test]
fn admits_five_aligned_wins() {
    let (b, c) = files(&repeat("id", 0, 1, 5), true);
    let a = run(&b, &c, None);
    assert_eq!(a.verdict, Verdict::Admitted);
    // 2^-5.
    assert!((a.tails.p_improvement - 0.03125).abs() < EXACT);
    assert_eq!(
        a.discordant,
        Some(Discordant {
            baseline_only: 0,
            candidate_only: 5
        })
    );
    assert_eq!(
        a.evidence[1].proof,
        "p_improvement 0.03125 < alpha 0.05 (McNemar exact, b 0, c 5)"
    );
    assert!(a.evidence.iter().all(|e| e.result == Check::Pass));
}

#[test]
fn refuses_six_identical_pairs_and_reports_what_six_could_detect() {
    let (b, c) = files(&repeat("id", 1, 1, 6), true);
    let a = run(&b, &c, None);
    assert_eq!(a.verdict, Verdict::Refused);
    assert_eq!(a.tails.p_improvement, 1.0);
    // 0.5^5 < 0.05 <= 0.5^4, so five discordant pairs of six: 5/6.
    let shift = a.min_detectable_shift.unwrap();
    assert!((shift - 5.0 / 6.0).abs() < EXACT);
    assert!(
        a.power
            .contains("With 6 pairs, no shift smaller than 0.8333 ")
    );
}

#[test]
fn refuses_a_candidate_better_overall_that_regresses_on_one_kind() {
    let mut rows = Vec::new();
    for kind in ["id", "title", "first_author"] {
        rows.extend(repeat(kind, 0, 1, 10));
    }
    rows.extend(repeat("year", 1, 0, 6));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, None);
    // Overall b 6, c 30: P(X >= 30 | n 36) = 298937 / 2^33 (exact sum of C(36, k)).
    assert!((a.tails.p_improvement - 298_937.0 / 8_589_934_592.0).abs() < EXACT);
    assert_eq!(result(&a, Criterion::ImprovementSignificant), Check::Pass);
    assert_eq!(a.verdict, Verdict::Refused);
    let year = a.strata.iter().find(|s| s.value == "year").unwrap();
    // Six losses of six: 2^-6.
    assert!((year.tails.p_regression - 0.015625).abs() < EXACT);
    assert!(year.significant_regression);
    assert_eq!(
        a.strata.iter().filter(|s| s.significant_regression).count(),
        1
    );
    assert_eq!(a.reasons.len(), 1);
    assert!(a.reasons[0].contains("regressed significantly on kind=year"));
    assert!(a.reasons[0].contains("p_regression 0.01562 < alpha 0.05"));
}

#[test]
fn a_stratum_is_tested_at_alpha_with_no_multiplicity_correction() {
    // Five losses on one of four kinds: p 2^-5 = 0.03125 would survive Bonferroni
    // (0.05 / 4 = 0.0125) but not an intersection-union test at alpha.
    let mut rows = Vec::new();
    for kind in ["a", "b", "c"] {
        rows.extend(repeat(kind, 0, 1, 12));
    }
    rows.extend(repeat("d", 1, 0, 5));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, None);
    assert_eq!(a.verdict, Verdict::Refused);
    let d = a.strata.iter().find(|s| s.value == "d").unwrap();
    assert!((d.tails.p_regression - 0.03125).abs() < EXACT);
    assert_eq!(a.strata.len(), 4);
    assert_eq!(
        a.strata
            .iter()
            .map(|s| s.value.as_str())
            .collect::<Vec<_>>(),
        ["a", "b", "c", "d"]
    );
}

#[test]
fn the_same_sweep_as_scores_only_is_admitted_through_signed_rank() {
    let (b, c) = files(&repeat("id", 0, 1, 5), false);
    let a = run(&b, &c, None);
    assert_eq!(a.test.name, TestName::SignedRank);
    assert_eq!(a.test.method, TestMethod::Exact);
    assert_eq!(a.verdict, Verdict::Admitted);
    // Five positive differences: W+ is its maximum, P = 2^-5.
    assert!((a.tails.p_improvement - 0.03125).abs() < EXACT);
    assert_eq!(a.discordant, None);
    assert_eq!(a.delta.estimate, 1.0);
}

#[test]
fn refuses_when_the_signed_ranks_and_the_mean_disagree_in_direction() {
    // Nine differences of +0.1 (midrank 5) and one of -0.95 (rank 10): W+ = 45 of 55.
    // P(W+ >= 45) counts sign patterns 5k + 10s >= 45: k = 9 with s = 0 (1), or
    // s = 1 with k >= 7 (C(9,7) + C(9,8) + C(9,9) = 46): 47 / 1024. The mean is -0.005.
    let mut base = "task_id,score\n".to_string();
    let mut cand = base.clone();
    for i in 0..9 {
        base.push_str(&format!("t{i},0.5\n"));
        cand.push_str(&format!("t{i},0.6\n"));
    }
    base.push_str("t9,1\n");
    cand.push_str("t9,0.05\n");
    let a = run(&base, &cand, None);
    assert!((a.tails.p_improvement - 47.0 / 1024.0).abs() < 1e-9);
    assert!(a.delta.estimate < 0.0);
    assert_eq!(a.verdict, Verdict::Refused);
    assert!(a.reasons[0].starts_with("The ranks and the mean disagree"));
    assert!(a.strata.is_empty() && a.strata_column.is_none());
}

#[test]
fn a_signed_rank_interval_is_the_betting_interval_at_every_size_and_says_so() {
    // 2,501 year tasks (one win in five) and ten id tasks (all ties): one interval
    // method for the large sets and the small one, each around its estimate.
    let mut rows = Vec::new();
    for index in 0..2_501 {
        rows.push(("year", 0, u8::from(index % 5 == 0)));
    }
    rows.extend(repeat("id", 1, 1, 10));
    let (base, cand) = files(&rows, false);
    let admission = run(&base, &cand, None);
    let deltas = std::iter::once(&admission.delta).chain(admission.strata.iter().map(|s| &s.delta));
    for delta in deltas {
        assert!(
            delta.interval.starts_with("betting interval"),
            "{}",
            delta.interval
        );
        let (low, high) = (
            delta.low.expect("an interval"),
            delta.high.expect("an interval"),
        );
        assert!(low < delta.estimate && delta.estimate < high, "{delta:?}");
    }
}

#[test]
fn a_stratum_of_unchanged_pairs_fails_the_margin_under_signed_rank_as_under_mcnemar() {
    // Twelve unchanged pairs say little about a regression of 0.05: the percentile
    // bootstrap gave [0, 0] there and let the margin pass. The melded McNemar test gives
    // p_noninferiority 0.95^12 = 0.54; on scores the signed-rank test on the shifted
    // differences (twelve of +0.05) would pass alone (2^-12), but the betting test of
    // the mean does not, and both must.
    let mut rows = repeat("id", 0, 1, 20);
    rows.extend(repeat("year", 1, 1, 12));
    for with_correct in [false, true] {
        let (b, c) = files(&rows, with_correct);
        let refused = run(&b, &c, Some(0.05));
        let year = refused.strata.iter().find(|s| s.value == "year").unwrap();
        let p = year.p_noninferiority.expect("a margin test");
        assert!(p > 0.05, "{p}");
        if with_correct {
            assert!((p - 0.95_f64.powi(12)).abs() < EXACT, "{p}");
        }
        assert_eq!(
            result(&refused, Criterion::NonInferiorityShown),
            Check::Pass
        );
        assert_eq!(result(&refused, Criterion::MarginHolds), Check::Fail);
        assert_eq!(refused.verdict, Verdict::Refused);
    }
}

#[test]
fn a_margin_refuses_when_a_stratum_cannot_rule_out_a_loss_of_the_margin() {
    let mut rows = Vec::new();
    rows.extend(repeat("id", 0, 1, 20));
    rows.extend(repeat("year", 1, 0, 2));
    rows.extend(repeat("year", 1, 1, 3));
    let (b, c) = files(&rows, true);
    let refused = run(&b, &c, Some(0.05));
    assert_eq!(refused.verdict, Verdict::Refused);
    assert_eq!(result(&refused, Criterion::MarginHolds), Check::Fail);
    // Non-inferiority asks no test for improvement or regression.
    assert!(refused.evidence.iter().all(|e| !matches!(
        e.criterion,
        Criterion::ImprovementSignificant | Criterion::NoStratumRegressed
    )));
    assert!(
        refused.reasons[0].starts_with(
            "Cannot rule out a loss of 0.05 or more in proportion correct on kind=year: p_noninferiority "
        ),
        "{}",
        refused.reasons[0]
    );
    let admitted = run(&b, &c, Some(0.99));
    assert_eq!(admitted.verdict, Verdict::Admitted);
    assert_eq!(result(&admitted, Criterion::MarginHolds), Check::Pass);
}

#[test]
fn swapping_baseline_and_candidate_swaps_the_one_sided_p_values() {
    let mut rows = repeat("id", 0, 1, 7);
    rows.extend(repeat("id", 1, 0, 2));
    rows.extend(repeat("year", 1, 1, 4));
    for with_correct in [true, false] {
        let (b, c) = files(&rows, with_correct);
        let forward = run(&b, &c, None);
        let backward = run(&c, &b, None);
        assert_eq!(forward.tails.p_improvement, backward.tails.p_regression);
        assert_eq!(forward.tails.p_regression, backward.tails.p_improvement);
        assert_eq!(forward.tails.p_two_sided, backward.tails.p_two_sided);
    }
}

#[test]
fn the_holdout_check_fails_on_a_different_task_list_or_digest() {
    let (b, c) = files(&repeat("id", 0, 1, 6), true);
    let pairs = pairs_of(&b, &c);
    let mut recorded: Vec<String> = pairs.tasks().map(str::to_string).collect();
    let record = |ids: Vec<String>, sha: &str| HoldoutRecord {
        manifest: "manifest.json".into(),
        task_ids: ids,
        order_sha256: None,
        sha256: "ab".repeat(32),
        tasks_file: Some(("holdout.csv".into(), sha.to_string())),
    };
    let used: Vec<&str> = pairs.tasks().collect();
    let intact = record(recorded.clone(), &"ab".repeat(32)).check(&used);
    assert_eq!(intact.result, Check::Pass, "{}", intact.proof);
    let tampered = record(recorded.clone(), &"cd".repeat(32)).check(&used);
    assert_eq!(tampered.result, Check::Fail);
    assert!(
        tampered
            .proof
            .contains("differs from the recorded abababababab")
    );
    recorded.pop();
    recorded.push("t999:id".into());
    let swapped = record(recorded, &"ab".repeat(32)).check(&used);
    assert_eq!(swapped.result, Check::Fail);
    assert!(
        swapped
            .proof
            .contains("1 holdout task not used (first: t999:id)")
    );
    assert!(
        swapped
            .proof
            .contains("1 task not in the holdout used (first: t005:id)")
    );
}

#[test]
fn criterion_names_are_the_ones_serialised() {
    for criterion in [
        Criterion::PairingComplete,
        Criterion::ImprovementSignificant,
        Criterion::NoStratumRegressed,
        Criterion::MarginHolds,
        Criterion::HoldoutIntact,
    ] {
        assert_eq!(
            serde_json::to_value(criterion).unwrap(),
            serde_json::Value::String(criterion.name().to_string())
        );
    }
}

#[test]
fn pairing_names_how_many_tasks_each_file_lacks_and_the_first_ones() {
    let base = "task_id,score\na,1\nb,1\nc,1\nd,1\n";
    let cand = "task_id,score\na,1\nz,0\n";
    let error = pair_texts(base, cand, None, None).unwrap_err();
    assert!(
        error.contains(
            "`c.csv` lacks 3 tasks that `b.csv` has (first: `b` (row 3), `c` (row 4), `d` (row 5))"
        ),
        "{error}"
    );
    assert!(error.contains("`b.csv` lacks 1 task that `c.csv` has (first: `z` (row 3))"));
}

#[test]
fn mcnemar_without_correct_in_both_files_is_a_usage_error() {
    let (b, _) = files(&repeat("id", 0, 1, 3), true);
    let (_, c) = files(&repeat("id", 0, 1, 3), false);
    let pairs = pairs_of(&b, &c);
    assert!(!pairs.both_correct);
    let error = TestChoice::McNemar
        .resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv")
        .unwrap_err();
    assert_eq!(error, ConfigError::NoCorrectColumn("c.csv".into()));
    assert_eq!(
        TestChoice::SignedRank.resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv"),
        Ok(Test::SignedRank(ZeroMethod::Wilcox))
    );
}

#[test]
fn auto_with_correct_in_one_file_only_is_a_usage_error_naming_the_file_that_lacks_it() {
    for (base_has, lacking) in [(true, "c.csv"), (false, "b.csv")] {
        let (b, _) = files(&repeat("id", 0, 1, 3), base_has);
        let (_, c) = files(&repeat("id", 0, 1, 3), !base_has);
        let pairs = pairs_of(&b, &c);
        let error = TestChoice::Auto
            .resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv")
            .unwrap_err();
        assert_eq!(error, ConfigError::CorrectInOneFile(lacking.into()));
        let text = error.to_string();
        assert!(
            text.contains(&format!("`{lacking}` has no `correct` column")),
            "{text}"
        );
        assert!(
            text.contains("--test signed-rank to compare scores explicitly"),
            "{text}"
        );
    }
    let (b, _) = files(&repeat("id", 0, 1, 3), false);
    let (_, c) = files(&repeat("id", 0, 1, 3), false);
    assert_eq!(
        TestChoice::Auto.resolve(&pairs_of(&b, &c), ZeroMethod::Wilcox, "b.csv", "c.csv"),
        Ok(Test::SignedRank(ZeroMethod::Wilcox))
    );
}

#[test]
fn a_task_whose_two_rows_name_different_strata_is_an_error_naming_both_rows() {
    let base = "task_id,kind,score\na,id,1\nb,year,1\n";
    let cand = "task_id,kind,score\nb,title,1\na,id,1\n";
    let strata = StrataRequest {
        column: "kind".into(),
        required: false,
    };
    let error = pair_texts(base, cand, None, Some(&strata)).unwrap_err();
    assert_eq!(
        error,
        "task `b`: `b.csv` row 3 has kind `year` but `c.csv` row 2 has `title`; both files must describe the same task"
    );
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Scores files from `(kind index, baseline score, candidate score)` in row order;
    /// with `correct`, a score of 4/4 is correct.
    fn table(rows: &[(usize, u8, u8)], order: &[usize], candidate: bool, correct: bool) -> String {
        let mut text = if correct {
            "task_id,kind,correct,score\n".to_string()
        } else {
            "task_id,kind,score\n".to_string()
        };
        for &i in order {
            let (kind, b, c) = rows[i];
            let value = if candidate { c } else { b };
            let flag = if correct {
                format!("{},", u8::from(value == 4))
            } else {
                String::new()
            };
            let score = f64::from(value) / 4.0;
            text.push_str(&format!("t{i}:k{kind},k{kind},{flag}{score}\n"));
        }
        text
    }

    fn check(rows: &[(usize, u8, u8)], seed: u64, correct: bool) -> Result<(), TestCaseError> {
        let forward: Vec<usize> = (0..rows.len()).collect();
        let mut shuffled = forward.clone();
        // A permutation derived from the seed: rotate, then reverse.
        shuffled.rotate_left((seed % rows.len() as u64) as usize);
        shuffled.reverse();
        let candidate = table(rows, &forward, true, correct);
        let a = run(
            &table(rows, &forward, false, correct),
            &candidate,
            Some(0.1),
        );
        let b = run(
            &table(rows, &shuffled, false, correct),
            &candidate,
            Some(0.1),
        );
        prop_assert_eq!(&a, &b);
        for p in [
            a.tails.p_improvement,
            a.tails.p_regression,
            a.tails.p_two_sided,
        ] {
            prop_assert!((0.0..=1.0).contains(&p));
        }
        prop_assert!(
            a.strata
                .iter()
                .all(|s| (0.0..=1.0).contains(&s.tails.p_regression))
        );
        let admitted = a.verdict == Verdict::Admitted;
        prop_assert_eq!(admitted, a.evidence.iter().all(|e| e.result == Check::Pass));
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn mcnemar_decisions_ignore_row_order_and_keep_p_values_in_the_unit_interval(
            rows in prop::collection::vec((0usize..3, 0u8..=4, 0u8..=4), 1..40),
            seed in any::<u64>(),
        ) {
            check(&rows, seed, true)?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]

        #[test]
        fn signed_rank_decisions_ignore_row_order_and_keep_p_values_in_the_unit_interval(
            rows in prop::collection::vec((0usize..3, 0u8..=4, 0u8..=4), 1..16),
            seed in any::<u64>(),
        ) {
            check(&rows, seed, false)?;
        }
    }
}

mod losses {
    use super::*;
    use crate::admission::SHOWN_LOSSES;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        /// The admission's losses against a sort of every lost pair by (difference,
        /// task), written from the rule: the pairs are read in a shuffled row order,
        /// and quarter-point scores give many equal losses.
        #[test]
        fn the_report_lists_the_largest_losses_then_by_task(
            scores in prop::collection::vec((0u8..=4, 0u8..=4), 1..60),
            seed in any::<u64>(),
        ) {
            let mut order: Vec<usize> = (0..scores.len()).collect();
            order.rotate_left((seed % scores.len() as u64) as usize);
            if seed % 2 == 0 {
                order.reverse();
            }
            let file = |candidate: bool| {
                let mut text = "task_id,score\n".to_string();
                for &i in &order {
                    let (b, c) = scores[i];
                    let value = if candidate { c } else { b };
                    text.push_str(&format!("t{i},{}\n", f64::from(value) / 4.0));
                }
                text
            };
            let pairs = pair_texts(&file(false), &file(true), None, None).unwrap();
            let mut expected: Vec<(f64, String)> = scores
                .iter()
                .enumerate()
                .filter(|(_, (b, c))| c < b)
                .map(|(i, (b, c))| ((f64::from(*c) - f64::from(*b)) / 4.0, format!("t{i}")))
                .collect();
            expected.sort_by(|x, y| x.0.total_cmp(&y.0).then_with(|| x.1.cmp(&y.1)));
            expected.truncate(SHOWN_LOSSES);
            let config = Config {
                alpha: Alpha::new(0.05).unwrap(),
                test: Test::SignedRank(ZeroMethod::Wilcox),
                margin: None,
                holdout: None,
                cluster: false,
                answers: Default::default(),
            };
            let admission = decide(&pairs, &config);
            let shown: Vec<(f64, String)> = admission
                .losses
                .iter()
                .map(|l| (l.candidate_score - l.baseline_score, l.task_id.clone()))
                .collect();
            prop_assert_eq!(shown, expected);
        }
    }
}

/// More strata values than the reader keeps at hand: a value stored again is still
/// one stratum, and the strata come in value order with every pair counted once.
#[test]
fn a_stratum_value_stored_more_than_once_is_one_stratum() {
    let kinds: Vec<String> = (0..60).map(|i| format!("k{:02}", (i * 7) % 12)).collect();
    let rows: Vec<(&str, u8, u8)> = kinds
        .iter()
        .enumerate()
        .map(|(i, kind)| (kind.as_str(), u8::from(i % 3 == 0), u8::from(i % 2 == 0)))
        .collect();
    let (base, cand) = files(&rows, true);
    let admission = run(&base, &cand, None);
    let strata: Vec<(String, usize)> = admission
        .strata
        .iter()
        .map(|s| (s.value.clone(), s.n))
        .collect();
    let expected: Vec<(String, usize)> = (0..12).map(|k| (format!("k{k:02}"), 5)).collect();
    assert_eq!(strata, expected);
}
