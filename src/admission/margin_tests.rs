//! Decisions with a margin on small cases: the question each run asks, what it admits
//! that superiority does not (and the reverse), and when it is inconclusive.

use super::tests::{files, repeat, result, run};
use super::*;
use crate::alpha::Alpha;
use crate::stats::signed_rank::ZeroMethod;

/// 400 pairs of one kind: 20 lost, 20 won, 360 unchanged (the candidate no better).
fn unchanged() -> Vec<(&'static str, u8, u8)> {
    let mut rows = repeat("id", 1, 0, 20);
    rows.extend(repeat("id", 0, 1, 20));
    rows.extend(repeat("id", 1, 1, 200));
    rows.extend(repeat("id", 0, 0, 160));
    rows
}

fn run_equivalence(base: &str, cand: &str, margin: f64) -> Admission {
    let pairs = super::tests::pairs_of(base, cand);
    let test = TestChoice::Auto
        .resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv")
        .unwrap();
    let config = Config {
        alpha: Alpha::new(0.05).unwrap(),
        test,
        margin: Some(Margin::equivalence(margin).unwrap()),
        holdout: None,
        cluster: false,
        answers: Default::default(),
    };
    decide(&pairs, &config)
}

#[test]
fn a_candidate_no_better_than_its_baseline_is_shown_non_inferior_but_not_superior() {
    for with_correct in [true, false] {
        let (b, c) = files(&unchanged(), with_correct);
        let superiority = run(&b, &c, None);
        assert_eq!(superiority.question.name, QuestionName::Superiority);
        assert_eq!(superiority.verdict, Verdict::Refused);
        let non_inferior = run(&b, &c, Some(0.1));
        assert_eq!(non_inferior.question.name, QuestionName::NonInferiority);
        assert_eq!(non_inferior.question.margin, Some(0.1));
        assert_eq!(
            non_inferior.question.words,
            "non-inferiority at margin 0.1: is the candidate worse than the baseline by less than 0.1?"
        );
        assert_eq!(non_inferior.verdict, Verdict::Admitted, "{non_inferior:#?}");
        assert_eq!(
            result(&non_inferior, Criterion::NonInferiorityShown),
            Check::Pass
        );
        let tests = non_inferior.margin_tests.as_ref().unwrap();
        assert!(tests.p_noninferiority < 1e-4, "{tests:?}");
        // Scores are decided by two tests, each of which must reject; 0/1 by one.
        assert_eq!(tests.signed_rank.is_some(), !with_correct);
        assert_eq!(tests.betting.is_some(), !with_correct);
        assert_eq!(
            non_inferior.question.answer(non_inferior.verdict),
            "non-inferiority at margin 0.1 shown"
        );
    }
}

#[test]
fn equivalence_is_shown_for_an_unchanged_candidate_and_not_for_one_better_by_more_than_the_margin()
{
    for with_correct in [true, false] {
        let (b, c) = files(&unchanged(), with_correct);
        let same = run_equivalence(&b, &c, 0.1);
        assert_eq!(same.question.name, QuestionName::Equivalence);
        assert_eq!(same.verdict, Verdict::Admitted, "{same:#?}");
        assert_eq!(result(&same, Criterion::EquivalenceShown), Check::Pass);
        // Better by 60 of 400 = 0.15: a gain of 0.1 or more cannot be ruled out.
        let mut better = repeat("id", 0, 1, 60);
        better.extend(repeat("id", 1, 1, 340));
        let (b, c) = files(&better, with_correct);
        let shifted = run_equivalence(&b, &c, 0.1);
        assert_eq!(shifted.verdict, Verdict::Refused);
        assert_eq!(result(&shifted, Criterion::EquivalenceShown), Check::Fail);
        assert!(
            shifted.reasons[0]
                .starts_with("Equivalence within ±0.1 is not shown: a gain of 0.1 or more"),
            "{}",
            shifted.reasons[0]
        );
        assert_eq!(
            shifted.question.answer(shifted.verdict),
            "equivalence within ±0.1 not shown"
        );
    }
}

#[test]
fn a_few_pairs_leaning_inside_the_margin_are_inconclusive_with_the_tasks_that_would_settle_it() {
    // 12 pairs, one lost and one won: the difference 0 is inside the margin 0.1, but 12
    // pairs cannot show it. σ = √(2/12) per pair, so ⌈((1.6449 + 0.8416)·0.40825 /
    // 0.1)²⌉ = ⌈103.05⌉ = 104 pairs would give 80% power.
    let mut rows = repeat("id", 1, 0, 1);
    rows.extend(repeat("id", 0, 1, 1));
    rows.extend(repeat("id", 1, 1, 10));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, Some(0.1));
    assert_eq!(a.verdict, Verdict::Inconclusive, "{a:#?}");
    assert_eq!(a.tasks_needed, Some(104));
    assert!(
        a.reasons[0].starts_with(
            "Inconclusive: the difference 0 lies inside the claim (non-inferiority at margin 0.1)"
        ),
        "{}",
        a.reasons[0]
    );
    // The same pairs lost twice are outside the claim: refused.
    let mut rows = repeat("id", 1, 0, 3);
    rows.extend(repeat("id", 1, 1, 9));
    let (b, c) = files(&rows, true);
    assert_eq!(run(&b, &c, Some(0.1)).verdict, Verdict::Refused);
}

#[test]
fn at_margin_zero_non_inferiority_is_decided_by_mcnemars_p_improvement() {
    let mut rows = repeat("id", 0, 1, 9);
    rows.extend(repeat("id", 1, 0, 2));
    rows.extend(repeat("id", 1, 1, 5));
    let (b, c) = files(&rows, true);
    let superiority = run(&b, &c, None);
    let at_zero = run(&b, &c, Some(0.0));
    assert_eq!(
        at_zero.margin_tests.unwrap().p_noninferiority,
        superiority.tails.p_improvement
    );
}

#[test]
fn a_claim_shown_overall_with_a_small_stratum_short_of_the_margin_says_the_stratum_is_the_doubt() {
    // 400 unchanged pairs show non-inferiority at 0.1 on the whole set; the 12 pairs of
    // `small` (one lost, one won) lean inside the margin but cannot show it, so the
    // verdict waits on them and the reason names them, not the whole set's difference.
    let mut rows: Vec<(&str, u8, u8)> = unchanged()
        .into_iter()
        .map(|(_, b, c)| ("big", b, c))
        .collect();
    rows.extend(repeat("small", 1, 0, 1));
    rows.extend(repeat("small", 0, 1, 1));
    rows.extend(repeat("small", 1, 1, 10));
    let (b, c) = files(&rows, true);
    let a = run(&b, &c, Some(0.1));
    assert_eq!(a.verdict, Verdict::Inconclusive, "{a:#?}");
    assert_eq!(result(&a, Criterion::NonInferiorityShown), Check::Pass);
    assert_eq!(result(&a, Criterion::MarginHolds), Check::Fail);
    assert!(
        a.reasons[0].starts_with(
            "Inconclusive: the claim (non-inferiority at margin 0.1) is shown on the whole set, and every stratum that fails the margin leans inside it ("
        ) && a.reasons[0].contains("small"),
        "{}",
        a.reasons[0]
    );
    // 104 pairs of `small` alone would give 80% power: 104·412/12 in all.
    assert_eq!(
        a.tasks_needed,
        Some((104.0_f64 * 412.0 / 12.0).ceil() as u64)
    );
}
