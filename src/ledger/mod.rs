//! The holdout-reuse ledger: every admission attempt on a holdout, one JSON record per
//! line, and the alpha-spending rule that keeps the chance of admitting any null
//! candidate over all attempts on that holdout at or below the declared alpha.
//!
//! A record names the holdout by [`holdout_identity`], the two score files by their
//! SHA-256, and carries the attempt number, the alpha it was decided at and the p-value.
//! Records carry no timestamp, so replaying the same attempts writes the same bytes.
//! A sequential run spends its attempt at its first look: it records the attempt
//! `open`, each later look of the same run records how far it went under the same
//! number, and the deciding look closes it ([`extended_run`]).
//! Parsing, the rule and the summary are pure; [`crate::atomic::ledger`] does the locked appends.

mod attempt;
mod parse;
mod runs;
pub mod simulation;
mod stream;
mod summary;

use serde::{Deserialize, Serialize};

use crate::admission::Verdict;

/// The spending rule lives with the level it shares; the ledger spends by it.
pub use crate::alpha::spending::attempt_alpha;
#[cfg(test)]
pub(crate) use attempt::tests as attempt_tests;
pub use attempt::{Attempt, AttemptError, Decision, next_attempt};
pub use parse::{Ledger, Tail, parse_ledger, read_ledger};
pub use runs::{RunLook, extended_run, latest_looks};
pub(crate) use stream::Streams;

/// The holdout's identity lives with the holdout; the ledger names records by it.
pub use crate::admission::holdout::holdout_identity;
pub(crate) use summary::significant;
pub use summary::{HoldoutSummary, OpenAttempt, summarise};

/// The `schema` of every record this version writes and reads.
pub const SCHEMA: &str = "evogate/ledger/v1";

/// Relative tolerance when comparing an alpha read from the ledger with the rule's value:
/// JSON round-trips of floats may be off by an ulp.
pub(crate) const ALPHA_TOLERANCE: f64 = 1e-12;

/// One admission attempt, as one line of the ledger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// The holdout's identity: [`holdout_identity`] of its task ids.
    pub holdout_sha256: String,
    /// SHA-256 of the candidate's scores file, as read.
    pub candidate_sha256: String,
    /// SHA-256 of the baseline's scores file, as read.
    pub baseline_sha256: String,
    /// Which attempt on this holdout this is, from 1.
    pub attempt: u64,
    /// The alpha declared for the whole stream of attempts on this holdout.
    pub declared_alpha: f64,
    /// What the earlier attempts on this holdout spent.
    pub alpha_spent_before: f64,
    /// The level this attempt was decided at: [`attempt_alpha`]`(declared_alpha, attempt)`.
    pub alpha_this_attempt: f64,
    /// The test that decided (`mcnemar`, `signed-rank`, ...).
    pub test: String,
    /// The number of pairs (or clusters) the test used.
    pub n: u64,
    /// The one-sided p-value for improvement.
    pub p_improvement: f64,
    /// The verdict: `admitted`, `refused` or (since the third verdict) `inconclusive`;
    /// or `open`, a sequential run that looked at the holdout and has not decided. Every
    /// verdict was a look at the holdout, so each one spends an attempt.
    pub verdict: RecordVerdict,
}

/// What a record says of its attempt: one of the admission's verdicts, or `open`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordVerdict {
    /// The candidate was admitted.
    Admitted,
    /// The candidate was refused.
    Refused,
    /// More tasks could have settled it (fixed-n `admit`).
    Inconclusive,
    /// A sequential run looked at the holdout and had not decided: the attempt is
    /// spent, and a later look of the same run continues it under the same number.
    Open,
}

impl RecordVerdict {
    /// The word written in the ledger and in `ledger show`.
    pub fn word(self) -> &'static str {
        match self {
            RecordVerdict::Admitted => "admitted",
            RecordVerdict::Refused => "refused",
            RecordVerdict::Inconclusive => "inconclusive",
            RecordVerdict::Open => "open",
        }
    }
}

impl From<Verdict> for RecordVerdict {
    fn from(verdict: Verdict) -> RecordVerdict {
        match verdict {
            Verdict::Admitted => RecordVerdict::Admitted,
            Verdict::Refused => RecordVerdict::Refused,
            Verdict::Inconclusive => RecordVerdict::Inconclusive,
        }
    }
}

