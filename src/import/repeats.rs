//! The repeats of a log's items checked before they are reduced: every item must have
//! every repeat the log declares (Inspect's `epochs`) or, where the log declares
//! none, as many as the item with the most in its `kind` (promptfoo's `--repeat`, runs
//! of one lm-eval task, DSPy records of one id). A missing repeat is named as
//! `<item>#<repeat>` and counted; it is never averaged away. Items whose every repeat
//! gave byte-identical output text (where the log carries it) are counted too: a
//! cache replaying one answer k times makes k rows of one piece of evidence.

use std::collections::BTreeMap;

use super::{FIRST_IDS, Tally};

/// What the repeats of a log's items show, counted item by item in task order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RepeatCheck {
    /// How many items lack a repeat.
    pub incomplete: usize,
    /// How many repeats are missing in all.
    pub missing: usize,
    /// The first missing repeats, `<item>#<repeat>`, in item order.
    pub first_missing: Vec<String>,
    /// How many items with more than one repeat have outputs all the same text.
    pub identical: usize,
    /// The first of them, in item order.
    pub first_identical: Vec<String>,
    /// The samples of those items.
    pub identical_rows: usize,
    /// Items with more than one repeat whose outputs the log carries for every repeat.
    pub with_outputs: usize,
    /// The repeats each item should have, by `kind` (`""` for rows without one).
    pub expected: BTreeMap<String, u64>,
}

impl RepeatCheck {
    /// Counts an item lacking the repeats `lacking` (not empty).
    pub(crate) fn note_lacking(&mut self, item: &str, lacking: &[u64]) {
        self.incomplete += 1;
        self.missing += lacking.len();
        for r in lacking {
            if self.first_missing.len() < FIRST_IDS {
                self.first_missing.push(format!("{item}#{r}"));
            }
        }
    }

    /// Counts an item of `rows` repeats whose every output the log carries; `same`
    /// when they are all one text.
    pub(crate) fn note_outputs(&mut self, item: &str, rows: usize, same: bool) {
        self.with_outputs += 1;
        if same {
            self.identical += 1;
            self.identical_rows += rows;
            if self.first_identical.len() < FIRST_IDS {
                self.first_identical.push(item.to_string());
            }
        }
    }

    /// The missing repeats in words: `3 repeats missing (first: `a#2`, ...), in 2
    /// items`, or `None` when none is.
    pub(crate) fn describe(&self) -> Option<String> {
        (self.missing > 0).then(|| {
            let first: Vec<String> = self.first_missing.iter().map(|i| format!("`{i}`")).collect();
            format!(
                "{} {} missing (first: {}) in {} {}, which would be averaged over fewer repeats than the others",
                self.missing,
                if self.missing == 1 { "repeat" } else { "repeats" },
                first.join(", "),
                self.incomplete,
                if self.incomplete == 1 { "item" } else { "items" },
            )
        })
    }

    /// The items whose repeats are byte-identical copies, for the record.
    pub(crate) fn identical_tally(&self) -> Option<Tally> {
        (self.identical > 0).then(|| Tally {
            count: self.identical,
            first: self.first_identical.clone(),
        })
    }
}
