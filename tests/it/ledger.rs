//! `evogate ledger show` on ledgers written by the library's locked appends, and two
//! processes appending to one ledger at once.

use std::path::Path;

use evogate::admission::Verdict;
use evogate::atomic::ledger::record_attempt;
use evogate::digest::sha256_hex;
use evogate::ledger::{Decision, parse_ledger};

use crate::util::{ADMIT_B_C, LEDGER_WITH_MANIFEST, assert_input_error, run, write};

/// Set in the child processes of the concurrency test: the ledger to append to.
const CHILD_LEDGER: &str = "EVOGATE_LEDGER_CHILD";
/// Set with [`CHILD_LEDGER`]: the child's name, which becomes its baseline digest.
const CHILD_NAME: &str = "EVOGATE_LEDGER_CHILD_NAME";
/// Records each child appends.
const PER_CHILD: u64 = 500;

/// Appends `attempts` attempts on `holdout` to `path`, each with `n` pairs, admitting a
/// candidate when `p_improvement` is below the attempt's alpha.
fn fill(path: &Path, holdout: &str, attempts: u64, n: u64, p_improvement: f64) {
    for i in 0..attempts {
        record_attempt(path, holdout, 0.05, |attempt| {
            let verdict = if attempt.alpha.rejects(p_improvement) {
                Verdict::Admitted
            } else {
                Verdict::Refused
            };
            let decision = Decision {
                candidate_sha256: sha256_hex(format!("candidate {i}").as_bytes()),
                baseline_sha256: sha256_hex(b"baseline"),
                test: "mcnemar".into(),
                n,
                p_improvement,
                verdict: verdict.into(),
            };
            Ok((decision, ()))
        })
        .expect("the attempt is recorded");
    }
}

#[test]
fn shows_each_holdout_and_warns_when_the_next_attempt_cannot_reach_significance() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.jsonl");
    let small = sha256_hex(b"small holdout");
    let large = sha256_hex(b"large holdout");
    // At 12 pairs the best p is 0.5^12 = 0.000244; attempt 12 gets
    // 0.05 · 6 / (π² · 144) = 0.000211, so after 11 attempts the holdout is spent.
    fill(&ledger, &small, 11, 12, 0.5);
    fill(&ledger, &large, 1, 100, 0.001);
    let result = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_eq!(result.code, 0, "{}{}", result.stdout, result.stderr);
    let (first, second) = if small < large {
        (&small, &large)
    } else {
        (&large, &small)
    };
    assert!(
        result
            .stdout
            .starts_with("`ledger.jsonl`: 12 attempts on 2 holdouts\n"),
        "{}",
        result.stdout
    );
    let at_first = result.stdout.find(first.as_str()).unwrap();
    let at_second = result.stdout.find(second.as_str()).unwrap();
    assert!(at_first < at_second, "holdouts are sorted by identity");
    // Spent after 11 attempts: 0.05 · 6/π² · Σ_{k≤11} 1/k² = 0.047358 and left 0.0026415
    // (Python 3: fractions.Fraction for the sum, mpmath 1.4.1 for π).
    let small_line = format!(
        "holdout {small}: 11 attempts, 0 admitted; declared alpha 0.05, spent 0.0474, left 0.00264\n  \
         next: attempt 12 at alpha 0.000211 (12 pairs in the latest attempt)\n  \
         warning: the next attempt needs p < 0.000211; with 12 pairs the smallest possible p is 0.0002441\n"
    );
    assert!(result.stdout.contains(&small_line), "{}", result.stdout);
    let large_line = format!(
        "holdout {large}: 1 attempt, 1 admitted; declared alpha 0.05, spent 0.0304, left 0.0196\n  \
         next: attempt 2 at alpha 0.0076 (100 pairs in the latest attempt)\n"
    );
    assert!(result.stdout.contains(&large_line), "{}", result.stdout);
    assert_eq!(result.stdout.matches("warning:").count(), 1);
}

#[test]
fn json_summary_carries_the_numbers_scripts_need() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.jsonl");
    let holdout = sha256_hex(b"holdout");
    fill(&ledger, &holdout, 3, 30, 0.001);
    let result = run(
        dir.path(),
        &["ledger", "show", "ledger.jsonl", "--format", "json"],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let report: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    assert_eq!(report["schema"], "evogate/ledger-summary/v1");
    assert_eq!(report["records"], 3);
    let summary = &report["holdouts"][0];
    assert_eq!(summary["holdout_sha256"], holdout.as_str());
    assert_eq!(summary["attempts"], 3);
    assert_eq!(summary["admitted"], 3);
    assert_eq!(summary["next_attempt"], 4);
    assert_eq!(summary["next_can_reach_significance"], true);
    assert_eq!(summary["warning"], serde_json::Value::Null);
    // 0.05 · 6/π² · (1 + 1/4 + 1/9), from the mpmath table in src/alpha/spending.rs.
    let spent = summary["alpha_spent"].as_f64().unwrap();
    assert!((spent - 0.04137281665395459).abs() < 1e-15, "{spent}");
}

#[test]
fn an_empty_ledger_has_no_attempts() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "ledger.jsonl", "");
    let result = run(dir.path(), &["ledger", "show", &file]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert_eq!(result.stdout, "`ledger.jsonl`: 0 attempts on 0 holdouts\n");
}

#[test]
fn a_malformed_ledger_exits_2_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.jsonl");
    fill(&ledger, &sha256_hex(b"holdout"), 2, 30, 0.5);
    let mut text = std::fs::read_to_string(&ledger).unwrap();
    text.push_str("{\"schema\": \"evogate/ledger/v1\"}\n");
    std::fs::write(&ledger, text).unwrap();
    let result = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_input_error(&result, &["`ledger.jsonl` row 3", "missing field"]);
    assert_eq!(result.stdout, "");
}

