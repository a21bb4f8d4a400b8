//! What becomes of one task of an import, read from the sort: duplicated, missing a
//! repeat, missing, or kept, and a kept task's rows, its repeats reduced by
//! `--repeats` or the log's reducer ([`super::plan`] calls it in its second and third
//! passes, so both decide alike).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::sorted::{Group, Held};
use super::{ImportError, LogReducer, OnMissing, Repeats, Rules};

/// One row to write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Row {
    /// The task id (`<item>#<repeat>` under `--repeats all`).
    pub task_id: String,
    /// Under `--repeats all`, the item.
    pub group: Option<String>,
    /// The stratum, an index into the plan's kinds.
    pub kind: Option<u32>,
    /// The score: as logged until the plan maps it onto [0, 1], higher better.
    pub score: f64,
    /// The document key.
    pub doc_key: Option<u64>,
    /// The repeat the row kept (as [`Sample::repeat`] after reducing).
    pub repeat: Option<u64>,
    /// The output digest the row kept.
    pub output_key: Option<u64>,
}

/// The per-task decisions of the second and third passes.
pub(crate) struct Decide<'p> {
    pub(crate) rules: Rules,
    pub(crate) most: usize,
    pub(crate) expected: &'p BTreeMap<String, u64>,
    pub(crate) kinds: &'p [Arc<str>],
    pub(crate) reducers: &'p BTreeMap<String, LogReducer>,
}

/// What became of one kept task: its rows before the scale, or why its repeats
/// cannot be reduced; with the reduction's name, when it was reduced.
pub(crate) type Fate = (Result<Vec<Row>, ImportError>, Option<String>);

/// Whether a task is duplicated, lacks repeats, is missing, and is kept.
pub(crate) struct Kept {
    pub(crate) twice: bool,
    pub(crate) lacking: Vec<u64>,
    pub(crate) unanswered: bool,
    pub(crate) kept: bool,
}

