//! `evogate ledger show FILE`: the holdout-reuse ledger summarised per holdout, as text
//! or JSON, with a warning for each holdout whose next attempt cannot reach
//! significance. A malformed ledger is an error that names the line (exit 2).

use serde::Serialize;

use super::{Printout, Status, read_file};
use crate::cli::LedgerShowArgs;
use crate::ledger::{self, HoldoutSummary};

/// The `--format json` report.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Always `evogate/ledger-summary/v1`.
    schema: &'static str,
    /// The ledger as the user named it.
    ledger: &'a str,
    /// Records (attempts) in the ledger.
    records: usize,
    /// One entry per holdout, sorted by identity.
    holdouts: &'a [HoldoutSummary],
}

/// Runs `ledger show`.
pub fn run(args: LedgerShowArgs) -> anyhow::Result<Printout> {
    let source = args.file.display().to_string();
    let bytes = read_file(&args.file)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!("`{source}`: not valid UTF-8; a ledger is UTF-8 JSON Lines")
    })?;
    let records = ledger::parse_ledger(&source, &text)?;
    let holdouts = ledger::summarise(&records);
    let stdout = if args.format == crate::cli::SummaryFormat::Json {
        let report = Report {
            schema: "evogate/ledger-summary/v1",
            ledger: &source,
            records: records.len(),
            holdouts: &holdouts,
        };
        crate::report::json::document(&report)?
    } else {
        render_text(&source, records.len(), &holdouts)
    };
    Ok(Printout::new(Status::Success, stdout))
}

/// The human-readable summary.
fn render_text(source: &str, records: usize, holdouts: &[HoldoutSummary]) -> String {
    let level = ledger::significant;
    let mut text = format!(
        "`{source}`: {records} attempt{} on {} holdout{}\n",
        plural(records as u64),
        holdouts.len(),
        plural(holdouts.len() as u64)
    );
    for holdout in holdouts {
        text.push_str(&format!(
            "holdout {}: {} attempt{}, {} admitted; declared alpha {}, spent {}, left {}\n",
            holdout.holdout_sha256,
            holdout.attempts,
            plural(holdout.attempts),
            holdout.admitted,
            level(holdout.declared_alpha),
            level(holdout.alpha_spent),
            level(holdout.alpha_left),
        ));
        text.push_str(&format!(
            "  next: attempt {} at alpha {} ({} pairs in the latest attempt)\n",
            holdout.next_attempt,
            level(holdout.next_alpha),
            holdout.n
        ));
        if let Some(warning) = &holdout.warning {
            text.push_str(&format!("  warning: {warning}\n"));
        }
    }
    text
}

/// `s` unless the count is one.
fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}
