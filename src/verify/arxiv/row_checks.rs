//! The checks of one row of an arxiv truth against itself and the rows before it, in
//! the order [`super::truth::check`] lists them: shared by the checks of the rows held
//! (hash sets of fingerprints, [`Held`]) and of the rows on disk (external sorts,
//! [`super::spill`]), so both say the same problems word for word.

use super::ids::is_valid_id;
use super::store::{PaperRef, PaperStore};
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
use crate::verify::normalize::normalize;
use crate::verify::one_answer::RowLines;

/// The columns of an arxiv truth file.
pub const PAPER_COLUMNS: [&str; 4] = ["arxiv_id", "title", "first_author", "year"];

/// One problem found in a truth file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The 1-based line of the row.
    pub line: u64,
    /// What is wrong.
    pub message: String,
}

/// The year an arXiv ID implies: 2000 + YY for new-style IDs, 19YY or 20YY (from the
/// YY of `YYMMNNN`, 91–99 meaning the 1990s) for old-style ones.
pub fn implied_year(arxiv_id: &str) -> Option<u16> {
    let digits = match arxiv_id.split_once('/') {
        Some((_, number)) => number,
        None => arxiv_id,
    };
    let yy: u16 = digits.get(..2)?.parse().ok()?;
    match (arxiv_id.contains('/'), yy) {
        (false, _) => Some(2000 + yy),
        (true, 91..=99) => Some(1900 + yy),
        (true, _) => Some(2000 + yy),
    }
}

/// Where a problem stands among the problems of its row: the empty cells and a bad
/// ID, then a repeated ID, a repeated title, then the year.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Slot {
    Cells,
    IdRepeat,
    TitleRepeat,
    Year,
}

/// The repeat checks of a row against the rows before it.
pub(crate) trait Repeats {
    /// The line of the first row with the valid ID `arxiv_id`, if one comes before
    /// the row at `position`; the ID is filed under `position` otherwise.
    fn id(&mut self, position: u32, arxiv_id: &str) -> Option<u64>;
    /// The same for a non-empty normalised title.
    fn title(&mut self, position: u32, normalized: &str) -> Option<u64>;
}

/// The repeat checks of the rows held, by fingerprint, checked against the text.
pub(crate) struct Held<'a> {
    pub papers: &'a PaperStore,
    pub lines: &'a RowLines,
    pub by_id: &'a mut HashIndex,
    pub titles: &'a mut HashIndex,
}

impl Repeats for Held<'_> {
    fn id(&mut self, position: u32, arxiv_id: &str) -> Option<u64> {
        let papers = self.papers;
        let print = fingerprint(arxiv_id);
        match self
            .by_id
            .find(print, |first| papers.arxiv_id(first as usize) == arxiv_id)
        {
            Some(first) => Some(self.lines.of(first)),
            None => {
                self.by_id.insert(print, position);
                None
            }
        }
    }

    fn title(&mut self, position: u32, normalized: &str) -> Option<u64> {
        let papers = self.papers;
        let print = fingerprint(normalized);
        match self.titles.find(print, |first| {
            normalize(papers.get(first as usize).title) == normalized
        }) {
            Some(first) => Some(self.lines.of(first)),
            None => {
                self.titles.insert(print, position);
                None
            }
        }
    }
}

/// The message of a repeated ID first on row `first`.
pub(crate) fn id_repeat(arxiv_id: &str, first: u64) -> String {
    format!("ID {arxiv_id} appears again (first on row {first}); keep one row per paper")
}

/// The message of a repeated title first on row `first`.
pub(crate) fn title_repeat(title: &str, first: u64) -> String {
    format!("title \"{title}\" repeats the title on row {first}")
}

/// Files the problems of the row at `position` whose fields (trimmed) are `paper`
/// and whose year cell reads `year`, in order, each with its [`Slot`]; the repeats
/// are asked of `repeats`.
pub(crate) fn row_problems(
    position: u32,
    paper: PaperRef<'_>,
    year: Result<u16, &str>,
    repeats: &mut dyn Repeats,
    problem: &mut dyn FnMut(Slot, String),
) {
    let PaperRef {
        arxiv_id,
        title,
        first_author: author,
        ..
    } = paper;
    let empty = [
        arxiv_id.is_empty(),
        title.is_empty(),
        author.is_empty(),
        year == Err(""),
    ];
    for (empty, name) in empty.into_iter().zip(PAPER_COLUMNS) {
        if empty {
            problem(
                Slot::Cells,
                format!("`{name}` is empty; fill it in or remove the row"),
            );
        }
    }
    let valid_id = is_valid_id(arxiv_id);
    if !arxiv_id.is_empty() {
        if !valid_id {
            problem(
                Slot::Cells,
                format!(
                    "`{arxiv_id}` is not an arXiv ID (YYMM.NNNN to 1412, YYMM.NNNNN from 1501, or archive/YYMMNNN, without version)"
                ),
            );
        } else if let Some(first) = repeats.id(position, arxiv_id) {
            problem(Slot::IdRepeat, id_repeat(arxiv_id, first));
        }
    }
    let normalized = normalize(title);
    if !normalized.is_empty()
        && let Some(first) = repeats.title(position, &normalized)
    {
        problem(Slot::TitleRepeat, title_repeat(title, first));
    }
    match year {
        Err("") => {}
        Err(year_text) => problem(
            Slot::Year,
            format!("year `{year_text}` is not a whole number"),
        ),
        Ok(value) => {
            if valid_id
                && let Some(implied) = implied_year(arxiv_id)
                && implied != value
            {
                problem(
                    Slot::Year,
                    format!(
                        "year {value} contradicts ID {arxiv_id}, which was first submitted in {implied}"
                    ),
                );
            }
        }
    }
}
