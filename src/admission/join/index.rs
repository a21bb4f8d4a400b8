//! A hash index from task id to pair, for a candidate whose rows come neither in the
//! baseline's order nor in task order: open addressing with linear probing over `u32`
//! pair numbers, the task ids themselves staying in the pairs' text buffer.
//!
//! The hash is `rustc-hash`'s [`FxHasher`], which is not keyed: task ids come from the
//! user's own scores files, not from model output, so nobody hostile chooses them (see
//! `base::hash`).

use std::hash::Hasher;

use crate::base::hash::FxHasher;

/// Task ids' hashes and the pairs they belong to, built once for all the pairs.
#[derive(Debug)]
pub(super) struct TaskIndex {
    /// `(pair + 1, tag)`, `(0, _)` for an empty slot; the tag is the hash's top half,
    /// which also places the entry. At least twice as many slots as pairs, a power of
    /// two, so probes stay short and always meet an empty slot.
    slots: Vec<(u32, u32)>,
}

/// The hash of a task id, as [`TaskIndex`] uses it.
pub(super) fn tag(task: &str) -> u32 {
    let mut hasher = FxHasher::default();
    hasher.write(task.as_bytes());
    (hasher.finish() >> 32) as u32
}

/// Slots per pair at least.
const LOAD: usize = 2;

impl TaskIndex {
    /// An index of pairs `0..n` (n below `u32::MAX`, distinct tasks), whose tags
    /// `tags` gives in that order. Time: O(n) expected; memory: 8 bytes per slot.
    pub(super) fn build(n: usize, tags: impl Iterator<Item = u32>) -> TaskIndex {
        let size = (n * LOAD).next_power_of_two().max(1024);
        let mut slots = vec![(0_u32, 0_u32); size];
        let mask = size - 1;
        for (pair, tag) in tags.take(n).enumerate() {
            let mut at = tag as usize & mask;
            while slots[at].0 != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = (pair as u32 + 1, tag);
        }
        TaskIndex { slots }
    }

    /// The pair whose task has `tag` and passes `is_task`.
    pub(super) fn find(&self, tag: u32, is_task: impl Fn(u32) -> bool) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut at = tag as usize & mask;
        loop {
            match self.slots[at] {
                (0, _) => return None,
                (entry, t) if t == tag && is_task(entry - 1) => return Some(entry - 1),
                _ => at = (at + 1) & mask,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_task_inserted_and_none_other_even_when_tags_collide() {
        let tasks: Vec<String> = (0..5000).map(|i| format!("{i:05}:id")).collect();
        // Every third task is filed under one tag, so probes pass entries with the same
        // tag but another task.
        let tags = tasks
            .iter()
            .enumerate()
            .map(|(pair, task)| if pair % 3 == 0 { 7 } else { tag(task) });
        let index = TaskIndex::build(tasks.len(), tags);
        for (pair, task) in tasks.iter().enumerate() {
            let t = if pair % 3 == 0 { 7 } else { tag(task) };
            let found = index.find(t, |p| tasks[p as usize] == *task);
            assert_eq!(found, Some(pair as u32), "{task}");
        }
        assert_eq!(
            index.find(tag("absent"), |p| tasks[p as usize] == "absent"),
            None
        );
        assert_eq!(index.find(7, |_| false), None);
        assert_eq!(
            TaskIndex::build(0, std::iter::empty()).find(7, |_| true),
            None
        );
    }
}
