//! Task order: the order pairs are kept and reported in, found once for the baseline
//! (with its repeated tasks) and applied when pairing ends.

use crate::admission::pairing::Pair;
use crate::texts::Texts;

/// The pairs' numbers in task order, then row order, and the neighbours in that order
/// that may share a task (all that do, and a few more). A sort on the tasks' first 12
/// bytes (as two integers) settles most comparisons without reading the tasks; pairs
/// already in task order are not sorted. Time: O(n log n); memory: 16 bytes per pair
/// while sorting, 4 kept.
pub(super) fn task_order(texts: &Texts, pairs: &[Pair]) -> (Vec<u32>, Vec<(u32, u32)>) {
    let task = |pair: &Pair| texts.get(pair.task);
    if pairs.windows(2).all(|w| task(&w[0]) < task(&w[1])) {
        return ((0..pairs.len() as u32).collect(), Vec::new());
    }
    let prefix = |task: &str| {
        let mut bytes = [0_u8; 12];
        let head = &task.as_bytes()[..task.len().min(12)];
        bytes[..head.len()].copy_from_slice(head);
        let (high, low) = bytes.split_at(8);
        (
            u64::from_be_bytes(high.try_into().expect("8 bytes")),
            u32::from_be_bytes(low.try_into().expect("4 bytes")),
        )
    };
    let mut keys: Vec<(u64, u32, u32)> = pairs
        .iter()
        .enumerate()
        .map(|(at, pair)| {
            let (high, low) = prefix(task(pair));
            (high, low, at as u32)
        })
        .collect();
    // Zero padding keeps the integers in the order of the strings; equal integers
    // fall back to the whole task, then the row.
    keys.sort_unstable_by(|x, y| {
        (x.0, x.1)
            .cmp(&(y.0, y.1))
            .then_with(|| task(&pairs[x.2 as usize]).cmp(task(&pairs[y.2 as usize])))
            .then(x.2.cmp(&y.2))
    });
    // Tasks with different prefixes differ.
    let neighbours = keys
        .windows(2)
        .filter(|w| (w[0].0, w[0].1) == (w[1].0, w[1].1))
        .map(|w| (w[0].2, w[1].2))
        .collect();
    (keys.into_iter().map(|key| key.2).collect(), neighbours)
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
