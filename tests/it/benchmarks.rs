//! The benchmark verifiers (`numeric`, `choice`, `short`) through the binary: `score
//! --verifier` on the shipped examples in `data/`, and `grade --jsonl`.

use std::path::{Path, PathBuf};

use crate::util::{evogate, run};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(path)
}

/// One task's scores row: correctness, score, outcome and feedback.
struct Row {
    correctness: String,
    score: String,
    outcome: String,
    feedback: String,
}

/// Scores a shipped example; returns the summary line and each task's row.
fn score(verifier: &str, truth: &str) -> (String, Vec<Row>) {
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
    let headers = reader.headers().unwrap().clone();
    let at = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            Row {
                correctness: r[at("correctness")].to_string(),
                score: r[at("score")].to_string(),
                outcome: r[at("outcome")].to_string(),
                feedback: r[at("feedback")].to_string(),
            }
        })
        .collect();
    (done.stdout.trim().to_string(), rows)
}

/// How many rows have each outcome, in the order `right, hedged, partial, wrong,
/// invalid, abstained`.
fn outcomes(rows: &[Row]) -> [usize; 6] {
    [
        "right",
        "hedged",
        "partial",
        "wrong",
        "invalid",
        "abstained",
    ]
    .map(|outcome| rows.iter().filter(|r| r.outcome == outcome).count())
}

#[test]
fn score_grades_the_shipped_numeric_example_with_every_outcome() {
    let (summary, rows) = score("numeric", "problems.csv");
    assert!(
        summary.starts_with("scored 30 tasks: 15 correct"),
        "{summary}"
    );
    // Numeric has no partial credit; the refusals abstain, the `\\boxed{\\sqrt{2}}`
    // answers are invalid (an expression, not a number).
    assert_eq!(outcomes(&rows), [15, 6, 0, 3, 3, 3]);
    let feedback: Vec<&str> = rows.iter().map(|r| r.feedback.as_str()).collect();
    assert!(feedback.contains(&"hedged: 670 among 670, 12; give one final answer"));
    assert!(feedback.contains(&"no answer given (a refusal); expected 18"));
    assert!(feedback.contains(&"expected 1500, response said 42"));
    // A hedge among three earns a third, at the gate and in the correctness.
    let three = rows
        .iter()
        .find(|r| r.feedback == "hedged: 56 among 3, 9, 56; give one final answer")
        .expect("the three-way hedge");
    assert_eq!(
        (three.correctness.as_str(), three.score.as_str()),
        ("0.333333", "0.333333")
    );
}

#[test]
fn score_grades_the_shipped_choice_and_short_examples() {
    let (summary, rows) = score("choice", "questions.csv");
    assert!(
        summary.starts_with("scored 27 tasks: 15 correct"),
        "{summary}"
    );
    assert_eq!(outcomes(&rows), [15, 3, 0, 3, 3, 3]);
    assert!(rows.iter().any(|r| r.feedback
        == "named 4 of the 4 options, which is no choice; choose one; expected A (evaporation)"));
    let (summary, rows) = score("short", "questions.csv");
    assert!(
        summary.starts_with("scored 30 tasks: 12 correct"),
        "{summary}"
    );
    assert_eq!(outcomes(&rows), [12, 4, 2, 4, 4, 4]);
    assert!(
        rows.iter()
            .any(|r| r.feedback.starts_with("partial: Nile with 1 other word;"))
    );
    assert!(
        rows.iter().all(|r| r.score == "0" || r.correctness != "0"),
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
        (lines[0]["outcome"].clone(), lines[1]["outcome"].clone()),
        ("right".into(), "hedged".into())
    );
    assert_eq!(
        lines[1]["feedback"],
        "hedged: 8 among 8, 9; give one final answer"
    );
    assert!(lines[2]["error"].as_str().unwrap().contains("nope:gsm8k"));
}
