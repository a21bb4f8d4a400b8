//! The lookups grading does among every paper, kept on disk for a truth with more
//! papers than `score` holds them for ([`super::rows::ArxivRows`]): one
//! [`DiskTable`] of three kinds of record, each keyed by a fingerprint and told apart
//! by its value's first byte.
//!
//! - A node of the title trie: every word sequence that begins a title variant, keyed
//!   by the fingerprint of its words joined by spaces, with one record saying it is a
//!   node and one for each paper having a variant that is exactly that sequence.
//! - A word of some title's normalised form, keyed by its fingerprint, its text the
//!   value.
//! - A first author's surname core ([`surname_core`]), keyed by its fingerprint, with
//!   one record a paper of that core.
//!
//! A fingerprint may be shared: a paper found under a sequence or a surname is checked
//! against its own title variants or author, and a word against its text, so the
//! answers are those of the lookups held in memory ([`super::titles::TitleIndex`],
//! [`super::authors::SurnameIndex`]); a sequence taken for a node by a shared
//! fingerprint only lets the walk go one word further, where any paper found is
//! checked. What stays in memory is the table's Bloom filter and sparse index.

use std::borrow::Cow;
use std::io;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::authors::surname_core;
use super::store::PaperSource;
use super::titles::variants;
use crate::base::disk_table::{DiskTable, DiskTableBuilder};
use crate::base::hash::fingerprint;
use crate::base::sorter::{Budget, RunStore};
use crate::verify::normalize::normalize;

/// How many bytes of lookups are held in memory before they go to disk.
pub(crate) const HELD_LOOKUP_BYTES: usize = 16 << 20;

/// About how many bytes the lookups held in memory take a paper (the title trie and
/// variants, the content words, the surname index), measured on generated truths.
pub(crate) const HELD_BYTES_A_PAPER: usize = 280;

/// How many bytes of records the table's sort keeps in memory before it writes a run.
const SORT_BUDGET: Budget = Budget {
    least: 8 << 20,
    per_record: 0,
};

/// How many keys of nodes that no paper ends at are remembered (a power of two, 512
/// KB of them): the words that begin many titles are looked up again and again.
const REMEMBERED_NODES: usize = 1 << 16;

/// The first byte of a node's records.
const NODE: u8 = b'n';
/// The first byte of a title word's record.
const WORD: u8 = b'w';
/// The first byte of a surname's records.
const SURNAME: u8 = b's';

/// The key of the record kind `tag` for `text`.
fn key(tag: u8, text: &str) -> u64 {
    fingerprint(text) ^ u64::from(tag).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A record of kind `tag` naming paper `position`.
fn of_paper(tag: u8, position: usize) -> [u8; 5] {
    let mut value = [tag, 0, 0, 0, 0];
    // Fewer than 2^32 - 2 papers: loading refuses more.
    value[1..].copy_from_slice(&(position as u32).to_be_bytes());
    value
}

/// The paper a record made by [`of_paper`] names, if `value` is one of kind `tag`.
fn paper_of(tag: u8, value: &[u8]) -> Option<usize> {
    match value {
        [first, a, b, c, d] if *first == tag => Some(u32::from_be_bytes([*a, *b, *c, *d]) as usize),
        _ => None,
    }
}

/// The searchable forms of paper `position`'s title, as the trie holds them.
pub(crate) fn title_variants(papers: &dyn PaperSource, position: usize) -> Vec<String> {
    let title = papers.title(position);
    variants(&title, normalize(&title))
}

/// The grading lookups of papers being added, one after the other.
pub(crate) struct DiskLookupsBuilder<'s> {
    table: DiskTableBuilder<'s>,
    empty_title: bool,
    value: Vec<u8>,
    sequence: String,
}

