//! What every use case hands back: the status its result means, the report to print,
//! notes for stderr, and the writes it asks for. The use cases only read; the one
//! executor in [`crate::cmd`] guards each write against the run's inputs and carries
//! it out, so no command can forget the guard. The one write a use case cannot hand
//! back, the ledger's attempt (decided under the ledger's lock), goes through the
//! [`AttemptLedger`] the command hands in.

use std::any::Any;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::alpha::Alpha;
use crate::atomic::ledger::{Entry, Inputs, Looked};
use crate::atomic::{FileToWrite, StreamedFile};
use crate::ledger::{Decision, Record};

/// What a command's result means for its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: success, clean, admitted, supported.
    Success,
    /// Exit 1: a negative result that is not an error (problems found, leakage,
    /// refused, not supported).
    Negative,
    /// Exit 3: not decided yet (`admit --sequential`: score more tasks).
    Continue,
}

impl Status {
    /// The exit code: 0, 1 or 3 (2 is an error, which is not a status).
    pub fn code(self) -> u8 {
        match self {
            Status::Success => 0,
            Status::Negative => 1,
            Status::Continue => 3,
        }
    }
}

/// One write a use case asks for.
#[derive(Debug)]
pub(crate) enum Write {
    /// Files written together, all or none (each through a temporary file beside it).
    Files(Vec<FileToWrite>),
    /// A folder whose listed files are replaced as one set (other entries are kept).
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Its new files, every path inside `dir`.
        files: Vec<FileToWrite>,
        /// Its new files too large to hold whole, written into it as they are made.
        large: Vec<StreamedFile>,
    },
    /// The file the command streamed the use case's output into, moved into place.
    Stream(PathBuf),
    /// Files too large to hold whole, written together, all or none, each by its
    /// closure (`import`'s scores and record of millions of rows).
    Streamed(Vec<StreamedFile>),
    /// Markdown appended to the GitHub step summary, when the run has one.
    StepSummary(String),
}

impl Write {
    /// The paths this write replaces (none for the step summary, whose path is the
    /// environment's).
    pub(crate) fn paths(&self) -> Vec<&std::path::Path> {
        match self {
            Write::Files(files) => files.iter().map(|f| f.path.as_path()).collect(),
            Write::Folder { files, large, .. } => files
                .iter()
                .map(|f| f.path.as_path())
                .chain(large.iter().map(|f| f.path.as_path()))
                .collect(),
            Write::Stream(path) => vec![path.as_path()],
            Write::Streamed(files) => files.iter().map(|f| f.path.as_path()).collect(),
            Write::StepSummary(_) => Vec::new(),
        }
    }
}

/// A use case's result.
pub(crate) struct CommandOutcome {
    /// The exit status meant.
    pub status: Status,
    /// What goes to stdout.
    pub report: String,
    /// One line each, printed to stderr as `note: ...`.
    pub notes: Vec<String>,
    /// What to write, in order, once every write has passed the input guard.
    pub writes: Vec<Write>,
    /// Inputs found while reading (a file inside a folder given as an input), each
    /// with the option that led to it, guarded like the inputs named on the command
    /// line.
    pub read: Vec<(&'static str, PathBuf)>,
    /// Large values (a million pairs, a verifier over a big truth) that the process
    /// leaves to its exit rather than freeing one allocation at a time.
    pub held: Vec<Box<dyn Any>>,
}

impl CommandOutcome {
    /// An outcome meaning `status` that prints `report`.
    pub(crate) fn new(status: Status, report: String) -> CommandOutcome {
        CommandOutcome {
            status,
            report,
            notes: Vec::new(),
            writes: Vec::new(),
            read: Vec::new(),
            held: Vec::new(),
        }
    }

    /// The outcome, with `value` held until the process exits.
    pub(crate) fn holding(mut self, value: impl Any) -> CommandOutcome {
        self.held.push(Box::new(value));
        self
    }
}

/// The holdout-reuse ledger a use case decides under. Taking the alpha the ledger
/// leaves, deciding at it and appending the attempt is one transaction (two runs on one
/// ledger must never take the same attempt), so the use case hands its decision in
/// rather than a write back; the commands hand in the one implementation that writes,
/// its path checked against the run's inputs first.
pub(crate) trait AttemptLedger {
    /// The ledger's path, as given: read before deciding, and named in the report.
    fn path(&self) -> &Path;

    /// Records an attempt `on` a holdout, unless the ledger already holds one on the
    /// same holdout and inputs that `decide` reaches again at that attempt's alpha (then
    /// nothing is appended or spent). `decide` is called at each alpha tried, and the
    /// entry's decision is always the one of its last call.
    fn take_attempt(&mut self, on: AttemptOn<'_>, decide: Decide<'_>) -> anyhow::Result<Entry<()>>;

