//! The arxiv verifier for `score`'s merge join: its truth checked and held as the
//! verifier (the paper corpus, which grading looks other papers up in), and each of a
//! paper's four tasks handed on as a row numbered by its position, so the tasks and
//! the outputs are sorted and joined on disk as for the other verifiers. Each task is
//! graded by the verifier of the whole truth, so the grades are its grades.
//!
//! Past [`HELD_LOOKUP_BYTES`] of lookups (about 60,000 papers), the truth goes to disk
//! as it is read ([`super::spill`]): the papers themselves, the lookups grading does
//! among every paper (the title trie, the title words, the authors by surname), and
//! the checks that no ID or title repeats (external sorts). Each task's row then
//! carries the field of its paper that its kind asks for as its answer, so grading
//! reads from disk only the other papers an output names, and what grows with the
//! rows is only the table of lookups' Bloom filter (capped) and sparse index and 8
//! bytes for 32 papers.

use std::sync::OnceLock;

use super::disk::HELD_LOOKUP_BYTES;
use super::paper_file::DiskPapers;
use super::truth::{Loaded, NotLoaded, load_truth_spilling};
use super::{ArxivVerifier, KINDS};
use crate::base::sorter::{RunStore, run_store};
use crate::verify::TruthRows;
use crate::verify::{BadRow, Grade, NotGraded, Rowwise, TruthRow, Verifier};

/// The arxiv verifier as a [`Rowwise`]: the verifier of the whole truth, held once the
/// truth is read, or its papers and lookups on disk past a budget.
pub(crate) struct ArxivRows {
    truth: OnceLock<Truth>,
    /// How many bytes of lookups are held before the truth goes to disk.
    held: usize,
    /// Where the truth on disk is written.
    store: &'static dyn RunStore,
}

/// The truth read: held, or its papers on disk with a verifier of lookups on disk.
enum Truth {
    Held(ArxivVerifier),
    OnDisk {
        verifier: ArxivVerifier,
        papers: DiskPapers,
    },
}

impl ArxivRows {
    /// An arxiv verifier whose truth is not read yet.
    pub(crate) fn new() -> ArxivRows {
        ArxivRows::holding(HELD_LOOKUP_BYTES, run_store())
    }

    /// [`ArxivRows::new`] holding at most about `held` bytes of lookups before the
    /// truth goes to `store`.
    pub(crate) fn holding(held: usize, store: &'static dyn RunStore) -> ArxivRows {
        ArxivRows {
            truth: OnceLock::new(),
            held,
            store,
        }
    }

    /// Whether the truth read, its papers and lookups, is on disk.
    #[cfg(test)]
    pub(crate) fn on_disk(&self) -> bool {
        matches!(self.truth.get(), Some(Truth::OnDisk { .. }))
    }
}

