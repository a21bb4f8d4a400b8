//! Which sequential run a look belongs to. A run spends its attempt at its first look
//! (an `open` record), records each later look that holds more pairs under the same
//! number, and closes it with the deciding look. A look continues a run when its pairs,
//! in the order, extend the run's latest look: the same baseline and candidate values on
//! every task that look held, compared through the two digests of those pairs. No name
//! is needed, so a step that re-runs on a growing scores file continues its attempt,
//! while another candidate (whose pairs differ somewhere in the latest look's) takes a
//! new one.
//!
//! Only the latest look counts: a run that looked at 50 pairs cannot be continued by a
//! sequence that agrees with its first 10 and not with the rest, which would test two
//! sequences at one alpha. A look on fewer pairs than a run's latest cannot be told
//! from another candidate's and takes a new attempt.

use std::collections::BTreeMap;

use super::Record;

/// A look of a sequential run, as the ledger compares runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunLook<'a> {
    /// The holdout's identity.
    pub holdout_sha256: &'a str,
    /// The `test` its records carry (`sequential-mcnemar`, `sequential-signed-rank`).
    pub test: &'a str,
    /// The pairs the look holds.
    pub pairs: u64,
}

/// The latest record of each attempt on `holdout_sha256`, in attempt order, from
/// records that were read and checked ([`super::read_ledger`]).
pub fn latest_looks<'r>(records: &'r [Record], holdout_sha256: &str) -> Vec<&'r Record> {
    let mut latest: Vec<&Record> = Vec::new();
    for record in records
        .iter()
        .filter(|r| r.holdout_sha256 == holdout_sha256)
    {
        match latest.get_mut(record.attempt as usize - 1) {
            Some(slot) => *slot = record,
            None => latest.push(record),
        }
    }
    latest
}

/// The latest record of the run `look` extends, among `latest` ([`latest_looks`]): one
/// under the same test whose `n` pairs are the look's first `n`, that is, whose
/// baseline and candidate digests are `digests[n]`, the look's own digests of its first
/// `n` pairs (a count missing from `digests` matches nothing). The longest such run wins
/// (then the earliest attempt); none when the look extends no run.
pub fn extended_run<'r>(
    latest: &[&'r Record],
    look: RunLook<'_>,
    digests: &BTreeMap<u64, (String, String)>,
) -> Option<&'r Record> {
    latest
        .iter()
        .copied()
        .filter(|record| {
            record.holdout_sha256 == look.holdout_sha256
                && record.test == look.test
                && record.n <= look.pairs
                && digests.get(&record.n).is_some_and(|(baseline, candidate)| {
                    *baseline == record.baseline_sha256 && *candidate == record.candidate_sha256
                })
        })
        .fold(None, |best: Option<&Record>, record| match best {
            Some(best) if best.n >= record.n => Some(best),
            _ => Some(record),
        })
}

#[cfg(test)]
mod tests {
    use super::super::RecordVerdict;
    use super::super::attempt::tests::record;
    use super::*;
    use crate::digest::sha256_hex;

    /// The digests of the first n pairs of a run named `run`.
    fn digest(run: &str, n: u64) -> (String, String) {
        (
            sha256_hex(format!("b{run}{n}").as_bytes()),
            sha256_hex(format!("c{run}{n}").as_bytes()),
        )
    }

    fn look_of(run: &str, attempt: u64, n: u64, verdict: RecordVerdict) -> Record {
        let (baseline_sha256, candidate_sha256) = digest(run, n);
        Record {
            baseline_sha256,
            candidate_sha256,
            n,
            verdict,
            test: "sequential-mcnemar".into(),
            ..record("h", attempt, 0.05)
        }
    }

    #[test]
    fn the_latest_look_of_each_attempt_is_the_one_compared() {
        let records = [
            look_of("x", 1, 10, RecordVerdict::Open),
            look_of("y", 2, 5, RecordVerdict::Open),
            look_of("x", 1, 50, RecordVerdict::Open),
        ];
        let latest = latest_looks(&records, &records[0].holdout_sha256);
        assert_eq!(
            latest.iter().map(|r| (r.attempt, r.n)).collect::<Vec<_>>(),
            [(1, 50), (2, 5)]
        );
        let look = RunLook {
            holdout_sha256: &records[0].holdout_sha256,
            test: "sequential-mcnemar",
            pairs: 60,
        };
        // A look that agrees with run x on its first 50 pairs continues it.
        let own: BTreeMap<u64, (String, String)> =
            [(5, digest("z", 5)), (50, digest("x", 50))].into();
        assert_eq!(
            extended_run(&latest, look, &own).map(|r| r.attempt),
            Some(1)
        );
        // One that agrees with x's first 10 pairs only does not: x's latest look is 50.
        let early: BTreeMap<u64, (String, String)> =
            [(5, digest("z", 5)), (50, digest("z", 50))].into();
        assert_eq!(extended_run(&latest, look, &early), None);
        // Under another test, nothing is continued.
        let other = RunLook {
            test: "sequential-signed-rank",
            ..look
        };
        assert_eq!(extended_run(&latest, other, &own), None);
        // A look holding fewer pairs than the latest look cannot extend it.
        let short = RunLook { pairs: 40, ..look };
        assert_eq!(extended_run(&latest, short, &own), None);
    }

    #[test]
    fn of_two_runs_a_look_extends_the_longest_wins() {
        let records = [
            look_of("x", 1, 10, RecordVerdict::Open),
            look_of("x", 2, 20, RecordVerdict::Open),
        ];
        let latest = latest_looks(&records, &records[0].holdout_sha256);
        let look = RunLook {
            holdout_sha256: &records[0].holdout_sha256,
            test: "sequential-mcnemar",
            pairs: 30,
        };
        let own: BTreeMap<u64, (String, String)> =
            [(10, digest("x", 10)), (20, digest("x", 20))].into();
        assert_eq!(
            extended_run(&latest, look, &own).map(|r| r.attempt),
            Some(2)
        );
    }
}
