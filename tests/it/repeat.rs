//! `admit --ledger` run again on the same baseline, candidate and tasks: the attempt
//! already recorded stands, no new one is spent, and both the terminal and the reports
//! say so; another candidate file spends the next attempt.

use std::path::Path;

use crate::util::{run, write};

const BASELINE: &str = "task_id,correct,score\na,0,0\nb,0,0\nc,0,0\nd,0,0\ne,0,0\nf,1,1\n";
const CANDIDATE: &str = "task_id,correct,score\na,1,1\nb,1,1\nc,1,1\nd,1,1\ne,1,1\nf,1,1\n";

fn admit(dir: &Path, candidate: &str, extra: &[&str]) -> crate::util::Run {
    crate::util::write_manifest(dir, &["a", "b", "c", "d", "e", "f"]);
    let mut args = vec![
        "admit",
        "--baseline",
        "b.csv",
        "--candidate",
        candidate,
        "--ledger",
        "l.jsonl",
        "--manifest",
        "manifest.json",
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

fn json(result: &crate::util::Run) -> serde_json::Value {
    serde_json::from_str(&result.stdout).unwrap_or_else(|e| panic!("{e}: {}", result.stdout))
}

fn ledger_lines(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("l.jsonl"))
        .unwrap()
        .lines()
        .count()
}

#[test]
fn the_same_admit_twice_spends_one_attempt_and_says_so_and_another_candidate_spends_the_next() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", BASELINE);
    write(dir.path(), "c.csv", CANDIDATE);
    let first = admit(dir.path(), "c.csv", &["--format", "json"]);
    // b 0, c 5: p = 1/32 = 0.03125, above alpha_1 = 0.0304.
    assert_eq!(first.code, 1, "{}", first.stderr);
    let first = json(&first)["ledger"].clone();
    assert_eq!(first["attempt"], 1);
    assert_eq!(first["repeated"], false);
    let shown = run(
        dir.path(),
        &["ledger", "show", "l.jsonl", "--format", "json"],
    );
    let before = shown.stdout.clone();

    let again = admit(
        dir.path(),
        "c.csv",
        &["--format", "json", "--report-dir", "r"],
    );
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert!(
        again.stderr.contains(
            "these scores files were decided alike as attempt 1 on this holdout already; no new attempt is spent"
        ),
        "{}",
        again.stderr
    );
    let report = json(&again);
    let ledger = &report["ledger"];
    assert_eq!(ledger["attempt"], 1);
    assert_eq!(ledger["repeated"], true);
    assert_eq!(ledger["alpha_this_attempt"], first["alpha_this_attempt"]);
    assert_eq!(ledger["alpha_left"], first["alpha_left"]);
    assert_eq!(report["alpha"], first["alpha_this_attempt"]);
    assert_eq!(ledger_lines(dir.path()), 1, "no attempt was appended");
    let shown = run(
        dir.path(),
        &["ledger", "show", "l.jsonl", "--format", "json"],
    );
    assert_eq!(shown.stdout, before, "the alpha spent is unchanged");
    let markdown = std::fs::read_to_string(dir.path().join("r/admission.md")).unwrap();
    assert!(
        markdown.contains("Attempt 1 on this holdout, repeated (these scores files were decided alike on these tasks already, so this run spent no new attempt)"),
        "{markdown}"
    );
    let text = admit(dir.path(), "c.csv", &[]);
    assert!(
        text.stdout
            .contains("attempt 1 on this holdout, repeated (no new attempt spent)"),
        "{}",
        text.stdout
    );

    // Another candidate file is a new attempt, at alpha_2.
    write(dir.path(), "c2.csv", &CANDIDATE.replace("f,1,1", "f,0,0"));
    let other = admit(dir.path(), "c2.csv", &["--format", "json"]);
    let ledger = json(&other)["ledger"].clone();
    assert_eq!(ledger["attempt"], 2);
    assert_eq!(ledger["repeated"], false);
    assert_eq!(ledger_lines(dir.path()), 2);
    assert!(
        other
            .stderr
            .contains("ledger l.jsonl: attempt 2 on this holdout"),
        "{}",
        other.stderr
    );
}

#[test]
fn the_same_files_under_another_test_are_a_new_look_and_spend_an_attempt() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", BASELINE);
    write(dir.path(), "c.csv", CANDIDATE);
    assert_eq!(admit(dir.path(), "c.csv", &[]).code, 1);
    let signed = admit(
        dir.path(),
        "c.csv",
        &["--test", "signed-rank", "--format", "json"],
    );
    assert_eq!(json(&signed)["ledger"]["attempt"], 2);
    assert_eq!(ledger_lines(dir.path()), 2);
    // Each of the two is repeated from then on.
    let again = admit(
        dir.path(),
        "c.csv",
        &["--test", "signed-rank", "--format", "json"],
    );
    assert_eq!(json(&again)["ledger"]["attempt"], 2);
    assert_eq!(json(&again)["ledger"]["repeated"], true);
    let again = admit(dir.path(), "c.csv", &["--format", "json"]);
    assert_eq!(json(&again)["ledger"]["attempt"], 1);
    assert_eq!(ledger_lines(dir.path()), 2);
}

#[test]
fn admit_warns_of_a_torn_last_ledger_record_naming_its_row_even_when_it_repeats() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", BASELINE);
    write(dir.path(), "c.csv", CANDIDATE);
    assert_eq!(admit(dir.path(), "c.csv", &[]).code, 1);
    let ledger = dir.path().join("l.jsonl");
    let whole = std::fs::read_to_string(&ledger).unwrap();
    std::fs::write(&ledger, format!("{whole}{}", &whole[..30])).unwrap();
    let warning = "`l.jsonl` row 2: an append was cut short there; that partial record is skipped, and the next attempt recorded removes it";
    let repeat = admit(dir.path(), "c.csv", &[]);
    assert_eq!(repeat.code, 1, "{}", repeat.stderr);
    assert!(repeat.stderr.contains(warning), "{}", repeat.stderr);
    assert!(
        repeat.stderr.contains("no new attempt is spent"),
        "{}",
        repeat.stderr
    );
    // A repeat appends nothing, so the partial record is still there.
    assert_eq!(
        std::fs::read_to_string(&ledger).unwrap(),
        format!("{whole}{}", &whole[..30])
    );
}

#[test]
fn asking_non_inferiority_of_files_already_decided_for_superiority_spends_a_new_attempt() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", BASELINE);
    write(dir.path(), "c.csv", CANDIDATE);
    let superiority = admit(dir.path(), "c.csv", &["--format", "json"]);
    assert_eq!(json(&superiority)["ledger"]["attempt"], 1);
    // The same files and pairs, another question: a new look at the holdout.
    let margin = admit(
        dir.path(),
        "c.csv",
        &["--margin", "0.1", "--format", "json"],
    );
    let report = json(&margin);
    assert_eq!(report["ledger"]["attempt"], 2, "{}", margin.stdout);
    assert_eq!(report["ledger"]["repeated"], false);
    assert_eq!(ledger_lines(dir.path()), 2);
    let last: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(dir.path().join("l.jsonl"))
            .unwrap()
            .lines()
            .last()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(last["test"], "mcnemar non-inferiority 0.1");
    // The report rounds to 12 significant digits; the ledger keeps the double.
    let recorded = last["p_improvement"].as_f64().unwrap();
    let reported = report["margin_tests"]["p_noninferiority"].as_f64().unwrap();
    assert!(
        (recorded - reported).abs() < 1e-12 * reported,
        "{recorded} {reported}"
    );
}