impl<'s> DiskLookupsBuilder<'s> {
    /// No papers yet; the table is written to `store`.
    pub(crate) fn new(store: &'s dyn RunStore) -> DiskLookupsBuilder<'s> {
        DiskLookupsBuilder {
            table: DiskTableBuilder::new(store, SORT_BUDGET),
            empty_title: false,
            value: Vec::new(),
            sequence: String::new(),
        }
    }

    /// Adds the paper at `position` (the next one), of `title` and `first_author`.
    pub(crate) fn add(
        &mut self,
        position: usize,
        title: &str,
        first_author: &str,
    ) -> io::Result<()> {
        let (table, value, sequence) = (&mut self.table, &mut self.value, &mut self.sequence);
        let normalized = normalize(title);
        self.empty_title |= normalized.is_empty();
        let forms = variants(title, normalized);
        for (number, form) in forms.iter().enumerate() {
            sequence.clear();
            for (at, word) in form.split(' ').enumerate() {
                if at > 0 {
                    sequence.push(' ');
                }
                sequence.push_str(word);
                table.push(key(NODE, sequence), &[NODE])?;
            }
            table.push(key(NODE, sequence), &of_paper(NODE, position))?;
            if number == 0 {
                let mut words: Vec<&str> = form.split(' ').collect();
                words.sort_unstable();
                words.dedup();
                for word in &words {
                    value.clear();
                    value.push(WORD);
                    value.extend_from_slice(word.as_bytes());
                    table.push(key(WORD, word), value)?;
                }
            }
        }
        let core = surname_core(first_author);
        if !core.is_empty() {
            table.push(key(SURNAME, &core), &of_paper(SURNAME, position))?;
        }
        Ok(())
    }

    /// The lookups of the papers added.
    pub(crate) fn finish(self) -> io::Result<DiskLookups> {
        Ok(DiskLookups {
            table: self.table.finish(|kept, next| kept == next)?,
            empty_title: self.empty_title,
            failure: FirstFailure::default(),
            bare_nodes: (0..REMEMBERED_NODES).map(|_| AtomicU64::new(0)).collect(),
        })
    }
}

/// The first error of reads on disk made where none can be returned (a walk of the
/// lookups, a paper read while grading), kept for the grade it spoiled to say.
#[derive(Debug, Default)]
pub(crate) struct FirstFailure(Mutex<Option<String>>);

impl FirstFailure {
    /// Keeps `error`, unless an earlier one is kept.
    pub(crate) fn keep(&self, error: io::Error) {
        let mut failure = self.0.lock().unwrap_or_else(|poison| poison.into_inner());
        failure.get_or_insert_with(|| error.to_string());
    }

    /// The error kept since the last call, taken.
    pub(crate) fn take(&self) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .take()
    }
}

/// The grading lookups of every paper, on disk.
pub(crate) struct DiskLookups {
    table: DiskTable,
    /// Whether some title normalises to nothing (whose one word is the empty one).
    empty_title: bool,
    /// The first error reading the table, said by the grade it spoiled.
    failure: FirstFailure,
    /// Keys of nodes found with no paper ending at them, each in the slot its low
    /// bits name (0: none): such a key is a node without ends, as the table says,
    /// without a read.
    bare_nodes: Vec<AtomicU64>,
}

impl std::fmt::Debug for DiskLookups {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DiskLookups")
            .field("empty_title", &self.empty_title)
            .finish_non_exhaustive()
    }
}

impl DiskLookups {
    /// The lookups of `papers`, written to `store`.
    #[cfg(test)]
    pub(crate) fn build(
        papers: &super::store::PaperStore,
        store: &dyn RunStore,
    ) -> io::Result<DiskLookups> {
        let mut builder = DiskLookupsBuilder::new(store);
        for (position, paper) in papers.iter().enumerate() {
            builder.add(position, paper.title, paper.first_author)?;
        }
        builder.finish()
    }

