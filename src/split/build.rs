//! Leak-free train/validation/holdout splits. Groups (papers) are shuffled and dealt
//! to the splits whole, so no group can appear in two splits; with a fixed number of
//! cases, each split's size is exact and its tasks are sampled within its own groups.

use thiserror::Error;

use super::check::find_leaks;
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
use crate::base::numbers::count;
use crate::base::random::Random;
use crate::task::Task;

/// The three splits, in the order they are written.
pub const SPLIT_NAMES: [&str; 3] = ["train", "val", "holdout"];

/// How many tasks to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cases {
    /// Every task; the ratios apply to groups.
    All,
    /// Exactly this many tasks, divided by the ratios.
    Exactly(usize),
}

/// What `build_splits` is asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SplitRequest {
    /// The seed of the ChaCha stream.
    pub seed: u64,
    /// Relative sizes of train, validation and holdout; not all zero.
    pub ratios: [u32; 3],
    /// How many tasks to use.
    pub cases: Cases,
}

/// The splits built: train and validation in the verifier's task order, the holdout in
/// the order it is to be scored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splits {
    /// Train, validation and holdout, as [`SPLIT_NAMES`].
    pub parts: [Vec<Task>; 3],
}

/// A request that cannot be met, or a leak the construction failed to prevent.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum SplitError {
    /// Every ratio is zero.
    #[error(
        "ratios {0:?} sum to 0: give three non-negative integers with a positive sum, e.g. 50,25,25"
    )]
    ZeroRatios([u32; 3]),
    /// The truth yields no tasks.
    #[error("the ground truth yields no tasks")]
    NoTasks,
    /// More cases than tasks.
    #[error(
        "{requested} cases requested but the ground truth has only {}: use --cases {available} or fewer, or --cases all",
        count(*available as u64, "task")
    )]
    TooManyCases {
        /// Cases asked for.
        requested: usize,
        /// Tasks available.
        available: usize,
    },
    /// A split with a positive ratio would get no group.
    #[error(
        "the {split} split gets no group: {groups} groups cannot be dealt by ratios {ratios:?}; use more groups or ratios closer to each other"
    )]
    EmptySplit {
        /// Which split.
        split: &'static str,
        /// How many groups there are.
        groups: usize,
        /// The ratios asked for.
        ratios: [u32; 3],
    },
    /// A split's groups hold fewer tasks than its exact size needs.
    #[error(
        "the {split} split needs {} but its {} {} only {held}; use --cases {max_cases} or fewer, or other ratios",
        count(*needed as u64, "task"),
        count(*groups as u64, "group"),
        if *groups == 1 { "holds" } else { "hold" }
    )]
    TooFewTasks {
        /// Which split.
        split: &'static str,
        /// Its exact size.
        needed: usize,
        /// Groups dealt to it.
        groups: usize,
        /// Tasks they hold.
        held: usize,
        /// The largest number of cases this seed and these ratios can serve.
        max_cases: usize,
    },
    /// More tasks than a split numbers.
    #[error(
        "the ground truth yields {0} tasks, more than a split deals (4,294,967,295); split it into parts by group"
    )]
    TooManyTasks(usize),
    /// The leakage check failed: nothing may be written.
    #[error("refusing to write splits that leak: {0}")]
    Leak(String),
}

/// Divides `total` by `ratios` with largest-remainder (Hamilton) rounding; ties in the
/// remainder go to the earlier split. The parts sum to `total` exactly.
pub fn largest_remainder(total: usize, ratios: [u32; 3]) -> [usize; 3] {
    let sum: u64 = ratios.iter().map(|&r| u64::from(r)).sum();
    if sum == 0 {
        return [0; 3];
    }
    let total = total as u64;
    let mut parts = [0usize; 3];
    let mut remainders = [(0u64, 0usize); 3];
    for (index, &ratio) in ratios.iter().enumerate() {
        let exact = total * u64::from(ratio);
        parts[index] = (exact / sum) as usize;
        remainders[index] = (exact % sum, index);
    }
    let assigned: usize = parts.iter().sum();
    remainders.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(_, index) in remainders.iter().take(total as usize - assigned) {
        parts[index] += 1;
    }
    parts
}

