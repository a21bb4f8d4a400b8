//! Parses arbitrary bytes as a CSV table, then reads the table as every kind of file
//! evogate takes a table for: a scores file (with `kind` strata, paired with itself),
//! an arxiv truth file (checked, loaded, and graded with its own titles) and a facts
//! truth file. Each may refuse the input with an `InputError`; none may panic, a parsed
//! table must keep the shape it promises, and a scores file that reads must pair with
//! itself.

#![no_main]

use evogate::admission::{Baseline, Keep, StrataRequest};
use evogate::table::Table;
use evogate::verify::Verifier;
use evogate::verify::arxiv::ArxivVerifier;
use evogate::verify::facts::FactsVerifier;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = Table::parse("fuzz.csv", data) else {
        return;
    };
    let mut previous = 1;
    for row in &table.rows {
        assert_eq!(row.fields.len(), table.headers.len(), "ragged row kept");
        assert!(row.line > previous, "row lines not increasing: {table:?}");
        previous = row.line;
    }
    if let Ok(baseline) = Baseline::read("fuzz.csv", data, Some("kind"), true) {
        let joined = baseline
            .join("fuzz.csv", data, Keep::All)
            .expect("a file that reads once reads twice");
        let strata = StrataRequest {
            column: "kind".to_string(),
            required: false,
        };
        let pairs = joined
            .pair(None, Some(&strata))
            .expect("a scores file pairs with itself");
        let mut previous: Option<&str> = None;
        for pair in &pairs.pairs {
            let score = pair.baseline.score;
            assert!(
                score.is_finite() && (0.0..=1.0).contains(&score),
                "score {score} let through"
            );
            assert_eq!(pair.difference(), 0.0, "a pair of one row with itself differs");
            let task = pairs.task(pair);
            assert!(!task.is_empty(), "empty task id let through");
            assert!(previous.is_none_or(|p| p < task), "pairs not in task order");
            previous = Some(task);
        }
    }
    if let Ok(rows) = evogate::table::scan::RowScanner::new("fuzz.csv", data) {
        let _ = evogate::verify::arxiv::truth::check(rows);
    }
    if let Ok(papers) = evogate::verify::arxiv::truth::load_papers("fuzz.csv", data) {
        let answers: Vec<String> = papers
            .iter()
            .map(|p| {
                format!(
                    "{} by {}, {} ({})",
                    p.title, p.first_author, p.arxiv_id, p.year
                )
            })
            .collect();
        let verifier = ArxivVerifier::new(papers);
        for (task, answer) in (0..verifier.task_count()).zip(answers.iter().cycle()).take(64) {
            let grade = verifier.grade(task, answer);
            assert!((0.0..=1.0).contains(&grade.score), "{grade:?}");
        }
    }
    if let Ok(verifier) = FactsVerifier::from_table(&table) {
        for (index, task) in verifier.tasks().iter().enumerate().take(64) {
            let grade = verifier.grade(index, &task.prompt);
            assert!((0.0..=1.0).contains(&grade.score), "{grade:?}");
        }
    }
});
