//! The task list's and the holdout's tasks held compactly, so that the scores files
//! neither wait for them nor are sorted. `split` writes the holdout (and the manifest
//! its ids) with its groups in a shuffled order, and scores files come in theirs: read
//! side by side, nearly every row would wait and every file would go to an external
//! sort. Instead the list and the holdout are read whole first, each task kept in 16
//! bytes: its fingerprint (the join's 64-bit hash, top four bits dropped to make room
//! for the files it is in) and a second 64-bit hash. The scores files are then joined
//! alone and each task they hand over is looked up here; the listed tasks some scores
//! file lacks, and the holdout's tasks no scores file named, are named at the end (with
//! their rows in the list) by reading the list (or the manifest) again.
//!
//! The scores come in their own order and the entries in the fingerprints', so each
//! lookup lands somewhere new in the entries, a miss of the cache: a directory of the
//! fingerprints' top bits (a quarter of a byte a task) takes a lookup to within a few
//! entries of its own, and the join fetches the entries of the baseline's next tasks
//! together ([`TaskIndex::fetch`]), so that their misses overlap.
//!
//! Why a lookup pairs a task with its own entry and with no other:
//! - No two entries share a fingerprint: a task listed twice, a holdout id met twice,
//!   or two ids whose fingerprints collide make [`IndexBuilder::finish`] give up, and
//!   the files are then read side by side as before, comparing whole ids. (The list's
//!   and the holdout's row for one task become one entry only when both hashes agree.)
//!   So every entry stands for exactly one id, and a task's own lookup finds its own
//!   entry: the same id gives the same hashes.
//! - An id other than the entry's is taken for it only when both hashes agree. The
//!   fingerprint is FxHash, which anyone can aim at; the second hash is SipHash-1-3
//!   under keys drawn afresh for every run ([`KeyedHash`]), which nothing
//!   written before the run can aim at: two given different ids agree on it with
//!   probability 2^-64. Each id looked up meets at most one entry with its
//!   fingerprint, so the chance that any of n lookups is wrong is at most n·2^-64
//!   (5·10^-13 at 10^7 tasks), for files chosen with any knowledge of the code.
//! - A lookup that finds nothing is certain: the entry's own id would have found it.
//!
//! The same fingerprints also serve the repeat check of the scores files (see
//! [`super::unique`]): a task met twice in one file marks the entry's bit for that
//! file twice, which makes its fingerprint a suspect, and the file is read again to
//! compare whole ids.

use super::{BASE, CAND, HOLD, LIST};
use crate::base::hash::fingerprint;
use crate::base::keyed::KeyedHash;

/// A fingerprint as kept: its top four bits dropped.
fn canonical(print: u64) -> u64 {
    print << 4 >> 4
}

/// One task: the fingerprint above the files it was met in (four bits), and the
/// keyed hash, in 32-bit words to keep it at 16 bytes aligned to 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry([u32; 4]);

impl Entry {
    fn new(print: u64, mask: u8, check: u64) -> Entry {
        let key = print << 4 | u64::from(mask);
        Entry([
            key as u32,
            (key >> 32) as u32,
            check as u32,
            (check >> 32) as u32,
        ])
    }

    fn print(self) -> u64 {
        (u64::from(self.0[0]) | u64::from(self.0[1]) << 32) >> 4
    }

    fn mask(self) -> u8 {
        (self.0[0] & 0xf) as u8
    }

    fn check(self) -> u64 {
        u64::from(self.0[2]) | u64::from(self.0[3]) << 32
    }
}

/// The entries while the list and the holdout are read.
#[derive(Debug)]
pub(super) struct IndexBuilder {
    entries: Vec<Entry>,
    keyed: KeyedHash,
}

impl IndexBuilder {
    pub(super) fn new() -> IndexBuilder {
        IndexBuilder {
            entries: Vec::new(),
            keyed: KeyedHash::new(),
        }
    }