/// Builds the splits: shuffle the groups (first-appearance order, then Fisher–Yates on
/// the seed's stream), deal them by `ratios` with largest-remainder rounding, and with
/// [`Cases::Exactly`] shuffle each split's tasks with the same stream and keep the first
/// `size` of them. Train and validation are returned in the tasks' original order, the
/// holdout in the order it is to be scored: its tasks in original order, shuffled with
/// the same stream after every draw above. The leakage check runs on the result; a leak
/// is an error, never a file.
pub fn build_splits(tasks: &[Task], request: &SplitRequest) -> Result<Splits, SplitError> {
    let dealt = split_tasks(tasks.len(), &|i| tasks[i].group.as_str(), request)?;
    let parts = dealt.parts.map(|part| {
        part.into_iter()
            .map(|i| tasks[i as usize].clone())
            .collect::<Vec<_>>()
    });
    let splits = Splits { parts };
    let leaks = find_leaks(&splits.named());
    if let Some(leak) = leaks.first() {
        return Err(SplitError::Leak(leak.to_string()));
    }
    Ok(splits)
}

/// Tasks dealt to the splits by number, as [`split_tasks`] deals them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dealt {
    /// Each split's tasks (numbers `0..n`): train and validation in the tasks' order,
    /// the holdout in the order it is to be scored. Numbers are `u32` (at most
    /// `u32::MAX` tasks are dealt): half the memory of `usize`.
    pub parts: [Vec<u32>; 3],
    /// Each task's group, numbered in order of first appearance.
    pub group_of: Vec<u32>,
    /// How many groups there are.
    pub groups: usize,
}

/// [`build_splits`] on `n` tasks known by number, `group_of` giving each one's group,
/// without the leakage check: nothing of the tasks is copied (a million tasks are dealt
/// in the memory of their numbers and groups).
pub(crate) fn split_tasks<'a>(
    n: usize,
    group_of: &dyn Fn(usize) -> &'a str,
    request: &SplitRequest,
) -> Result<Dealt, SplitError> {
    if request.ratios.iter().all(|&r| r == 0) {
        return Err(SplitError::ZeroRatios(request.ratios));
    }
    if n == 0 {
        return Err(SplitError::NoTasks);
    }
    if let Cases::Exactly(requested) = request.cases
        && requested > n
    {
        return Err(SplitError::TooManyCases {
            requested,
            available: n,
        });
    }
    if u32::try_from(n).is_err() {
        return Err(SplitError::TooManyTasks(n));
    }
    let (task_groups, group_total) = group_numbers(n, group_of);
    // Groups by their first-appearance position; Fisher–Yates moves positions as it
    // would move the names.
    let mut groups: Vec<usize> = (0..group_total).collect();
    let mut stream = Random::keyed(request.seed);
    stream.shuffle(&mut groups);
    let group_counts = largest_remainder(groups.len(), request.ratios);
    for (index, &count) in group_counts.iter().enumerate() {
        if count == 0 && request.ratios[index] > 0 {
            return Err(SplitError::EmptySplit {
                split: SPLIT_NAMES[index],
                groups: groups.len(),
                ratios: request.ratios,
            });
        }
    }
    let mut pools: [Vec<u32>; 3] = Default::default();
    match request.cases {
        // Each pool is sorted below, so it is filled straight in task order through a
        // table of each group's split: no list of each group's tasks is built.
        Cases::All => {
            let mut split_of = vec![0_u8; group_total];
            let mut start = 0;
            for (index, &count) in group_counts.iter().enumerate() {
                for &group in &groups[start..start + count] {
                    split_of[group] = index as u8;
                }
                start += count;
            }
            let mut sizes = [0_usize; 3];
            for &group in &task_groups {
                sizes[split_of[group as usize] as usize] += 1;
            }
            for (pool, size) in pools.iter_mut().zip(sizes) {
                pool.reserve_exact(size);
            }
            for (task, &group) in task_groups.iter().enumerate() {
                pools[split_of[group as usize] as usize].push(task as u32);
            }
        }
        // The sample below draws from each pool in the order the groups were dealt.
        Cases::Exactly(_) => {
            let members = group_members(group_total, &task_groups);
            let mut start = 0;
            for (index, &count) in group_counts.iter().enumerate() {
                let dealt = &groups[start..start + count];
                let size = dealt.iter().map(|&group| members.of(group).len()).sum();
                pools[index].reserve_exact(size);
                for &group in dealt {
                    pools[index].extend_from_slice(members.of(group));
                }
                start += count;
            }
        }
    }
    drop(groups);
    if let Cases::Exactly(total) = request.cases {
        let sizes = largest_remainder(total, request.ratios);
        for index in 0..3 {
            if pools[index].len() < sizes[index] {
                return Err(SplitError::TooFewTasks {
                    split: SPLIT_NAMES[index],
                    needed: sizes[index],
                    groups: group_counts[index],
                    held: pools[index].len(),
                    max_cases: max_cases(&pools, request.ratios),
                });
            }
        }
        for (pool, &size) in pools.iter_mut().zip(&sizes) {
            stream.shuffle(pool);
            pool.truncate(size);
        }
    }
    let mut parts = pools.map(|mut pool| {
        pool.sort_unstable();
        pool
    });
    // The holdout in the order it is to be scored: its tasks in truth order shuffled
    // with the same stream, after every draw above, so the order is fixed by the seed
    // before any output exists (`admit --sequential` monitors in it).
    stream.shuffle(&mut parts[2]);
    Ok(Dealt {
        parts,
        group_of: task_groups,
        groups: group_total,
    })
}

