//! `evogate admit`: verdicts and exit codes on cases whose p-values are known by
//! counting (P(all m discordant pairs one way) = 2^-m), report files, determinism,
//! inert untrusted text, the step summary, and every kind of bad input.

use std::fs;
use std::path::Path;

use crate::util::{Run, assert_input_error, evogate, file_names, run, write};

/// Runs `admit` with `args`.
fn admit(dir: &Path, args: &[&str]) -> Run {
    let all: Vec<&str> = std::iter::once("admit")
        .chain(args.iter().copied())
        .collect();
    run(dir, &all)
}

/// Two scores files from `(kind, baseline correct, candidate correct)` rows.
fn scores(dir: &Path, rows: &[(&str, u8, u8)], with_correct: bool) {
    let header = if with_correct {
        "task_id,group,kind,correct,score,feedback\n"
    } else {
        "task_id,group,kind,score,feedback\n"
    };
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (index, (kind, b, c)) in rows.iter().enumerate() {
        let id = format!("p{index:02}:{kind}");
        let group = format!("p{index:02}");
        for (text, value) in [(&mut base, b), (&mut cand, c)] {
            let correct = if with_correct {
                format!("{value},")
            } else {
                String::new()
            };
            text.push_str(&format!("{id},{group},{kind},{correct}{value},fine\n"));
        }
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

const BC: [&str; 4] = ["--baseline", "b.csv", "--candidate", "c.csv"];

fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    BC.iter().chain(extra).copied().collect()
}

#[test]
fn one_win_and_five_ties_is_inconclusive_with_exit_1_and_the_tasks_that_would_settle_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 0, 1)];
    rows.extend([("id", 0, 0); 5]);
    scores(dir.path(), &rows, true);
    let out = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["verdict"], "inconclusive");
    // Power at n is P(D >= 5) for D ~ Binomial(n, 1/6): scipy 1.17.1 binom.sf(4, n, 1/6)
    // is 0.78219 at 38 and 0.80148 at 39.
    assert_eq!(report["tasks_needed"], 39);
    // P(X >= 1 | X ~ Binomial(1, 1/2)) = 0.5.
    assert_eq!(report["p_improvement"], 0.5);
    assert_eq!(report["discordant"]["baseline_only"], 0);
    assert_eq!(report["discordant"]["candidate_only"], 1);
    assert_eq!(report["n"], 6);
    let text = admit(dir.path(), &with(&[]));
    assert_eq!(text.code, 1);
    assert!(
        text.stdout.starts_with(
            "inconclusive: 1 of 3 criteria fail; about 39 tasks would give 80% power for the observed shift\n  - Inconclusive: the candidate leans better"
        ),
        "{}",
        text.stdout
    );
    let markdown = admit(dir.path(), &with(&["--format", "markdown"]));
    let mut lines = markdown.stdout.lines();
    assert_eq!(lines.next(), Some("## evogate admit: inconclusive"));
    assert_eq!(lines.next(), Some(""));
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("- Inconclusive: ")
            && first.contains("about 39 tasks would give 80% power"),
        "{first}"
    );
}

#[test]
fn an_inconclusive_attempt_is_recorded_in_the_ledger_and_spends_an_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 0, 1)];
    rows.extend([("id", 0, 0); 5]);
    // A second candidate wins on another task: a new attempt, inconclusive too.
    let mut other = vec![("id", 0, 0), ("id", 0, 1)];
    other.extend([("id", 0, 0); 4]);
    // Each attempt is decided at its own level, and so are the tasks it needs: alpha_1
    // = 0.0304 takes 6 wins of 6 discordant pairs (2^-5 = 0.03125 is not below it),
    // alpha_2 = 0.0076 takes 8; scipy 1.17.1 binom.sf(k - 1, n, 1/6) first reaches 0.8
    // at n = 46 for k = 6 (0.78331 at 45) and n = 60 for k = 8 (0.78870 at 59).
    let ids: Vec<String> = (0..6).map(|i| format!("p{i:02}:id")).collect();
    crate::util::write_manifest(dir.path(), &ids);
    for (attempt, rows, needed) in [(1, &rows, 46), (2, &other, 60)] {
        scores(dir.path(), rows, true);
        let out = admit(
            dir.path(),
            &with(
                &[
                    &crate::util::LEDGER_WITH_MANIFEST[..],
                    &["--format", "json"],
                ]
                .concat(),
            ),
        );
        assert_eq!(out.code, 1, "{}", out.stderr);
        let report = json(&out);
        assert_eq!(report["verdict"], "inconclusive");
        assert_eq!(report["tasks_needed"], needed);
        assert_eq!(report["ledger"]["attempt"], attempt);
    }
    let ledger = fs::read_to_string(dir.path().join("ledger.jsonl")).unwrap();
    let verdicts: Vec<serde_json::Value> = ledger
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["verdict"].clone())
        .collect();
    assert_eq!(verdicts, ["inconclusive", "inconclusive"]);
    let show = run(
        dir.path(),
        &["ledger", "show", "ledger.jsonl", "--format", "json"],
    );
    assert_eq!(show.code, 0, "{}", show.stderr);
    let summary: serde_json::Value = serde_json::from_str(&show.stdout).unwrap();
    let text = summary.to_string();
    assert!(text.contains("\"attempts\":2"), "{text}");
    assert!(text.contains("\"next_attempt\":3"), "{text}");
}

