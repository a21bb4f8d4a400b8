//! The `truth check` use case: every problem of an arxiv ground-truth file, with its
//! row, read row by row as loading reads it.

use std::path::Path;

use super::open_file;
use super::outcome::{CommandOutcome, Status};
use crate::report::truth::check_text;
use crate::table::scan::RowScanner;
use crate::verify::arxiv::truth;

/// Runs `truth check` on the file at `path`: success when it has no problem.
pub(crate) fn run(path: &Path) -> anyhow::Result<CommandOutcome> {
    let source = path.display().to_string();
    let checked = truth::check(RowScanner::new(&source, open_file(path)?)?)?;
    let status = if checked.problems.is_empty() {
        Status::Success
    } else {
        Status::Negative
    };
    let text = check_text(&source, checked.rows, &checked.problems);
    Ok(CommandOutcome::new(status, text))
}
