//! The benchmark verifiers (`numeric`, `choice`, `short`) through the binary: `score
//! --verifier` on the shipped examples in `data/`, and `grade --jsonl`.

use std::path::{Path, PathBuf};

use crate::util::{evogate, run};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

/// Scores a shipped example; returns the summary line and each task's (correctness,
/// score, feedback).
fn score(verifier: &str, truth: &str) -> (String, Vec<(String, String, String)>) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let folder = data(verifier);
    let path = |name: &str| folder.join(name).to_str().unwrap().to_string();
    let done = run(
        dir.path(),
        &[
            "score",
            "--verifier",
            verifier,
            "--truth",
            &path(truth),
            "--tasks",
            &path("tasks.csv"),
            "--outputs",
            &path("outputs.jsonl"),
            "--out",
            "scores.csv",
        ],
    );
    assert_eq!(done.code, 0, "{}", done.stderr);
    let text = std::fs::read_to_string(dir.path().join("scores.csv")).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let rows = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[4].to_string(), r[6].to_string(), r[7].to_string())
        })
        .collect();
    (done.stdout.trim().to_string(), rows)
}

fn count(rows: &[(String, String, String)], correctness: &str) -> usize {
    rows.iter().filter(|r| r.0 == correctness).count()
}

#[test]
fn score_grades_the_shipped_numeric_example_with_every_outcome() {
    let (summary, rows) = score("numeric", "problems.csv");
    assert!(
        summary.starts_with("scored 30 tasks: 15 correct"),
        "{summary}"
    );
    assert_eq!(
        (count(&rows, "1"), count(&rows, "0.5"), count(&rows, "0")),
        (15, 6, 9)
    );
    let feedback: Vec<&str> = rows.iter().map(|r| r.2.as_str()).collect();
    assert!(feedback.contains(&"hedged: 670 among 670, 12; give one final answer"));
    assert!(feedback.contains(&"no number found; expected 18"));
    assert!(feedback.contains(&"expected 1500, response said 42"));
}

#[test]
fn score_grades_the_shipped_choice_and_short_examples() {
    let (summary, rows) = score("choice", "questions.csv");
    assert!(
        summary.starts_with("scored 27 tasks: 15 correct"),
        "{summary}"
    );
    assert_eq!(count(&rows, "0.5"), 3);
    assert!(rows.iter().any(|r| r.2
        == "named 4 of the 4 options, which is no choice; choose one; expected A (evaporation)"));
    let (summary, rows) = score("short", "questions.csv");
    assert!(
        summary.starts_with("scored 30 tasks: 12 correct"),
        "{summary}"
    );
    assert!(rows.iter().any(|r| r.2.starts_with("partial: token F1 0.")));
    assert!(
        rows.iter().all(|r| r.1 == "0" || r.0 != "0"),
        "wrong answers score 0"
    );
}

#[test]
fn grade_serves_the_benchmark_verifiers_one_answer_a_line() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let truth = data("numeric/problems.csv");
    let output = evogate(dir.path())
        .args(["grade", "--jsonl", "--verifier", "numeric", "--truth"])
        .arg(&truth)
        .write_stdin(concat!(
            "{\"task_id\":\"bus:gsm8k\",\"output\":\"390 / 52 = 7.5, so 8 buses.\\n#### 8\"}\n",
            "{\"task_id\":\"bus:gsm8k\",\"output\":\"#### 8 9\"}\n",
            "{\"task_id\":\"nope:gsm8k\",\"output\":\"8\"}\n",
        ))
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(
        (lines[0]["correct"].clone(), lines[0]["score"].clone()),
        (true.into(), 1.0.into())
    );
    assert_eq!(lines[1]["correctness"], 0.5);
    assert_eq!(
        lines[1]["feedback"],
        "hedged: 8 among 8, 9; give one final answer"
    );
    assert!(lines[2]["error"].as_str().unwrap().contains("nope:gsm8k"));
}