#[test]
fn a_candidate_better_overall_but_regressed_on_one_kind_stays_refused_with_no_tasks_needed() {
    // b 6, c 12: p_improvement 0.119, not significant, and the year kind lost all six of
    // its pairs (p_regression 2^-6): refused, whatever more tasks would show.
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 0, 1); 12];
    rows.extend([("year", 1, 0); 6]);
    scores(dir.path(), &rows, true);
    let out = admit(dir.path(), &with(&["--strata", "kind", "--format", "json"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["verdict"], "refused");
    assert!(report["tasks_needed"].is_null());
}

#[test]
fn ten_score_pairs_each_up_a_hundredth_claim_no_fifty_percent_floor() {
    let dir = tempfile::tempdir().unwrap();
    let (mut base, mut cand) = ("task_id,score\n".to_string(), "task_id,score\n".to_string());
    for i in 0..10 {
        base.push_str(&format!("t{i},0.5\n"));
        cand.push_str(&format!("t{i},0.51\n"));
    }
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let out = admit(dir.path(), &with(&[]));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // 2^-10 = 0.0009766.
    assert!(
        out.stdout.contains("improvement 0.0009766"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("no shift smaller than"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("50.0%"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("as few as 5 non-zero differences all one way"),
        "{}",
        out.stdout
    );
    let report = json(&admit(dir.path(), &with(&["--format", "json"])));
    assert!(report["min_detectable_shift"].is_null());
    assert_eq!(report["min_discordant"], 5);
}

#[test]
fn admits_five_aligned_wins_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 5], true);
    let out = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["verdict"], "admitted");
    // 2^-5.
    assert_eq!(report["p_improvement"], 0.03125);
    assert_eq!(report["test"]["name"], "mcnemar");
    assert_eq!(report["test"]["method"], "exact");
    assert_eq!(report["schema"], "evogate/admission/v1");
    assert_eq!(
        report["evidence"][1]["criterion"],
        "improvement-significant"
    );
    assert_eq!(report["evidence"][1]["result"], "pass");
    assert_eq!(
        report["evidence"][1]["proof"],
        "p_improvement 0.03125 < alpha 0.05 (McNemar exact, b 0, c 5)"
    );
}

#[test]
fn refuses_six_identical_pairs_and_gives_their_minimum_detectable_shift() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 1, 1); 6], true);
    let out = admit(dir.path(), &with(&[]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("refused: 1 of 3 criteria fail\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("minimum detectable shift 0.8333 "));
    let report = json(&admit(dir.path(), &with(&["--format", "json"])));
    // Five discordant pairs is the fewest with 0.5^k < 0.05; 5/6 = 0.833333333333 to 12
    // significant digits.
    assert_eq!(report["min_detectable_shift"], 0.833333333333);
    assert_eq!(report["p_improvement"], 1.0);
}

#[test]
fn refuses_a_candidate_better_overall_but_worse_on_one_kind_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for kind in ["id", "title", "first_author"] {
        rows.extend([(kind, 0, 1); 10]);
    }
    rows.extend([("year", 1, 0); 6]);
    scores(dir.path(), &rows, true);
    let out = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    // Overall b 6, c 30: P(X >= 30 | n 36) = 298937 / 2^33 = 3.48008470610e-05.
    assert_eq!(report["p_improvement"], 3.4800847061e-5);
    let year = report["strata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["value"] == "year")
        .unwrap();
    assert_eq!(year["significant_regression"], true);
    assert_eq!(year["p_regression"], 0.015625);
    assert_eq!(year["name"], "kind");
    assert_eq!(year["n"], 6);
    let reasons = report["reasons"].as_array().unwrap();
    assert_eq!(reasons.len(), 1);
    assert!(
        reasons[0]
            .as_str()
            .unwrap()
            .contains("regressed significantly on kind=year"),
        "{reasons:?}"
    );
}

#[test]
fn the_same_sweep_as_scores_only_reaches_the_same_verdicts_through_signed_rank() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 5], false);
    let out = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["test"]["name"], "signed-rank");
    assert_eq!(report["test"]["zero_method"], "wilcox");
    assert_eq!(report["p_improvement"], 0.03125);
    assert_eq!(report["discordant"], serde_json::Value::Null);
    let mut rows = vec![("id", 0, 1)];
    rows.extend([("id", 0, 0); 5]);
    scores(dir.path(), &rows, false);
    let out = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(out.code, 1);
    assert_eq!(json(&out)["p_improvement"], 0.5);
}

