//! Task order: the order pairs are kept and reported in, found once for the baseline
//! (with its repeated tasks) and applied when pairing ends.

use crate::admission::pairing::Pair;
use crate::texts::Texts;

/// The pairs' numbers in task order, then row order, and the neighbours in that order
/// that may share a task (all that do, and a few more). A sort of integers made of the
/// tasks' first 12 bytes and the pair's number settles the order of every pair whose
/// prefix no other shares; each run of pairs that share one is then sorted by the
/// whole task. Pairs already in task order are not sorted. Time: O(n log n); memory:
/// 16 bytes per pair while sorting, 4 kept.
pub(super) fn task_order(texts: &Texts, pairs: &[Pair]) -> (Vec<u32>, Vec<(u32, u32)>) {
    let task = |pair: u32| texts.get(pairs[pair as usize].task);
    if pairs
        .windows(2)
        .all(|w| texts.get(w[0].task) < texts.get(w[1].task))
    {
        return ((0..pairs.len() as u32).collect(), Vec::new());
    }
    // The prefix, zero-padded (which keeps the integers in the order of the strings),
    // above the pair's number.
    let key = |at: usize, pair: &Pair| {
        let task = texts.get(pair.task).as_bytes();
        let mut bytes = [0_u8; 16];
        let head = &task[..task.len().min(12)];
        bytes[..head.len()].copy_from_slice(head);
        bytes[12..].copy_from_slice(&(at as u32).to_be_bytes());
        u128::from_be_bytes(bytes)
    };
    let prefix = |key: u128| key >> 32;
    let number = |key: u128| key as u32;
    let mut keys: Vec<u128> = pairs
        .iter()
        .enumerate()
        .map(|(at, pair)| key(at, pair))
        .collect();
    keys.sort_unstable();
    // Runs that share a prefix: by the whole task, then by number (as they are).
    let mut neighbours = Vec::new();
    let mut start = 0;
    while start < keys.len() {
        let end = start
            + keys[start..]
                .iter()
                .position(|&k| prefix(k) != prefix(keys[start]))
                .unwrap_or(keys.len() - start);
        if end - start > 1 {
            let run = &mut keys[start..end];
            run.sort_by(|x, y| task(number(*x)).cmp(task(number(*y))));
            // Tasks with different prefixes differ.
            neighbours.extend(run.windows(2).map(|w| (number(w[0]), number(w[1]))));
        }
        start = end;
    }
    (keys.into_iter().map(number).collect(), neighbours)
}

/// Moves `pairs` into `order` (a permutation: position `i` receives pair `order[i]`)
/// in place, following each cycle. Time: O(n); memory: 1 byte per pair.
pub(super) fn permute(pairs: &mut [Pair], order: &[u32]) {
    if order
        .iter()
        .enumerate()
        .all(|(at, &from)| at == from as usize)
    {
        return;
    }
    let mut placed = vec![false; pairs.len()];
    for start in 0..pairs.len() {
        if placed[start] {
            continue;
        }
        let mut at = start;
        loop {
            placed[at] = true;
            let from = order[at] as usize;
            if from == start {
                break;
            }
            pairs.swap(at, from);
            at = from;
        }
    }
}