impl Splits {
    /// The splits paired with their names.
    pub fn named(&self) -> Vec<(&str, &[Task])> {
        SPLIT_NAMES
            .iter()
            .zip(&self.parts)
            .map(|(name, part)| (*name, part.as_slice()))
            .collect()
    }

    /// The distinct groups of each split, in task order. A set of those seen keeps this
    /// O(n log n): searching the list instead took 41 s for 100,000 groups.
    pub fn groups(&self) -> [Vec<String>; 3] {
        std::array::from_fn(|index| {
            let mut seen = std::collections::BTreeSet::<&str>::new();
            self.parts[index]
                .iter()
                .filter(|task| seen.insert(&task.group))
                .map(|task| task.group.clone())
                .collect()
        })
    }
}

/// The tasks of each group, flat: group `g`'s (numbered in first-appearance order)
/// are `tasks[start[g]..start[g + 1]]`, in task order.
struct Members {
    start: Vec<usize>,
    tasks: Vec<u32>,
}

impl Members {
    /// Group `group`'s tasks.
    fn of(&self, group: usize) -> &[u32] {
        &self.tasks[self.start[group]..self.start[group + 1]]
    }
}

/// Each task's group number, groups numbered in first-appearance order, and how many
/// groups there are. The groups are found through a [`HashIndex`] of their first tasks:
/// a few bytes a task and a group, where a map of names took over a hundred a task.
fn group_numbers<'a>(n: usize, group_of: &dyn Fn(usize) -> &'a str) -> (Vec<u32>, usize) {
    let mut task_groups = Vec::with_capacity(n);
    // Each group's first task, by the hash of its name.
    let mut firsts: Vec<u32> = Vec::new();
    let mut index = HashIndex::default();
    for task in 0..n {
        let name = group_of(task);
        let hash = fingerprint(name);
        let group = match index.find(hash, |g| group_of(firsts[g as usize] as usize) == name) {
            Some(group) => group,
            None => {
                let group = firsts.len() as u32;
                firsts.push(task as u32);
                index.insert(hash, group);
                group
            }
        };
        task_groups.push(group);
    }
    (task_groups, firsts.len())
}

/// Each group's tasks, gathered by a counting sort over `task_groups` (each task's
/// group number, of `groups` groups).
fn group_members(groups: usize, task_groups: &[u32]) -> Members {
    let mut start = vec![0usize; groups + 1];
    for &group in task_groups {
        start[group as usize + 1] += 1;
    }
    for group in 0..groups {
        start[group + 1] += start[group];
    }
    let mut next = start.clone();
    let mut tasks = vec![0u32; task_groups.len()];
    for (task, &group) in task_groups.iter().enumerate() {
        tasks[next[group as usize]] = task as u32;
        next[group as usize] += 1;
    }
    Members { start, tasks }
}

/// The largest total whose largest-remainder sizes fit every pool.
fn max_cases(pools: &[Vec<u32>; 3], ratios: [u32; 3]) -> usize {
    let capacity: usize = pools.iter().map(Vec::len).sum();
    (0..=capacity)
        .rev()
        .find(|&total| {
            let sizes = largest_remainder(total, ratios);
            (0..3).all(|i| sizes[i] <= pools[i].len())
        })
        .unwrap_or(0)
}