#[test]
fn a_missing_ledger_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), &["ledger", "show", "absent.jsonl"]);
    assert_input_error(&result, &["`absent.jsonl`: cannot read it"]);
}

/// The child's half of the concurrency test: append [`PER_CHILD`] attempts.
fn append_as_child(path: &str, name: &str) {
    let holdout = sha256_hex(b"shared holdout");
    for i in 0..PER_CHILD {
        record_attempt(Path::new(path), &holdout, 0.05, |_| {
            let decision = Decision {
                candidate_sha256: sha256_hex(format!("{name} {i}").as_bytes()),
                baseline_sha256: sha256_hex(name.as_bytes()),
                test: "mcnemar".into(),
                n: 40,
                p_improvement: 0.5,
                verdict: Verdict::Refused.into(),
            };
            Ok((decision, ()))
        })
        .expect("the child records its attempt");
    }
}

/// Two processes (this test binary run again, told by [`CHILD_LEDGER`] to append) share
/// one ledger. The lock makes each read-number-append atomic, so every attempt number
/// from 1 to 1,000 appears exactly once and every line is a whole record.
#[test]
fn two_processes_appending_500_records_each_leave_1000_well_formed_records() {
    if let (Ok(path), Ok(name)) = (std::env::var(CHILD_LEDGER), std::env::var(CHILD_NAME)) {
        append_as_child(&path, &name);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger.jsonl");
    let this_test =
        "ledger::two_processes_appending_500_records_each_leave_1000_well_formed_records";
    let children: Vec<_> = ["first", "second"]
        .into_iter()
        .map(|name| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args([this_test, "--exact", "--test-threads=1"])
                .env(CHILD_LEDGER, &ledger)
                .env(CHILD_NAME, name)
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("the child starts")
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a child failed");
    }
    let text = std::fs::read_to_string(&ledger).unwrap();
    let records = parse_ledger("ledger.jsonl", &text).expect("every line is a whole record");
    assert_eq!(records.len(), 2 * PER_CHILD as usize);
    let mut attempts: Vec<u64> = records.iter().map(|r| r.attempt).collect();
    attempts.sort_unstable();
    assert_eq!(attempts, (1..=2 * PER_CHILD).collect::<Vec<_>>());
    for name in ["first", "second"] {
        let digest = sha256_hex(name.as_bytes());
        let mine = records
            .iter()
            .filter(|r| r.baseline_sha256 == digest)
            .count();
        assert_eq!(mine, PER_CHILD as usize, "{name}'s records");
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_as_the_ledger_is_refused_at_once_instead_of_blocking() {
    // Regression: `ledger show` and `admit --ledger` on a FIFO blocked forever.
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("fifo.jsonl"))
        .status()
        .unwrap();
    assert!(made.success());
    write(dir.path(), "b.csv", "task_id,correct,score\na,0,0\nb,1,1\n");
    write(dir.path(), "c.csv", "task_id,correct,score\na,1,1\nb,1,1\n");
    crate::util::write_manifest(dir.path(), &["a", "b"]);
    let admit = [&ADMIT_B_C[..], &LEDGER_WITH_MANIFEST[..]].concat();
    let admit: Vec<&str> = admit
        .iter()
        .map(|a| {
            if *a == "ledger.jsonl" {
                "fifo.jsonl"
            } else {
                a
            }
        })
        .collect();
    for args in [&["ledger", "show", "fifo.jsonl"][..], &admit[..]] {
        let output = crate::util::evogate(dir.path())
            .args(args)
            .timeout(std::time::Duration::from_secs(20))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("`fifo.jsonl` is not a regular file"),
            "{stderr}"
        );
    }
}

/// A ledger that is one of the run's inputs (by another name too) is refused by the
/// executor's guard with exit 2 before anything is read as a ledger or written, for
/// `admit` and `admit --sequential` alike.
#[test]
fn a_ledger_naming_an_input_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", "task_id,correct,score\na,0,0\nb,1,1\n");
    write(dir.path(), "c.csv", "task_id,correct,score\na,1,1\nb,1,1\n");
    write(dir.path(), "order.csv", "task_id\na\nb\n");
    crate::util::write_manifest(dir.path(), &["a", "b"]);
    std::fs::hard_link(dir.path().join("c.csv"), dir.path().join("alias.csv")).unwrap();
    let admit = [&ADMIT_B_C[..], &["--manifest", "manifest.json"]].concat();
    let sequential = [
        &ADMIT_B_C[..],
        &[
            "--sequential",
            "--order",
            "order.csv",
            "--manifest",
            "manifest.json",
        ],
    ]
    .concat();
    let cases: [(&[&str], &str, &str); 5] = [
        (&admit, "b.csv", "--baseline"),
        (&admit, "manifest.json", "--manifest"),
        (&admit, "alias.csv", "--candidate"),
        (&sequential, "order.csv", "--order"),
        (&sequential, "manifest.json", "--manifest"),
    ];
    for (command, ledger, option) in cases {
        let args = [command, &["--ledger", ledger]].concat();
        let before = std::fs::read(dir.path().join(ledger)).unwrap();
        let result = run(dir.path(), &args);
        assert_eq!(result.code, 2, "{args:?}: {}", result.stderr);
        assert!(
            result.stderr.starts_with(&format!(
                "error: `{ledger}` would be written over the input `"
            )),
            "{}",
            result.stderr
        );
        assert!(
            result.stderr.contains(&format!("({option})")),
            "{}",
            result.stderr
        );
        assert_eq!(result.stdout, "");
        assert_eq!(
            std::fs::read(dir.path().join(ledger)).unwrap(),
            before,
            "{ledger}"
        );
    }
}
