//! The ledger on disk: locked, append-only writes. Each attempt takes an exclusive lock
//! on the ledger, reads it, works out the attempt number and alpha, lets the caller
//! decide, and appends one line with a single write before the lock is released, so
//! concurrent jobs on one ledger neither lose records nor interleave them.
//!
//! The lock is `std::fs::File::lock` (`flock` on Unix, `LockFileEx` on Windows): it is
//! advisory, holds between processes that all take it, and may not hold on network
//! file systems that do not support it.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::alpha::Alpha;
use crate::ledger::{Attempt, Decision, Record, Streams, Tail, next_attempt, read_ledger};

/// Records one attempt on `holdout_sha256` in the ledger at `path` (created when absent).
///
/// Under one exclusive lock: reads and checks the ledger, computes the next [`Attempt`]
/// for this holdout at `declared_alpha`, calls `decide` with it (which decides at
/// `attempt.alpha` and returns what it found, plus anything the caller wants back),
/// and appends the resulting record. When `decide` fails nothing is written. The record
/// is returned with the caller's value.
pub fn record_attempt<T>(
    path: &Path,
    holdout_sha256: &str,
    declared_alpha: f64,
    decide: impl FnOnce(&Attempt) -> anyhow::Result<(Decision, T)>,
) -> anyhow::Result<(Record, T)> {
    record_attempt_with(
        path,
        holdout_sha256,
        declared_alpha,
        decide,
        &mut |file, bytes| file.write_all(bytes),
    )
}

/// [`record_attempt`] with the appending write supplied, so tests can make it fail
/// midway.
fn record_attempt_with<T>(
    path: &Path,
    holdout_sha256: &str,
    declared_alpha: f64,
    decide: impl FnOnce(&Attempt) -> anyhow::Result<(Decision, T)>,
    write: &mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>,
) -> anyhow::Result<(Record, T)> {
    let mut ledger = Locked::open(path)?;
    let records = ledger.read()?;
    let attempt = next_attempt(&records, holdout_sha256, declared_alpha)
        .with_context(|| format!("`{}`", path.display()))?;
    let (decision, value) = decide(&attempt)?;
    let record = attempt.record(decision);
    ledger.append(&records, &record, &[], write)?;
    Ok((record, value))
}

/// What [`record_or_repeat`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry<T> {
    /// The attempt appended, or the earlier one this run repeated.
    pub record: Record,
    /// Whether the run repeated an earlier attempt on the same scores files and tasks
    /// with the same result: nothing was appended and no alpha spent.
    pub repeated: bool,
    /// The attempts on the holdout the ledger holds now.
    pub attempts: u64,
    /// The warning for a torn last record that the read skipped (and an append cut
    /// off), naming its row.
    pub warning: Option<String>,
    /// The caller's value, from the decision that counted.
    pub value: T,
}

/// The scores files of an attempt, by SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inputs<'a> {
    /// The baseline's scores file.
    pub baseline_sha256: &'a str,
    /// The candidate's scores file.
    pub candidate_sha256: &'a str,
}

/// Records an attempt on `holdout_sha256` as [`record_attempt`] does, unless it repeats
/// one: when the ledger already holds an attempt on this holdout with these `inputs`,
/// `decide` is called at that attempt's alpha, and if it reaches the recorded result
/// (see [`Record::repeated_by`]) the earlier record is returned and nothing is
/// appended or spent. Otherwise (a first look, or the same files decided differently,
/// e.g. under another test: a new look at the holdout) `decide` is called at the next
/// attempt's alpha and that attempt is appended. All under one lock.
///
/// `report` is the files of the report the run will write for this attempt: when an
/// attempt is appended, those there (of an earlier attempt) are taken out in the
/// same gate section as the append is written, so a run that dies before its own report is
/// written leaves no report older than the ledger.
pub fn record_or_repeat<T>(
    path: &Path,
    report: &[PathBuf],
    holdout_sha256: &str,
    declared_alpha: f64,
    inputs: Inputs<'_>,
    mut decide: impl FnMut(Alpha) -> anyhow::Result<(Decision, T)>,
) -> anyhow::Result<Entry<T>> {
    let mut ledger = Locked::open(path)?;
    let records = ledger.read()?;
    let warning = ledger.tail.warning(&path.display().to_string());
    let attempt = next_attempt(&records, holdout_sha256, declared_alpha)
        .with_context(|| format!("`{}`", path.display()))?;
    let earlier = records.iter().filter(|r| {
        r.same_inputs(
            holdout_sha256,
            inputs.baseline_sha256,
            inputs.candidate_sha256,
        )
    });
    for record in earlier {
        let (decision, value) = decide(record.level()?)?;
        if record.repeated_by(&decision) {
            return Ok(Entry {
                record: record.clone(),
                repeated: true,
                attempts: attempt.attempt - 1,
                warning,
                value,
            });
        }
    }
    let (decision, value) = decide(attempt.alpha)?;
    let record = attempt.record(decision);
    ledger.append(&records, &record, report, &mut |file, bytes| {
        file.write_all(bytes)
    })?;
    Ok(Entry {
        record,
        repeated: false,
        attempts: attempt.attempt,
        warning,
        value,
    })
}