#[test]
fn task_sets_that_differ_exit_2_naming_how_many_and_the_first_missing() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "b.csv",
        "task_id,score\na,1\nb,1\nc,1\nd,1\ne,1\nf,1\ng,1\n",
    );
    write(dir.path(), "c.csv", "task_id,score\na,1\n");
    let out = admit(dir.path(), &with(&[]));
    assert_input_error(
        &out,
        &[
            "`c.csv` lacks 6 tasks that `b.csv` has",
            "(first: `b` (row 3), `c` (row 4), `d` (row 5), `e` (row 6), `f` (row 7), ...)",
            "--tasks",
        ],
    );
}

#[test]
fn bad_scores_and_settings_exit_2_naming_file_row_and_task() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", "task_id,score\na,1\nb,1.4\n");
    write(dir.path(), "c.csv", "task_id,score\na,1\nb,1\n");
    assert_input_error(
        &admit(dir.path(), &with(&[])),
        &["`b.csv` row 3", "`b`", "`1.4` is outside [0, 1]"],
    );
    write(dir.path(), "b.csv", "task_id,score\na,1\na,0\n");
    assert_input_error(
        &admit(dir.path(), &with(&[])),
        &["`a` appears twice (rows 2 and 3)"],
    );
    write(dir.path(), "b.csv", "task_id,score\na,1\nb,0\n");
    assert_input_error(
        &admit(dir.path(), &with(&["--test", "mcnemar"])),
        &["`correct`"],
    );
    assert_input_error(
        &admit(dir.path(), &with(&["--alpha", "0.7"])),
        &["--alpha 0.7"],
    );
    assert_input_error(
        &admit(dir.path(), &with(&["--margin", "1.5"])),
        &["--margin 1.5"],
    );
    assert_input_error(
        &admit(dir.path(), &with(&["--strata", "topic"])),
        &["--strata topic"],
    );
    assert_input_error(
        &admit(
            dir.path(),
            &["--baseline", "nope.csv", "--candidate", "c.csv"],
        ),
        &["nope.csv"],
    );
}

/// The five-win case with a hostile feedback and stratum, the baseline's rows in
/// `order` and the candidate's in the reverse of it.
fn hostile(order: &[usize]) -> (String, String) {
    let header = "task_id,group,kind,correct,score,feedback\n";
    let evil = "\"=HYPERLINK(\"\"x\"\") | `rm` <script>alert(1)</script> @someone #12\nnext line\"";
    let rows: Vec<(String, String)> = (0..7)
        .map(|i| {
            let kind = if i < 6 { "id" } else { "=cmd|' /C calc'!A0" };
            let (b, c) = if i < 5 { (0, 1) } else { (1, 1) };
            let kind_cell = if kind.contains(['|', '\'', ' ']) {
                format!("\"{kind}\"")
            } else {
                kind.to_string()
            };
            let lost = if i == 6 { 0.5 } else { f64::from(c) };
            (
                format!("t{i}:x,g{i},{kind_cell},{b},{b},fine\n"),
                format!("t{i}:x,g{i},{kind_cell},{c},{lost},{evil}\n"),
            )
        })
        .collect();
    let mut base = header.to_string();
    let mut cand = header.to_string();
    for &i in order {
        base.push_str(&rows[i].0);
    }
    for &i in order.iter().rev() {
        cand.push_str(&rows[i].1);
    }
    (base, cand)
}

