//! Every string of `tests/data/verifier_classes.jsonl` through `grade --jsonl`: outputs
//! that earned credit without committing to the right answer, or whose right answer
//! was missed, found by review and by a hostile test (its case ids, `V02`, `C09`, kept
//! beside ours: negations and refusals, lists,
//! equations after the answer phrase, reasons naming another option, answer forms not
//! read, numbers that are not the answer's value), each with the grade the rules in
//! docs/grading.md give it: its outcome and its correctness.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::evogate;

/// One case of the file.
struct Case {
    id: String,
    truth: String,
    options: Option<String>,
    output: String,
    outcome: String,
    correctness: f64,
}

fn cases() -> BTreeMap<String, Vec<Case>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/verifier_classes.jsonl");
    let text = std::fs::read_to_string(path).expect("the cases file");
    let mut by_verifier: BTreeMap<String, Vec<Case>> = BTreeMap::new();
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).expect("a JSON case");
        let field = |name: &str| case[name].as_str().map(str::to_string);
        by_verifier
            .entry(field("verifier").expect("a verifier"))
            .or_default()
            .push(Case {
                id: field("id").expect("an id"),
                truth: field("truth").expect("a truth"),
                options: field("options"),
                output: field("output").expect("an output"),
                outcome: field("outcome").expect("an outcome"),
                correctness: case["correctness"].as_f64().expect("a correctness"),
            });
    }
    by_verifier
}

/// A CSV field, quoted.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[test]
fn every_gaming_and_missed_answer_string_is_graded_as_the_rules_say() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (verifier, cases) in cases() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let mut truth = String::from("group,kind,question,answer");
        truth.push_str(if verifier == "choice" {
            ",options\n"
        } else {
            "\n"
        });
        let mut groups: Vec<(String, Option<String>)> = Vec::new();
        let mut requests = String::new();
        for case in &cases {
            let key = (case.truth.clone(), case.options.clone());
            let group = match groups.iter().position(|k| *k == key) {
                Some(at) => at,
                None => {
                    truth.push_str(&format!("t{},q,q,{}", groups.len(), quoted(&case.truth)));
                    if let Some(options) = &case.options {
                        truth.push_str(&format!(",{}", quoted(options)));
                    }
                    truth.push('\n');
                    groups.push(key);
                    groups.len() - 1
                }
            };
            let request =
                serde_json::json!({"task_id": format!("t{group}:q"), "output": case.output});
            requests.push_str(&format!("{request}\n"));
        }
        std::fs::write(dir.path().join("truth.csv"), &truth).expect("the truth is written");
        let output = evogate(dir.path())
            .args([
                "grade",
                "--jsonl",
                "--verifier",
                &verifier,
                "--truth",
                "truth.csv",
            ])
            .write_stdin(requests)
            .output()
            .expect("the binary runs");
        assert_eq!(output.status.code(), Some(0), "{verifier}");
        let answers: Vec<serde_json::Value> = String::from_utf8(output.stdout)
            .expect("UTF-8 answers")
            .lines()
            .map(|line| serde_json::from_str(line).expect("a JSON answer"))
            .collect();
        assert_eq!(answers.len(), cases.len(), "{verifier}");
        for (case, answer) in cases.iter().zip(&answers) {
            let outcome = answer["outcome"].as_str().unwrap_or("none");
            let correctness = answer["correctness"].as_f64().unwrap_or(f64::NAN);
            let score = answer["score"].as_f64().unwrap_or(f64::NAN);
            // The admission score never exceeds the correctness: the format terms
            // scale the credit and never add to it.
            let as_the_rules_say = outcome == case.outcome
                && (correctness - case.correctness).abs() < 1e-9
                && score <= correctness + 1e-12;
            if !as_the_rules_say {
                wrong.push(format!(
                    "{} {verifier} {:?}: {outcome} {correctness} (score {score}), the rules give {} {} ({})",
                    case.id, case.output, case.outcome, case.correctness, answer["feedback"]
                ));
            }
            checked += 1;
        }
    }
    assert!(checked >= 100, "only {checked} cases");
    assert!(
        wrong.is_empty(),
        "{} of {checked} cases:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
