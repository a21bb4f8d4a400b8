//! The next attempt on a holdout: its number and the alpha it may use, found from the
//! records already in the ledger (each record read was checked to continue its
//! holdout's stream exactly as the rule says: [`super::Streams`]).

use thiserror::Error;

use super::{ALPHA_TOLERANCE, Record, RecordVerdict, SCHEMA};
use crate::alpha::spending::{alpha_left_after, alpha_spent_before};
use crate::alpha::{Alpha, AlphaError, Sharing};

/// The attempt about to be made on a holdout, under the spending rule.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// The holdout's identity.
    pub holdout_sha256: String,
    /// The alpha declared for every attempt on this holdout.
    pub declared_alpha: f64,
    /// Which attempt this is, from 1.
    pub attempt: u64,
    /// The level to decide this attempt at: the declared level's share for this attempt
    /// under the spending rule.
    pub alpha: Alpha,
    /// What the earlier attempts spent.
    pub alpha_spent_before: f64,
    /// What is left for later attempts once this one has spent `alpha`.
    pub alpha_left: f64,
}

/// What an attempt found: everything of a [`Record`] that the ledger does not decide.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// SHA-256 of the candidate's scores file.
    pub candidate_sha256: String,
    /// SHA-256 of the baseline's scores file.
    pub baseline_sha256: String,
    /// The test that decided (`mcnemar`, `signed-rank`, ...).
    pub test: String,
    /// The number of pairs (or clusters) the test used.
    pub n: u64,
    /// The one-sided p-value for improvement.
    pub p_improvement: f64,
    /// The verdict, reached at [`Attempt::alpha`] (`open` for a sequential run that
    /// has not decided).
    pub verdict: RecordVerdict,
}

/// Why the next attempt cannot be made.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum AttemptError {
    /// The declared alpha is not a level.
    #[error("declared alpha {0} is outside (0, 0.5), the levels --alpha accepts")]
    InvalidAlpha(f64),
    /// The holdout identity is not a SHA-256.
    #[error("holdout identity `{0}` is not a SHA-256 (64 lowercase hex digits)")]
    InvalidHoldout(String),
    /// The declared alpha differs from the one the holdout's stream started with.
    #[error(
        "the ledger's {attempts} attempt(s) on holdout {holdout} were declared at alpha \
         {ledger_alpha}, this one at {declared_alpha}: changing the declared alpha midway \
         breaks the guarantee that all attempts together stay within it; use --alpha \
         {ledger_alpha}, or a new holdout"
    )]
    AlphaChanged {
        /// The holdout's identity.
        holdout: String,
        /// Attempts already recorded on it.
        attempts: u64,
        /// The alpha its first record declared.
        ledger_alpha: f64,
        /// The alpha this attempt declared.
        declared_alpha: f64,
    },
}

/// The next attempt on `holdout_sha256` given the `records` already in the ledger (as
/// [`super::parse_ledger`] returns them, so each holdout's stream is known to be whole).
///
/// A declared alpha that differs from the one the holdout's first record declared is an
/// error, not a note: spending a new alpha on a holdout that has already been tested at
/// another would let the total exceed both. Time: O(records).
pub fn next_attempt(
    records: &[Record],
    holdout_sha256: &str,
    declared_alpha: f64,
) -> Result<Attempt, AttemptError> {
    let Ok(level) = Alpha::new(declared_alpha) else {
        return Err(AttemptError::InvalidAlpha(declared_alpha));
    };
    if !super::is_sha256_hex(holdout_sha256) {
        return Err(AttemptError::InvalidHoldout(holdout_sha256.to_string()));
    }
    let mut earlier = records
        .iter()
        .filter(|r| r.holdout_sha256 == holdout_sha256);
    let first = earlier.next();
    // Attempts are numbered 1, 2, ... in the order they first appear, and a sequential
    // attempt may have several records (its looks), so the count is the largest number.
    let attempts = first.map_or(0, |first| {
        earlier.fold(first.attempt, |k, r| k.max(r.attempt))
    });
    if let Some(first) = first
        && !same_alpha(first.declared_alpha, declared_alpha)
    {
        return Err(AttemptError::AlphaChanged {
            holdout: holdout_sha256.to_string(),
            attempts,
            ledger_alpha: first.declared_alpha,
            declared_alpha,
        });
    }
    // Keep the stream's own declared alpha so every record of it carries the same value
    // (a record read was checked to declare a level).
    let (declared, level) = match first {
        Some(r) => (
            r.declared_alpha,
            Alpha::new(r.declared_alpha).map_err(|e| AttemptError::InvalidAlpha(e.0))?,
        ),
        None => (declared_alpha, level),
    };
    let attempt = attempts + 1;
    Ok(Attempt {
        holdout_sha256: holdout_sha256.to_string(),
        declared_alpha: declared,
        attempt,
        alpha: level.per_attempt(attempt, Sharing::Spending),
        alpha_spent_before: alpha_spent_before(declared, attempt),
        alpha_left: alpha_left_after(declared, attempt),
    })
}

impl Attempt {
    /// The attempt `record` belongs to, as it was when that attempt was taken: a later
    /// look of a sequential run continues it under the same number and alpha.
    pub fn continued(record: &Record) -> Result<Attempt, AlphaError> {
        Ok(Attempt {
            holdout_sha256: record.holdout_sha256.clone(),
            declared_alpha: record.declared_alpha,
            attempt: record.attempt,
            alpha: record.level()?,
            alpha_spent_before: record.alpha_spent_before,
            alpha_left: alpha_left_after(record.declared_alpha, record.attempt),
        })
    }

