//! The facts verifier streamed for `score`'s merge join: its truth read row by row
//! without holding the rows. Grading a task reads its own answer and what its kind's
//! answers are (the candidates an output may name besides it), never its group or
//! question; so what is held is one task a distinct (kind, answer): a [`FactsVerifier`]
//! of the distinct answers, each in the order of its first row, which grades every task
//! that gives it as the verifier of the whole truth grades that task. Each row is handed
//! on with the number of its distinct answer, and graded by it when the join reaches it.
//! When answers repeat, what is held does not grow with the rows; when every task has an
//! answer of its own, it grows with them (an answer's text and its aliases a task).

use std::sync::OnceLock;

use super::{FactsVerifier, FirstTasks, Reading, Refusal};
use crate::verify::{BadRow, Grade, Rowwise, TruthRow, TruthRows, Verifier};

/// The facts verifier as a [`Rowwise`]: its distinct answers, held once its truth
/// is read.
#[derive(Default)]
pub(crate) struct FactsRows {
    distinct: OnceLock<FactsVerifier>,
}

impl FactsRows {
    /// A facts verifier whose truth is not read yet.
    pub(crate) fn new() -> FactsRows {
        FactsRows::default()
    }
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
        }
        if let Some(refused) = refused {
            return Err(refused);
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
        _answer: &str,
        _options: &str,
        distinct: u64,
        output: &str,
    ) -> Result<Grade, String> {
        let verifier = self
            .distinct
            .get()
            .ok_or_else(|| "the facts truth was not read".to_string())?;
        let index = usize::try_from(distinct)
            .ok()
            .filter(|&index| index < verifier.tasks.len())
            .ok_or_else(|| format!("no distinct answer {distinct}"))?;
        Ok(Verifier::grade(verifier, index, output))
    }
}
