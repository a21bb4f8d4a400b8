//! An arxiv truth loaded past `score`'s budget: once the papers held would take more
//! than the budget, every paper so far and every one after goes to disk
//! ([`DiskPapers`]), with the grading lookups among them ([`DiskLookups`]), and the
//! repeat checks become two external sorts ([`Sorter`]) of (fingerprint, position)
//! records, one of the valid IDs, one of the normalised titles, instead of hash sets.
//!
//! Once the file is read, papers sharing a fingerprint are read back and compared by
//! their text (so a fingerprint shared by two different IDs or titles finds no
//! repeat), each repeat naming the first paper of its text. The error is then the
//! first problem in file order, a row's own problems (empty cells, a bad ID, the
//! year) found as it is read and ordered with its repeats by [`Slot`]: word for word
//! what the held checks say.

use std::io;

use super::disk::{DiskLookups, DiskLookupsBuilder, HELD_BYTES_A_PAPER};
use super::paper_file::{DiskPapers, DiskPapersBuilder};
use super::row_checks::{Problem, Repeats, Slot, id_repeat, row_problems, title_repeat};
use super::store::{PaperRef, PaperStore};
use crate::base::hash::fingerprint;
use crate::base::sorter::{Budget, RunStore, Sorted, Sorter};
use crate::verify::normalize::normalize;
use crate::verify::one_answer::RowLines;

/// How many bytes of (fingerprint, position) records each repeat sort keeps in
/// memory before it writes a run.
const SORT_BUDGET: Budget = Budget {
    least: 4 << 20,
    per_record: 0,
};

/// The message of a field too long to keep.
pub(crate) fn too_long() -> String {
    "a field is longer than 4 GB; shorten it".to_string()
}

/// Where the papers of a truth go past a budget, and once they are there, what is on
/// disk.
pub(crate) struct Spill {
    budget: usize,
    store: &'static dyn RunStore,
    state: State,
}

enum State {
    Held,
    OnDisk(Box<OnDisk>),
    /// The temporary folder failed: the rest of the file is only read.
    Failed(io::Error),
}

/// The papers, lookups and repeat records written so far, and the first problem of
/// a row's own.
struct OnDisk {
    papers: DiskPapersBuilder,
    lookups: DiskLookupsBuilder<'static>,
    ids: Sorter<'static>,
    titles: Sorter<'static>,
    /// The first problem found by a row alone: its position, slot and problem.
    first: Option<(u32, Slot, Problem)>,
}

/// The repeat checks of rows on disk: each filed to its sort, none found yet.
struct Filed<'a> {
    ids: &'a mut Sorter<'static>,
    titles: &'a mut Sorter<'static>,
    failure: Option<io::Error>,
}

impl Filed<'_> {
    fn file(sorter: &mut Sorter<'static>, position: u32, text: &str) -> io::Result<()> {
        sorter.push(&fingerprint(text).to_be_bytes(), &position.to_be_bytes())
    }
}

impl Repeats for Filed<'_> {
    fn id(&mut self, position: u32, arxiv_id: &str) -> Option<u64> {
        if let Err(error) = Filed::file(self.ids, position, arxiv_id) {
            self.failure.get_or_insert(error);
        }
        None
    }

    fn title(&mut self, position: u32, normalized: &str) -> Option<u64> {
        if let Err(error) = Filed::file(self.titles, position, normalized) {
            self.failure.get_or_insert(error);
        }
        None
    }
}

/// A clean truth's papers on disk.
pub(crate) struct OnDiskTruth {
    /// The papers, in file order.
    pub papers: DiskPapers,
    /// The grading lookups among them.
    pub lookups: DiskLookups,
    /// Each paper's row's line.
    pub lines: RowLines,
}

impl Spill {
    /// Papers held up to about `budget` bytes of lookups, then written to `store`.
    pub(crate) fn new(budget: usize, store: &'static dyn RunStore) -> Spill {
        Spill {
            budget,
            store,
            state: State::Held,
        }
    }

    /// Whether the papers went to disk.
    pub(crate) fn is_on_disk(&self) -> bool {
        !matches!(self.state, State::Held)
    }

    /// Moves the papers of `held` (every row so far, in order, none with a problem)
    /// to disk if they are past the budget, leaving `held` empty; whether they went.
    pub(crate) fn moved(&mut self, held: &mut PaperStore) -> bool {
        if !matches!(self.state, State::Held)
            || held.len().saturating_mul(HELD_BYTES_A_PAPER) <= self.budget
        {
            return false;
        }
        let mut disk = match self.start() {
            Ok(disk) => disk,
            Err(error) => {
                self.state = State::Failed(error);
                *held = PaperStore::default();
                return true;
            }
        };
        let mut moved = || -> io::Result<()> {
            for (position, paper) in held.iter().enumerate() {
                let position = position as u32;
                disk.papers.push(paper)?;
                disk.lookups
                    .add(position as usize, paper.title, paper.first_author)?;
                // Filed as a row read on disk files them; the rows held had no problem.
                let mut filed = Filed {
                    ids: &mut disk.ids,
                    titles: &mut disk.titles,
                    failure: None,
                };
                row_problems(position, paper, Ok(paper.year), &mut filed, &mut |_, _| {});
                if let Some(error) = filed.failure {
                    return Err(error);
                }
            }
            Ok(())
        };
        self.state = match moved() {
            Ok(()) => State::OnDisk(Box::new(disk)),
            Err(error) => State::Failed(error),
        };
        *held = PaperStore::default();
        true
    }

