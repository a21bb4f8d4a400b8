//! The papers of an arxiv truth kept on disk, for `score` past the budget it holds
//! them for ([`super::rows::ArxivRows`]): every paper's fields one record after the
//! other in file order (the lengths of its ID, title and first author, its year, then
//! their text), and held only where every [`STRIDE`]-th paper starts, 8 bytes for 32
//! papers. A paper is read by position (one positioned read of its stride), and all of
//! them in order once, to hand the tasks on.

use super::disk::FirstFailure;
use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{self, BufReader, Read};

use super::store::{PaperRef, PaperSource};
use crate::base::sorter::{Run, RunStore};

/// How many papers a held start covers.
const STRIDE: usize = 32;

/// The bytes before a paper's text: three lengths (u32) and the year (u16).
const HEAD: usize = 14;

/// Papers being written to disk, in order.
pub(crate) struct DiskPapersBuilder {
    run: Box<dyn Run>,
    starts: Vec<u64>,
    /// The bytes appended to the run so far.
    written: u64,
    count: usize,
    chunk: Vec<u8>,
}

impl DiskPapersBuilder {
    /// No papers yet, to be written to a new run of `store`.
    pub(crate) fn new(store: &dyn RunStore) -> io::Result<DiskPapersBuilder> {
        Ok(DiskPapersBuilder {
            run: store.create()?,
            starts: Vec::new(),
            written: 0,
            count: 0,
            chunk: Vec::with_capacity(1 << 16),
        })
    }

    /// Adds a paper after the others.
    pub(crate) fn push(&mut self, paper: PaperRef<'_>) -> io::Result<()> {
        if self.count.is_multiple_of(STRIDE) {
            self.starts.push(self.written + self.chunk.len() as u64);
        }
        for field in [paper.arxiv_id, paper.title, paper.first_author] {
            let length = u32::try_from(field.len())
                .map_err(|_| io::Error::other("a paper's field of 4 GiB or more"))?;
            self.chunk.extend_from_slice(&length.to_le_bytes());
        }
        self.chunk.extend_from_slice(&paper.year.to_le_bytes());
        for field in [paper.arxiv_id, paper.title, paper.first_author] {
            self.chunk.extend_from_slice(field.as_bytes());
        }
        self.count += 1;
        if self.chunk.len() >= 1 << 16 {
            self.run.append(&self.chunk)?;
            self.written += self.chunk.len() as u64;
            self.chunk.clear();
        }
        Ok(())
    }

    /// The papers written, readable.
    pub(crate) fn finish(mut self) -> io::Result<DiskPapers> {
        self.run.append(&self.chunk)?;
        self.written += self.chunk.len() as u64;
        self.run.finish()?;
        self.starts.shrink_to_fit();
        Ok(DiskPapers {
            run: self.run,
            starts: self.starts,
            end: self.written,
            count: self.count,
            failure: FirstFailure::default(),
        })
    }
}

/// Papers on disk, read by position.
pub(crate) struct DiskPapers {
    run: Box<dyn Run>,
    /// Where papers 0, [`STRIDE`], 2 [`STRIDE`]... start.
    starts: Vec<u64>,
    /// The bytes written.
    end: u64,
    count: usize,
    /// The first error reading a paper, said by the grade it spoiled.
    failure: FirstFailure,
}

impl std::fmt::Debug for DiskPapers {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DiskPapers")
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

/// One paper read from disk: its fields in one string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PaperText {
    text: String,
    lengths: [usize; 2],
    year: u16,
}

impl PaperText {
    /// Its fields.
    pub(crate) fn get(&self) -> PaperRef<'_> {
        let [id, title] = self.lengths;
        PaperRef {
            arxiv_id: &self.text[..id],
            title: &self.text[id..id + title],
            first_author: &self.text[id + title..],
            year: self.year,
        }
    }
}

/// A record's head: the lengths of its three fields and its year.
fn head(bytes: &[u8; HEAD]) -> ([usize; 3], u16) {
    let length = |at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
    };
    (
        [length(0), length(4), length(8)],
        u16::from_le_bytes([bytes[12], bytes[13]]),
    )
}

/// A record's text as written (valid UTF-8 unless the file was changed under us).
fn paper_text(bytes: Vec<u8>, lengths: [usize; 3], year: u16) -> io::Result<PaperText> {
    let text = String::from_utf8(bytes).map_err(|_| truncated())?;
    if !text.is_char_boundary(lengths[0]) || !text.is_char_boundary(lengths[0] + lengths[1]) {
        return Err(truncated());
    }
    Ok(PaperText {
        text,
        lengths: [lengths[0], lengths[1]],
        year,
    })
}

fn truncated() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "the papers kept on disk are cut short or changed",
    )
}

impl DiskPapers {
    /// How many papers there are.
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Paper `index` (below [`DiskPapers::len`]), read from disk.
    pub(crate) fn read(&self, index: usize) -> io::Result<PaperText> {
        let stride = index / STRIDE;
        let (Some(&start), true) = (self.starts.get(stride), index < self.count) else {
            return Err(io::Error::other(format!("no paper {index} on disk")));
        };
        let end = self.starts.get(stride + 1).copied().unwrap_or(self.end);
        let mut block = vec![0u8; usize::try_from(end - start).map_err(io::Error::other)?];
        self.run.read_at(start, &mut block)?;
        let mut at = 0;
        for skipped in 0..=index % STRIDE {
            let head_bytes: &[u8; HEAD] = block
                .get(at..at + HEAD)
                .and_then(|bytes| bytes.try_into().ok())
                .ok_or_else(truncated)?;
            let (lengths, year) = head(head_bytes);
            let text_at = at + HEAD;
            let text_end = text_at + lengths.iter().sum::<usize>();
            if skipped == index % STRIDE {
                let bytes = block.get(text_at..text_end).ok_or_else(truncated)?;
                return paper_text(bytes.to_vec(), lengths, year);
            }
            at = text_end;
        }
        Err(truncated())
    }