#[test]
fn same_inputs_give_the_same_bytes_in_every_report_file_whatever_the_row_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut folders = Vec::new();
    for (index, order) in [[0, 1, 2, 3, 4, 5, 6], [6, 4, 2, 0, 5, 3, 1]]
        .iter()
        .enumerate()
    {
        let (base, cand) = hostile(order);
        write(dir.path(), "b.csv", &base);
        write(dir.path(), "c.csv", &cand);
        let out_dir = format!("r{index}");
        let out = admit(dir.path(), &with(&["--report-dir", &out_dir]));
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        folders.push(dir.path().join(out_dir));
    }
    let names = ["admission.json", "admission.md", "pairs.csv"];
    for name in names {
        let first = fs::read(folders[0].join(name)).unwrap();
        let second = fs::read(folders[1].join(name)).unwrap();
        assert!(!first.is_empty());
        // The inputs' digests differ with the row order, so compare everything else.
        let strip = |bytes: &[u8]| -> String {
            String::from_utf8_lossy(bytes)
                .lines()
                .filter(|l| !l.contains("sha256") && !l.contains("` |"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&first), strip(&second), "{name} depends on row order");
    }
    let rerun = admit(dir.path(), &with(&["--report-dir", "r1b"]));
    assert_eq!(rerun.code, 0);
    for name in names {
        assert_eq!(
            fs::read(folders[1].join(name)).unwrap(),
            fs::read(dir.path().join("r1b").join(name)).unwrap(),
            "{name} differs between two runs on the same files"
        );
    }
}

#[test]
fn model_text_renders_inert_in_markdown_and_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (base, cand) = hostile(&[0, 1, 2, 3, 4, 5, 6]);
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let out = admit(dir.path(), &with(&["--report-dir", "r"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let md = fs::read_to_string(dir.path().join("r/admission.md")).unwrap();
    assert!(md.starts_with("## evogate admit: admitted\n"), "{md}");
    assert!(!md.contains("<script>"), "{md}");
    assert!(md.contains("\\<script\\>"));
    assert!(!md.contains("@someone") && md.contains("@\u{200D}someone"));
    assert!(!md.contains("#12") && md.contains("\\#\u{200D}12"));
    assert!(md.contains("\\`rm\\`"));
    assert!(!md.lines().any(|l| l.starts_with("next line")), "{md}");
    // Every table row keeps its column count: no `|` from the text splits a cell.
    for table_row in md.lines().filter(|l| l.starts_with('|')) {
        let cells = table_row.replace("\\|", "").matches('|').count();
        assert!(
            [4, 6, 8].contains(&cells),
            "{cells} separators in {table_row}"
        );
    }
    let loss = md
        .lines()
        .find(|l| l.starts_with("| t6:x"))
        .expect("the loss is listed");
    assert!(loss.contains("\\=cmd\\|"), "{loss}");
    let csv = fs::read_to_string(dir.path().join("r/pairs.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("t6:x")).unwrap();
    // Nothing reads pairs.csv back: the stratum is guarded like free text.
    assert!(row.contains(",'=cmd|' /C calc'!A0,"), "{row}");
    assert!(csv.contains("\"'=HYPERLINK(\"\"x\"\")"), "{csv}");
    let svg = fs::read_to_string(dir.path().join("r/strata.svg")).unwrap();
    assert!(svg.contains("kind==cmd|&apos; /C calc&apos;!A0"), "{svg}");
}

#[test]
fn the_report_folder_holds_the_reports_and_three_plots() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 1, 1); 3];
    rows.extend([("id", 0, 1); 5]);
    rows.extend([("year", 0, 0); 2]);
    scores(dir.path(), &rows, true);
    let out = admit(dir.path(), &with(&["--report-dir", "r"]));
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("note: wrote 6 files to r"),
        "{}",
        out.stderr
    );
    assert_eq!(
        file_names(&dir.path().join("r")),
        [
            "admission.json",
            "admission.md",
            "outcomes.svg",
            "pairs.csv",
            "power.svg",
            "strata.svg"
        ]
    );
    // McNemar's four cells: both right 3, b 0, c 5, both wrong 2, drawn as bar labels.
    let outcomes = fs::read_to_string(dir.path().join("r/outcomes.svg")).unwrap();
    let labels: Vec<&str> = outcomes
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once('>')
                .map(|(_, rest)| rest.split('<').next().unwrap_or("").trim())
        })
        .collect();
    let tail: Vec<&str> = labels.iter().rev().take(4).rev().copied().collect();
    assert_eq!(tail, ["3", "0", "5", "2"], "{labels:?}");
    let strata = fs::read_to_string(dir.path().join("r/strata.svg")).unwrap();
    for label in ["overall", "kind=id", "kind=year"] {
        assert!(strata.contains(label), "{label} missing from strata.svg");
    }
    let pairs = fs::read_to_string(dir.path().join("r/pairs.csv")).unwrap();
    assert_eq!(pairs.lines().count(), 11);
}

