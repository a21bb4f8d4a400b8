//! The task list and the holdout presumed to name exactly the tasks both scores files
//! have, as they do when `split`'s holdout is scored in full: then every task the
//! scores files hand over is listed and held, and the join needs no lookup (the
//! [`TaskIndex`](super::index::TaskIndex)'s lookups miss the cache once a task). The
//! list and the holdout are read first into a count and a sum of a keyed hash of
//! their ids; the scores files are joined alone, each task handed over with the list's
//! and the holdout's row attached, its keyed hash added to a sum of its own. The
//! presumption holds when every task came with both scores rows, no file repeated a
//! task, and the counts and the sums agree; otherwise the join stops (as soon as it
//! can tell) and the files are read again with the index, so the outputs are always
//! those of the index's reading.
//!
//! Why agreeing sums mean the same tasks: the hash is SipHash-1-3 under keys drawn
//! afresh for every run ([`KeyedHash`]). Two lists of ids whose multisets differ
//! differ by some id `x` met `d` more times (0 < |d| <= n rows) in one: the sums then
//! agree only when `d` times the hash of `x` meets one value modulo 2^64, which for a
//! hash nothing written before the run can aim at happens with probability at most
//! 2^-64 times the largest power of two dividing `d`: at most n·2^-64 (5·10^-13 at
//! 10^7 rows), the index's own bound. With the scores' tasks each handed over once
//! (no repeat, checked), equal multisets are equal sets.
//!
//! A task the list or the holdout lacks is caught early when its keyed hash is among
//! the sampled ones (one in [`SAMPLE`], by the hash's low bits, which nothing can aim
//! at): those of the list and the holdout are kept in a small table, so scores files
//! with many tasks beyond the list stop the presumption within a few hundred tasks.

use crate::base::keyed::KeyedHash;
use std::io;

use super::{BASE, CAND, HOLD, LIST, SIDES};
use crate::base::hash::FastMap;
use crate::scores::ScoreRow;

/// One keyed hash in this many is sampled (a power of two).
const SAMPLE: u64 = 64;

/// The presumption, while the scores files are joined.
#[derive(Debug)]
pub(super) struct Presumed {
    keyed: KeyedHash,
    /// Whether the list ([`LIST`]) and the holdout ([`HOLD`]) are given, one bit each.
    given: u8,
    /// Ids read from the list and from the holdout, and the sums of their keyed hashes
    /// (at [`LIST`] and [`HOLD`]; the others unused).
    counts: [u64; SIDES],
    sums: [u64; SIDES],
    /// The sampled keyed hashes, with the files (list, holdout) they were met in.
    sampled: FastMap<u64, u8>,
    /// Tasks handed over, and the sum of their keyed hashes.
    handed: u64,
    handed_sum: u64,
}

/// The presumption failed: the join stops, and the files are read again with the
/// index.
#[derive(Debug)]
pub(super) struct Unfounded;

impl std::fmt::Display for Unfounded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the task list or the holdout names other tasks than the scores files")
    }
}

impl std::error::Error for Unfounded {}

/// Whether `error` is the join stopping for [`Unfounded`].
pub(super) fn unfounded(error: &io::Error) -> bool {
    error.get_ref().is_some_and(|inner| inner.is::<Unfounded>())
}

impl Presumed {
    /// Nothing read yet.
    pub(super) fn new() -> Presumed {
        Presumed {
            keyed: KeyedHash::new(),
            given: 0,
            counts: [0; SIDES],
            sums: [0; SIDES],
            sampled: FastMap::default(),
            handed: 0,
            handed_sum: 0,
        }
    }

    /// The list ([`LIST`]) or the holdout ([`HOLD`]) is given: each of its ids comes
    /// to [`Presumed::read`].
    pub(super) fn give(&mut self, side: usize) {
        self.given |= 1 << side;
    }

    /// An id of the list or the holdout (`side`).
    pub(super) fn read(&mut self, side: usize, task: &str) {
        let check = self.keyed.hash(task);
        self.counts[side] += 1;
        self.sums[side] = self.sums[side].wrapping_add(check);
        if check.is_multiple_of(SAMPLE) {
            *self.sampled.entry(check).or_default() |= 1 << side;
        }
    }

    /// Whether the list is given.
    pub(super) fn listed(&self) -> bool {
        self.given & 1 << LIST != 0
    }

    /// Whether the holdout is given.
    pub(super) fn held(&self) -> bool {
        self.given & 1 << HOLD != 0
    }

