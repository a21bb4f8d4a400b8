//! Property tests of whole decisions, run through the same path as `evogate admit`
//! (parse both files, pair, decide, render every report file): swapping the arms never
//! admits both ways, concordant pairs never move McNemar's verdict, the order of the
//! input rows never changes a byte of any output, and scaling every score difference by
//! a positive constant never changes the signed-rank verdict.

use std::path::Path;

use proptest::prelude::*;

use crate::admission::{StrataRequest, TestChoice, Verdict};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::digest::sha256_hex;
use crate::pipeline::admit::{AdmitOn, AdmitSettings, Evaluation, Input, evaluate, report_files};
use crate::report::text;
use crate::stats::signed_rank::ZeroMethod;

/// Cases per property for McNemar, where a decision costs microseconds.
const MCNEMAR_CASES: u32 = 256;

/// Cases per property for signed-rank, where each decision costs more (the exact null
/// distribution and an interval per stratum).
const SIGNED_RANK_CASES: u32 = 48;

/// One task: its stratum (0..3), its group (0..8) and both arms' scores in quarters.
type Row = (usize, usize, u8, u8);

fn rows(max: usize) -> impl Strategy<Value = Vec<Row>> {
    prop::collection::vec((0usize..3, 0usize..8, 0u8..=4, 0u8..=4), 1..max)
}

/// One arm's scores file, rows in `order`. With `correct`, a score of 4/4 is correct;
/// `score` turns a row's quarters into its score.
fn file(
    rows: &[Row],
    order: &[usize],
    candidate: bool,
    correct: bool,
    score: &dyn Fn(usize) -> f64,
) -> Input {
    let mut text = String::from("task_id,group,kind,");
    text.push_str(if correct {
        "correct,score\n"
    } else {
        "score\n"
    });
    for &i in order {
        let (stratum, group, base, cand) = rows[i];
        let quarters = if candidate { cand } else { base };
        text.push_str(&format!("t{i:03}:k{stratum},g{group},k{stratum},"));
        if correct {
            text.push_str(&format!("{},", u8::from(quarters == 4)));
        }
        text.push_str(&format!("{}\n", score(i)));
    }
    Input {
        path: if candidate { "c.csv" } else { "b.csv" }.into(),
        bytes: text.into_bytes(),
    }
}

fn settings(test: TestChoice) -> AdmitSettings {
    AdmitSettings {
        alpha: Alpha::new(0.05).expect("a valid level"),
        test,
        zero: ZeroMethod::Wilcox,
        strata: Some(StrataRequest {
            column: "kind".into(),
            required: false,
        }),
        margin: None,
        cluster: false,
        allow_missing: false,
    }
}

fn decide(baseline: &Input, candidate: &Input, test: TestChoice) -> Evaluation {
    let on = AdmitOn::Bytes {
        baseline: baseline.clone(),
        candidate: candidate.clone(),
        tasks: None,
        manifest: None,
        held: false,
    };
    evaluate(&on, &settings(test), None).expect("well-formed inputs")
}

/// Quarters as a score.
fn quarters(rows: &[Row], candidate: bool) -> impl Fn(usize) -> f64 + '_ {
    move |i| {
        let (_, _, base, cand) = rows[i];
        f64::from(if candidate { cand } else { base }) / 4.0
    }
}

fn in_order(n: usize) -> Vec<usize> {
    (0..n).collect()
}

/// Every output of one admission as text: stdout's text report and every file of the
/// report folder, with each input's SHA-256 (which names the file's bytes, and so its
/// row order) replaced by `<sha256>`. Not by the file's role: when both arms' rows are
/// equal, one row order makes the two files the same bytes and another does not.
fn outputs(evaluation: &Evaluation, inputs: &[&Input]) -> Vec<(String, String)> {
    let blank = |text: String| {
        inputs.iter().fold(text, |text, input| {
            text.replace(&sha256_hex(&input.bytes), "<sha256>")
        })
    };
    let mut all = vec![(
        "stdout".to_string(),
        blank(text::render(&evaluation.report)),
    )];
    let pairs = evaluation
        .pairs
        .as_ref()
        .map(|pairs| FileToWrite::new("r/pairs.csv", crate::report::pairs::render(pairs)));
    for file in report_files(Path::new("r"), evaluation)
        .into_iter()
        .chain(pairs)
    {
        let name = file.path.display().to_string();
        let text = String::from_utf8(file.bytes).expect("reports are UTF-8");
        all.push((name, blank(text)));
    }
    all
}

/// Both arms in the given row orders, decided with `correct` or on scores alone.
fn arms(rows: &[Row], base_order: &[usize], cand_order: &[usize], correct: bool) -> (Input, Input) {
    (
        file(rows, base_order, false, correct, &quarters(rows, false)),
        file(rows, cand_order, true, correct, &quarters(rows, true)),
    )
}

fn test_for(correct: bool) -> TestChoice {
    if correct {
        TestChoice::Auto
    } else {
        TestChoice::SignedRank
    }
}

