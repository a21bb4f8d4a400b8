//! `evogate ledger show FILE`: the holdout-reuse ledger summarised per holdout
//! ([`crate::pipeline::ledger`]), as text or JSON.

use super::Printout;
use super::execute::Effects;
use crate::cli::LedgerShowArgs;
use crate::pipeline::ledger;

/// Runs `ledger show`.
pub(crate) fn run(args: LedgerShowArgs) -> anyhow::Result<Printout> {
    Effects::default().finish(ledger::run(&args.file, args.format)?)
}
