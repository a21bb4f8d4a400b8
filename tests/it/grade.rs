//! `evogate grade --jsonl`: one answer line per request line, errors on their own
//! line without ending the service.

use crate::util::{evogate, papers};

/// Runs `grade --jsonl` on the shipped truth with `stdin` and returns its stdout lines
/// parsed, and the exit code.
fn grade(stdin: &str) -> (Vec<serde_json::Value>, i32) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let truth = papers();
    let output = evogate(dir.path())
        .args(["grade", "--jsonl", "--truth", truth.to_str().unwrap()])
        .write_stdin(stdin)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 answers");
    let answers = stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("each answer line is JSON"))
        .collect();
    (answers, output.status.code().unwrap_or(-1))
}

#[test]
fn a_right_answer_is_correct_and_a_wrong_one_is_not() {
    let (answers, code) = grade(concat!(
        "{\"task_id\":\"1406.2661:first_author\",\"output\":\"Ian J. Goodfellow\"}\n",
        "{\"task_id\":\"1406.2661:year\",\"output\":\"It appeared in 2019.\"}\n",
    ));
    assert_eq!(code, 0);
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["task_id"], "1406.2661:first_author");
    assert_eq!(answers[0]["correct"], true);
    assert_eq!(answers[0]["correctness"], 1.0);
    assert_eq!(answers[0]["score"], 1.0);
    assert_eq!(answers[1]["correct"], false);
    assert_eq!(answers[1]["score"], 0.0);
    // Feedback always names the expected value, for the optimizer to act on.
    assert!(
        answers[1]["feedback"].as_str().unwrap().contains("2014"),
        "{}",
        answers[1]
    );
}

#[test]
fn a_bad_request_gets_an_error_line_and_the_service_goes_on() {
    let (answers, code) = grade(concat!(
        "this is not json\n",
        "{\"task_id\":\"9999.9999:year\",\"output\":\"2014\"}\n",
        "{\"task_id\":\"1406.2661:year\"}\n",
        "\n",
        "{\"task_id\":\"1406.2661:year\",\"output\":\"2014\"}\n",
    ));
    assert_eq!(code, 0);
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert!(
        answers[0]["error"]
            .as_str()
            .unwrap()
            .contains("not a JSON object")
    );
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap()
            .contains("9999.9999:year")
    );
    assert!(answers[2]["error"].as_str().unwrap().contains("output"));
    assert_eq!(answers[3]["correct"], true);
}

#[test]
fn grade_has_the_same_score_as_score_for_the_same_output() {
    // The demo's baseline scores were written by `score`; grading the same outputs one
    // at a time must give each task the same score.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let outputs = std::fs::read_to_string(root.join("data/demo/baseline.jsonl")).unwrap();
    let scores = std::fs::read_to_string(root.join("reports/demo/baseline-scores.csv")).unwrap();
    let mut expected = std::collections::BTreeMap::new();
    let mut rows = csv::Reader::from_reader(scores.as_bytes());
    let headers = rows.headers().unwrap().clone();
    let id = headers.iter().position(|h| h == "task_id").unwrap();
    let score = headers.iter().position(|h| h == "score").unwrap();
    for row in rows.records() {
        let row = row.unwrap();
        expected.insert(row[id].to_string(), row[score].parse::<f64>().unwrap());
    }
    let (answers, code) = grade(&outputs);
    assert_eq!(code, 0);
    let mut compared = 0;
    for answer in &answers {
        let task = answer["task_id"].as_str().unwrap();
        if let Some(want) = expected.get(task) {
            let got = answer["score"].as_f64().unwrap();
            assert!((got - want).abs() < 1e-4, "{task}: {got} vs {want}");
            compared += 1;
        }
    }
    assert!(compared >= 10, "only {compared} tasks compared");
}

#[test]
fn a_bidi_control_in_an_error_answer_is_written_as_a_json_escape() {
    // Regression: a task id holding U+202E came back raw in the error line.
    let dir = tempfile::tempdir().unwrap();
    let output = evogate(dir.path())
        .args(["grade", "--jsonl", "--truth", papers().to_str().unwrap()])
        .write_stdin("{\"task_id\":\"1406.2661:ye\u{202e}ar\",\"output\":\"x\u{2066}\"}\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!stdout.contains('\u{202e}'), "{stdout:?}");
    assert!(stdout.contains("\\u202e"), "{stdout}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(
        answer["error"]
            .as_str()
            .unwrap()
            .contains("task `1406.2661:ye\u{202e}ar` is not in the ground truth"),
        "{answer}"
    );
}

#[test]
fn a_request_line_longer_than_64_mib_ends_in_a_named_error_with_exit_2() {
    // Regression: `grade --jsonl < /dev/zero` aborted on a failed allocation.
    let dir = tempfile::tempdir().unwrap();
    let mut stdin = b"{\"task_id\":\"1406.2661:year\",\"output\":\"2014\"}\n".to_vec();
    stdin.resize(stdin.len() + (64 << 20) + 1, 0);
    let output = evogate(dir.path())
        .args(["grade", "--jsonl", "--truth", papers().to_str().unwrap()])
        .write_stdin(stdin)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`stdin` row 2: the row is longer than 64 MiB"),
        "{stderr}"
    );
    // The request before it was answered.
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}