/// Why the truth could not be kept on disk.
fn disk_error(error: std::io::Error) -> BadRow {
    BadRow::kept_on_disk("the arxiv papers and lookups", error)
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
        let loaded = load_truth_spilling(rows, self.held, self.store).map_err(|not| match not {
            NotLoaded::Input(error) => BadRow {
                line: 0,
                error,
                id: None,
            },
            NotLoaded::Disk(error) => disk_error(error),
        })?;
        let (truth, tasks) = match loaded {
            Loaded::Held(loaded) => {
                let lines = loaded.lines.clone();
                let verifier = ArxivVerifier::from_loaded(loaded);
                let tasks = verifier.task_count();
                for index in 0..tasks {
                    let (group, kind) = verifier.task_names(index);
                    // Fewer than 2^32 - 2 papers: loading refuses more.
                    let paper = u32::try_from(index / KINDS.len()).unwrap_or(u32::MAX - 2);
                    each(&TruthRow {
                        line: lines.of(paper),
                        group,
                        kind,
                        answer: "",
                        options: "",
                        distinct: index as u64,
                    });
                }
                (Truth::Held(verifier), tasks)
            }
            Loaded::OnDisk(truth) => {
                let lines = truth.lines;
                truth
                    .papers
                    .each(&mut |position, paper| {
                        let year = paper.year.to_string();
                        let fields = [paper.arxiv_id, paper.title, paper.first_author, &year];
                        for (kind, field) in fields.into_iter().enumerate() {
                            each(&TruthRow {
                                line: lines.of(position as u32),
                                group: paper.arxiv_id,
                                kind: KINDS[kind],
                                answer: field,
                                options: "",
                                distinct: (position * KINDS.len() + kind) as u64,
                            });
                        }
                    })
                    .map_err(disk_error)?;
                let tasks = truth.papers.len() * KINDS.len();
                let verifier = ArxivVerifier::with_lookups_on_disk(truth.lookups);
                (
                    Truth::OnDisk {
                        verifier,
                        papers: truth.papers,
                    },
                    tasks,
                )
            }
        };
        let _ = self.truth.set(truth);
        Ok(tasks as u64)
    }

    /// Grades `output` as the task handed on with the number `distinct` (its position
    /// among the verifier's tasks) is graded by the verifier of the whole truth; on
    /// disk, from the field of its paper that `answer` carries.
    fn grade(
        &self,
        answer: &str,
        _options: &str,
        distinct: u64,
        output: &str,
    ) -> Result<Grade, NotGraded> {
        let truth = self
            .truth
            .get()
            .ok_or_else(|| NotGraded::Unread("the arxiv truth was not read".to_string()))?;
        let tasks = match truth {
            Truth::Held(verifier) => verifier.task_count(),
            Truth::OnDisk { papers, .. } => papers.len() * KINDS.len(),
        };
        let index = usize::try_from(distinct)
            .ok()
            .filter(|&index| index < tasks)
            .ok_or_else(|| NotGraded::Unread(format!("no arxiv task {distinct}")))?;
        let (grade, failure) = match truth {
            Truth::Held(verifier) => (
                Verifier::grade(verifier, index, output),
                verifier
                    .disk_failure()
                    .map(|error| ("the arxiv lookups", error)),
            ),
            Truth::OnDisk { verifier, papers } => {
                let grade = verifier.grade_on_disk(papers, index, answer, output);
                let failure = (verifier
                    .disk_failure()
                    .map(|error| ("the arxiv lookups", error)))
                .or_else(|| {
                    papers
                        .take_failure()
                        .map(|error| ("the arxiv papers", error))
                });
                (grade, failure)
            }
        };
        match failure {
            Some((what, error)) => Err(NotGraded::KeptOnDisk { what, error }),
            None => Ok(grade),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::{MemoryRuns, UnreadableRuns};
    use crate::table::scan::RowScanner;
    use crate::verify::arxiv::disk::HELD_BYTES_A_PAPER;
    use crate::verify::arxiv::truth::{Paper, load_papers, papers_csv};
    use proptest::prelude::*;

    static MEMORY: MemoryRuns = MemoryRuns;
    const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");

    /// A row handed on: its line, group, kind, answer and number.
    type Handed = (u64, String, String, String, u64);

    /// The rows `rows` hands on for the truth `text`.
    fn handed(rows: &ArxivRows, text: &str) -> Vec<Handed> {
        let scanner =
            RowScanner::new("t.csv", Box::new(text.as_bytes()) as Box<dyn std::io::Read>).unwrap();
        let mut handed = Vec::new();
        rows.read(scanner, &mut |row| {
            handed.push((
                row.line,
                row.group.to_string(),
                row.kind.to_string(),
                row.answer.to_string(),
                row.distinct,
            ))
        })
        .unwrap();
        handed
    }

    /// What an output says of `paper` for a task of kind `kind`, in the form `form`.
    fn fact(paper: &Paper, kind: usize, form: usize) -> String {
        let surname = paper.first_author.rsplit(' ').next().unwrap_or_default();
        let words: Vec<&str> = paper.title.split(' ').collect();
        match (kind, form % 4) {
            (0, 0) => format!("arXiv {}", paper.arxiv_id),
            (0, _) => format!("{}v2", paper.arxiv_id),
            (1, 0) => format!("\"{}\"", paper.title),
            (1, 1) => paper.title.to_lowercase(),
            (1, 2) => words[..words.len().div_ceil(2)].join(" "),
            (1, _) => format!("{} Revisited Again", paper.title),
            (2, 0) => paper.first_author.clone(),
            (2, 1) => surname.to_string(),
            (2, 2) => format!("{} et al.", paper.first_author),
            (2, _) => format!("Z. {surname}"),
            (_, 0) => paper.year.to_string(),
            _ => format!("in {} or so", paper.year),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn every_task_graded_from_papers_on_disk_grades_as_the_held_verifier_does(
            chosen in prop::sample::subsequence((0usize..136).collect::<Vec<_>>(), 1..=40).prop_shuffle(),
            spill_after in 0usize..40,
            said in prop::collection::vec((0usize..40, 0usize..4, 0usize..4, 0usize..40, 0usize..5), 40),
        ) {
            let all = load_papers("papers.csv", SHIPPED).unwrap();
            let papers: Vec<Paper> = chosen.iter().map(|&i| all[i].clone()).collect();
            let text = papers_csv(&papers);
            let held = ArxivRows::holding(usize::MAX, &MEMORY);
            let on_disk = ArxivRows::holding(spill_after * HELD_BYTES_A_PAPER, &MEMORY);
            let held_rows = handed(&held, &text);
            let disk_rows = handed(&on_disk, &text);
            prop_assert!(!held.on_disk());
            prop_assert_eq!(on_disk.on_disk(), papers.len() > spill_after);
            prop_assert_eq!(held_rows.len(), 4 * papers.len());
            prop_assert_eq!(disk_rows.len(), held_rows.len());
            let verifier = ArxivVerifier::new(papers.clone());
            for (task, (held_row, disk_row)) in held_rows.iter().zip(&disk_rows).enumerate() {
                // The same tasks, on the same lines, in the same order.
                prop_assert_eq!(&held_row.0, &disk_row.0);
                prop_assert_eq!(&held_row.1, &disk_row.1);
                prop_assert_eq!(&held_row.2, &disk_row.2);
                prop_assert_eq!(held_row.4, task as u64);
                prop_assert_eq!(disk_row.4, task as u64);
                let (paper, kind) = (task / 4, task % 4);
                for &(other, form, pick, second, other_kind) in &said[..5] {
                    let own = &papers[paper];
                    let other = &papers[(other + second) % papers.len()];
                    let output = match pick {
                        0 => format!("I believe it is {}.", fact(own, kind, form)),
                        1 => format!("It is {}.", fact(other, kind, form)),
                        2 => format!("Either {} or {}.", fact(own, kind, form), fact(other, kind, form + 1)),
                        _ => format!("{}; {}", fact(other, other_kind % 4, form), fact(own, kind, form + second)),
                    };
                    let expected = verifier.grade(task, &output);
                    prop_assert_eq!(held.grade(&held_row.3, "", task as u64, &output), Ok(expected.clone()));
                    prop_assert_eq!(
                        on_disk.grade(&disk_row.3, "", task as u64, &output),
                        Ok(expected),
                        "task {} output {:?}", task, output
                    );
                }
            }
        }
    }

    #[test]
    fn papers_on_disk_that_cannot_be_read_back_are_said_as_that_with_the_fix() {
        let all = load_papers("papers.csv", SHIPPED).unwrap();
        let text = papers_csv(&all[..2]);
        // Past the budget, the papers are the first run made.
        let store: &'static UnreadableRuns = Box::leak(Box::new(UnreadableRuns::first(1)));
        let rows = ArxivRows::holding(0, store);
        let handed = handed(&rows, &text);
        assert!(rows.on_disk());
        // The title task of the first paper, answered with the second's title: the
        // second paper's title is read back to check the find.
        let (_, _, kind, answer, distinct) = &handed[1];
        assert_eq!(kind, "title");
        let output = format!("It is \"{}\".", all[1].title);
        let not_graded = rows
            .grade(answer, "", *distinct, &output)
            .expect_err("the other paper cannot be read back");
        assert_eq!(
            not_graded,
            NotGraded::KeptOnDisk {
                what: "the arxiv papers",
                error: "Stale file handle".to_string()
            }
        );
        assert!(
            not_graded
                .to_string()
                .starts_with("cannot read back the arxiv papers kept in the temporary folder")
        );
        // Its own title comes with its row: the right answer grades without a read.
        let output = format!("It is \"{}\".", all[0].title);
        assert!(rows.grade(answer, "", *distinct, &output).is_ok());
    }
}