    /// Hands every paper to `each` in order, with its position, reading the file once.
    pub(crate) fn each(&self, each: &mut dyn FnMut(usize, PaperRef<'_>)) -> io::Result<()> {
        let mut reader = BufReader::with_capacity(1 << 16, self.run.reader()?);
        let mut head_bytes = [0u8; HEAD];
        for position in 0..self.count {
            reader.read_exact(&mut head_bytes)?;
            let (lengths, year) = head(&head_bytes);
            let mut bytes = vec![0u8; lengths.iter().sum()];
            reader.read_exact(&mut bytes)?;
            each(position, paper_text(bytes, lengths, year)?.get());
        }
        Ok(())
    }

    /// The first error reading a paper since the last call, taken.
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure.take()
    }
}

/// The papers as grading one paper sees them: that paper's fields as its task's row
/// carries them, every other paper read from disk (the last one read kept). A paper
/// that cannot be read is empty, and the failure is kept for the grade to report.
pub(crate) struct Seen<'a> {
    papers: &'a DiskPapers,
    /// The paper graded.
    graded: usize,
    /// Its title and first author, where the row carries them.
    title: Option<&'a str>,
    first_author: Option<&'a str>,
    last: RefCell<Option<(usize, PaperText)>>,
}

impl<'a> Seen<'a> {
    /// `papers` as grading paper `graded`, whose title and first author are given
    /// where known, sees them.
    pub(crate) fn new(
        papers: &'a DiskPapers,
        graded: usize,
        title: Option<&'a str>,
        first_author: Option<&'a str>,
    ) -> Seen<'a> {
        Seen {
            papers,
            graded,
            title,
            first_author,
            last: RefCell::new(None),
        }
    }

    /// What `field` gives of paper `index`, read from disk (or the last one read).
    fn field(&self, index: usize, field: fn(PaperRef<'_>) -> &str) -> String {
        let mut last = self.last.borrow_mut();
        if let Some((at, paper)) = last.as_ref()
            && *at == index
        {
            return field(paper.get()).to_string();
        }
        match self.papers.read(index) {
            Ok(paper) => {
                let value = field(paper.get()).to_string();
                *last = Some((index, paper));
                value
            }
            Err(error) => {
                self.papers.failure.keep(error);
                String::new()
            }
        }
    }
}

impl PaperSource for Seen<'_> {
    fn count(&self) -> usize {
        self.papers.len()
    }

    fn title(&self, index: usize) -> Cow<'_, str> {
        match self.title {
            Some(title) if index == self.graded => Cow::Borrowed(title),
            _ => Cow::Owned(self.field(index, |paper| paper.title)),
        }
    }

    fn first_author(&self, index: usize) -> Cow<'_, str> {
        match self.first_author {
            Some(author) if index == self.graded => Cow::Borrowed(author),
            _ => Cow::Owned(self.field(index, |paper| paper.first_author)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::MemoryRuns;

    #[test]
    fn gives_back_every_paper_by_position_and_in_order_across_strides() {
        let papers: Vec<(String, String, String, u16)> = (0..100)
            .map(|i| {
                (
                    format!("17{i:02}.0{i:04}"),
                    if i % 9 == 0 {
                        String::new()
                    } else {
                        format!("Titlé {i}")
                    },
                    format!("Ann Öld{}", "x".repeat(i % 7)),
                    2000 + i as u16,
                )
            })
            .collect();
        let mut builder = DiskPapersBuilder::new(&MemoryRuns).unwrap();
        for (id, title, author, year) in &papers {
            builder
                .push(PaperRef {
                    arxiv_id: id,
                    title,
                    first_author: author,
                    year: *year,
                })
                .unwrap();
        }
        let disk = builder.finish().unwrap();
        assert_eq!(disk.len(), 100);
        let as_tuple = |paper: PaperRef<'_>| {
            (
                paper.arxiv_id.to_string(),
                paper.title.to_string(),
                paper.first_author.to_string(),
                paper.year,
            )
        };
        for (index, expected) in papers.iter().enumerate() {
            assert_eq!(&as_tuple(disk.read(index).unwrap().get()), expected);
        }
        assert!(disk.read(100).is_err());
        let mut seen = Vec::new();
        disk.each(&mut |position, paper| seen.push((position, as_tuple(paper))))
            .unwrap();
        let expected: Vec<_> = papers.into_iter().enumerate().collect();
        assert_eq!(seen, expected);
        let view = Seen::new(&disk, 3, Some("Given Title"), None);
        assert_eq!(view.title(3), "Given Title");
        assert_eq!(view.first_author(3), "Ann Öldxxx");
        assert_eq!(view.title(4), "Titlé 4");
        assert_eq!(view.title(200), "");
        assert!(disk.take_failure().is_some());
        assert_eq!(disk.take_failure(), None);
    }
}
