//! `evogate truth check FILE`: every problem of an arxiv ground-truth file, with its row.

use super::{Printout, Status, read_table};
use crate::cli::TruthCheckArgs;
use crate::verify::arxiv::truth;

/// Runs `truth check`.
pub fn run(args: TruthCheckArgs) -> anyhow::Result<Printout> {
    let table = read_table(&args.file)?;
    let problems = truth::check(&table)?;
    let source = &table.source;
    if problems.is_empty() {
        let text = format!("`{source}`: {} papers, no problems\n", table.rows.len());
        return Ok(Printout::new(Status::Success, text));
    }
    let mut text = String::new();
    for problem in &problems {
        text.push_str(&format!(
            "`{source}` row {}: {}\n",
            problem.line, problem.message
        ));
    }
    text.push_str(&format!(
        "{} problem{} in {} rows\n",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        table.rows.len()
    ));
    Ok(Printout::new(Status::Negative, text))
}