/// Runs `admit` with `args` in `dir`, with the GitHub step summary at `summary`.
fn admit_into_step_summary(dir: &Path, args: &[&str], summary: &Path) -> std::process::Output {
    evogate(dir)
        .arg("admit")
        .args(args)
        .env("GITHUB_STEP_SUMMARY", summary)
        .output()
        .unwrap()
}

#[test]
fn appends_the_markdown_report_to_the_github_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 5], true);
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "earlier step\n").unwrap();
    let output = admit_into_step_summary(dir.path(), &BC, &summary);
    assert_eq!(output.status.code(), Some(0));
    let text = fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("earlier step\n## evogate admit: admitted\n"),
        "{text}"
    );
    assert!(text.contains("| improvement-significant | pass |"));
}

/// Regression: a step summary naming the baseline had the report
/// appended to the CSV, and one naming the ledger broke the ledger. Both exit 2 before
/// anything is written, and the ledger records no attempt.
#[test]
fn a_github_step_summary_naming_an_input_or_the_ledger_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 5], true);
    let ledger = dir.path().join("ledger.jsonl");
    fs::write(&ledger, "").unwrap();
    let ids: Vec<String> = (0..5).map(|i| format!("p{i:02}:id")).collect();
    crate::util::write_manifest(dir.path(), &ids);
    for (input, option) in [("b.csv", "(--baseline)"), ("ledger.jsonl", "(--ledger)")] {
        let path = dir.path().join(input);
        let before = fs::read(&path).unwrap();
        let args = with(&crate::util::LEDGER_WITH_MANIFEST);
        let output = admit_into_step_summary(dir.path(), &args, &path);
        crate::util::assert_step_summary_refused(&output, option);
        assert_eq!(fs::read(&path).unwrap(), before, "{input}");
    }
    assert_eq!(fs::read(&ledger).unwrap(), b"");
}

#[test]
fn a_margin_asks_non_inferiority_and_refuses_naming_the_stratum_that_cannot_rule_out_the_loss() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 0, 1); 20];
    rows.extend([("year", 1, 0); 2]);
    rows.extend([("year", 1, 1); 3]);
    scores(dir.path(), &rows, true);
    let out = admit(dir.path(), &with(&["--margin", "0.05", "--format", "json"]));
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    let reason = report["reasons"][0].as_str().unwrap();
    assert!(
        reason.starts_with(
            "Cannot rule out a loss of 0.05 or more in proportion correct on kind=year: p_noninferiority "
        ),
        "{reason}"
    );
    assert_eq!(report["margin"], 0.05);
    assert_eq!(report["question"]["name"], "non-inferiority");
    assert_eq!(report["question"]["margin"], 0.05);
    assert_eq!(report["evidence"][1]["criterion"], "non-inferiority-shown");
    assert_eq!(report["evidence"][1]["result"], "pass");
    assert_eq!(report["evidence"][2]["criterion"], "margin-holds");
    assert_eq!(report["evidence"][2]["result"], "fail");
    let text = admit(dir.path(), &with(&["--margin", "0.05"]));
    assert!(
        text.stdout.contains(
            "question:   non-inferiority at margin 0.05: is the candidate worse than the baseline by less than 0.05? -> non-inferiority at margin 0.05 not shown\n"
        ),
        "{}",
        text.stdout
    );
    let markdown = admit(
        dir.path(),
        &with(&["--margin", "0.05", "--format", "markdown"]),
    );
    assert!(
        markdown.stdout.contains(
            "**Question:** non-inferiority at margin 0.05: is the candidate worse than the baseline by less than 0.05? **Verdict: non-inferiority at margin 0.05 not shown.**"
        ),
        "{}",
        markdown.stdout
    );
    // Non-inferiority with a cluster test of improvement asks two questions at once.
    let both = admit(
        dir.path(),
        &with(&["--margin", "0.05", "--cluster", "group"]),
    );
    assert_eq!(both.code, 2);
    assert!(
        both.stderr
            .contains("--cluster tests improvement on clusters"),
        "{}",
        both.stderr
    );
}

