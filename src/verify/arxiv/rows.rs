//! The arxiv verifier for `score`'s merge join: its truth checked and held as the
//! verifier (the paper corpus, which grading looks other papers up in), and each of a
//! paper's four tasks handed on as a row numbered by its position, so the tasks and
//! the outputs are sorted and joined on disk as for the other verifiers, and nothing
//! but the corpus grows with the rows. Each task is graded by the verifier of the whole
//! truth, so the grades are its grades.

use std::sync::OnceLock;

use super::ArxivVerifier;
use super::truth::load_truth;
use crate::verify::{BadRow, Grade, Rowwise, TruthRow, TruthRows, Verifier};

/// The arxiv verifier as a [`Rowwise`]: the verifier of the whole truth, held once the
/// truth is read.
#[derive(Default)]
pub(crate) struct ArxivRows {
    verifier: OnceLock<ArxivVerifier>,
}

impl ArxivRows {
    /// An arxiv verifier whose truth is not read yet.
    pub(crate) fn new() -> ArxivRows {
        ArxivRows::default()
    }
}

impl Rowwise for ArxivRows {
    /// Reads `rows` as [`ArxivVerifier::build`] does, the whole file checked before a
    /// row is handed on: its first error is said as line 0, and a clean file repeats no
    /// task (its IDs are distinct), so no repeat comes before it.
    fn read(
        &self,
        rows: TruthRows<'_>,
        each: &mut dyn FnMut(&TruthRow<'_>),
    ) -> Result<u64, BadRow> {
        let loaded = load_truth(rows).map_err(|error| BadRow {
            line: 0,
            error,
            id: None,
        })?;
        let lines = loaded.lines.clone();
        let verifier = ArxivVerifier::from_loaded(loaded);
        let tasks = verifier.task_count();
        for index in 0..tasks {
            let (group, kind) = verifier.task_names(index);
            // Fewer than 2^32 - 2 papers: loading refuses more.
            let paper = u32::try_from(index / super::KINDS.len()).unwrap_or(u32::MAX - 2);
            each(&TruthRow {
                line: lines.of(paper),
                group,
                kind,
                answer: "",
                options: "",
                distinct: index as u64,
            });
        }
        let _ = self.verifier.set(verifier);
        Ok(tasks as u64)
    }

    /// Grades `output` as the task handed on with the number `distinct` (its position
    /// among the verifier's tasks) is graded by the verifier of the whole truth.
    fn grade(
        &self,
        _answer: &str,
        _options: &str,
        distinct: u64,
        output: &str,
    ) -> Result<Grade, String> {
        let verifier = self
            .verifier
            .get()
            .ok_or_else(|| "the arxiv truth was not read".to_string())?;
        let index = usize::try_from(distinct)
            .ok()
            .filter(|&index| index < verifier.task_count())
            .ok_or_else(|| format!("no arxiv task {distinct}"))?;
        Ok(Verifier::grade(verifier, index, output))
    }
}