fn never_admits_both_ways(rows: &[Row], correct: bool) -> Result<(), TestCaseError> {
    let (base, cand) = arms(rows, &in_order(rows.len()), &in_order(rows.len()), correct);
    let forward = decide(&base, &cand, test_for(correct)).report;
    let backward = decide(&cand, &base, test_for(correct)).report;
    prop_assert!(
        !(forward.admission.verdict == Verdict::Admitted
            && backward.admission.verdict == Verdict::Admitted),
        "admitted both ways"
    );
    prop_assert_eq!(
        forward.admission.tails.p_improvement,
        backward.admission.tails.p_regression
    );
    prop_assert_eq!(
        forward.admission.tails.p_regression,
        backward.admission.tails.p_improvement
    );
    Ok(())
}

fn row_order_changes_no_byte(rows: &[Row], seed: u64, correct: bool) -> Result<(), TestCaseError> {
    let forward = in_order(rows.len());
    let mut base_order = forward.clone();
    let mut cand_order = forward.clone();
    // Two different permutations from the seed: rotations, one of them reversed.
    base_order.rotate_left((seed % rows.len() as u64) as usize);
    cand_order.rotate_left(((seed >> 32) % rows.len() as u64) as usize);
    cand_order.reverse();
    let (base, cand) = arms(rows, &forward, &forward, correct);
    let (shuffled_base, shuffled_cand) = arms(rows, &base_order, &cand_order, correct);
    let first = outputs(&decide(&base, &cand, test_for(correct)), &[&base, &cand]);
    let second = outputs(
        &decide(&shuffled_base, &shuffled_cand, test_for(correct)),
        &[&shuffled_base, &shuffled_cand],
    );
    prop_assert_eq!(first.len(), 7);
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        prop_assert!(a == b, "{} depends on the row order", name);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(MCNEMAR_CASES))]

    #[test]
    fn mcnemar_never_admits_both_baseline_over_candidate_and_candidate_over_baseline(
        rows in rows(60),
    ) {
        never_admits_both_ways(&rows, true)?;
    }

    #[test]
    fn adding_concordant_pairs_never_changes_mcnemars_verdict(
        rows in rows(60),
        extra in prop::collection::vec((0usize..4, 0usize..8, any::<bool>()), 1..60),
    ) {
        let (base, cand) = arms(&rows, &in_order(rows.len()), &in_order(rows.len()), true);
        let before = decide(&base, &cand, TestChoice::Auto).report;
        // Concordant pairs, in the strata there are and in a new one (k3).
        let mut more = rows.clone();
        more.extend(extra.iter().map(|&(stratum, group, right)| {
            let quarters = if right { 4 } else { 0 };
            (stratum, group, quarters, quarters)
        }));
        let (base, cand) = arms(&more, &in_order(more.len()), &in_order(more.len()), true);
        let after = decide(&base, &cand, TestChoice::Auto).report;
        prop_assert_eq!(after.admission.verdict, before.admission.verdict);
        prop_assert_eq!(after.admission.tails.p_improvement, before.admission.tails.p_improvement);
        prop_assert_eq!(after.admission.tails.p_regression, before.admission.tails.p_regression);
        prop_assert_eq!(after.admission.n, before.admission.n + extra.len());
    }

    #[test]
    fn mcnemar_reports_ignore_the_row_order_to_the_byte(rows in rows(60), seed in any::<u64>()) {
        row_order_changes_no_byte(&rows, seed, true)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(SIGNED_RANK_CASES))]

    #[test]
    fn signed_rank_never_admits_both_ways(rows in rows(30)) {
        never_admits_both_ways(&rows, false)?;
    }

    #[test]
    fn signed_rank_reports_ignore_the_row_order_to_the_byte(
        rows in rows(30),
        seed in any::<u64>(),
    ) {
        row_order_changes_no_byte(&rows, seed, false)?;
    }

    #[test]
    fn scaling_every_score_difference_never_changes_the_signed_rank_verdict(
        tasks in prop::collection::vec((0usize..3, 4u8..=12, -25i8..=25), 1..30),
        scale in 1u8..=10,
    ) {
        // Baseline scores in [1/4, 3/4] (16ths) and differences in [−1/4, 1/4]
        // (hundredths), scaled by tenths: every scaled candidate stays in [0, 1] with
        // at most six decimals, the precision every statistic counts in (a score
        // with more is rounded to six, which can split a tie), and every non-zero
        // difference stays far above a micro-unit.
        let rows: Vec<Row> = tasks.iter().map(|&(stratum, _, _)| (stratum, 0, 0, 0)).collect();
        let order = in_order(rows.len());
        let tasks = &tasks;
        let base_score = move |i: usize| f64::from(tasks[i].1) / 16.0;
        let scaled = move |factor: f64| {
            move |i: usize| base_score(i) + factor * f64::from(tasks[i].2) / 100.0
        };
        let base = file(&rows, &order, false, false, &base_score);
        let unit = file(&rows, &order, true, false, &scaled(1.0));
        let shrunk = file(&rows, &order, true, false, &scaled(f64::from(scale) / 10.0));
        let one = decide(&base, &unit, TestChoice::SignedRank).report;
        let other = decide(&base, &shrunk, TestChoice::SignedRank).report;
        prop_assert_eq!(one.admission.verdict, other.admission.verdict);
        prop_assert_eq!(one.admission.tails.p_improvement, other.admission.tails.p_improvement);
        prop_assert_eq!(one.admission.tails.p_regression, other.admission.tails.p_regression);
        let regressed = |r: &crate::report::Report| -> Vec<bool> {
            r.admission.strata.iter().map(|s| s.significant_regression).collect()
        };
        prop_assert_eq!(regressed(&one), regressed(&other));
    }
}