#[test]
fn equivalence_is_the_question_of_two_one_sided_tests_and_exit_zero_means_it_was_shown() {
    let dir = tempfile::tempdir().unwrap();
    // 400 tasks, 20 won, 20 lost, 360 unchanged: the candidate changes nothing.
    let mut rows = vec![("id", 0, 1); 20];
    rows.extend([("id", 1, 0); 20]);
    rows.extend([("id", 1, 1); 360]);
    scores(dir.path(), &rows, true);
    let same = admit(
        dir.path(),
        &with(&["--equivalence", "0.1", "--format", "json"]),
    );
    assert_eq!(same.code, 0, "{}", same.stdout);
    let report = json(&same);
    assert_eq!(report["question"]["name"], "equivalence");
    assert_eq!(report["verdict"], "admitted");
    assert_eq!(report["evidence"][1]["criterion"], "equivalence-shown");
    let tests = &report["margin_tests"];
    let p = tests["p_equivalence"].as_f64().unwrap();
    assert!(
        p < 0.05
            && p == tests["p_noninferiority"]
                .as_f64()
                .unwrap()
                .max(tests["p_nonsuperiority"].as_f64().unwrap()),
        "{tests}"
    );
    // Asked for superiority, the same pairs are refused: exit 1.
    assert_eq!(admit(dir.path(), &with(&[])).code, 1);
    let none = admit(dir.path(), &with(&["--equivalence", "0"]));
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("--equivalence 0.0 is outside (0, 1)"),
        "{}",
        none.stderr
    );
    let two = admit(
        dir.path(),
        &with(&["--equivalence", "0.1", "--margin", "0.1"]),
    );
    assert_eq!(two.code, 2);
}

#[test]
fn the_holdout_from_split_is_checked_by_task_list_and_digest() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::split_24(dir.path());
    let holdout = fs::read_to_string(dir.path().join("s/holdout.csv")).unwrap();
    let ids = crate::util::first_column(&dir.path().join("s/holdout.csv"));
    assert_eq!(ids.len(), 6);
    let mut base = "task_id,correct,score\n".to_string();
    let mut cand = base.clone();
    for id in &ids {
        base.push_str(&format!("{id},0,0\n"));
        cand.push_str(&format!("{id},1,1\n"));
    }
    base.push_str("9999.99999:id,1,1\n");
    cand.push_str("9999.99999:id,1,1\n");
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let pinned = with(&[
        "--tasks",
        "s/holdout.csv",
        "--manifest",
        "s/manifest.json",
        "--format",
        "json",
    ]);
    let out = admit(dir.path(), &pinned);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let report = json(&out);
    assert_eq!(report["n"], 6);
    assert_eq!(report["evidence"][3]["criterion"], "holdout-intact");
    assert_eq!(report["evidence"][3]["result"], "pass");
    assert_eq!(report["inputs"][2]["role"], "tasks");
    assert_eq!(report["inputs"][2]["path"], "s/holdout.csv");
    // Without --tasks the extra task is used, and the holdout is no longer intact.
    let out = admit(
        dir.path(),
        &with(&["--manifest", "s/manifest.json", "--format", "json"]),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["evidence"][3]["result"], "fail");
    assert!(
        report["evidence"][3]["proof"]
            .as_str()
            .unwrap()
            .contains("1 task not in the holdout used (first: 9999.99999:id)")
    );
    // An edited holdout file no longer has the recorded digest.
    let mut edited = holdout.clone();
    edited.push('\n');
    write(dir.path(), "s/holdout.csv", &edited);
    let out = admit(dir.path(), &pinned);
    assert_eq!(out.code, 1);
    assert!(
        json(&out)["evidence"][3]["proof"]
            .as_str()
            .unwrap()
            .contains("differs from the recorded")
    );
}

#[test]
fn strata_none_tests_the_whole_set_and_markdown_goes_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![("id", 0, 1); 6];
    rows.extend([("year", 1, 0); 5]);
    scores(dir.path(), &rows, true);
    // By kind, five losses of five on year refuse (2^-5 < 0.05).
    let by_kind = admit(dir.path(), &with(&["--format", "json"]));
    assert_eq!(by_kind.code, 1);
    assert_eq!(json(&by_kind)["strata_column"], "kind");
    // As one set, b 5 and c 6: P(X >= 6 | n 11) = 1024 / 2048 = 0.5, not an improvement.
    let whole = admit(dir.path(), &with(&["--strata", "none", "--format", "json"]));
    assert_eq!(whole.code, 1);
    let report = json(&whole);
    assert_eq!(report["strata_column"], serde_json::Value::Null);
    assert_eq!(report["strata"].as_array().unwrap().len(), 0);
    assert_eq!(report["p_improvement"], 0.5);
    assert_eq!(report["evidence"][2]["result"], "pass");
    let markdown = admit(dir.path(), &with(&["--format", "markdown"]));
    assert_eq!(markdown.code, 1);
    assert!(markdown.stdout.starts_with("## evogate admit: refused\n"));
    assert!(
        markdown.stdout.contains("| year | 5 | 5 (1) | 0 (0) |"),
        "{}",
        markdown.stdout
    );
}