    /// A task of the list, `held` when the holdout's id beside it (read in step) is the
    /// same.
    pub(super) fn listed(&mut self, task: &str, held: bool) {
        let mask = 1 << LIST | u8::from(held) << HOLD;
        let check = self.keyed.hash(task);
        self.entries
            .push(Entry::new(canonical(fingerprint(task)), mask, check));
    }

    /// An id of the holdout the list beside it does not share (or without a list).
    pub(super) fn held(&mut self, task: &str) {
        let check = self.keyed.hash(task);
        self.entries
            .push(Entry::new(canonical(fingerprint(task)), 1 << HOLD, check));
    }

    /// The index, or `None` when two entries share a fingerprint (a task listed twice,
    /// a holdout id met twice, a collision). Time: O(n log n); memory: 16 bytes per
    /// task.
    pub(super) fn finish(self) -> Option<TaskIndex> {
        let IndexBuilder { mut entries, keyed } = self;
        if entries.len() >= u32::MAX as usize {
            return None;
        }
        entries.sort_unstable_by_key(|e| e.print());
        let mut kept = 0;
        let mut at = 0;
        while at < entries.len() {
            let entry = entries[at];
            let next = entries.get(at + 1).filter(|n| n.print() == entry.print());
            let entry = match next {
                None => entry,
                Some(&next) => {
                    // A listed task and the same holdout id met apart: one entry.
                    if entries
                        .get(at + 2)
                        .is_some_and(|n| n.print() == entry.print())
                        || next.check() != entry.check()
                        || entry.mask() | next.mask() != (1 << LIST | 1 << HOLD)
                        || entry.mask() & next.mask() != 0
                    {
                        return None;
                    }
                    at += 1;
                    Entry::new(entry.print(), entry.mask() | next.mask(), entry.check())
                }
            };
            entries[kept] = entry;
            kept += 1;
            at += 1;
        }
        entries.truncate(kept);
        entries.shrink_to_fit();
        Some(TaskIndex::over(entries, keyed))
    }
}

/// The list's and the holdout's tasks, sorted by fingerprint, each once, with the
/// files each was met in.
#[derive(Debug)]
pub(super) struct TaskIndex {
    entries: Vec<Entry>,
    keyed: KeyedHash,
    /// Where the entries whose fingerprint starts with each `bits` bits start (and,
    /// last, where they end).
    starts: Vec<u32>,
    bits: u32,
}

/// What the index holds of a task: whether the list and the holdout have it, and
/// whether each scores file named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held {
    pub(super) listed: bool,
    pub(super) held: bool,
    pub(super) scored: [bool; 2],
}

impl Held {
    /// Whether the task is still to be handed over at the end: a listed task some
    /// scores file lacks (its gap names the list's row), or a holdout task no scores
    /// file named.
    pub(super) fn left(self) -> bool {
        (self.listed && self.scored != [true, true]) || self.scored == [false, false]
    }
}

impl TaskIndex {
    fn over(entries: Vec<Entry>, keyed: KeyedHash) -> TaskIndex {
        // 16 to 32 entries a bucket (a table of a quarter of a byte a task): a guess
        // within a bucket lands within a few entries of the one looked for, in the
        // cache line fetched ahead or the next (a look into the entries is what costs:
        // they are met in no order).
        let bits = (entries.len() / 16).max(1).ilog2().min(40);
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        for (at, entry) in entries.iter().enumerate() {
            let bucket = (entry.print() >> (60 - bits)) as usize;
            while starts.len() <= bucket {
                starts.push(at as u32);
            }
        }
        while starts.len() <= 1 << bits {
            starts.push(entries.len() as u32);
        }
        TaskIndex {
            entries,
            keyed,
            starts,
            bits,
        }
    }