/// What [`record_look`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Looked {
    /// Whether a record was appended.
    pub appended: bool,
    /// The warning for a torn last record that the read skipped (and an append cut
    /// off), naming its row.
    pub warning: Option<String>,
}

/// Records one look of a sequential run in the ledger at `path` (created when absent):
/// under one exclusive lock, reads and checks the ledger, calls `look` with its records
/// (which decides where the look stands and returns the record it adds, if any: the
/// attempt opened, a later look of it, or the look that decided it), checks that record
/// against the ledger as read (the rules `ledger show` reads by) and appends it. When `look` fails
/// nothing is written. `report` is taken out with the append, as for
/// [`record_or_repeat`].
pub fn record_look(
    path: &Path,
    report: &[PathBuf],
    look: impl FnOnce(&[Record]) -> anyhow::Result<Option<Record>>,
) -> anyhow::Result<Looked> {
    let mut ledger = Locked::open(path)?;
    let records = ledger.read()?;
    let warning = ledger.tail.warning(&path.display().to_string());
    let Some(record) = look(&records)? else {
        return Ok(Looked {
            appended: false,
            warning,
        });
    };
    ledger.append(&records, &record, report, &mut |file, bytes| {
        file.write_all(bytes)
    })?;
    Ok(Looked {
        appended: true,
        warning,
    })
}

/// Appends `record` to the ledger at `path` (created when absent), under the lock, after
/// checking that it continues its holdout's stream as the ledger stands (the next
/// attempt, or a later look of an open one). Prefer [`record_attempt`], which computes the attempt under the same lock.
pub fn append(path: &Path, record: &Record) -> anyhow::Result<()> {
    let mut ledger = Locked::open(path)?;
    let records = ledger.read()?;
    ledger.append(&records, record, &[], &mut |file, bytes| {
        file.write_all(bytes)
    })
}

/// A ledger file held under an exclusive lock until dropped.
struct Locked<'a> {
    path: &'a Path,
    file: File,
    /// How the ledger ended when read.
    tail: Tail,
}

/// Refuses a ledger path that exists and is not a regular file: a FIFO, a device such
/// as `/dev/zero` or a folder would block a read forever, never end, or cannot hold
/// records. Asked before the file is opened, since opening a FIFO to read blocks.
fn refuse_irregular(path: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => anyhow::bail!(
            "`{}` is not a regular file (a FIFO, a device or a folder); a ledger is a JSON Lines file: give its path",
            path.display()
        ),
        _ => Ok(()),
    }
}

/// Reads the ledger at `path` as text, guarded as every read of a ledger is: a path
/// that is not a regular file is refused before it is opened (`refuse_irregular`), and
/// at most [`crate::table::MAX_WHOLE_BYTES`] are read (`read_text`).
pub fn read_guarded(path: &Path) -> anyhow::Result<String> {
    refuse_irregular(path)?;
    let file = crate::table::open_input(path)?;
    read_text(
        &path.display().to_string(),
        file,
        crate::table::MAX_WHOLE_BYTES,
    )
}

