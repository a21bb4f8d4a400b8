//! `evogate truth check FILE`: every problem of an arxiv ground-truth file, with its row.

use super::{Printout, Status, read_table};
use crate::cli::TruthCheckArgs;
use crate::report::truth::check_text;
use crate::verify::arxiv::truth;

/// Runs `truth check`.
pub fn run(args: TruthCheckArgs) -> anyhow::Result<Printout> {
    let table = read_table(&args.file)?;
    let problems = truth::check(&table)?;
    let status = if problems.is_empty() {
        Status::Success
    } else {
        Status::Negative
    };
    let text = check_text(&table.source, table.rows.len(), &problems);
    Ok(Printout::new(status, text))
}
