//! The leakage audit: no group in two splits, no task twice, and no task whose group
//! column differs from the group its id `<group>:<kind>` names (which `score` uses). `build_splits` runs it on
//! every build, and `split --check` runs it on split files made by any tool.

use std::collections::BTreeMap;
use std::fmt;

use crate::task::Task;

/// One way a set of splits leaks.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Leak {
    /// A group whose tasks appear in more than one split.
    Group {
        /// The group.
        group: String,
        /// The splits it appears in, in the order given.
        splits: Vec<String>,
    },
    /// A task whose group column is not the group its id names.
    WrongGroup {
        /// The task.
        task_id: String,
        /// Its group column.
        group: String,
        /// The group its id names.
        implied: String,
        /// The split it is in.
        split: String,
    },
    /// A task listed more than once (in one split or across splits).
    DuplicateTask {
        /// The task.
        task_id: String,
        /// Where it appears, with repetition.
        splits: Vec<String>,
    },
}

impl fmt::Display for Leak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Leak::Group { group, splits } => {
                write!(f, "group {group} appears in {}", splits.join(" and "))
            }
            Leak::WrongGroup {
                task_id,
                group,
                implied,
                split,
            } => write!(
                f,
                "task {task_id} in {split} is labelled group {group}, but its id names group {implied}"
            ),
            Leak::DuplicateTask { task_id, splits } => {
                write!(
                    f,
                    "task {task_id} appears {} times ({})",
                    splits.len(),
                    splits.join(", ")
                )
            }
        }
    }
}

/// Every leak among `splits` (name, tasks), groups first, then mislabelled tasks,
/// then duplicates, each list sorted. A task counts in both its group column's group
/// and the group its id names, since `score` and `admit` go by the id.
pub fn find_leaks(splits: &[(&str, &[Task])]) -> Vec<Leak> {
    // Splits by index while counting, named only for the leaks found: one small
    // allocation per group and task instead of a String per task.
    let mut group_splits: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut task_splits: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut wrong = Vec::new();
    for (split, (name, tasks)) in splits.iter().enumerate() {
        for task in *tasks {
            let implied = task
                .task_id
                .rsplit_once(':')
                .map(|(group, _)| group)
                .filter(|g| *g != task.group);
            if let Some(implied) = implied {
                wrong.push(Leak::WrongGroup {
                    task_id: task.task_id.clone(),
                    group: task.group.clone(),
                    implied: implied.to_string(),
                    split: (*name).to_string(),
                });
            }
            for group in std::iter::once(task.group.as_str()).chain(implied) {
                let seen = group_splits.entry(group).or_default();
                if !seen.contains(&split) {
                    seen.push(split);
                }
            }
            task_splits.entry(&task.task_id).or_default().push(split);
        }
    }
    let names = |indices: Vec<usize>| -> Vec<String> {
        indices
            .into_iter()
            .map(|i| splits[i].0.to_string())
            .collect()
    };
    let groups = group_splits
        .into_iter()
        .filter(|(_, splits)| splits.len() > 1)
        .map(|(group, splits)| Leak::Group {
            group: group.to_string(),
            splits: names(splits),
        });
    let duplicates = task_splits
        .into_iter()
        .filter(|(_, splits)| splits.len() > 1)
        .map(|(task_id, splits)| Leak::DuplicateTask {
            task_id: task_id.to_string(),
            splits: names(splits),
        });
    wrong.sort();
    let groups: Vec<Leak> = groups.collect();
    groups.into_iter().chain(wrong).chain(duplicates).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(group: &str, kind: &str) -> Task {
        Task::new(group, kind, String::new())
    }

    #[test]
    fn finds_a_group_in_two_splits_and_a_task_listed_twice() {
        let train = [task("p1", "id"), task("p2", "id")];
        let holdout = [task("p1", "year"), task("p3", "id"), task("p3", "id")];
        let leaks = find_leaks(&[("train", &train), ("holdout", &holdout)]);
        assert_eq!(
            leaks.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "group p1 appears in train and holdout",
                "task p3:id appears 2 times (holdout, holdout)"
            ]
        );
    }

    #[test]
    fn a_holdout_row_labelled_with_another_group_than_its_id_names_leaks() {
        let train = [task("p1", "id")];
        let mut mislabelled = task("p1", "year");
        mislabelled.group = "p9".into();
        let holdout = [mislabelled];
        let leaks = find_leaks(&[("train", &train), ("holdout", &holdout)]);
        assert_eq!(
            leaks.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "group p1 appears in train and holdout",
                "task p1:year in holdout is labelled group p9, but its id names group p1"
            ]
        );
    }

    #[test]
    fn clean_splits_have_no_leaks() {
        let train = [task("p1", "id"), task("p1", "year")];
        let holdout = [task("p2", "id")];
        assert!(find_leaks(&[("train", &train), ("holdout", &holdout)]).is_empty());
    }
}
