//! The known answers of a facts truth kept on disk, for a truth with more distinct
//! answers than `score` holds in memory ([`super::rows::FactsRows`]): a
//! [`DiskTable`] of one record an alias, keyed by the fingerprints of the kind and the
//! alias, whose value is the kind, the answer's entry (display form and aliases) and
//! the number of its first row in the truth, kept once a (kind, answer), the first.
//!
//! Grading an output looks up each run of its words as long as some alias (the lengths
//! are held), as the index in memory does ([`FactsVerifier::present`]); the table's
//! Bloom filter keeps most runs off the disk, and a run that is one of the task's own
//! aliases is looked up only when the filter says another answer may share it (the
//! task's own answer adds nothing to its grade). The answers found, in the order of
//! their first row, are graded by the same [`grade_found`] as the verifier in memory,
//! so the grades are the same.
//!
//! [`FactsVerifier::present`]: super::FactsVerifier::present

use std::collections::BTreeSet;
use std::io;

use super::super::Grade;
use super::super::normalize::normalize;
use super::{grade_found, word_spans};
use crate::base::disk_table::{DiskTable, DiskTableBuilder};
use crate::base::hash::fingerprint;
use crate::base::sorter::{Budget, RunStore};

/// How many bytes of records the table's sort keeps in memory before it writes a run.
const SORT_BUDGET: Budget = Budget {
    least: 8 << 20,
    per_record: 0,
};

/// The key of alias `alias` of an answer of kind `kind` (whose fingerprint is
/// `kind_print`).
fn alias_key(kind_print: u64, alias: &str) -> u64 {
    fingerprint(alias)
        ^ kind_print
            .rotate_left(29)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Appends the record of an answer of `kind` whose entry is `entry`, first met on row
/// number `order`: the kind and the entry, each after its length, then the order
/// (big-endian, so that of the records of one answer the first sorts first).
fn encode(value: &mut Vec<u8>, kind: &str, entry: &str, order: u64) {
    value.clear();
    for part in [kind, entry] {
        value.extend_from_slice(&(part.len() as u32).to_le_bytes());
        value.extend_from_slice(part.as_bytes());
    }
    value.extend_from_slice(&order.to_be_bytes());
}

/// The kind, entry and order of a record [`encode`] made; None for bytes it did not.
fn decode(value: &[u8]) -> Option<(&str, &str, u64)> {
    let mut rest = value;
    let mut part = || {
        let length = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
        let text = std::str::from_utf8(rest.get(4..4 + length)?).ok()?;
        rest = &rest[4 + length..];
        Some(text)
    };
    let (kind, entry) = (part()?, part()?);
    let order = u64::from_be_bytes(rest.try_into().ok()?);
    Some((kind, entry, order))
}

/// Known answers being gathered.
pub(super) struct KnownBuilder<'s> {
    table: DiskTableBuilder<'s>,
    lengths: BTreeSet<usize>,
    value: Vec<u8>,
}

impl<'s> KnownBuilder<'s> {
    /// No answers yet; the table's runs go to `store`.
    pub(super) fn new(store: &'s dyn RunStore) -> KnownBuilder<'s> {
        KnownBuilder {
            table: DiskTableBuilder::new(store, SORT_BUDGET),
            lengths: BTreeSet::new(),
            value: Vec::new(),
        }
    }

    /// Files the answer whose entry is `entry` for kind `kind`, met on row number
    /// `order` (rows numbered in file order; a later row of the same kind and answer
    /// may be filed again, the first is kept).
    pub(super) fn add(&mut self, kind: &str, entry: &str, order: u64) -> io::Result<()> {
        let kind_print = fingerprint(kind);
        encode(&mut self.value, kind, entry, order);
        for alias in entry.split('|').skip(1) {
            self.lengths.insert(alias.split(' ').count());
            self.table.push(alias_key(kind_print, alias), &self.value)?;
        }
        Ok(())
    }

    /// The answers filed, written out.
    pub(super) fn finish(self) -> io::Result<KnownAnswers> {
        let table = self.table.finish(|kept, next| {
            kept.len() == next.len() && kept[..kept.len() - 8] == next[..next.len() - 8]
        })?;
        Ok(KnownAnswers {
            table,
            lengths: self.lengths.into_iter().collect(),
        })
    }
}

/// Known answers on disk, ready to grade with.
pub(super) struct KnownAnswers {
    table: DiskTable,
    /// How many words the aliases of any kind have, each length once, shortest first.
    lengths: Vec<usize>,
}

impl KnownAnswers {
    /// Grades `output` for a task of kind `kind` whose answer's entry is `entry`, as
    /// [`super::FactsVerifier`] grades it.
    pub(super) fn grade(&self, kind: &str, entry: &str, output: &str) -> io::Result<Grade> {
        let answer = normalize(output);
        let own: Vec<&str> = entry.split('|').skip(1).collect();
        let found = self.present(kind, &own, &answer)?;
        let found: Vec<&str> = found.iter().map(|(_, entry)| entry.as_str()).collect();
        Ok(grade_found(entry, output, &answer, &found))
    }

    /// The entries of the answers of `kind` with an alias that occurs in `answer`
    /// (normalised) as whole words, each once, in the order of their first row, with
    /// that order; the task's own answer (its aliases `own`) may be left out, and so
    /// may another that shares an alias with it only where the filter says none does.
    fn present(&self, kind: &str, own: &[&str], answer: &str) -> io::Result<Vec<(u64, String)>> {
        let kind_print = fingerprint(kind);
        let words = word_spans(answer);
        let mut found: Vec<(u64, String)> = Vec::new();
        let mut block = Vec::new();
        for first in 0..words.len() {
            for &length in &self.lengths {
                let Some(&(_, end)) = words.get(first + length - 1) else {
                    break;
                };
                let run = &answer[words[first].0..end];
                let key = alias_key(kind_print, run);
                if own.contains(&run) && !self.table.may_hold_several(key) {
                    continue;
                }
                self.table.find(key, &mut block, &mut |value| {
                    if let Some((of, entry, order)) = decode(value)
                        && of == kind
                        && entry.split('|').skip(1).any(|alias| alias == run)
                    {
                        found.push((order, entry.to_string()));
                    }
                })?;
            }
        }
        found.sort_unstable();
        found.dedup_by_key(|(order, _)| *order);
        Ok(found)
    }
}
