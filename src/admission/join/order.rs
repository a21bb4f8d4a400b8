//! Task order: the order pairs are kept and reported in, found once for the baseline
//! (with its repeated tasks) and applied when pairing ends.

use crate::admission::pairing::Pair;
use crate::base::arena::Texts;

/// From this many pairs up, [`task_order`] sorts each half on its own thread.
const PARALLEL_FROM: usize = 1 << 16;

/// The pairs' numbers in task order, then row order, and the neighbours in that order
/// that may share a task (all that do, and a few more). A sort of integers made of the
/// tasks' first 12 bytes and the pair's number settles the order of every pair whose
/// prefix no other shares (on many pairs, each half sorted on a thread of its own and
/// the two merged); each run of pairs that share one is then sorted by the whole task.
/// Pairs already in task order are not sorted. Time: O(n log n); memory: 16 bytes per
/// pair while sorting, 4 kept.
pub(super) fn task_order(texts: &Texts, pairs: &[Pair]) -> (Vec<u32>, Vec<(u32, u32)>) {
    task_order_from(texts, pairs, PARALLEL_FROM)
}

/// [`task_order`], sorting halves on two threads from `parallel_from` pairs up.
fn task_order_from(
    texts: &Texts,
    pairs: &[Pair],
    parallel_from: usize,
) -> (Vec<u32>, Vec<(u32, u32)>) {
    let task = |pair: u32| texts.get(pairs[pair as usize].task);
    if pairs
        .windows(2)
        .all(|w| texts.get(w[0].task) < texts.get(w[1].task))
    {
        return ((0..pairs.len() as u32).collect(), Vec::new());
    }
    // The prefix, zero-padded (which keeps the integers in the order of the strings),
    // above the pair's number; the keys of `pairs[from..]` into `part`, sorted.
    let keys_of = |part: &mut [u128], from: usize| {
        for (at, slot) in (from..).zip(part.iter_mut()) {
            let task = texts.get(pairs[at].task).as_bytes();
            let mut bytes = [0_u8; 16];
            let head = &task[..task.len().min(12)];
            bytes[..head.len()].copy_from_slice(head);
            bytes[12..].copy_from_slice(&(at as u32).to_be_bytes());
            *slot = u128::from_be_bytes(bytes);
        }
        part.sort_unstable();
    };
    let mut keys = vec![0_u128; pairs.len()];
    let half = if pairs.len() >= parallel_from {
        pairs.len() / 2
    } else {
        0
    };
    let helped = std::thread::scope(|scope| {
        let (left, right) = keys.split_at_mut(half);
        let helper = (half > 0)
            .then(|| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || keys_of(left, 0))
                    .ok()
            })
            .flatten();
        keys_of(right, half);
        helper.map(|thread| thread.join().expect("sorting does not panic"))
    });
    if helped.is_none() {
        keys_of(&mut keys[..half], 0);
    }
    let (left, right) = keys.split_at(half);
    let prefix = |key: u128| key >> 32;
    let number = |key: u128| key as u32;
    let mut order = Vec::with_capacity(pairs.len());
    let mut neighbours = Vec::new();
    // Keys that share a prefix: by the whole task, then by number (as they are).
    let mut run: Vec<u128> = Vec::new();
    let mut flush = |run: &mut Vec<u128>, order: &mut Vec<u32>| {
        if run.len() > 1 {
            run.sort_by(|x, y| task(number(*x)).cmp(task(number(*y))));
            // Tasks with different prefixes differ.
            neighbours.extend(run.windows(2).map(|w| (number(w[0]), number(w[1]))));
        }
        order.extend(run.drain(..).map(number));
    };
    let (mut l, mut r) = (0, 0);
    while l < left.len() || r < right.len() {
        let key = if r == right.len() || (l < left.len() && left[l] < right[r]) {
            l += 1;
            left[l - 1]
        } else {
            r += 1;
            right[r - 1]
        };
        if run
            .first()
            .is_some_and(|&first| prefix(first) != prefix(key))
        {
            flush(&mut run, &mut order);
        }
        run.push(key);
    }
    flush(&mut run, &mut order);
    (order, neighbours)
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::sinks::UNSCORED;
    use super::*;

    fn pairs_of(tasks: &[String]) -> (Texts, Vec<Pair>) {
        let mut texts = Texts::new();
        let pairs = tasks
            .iter()
            .map(|task| Pair {
                task: texts.push(task),
                stratum: None,
                group: None,
                baseline: UNSCORED,
                candidate: UNSCORED,
            })
            .collect();
        (texts, pairs)
    }

    /// The order and the equal neighbours, against a sort of (task, number) written
    /// from the rule, one thread and two.
    fn check(tasks: &[String]) -> Result<(), TestCaseError> {
        let (texts, pairs) = pairs_of(tasks);
        let mut expected: Vec<u32> = (0..tasks.len() as u32).collect();
        expected.sort_by(|&x, &y| tasks[x as usize].cmp(&tasks[y as usize]).then(x.cmp(&y)));
        for parallel_from in [usize::MAX, 2] {
            let (order, neighbours) = task_order_from(&texts, &pairs, parallel_from);
            let neighbours: std::collections::BTreeSet<(u32, u32)> =
                neighbours.into_iter().collect();
            prop_assert_eq!(&order, &expected);
            for w in order.windows(2) {
                if tasks[w[0] as usize] == tasks[w[1] as usize] {
                    prop_assert!(neighbours.contains(&(w[0], w[1])));
                }
            }
        }
        Ok(())
    }

    proptest! {
        /// Tasks built from pieces around the 12-byte prefix, so that many share it
        /// and some are equal.
        #[test]
        fn orders_tasks_as_a_sort_by_task_then_row(
            picks in prop::collection::vec(prop::collection::vec(0usize..5, 0..4), 0..80),
        ) {
            const PIECES: [&str; 5] = ["paper:2401.", "00001", "0000", "", "z"];
            let tasks: Vec<String> = picks.iter().map(|p| p.iter().map(|&i| PIECES[i]).collect()).collect();
            check(&tasks)?;
        }
    }

    #[test]
    fn orders_a_large_shuffled_file_on_two_threads_as_on_one() {
        // 70,000 tasks in an order far from sorted, every tenth repeated.
        let tasks: Vec<String> = (0..70_000_u64)
            .map(|i| format!("2401.{:05}:k{}", (i * 7919) % 70_000 / 10, i % 3))
            .collect();
        check(&tasks).unwrap();
        let (texts, pairs) = pairs_of(&tasks);
        assert_eq!(
            task_order(&texts, &pairs),
            task_order_from(&texts, &pairs, usize::MAX)
        );
    }
}