    /// The entry whose fingerprint is `print` (as [`fingerprint`] gives it): looked
    /// for where it would be in its bucket were the prints there evenly spread (they
    /// are uniform), then on either side, which reads two or three entries.
    fn by_print(&self, print: u64) -> Option<usize> {
        let print = canonical(print);
        let shift = 60 - self.bits;
        let bucket = (print >> shift) as usize;
        let (from, to) = (
            self.starts[bucket] as usize,
            self.starts[bucket + 1] as usize,
        );
        if from == to {
            return None;
        }
        let low = u128::from(print & ((1 << shift) - 1));
        let guess = from + ((low * (to - from) as u128) >> shift) as usize;
        let mut at = guess.min(to - 1);
        if self.entries[at].print() < print {
            while at < to && self.entries[at].print() < print {
                at += 1;
            }
        } else {
            while at > from && self.entries[at - 1].print() >= print {
                at -= 1;
            }
        }
        (at < to && self.entries[at].print() == print).then_some(at)
    }

    /// Reads where each of `prints` would be, so that the misses of the cache overlap
    /// and the lookups that follow find the entries in it: first every bucket's
    /// bounds, then the entries, each in a loop short enough for all its reads to be
    /// under way at once. Gives no answer: a hint to the memory, which the compiler
    /// must not drop.
    pub(super) fn fetch<const N: usize>(&self, prints: &[u64; N], count: usize) {
        let shift = 60 - self.bits;
        let mut spans = [(0_usize, 0_usize, 0_u64); N];
        for (span, &print) in spans.iter_mut().zip(prints).take(count) {
            let print = canonical(print);
            let bucket = (print >> shift) as usize;
            *span = (
                self.starts[bucket] as usize,
                self.starts[bucket + 1] as usize,
                print & ((1 << shift) - 1),
            );
        }
        let mut seen = 0_u32;
        for &(from, to, low) in spans.iter().take(count) {
            if from < to {
                let guess = from + ((u128::from(low) * (to - from) as u128) >> shift) as usize;
                // The guess and an entry on either side: the walk from the guess
                // rarely goes further.
                for at in [guess.saturating_sub(2).max(from), guess, guess + 2] {
                    seen ^= self.entries[at.min(to - 1)].0[0];
                }
            }
        }
        std::hint::black_box(seen);
    }

    /// The entry of `task` (whose fingerprint is `print`), if the list or the holdout
    /// has it.
    pub(super) fn find(&self, print: u64, task: &str) -> Option<usize> {
        self.by_print(print)
            .filter(|&at| self.entries[at].check() == self.keyed.hash(task))
    }

    /// What the list and the holdout hold of entry `at`.
    pub(super) fn held(&self, at: usize) -> Held {
        let mask = self.entries[at].mask();
        Held {
            listed: mask & 1 << LIST != 0,
            held: mask & 1 << HOLD != 0,
            scored: [mask & 1 << BASE != 0, mask & 1 << CAND != 0],
        }
    }

    /// Marks entry `at` met in scores file `side`; whether it was met there already.
    pub(super) fn mark(&mut self, at: usize, side: usize) -> bool {
        let word = &mut self.entries[at].0[0];
        let again = *word & 1 << side != 0;
        *word |= 1 << side;
        again
    }

    /// Whether a task with fingerprint `print` was met in scores file `side`, as far
    /// as the fingerprints tell: `false` is certain.
    pub(super) fn met(&self, side: usize, print: u64) -> bool {
        self.by_print(print)
            .is_some_and(|at| self.entries[at].mask() & 1 << side != 0)
    }

    /// The tasks [`Held::left`] to hand over at the end: how many the list has, and
    /// how many only the holdout has.
    pub(super) fn left(&self) -> (usize, usize) {
        (0..self.entries.len())
            .map(|at| self.held(at))
            .filter(|held| held.left())
            .fold((0, 0), |(listed, held), h| {
                if h.listed {
                    (listed + 1, held)
                } else {
                    (listed, held + 1)
                }
            })
    }

    /// The entry of `task` when it is [`Held::left`] to hand over.
    pub(super) fn find_left(&self, task: &str) -> Option<Held> {
        let at = self.find(fingerprint(task), task)?;
        Some(self.held(at)).filter(|held| held.left())
    }
}

#[cfg(test)]
mod tests;
