//! `admit --summary`: a summary document written by hand (the statistics counted on
//! paper, not by evogate) decides as `admit` on the files it summarises.

use crate::util::{
    LEDGER_WITH_MANIFEST, assert_input_error, evidence, file_names, first_column, run, write,
    write_manifest,
};

/// Five papers of four tasks each; the candidate wins every task of four papers and
/// loses every task of the fifth.
fn files(dir: &std::path::Path) {
    let mut base = String::from("task_id,group,kind,correct,score\n");
    let mut cand = base.clone();
    for paper in 0..5 {
        for kind in ["id", "title", "first_author", "year"] {
            let (b, c) = if paper < 4 { (0, 1) } else { (1, 0) };
            base.push_str(&format!("p{paper}:{kind},p{paper},{kind},{b},{b}\n"));
            cand.push_str(&format!("p{paper}:{kind},p{paper},{kind},{c},{c}\n"));
        }
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

/// The same pairs counted by hand: 16 wins (+1), 4 losses (−1), b 4, c 16; clusters
/// p0..p3 +4 each, p4 −4; the holdout digest is SHA-256 of the 20 sorted ids joined
/// by newlines (Python's hashlib).
fn document(schema: &str) -> String {
    let mut clusters: Vec<String> = (0..4)
        .map(|p| format!(r#"{{"group": "p{p}", "n": 4, "difference_sum_micros": 4000000}}"#))
        .collect();
    clusters.push(r#"{"group": "p4", "n": 4, "difference_sum_micros": -4000000}"#.to_string());
    format!(
        r#"{{
  "schema": "{schema}",
  "baseline": "b.csv",
  "candidate": "c.csv",
  "pairing": {{"baseline_rows": 20, "candidate_rows": 20, "baseline_duplicates": 0,
               "candidate_duplicates": 0, "baseline_only": 0, "candidate_only": 0,
               "stratum_disagreements": 0}},
  "correct": {{"baseline": true, "candidate": true}},
  "holdout_sha256": "924f9df463e2ba50cdb690113945463341803eefa56f4c4b2d25b70a2c89fea9",
  "overall": {{"n": 20, "baseline_sum_micros": 4000000, "candidate_sum_micros": 16000000,
              "outcomes": {{"both_right": 0, "baseline_only": 4, "candidate_only": 16, "both_wrong": 0}},
              "differences": [[1000000, 16], [-1000000, 4]]}},
  "strata": null,
  "clusters": [{}]
}}"#,
        clusters.join(", ")
    )
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn a_summary_counted_by_hand_decides_as_admit_on_the_files() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    write(dir.path(), "s.json", &document("evogate/summary/v1"));
    for extra in [&[][..], &["--cluster", "group"][..]] {
        let mut raw_args = vec!["admit", "--baseline", "b.csv", "--candidate", "c.csv"];
        raw_args.extend_from_slice(&["--strata", "none", "--format", "json"]);
        raw_args.extend_from_slice(extra);
        let mut summary_args = vec!["admit", "--summary", "s.json", "--format", "json"];
        summary_args.extend_from_slice(extra);
        let (raw, summary) = (run(dir.path(), &raw_args), run(dir.path(), &summary_args));
        assert_eq!(summary.code, raw.code, "{}", summary.stderr);
        let (mut raw, mut summary) = (json(&raw.stdout), json(&summary.stdout));
        assert_eq!(summary["inputs"][0]["role"], "summary");
        assert!(
            summary["evidence"][0]["proof"]
                .as_str()
                .unwrap()
                .contains("summary: 20 baseline and 20 candidate rows, 0 duplicates")
        );
        assert_eq!(summary["losses"], serde_json::json!([]));
        assert_ne!(raw["losses"], serde_json::json!([]));
        for value in [&mut raw, &mut summary] {
            let object = value.as_object_mut().unwrap();
            for key in ["inputs", "losses"] {
                object.remove(key);
            }
            object["evidence"].as_array_mut().unwrap().remove(0);
        }
        assert_eq!(summary, raw);
    }
}

#[test]
fn a_summary_report_folder_has_no_pairs_and_says_why_no_losses_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.json", &document("evogate/summary/v1"));
    let done = run(
        dir.path(),
        &["admit", "--summary", "s.json", "--report-dir", "out"],
    );
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert_eq!(
        file_names(&dir.path().join("out")),
        [
            "admission.json",
            "admission.md",
            "outcomes.svg",
            "power.svg",
            "strata.svg"
        ]
    );
    let markdown = std::fs::read_to_string(dir.path().join("out/admission.md")).unwrap();
    assert!(markdown.contains("the tasks the candidate lost are not listed"));
}

#[test]
fn a_summary_spends_the_ledger_of_the_same_holdout_as_the_files() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    write(dir.path(), "s.json", &document("evogate/summary/v1"));
    write_manifest(dir.path(), &first_column(&dir.path().join("b.csv")));
    let first = run(
        dir.path(),
        &ledgered(&["--baseline", "b.csv", "--candidate", "c.csv"]),
    );
    let second = run(dir.path(), &ledgered(&["--summary", "s.json"]));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let (first, second) = (json(&first.stdout), json(&second.stdout));
    assert_eq!(first["ledger"]["attempt"], 1);
    assert_eq!(second["ledger"]["attempt"], 2);
    assert_eq!(
        second["ledger"]["holdout_sha256"],
        first["ledger"]["holdout_sha256"]
    );
    // The summary's digest was checked against the manifest's holdout.
    let intact = evidence(&second, "holdout-intact").unwrap();
    assert_eq!(intact["result"], "pass", "{intact}");
}

/// `admit ARGS --ledger ledger.jsonl --manifest manifest.json --format json`.
fn ledgered<'a>(args: &[&'a str]) -> Vec<&'a str> {
    [
        &["admit"],
        args,
        &LEDGER_WITH_MANIFEST[..],
        &["--format", "json"],
    ]
    .concat()
}

