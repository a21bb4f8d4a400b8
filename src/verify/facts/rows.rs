//! The facts verifier streamed for `score`'s merge join: its truth read row by row
//! without holding the rows. Grading a task reads its own answer and what its kind's
//! answers are (the candidates an output may name besides it), never its group or
//! question; so what is held is one task a distinct (kind, answer): a [`FactsVerifier`]
//! of the distinct answers, each in the order of its first row, which grades every task
//! that gives it as the verifier of the whole truth grades that task. Each row is handed
//! on with the number of its distinct answer, and graded by it when the join reaches it.
//!
//! When answers repeat, what is held does not grow with the rows. When the distinct
//! answers pass [`HELD_ANSWER_BYTES`] (every task with an answer of its own), the
//! answers read so far stay held for the rows already handed on, and every answer,
//! those included, goes to a table on disk ([`super::known`]) that grading looks the
//! runs of an output's words up in; each later row is handed on with its own answer's
//! entry and its kind, so nothing more is held but the table's Bloom filter and sparse
//! index (about 1.6 bytes a distinct alias).

use std::sync::OnceLock;

use super::known::{KnownAnswers, KnownBuilder};
use super::{FactsVerifier, FirstTasks, Reading, Refusal};
use crate::base::sorter::{RunStore, run_store};
use crate::verify::{BadRow, Grade, NotGraded, Rowwise, TruthRow, TruthRows, Verifier};

/// How many bytes of distinct answers (their text, and about 64 bytes of indexes
/// each) are held before the answers go to disk.
pub(crate) const HELD_ANSWER_BYTES: usize = 4 << 20;

/// The `distinct` of a row handed on with its own answer's entry and kind, once the
/// answers went to disk.
const ON_DISK: u64 = u64::MAX;

/// The facts verifier as a [`Rowwise`]: its distinct answers, held once its truth
/// is read, or those read before they went to disk and the table of them all.
pub(crate) struct FactsRows {
    distinct: OnceLock<FactsVerifier>,
    known: OnceLock<KnownAnswers>,
    /// How many bytes of answers are held before they go to disk.
    held: usize,
    /// Where the table on disk is written.
    store: &'static dyn RunStore,
}

impl FactsRows {
    /// A facts verifier whose truth is not read yet.
    pub(crate) fn new() -> FactsRows {
        FactsRows::holding(HELD_ANSWER_BYTES, run_store())
    }

    /// [`FactsRows::new`] holding at most `held` bytes of answers before they go to
    /// `store`.
    pub(crate) fn holding(held: usize, store: &'static dyn RunStore) -> FactsRows {
        FactsRows {
            distinct: OnceLock::new(),
            known: OnceLock::new(),
            held,
            store,
        }
    }
}

/// The bytes `reading`'s distinct answers take, about.
fn held_bytes(reading: &Reading) -> usize {
    reading.verifier.answer_text.len() + 64 * reading.verifier.answers.len()
}

/// Why the answers could not be kept on disk.
fn disk_error(error: std::io::Error) -> BadRow {
    BadRow::kept_on_disk("the facts answers", error)
}

/// Files every distinct (kind, answer) `verifier` holds in `known`, each under the
/// number of its task (the order of their first rows).
fn file_held(known: &mut KnownBuilder<'_>, verifier: &FactsVerifier) -> std::io::Result<()> {
    for (task, at) in verifier.tasks.iter().enumerate() {
        let kind = &verifier.kinds[at.kind as usize];
        known.add(kind, verifier.answer_entry(at.answer), task as u64)?;
    }
    Ok(())
}

impl From<Refusal> for BadRow {
    fn from(refusal: Refusal) -> BadRow {
        BadRow {
            line: refusal.line,
            error: refusal.error,
            id: refusal.id,
        }
    }
}