    /// Records one look of a sequential run: under the lock, `look` is given the
    /// ledger's records and returns the record to append, if any (checked against them
    /// before it is appended).
    fn take_look(&mut self, look: LookAt<'_>) -> anyhow::Result<Looked>;
}

/// Where a sequential look stands given the ledger's records, for
/// [`AttemptLedger::take_look`]: the record to append, if any.
pub(crate) type LookAt<'a> = &'a mut dyn FnMut(&[Record]) -> anyhow::Result<Option<Record>>;

/// What an attempt looks at: the holdout, the level declared for it, and the scores
/// files.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct AttemptOn<'a> {
    /// The holdout's identity in the ledger.
    pub holdout_sha256: &'a str,
    /// The level declared for the holdout.
    pub declared_alpha: f64,
    /// The scores files decided on.
    pub inputs: Inputs<'a>,
}

/// A decision at the alpha given, for [`AttemptLedger::take_attempt`].
pub(crate) type Decide<'a> = &'a mut dyn FnMut(Alpha) -> anyhow::Result<Decision>;

/// Decides under `ledger` ([`AttemptLedger::take_attempt`]), handing back with the
/// entry what the deciding call of `decide` found besides its [`Decision`].
pub(crate) fn decide_under<T>(
    ledger: &mut dyn AttemptLedger,
    on: AttemptOn<'_>,
    mut decide: impl FnMut(Alpha) -> anyhow::Result<(Decision, T)>,
) -> anyhow::Result<Entry<T>> {
    let mut last = None;
    let entry = ledger.take_attempt(on, &mut |alpha| {
        let (decision, value) = decide(alpha)?;
        last = Some(value);
        Ok(decision)
    })?;
    let value = last.with_context(|| {
        format!(
            "`{}`: the ledger took an attempt without deciding it",
            ledger.path().display()
        )
    })?;
    Ok(Entry {
        record: entry.record,
        repeated: entry.repeated,
        attempts: entry.attempts,
        warning: entry.warning,
        value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::{Record, RecordVerdict as Verdict, next_attempt};

    /// A ledger in memory that tries every earlier attempt's alpha before the next
    /// attempt's (as a run on files already decided does), then takes that attempt.
    #[derive(Default)]
    struct Memory {
        records: Vec<Record>,
        tried: Vec<f64>,
    }

    impl AttemptLedger for Memory {
        fn path(&self) -> &Path {
            Path::new("memory.jsonl")
        }

        fn take_attempt(
            &mut self,
            on: AttemptOn<'_>,
            decide: Decide<'_>,
        ) -> anyhow::Result<Entry<()>> {
            let attempt = next_attempt(&self.records, on.holdout_sha256, on.declared_alpha)?;
            let earlier = self.records.iter().map(|r| r.level().unwrap());
            let mut decision = None;
            for alpha in earlier.chain([attempt.alpha]).collect::<Vec<_>>() {
                self.tried.push(alpha.get());
                decision = Some(decide(alpha)?);
            }
            let record = attempt.record(decision.expect("one alpha at least"));
            self.records.push(record.clone());
            Ok(Entry {
                record,
                repeated: false,
                attempts: attempt.attempt,
                warning: None,
                value: (),
            })
        }

        fn take_look(&mut self, look: LookAt<'_>) -> anyhow::Result<Looked> {
            let record = look(&self.records)?;
            let appended = record.is_some();
            self.records.extend(record);
            Ok(Looked {
                appended,
                warning: None,
            })
        }
    }

    fn decision(alpha: Alpha) -> (Decision, f64) {
        let decision = Decision {
            candidate_sha256: crate::digest::sha256_hex(b"candidate"),
            baseline_sha256: crate::digest::sha256_hex(b"baseline"),
            test: "mcnemar".into(),
            n: 30,
            p_improvement: 0.01,
            verdict: if alpha.rejects(0.01) {
                Verdict::Admitted
            } else {
                Verdict::Refused
            },
        };
        (decision, alpha.get())
    }

    fn look(holdout_sha256: &str) -> AttemptOn<'_> {
        AttemptOn {
            holdout_sha256,
            declared_alpha: 0.05,
            inputs: Inputs {
                baseline_sha256: "b",
                candidate_sha256: "c",
            },
        }
    }

    #[test]
    fn the_value_handed_back_is_the_deciding_calls_though_others_came_first() {
        let mut ledger = Memory::default();
        let holdout = crate::digest::sha256_hex(b"holdout");
        let first = decide_under(&mut ledger, look(&holdout), |a| Ok(decision(a))).unwrap();
        let second = decide_under(&mut ledger, look(&holdout), |a| Ok(decision(a))).unwrap();
        // Attempt 2 tried attempt 1's alpha first, then decided at its own.
        assert_eq!(ledger.tried, [first.value, first.value, second.value]);
        assert_eq!(second.record.attempt, 2);
        assert_eq!(second.value, second.record.alpha_this_attempt);
        assert!(second.value < first.value);
        assert_eq!(first.record.verdict, Verdict::Admitted);
        assert_eq!(second.record.verdict, Verdict::Refused);
    }

    #[test]
    fn a_decision_that_fails_records_nothing() {
        let mut ledger = Memory::default();
        let holdout = crate::digest::sha256_hex(b"holdout");
        let failed: anyhow::Result<Entry<f64>> =
            decide_under(&mut ledger, look(&holdout), |_| anyhow::bail!("unreadable"));
        assert_eq!(failed.unwrap_err().to_string(), "unreadable");
        assert!(ledger.records.is_empty());
    }
}