impl Decide<'_> {
    pub(crate) fn kept(&self, group: &Group) -> Kept {
        let twice = group.duplicated || group.twice();
        let lacking = if twice {
            Vec::new()
        } else {
            self.lacking(group)
        };
        let unanswered = group.universe && group.samples.is_empty() && !group.errored;
        let intersect = self.rules.on_missing == OnMissing::Intersect;
        let kept = !(twice
            || group.errored
            || unanswered
            || (intersect && !lacking.is_empty())
            || group.samples.is_empty());
        Kept {
            twice,
            lacking,
            unanswered,
            kept,
        }
    }

    pub(crate) fn kind_name(&self, held: &Held) -> &str {
        held.kind.map_or("", |k| &self.kinds[k as usize])
    }

    /// The repeats the item lacks (none for an item of one sample without a number).
    pub(crate) fn lacking(&self, group: &Group) -> Vec<u64> {
        if group.samples.is_empty() || group.samples.iter().any(|s| s.repeat.is_none()) {
            return Vec::new();
        }
        let k = self.expected[self.kind_name(&group.samples[0])];
        if k <= 1 {
            return Vec::new();
        }
        let have: BTreeSet<u64> = group.samples.iter().filter_map(|s| s.repeat).collect();
        (1..=k).filter(|r| !have.contains(r)).collect()
    }

    /// The rows of a kept task, before the scale; `turned` counts tasks whose 0/1
    /// outcomes a reduction turned into a score.
    pub(crate) fn rows(&self, group: &Group, turned: &mut usize) -> Fate {
        let task = group.task_id.as_str();
        let make = |h: &Held, task_id: String, score: f64, repeat: Option<u64>| Row {
            task_id,
            group: None,
            kind: h.kind,
            score,
            doc_key: h.doc_key,
            repeat,
            output_key: h.output_key,
        };
        let samples = &group.samples;
        if self.most <= 1 && self.rules.repeats != Some(Repeats::All) {
            let rows = samples
                .iter()
                .map(|h| make(h, task.to_string(), h.score, h.repeat))
                .collect();
            return (Ok(rows), None);
        }
        let first = &samples[0];
        let (rule, from_log) = match self.rules.repeats {
            Some(given) => (given, false),
            None => {
                let kind = first.kind.map(|k| &*self.kinds[k as usize]);
                match kind.and_then(|k| self.reducers.get(k)) {
                    Some(LogReducer::Known(rule)) => (*rule, true),
                    said => return (Err(repeats_needed(self.most, kind, said)), None),
                }
            }
        };
        let used = Some(if from_log {
            format!("{} (the log's epochs_reducer)", rule.name())
        } else {
            rule.name()
        });
        if rule == Repeats::All {
            let rows = samples
                .iter()
                .map(|h| {
                    let id = match h.repeat {
                        Some(repeat) => format!("{task}#{repeat}"),
                        None => task.to_string(),
                    };
                    let mut row = make(h, id, h.score, h.repeat);
                    row.group = Some(task.to_string());
                    row
                })
                .collect();
            return (Ok(rows), used);
        }
        let values: Vec<f64> = samples.iter().map(|s| s.score).collect();
        let Some(score) = rule.reduce(&values) else {
            let (repeats, are, have) = match values.len() {
                1 => ("its 1 repeat".to_string(), "is", "has"),
                n => (format!("its {n} repeats"), "are", "have"),
            };
            let why = match rule {
                Repeats::PassAt(k) => format!("{are} fewer than the {k} pass_at_{k} needs"),
                _ => format!("{have} no value held by more than half"),
            };
            let error = ImportError::Refused(format!(
                "task `{task}`: {repeats} {why}; use --repeats mean or first"
            ));
            return (Err(error), used);
        };
        let binary = values.iter().all(|v| *v == 0.0 || *v == 1.0);
        if binary && score != 0.0 && score != 1.0 {
            *turned += 1;
        }
        (Ok(vec![make(first, task.to_string(), score, None)]), used)
    }
}

/// The values `--repeats` takes, as a refusal lists them.
const REPEATS_RULES: &str =
    "`mean`, `majority`, `first`, `all`, `median`, `mode`, `max`, `pass_at_K`, `at_least_K`";

/// Why repeated items of `kind` need `--repeats`: the log names no reducer, or names
/// one evogate cannot apply (said with its scorer), or names several.
fn repeats_needed(most: usize, kind: Option<&str>, said: Option<&LogReducer>) -> ImportError {
    let quoted = |names: &[String]| names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>();
    let items = match kind {
        Some(kind) if !kind.is_empty() => format!("items of task `{kind}`"),
        _ => "items".to_string(),
    };
    ImportError::Refused(match said {
        Some(LogReducer::Unusable { scorer, names }) if names.len() == 1 => format!(
            "--repeats is needed: {items} have up to {most} repeats, and the log's \
             epochs_reducer of scorer `{scorer}` is `{}`, which is not one of Inspect's \
             built-in reducers (a reducer of the task's own: the log records its name, \
             not its rule); give --repeats with the rule it stands for, one of {REPEATS_RULES} \
             (`all` keeps every repeat as a row)",
            names[0]
        ),
        Some(LogReducer::Unusable { scorer, names }) => {
            let mut listed = quoted(names);
            let last = listed.pop().unwrap_or_default();
            format!(
                "--repeats is needed: {items} have up to {most} repeats, and the log's \
                 epochs_reducer of scorer `{scorer}` names {} reducers, {} and {last}, \
                 which Inspect reports each on its own; choose one with --repeats, one of \
                 {REPEATS_RULES}",
                names.len(),
                listed.join(", ")
            )
        }
        _ => format!(
            "--repeats is needed (items have up to {most} repeats and the log names no \
             reducer); give one with --repeats, one of {REPEATS_RULES}"
        ),
    })
}