    fn start(&self) -> io::Result<OnDisk> {
        Ok(OnDisk {
            papers: DiskPapersBuilder::new(self.store)?,
            lookups: DiskLookupsBuilder::new(self.store),
            ids: Sorter::new(self.store, SORT_BUDGET),
            titles: Sorter::new(self.store, SORT_BUDGET),
            first: None,
        })
    }

    /// Adds the row at `position`, on `line`, of `paper` (its fields trimmed) and the
    /// year cell read as `year`, to disk: `None` while the papers are held.
    pub(crate) fn add(
        &mut self,
        position: u32,
        line: u64,
        paper: PaperRef<'_>,
        year: Result<u16, &str>,
    ) -> Option<Result<(), String>> {
        let disk = match &mut self.state {
            State::Held => return None,
            State::Failed(_) => return Some(Ok(())),
            State::OnDisk(disk) => disk,
        };
        let OnDisk {
            papers,
            lookups,
            ids,
            titles,
            first,
        } = disk.as_mut();
        if [paper.arxiv_id, paper.title, paper.first_author]
            .iter()
            .any(|field| u32::try_from(field.len()).is_err())
        {
            return Some(Err(too_long()));
        }
        let mut failure = papers
            .push(paper)
            .and_then(|()| lookups.add(position as usize, paper.title, paper.first_author))
            .err();
        let mut filed = Filed {
            ids,
            titles,
            failure: None,
        };
        row_problems(position, paper, year, &mut filed, &mut |slot, message| {
            if first.is_none() {
                *first = Some((position, slot, Problem { line, message }));
            }
        });
        failure = failure.or(filed.failure);
        if let Some(error) = failure {
            self.state = State::Failed(error);
        }
        Some(Ok(()))
    }

    /// The truth on disk, once every row was added (`lines` their lines), or its first
    /// problem; `Err` when the temporary folder failed.
    pub(crate) fn finish(self, lines: &RowLines) -> io::Result<Result<OnDiskTruth, Problem>> {
        let disk = match self.state {
            State::Held => return Err(io::Error::other("the papers were held, not on disk")),
            State::Failed(error) => return Err(error),
            State::OnDisk(disk) => *disk,
        };
        let papers = disk.papers.finish()?;
        let repeats = [
            first_repeat(&papers, disk.ids.finish(), Slot::IdRepeat, lines)?,
            first_repeat(&papers, disk.titles.finish(), Slot::TitleRepeat, lines)?,
        ];
        let first = repeats
            .into_iter()
            .flatten()
            .chain(disk.first)
            .min_by_key(|(position, slot, _)| (*position, *slot));
        if let Some((_, _, problem)) = first {
            return Ok(Err(problem));
        }
        Ok(Ok(OnDiskTruth {
            papers,
            lookups: disk.lookups.finish()?,
            lines: lines.clone(),
        }))
    }
}

/// The first repeat (by position) among the records of `sorted` (fingerprints of IDs
/// for [`Slot::IdRepeat`], of normalised titles for [`Slot::TitleRepeat`]): papers
/// sharing a fingerprint are read back and compared by their text, and a repeat
/// names the first paper of its text.
fn first_repeat(
    papers: &DiskPapers,
    sorted: Sorted,
    slot: Slot,
    lines: &RowLines,
) -> io::Result<Option<(u32, Slot, Problem)>> {
    let text_of = |position: u32| -> io::Result<(String, String)> {
        let paper = papers.read(position as usize)?;
        let paper = paper.get();
        Ok(match slot {
            Slot::IdRepeat => (paper.arxiv_id.to_string(), paper.arxiv_id.to_string()),
            _ => (normalize(paper.title), paper.title.to_string()),
        })
    };
    let mut merged = sorted.merge()?;
    let mut first: Option<(u32, u32, String)> = None;
    let mut group: Vec<u32> = Vec::new();
    let mut group_key: Option<u64> = None;
    loop {
        let record = merged.next_record()?;
        let key = record
            .as_ref()
            .and_then(|(key, _)| <[u8; 8]>::try_from(*key).ok())
            .map(u64::from_be_bytes);
        let same = key.is_some() && key == group_key;
        if !same {
            if group.len() > 1 {
                // Pushed in file order: the group's positions ascend.
                let mut firsts: Vec<(String, u32)> = Vec::new();
                for &position in &group {
                    if first.as_ref().is_some_and(|(at, _, _)| *at < position) {
                        break;
                    }
                    let (text, shown) = text_of(position)?;
                    match firsts.iter().find(|(kept, _)| *kept == text) {
                        Some(&(_, of)) => {
                            first = Some((position, of, shown));
                            break;
                        }
                        None => firsts.push((text, position)),
                    }
                }
            }
            group.clear();
            group_key = key;
        }
        let Some((_, payload)) = record else {
            break;
        };
        let position = <[u8; 4]>::try_from(payload)
            .map(u32::from_be_bytes)
            .map_err(|_| io::Error::other("a repeat record cut short"))?;
        group.push(position);
    }
    Ok(first.map(|(position, of, shown)| {
        let line = lines.of(position);
        let message = match slot {
            Slot::IdRepeat => id_repeat(&shown, lines.of(of)),
            _ => title_repeat(&shown, lines.of(of)),
        };
        (position, slot, Problem { line, message })
    }))
}

#[cfg(test)]
mod tests;
