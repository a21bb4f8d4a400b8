//! `pairs.csv`: every pair with both scores, sorted by `task_id`, written with
//! [`CsvWriter`] so that a task id or feedback a spreadsheet would run as a formula is
//! neutralised.

use crate::admission::Pairs;
use crate::base::csv::{Cell, CsvWriter};
use crate::base::numbers::number;

/// The columns of `pairs.csv`.
pub const PAIR_COLUMNS: [&str; 10] = [
    "task_id",
    "group",
    "stratum",
    "baseline_correct",
    "candidate_correct",
    "baseline_score",
    "candidate_score",
    "difference",
    "baseline_feedback",
    "candidate_feedback",
];

/// Renders every pair.
pub fn render(pairs: &Pairs) -> String {
    let mut csv = CsvWriter::new();
    csv.header(&PAIR_COLUMNS);
    let flag = |c: Option<bool>| match c {
        Some(true) => "1",
        Some(false) => "0",
        None => "",
    };
    for pair in &pairs.pairs {
        let numbers = [
            number(pair.baseline.score),
            number(pair.candidate.score),
            number(pair.difference()),
        ];
        csv.row(&[
            Cell::Trusted(pairs.task(pair)),
            Cell::Trusted(pairs.group(pair).unwrap_or("")),
            Cell::Trusted(pairs.stratum(pair).unwrap_or("")),
            Cell::Trusted(flag(pair.baseline.correct)),
            Cell::Trusted(flag(pair.candidate.correct)),
            Cell::Trusted(&numbers[0]),
            Cell::Trusted(&numbers[1]),
            Cell::Trusted(&numbers[2]),
            Cell::Text(pairs.feedback(&pair.baseline).unwrap_or("")),
            Cell::Text(pairs.feedback(&pair.candidate).unwrap_or("")),
        ]);
    }
    csv.finish()
}
