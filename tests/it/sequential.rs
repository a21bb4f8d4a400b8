//! `evogate admit --sequential`: each exit path (0 admitted, 1 refused, 3 continue, 2
//! for a pair out of order or a task outside the order), the look that decided on
//! files holding more pairs than it needed, the ledger's one attempt per run, and the
//! report folder.

use std::fs;
use std::path::Path;

use crate::util::{
    ADMIT_B_C, ADMIT_SEQUENTIAL_B_C, Run, assert_input_error, file_names, run, write,
    write_manifest,
};

/// The order: tasks t000 … t{n-1}, in that order.
fn order(dir: &Path, n: usize) {
    let mut text = "task_id,kind\n".to_string();
    for i in 0..n {
        text.push_str(&format!("t{i:03},{}\n", kind(i)));
    }
    write(dir, "order.csv", &text);
}

fn kind(i: usize) -> &'static str {
    if i.is_multiple_of(2) { "even" } else { "odd" }
}

/// Scores files for the first tasks of the order: (baseline correct, candidate
/// correct) for each, in the order. The rows are written in reverse, which pairing by
/// task_id must not mind.
fn scores(dir: &Path, outcomes: &[(u8, u8)]) {
    let header = "task_id,kind,correct,score\n";
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (i, (b, c)) in outcomes.iter().enumerate().rev() {
        base.push_str(&format!("t{i:03},{},{b},{b}\n", kind(i)));
        cand.push_str(&format!("t{i:03},{},{c},{c}\n", kind(i)));
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

/// A folder with an order of `n` tasks and the scores of `outcomes` for its first ones.
fn fixture(n: usize, outcomes: &[(u8, u8)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    order(dir.path(), n);
    scores(dir.path(), outcomes);
    dir
}

fn sequential(dir: &Path, extra: &[&str]) -> Run {
    run(
        dir,
        &[&ADMIT_SEQUENTIAL_B_C[..], &["--order", "order.csv"], extra].concat(),
    )
}

/// Fixed-n `admit` of `c.csv` against `b.csv`, as JSON.
fn fixed_json(dir: &Path) -> Run {
    run(dir, &[&ADMIT_B_C[..], &["--format", "json"]].concat())
}

/// Asserts the run was refused with a reason containing `why`; returns the report.
fn refused_because(run: &Run, why: &str) -> serde_json::Value {
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let report = json(run);
    assert_eq!(report["verdict"], "refused");
    let reason = report["reason"].as_str().unwrap();
    assert!(reason.contains(why), "{reason}");
    report
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// The improvement e-value after w wins and no loss at holdout 100, as the definition
/// reads: bets 1, 1/2, 1/4, 1/8, 1/16 (down to the first at or below 1/√100), and the
/// mixture is their mean capital Π (1 + c).
fn e_value_of_wins(w: i32) -> f64 {
    [1.0, 0.5, 0.25, 0.125, 0.0625]
        .iter()
        .map(|c: &f64| (1.0 + c).powi(w))
        .sum::<f64>()
        / 5.0
}

#[test]
fn wins_in_a_row_admit_with_exit_0_at_the_first_look_past_twenty_whatever_follows() {
    let dir = tempfile::tempdir().unwrap();
    order(dir.path(), 100);
    let first = (1..).find(|&w| e_value_of_wins(w) >= 20.0).unwrap();
    // 9.16 after 5 wins, 16.5 after 6, 30.7 after 7.
    assert_eq!(first, 7);
    for k in [7, 8, 30] {
        let mut outcomes = vec![(0, 1); k];
        // What comes after the deciding look is not used: losses change nothing.
        for outcome in outcomes.iter_mut().skip(7) {
            *outcome = (1, 0);
        }
        scores(dir.path(), &outcomes);
        let run = sequential(dir.path(), &["--format", "json"]);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let report = json(&run);
        assert_eq!(report["verdict"], "admitted");
        assert_eq!(report["look"], 7);
        assert_eq!(report["pairs_scored"], k);
        let e = report["e_value"].as_f64().unwrap();
        assert!((e - e_value_of_wins(7)).abs() < 1e-9 * e, "{e}");
        assert!(report["interval"]["low"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn six_wins_in_a_row_continue_with_exit_3_and_an_estimate_of_the_tasks_needed() {
    let dir = fixture(100, &[(0, 1); 6]);
    let run = sequential(dir.path(), &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .starts_with("continue: not decided after 6 of 100 tasks"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("e-value 16.5"), "{}", run.stdout);
    let report = json(&sequential(dir.path(), &["--format", "json"]));
    assert_eq!(report["verdict"], "continue");
    let needed = report["tasks_needed"].as_u64().unwrap();
    assert!((1..=10).contains(&needed), "{needed}");
    assert!(report["interval"]["low"].as_f64().unwrap() < 0.0);
}

#[test]
fn an_estimate_beyond_the_tasks_left_says_the_last_look_decides() {
    // Three wins and one loss in twenty pairs: the e-value grows too slowly to reach its
    // threshold within the ten tasks the holdout has left.
    let outcomes: Vec<(u8, u8)> = (0..20)
        .map(|i| match i {
            0..=2 => (0, 1),
            3 => (1, 0),
            _ => (1, 1),
        })
        .collect();
    let dir = fixture(30, &outcomes);
    let run = sequential(dir.path(), &[]);
    assert_eq!(run.code, 3, "{}{}", run.stdout, run.stderr);
    let needed = json(&sequential(dir.path(), &["--format", "json"]))["tasks_needed"]
        .as_u64()
        .unwrap();
    assert!(needed > 10, "{needed}");
    assert!(
        run.stdout.contains(&format!(
            "about {needed} more tasks if the pairs to come look like these, more than the 10 \
             the holdout has left: the e-value is unlikely to decide before the last look, at \
             30, which decides with the exact test"
        )),
        "{}",
        run.stdout
    );
}

#[test]
fn steady_losses_are_refused_with_exit_1_as_unable_to_be_better() {
    let dir = fixture(100, &[(1, 0); 40]);
    let run = sequential(dir.path(), &["--format", "json"]);
    let report = refused_because(&run, "cannot be better");
    assert!(report["interval"]["high"].as_f64().unwrap() <= 0.0);
    assert!(report["look"].as_u64().unwrap() < 40);
}

#[test]
fn a_stratum_losing_every_pair_is_refused_though_the_other_wins_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    order(dir.path(), 100);
    // Even tasks lose, odd ones win: the whole is flat, `even` regresses.
    let outcomes: Vec<(u8, u8)> = (0..40)
        .map(|i| if i % 2 == 0 { (1, 0) } else { (0, 1) })
        .collect();
    scores(dir.path(), &outcomes);
    let run = sequential(dir.path(), &["--format", "json"]);
    refused_because(&run, "stratum `even`");
}

#[test]
fn every_task_scored_undecided_is_settled_by_the_exact_test_of_the_last_look() {
    let dir = tempfile::tempdir().unwrap();
    order(dir.path(), 40);
    // 40 tasks: 12 wins spread among ties and 2 losses. The e-process never reaches 20
    // (checked by the JSON: a final look is present) and the exact test decides.
    let outcomes: Vec<(u8, u8)> = (0..40)
        .map(|i| match i % 10 {
            1 | 4 | 7 => (0, 1),
            9 if i < 20 => (1, 0),
            _ => (1, 1),
        })
        .collect();
    scores(dir.path(), &outcomes);
    let run = sequential(dir.path(), &["--format", "json", "--strata", "none"]);
    let report = json(&run);
    assert_eq!(report["look"], 40, "{report}");
    let last = &report["final_look"];
    assert!(last.is_object(), "{report}");
    // 12 wins of 14 discordant: P(Bin(14, ½) ≥ 12) = 106/16384 = 0.0065, and the whole
    // procedure's p-value adds the e-process's crossing chance: still below 0.05.
    let p = last["p_value"].as_f64().unwrap();
    assert!((106.0 / 16_384.0..=0.05).contains(&p), "{p}");
    assert_eq!(last["shown"], true);
    assert_eq!(run.code, 0);
}

#[test]
fn a_pair_scored_ahead_of_an_unscored_task_is_an_error_naming_both() {
    let dir = fixture(10, &[(0, 1); 5]);
    // Drop t002 from the candidate: t003 and t004 are then out of order.
    let cand = fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let cand: String = cand
        .lines()
        .filter(|l| !l.starts_with("t002"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(dir.path(), "c.csv", &cand);
    let run = sequential(dir.path(), &[]);
    assert_input_error(
        &run,
        &["`t003`", "out of order", "`t002`", "position 3", "c.csv"],
    );
}

#[test]
fn a_task_outside_the_order_is_an_error_naming_its_row() {
    let dir = fixture(3, &[(0, 1); 4]);
    let run = sequential(dir.path(), &[]);
    assert_input_error(&run, &["`c.csv` row 2", "`t003`", "not in the order"]);
}

#[test]
fn a_decided_run_is_one_attempt_in_the_ledger_however_many_files_follow() {
    let dir = tempfile::tempdir().unwrap();
    order(dir.path(), 100);
    let ids: Vec<String> = (0..100).map(|i| format!("t{i:03}")).collect();
    write_manifest(dir.path(), &ids);
    let with_ledger = ["--manifest", "manifest.json", "--ledger", "ledger.jsonl"];
    // Undecided: the first look opens attempt 1.
    scores(dir.path(), &[(0, 1); 5]);
    assert_eq!(sequential(dir.path(), &with_ledger).code, 3);
    let opened = fs::read_to_string(dir.path().join("ledger.jsonl")).unwrap();
    assert!(opened.contains("\"verdict\":\"open\""), "{opened}");
    // Decided at look 7 (alpha 0.05·6/π² = 0.0304 for attempt 1: 1/alpha = 32.9, so
    // the look moves to 8, where the e-value is 57.7), closing attempt 1.
    for k in [8, 9, 12] {
        scores(dir.path(), &vec![(0, 1); k]);
        let run = sequential(
            dir.path(),
            &[&with_ledger[..], &["--format", "json"]].concat(),
        );
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        let report = json(&run);
        assert_eq!(report["look"], 8);
        assert_eq!(report["ledger"]["attempt"], 1);
        assert_eq!(report["ledger"]["repeated"], k > 8);
    }
    let ledger = fs::read_to_string(dir.path().join("ledger.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 2, "{ledger}");
    assert!(ledger.ends_with("\"verdict\":\"admitted\"}\n"), "{ledger}");
    assert!(ledger.contains("\"sequential-mcnemar\""), "{ledger}");
}

#[test]
fn the_report_folder_holds_the_json_markdown_and_e_value_plot_and_is_the_same_bytes_twice() {
    let dir = fixture(100, &[(0, 1); 9]);
    let first = sequential(dir.path(), &["--report-dir", "out"]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        file_names(&dir.path().join("out")),
        ["admission.json", "admission.md", "e_value.svg"]
    );
    let read = |name: &str| fs::read(dir.path().join("out").join(name)).unwrap();
    let (json_bytes, md, svg) = (
        read("admission.json"),
        read("admission.md"),
        read("e_value.svg"),
    );
    let md_text = String::from_utf8(md.clone()).unwrap();
    assert!(
        md_text.contains("look 7: 7 of 100 holdout tasks used \\(9 scored\\)"),
        "{md_text}"
    );
    assert!(String::from_utf8(svg.clone()).unwrap().starts_with("<svg"));
    sequential(dir.path(), &["--report-dir", "out"]);
    assert_eq!(read("admission.json"), json_bytes);
    assert_eq!(read("admission.md"), md);
    assert_eq!(read("e_value.svg"), svg);
}

#[test]
fn power_sequential_gives_tasks_to_a_decision_beside_the_fixed_n_tests_n() {
    let dir = tempfile::tempdir().unwrap();
    let question = [
        "--shift",
        "0.14",
        "--discordance",
        "0.3",
        "--format",
        "json",
    ];
    let power = |extra: &[&str]| {
        let args: Vec<&str> = ["power"]
            .iter()
            .chain(extra)
            .chain(&question)
            .copied()
            .collect();
        run(dir.path(), &args)
    };
    let sequential_run = power(&["--sequential"]);
    assert_eq!(sequential_run.code, 0, "{}", sequential_run.stderr);
    let report = json(&sequential_run);
    let fixed = json(&power(&[]));
    // The holdout defaults to the fixed-n test's smallest n for 80% power.
    assert_eq!(report["holdout"], fixed["rows"][0]["smallest_n_for_power"]);
    assert_eq!(report["fixed_n_for_80_power"], report["holdout"]);
    let sequential = &report["sequential"];
    let (median, p90) = (
        sequential["median_tasks"].as_u64().unwrap(),
        sequential["p90_tasks"].as_u64().unwrap(),
    );
    let holdout = report["holdout"].as_u64().unwrap();
    assert!(median <= p90 && p90 <= holdout, "{report}");
    let power = sequential["power"].as_f64().unwrap();
    assert!(power > 0.6 && power < 0.9, "{report}");
    // Its Monte-Carlo error: a 95% Wilson interval over the 2,000 runs, about ±1.96 ·
    // √(p(1 − p)/2000) around the power (±1.7 points at 80%).
    let error = &report["power_monte_carlo_95"];
    let (low, high) = (
        error["low"].as_f64().unwrap(),
        error["high"].as_f64().unwrap(),
    );
    let half = 1.96 * (power * (1.0 - power) / 2000.0).sqrt();
    assert!(low < power && power < high, "{report}");
    assert!(((high - low) / 2.0 - half).abs() < 0.001, "{report}");
    // A shift larger than the discordance cannot be.
    let bad = crate::util::run(
        dir.path(),
        &[
            "power",
            "--sequential",
            "--shift",
            "0.4",
            "--discordance",
            "0.3",
        ],
    );
    assert_input_error(&bad, &["--shift 0.4"]);
}

#[test]
fn power_sequential_refuses_a_holdout_past_its_limit_naming_the_flag_the_limit_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let power = |extra: &[&str]| {
        let mut args = vec![
            "power",
            "--sequential",
            "--shift",
            "0.1",
            "--discordance",
            "0.3",
        ];
        args.extend_from_slice(extra);
        run(dir.path(), &args)
    };
    // 2000 runs of up to 10^19 pairs each: it ran (and allocated) until it decided.
    let huge = power(&["--holdout", "18446744073709551615"]);
    assert_input_error(
        &huge,
        &[
            "--holdout 18446744073709551615",
            "at most 20000",
            "--holdout 20000 or fewer",
        ],
    );
    assert_input_error(&power(&["--holdout", "20001"]), &["--holdout 20001"]);
    assert_eq!(power(&["--holdout", "20000"]).code, 0);
    // The default holdout, the fixed-n test's n for 80% power (74,584 pairs at shift
    // 0.005), is held to the same limit.
    let small_shift = run(
        dir.path(),
        &[
            "power",
            "--sequential",
            "--shift",
            "0.005",
            "--discordance",
            "0.3",
        ],
    );
    assert_input_error(&small_shift, &["74584", "at most 20000", "give --holdout"]);
}

/// One positive-mean rule for `admit` and `admit --sequential`: a loss of 1
/// and ten gains of 0.4 − 0.3 have a mean difference of exactly 0, which `admit`
/// refuses; the sequential last look (signed-rank p 57/2048 = 0.0278, below the alpha
/// left 0.0375) summed the differences in floats (+2.2e-16) and admitted. Both now sum
/// in micro-units and refuse.
#[test]
fn a_mean_difference_of_exactly_zero_is_refused_by_admit_and_admit_sequential_alike() {
    let dir = tempfile::tempdir().unwrap();
    let (mut base, mut cand, mut order) = (
        "task_id,score\nt000,1\n".to_string(),
        "task_id,score\nt000,0\n".to_string(),
        "task_id\nt000\n".to_string(),
    );
    for i in 1..=10 {
        base.push_str(&format!("t{i:03},0.3\n"));
        cand.push_str(&format!("t{i:03},0.4\n"));
        order.push_str(&format!("t{i:03}\n"));
    }
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    write(dir.path(), "order.csv", &order);
    let fixed = fixed_json(dir.path());
    assert_eq!(fixed.code, 1, "{}{}", fixed.stdout, fixed.stderr);
    assert_eq!(json(&fixed)["verdict"], "refused");
    let looked = sequential(dir.path(), &["--format", "json"]);
    let report = refused_because(&looked, "did not show an improvement");
    assert_eq!(report["look"], 11);
    assert_eq!(report["mean_difference"], 0.0);
    let p = report["final_look"]["p_value"].as_f64().unwrap();
    assert!((p - 57.0 / 2048.0).abs() < 1e-12, "{p}");
    // The text says the mean decided, not only "not shown" beside a p below alpha.
    let text = sequential(dir.path(), &[]);
    assert!(
        text.stdout
            .contains("p 0.02783: not shown, as the mean difference 0 is not positive"),
        "{}",
        text.stdout
    );
}

/// Outcomes from a pattern: `+` a candidate win, `-` a loss, `.` a tie (both right on
/// odd tasks, both wrong on even ones).
fn outcomes_of(pattern: &str) -> Vec<(u8, u8)> {
    pattern
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            '+' => (0, 1),
            '-' => (1, 0),
            _ => ((i % 2) as u8, (i % 2) as u8),
        })
        .collect()
}

#[test]
fn the_last_look_p_is_set_beside_admits_p_for_the_same_counts_and_says_why_it_is_larger() {
    // 14 wins and 4 losses over 80 tasks, spread so the e-value never crosses 20.
    let pattern =
        "...+.+.-......+-......+...+.......++...+.-..+.+....-+...+.....+...+.............";
    let dir = fixture(80, &outcomes_of(pattern));
    let fixed = fixed_json(dir.path());
    let admit_p = json(&fixed)["p_improvement"].as_f64().unwrap();
    // McNemar's exact one-sided p of 14 wins in 18 discordant pairs, P(Bin(18, 1/2) ≥ 14)
    // = (C(18,14) + C(18,15) + C(18,16) + C(18,17) + C(18,18)) / 2^18 = 4048 / 262144.
    // The JSON keeps 12 significant digits.
    assert!((admit_p - 4048.0 / 262_144.0).abs() < 1e-13, "{admit_p}");
    let report = json(&sequential(dir.path(), &["--format", "json"]));
    assert_eq!(report["verdict"], "admitted", "{report}");
    let last = &report["final_look"];
    assert!(
        (last["fixed_n_p_value"].as_f64().unwrap() - admit_p).abs() < 1e-13,
        "{last}"
    );
    let procedure_p = last["p_value"].as_f64().unwrap();
    assert!(procedure_p > admit_p && procedure_p <= 0.05, "{last}");
    let text = sequential(dir.path(), &[]).stdout;
    assert!(
        text.contains(
            "admit gives these counts p 0.01544, smaller because it looks once, while this p also counts every earlier look at which the e-value would have admitted"
        ),
        "{text}"
    );
    assert!(
        text.contains("p 0.02114 for the whole procedure against alpha 0.05: shown"),
        "{text}"
    );
    // Its anytime-valid interval holds 0 beside "admitted", and the report says why.
    assert!(
        report["interval"]["low"].as_f64().unwrap() <= 0.0,
        "{report}"
    );
    assert!(
        text.contains("the 90% interval holds 0 although admitted: it is anytime-valid"),
        "{text}"
    );
    let markdown = sequential(dir.path(), &["--format", "markdown"]).stdout;
    assert!(
        markdown.contains("admit gives these counts p 0.01544"),
        "{markdown}"
    );
}