impl Record {
    /// Checks each field on its own: the schema, the digests, the attempt number, every
    /// alpha and the p-value, and that an admitted verdict's p is below its alpha.
    /// Returns what is wrong, in a sentence.
    pub fn check(&self) -> Result<(), String> {
        if self.schema != SCHEMA {
            return Err(format!(
                "schema `{}` is not `{SCHEMA}`; this is not an evogate ledger of this version",
                self.schema
            ));
        }
        for (name, digest) in [
            ("holdout_sha256", &self.holdout_sha256),
            ("candidate_sha256", &self.candidate_sha256),
            ("baseline_sha256", &self.baseline_sha256),
        ] {
            if !is_sha256_hex(digest) {
                return Err(format!(
                    "`{name}` `{digest}` is not a SHA-256 (64 lowercase hex digits)"
                ));
            }
        }
        if self.attempt == 0 {
            return Err("`attempt` is 0; attempts count from 1".into());
        }
        // The levels --alpha accepts: a ledger may never tell the user to use another.
        if crate::alpha::Alpha::new(self.declared_alpha).is_err() {
            return Err(format!(
                "`declared_alpha` {} is outside (0, 0.5), the levels --alpha accepts",
                crate::base::numbers::echo(self.declared_alpha)
            ));
        }
        for (name, value) in [
            ("alpha_spent_before", self.alpha_spent_before),
            ("alpha_this_attempt", self.alpha_this_attempt),
            ("p_improvement", self.p_improvement),
        ] {
            if !(value.is_finite() && (0.0..=1.0).contains(&value)) {
                return Err(format!("`{name}` {value} is not in [0, 1]"));
            }
        }
        if self.test.trim().is_empty() {
            return Err("`test` is empty; name the test that decided".into());
        }
        if self.n == 0 {
            return Err("`n` is 0; an attempt is decided on at least one pair".into());
        }
        if self.verdict == RecordVerdict::Admitted && self.p_improvement >= self.alpha_this_attempt
        {
            return Err(format!(
                "verdict `admitted` but `p_improvement` {} is not below this attempt's alpha {}",
                self.p_improvement, self.alpha_this_attempt
            ));
        }
        if self.verdict == RecordVerdict::Inconclusive
            && self.p_improvement < self.alpha_this_attempt
        {
            return Err(format!(
                "verdict `inconclusive` but `p_improvement` {} is below this attempt's alpha {}: a significant improvement is never inconclusive",
                self.p_improvement, self.alpha_this_attempt
            ));
        }
        Ok(())
    }
}

/// Whether `text` is 64 lowercase hex digits.
fn is_sha256_hex(text: &str) -> bool {
    text.len() == 64
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_admitted_record_needs_p_below_its_attempts_alpha() {
        let mut record = attempt::tests::record("a", 1, 0.05);
        record.verdict = RecordVerdict::Admitted;
        record.p_improvement = 0.04;
        let error = record.check().unwrap_err();
        assert!(error.contains("not below this attempt's alpha"), "{error}");
        record.p_improvement = 0.03;
        assert_eq!(record.check(), Ok(()));
    }

    #[test]
    fn an_inconclusive_record_round_trips_and_needs_p_at_or_above_its_attempts_alpha() {
        let mut record = attempt::tests::record("a", 1, 0.05);
        record.verdict = RecordVerdict::Inconclusive;
        record.p_improvement = 0.5;
        assert_eq!(record.check(), Ok(()));
        let line = serde_json::to_string(&record).unwrap();
        assert!(line.contains("\"verdict\":\"inconclusive\""), "{line}");
        let back: Record = serde_json::from_str(&line).unwrap();
        assert_eq!(back, record);
        // A ledger written before the third verdict still reads.
        let old = line.replace("\"inconclusive\"", "\"refused\"");
        let old: Record = serde_json::from_str(&old).unwrap();
        assert_eq!(old.verdict, RecordVerdict::Refused);
        record.p_improvement = 0.01;
        let error = record.check().unwrap_err();
        assert!(error.contains("never inconclusive"), "{error}");
    }
}
