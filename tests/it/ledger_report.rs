//! The report folder beside the ledger when a run dies between appending its attempt
//! and writing its report: the folder must never show an attempt older than the
//! ledger's newest on the holdout as if it were the latest. The death is made by the
//! debug build's testing hook (`EVOGATE_TEST_FAULT=write:kill`: SIGKILL to itself at
//! the first file of the new report, after the ledger's append), so no timing is
//! involved.

use std::fs;
use std::path::Path;

use crate::util::{run, ten_tasks, write, write_manifest};

/// `b.csv` (all wrong), `good.csv` (all right: admitted) and `poor.csv` (two right:
/// refused) on tasks t0..t9, and a manifest holding them as the holdout.
fn inputs(dir: &Path) {
    write(dir, "b.csv", &ten_tasks(&|_| 0));
    write(dir, "good.csv", &ten_tasks(&|_| 1));
    write(dir, "poor.csv", &ten_tasks(&|t| u8::from(t < 2)));
    write_manifest(dir, &(0..10).map(|t| format!("t{t}")).collect::<Vec<_>>());
}

fn admit(candidate: &str, sequential: bool) -> Vec<String> {
    let mut args = vec!["admit"];
    if sequential {
        args.push("--sequential");
    }
    args.extend([
        "--baseline",
        "b.csv",
        "--candidate",
        candidate,
        "--manifest",
        "manifest.json",
        "--ledger",
        "l.jsonl",
        "--report-dir",
        "rep",
    ]);
    args.into_iter().map(str::to_string).collect()
}

/// Runs `args` in `dir` with the hook killing the process at `fault`; asserts that it
/// was killed.
fn killed_at(dir: &Path, args: &[String], fault: &str) {
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("evogate"))
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("EVOGATE_TEST_FAULT", fault)
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        output.status.signal(),
        Some(9),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn ledger_lines(dir: &Path) -> usize {
    fs::read_to_string(dir.join("l.jsonl"))
        .unwrap()
        .lines()
        .count()
}

/// The attempt and verdict of the report in `rep/`, if there is one.
fn report(dir: &Path) -> Option<(u64, String)> {
    let text = fs::read_to_string(dir.join("rep/admission.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    Some((
        json["ledger"]["attempt"].as_u64().unwrap(),
        json["verdict"].as_str().unwrap().to_string(),
    ))
}

/// Names in `dir` that a run of evogate left beside its outputs.
fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("evogate"))
        .collect()
}

fn a_kill_after_the_append_leaves_no_report_older_than_the_ledger(sequential: bool, verdict: &str) {
    let dir = tempfile::tempdir().unwrap();
    inputs(dir.path());
    let first = run(dir.path(), &admit("good.csv", sequential));
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(report(dir.path()), Some((1, "admitted".to_string())));
    let second = admit("poor.csv", sequential);
    killed_at(dir.path(), &second, "write:kill");
    // The ledger holds the second attempt; the folder must not still show the first
    // one's `admitted` as the latest word on the holdout.
    assert_eq!(ledger_lines(dir.path()), 2);
    let shown = report(dir.path());
    assert!(
        shown.is_none() || shown.as_ref().is_some_and(|(attempt, _)| *attempt == 2),
        "the report folder shows {shown:?} while the ledger holds attempt 2"
    );
    // `ledger show` counts both attempts.
    let ledger = run(dir.path(), &["ledger", "show", "l.jsonl"]);
    assert_eq!(ledger.code, 0, "{}", ledger.stderr);
    assert!(ledger.stdout.contains("2 attempts"), "{}", ledger.stdout);
    // The same command again writes the second attempt's report, spends nothing, and
    // clears what the killed run left.
    let again = run(dir.path(), &second);
    assert_eq!(again.code, 1, "{}", again.stderr);
    assert_eq!(ledger_lines(dir.path()), 2);
    assert_eq!(report(dir.path()), Some((2, verdict.to_string())));
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn admit_killed_after_the_ledger_append_leaves_no_stale_report_and_the_rerun_writes_it() {
    // Two wins in ten at the second attempt's alpha: too few pairs to refuse.
    a_kill_after_the_append_leaves_no_report_older_than_the_ledger(false, "inconclusive");
}

#[test]
fn a_sequential_run_killed_after_the_ledger_append_leaves_no_stale_report() {
    a_kill_after_the_append_leaves_no_report_older_than_the_ledger(true, "refused");
}

#[test]
fn a_repeat_of_the_latest_attempt_keeps_its_report_when_killed() {
    // A repeat appends nothing, so the report folder (of that very attempt) stays.
    let dir = tempfile::tempdir().unwrap();
    inputs(dir.path());
    let args = admit("good.csv", false);
    let first = run(dir.path(), &args);
    assert_eq!(first.code, 0, "{}", first.stderr);
    killed_at(dir.path(), &args, "write:kill");
    assert_eq!(ledger_lines(dir.path()), 1);
    assert_eq!(report(dir.path()), Some((1, "admitted".to_string())));
}

#[test]
fn a_stop_after_the_append_says_the_earlier_report_was_taken_out() {
    let dir = tempfile::tempdir().unwrap();
    inputs(dir.path());
    let first = run(dir.path(), &admit("good.csv", false));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("evogate"))
        .current_dir(dir.path())
        .args(admit("poor.csv", false))
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("EVOGATE_TEST_FAULT", "write:int")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "attempt 2 was recorded in `l.jsonl` and the report of an earlier attempt taken out of `rep` before the stop"
        ),
        "{stderr}"
    );
    assert_eq!(ledger_lines(dir.path()), 2);
    assert_eq!(report(dir.path()), None);
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}

#[test]
fn a_new_attempt_takes_out_only_the_earlier_reports_files_not_a_ledger_or_other_files_in_its_folder()
 {
    // Regression: the whole report folder was set aside and removed with the append,
    // the ledger kept in it and every other file of the user's with it.
    let dir = tempfile::tempdir().unwrap();
    inputs(dir.path());
    fs::create_dir(dir.path().join("rep")).unwrap();
    write(dir.path(), "rep/notes.txt", "kept\n");
    let args = |candidate: &str| {
        admit(candidate, false)
            .into_iter()
            .map(|arg| match arg.as_str() {
                "l.jsonl" => "rep/l.jsonl".to_string(),
                _ => arg,
            })
            .collect::<Vec<_>>()
    };
    let first = run(dir.path(), &args("good.csv"));
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = run(dir.path(), &args("poor.csv"));
    assert_eq!(second.code, 1, "{}", second.stderr);
    let ledger = fs::read_to_string(dir.path().join("rep/l.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 2);
    assert_eq!(
        fs::read_to_string(dir.path().join("rep/notes.txt")).unwrap(),
        "kept\n"
    );
    assert_eq!(report(dir.path()), Some((2, "inconclusive".to_string())));
    assert_eq!(leftovers(dir.path()), Vec::<String>::new());
}
