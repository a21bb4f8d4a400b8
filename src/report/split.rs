//! What `split` prints: the summary of splits built, and the report of `split --check`.
//! Cell values (groups, task ids) go to the terminal only through `main`'s sanitiser.

use std::path::Path;

use crate::base::numbers::{count, plural};
use crate::split::Leak;
use crate::split::manifest::Made;

/// What `split --check` found: each file's name and task count, and the leaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitCheck {
    /// Each split's name (the file stem) and number of tasks, in the order given.
    pub files: Vec<(String, usize)>,
    /// Groups in two splits or tasks listed twice.
    pub leaks: Vec<Leak>,
}

/// The summary of a built split: each split's size, the holdout's power, the folder.
pub(crate) fn summary(made: &Made, out: &Path) -> String {
    let mut text = String::new();
    for entry in &made.splits {
        text.push_str(&format!(
            "{:<8} {:>5} task{} from {:>4} group{}\n",
            entry.name,
            entry.tasks,
            plural(entry.tasks as u64),
            entry.groups,
            plural(entry.groups as u64)
        ));
    }
    let power = &made.holdout_power;
    text.push_str(&match power.min_detectable_shift {
        Some(shift) => format!(
            "holdout minimum detectable shift at alpha {}: {}/{} = {} (the best case: every disagreement one way; {})\n",
            power.alpha,
            power.min_discordant,
            power.n,
            crate::base::numbers::shift(shift),
            crate::base::numbers::SHIFT_UNIT.trim_end_matches('.').to_lowercase()
        ),
        None => format!(
            "holdout of {} cannot detect any shift at alpha {}: it needs at least {}\n",
            count(power.n as u64, "task"),
            power.alpha,
            count(u64::from(power.min_discordant), "task")
        ),
    });
    text.push_str(&format!(
        "wrote train.csv, val.csv, holdout.csv, manifest.json to {}\n",
        out.display()
    ));
    text
}

/// The report of `split --check`: each file's task count, each leak, and the count.
pub(crate) fn check_text(check: &SplitCheck) -> String {
    let mut text = String::new();
    for (name, tasks) in &check.files {
        text.push_str(&format!("{name}: {}\n", count(*tasks as u64, "task")));
    }
    for leak in &check.leaks {
        text.push_str(&format!("leak: {leak}\n"));
    }
    if check.leaks.is_empty() {
        text.push_str("no leakage: no group in two splits, no task twice\n");
    } else {
        text.push_str(&format!(
            "{} leak{} found\n",
            check.leaks.len(),
            if check.leaks.len() == 1 { "" } else { "s" }
        ));
    }
    text
}
