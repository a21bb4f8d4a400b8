//! The repeats of a log's items checked before they are reduced: every item must have
//! every repeat the log declares (Inspect's `epochs`) or, where the log declares
//! none, as many as the item with the most in its `kind` (promptfoo's `--repeat`, runs
//! of one lm-eval task, DSPy records of one id). A missing repeat is named as
//! `<item>#<repeat>` and counted; it is never averaged away. Items whose every repeat
//! gave byte-identical output text (where the log carries it) are counted too: a
//! cache replaying one answer k times makes k rows of one piece of evidence.

use std::collections::{BTreeMap, BTreeSet};

use super::{FIRST_IDS, Sample, Tally};

/// What the repeats of a log's items show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RepeatCheck {
    /// Items lacking a repeat.
    pub incomplete: BTreeSet<String>,
    /// How many repeats are missing in all.
    pub missing: usize,
    /// The first missing repeats, `<item>#<repeat>`, in item order.
    pub first_missing: Vec<String>,
    /// Items with more than one repeat whose outputs are all the same text.
    pub identical: BTreeSet<String>,
    /// The samples of those items.
    pub identical_rows: usize,
    /// Items with more than one repeat whose outputs the log carries for every repeat.
    pub with_outputs: usize,
    /// The repeats each item should have, by `kind` (`""` for rows without one).
    pub expected: BTreeMap<String, u64>,
}

impl RepeatCheck {
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
                self.incomplete.len(),
                if self.incomplete.len() == 1 {
                    "item"
                } else {
                    "items"
                },
            )
        })
    }

    /// The items whose repeats are byte-identical copies, for the record.
    pub(crate) fn identical_tally(&self) -> Option<Tally> {
        (!self.identical.is_empty()).then(|| Tally::of(&self.identical))
    }
}

/// Checks the repeats of `samples` (sorted by task and repeat); `declared` holds the
/// repeats the log declares by `kind`, and `skip` the items already refused (two
/// samples of one repeat). Samples without a repeat number are items run once.
pub(crate) fn check(
    samples: &[Sample],
    declared: &BTreeMap<String, u64>,
    skip: &BTreeSet<String>,
) -> RepeatCheck {
    // The items, each a run of adjacent samples of one task.
    let runs: Vec<&[Sample]> = samples
        .chunk_by(|a, b| a.task_id == b.task_id)
        .filter(|run| !skip.contains(&run[0].task_id) && run.iter().all(|s| s.repeat.is_some()))
        .collect();
    let kind_of = |run: &[Sample]| run[0].kind.as_deref().unwrap_or("").to_string();
    let mut expected: BTreeMap<String, u64> = BTreeMap::new();
    for run in &runs {
        let most = expected.entry(kind_of(run)).or_insert(0);
        *most = (*most).max(run.len() as u64);
    }
    for (kind, k) in &mut expected {
        if let Some(said) = declared.get(kind) {
            *k = (*k).max(*said);
        }
    }
    let mut check = RepeatCheck::default();
    for run in runs {
        let k = expected[&kind_of(run)];
        if k <= 1 {
            continue;
        }
        let have: BTreeSet<u64> = run.iter().filter_map(|s| s.repeat).collect();
        let lacking: Vec<u64> = (1..=k).filter(|r| !have.contains(r)).collect();
        if !lacking.is_empty() {
            check.incomplete.insert(run[0].task_id.clone());
            check.missing += lacking.len();
            for r in lacking {
                if check.first_missing.len() < FIRST_IDS {
                    check.first_missing.push(format!("{}#{r}", run[0].task_id));
                }
            }
        }
        if run.len() > 1 && run.iter().all(|s| s.output_key.is_some()) {
            check.with_outputs += 1;
            if run.windows(2).all(|w| w[0].output_key == w[1].output_key) {
                check.identical.insert(run[0].task_id.clone());
                check.identical_rows += run.len();
            }
        }
    }
    check.expected = expected.into_iter().filter(|(_, k)| *k > 1).collect();
    check
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(task: &str, repeat: u64, output: Option<u64>) -> Sample {
        Sample {
            task_id: task.to_string(),
            score: 1.0,
            kind: Some(std::sync::Arc::from("t")),
            doc_key: None,
            repeat: Some(repeat),
            group: None,
            output_key: output,
        }
    }

    #[test]
    fn an_item_run_once_of_three_declared_epochs_lacks_two_named_repeats() {
        let samples = [
            sample("t:1", 1, Some(1)),
            sample("t:1", 2, Some(2)),
            sample("t:1", 3, Some(3)),
            sample("t:2", 1, Some(4)),
        ];
        let declared = BTreeMap::from([("t".to_string(), 3)]);
        let check = check(&samples, &declared, &BTreeSet::new());
        assert_eq!(check.missing, 2);
        assert_eq!(check.first_missing, ["t:2#2", "t:2#3"]);
        assert_eq!(check.incomplete, BTreeSet::from(["t:2".to_string()]));
        assert!(check.identical.is_empty());
        assert_eq!(
            check.describe().unwrap(),
            "2 repeats missing (first: `t:2#2`, `t:2#3`) in 1 item, which would be averaged over fewer repeats than the others"
        );
    }

    #[test]
    fn without_a_declared_count_the_most_repeats_of_the_kind_is_expected() {
        // Epochs 1 and 3 of one item: epoch 2 is missing although the count matches
        // none declared; the other item has all three.
        let samples = [
            sample("t:1", 1, None),
            sample("t:1", 3, None),
            sample("t:2", 1, None),
            sample("t:2", 2, None),
            sample("t:2", 3, None),
        ];
        let check = check(&samples, &BTreeMap::new(), &BTreeSet::new());
        assert_eq!(check.first_missing, ["t:1#2"]);
        assert_eq!(check.expected, BTreeMap::from([("t".to_string(), 3)]));
    }

    #[test]
    fn repeats_with_one_output_text_are_counted_as_identical_copies() {
        let samples = [
            sample("t:1", 1, Some(7)),
            sample("t:1", 2, Some(7)),
            sample("t:2", 1, Some(7)),
            sample("t:2", 2, Some(8)),
            sample("t:3", 1, Some(9)),
            sample("t:3", 2, None),
        ];
        let check = check(&samples, &BTreeMap::new(), &BTreeSet::new());
        assert_eq!(check.missing, 0);
        assert_eq!(check.identical, BTreeSet::from(["t:1".to_string()]));
        // t:3 lacks one output, so it cannot be told either way.
        assert_eq!(check.with_outputs, 2);
    }
}
