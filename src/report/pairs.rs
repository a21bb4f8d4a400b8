//! `pairs.csv`: every pair with both scores, sorted by `task_id`, written with
//! [`CsvWriter`] so that a task id, group, stratum or feedback a spreadsheet would run
//! as a formula is neutralised. Nothing reads `pairs.csv` back, so its identifiers are
//! text like the feedback, and every character that [acts on a
//! terminal](crate::report::terminal::acts_on_terminal) is shown as a `\u{..}` escape
//! (in the feedback, line breaks and tabs kept), so `cat pairs.csv` runs nothing. The file is streamed
//! to its writer ([`write`](fn@write)): a report of millions of pairs with long feedback is never
//! held whole in memory.

use std::io;

use crate::admission::rows::PairRows;
use crate::base::csv::{Cell, CsvWriter};
use crate::base::numbers::number;
use crate::report::terminal::{shown, terminal};

/// The columns of `pairs.csv`.
pub(crate) const PAIR_COLUMNS: [&str; 10] = [
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

/// Bytes gathered before they are handed to the writer.
const CHUNK: usize = 1 << 16;

/// Writes every pair to `out`, a chunk of whole rows at a time.
pub(crate) fn write(pairs: &PairRows, out: &mut dyn io::Write) -> io::Result<()> {
    let mut csv = CsvWriter::with_capacity(2 * CHUNK);
    csv.header(&PAIR_COLUMNS);
    let flag = |c: Option<bool>| match c {
        Some(true) => "1",
        Some(false) => "0",
        None => "",
    };
    let mut failure = Ok(());
    let mut sink = |bytes: &str| {
        if failure.is_ok() {
            failure = out.write_all(bytes.as_bytes());
        }
    };
    fn id(value: Option<&str>) -> std::borrow::Cow<'_, str> {
        shown(value.unwrap_or(""))
    }
    fn text(value: Option<&str>) -> std::borrow::Cow<'_, str> {
        terminal(value.unwrap_or(""))
    }
    let read = pairs.each(&mut |pair| {
        let numbers = [
            number(pair.baseline.score),
            number(pair.candidate.score),
            number(pair.difference()),
        ];
        csv.row(&[
            Cell::Text(&id(Some(pair.task))),
            Cell::Text(&id(pair.group)),
            Cell::Text(&id(pair.stratum)),
            Cell::Trusted(flag(pair.baseline.correct)),
            Cell::Trusted(flag(pair.candidate.correct)),
            Cell::Trusted(&numbers[0]),
            Cell::Trusted(&numbers[1]),
            Cell::Trusted(&numbers[2]),
            Cell::Text(&text(pair.baseline.feedback)),
            Cell::Text(&text(pair.candidate.feedback)),
        ]);
        csv.hand_on(CHUNK, &mut sink);
        Ok(())
    });
    sink(&csv.finish());
    read.and(failure)
}

/// Every pair, as the bytes [`write`](fn@write) writes.
pub(crate) fn render(pairs: &PairRows) -> Vec<u8> {
    let mut bytes = Vec::new();
    write(pairs, &mut bytes).expect("writing to memory cannot fail");
    bytes
}
