//! `evogate truth check FILE`: every problem of an arxiv ground-truth file, with its row.

use super::{Printout, Status};
use crate::cli::TruthCheckArgs;
use crate::pipeline::open_file;
use crate::report::truth::check_text;
use crate::table::scan::RowScanner;
use crate::verify::arxiv::truth;

/// Runs `truth check`: the file is read row by row, as loading reads it.
pub fn run(args: TruthCheckArgs) -> anyhow::Result<Printout> {
    let source = args.file.display().to_string();
    let checked = truth::check(RowScanner::new(&source, open_file(&args.file)?)?)?;
    let status = if checked.problems.is_empty() {
        Status::Success
    } else {
        Status::Negative
    };
    let text = check_text(&source, checked.rows, &checked.problems);
    Ok(Printout::new(status, text))
}
