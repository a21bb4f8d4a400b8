//! The arxiv verifier for `score`'s merge join: its truth checked and held as the
//! verifier (the paper corpus, which grading looks other papers up in), and each of a
//! paper's four tasks handed on as a row numbered by its position, so the tasks and
//! the outputs are sorted and joined on disk as for the other verifiers, and nothing
//! but the corpus grows with the rows. Each task is graded by the verifier of the whole
//! truth, so the grades are its grades.
//!
//! Past [`HELD_LOOKUP_BYTES`] of lookups (about 60,000 papers), the lookups grading
//! does among every paper (the title trie, the title words, the authors by surname)
//! are written to a table on disk once the truth is read ([`super::disk`]) instead of
//! being built in memory at the first grade; the papers themselves stay held.

use std::sync::OnceLock;

use super::ArxivVerifier;
use super::disk::{DiskLookups, HELD_BYTES_A_PAPER, HELD_LOOKUP_BYTES};
use super::truth::load_truth;
use crate::base::sorter::{RunStore, run_store};
use crate::verify::{BadRow, Grade, NotGraded, Rowwise, TruthRow, TruthRows, Verifier};

/// The arxiv verifier as a [`Rowwise`]: the verifier of the whole truth, held once the
/// truth is read, its lookups on disk past a budget.
pub(crate) struct ArxivRows {
    verifier: OnceLock<ArxivVerifier>,
    /// How many bytes of lookups are held before they go to disk.
    held: usize,
    /// Where the table on disk is written.
    store: &'static dyn RunStore,
}

impl ArxivRows {
    /// An arxiv verifier whose truth is not read yet.
    pub(crate) fn new() -> ArxivRows {
        ArxivRows::holding(HELD_LOOKUP_BYTES, run_store())
    }

    /// [`ArxivRows::new`] holding at most about `held` bytes of lookups before they
    /// go to `store`.
    pub(crate) fn holding(held: usize, store: &'static dyn RunStore) -> ArxivRows {
        ArxivRows {
            verifier: OnceLock::new(),
            held,
            store,
        }
    }

    /// Whether the lookups of the truth read are on disk.
    #[cfg(test)]
    pub(crate) fn on_disk(&self) -> bool {
        self.verifier.get().is_some_and(|verifier| {
            matches!(verifier.lookups.get(), Some(super::Lookups::OnDisk(_)))
        })
    }
}

/// Why the lookups could not be kept on disk.
fn disk_error(error: std::io::Error) -> BadRow {
    BadRow::kept_on_disk("the arxiv lookups", error)
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
        if verifier.papers.len().saturating_mul(HELD_BYTES_A_PAPER) > self.held {
            verifier
                .use_disk(DiskLookups::build(&verifier.papers, self.store).map_err(disk_error)?);
        }
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
    ) -> Result<Grade, NotGraded> {
        let verifier = self
            .verifier
            .get()
            .ok_or_else(|| NotGraded::Unread("the arxiv truth was not read".to_string()))?;
        let index = usize::try_from(distinct)
            .ok()
            .filter(|&index| index < verifier.task_count())
            .ok_or_else(|| NotGraded::Unread(format!("no arxiv task {distinct}")))?;
        let grade = Verifier::grade(verifier, index, output);
        match verifier.disk_failure() {
            Some(error) => Err(NotGraded::KeptOnDisk {
                what: "the arxiv lookups",
                error,
            }),
            None => Ok(grade),
        }
    }
}