/// Reads a whole ledger as text, at most `limit` bytes of it (the cap of every file
/// read whole, [`crate::table::MAX_WHOLE_BYTES`]), so memory stays bounded whatever the
/// path holds; more is refused with the file's name, as is text that is not UTF-8.
fn read_text(source: &str, input: impl Read, limit: u64) -> anyhow::Result<String> {
    let bytes = crate::table::read_capped(source, input, limit)?;
    String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("`{source}`: not valid UTF-8; a ledger is UTF-8 JSON Lines"))
}

impl<'a> Locked<'a> {
    /// Opens (creating) `path` for reading and appending, and waits for the lock.
    fn open(path: &'a Path) -> anyhow::Result<Locked<'a>> {
        refuse_irregular(path)?;
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .with_context(|| format!("`{}`: cannot open the ledger", path.display()))?;
        // What was opened, not what the path named a moment before.
        if !file.metadata().is_ok_and(|meta| meta.is_file()) {
            refuse_irregular(path)?;
            anyhow::bail!("`{}` is not a regular file", path.display());
        }
        file.lock()
            .with_context(|| format!("`{}`: cannot lock the ledger", path.display()))?;
        Ok(Locked {
            path,
            file,
            tail: Tail::Clean,
        })
    }

    /// Reads and parses the whole ledger; a torn last record is skipped.
    fn read(&mut self) -> anyhow::Result<Vec<Record>> {
        let source = self.path.display().to_string();
        let text = read_text(&source, &mut self.file, crate::table::MAX_WHOLE_BYTES)?;
        let ledger = read_ledger(&source, &text)?;
        self.tail = ledger.tail;
        Ok(ledger.records)
    }

    /// Checks `record` against the `records` read under this lock and appends it as one
    /// line of compact JSON, in one write, synced to disk.
    /// A torn last record is cut off first, and a whole last record without its `\n`
    /// gets it, so the new line starts a line of its own.
    ///
    /// The report files `report` that exist are an earlier attempt's report that the
    /// new record makes stale: in the same section as the write they are moved aside
    /// (`.NAME.evogate-stale-PID` beside their folder `NAME`, whose other files stay;
    /// [`super::settle`] removes it if a kill leaves
    /// it) and, once the record is written, removed; a failed write puts it back. So a
    /// run that dies after its append and before its own report leaves no report folder
    /// rather than one whose attempt the ledger has passed; the same command run again
    /// repeats the attempt and writes its report, spending nothing.
    fn append(
        &mut self,
        records: &[Record],
        record: &Record,
        report: &[PathBuf],
        write: &mut dyn FnMut(&mut File, &[u8]) -> io::Result<()>,
    ) -> anyhow::Result<()> {
        let refuse = |message: String| {
            anyhow::anyhow!(
                "`{}`: cannot record the attempt: {message}",
                self.path.display()
            )
        };
        record.check().map_err(refuse)?;
        Streams::of(records).check(record).map_err(refuse)?;
        let mut line = match self.tail {
            Tail::Unterminated => "\n".to_string(),
            Tail::Clean | Tail::Torn { .. } => String::new(),
        };
        line.push_str(&serde_json::to_string(record).context("cannot serialise the record")?);
        line.push('\n');
        let context = || format!("`{}`: cannot append to the ledger", self.path.display());
        // A SIGINT or SIGTERM waits for the append, so no signal tears a record.
        let section = super::gate::section();
        let folder = report.first().and_then(|file| file.parent());
        let stale = super::settle::set_aside_stale(report).with_context(|| {
            format!(
                "`{}`: cannot take out the earlier report before recording the attempt",
                folder.unwrap_or(Path::new(".")).display()
            )
        })?;
        let written = (|| {
            if let Tail::Torn { start, .. } = self.tail {
                self.file.set_len(start as u64)?;
            }
            write(&mut self.file, line.as_bytes())?;
            self.file.sync_data()
        })();
        if let (Err(_), Some(stale)) = (&written, &stale) {
            stale.put_back();
        }
        written.with_context(context)?;
        super::gate::recorded(match (&stale, folder) {
            (Some(_), Some(folder)) => format!(
                "attempt {} was recorded in `{}` and the report of an earlier attempt taken out of `{}`",
                record.attempt,
                self.path.display(),
                folder.display()
            ),
            _ => format!(
                "attempt {} was recorded in `{}`",
                record.attempt,
                self.path.display()
            ),
        });
        drop(section);
        if let Some(stale) = stale {
            let _ = std::fs::remove_dir_all(&stale.aside);
        }
        Ok(())
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        // Closing the file releases the lock too; unlocking first says so explicitly,
        // and an error here leaves nothing to undo.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::Verdict;
    use crate::ledger::{parse_ledger, summarise};

    fn decision(p_improvement: f64, verdict: Verdict) -> Decision {
        let verdict = verdict.into();
        Decision {
            candidate_sha256: crate::digest::sha256_hex(b"candidate"),
            baseline_sha256: crate::digest::sha256_hex(b"baseline"),
            test: "mcnemar".into(),
            n: 30,
            p_improvement,
            verdict,
        }
    }

    #[test]
    fn a_ledger_is_read_up_to_its_cap_and_refused_past_it() {
        let endless = std::io::repeat(b'x').take(u64::MAX);
        let error = read_text("/dev/zero", endless, 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(error.contains("`/dev/zero`: larger than 1 MiB"), "{error}");
        let error = read_text("l.jsonl", &b"\xff\n"[..], 1 << 20)
            .unwrap_err()
            .to_string();
        assert!(error.contains("not valid UTF-8"), "{error}");
        assert_eq!(read_text("l.jsonl", &b"{}\n"[..], 3).unwrap(), "{}\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_or_a_folder_as_the_ledger_is_refused_before_it_is_read() {
        let holdout = crate::digest::sha256_hex(b"holdout");
        let dir = tempfile::tempdir().unwrap();
        for path in [Path::new("/dev/zero"), dir.path()] {
            let error = record_attempt(path, &holdout, 0.05, |_| {
                Ok((decision(0.001, Verdict::Admitted), ()))
            })
            .unwrap_err()
            .to_string();
            assert!(error.contains("is not a regular file"), "{error}");
        }
    }

    #[test]
    fn numbers_attempts_and_writes_one_line_each() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let holdout = crate::digest::sha256_hex(b"holdout");
        for expected in 1..=3u64 {
            let (record, seen) = record_attempt(&path, &holdout, 0.05, |attempt| {
                let verdict = if attempt.alpha.rejects(0.001) {
                    Verdict::Admitted
                } else {
                    Verdict::Refused
                };
                Ok((decision(0.001, verdict), attempt.attempt))
            })
            .unwrap();
            assert_eq!((record.attempt, seen), (expected, expected));
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.ends_with("}\n") && !text.contains("\n\n"));
        let summary = &summarise(&parse_ledger("ledger.jsonl", &text).unwrap())[0];
        assert_eq!((summary.attempts, summary.admitted), (3, 3));
    }

    #[test]
    fn a_failed_decision_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let holdout = crate::digest::sha256_hex(b"holdout");
        let result: anyhow::Result<(Record, ())> = record_attempt(&path, &holdout, 0.05, |_| {
            anyhow::bail!("scores unreadable")
        });
        assert!(
            result
                .unwrap_err()
                .to_string()
                .contains("scores unreadable")
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn refuses_a_decision_that_is_not_a_valid_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let holdout = crate::digest::sha256_hex(b"holdout");
        let error = record_attempt(&path, &holdout, 0.05, |_| {
            Ok((decision(f64::NAN, Verdict::Refused), ()))
        })
        .unwrap_err();
        assert!(error.to_string().contains("`p_improvement` NaN"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");
    }

    #[test]
    fn append_refuses_a_record_out_of_turn_and_a_changed_alpha() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let first = crate::ledger::attempt_tests::record("h", 1, 0.05);
        append(&path, &first).unwrap();
        let error = append(&path, &first).unwrap_err().to_string();
        assert!(error.contains("should be attempt 2"), "{error}");
        let holdout = first.holdout_sha256.clone();
        let error = record_attempt(&path, &holdout, 0.1, |_| {
            Ok((decision(0.5, Verdict::Refused), ()))
        })
        .unwrap_err();
        assert!(
            format!("{error:#}").contains("changing the declared alpha"),
            "{error:#}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 1);
    }

    fn inputs() -> (String, String) {
        let d = decision(0.5, Verdict::Refused);
        (d.baseline_sha256, d.candidate_sha256)
    }

    #[test]
    fn the_same_files_decided_alike_repeat_their_attempt_and_spend_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let holdout = crate::digest::sha256_hex(b"holdout");
        let (baseline, candidate) = inputs();
        let files = Inputs {
            baseline_sha256: &baseline,
            candidate_sha256: &candidate,
        };
        let run = |p: f64, files: Inputs<'_>| {
            record_or_repeat(&path, &[], &holdout, 0.05, files, |alpha| {
                let mut d = decision(p, Verdict::Refused);
                d.baseline_sha256 = files.baseline_sha256.to_string();
                d.candidate_sha256 = files.candidate_sha256.to_string();
                Ok((d, alpha))
            })
            .unwrap()
        };
        let first = run(0.5, files);
        assert!(!first.repeated);
        assert_eq!((first.record.attempt, first.attempts), (1, 1));
        let again = run(0.5, files);
        assert!(again.repeated);
        assert_eq!(again.record, first.record);
        assert_eq!(again.attempts, 1);
        // Decided again at the first attempt's alpha, not the second's.
        assert_eq!(again.value.get(), first.record.alpha_this_attempt);
        // The same files decided differently (another test, say) are a new look.
        let other = run(0.25, files);
        assert!(!other.repeated);
        assert_eq!((other.record.attempt, other.attempts), (2, 2));
        let other_candidate = crate::digest::sha256_hex(b"another candidate");
        let new = run(
            0.5,
            Inputs {
                baseline_sha256: &baseline,
                candidate_sha256: &other_candidate,
            },
        );
        assert!(!new.repeated);
        assert_eq!(new.record.attempt, 3);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 3);
    }

    #[test]
    fn a_torn_last_record_is_reported_naming_its_row_and_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, "{\"schema\":\"evogate/ledger/v1\"").unwrap();
        let holdout = crate::digest::sha256_hex(b"holdout");
        let (baseline, candidate) = inputs();
        let files = Inputs {
            baseline_sha256: &baseline,
            candidate_sha256: &candidate,
        };
        let entry = record_or_repeat(&path, &[], &holdout, 0.05, files, |_| {
            Ok((decision(0.5, Verdict::Refused), ()))
        })
        .unwrap();
        let warning = entry.warning.unwrap();
        assert!(warning.contains("ledger.jsonl` row 1"), "{warning}");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            parse_ledger("ledger.jsonl", &text).unwrap(),
            vec![entry.record]
        );
    }

    #[test]
    fn an_append_after_a_torn_last_line_cuts_it_off_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        std::fs::write(&path, "{\"schema\":\"evogate/ledger/v1\"").unwrap();
        let holdout = crate::digest::sha256_hex(b"holdout");
        let (record, ()) = record_attempt(&path, &holdout, 0.05, |_| {
            Ok((decision(0.5, Verdict::Refused), ()))
        })
        .unwrap();
        assert_eq!(record.attempt, 1);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(parse_ledger("ledger.jsonl", &text).unwrap(), vec![record]);
        assert_eq!(text.lines().count(), 1);
    }

    #[test]
    fn a_writer_failing_mid_append_loses_no_complete_record_and_blocks_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ledger.jsonl");
        let holdout = crate::digest::sha256_hex(b"holdout");
        let refuse = |_: &Attempt| Ok((decision(0.5, Verdict::Refused), ()));
        let (first, ()) = record_attempt(&path, &holdout, 0.05, refuse).unwrap();
        // A full disk: half the line is written, then the write fails.
        let error = record_attempt_with(&path, &holdout, 0.05, refuse, &mut |file, bytes| {
            file.write_all(&bytes[..bytes.len() / 2])?;
            Err(io::Error::other("No space left on device"))
        })
        .unwrap_err();
        assert!(format!("{error:#}").contains("No space left"), "{error:#}");
        let torn = std::fs::read_to_string(&path).unwrap();
        let ledger = read_ledger("ledger.jsonl", &torn).unwrap();
        assert_eq!(ledger.records, vec![first.clone()]);
        assert!(matches!(ledger.tail, Tail::Torn { row: 2, .. }));
        let (second, ()) = record_attempt(&path, &holdout, 0.05, refuse).unwrap();
        assert_eq!(second.attempt, 2);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            read_ledger("ledger.jsonl", &text).unwrap(),
            crate::ledger::Ledger {
                records: vec![first, second],
                tail: Tail::Clean
            }
        );
    }
}