impl Rowwise for FactsRows {
    /// Reads `rows` as [`FactsVerifier::build`] does: a file that fails to parse is
    /// said before anything else (as line 0, so no repeated task comes first), and a
    /// missing column only once a row is read.
    fn read(
        &self,
        mut rows: TruthRows<'_>,
        each: &mut dyn FnMut(&TruthRow<'_>),
    ) -> Result<u64, BadRow> {
        let source = rows.source().to_string();
        let headers = rows.headers().to_vec();
        let mut reading: Option<Reading> = None;
        // Each (kind, answer)'s task in the verifier of distinct answers.
        let mut pairs = FirstTasks::default();
        let mut refused: Option<BadRow> = None;
        let mut read = 0_u64;
        // The answers on disk, once they passed what is held.
        let mut known: Option<KnownBuilder<'_>> = None;
        loop {
            let row = match rows.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(error) => {
                    return Err(BadRow {
                        line: 0,
                        error,
                        id: None,
                    });
                }
            };
            if refused.is_some() {
                continue;
            }
            if reading.is_none() {
                match Reading::new(&source, &headers) {
                    Ok(first) => reading = Some(first),
                    Err(error) => {
                        refused = Some(BadRow {
                            line: 0,
                            error,
                            id: None,
                        });
                        continue;
                    }
                }
            }
            let Some(reading) = reading.as_mut() else {
                continue;
            };
            let ([group, kind, _], entry) =
                match reading.check(row.line, |i| row.field(i), read as usize) {
                    Ok(checked) => checked,
                    Err(refusal) => {
                        refused = Some(refusal.into());
                        continue;
                    }
                };
            if let Some(known) = known.as_mut() {
                // Rows are numbered past every held task, so a held answer's first row
                // stays the first.
                if let Err(error) = known.add(kind, &entry, read) {
                    refused = Some(disk_error(error));
                    continue;
                }
                each(&TruthRow {
                    line: row.line,
                    group,
                    kind,
                    answer: &entry,
                    options: kind,
                    distinct: ON_DISK,
                });
                read += 1;
                continue;
            }
            let (kind_at, answer) = reading.file(kind, &entry);
            let next = reading.verifier.tasks.len() as u32;
            if pairs.add(kind_at, answer, next) {
                reading.push_task("", "", kind_at, answer, row.line);
            }
            each(&TruthRow {
                line: row.line,
                group,
                kind,
                answer: "",
                options: "",
                distinct: u64::from(pairs.of(kind_at, answer)),
            });
            read += 1;
            if held_bytes(reading) > self.held {
                let mut spilled = KnownBuilder::new(self.store);
                if let Err(error) = file_held(&mut spilled, &reading.verifier) {
                    refused = Some(disk_error(error));
                    continue;
                }
                // What finds a held answer again is no longer needed.
                pairs = FirstTasks::default();
                reading.known = crate::base::index::HashIndex::default();
                known = Some(spilled);
            }
        }
        if let Some(refused) = refused {
            return Err(refused);
        }
        if let Some(known) = known {
            let known = known.finish().map_err(disk_error)?;
            let _ = self.known.set(known);
        }
        if let Some(reading) = reading {
            let mut verifier = reading.verifier;
            verifier.text.shrink_to_fit();
            verifier.tasks.shrink_to_fit();
            verifier.answer_text.shrink_to_fit();
            verifier.answers.shrink_to_fit();
            let _ = self.distinct.set(verifier);
        }
        Ok(read)
    }