    /// A task handed over with its rows: [`Unfounded`] when a scores file lacks it,
    /// when it is sampled and the list or the holdout lacks it, or when it is one more
    /// than they name.
    pub(super) fn hand(&mut self, task: &str, rows: &[Option<&ScoreRow>; SIDES]) -> io::Result<()> {
        if rows[BASE].is_none() || rows[CAND].is_none() {
            return Err(io::Error::other(Unfounded));
        }
        let check = self.keyed.hash(task);
        if check.is_multiple_of(SAMPLE)
            && self.sampled.get(&check).copied().unwrap_or(0) != self.given
        {
            return Err(io::Error::other(Unfounded));
        }
        self.handed += 1;
        if self.handed > self.expected() {
            return Err(io::Error::other(Unfounded));
        }
        self.handed_sum = self.handed_sum.wrapping_add(check);
        Ok(())
    }

    /// How many tasks the list and the holdout name (the fewer, when both are given):
    /// how many the scores files hand over when the presumption holds.
    pub(super) fn expected(&self) -> u64 {
        [LIST, HOLD]
            .into_iter()
            .filter(|&side| self.given & 1 << side != 0)
            .map(|side| self.counts[side])
            .min()
            .unwrap_or(0)
    }

    /// Once the join is done and no scores file repeated a task: whether the list and
    /// the holdout named exactly the tasks handed over.
    pub(super) fn holds(&self) -> bool {
        [LIST, HOLD].into_iter().all(|side| {
            self.given & 1 << side == 0
                || (self.counts[side] == self.handed && self.sums[side] == self.handed_sum)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The presumption after reading `list` and `hold` (each when given).
    fn presumed(list: Option<&[&str]>, hold: Option<&[&str]>) -> Presumed {
        let mut presumed = Presumed::new();
        for (side, ids) in [(LIST, list), (HOLD, hold)] {
            if let Some(ids) = ids {
                presumed.give(side);
                for id in ids {
                    presumed.read(side, id);
                }
            }
        }
        presumed
    }

    /// Hands `tasks` over (with both scores rows); whether the presumption holds.
    fn presume(list: Option<&[&str]>, hold: Option<&[&str]>, tasks: &[&str]) -> bool {
        let mut presumed = presumed(list, hold);
        let row = ScoreRow::default();
        let rows = [Some(&row), Some(&row), None, None];
        tasks.iter().all(|task| presumed.hand(task, &rows).is_ok()) && presumed.holds()
    }

    #[test]
    fn holds_when_the_list_and_the_holdout_name_the_scored_tasks_in_any_order() {
        let tasks = ["a", "b", "c"];
        assert!(presume(Some(&["c", "a", "b"]), None, &tasks));
        assert!(presume(None, Some(&["b", "c", "a"]), &tasks));
        assert!(presume(
            Some(&["a", "b", "c"]),
            Some(&["c", "b", "a"]),
            &tasks
        ));
        assert!(presume(Some(&[]), None, &[]));
    }

    #[test]
    fn fails_when_a_task_is_missing_extra_or_named_twice() {
        let tasks = ["a", "b", "c"];
        assert!(!presume(Some(&["a", "b"]), None, &tasks));
        assert!(!presume(Some(&["a", "b", "c", "d"]), None, &tasks));
        assert!(!presume(Some(&["a", "b", "d"]), None, &tasks));
        assert!(!presume(Some(&["a", "a", "b", "c"]), None, &tasks));
        assert!(!presume(
            Some(&["a", "b", "c"]),
            Some(&["a", "b", "b"]),
            &tasks
        ));
        assert!(!presume(None, Some(&["a", "b", "c", "c"]), &tasks));
    }

    #[test]
    fn a_task_without_both_scores_rows_stops_the_presumption_at_once() {
        let mut presumed = presumed(Some(&["a"]), None);
        let row = ScoreRow::default();
        let error = presumed
            .hand("a", &[Some(&row), None, None, None])
            .unwrap_err();
        assert!(unfounded(&error));
        assert!(!unfounded(&io::Error::other("another failure")));
    }

    #[test]
    fn scores_files_with_many_tasks_beyond_the_list_stop_it_early() {
        let listed: Vec<String> = (0..1000).map(|i| format!("t{i}")).collect();
        let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
        let mut presumed = presumed(Some(&listed), None);
        let row = ScoreRow::default();
        let rows = [Some(&row), Some(&row), None, None];
        for task in &listed {
            presumed.hand(task, &rows).expect("listed");
        }
        // Tasks the list lacks: one of them is sampled long before ten thousand.
        let stopped = (0..10_000).position(|i| presumed.hand(&format!("u{i}"), &rows).is_err());
        assert!(stopped.is_some_and(|at| at < 2_000), "{stopped:?}");
    }
}