    /// The first error reading the table since the last call, taken.
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure.take()
    }

    /// The papers whose title variant is a run of `answer`'s words (normalised),
    /// ascending, each once: what [`super::titles::TitleIndex`]'s walk finds before it
    /// sets aside titles inside longer ones.
    pub(crate) fn titles_in(&self, papers: &dyn PaperSource, answer: &str) -> Vec<usize> {
        self.titles_read(papers, answer).unwrap_or_else(|error| {
            self.failure.keep(error);
            Vec::new()
        })
    }

    fn titles_read(&self, papers: &dyn PaperSource, answer: &str) -> io::Result<Vec<usize>> {
        let words: Vec<&str> = answer.split(' ').collect();
        let mut found: Vec<usize> = Vec::new();
        let mut block = Vec::new();
        let mut sequence = String::new();
        let mut ends: Vec<usize> = Vec::new();
        for start in 0..words.len() {
            sequence.clear();
            for (at, word) in words[start..].iter().enumerate() {
                if word.is_empty() {
                    break;
                }
                if at > 0 {
                    sequence.push(' ');
                }
                sequence.push_str(word);
                let node_key = key(NODE, &sequence);
                let slot = &self.bare_nodes[node_key as usize & (REMEMBERED_NODES - 1)];
                if node_key != 0 && slot.load(Ordering::Relaxed) == node_key {
                    continue;
                }
                let mut node = false;
                ends.clear();
                self.table.find(node_key, &mut block, &mut |value| {
                    if value == [NODE] {
                        node = true;
                    } else if let Some(paper) = paper_of(NODE, value) {
                        ends.push(paper);
                    }
                })?;
                if !node {
                    break;
                }
                if ends.is_empty() {
                    slot.store(node_key, Ordering::Relaxed);
                }
                for &paper in &ends {
                    if paper < papers.count() && title_variants(papers, paper).contains(&sequence) {
                        found.push(paper);
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        Ok(found)
    }

    /// Whether `word` (normalised) is a word of some title's normalised form.
    pub(crate) fn is_title_word(&self, word: &str) -> bool {
        if word.is_empty() {
            return self.empty_title;
        }
        let mut found = false;
        let mut block = Vec::new();
        let read = self.table.find(key(WORD, word), &mut block, &mut |value| {
            found |= value.first() == Some(&WORD) && &value[1..] == word.as_bytes();
        });
        if let Err(error) = read {
            self.failure.keep(error);
        }
        found
    }

    /// The papers whose first author's surname core is `core`, ascending.
    pub(crate) fn named(&self, papers: &dyn PaperSource, core: &str) -> Cow<'static, [u32]> {
        if core.is_empty() {
            return Cow::Borrowed(&[]);
        }
        let mut named: Vec<u32> = Vec::new();
        let mut block = Vec::new();
        let read = self
            .table
            .find(key(SURNAME, core), &mut block, &mut |value| {
                if let Some(paper) = paper_of(SURNAME, value)
                    && paper < papers.count()
                    && surname_core(&papers.first_author(paper)) == core
                {
                    named.push(paper as u32);
                }
            });
        if let Err(error) = read {
            self.failure.keep(error);
            named.clear();
        }
        Cow::Owned(named)
    }
}

/// The share of paper `position`'s title words of three or more letters present as
/// words of `answer` (normalised), with the counts, or `None` when it has no such
/// words: [`super::titles::TitleIndex::word_share_words`] from the title itself.
pub(crate) fn word_share(
    papers: &dyn PaperSource,
    position: usize,
    answer: &str,
) -> Option<(usize, usize)> {
    let forms = title_variants(papers, position);
    let first = forms.first()?;
    let mut content: Vec<&str> = first
        .split(' ')
        .filter(|word| word.chars().count() >= 3)
        .collect();
    content.sort_unstable();
    content.dedup();
    if content.is_empty() {
        return None;
    }
    let present = content
        .iter()
        .filter(|word| answer.split(' ').any(|said| said == **word))
        .count();
    Some((present, content.len()))
}
