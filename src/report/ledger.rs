//! `ledger show`'s report (`evogate/ledger-summary/v1`): the ledger summarised per
//! holdout, as JSON (through [`super::json::document`]) or as text for the terminal.

use serde::Serialize;

use crate::ledger::{self, HoldoutSummary};

/// The `--format json` report.
#[derive(Debug, Serialize)]
pub(crate) struct LedgerReport<'a> {
    /// Always `evogate/ledger-summary/v1`.
    pub schema: &'static str,
    /// The ledger as the user named it.
    pub ledger: &'a str,
    /// Records in the ledger: one per attempt, and one per later look of a sequential
    /// attempt.
    pub records: usize,
    /// One entry per holdout, sorted by identity.
    pub holdouts: &'a [HoldoutSummary],
}

/// The human-readable summary.
pub(crate) fn render_text(source: &str, records: usize, holdouts: &[HoldoutSummary]) -> String {
    let level = ledger::significant;
    let attempts: u64 = holdouts.iter().map(|h| h.attempts).sum();
    let looks = if records as u64 == attempts {
        String::new()
    } else {
        format!(" ({records} records)")
    };
    let mut text = format!(
        "`{source}`: {attempts} attempt{}{looks} on {} holdout{}\n",
        plural(attempts),
        holdouts.len(),
        plural(holdouts.len() as u64)
    );
    for holdout in holdouts {
        let open = match holdout.open_attempts.len() {
            0 => String::new(),
            count => format!(" ({count} open)"),
        };
        text.push_str(&format!(
            "holdout {}: {} attempt{}{open}, {} admitted; declared alpha {}, spent {}, left {}\n",
            holdout.holdout_sha256,
            holdout.attempts,
            plural(holdout.attempts),
            holdout.admitted,
            level(holdout.declared_alpha),
            level(holdout.alpha_spent),
            level(holdout.alpha_left),
        ));
        text.push_str(&format!(
            "  next: attempt {} at alpha {} ({} pair{} in the latest attempt)\n",
            holdout.next_attempt,
            level(holdout.next_alpha),
            holdout.n,
            plural(holdout.n)
        ));
        for open in &holdout.open_attempts {
            text.push_str(&format!(
                "  open: attempt {} at alpha {} after {} pair{} (undecided: abandoned or still going; spent either way)\n",
                open.attempt,
                level(open.alpha),
                open.pairs,
                plural(open.pairs)
            ));
        }
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
