//! The papers of an arxiv truth held flat: every paper's ID, title and first author
//! one after the other in one string, and 24 bytes a paper saying where its fields
//! are and its year. A quarter of a million papers take two allocations, where a
//! `Vec` of papers of three `String`s each takes three (and their allocator headers) a
//! paper.

use std::borrow::Cow;

/// Where one paper's fields are: its ID, title and first author one after the other
/// from `start`, the author up to where the next paper starts.
#[derive(Debug, Clone, Copy)]
struct PaperAt {
    /// Where its ID starts in the store's text.
    start: usize,
    /// The lengths of its ID and title.
    lengths: [u32; 2],
    /// Its year.
    year: u16,
}

/// One paper's fields, borrowed from a [`PaperStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PaperRef<'a> {
    /// The arXiv ID.
    pub arxiv_id: &'a str,
    /// The exact title.
    pub title: &'a str,
    /// The first author as the paper gives it.
    pub first_author: &'a str,
    /// The year of the first arXiv submission.
    pub year: u16,
}

/// What grading reads of papers other than the one graded, by position: held
/// ([`PaperStore`]) or read from disk ([`super::paper_file::Seen`]).
pub(crate) trait PaperSource {
    /// How many papers there are.
    fn count(&self) -> usize;
    /// Paper `index`'s exact title (`index` below [`PaperSource::count`]).
    fn title(&self, index: usize) -> Cow<'_, str>;
    /// Paper `index`'s first author as the paper gives it.
    fn first_author(&self, index: usize) -> Cow<'_, str>;
}

impl PaperSource for PaperStore {
    fn count(&self) -> usize {
        self.len()
    }

    fn title(&self, index: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.get(index).title)
    }

    fn first_author(&self, index: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.get(index).first_author)
    }
}

/// Papers by position, their fields in one string.
#[derive(Debug, Clone, Default)]
pub(crate) struct PaperStore {
    /// Every paper's ID, title and first author, one paper after the other.
    text: String,
    /// Each paper, in order.
    papers: Vec<PaperAt>,
}

/// A field too long for the store (4 GB or more).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLong;

impl PaperStore {
    /// Adds a paper after the others.
    pub(crate) fn push(
        &mut self,
        arxiv_id: &str,
        title: &str,
        first_author: &str,
        year: u16,
    ) -> Result<(), TooLong> {
        let (Ok(id_len), Ok(title_len)) =
            (u32::try_from(arxiv_id.len()), u32::try_from(title.len()))
        else {
            return Err(TooLong);
        };
        let start = self.text.len();
        for field in [arxiv_id, title, first_author] {
            self.text.push_str(field);
        }
        self.papers.push(PaperAt {
            start,
            lengths: [id_len, title_len],
            year,
        });
        Ok(())
    }

    /// Gives back the room kept for papers not added.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.papers.shrink_to_fit();
    }

    /// How many papers there are.
    pub(crate) fn len(&self) -> usize {
        self.papers.len()
    }

    /// Paper `index`'s fields (`index` below [`PaperStore::len`]).
    pub(crate) fn get(&self, index: usize) -> PaperRef<'_> {
        let at = self.papers[index];
        let [id, title] = at.lengths.map(|length| length as usize);
        let title_at = at.start + id;
        let author_at = title_at + title;
        let end = self
            .papers
            .get(index + 1)
            .map_or(self.text.len(), |next| next.start);
        PaperRef {
            arxiv_id: &self.text[at.start..title_at],
            title: &self.text[title_at..author_at],
            first_author: &self.text[author_at..end],
            year: at.year,
        }
    }

    /// Paper `index`'s arXiv ID.
    pub(crate) fn arxiv_id(&self, index: usize) -> &str {
        let at = self.papers[index];
        &self.text[at.start..at.start + at.lengths[0] as usize]
    }

    /// Every paper's fields, in order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = PaperRef<'_>> {
        (0..self.len()).map(|index| self.get(index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_every_field_of_every_paper_even_empty_and_non_ascii_ones() {
        let papers = [
            (
                "1706.03762",
                "Attention Is All You Need",
                "Ashish Vaswani",
                2017,
            ),
            ("", "", "", 0),
            ("1810.04805", "BERT: Déjà-vu", "Jacob Devlin", 2018),
            ("hep-th/9901001", "Old Style", "Ann Öld", 1999),
        ];
        let mut store = PaperStore::default();
        for (id, title, author, year) in papers {
            store.push(id, title, author, year).unwrap();
        }
        store.shrink_to_fit();
        assert_eq!(store.len(), 4);
        let back: Vec<(&str, &str, &str, u16)> = store
            .iter()
            .map(|p| (p.arxiv_id, p.title, p.first_author, p.year))
            .collect();
        assert_eq!(back, papers);
        for (index, paper) in papers.iter().enumerate() {
            assert_eq!(store.arxiv_id(index), paper.0);
        }
        assert_eq!(PaperStore::default().len(), 0);
    }
}
