//! The `ledger show` use case: the holdout-reuse ledger summarised per holdout, as text
//! or JSON, with a warning for a torn last line. A malformed ledger is an error that
//! names the line.

use std::path::Path;

use super::outcome::{CommandOutcome, Status};
use crate::ledger;
use crate::report::SummaryFormat;
use crate::report::ledger::{LedgerReport, render_text};

/// Runs `ledger show` on the ledger at `path`.
pub(crate) fn run(path: &Path, format: SummaryFormat) -> anyhow::Result<CommandOutcome> {
    let source = path.display().to_string();
    let text = crate::atomic::ledger::read_guarded(path)?;
    let ledger::Ledger { records, tail } = ledger::read_ledger(&source, &text)?;
    let holdouts = ledger::summarise(&records);
    let stdout = match format {
        SummaryFormat::Json => crate::report::json::document(&LedgerReport {
            schema: "evogate/ledger-summary/v1",
            ledger: &source,
            records: records.len(),
            holdouts: &holdouts,
        })?,
        SummaryFormat::Text => render_text(&source, records.len(), &holdouts),
    };
    let mut outcome = CommandOutcome::new(Status::Success, stdout);
    outcome.notes.extend(tail.warning(&source));
    Ok(outcome)
}