#[test]
fn the_ledger_needs_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    write(dir.path(), "s.json", &document("evogate/summary/v1"));
    for args in [
        &[
            "admit",
            "--baseline",
            "b.csv",
            "--candidate",
            "c.csv",
            "--ledger",
            "l.jsonl",
        ][..],
        &["admit", "--summary", "s.json", "--ledger", "l.jsonl"][..],
    ] {
        let done = run(dir.path(), args);
        assert_eq!(done.code, 2, "{}", done.stderr);
        assert!(done.stderr.contains("--manifest"), "{}", done.stderr);
        assert!(!dir.path().join("l.jsonl").exists());
    }
}

#[test]
fn renamed_tasks_or_a_forged_summary_digest_spend_on_the_manifests_holdout_and_are_refused() {
    // Regression: renamed tasks and a forged digest each restarted the spending at
    // attempt 1 of a "new" holdout.
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    write_manifest(dir.path(), &first_column(&dir.path().join("b.csv")));
    let real = run(
        dir.path(),
        &ledgered(&["--baseline", "b.csv", "--candidate", "c.csv"]),
    );
    assert_eq!(real.code, 0, "{}", real.stderr);
    let holdout = json(&real.stdout)["ledger"]["holdout_sha256"].clone();
    // Every task id renamed.
    for arm in ["b", "c"] {
        let text = std::fs::read_to_string(dir.path().join(format!("{arm}.csv"))).unwrap();
        write(
            dir.path(),
            &format!("{arm}2.csv"),
            &text.replace(':', "#2:"),
        );
    }
    let renamed = run(
        dir.path(),
        &ledgered(&["--baseline", "b2.csv", "--candidate", "c2.csv"]),
    );
    // A summary whose holdout_sha256 is forged.
    let forged = document("evogate/summary/v1").replace(
        "924f9df463e2ba50cdb690113945463341803eefa56f4c4b2d25b70a2c89fea9",
        &format!("{}1", "0".repeat(63)),
    );
    write(dir.path(), "forged.json", &forged);
    let summary = run(dir.path(), &ledgered(&["--summary", "forged.json"]));
    for (attempt, done) in [(2, &renamed), (3, &summary)] {
        assert_eq!(done.code, 1, "{}", done.stderr);
        let report = json(&done.stdout);
        assert_eq!(report["ledger"]["attempt"], attempt, "{report}");
        assert_eq!(report["ledger"]["holdout_sha256"], holdout);
        assert_eq!(report["verdict"], "refused");
        assert!(
            report["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r.as_str().unwrap().contains("holdout")),
            "{report}"
        );
    }
}

#[test]
fn a_summary_of_another_version_or_beside_score_files_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    write(dir.path(), "v2.json", &document("evogate/summary/v2"));
    let done = run(dir.path(), &["admit", "--summary", "v2.json"]);
    assert_input_error(
        &done,
        &[
            "v2.json",
            "schema `evogate/summary/v2` is not `evogate/summary/v1`",
        ],
    );
    let both = run(
        dir.path(),
        &["admit", "--summary", "v2.json", "--baseline", "b.csv"],
    );
    assert_eq!(both.code, 2);
    assert!(
        both.stderr.contains("cannot be used with"),
        "{}",
        both.stderr
    );
    write(dir.path(), "s.json", &document("evogate/summary/v1"));
    let strata = run(
        dir.path(),
        &["admit", "--summary", "s.json", "--strata", "topic"],
    );
    assert_input_error(
        &strata,
        &[
            "--strata topic: `s.json` is not stratified; give --strata none, or recompute the summary by `topic`",
        ],
    );
}