    /// The ledger record of this attempt with what `decision` found.
    pub fn record(&self, decision: Decision) -> Record {
        Record {
            schema: SCHEMA.to_string(),
            holdout_sha256: self.holdout_sha256.clone(),
            candidate_sha256: decision.candidate_sha256,
            baseline_sha256: decision.baseline_sha256,
            attempt: self.attempt,
            declared_alpha: self.declared_alpha,
            alpha_spent_before: self.alpha_spent_before,
            alpha_this_attempt: self.alpha.get(),
            test: decision.test,
            n: decision.n,
            p_improvement: decision.p_improvement,
            verdict: decision.verdict,
        }
    }
}

impl Record {
    /// The level this attempt was decided at, as the ledger holds it
    /// (`alpha_this_attempt`), to decide again at exactly that level.
    pub fn level(&self) -> Result<Alpha, AlphaError> {
        Alpha::new(self.alpha_this_attempt)
    }

    /// Whether this record is an attempt on `holdout_sha256` that decided these scores
    /// files: the baseline's and the candidate's SHA-256.
    pub fn same_inputs(
        &self,
        holdout_sha256: &str,
        baseline_sha256: &str,
        candidate_sha256: &str,
    ) -> bool {
        self.holdout_sha256 == holdout_sha256
            && self.baseline_sha256 == baseline_sha256
            && self.candidate_sha256 == candidate_sha256
    }

    /// Whether `decision`, reached again at this record's alpha, is the one this record
    /// holds: the same files, test, pairs, p-value (up to a JSON round trip) and
    /// verdict. A run that repeats it is no new look at the holdout.
    pub fn repeated_by(&self, decision: &Decision) -> bool {
        self.baseline_sha256 == decision.baseline_sha256
            && self.candidate_sha256 == decision.candidate_sha256
            && self.test == decision.test
            && self.n == decision.n
            && same_alpha(self.p_improvement, decision.p_improvement)
            && self.verdict == decision.verdict
    }
}

/// Equal up to [`ALPHA_TOLERANCE`], relative to the larger.
pub(crate) fn same_alpha(a: f64, b: f64) -> bool {
    (a - b).abs() <= ALPHA_TOLERANCE * a.abs().max(b.abs())
}

// Reference values are kept as the reference tool printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
pub(crate) mod tests {
    use super::*;
    use crate::alpha::spending::attempt_alpha;

    /// A well-formed record of attempt `attempt` on a holdout named by `tag`.
    pub(crate) fn record(tag: &str, attempt: u64, declared: f64) -> Record {
        Record {
            schema: SCHEMA.to_string(),
            holdout_sha256: crate::digest::sha256_hex(tag.as_bytes()),
            candidate_sha256: crate::digest::sha256_hex(format!("{tag}{attempt}").as_bytes()),
            baseline_sha256: crate::digest::sha256_hex(b"baseline"),
            attempt,
            declared_alpha: declared,
            alpha_spent_before: alpha_spent_before(declared, attempt),
            alpha_this_attempt: attempt_alpha(declared, attempt),
            test: "mcnemar".into(),
            n: 24,
            p_improvement: 0.5,
            verdict: RecordVerdict::Refused,
        }
    }

    #[test]
    fn the_first_attempt_on_a_holdout_gets_six_over_pi_squared_of_alpha() {
        let holdout = crate::digest::sha256_hex(b"h");
        let attempt = next_attempt(&[], &holdout, 0.05).unwrap();
        assert_eq!(attempt.attempt, 1);
        assert_eq!(attempt.alpha_spent_before, 0.0);
        assert!((attempt.alpha.get() - 0.030396355092701331).abs() < 1e-15);
        assert!((attempt.alpha_left - 0.019603644907298669).abs() < 1e-15);
    }

    #[test]
    fn counts_only_the_attempts_on_the_same_holdout() {
        let records = [
            record("a", 1, 0.05),
            record("b", 1, 0.05),
            record("a", 2, 0.05),
        ];
        let a = next_attempt(&records, &records[0].holdout_sha256, 0.05).unwrap();
        let b = next_attempt(&records, &records[1].holdout_sha256, 0.05).unwrap();
        assert_eq!((a.attempt, b.attempt), (3, 2));
        assert!((a.alpha_spent_before - 0.037995443865876664).abs() < 1e-15);
    }

    #[test]
    fn refuses_a_declared_alpha_that_differs_from_the_streams_first() {
        let records = [record("a", 1, 0.05)];
        let error = next_attempt(&records, &records[0].holdout_sha256, 0.1).unwrap_err();
        assert!(matches!(
            error,
            AttemptError::AlphaChanged { attempts: 1, .. }
        ));
        assert!(error.to_string().contains("use --alpha 0.05"), "{error}");
        // A new holdout may declare any alpha.
        let other = crate::digest::sha256_hex(b"other");
        assert!(next_attempt(&records, &other, 0.1).is_ok());
    }

    #[test]
    fn refuses_an_alpha_that_is_not_a_level_and_a_holdout_that_is_not_a_digest() {
        let holdout = crate::digest::sha256_hex(b"h");
        // 0.7 too: a stream declared at it would be told to go on at a level --alpha refuses.
        for alpha in [0.0, 1.0, 0.7, 0.5, -0.1, f64::NAN, f64::INFINITY] {
            assert!(matches!(
                next_attempt(&[], &holdout, alpha),
                Err(AttemptError::InvalidAlpha(_))
            ));
        }
        assert!(matches!(
            next_attempt(&[], "ABC", 0.05),
            Err(AttemptError::InvalidHoldout(_))
        ));
    }
}