#[test]
fn a_task_list_leaves_other_rows_out_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 7], true);
    write(
        dir.path(),
        "tasks.csv",
        "task_id\np00:id\np01:id\np02:id\np03:id\np04:id\n",
    );
    let out = admit(
        dir.path(),
        &with(&["--tasks", "tasks.csv", "--format", "json"]),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["n"], 5);
    assert!(
        report["evidence"][0]["proof"]
            .as_str()
            .unwrap()
            .ends_with("(2 other baseline rows and 2 other candidate rows left out)")
    );
    write(dir.path(), "tasks.csv", "task_id\np00:id\nq9:id\n");
    assert_input_error(
        &admit(dir.path(), &with(&["--tasks", "tasks.csv"])),
        &["`b.csv` lacks 1 task that `tasks.csv` has (first: `q9:id` (row 3))"],
    );
}

/// Without a report folder only the feedback of lost pairs is kept (a million pairs'
/// feedback would be most of the memory); what the reports show must not change.
#[test]
fn the_reports_show_the_same_losses_with_and_without_a_report_folder() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = String::from("task_id,kind,score,feedback\n");
    let mut cand = base.clone();
    // 30 tasks in scrambled order, 12 of them lost by three margins (many tied).
    for i in 0..30_usize {
        let task = format!("t{:02}:{}", (i * 7) % 30, ["id", "year"][i % 2]);
        let (b, c) = match i % 5 {
            0 | 1 => (1.0, 0.25 * (i % 3) as f64),
            2 => (0.5, 0.5),
            _ => (0.25, 0.75),
        };
        base.push_str(&format!(
            "{task},{},{b},base says {i}\n",
            ["id", "year"][i % 2]
        ));
        cand.push_str(&format!(
            "{task},{},{c},\"cand, {i}\"\n",
            ["id", "year"][i % 2]
        ));
    }
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let bare = admit(dir.path(), &with(&["--format", "json"]));
    let folder = admit(
        dir.path(),
        &with(&["--format", "json", "--report-dir", "r"]),
    );
    assert_eq!(bare.code, folder.code, "{}", bare.stderr);
    let report = json(&bare);
    assert_eq!(report, json(&folder));
    let losses = report["losses"].as_array().unwrap();
    assert_eq!(losses.len(), 10);
    assert_eq!(losses[0]["baseline_score"], 1.0);
    assert_eq!(losses[0]["candidate_score"], 0.0);
    assert!(losses.iter().all(|l| {
        l["candidate_feedback"]
            .as_str()
            .is_some_and(|f| f.starts_with("cand, "))
    }));
    let pairs = fs::read_to_string(dir.path().join("r/pairs.csv")).unwrap();
    assert!(pairs.contains("base says 2,\"cand, 2\""), "{pairs}");
}

#[test]
fn an_admission_beside_an_interval_holding_zero_says_why_the_test_and_the_interval_differ() {
    // Small score gains on most tasks and one loss of 0.1 in seven: the signed ranks
    // lean positive (admitted), while the betting interval for the mean holds 0.
    let dir = tempfile::tempdir().unwrap();
    let gains = [0.02, 0.03, 0.05, -0.01, 0.0, 0.04, -0.1];
    let (mut base, mut cand) = ("task_id,score\n".to_string(), "task_id,score\n".to_string());
    for i in 0..60 {
        let x = ((i * 37) % 80) as f64 / 100.0;
        let y = (x + gains[i % 7]).clamp(0.0, 1.0);
        base.push_str(&format!("t{i:02},{x}\n"));
        cand.push_str(&format!("t{i:02},{y:.2}\n"));
    }
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let files = ["--baseline", "b.csv", "--candidate", "c.csv"];
    let report: serde_json::Value = serde_json::from_str(
        &admit(dir.path(), &[&files[..], &["--format", "json"]].concat()).stdout,
    )
    .unwrap();
    assert_eq!(report["verdict"], "admitted", "{report}");
    assert!(report["delta"]["low"].as_f64().unwrap() < 0.0, "{report}");
    let why = "The 90% interval holds 0 although the improvement is significant: the signed-rank test asks whether the differences lean positive by their ranks, while the interval bounds the mean score difference";
    let text = admit(dir.path(), &files);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains(why), "{}", text.stdout);
    let markdown = admit(
        dir.path(),
        &[&files[..], &["--format", "markdown"]].concat(),
    );
    assert!(markdown.stdout.contains(why), "{}", markdown.stdout);
    // An admission whose interval is above 0 says nothing of the kind.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("reports/demo");
    let clear = admit(
        &demo,
        &[
            "--baseline",
            "baseline-scores.csv",
            "--candidate",
            "candidate-scores.csv",
        ],
    );
    assert_eq!(clear.code, 0, "{}", clear.stderr);
    assert!(
        !clear.stdout.contains("interval holds 0"),
        "{}",
        clear.stdout
    );
}

