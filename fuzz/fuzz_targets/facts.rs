//! Reads arbitrary bytes as a facts truth file (`group,kind,question,answer`, aliases
//! separated by `|`) with `FactsVerifier::from_table`, and grades answers against it:
//! the fuzzed answer, and for each task its own first alias said alone and beside the
//! next task's. The verifier finds other answers of a kind through an alias index; here
//! every grade's correctness is held to the plain rule that index replaced, trying every
//! task of the kind: 1 when one of the task's aliases occurs in the answer (as whole
//! words, after normalising) and no alias of another task of the kind with no alias in
//! common does, 0.5 when both do, 0 otherwise. Grades are in [0, 1] and pure; a file
//! that is refused is refused with an error naming it.
//!
//! Input: the truth file, then a zero byte, then the answer (lossily decoded).

#![no_main]

use evogate::table::Table;
use evogate::verify::Verifier;
use evogate::verify::facts::FactsVerifier;
use evogate::verify::normalize::{contains_words, normalize};
use libfuzzer_sys::fuzz_target;

/// One task as the plain rule sees it: its kind and normalised aliases.
struct Plain {
    kind: String,
    aliases: Vec<String>,
}

fn expected_correctness(tasks: &[Plain], index: usize, output: &str) -> f64 {
    let answer = normalize(output);
    let own = &tasks[index];
    let present = |aliases: &[String]| aliases.iter().any(|a| contains_words(&answer, a));
    let expected = present(&own.aliases);
    let others = tasks.iter().enumerate().any(|(other, task)| {
        other != index
            && task.kind == own.kind
            && !task.aliases.iter().any(|a| own.aliases.contains(a))
            && present(&task.aliases)
    });
    match (expected, others) {
        (true, false) => 1.0,
        (true, true) => 0.5,
        (false, _) => 0.0,
    }
}

fuzz_target!(|data: &[u8]| {
    let (truth, answer) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], String::from_utf8_lossy(&data[at + 1..])),
        None => (data, "".into()),
    };
    let Ok(table) = Table::parse("facts.csv", truth) else {
        return;
    };
    let verifier = match FactsVerifier::from_table(&table) {
        Ok(verifier) => verifier,
        Err(error) => {
            let message = error.to_string();
            assert!(message.starts_with("`facts.csv`"), "{message}");
            return;
        }
    };
    let column = |name: &str| table.column(name).expect("a verifier that reads has it");
    let (kind, answer_column) = (column("kind"), column("answer"));
    let tasks: Vec<Plain> = table
        .rows
        .iter()
        .map(|row| Plain {
            kind: row.fields[kind].trim().to_string(),
            aliases: row.fields[answer_column]
                .trim()
                .split('|')
                .map(normalize)
                .filter(|a| !a.is_empty())
                .collect(),
        })
        .collect();
    assert_eq!(tasks.len(), verifier.task_count(), "one task a row");
    let first_alias = |i: usize| table.rows[i].fields[answer_column].split('|').next().unwrap_or("").to_string();
    for index in 0..tasks.len().min(32) {
        let next = (index + 1) % tasks.len();
        let answers = [
            answer.to_string(),
            first_alias(index),
            format!("{} or {}", first_alias(index), first_alias(next)),
        ];
        for output in &answers {
            let grade = verifier.grade(index, output);
            assert!(
                grade.score.is_finite() && (0.0..=1.0).contains(&grade.score),
                "{grade:?}"
            );
            assert_eq!(grade.correct, grade.correctness == 1.0, "{grade:?}");
            assert_eq!(
                grade.correctness,
                expected_correctness(&tasks, index, output),
                "task {index} graded {output:?}: {}",
                grade.feedback
            );
            assert_eq!(grade, verifier.grade(index, output), "grading is not pure");
        }
    }
});
