//! A hash index from task id to pair, for a candidate whose rows come neither in the
//! baseline's order nor in task order: open addressing with linear probing over `u32`
//! pair numbers, the task ids themselves staying in the pairs' text buffer.
//!
//! The hash is [`WordHasher`], which is not keyed: task ids come from the user's own
//! scores files, not from model output, so nobody hostile chooses them.

use std::hash::Hasher;

use crate::verify::fasthash::WordHasher;

/// Task ids' hashes and the pairs they belong to.
#[derive(Debug, Default)]
pub struct TaskIndex {
    /// `(pair + 1, tag)`, `(0, _)` for an empty slot; the tag is the hash's top half,
    /// which also places the entry, so growing needs no task id.
    slots: Vec<(u32, u32)>,
    len: usize,
}

/// The hash of a task id, as [`TaskIndex`] uses it.
pub fn tag(task: &str) -> u32 {
    let mut hasher = WordHasher::default();
    hasher.write(task.as_bytes());
    (hasher.finish() >> 32) as u32
}

/// Slots per entry at most before the table doubles: probes stay short.
const LOAD: usize = 2;

impl TaskIndex {
    /// The pair whose task has `tag` and passes `is_task`.
    pub fn find(&self, tag: u32, is_task: impl Fn(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
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

    /// An index of pairs `0..n`, whose tags `tags` gives in that order.
    pub fn build(n: usize, tags: impl Iterator<Item = u32>) -> TaskIndex {
        let size = (n * LOAD).next_power_of_two().max(1024);
        let mut index = TaskIndex {
            slots: vec![(0, 0); size],
            len: 0,
        };
        for (pair, tag) in tags.enumerate() {
            index.insert(tag, pair as u32);
        }
        index
    }

    /// Adds `pair` under `tag`; the caller knows its task is not in the index yet.
    /// `pair` must be below `u32::MAX`.
    pub fn insert(&mut self, tag: u32, pair: u32) {
        if (self.len + 1) * LOAD > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = tag as usize & mask;
        while self.slots[at].0 != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at] = (pair + 1, tag);
        self.len += 1;
    }

    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(1024);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); size]);
        let mask = size - 1;
        for (entry, tag) in old.into_iter().filter(|slot| slot.0 != 0) {
            let mut at = tag as usize & mask;
            while self.slots[at].0 != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = (entry, tag);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_task_inserted_and_none_other_even_when_tags_collide() {
        let tasks: Vec<String> = (0..5000).map(|i| format!("{i:05}:id")).collect();
        let mut index = TaskIndex::default();
        for (pair, task) in tasks.iter().enumerate() {
            // Every third task is filed under one tag, so probes pass entries with the
            // same tag but another task.
            let t = if pair % 3 == 0 { 7 } else { tag(task) };
            index.insert(t, pair as u32);
        }
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
        assert_eq!(TaskIndex::default().find(7, |_| true), None);
    }
}
