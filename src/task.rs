//! Tasks: one checkable question about one group of facts (a paper). A task is
//! identified by `<group>:<kind>`, derived from content and never from row order, so a
//! reworded prompt or a reordered file does not change which task a row is.

use serde::{Deserialize, Serialize};

/// One task, as `split` writes it and `score` reads it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Task {
    /// `<group>:<kind>`, e.g. `1706.03762:title`.
    pub task_id: String,
    /// The group of facts the task belongs to (a paper's arXiv ID); groups never
    /// straddle two splits.
    pub group: String,
    /// What is asked, e.g. `id`, `title`, `first_author`, `year`.
    pub kind: String,
    /// The question put to the skill.
    pub prompt: String,
}

impl Task {
    /// Builds a task, deriving its id from `group` and `kind`.
    pub fn new(group: &str, kind: &str, prompt: String) -> Task {
        Task {
            task_id: task_id(group, kind),
            group: group.to_string(),
            kind: kind.to_string(),
            prompt,
        }
    }
}

/// The stable identifier of the task of `kind` about `group`.
pub fn task_id(group: &str, kind: &str) -> String {
    format!("{group}:{kind}")
}

/// The columns of a tasks file, in the order `split` writes them.
pub const TASK_COLUMNS: [&str; 4] = ["task_id", "group", "kind", "prompt"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_id_joins_group_and_kind_with_a_colon() {
        let task = Task::new("1706.03762", "title", "What?".into());
        assert_eq!(task.task_id, "1706.03762:title");
    }
}