/// The task list's line in a Markdown report's inputs table.
fn tasks_row(markdown: &str) -> Option<&str> {
    markdown
        .lines()
        .find(|l| l.starts_with("| tasks | t.csv |"))
}

#[test]
fn the_task_list_s_digest_is_in_every_output_that_lists_the_inputs_and_text_reads_alike_without_it()
{
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), &[("id", 0, 1); 6], true);
    let list: String = (0..6).map(|i| format!("p{i:02}:id,prompt {i}\n")).collect();
    let list = format!("task_id,prompt\n{list}");
    write(dir.path(), "t.csv", &list);
    let sha = evogate::digest::sha256_hex(list.as_bytes());
    let row = format!("| tasks | t.csv | `{sha}` |");
    let listed = with(&["--tasks", "t.csv"]);
    // JSON and Markdown on stdout.
    let out = admit(
        dir.path(),
        &[listed.clone(), vec!["--format", "json"]].concat(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["inputs"][2]["role"], "tasks");
    assert_eq!(report["inputs"][2]["sha256"], sha.as_str());
    let out = admit(
        dir.path(),
        &[listed.clone(), vec!["--format", "markdown"]].concat(),
    );
    assert_eq!(tasks_row(&out.stdout), Some(row.as_str()), "{}", out.stdout);
    // The report folder and the step summary of a text run.
    let out = admit(
        dir.path(),
        &[listed.clone(), vec!["--report-dir", "r"]].concat(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let folder = fs::read_to_string(dir.path().join("r/admission.json")).unwrap();
    assert!(folder.contains(&sha), "{folder}");
    let summary = dir.path().join("summary.md");
    let output = admit_into_step_summary(dir.path(), &listed, &summary);
    assert_eq!(output.status.code(), Some(0));
    let written = fs::read_to_string(&summary).unwrap();
    assert_eq!(tasks_row(&written), Some(row.as_str()), "{written}");
    // A text run without any of them prints what it prints with the step summary.
    let plain = admit(dir.path(), &listed);
    assert_eq!(plain.stdout, String::from_utf8_lossy(&output.stdout));
    assert_eq!(plain.code, 0);
}

#[test]
fn the_manifest_s_digest_is_in_the_json_report_and_the_step_summary_of_a_text_run() {
    let dir = tempfile::tempdir().unwrap();
    crate::util::split_24(dir.path());
    let ids = crate::util::first_column(&dir.path().join("s/holdout.csv"));
    let mut base = "task_id,correct,score\n".to_string();
    let mut cand = base.clone();
    for id in &ids {
        base.push_str(&format!("{id},0,0\n"));
        cand.push_str(&format!("{id},1,1\n"));
    }
    write(dir.path(), "b.csv", &base);
    write(dir.path(), "c.csv", &cand);
    let manifest = fs::read(dir.path().join("s/manifest.json")).unwrap();
    let sha = evogate::digest::sha256_hex(&manifest);
    let pinned = with(&["--manifest", "s/manifest.json"]);
    let out = admit(
        dir.path(),
        &[pinned.clone(), vec!["--format", "json"]].concat(),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let report = json(&out);
    assert_eq!(report["inputs"][2]["role"], "manifest");
    assert_eq!(report["inputs"][2]["sha256"], sha.as_str());
    let summary = dir.path().join("summary.md");
    let output = admit_into_step_summary(dir.path(), &pinned, &summary);
    assert_eq!(output.status.code(), Some(0));
    let written = fs::read_to_string(&summary).unwrap();
    let row = format!("| manifest | s/manifest.json | `{sha}` |");
    assert!(written.lines().any(|l| l == row), "{written}");
    let plain = admit(dir.path(), &pinned);
    assert_eq!(plain.stdout, String::from_utf8_lossy(&output.stdout));
}
