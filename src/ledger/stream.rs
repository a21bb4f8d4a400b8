//! The check that each record read (or about to be appended) continues its holdout's
//! stream exactly as the rule says: attempts numbered 1, 2, 3, ... in the order they
//! first appear, one declared alpha, each alpha the spending rule's, and a sequential
//! attempt's later records (its looks) only while it is open, each holding more pairs
//! than the one before, under the same test.

use std::collections::BTreeMap;

use super::attempt::same_alpha;
use super::{Record, RecordVerdict};
use crate::alpha::spending::{alpha_spent_before, attempt_alpha};

/// Each holdout's attempts as the records were read, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Streams {
    by_holdout: BTreeMap<String, Stream>,
}

/// One holdout's attempts.
#[derive(Debug, Clone, PartialEq)]
struct Stream {
    /// The alpha its first record declared.
    declared_alpha: f64,
    /// The latest record of each attempt, attempt k at index k − 1.
    latest: Vec<Latest>,
}

/// What the latest record of an attempt says.
#[derive(Debug, Clone, PartialEq)]
struct Latest {
    verdict: RecordVerdict,
    n: u64,
    test: String,
}

impl Streams {
    /// The streams of `records`, each of which was checked ([`super::read_ledger`]).
    pub(crate) fn of(records: &[Record]) -> Streams {
        let mut streams = Streams::default();
        records.iter().for_each(|record| streams.push(record));
        streams
    }

    /// Checks that `record` may come next: the next attempt on its holdout, or a later
    /// look of one of its open attempts. Returns what is wrong, in a sentence.
    pub(crate) fn check(&self, record: &Record) -> Result<(), String> {
        let stream = self.by_holdout.get(&record.holdout_sha256);
        let count = stream.map_or(0, |s| s.latest.len() as u64);
        if let Some(stream) = stream
            && !same_alpha(stream.declared_alpha, record.declared_alpha)
        {
            return Err(format!(
                "declared alpha {} differs from the {} of the holdout's first attempt",
                record.declared_alpha, stream.declared_alpha
            ));
        }
        let attempt = record.attempt;
        if let Some(stream) = stream
            && (1..=count).contains(&attempt)
        {
            let latest = &stream.latest[attempt as usize - 1];
            if latest.verdict != RecordVerdict::Open {
                return Err(format!(
                    "attempt {attempt} on holdout {} was decided already ({}); a decided \
                     attempt takes no later look, so this record should be attempt {}; the \
                     ledger was edited or two ledgers were joined",
                    record.holdout_sha256,
                    latest.verdict.word(),
                    count + 1
                ));
            }
            if record.n <= latest.n {
                return Err(format!(
                    "attempt {attempt} on holdout {} is open after {} pairs, and a later look \
                     of it holds more pairs, not {}; the ledger was edited",
                    record.holdout_sha256, latest.n, record.n
                ));
            }
            if record.test != latest.test {
                return Err(format!(
                    "attempt {attempt} on holdout {} was opened under test `{}`, and a later \
                     look of it cannot be under `{}`",
                    record.holdout_sha256, latest.test, record.test
                ));
            }
        } else if attempt != count + 1 {
            return Err(format!(
                "attempt {attempt} on holdout {} follows {count} recorded attempt(s) on it, \
                 so it should be attempt {}; the ledger was edited or two ledgers were joined",
                record.holdout_sha256,
                count + 1
            ));
        }
        let declared = record.declared_alpha;
        for (name, found, rule) in [
            (
                "alpha_this_attempt",
                record.alpha_this_attempt,
                attempt_alpha(declared, attempt),
            ),
            (
                "alpha_spent_before",
                record.alpha_spent_before,
                alpha_spent_before(declared, attempt),
            ),
        ] {
            if !same_alpha(found, rule) {
                return Err(format!(
                    "`{name}` {found} is not the rule's {rule} for attempt {attempt} at alpha {declared}"
                ));
            }
        }
        Ok(())
    }

    /// Adds `record`, which [`Streams::check`] passed.
    pub(crate) fn push(&mut self, record: &Record) {
        let stream = self
            .by_holdout
            .entry(record.holdout_sha256.clone())
            .or_insert_with(|| Stream {
                declared_alpha: record.declared_alpha,
                latest: Vec::new(),
            });
        let latest = Latest {
            verdict: record.verdict,
            n: record.n,
            test: record.test.clone(),
        };
        let index = record.attempt as usize - 1;
        if index < stream.latest.len() {
            stream.latest[index] = latest;
        } else {
            stream.latest.push(latest);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::attempt::tests::record;
    use super::*;

    fn open(tag: &str, attempt: u64, n: u64) -> Record {
        Record {
            verdict: RecordVerdict::Open,
            n,
            test: "sequential-mcnemar".into(),
            ..record(tag, attempt, 0.05)
        }
    }

    fn checked(records: &[Record]) -> Result<(), String> {
        let mut streams = Streams::default();
        for record in records {
            streams.check(record)?;
            streams.push(record);
        }
        Ok(())
    }

    #[test]
    fn an_open_attempt_takes_later_looks_under_its_number_and_others_may_come_between() {
        let closed = Record {
            test: "sequential-mcnemar".into(),
            n: 40,
            ..record("a", 1, 0.05)
        };
        let records = [open("a", 1, 10), open("a", 2, 5), open("a", 1, 20), closed];
        assert_eq!(checked(&records), Ok(()));
    }

    #[test]
    fn a_decided_attempt_takes_no_later_look() {
        let records = [record("a", 1, 0.05), open("a", 1, 30)];
        let error = checked(&records).unwrap_err();
        assert!(
            error.contains("decided already (refused)") && error.contains("should be attempt 2"),
            "{error}"
        );
    }

    #[test]
    fn a_later_look_holds_more_pairs_under_the_same_test() {
        let error = checked(&[open("a", 1, 10), open("a", 1, 10)]).unwrap_err();
        assert!(error.contains("more pairs, not 10"), "{error}");
        let mut other = open("a", 1, 20);
        other.test = "sequential-signed-rank".into();
        let error = checked(&[open("a", 1, 10), other]).unwrap_err();
        assert!(error.contains("under `sequential-signed-rank`"), "{error}");
    }

    #[test]
    fn a_later_look_keeps_its_attempts_alpha() {
        let mut greedy = open("a", 1, 20);
        greedy.alpha_this_attempt = 0.05;
        let error = checked(&[open("a", 1, 10), open("a", 2, 10), greedy]).unwrap_err();
        assert!(error.contains("`alpha_this_attempt` 0.05"), "{error}");
    }
}