/// The characters of a regular-expression class written as `\x{H}` and `\x{H}-\x{H}`.
fn class_chars(class: &str) -> std::collections::BTreeSet<u32> {
    let mut chars = std::collections::BTreeSet::new();
    for item in class.split("\\x{").skip(1) {
        let (first, rest) = item.split_once('}').unwrap();
        let first = u32::from_str_radix(first, 16).unwrap();
        chars.insert(first);
        if let Some(last) = rest.strip_prefix('-') {
            // The range's end is the next item; it is inserted as an item itself.
            assert!(last.is_empty(), "{class}");
        }
    }
    // Fill the ranges: `\x{A}-\x{B}`.
    for range in class.split("}-\\x{").skip(1) {
        let end = u32::from_str_radix(range.split('}').next().unwrap(), 16).unwrap();
        let start = *chars.range(..end).next_back().unwrap();
        chars.extend(start..=end);
    }
    chars
}

#[test]
fn the_sql_trims_identifiers_exactly_as_the_reader_does() {
    // Regression: DuckDB's trim() keeps tab and CR, evogate's reader trims every
    // Unicode White_Space character, so the two paired different tasks.
    let sql = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sql/summary.sql"),
    )
    .unwrap();
    let at = sql
        .find("evogate_trim(x) AS regexp_replace(x,")
        .expect("the SQL trims identifiers with its evogate_trim macro");
    let pattern = sql[at..].split('\'').nth(1).unwrap();
    let (leading, trailing) = pattern.split_once("]+|[").unwrap();
    let (leading, trailing) = (
        leading.strip_prefix("^[").unwrap(),
        trailing.strip_suffix("]+$").unwrap(),
    );
    assert_eq!(leading, trailing);
    let class = class_chars(leading);
    let whitespace: std::collections::BTreeSet<u32> = (0..=0x10FFFF)
        .filter_map(char::from_u32)
        .filter(|c| c.is_whitespace())
        .map(u32::from)
        .collect();
    assert_eq!(class, whitespace);
    // Every identifier column goes through it, and nothing uses DuckDB's trim().
    for column in ["task_id", "kind", "\"group\""] {
        assert!(
            sql.contains(&format!("evogate_trim(CAST({column} AS VARCHAR))")),
            "{column}"
        );
    }
    assert!(!sql.contains(" trim(CAST"), "the SQL still calls trim()");
}