    /// Grades `output` as the task of the row handed on with `distinct` (its distinct
    /// answer's number) is graded by the verifier of the whole truth.
    fn grade(
        &self,
        answer: &str,
        options: &str,
        distinct: u64,
        output: &str,
    ) -> Result<Grade, NotGraded> {
        let unread = |message: String| NotGraded::Unread(message);
        let verifier = self
            .distinct
            .get()
            .ok_or_else(|| unread("the facts truth was not read".to_string()))?;
        if let Some(known) = self.known.get() {
            let (kind, entry) = if distinct == ON_DISK {
                (options, answer)
            } else {
                let task = usize::try_from(distinct)
                    .ok()
                    .and_then(|index| verifier.tasks.get(index))
                    .ok_or_else(|| unread(format!("no distinct answer {distinct}")))?;
                (
                    verifier.kinds[task.kind as usize].as_str(),
                    verifier.answer_entry(task.answer),
                )
            };
            return known
                .grade(kind, entry, output)
                .map_err(|error| NotGraded::KeptOnDisk {
                    what: "the facts answers",
                    error: error.to_string(),
                });
        }
        let index = usize::try_from(distinct)
            .ok()
            .filter(|&index| index < verifier.tasks.len())
            .ok_or_else(|| unread(format!("no distinct answer {distinct}")))?;
        Ok(Verifier::grade(verifier, index, output))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::{MemoryRuns, UnreadableRuns};
    use crate::table::Table;

    static MEMORY: MemoryRuns = MemoryRuns;

    /// Each row of `text` as `read` hands it on: its answer, options and distinct.
    fn handed_on(rows: &FactsRows, text: &str) -> Vec<(String, String, u64)> {
        let input: Box<dyn std::io::Read + '_> = Box::new(text.as_bytes());
        let scanner = crate::table::scan::RowScanner::new("f.csv", input).unwrap();
        let mut handed = Vec::new();
        rows.read(scanner, &mut |row| {
            handed.push((
                row.answer.to_string(),
                row.options.to_string(),
                row.distinct,
            ));
        })
        .unwrap();
        handed
    }

    /// A truth of `answers` (alias lists) given to tasks of `kinds`.
    fn truth(answers: &[Vec<&str>], kinds: &[u8]) -> String {
        let mut text = String::from("group,kind,question,answer\n");
        for (i, aliases) in answers.iter().enumerate() {
            text.push_str(&format!(
                "g{i},k{},q,{}\n",
                kinds[i % kinds.len()],
                aliases.join("|")
            ));
        }
        text
    }

    proptest::proptest! {
        #[test]
        fn answers_kept_on_disk_grade_every_output_as_the_verifier_held_whole(
            answers in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![
                    "Paris", "paris", "City of Light", "Berlin", "Lutetia", "new york",
                    "New York City", "a b c", "b", "c d", "42", "Rome|Roma",
                ]), 1..4),
                1..24,
            ),
            kinds in proptest::collection::vec(0_u8..3, 1..6),
            held in 0_usize..400,
            outputs in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![
                    "Paris", "or", "Berlin", "the", "city", "of", "light", "Lutetia", "New",
                    "York", "a", "b", "c", "d", "42", "Roma", "Madrid", "I", "don't", "know",
                    "A-B", "c,d", "Zanzibar",
                ]), 0..9),
                1..6,
            ),
        ) {
            let text = truth(&answers, &kinds);
            let whole = FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
            let rows = FactsRows::holding(held, &MEMORY);
            let handed = handed_on(&rows, &text);
            if held == 0 {
                proptest::prop_assert!(rows.known.get().is_some());
            }
            for words in &outputs {
                let output = words.join(" ");
                for (task, (answer, options, distinct)) in handed.iter().enumerate() {
                    let expected = Verifier::grade(&whole, task, &output);
                    let graded = rows.grade(answer, options, *distinct, &output).unwrap();
                    proptest::prop_assert_eq!(graded, expected, "task {} output {:?}", task, output);
                }
            }
        }
    }

    #[test]
    fn a_truth_past_the_held_bytes_keeps_its_answers_on_disk_and_grades_as_held_whole() {
        let mut text = String::from("group,kind,question,answer\n");
        for i in 0..3_000 {
            let answer = match i % 4 {
                0 => format!("City {i}|C{i}"),
                1 => "Paris|City of Light".to_string(),
                2 => format!("Town {}|Lutetia", i % 7),
                _ => format!("river {}", i % 11),
            };
            text.push_str(&format!("g{i},k{},q,{answer}\n", i % 3));
        }
        let whole =
            FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
        let rows = FactsRows::holding(2_000, &MEMORY);
        let handed = handed_on(&rows, &text);
        assert!(rows.known.get().is_some());
        assert!(handed.iter().any(|(_, _, distinct)| *distinct == ON_DISK));
        assert!(handed.iter().any(|(_, _, distinct)| *distinct != ON_DISK));
        for (task, (answer, options, distinct)) in handed.iter().enumerate() {
            for output in [
                format!("City {task}"),
                format!("City {} or Paris", task + 3),
                "Lutetia, the city of light".to_string(),
                format!("river {} and Town 3", task % 5),
                "no idea".to_string(),
            ] {
                assert_eq!(
                    rows.grade(answer, options, *distinct, &output).unwrap(),
                    Verifier::grade(&whole, task, &output),
                    "task {task}: {output}"
                );
            }
        }
    }
    static UNREADABLE: UnreadableRuns = UnreadableRuns::first(usize::MAX);

    #[test]
    fn answers_on_disk_that_cannot_be_read_back_are_said_as_that_with_the_fix() {
        let text = truth(&[vec!["Paris"], vec!["Berlin"]], &[0]);
        let rows = FactsRows::holding(0, &UNREADABLE);
        let handed = handed_on(&rows, &text);
        let (answer, options, distinct) = &handed[0];
        let not_graded = rows
            .grade(answer, options, *distinct, "Paris or Berlin")
            .expect_err("the other answers cannot be looked up");
        assert_eq!(
            not_graded,
            NotGraded::KeptOnDisk {
                what: "the facts answers",
                error: "Stale file handle".to_string()
            }
        );
        assert_eq!(
            not_graded.to_string(),
            "cannot read back the facts answers kept in the temporary folder (TMPDIR, else /tmp): Stale file handle; run again with TMPDIR set to a folder that nothing cleans or fills while evogate runs"
        );
    }
}
