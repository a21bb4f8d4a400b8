//! `evogate ledger show FILE`: the holdout-reuse ledger summarised per holdout, as text
//! or JSON, with a warning for each holdout whose next attempt cannot reach
//! significance. A malformed ledger is an error that names the line (exit 2).

use super::{Printout, Status};
use crate::cli::LedgerShowArgs;
use crate::ledger;
use crate::pipeline::open_file;
use crate::report::ledger::{LedgerReport, render_text};

/// Runs `ledger show`.
pub fn run(args: LedgerShowArgs) -> anyhow::Result<Printout> {
    let source = args.file.display().to_string();
    ledger::file::refuse_irregular(&args.file)?;
    let text = ledger::file::read_text(
        &source,
        open_file(&args.file)?,
        crate::table::MAX_WHOLE_BYTES,
    )?;
    let ledger::Ledger { records, tail } = ledger::read_ledger(&source, &text)?;
    let holdouts = ledger::summarise(&records);
    let stdout = if args.format == crate::cli::SummaryFormat::Json {
        let report = LedgerReport {
            schema: "evogate/ledger-summary/v1",
            ledger: &source,
            records: records.len(),
            holdouts: &holdouts,
        };
        crate::report::json::document(&report)?
    } else {
        render_text(&source, records.len(), &holdouts)
    };
    let mut printout = Printout::new(Status::Success, stdout);
    printout.notes.extend(tail.warning(&source));
    Ok(printout)
}
