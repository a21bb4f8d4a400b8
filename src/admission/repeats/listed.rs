//! A holdout of items against scores that hold repeats. The unit of a holdout is the
//! item: `split --from-scores` lists each item once, and a task list (`--tasks`) or a
//! manifest names `X`, never its rows `X#1`, `X#2`, .... So a listed id that is no row
//! of either file but the item of repeats (rows `X#<r>` whose group is `X`) stands for
//! all of its repeats, and every one of them must be in both files: a repeat one arm
//! lacks is counted and named, never averaged away. A listed id that is a row is that
//! row, as before; a list of rows (`X#1`, ...) still pairs those rows.
//!
//! A manifest's holdout that lists the repeats of the items tested (as `split
//! --from-scores` wrote before it listed items) cannot be proved on items, and is
//! refused with the fix.

use std::collections::{BTreeMap, BTreeSet};

use thiserror::Error;

use super::{repeat_form, repeat_in};
use crate::admission::join::Joined;
use crate::admission::pairing::{Pairs, TaskList};

/// How many missing repeats an error names.
const SHOWN_MISSING: usize = 5;

/// A holdout of items that the scores' repeats do not fit.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum ListedError {
    /// Repeats of listed items that one file lacks.
    #[error(
        "{count} repeat{s} of {items} item{items_s} of `{list}` {verb} not in both scores files ({shown}{more}): an item is compared on all of its repeats in both arms, never on those that happen to be there; score the missing repeats, or remove the extra ones so that both files hold the same repeats of each item",
        s = if *.count == 1 { "" } else { "s" },
        items_s = if *.items == 1 { "" } else { "s" },
        verb = if *.count == 1 { "is" } else { "are" },
        shown = .first.join("; "),
        more = if *.count > .first.len() { "; ..." } else { "" }
    )]
    MissingRepeats {
        /// The task list as given.
        list: String,
        /// Repeats missing from one file.
        count: usize,
        /// Items with a missing repeat.
        items: usize,
        /// The first few, by id: where each is and where it is not.
        first: Vec<String>,
    },
    /// A listed id is a row of its own and also the item of repeats.
    #[error(
        "`{list}` row {line} lists `{item}`, which is a row of its own in the scores and also the item of the repeats `{item}#…` (their group): an item is either run once or repeated; rename one"
    )]
    Mixed {
        /// The task list as given.
        list: String,
        /// Its row.
        line: u64,
        /// The item.
        item: String,
    },
    /// The list names an item and one of its repeats.
    #[error(
        "`{list}` lists item `{item}` (row {item_line}) and its repeat `{row}` (row {row_line}): an item stands for all of its repeats; list items, or rows, not both"
    )]
    ItemAndRepeat {
        /// The task list as given.
        list: String,
        /// The item.
        item: String,
        /// Its row in the list.
        item_line: u64,
        /// The repeat listed too.
        row: String,
        /// Its row in the list.
        row_line: u64,
    },
    /// The manifest's holdout lists repeats of the items tested.
    #[error(
        "`{manifest}` records a holdout of repeats (`{row}`, a repeat of item `{item}`), and admit tests on items: a holdout lists each item once; make it again with `evogate split --from-scores` over the repeats file, which lists items (split before this version listed their rows)"
    )]
    HoldoutOfRepeats {
        /// The manifest as given.
        manifest: String,
        /// The first recorded id that is a repeat of a tested item.
        row: String,
        /// Its item.
        item: String,
    },
}

/// The task list to pair on: `list` itself when it names no item of repeats, else
/// `list` with each such item replaced by all of its repeats in either file (each at
/// the item's row of the list). Fails when a repeat of a listed item is not in both
/// files, or a listed id is both a row and the item of repeats. Time: O(n log m) for
/// n rows and m listed ids.
pub(crate) fn rows_to_pair(list: &TaskList, joined: &Joined) -> Result<TaskList, ListedError> {
    let listed: BTreeMap<&str, u64> = list.tasks.iter().map(|(t, l)| (t.as_str(), *l)).collect();
    let mut rows: BTreeSet<&str> = BTreeSet::new();
    // Per listed item: its repeats, each (id, baseline row, candidate row).
    let mut repeats: BTreeMap<&str, Vec<(u64, &str, u64, u64)>> = BTreeMap::new();
    for found in joined.tasks() {
        if listed.contains_key(found.task) {
            rows.insert(found.task);
            continue;
        }
        // A row only the candidate has carries no group here: its form names its item.
        let repeat = if found.baseline_line == 0 {
            repeat_form(found.task)
        } else {
            repeat_in(found.task, found.group)
        };
        if let Some((item, r)) = repeat
            && listed.contains_key(item)
        {
            repeats.entry(item).or_default().push((
                r,
                found.task,
                found.baseline_line,
                found.candidate_line,
            ));
        }
    }
    if repeats.is_empty() {
        return Ok(list.clone());
    }
    if let Some(item) = repeats.keys().find(|item| rows.contains(*item)) {
        return Err(ListedError::Mixed {
            list: list.source.clone(),
            line: listed[item],
            item: item.to_string(),
        });
    }
    let both = rows.iter().find_map(|row| {
        repeat_form(row)
            .filter(|(item, _)| repeats.contains_key(item))
            .map(|(item, _)| (item, *row))
    });
    if let Some((item, row)) = both {
        return Err(ListedError::ItemAndRepeat {
            list: list.source.clone(),
            item: item.to_string(),
            item_line: listed[item],
            row: row.to_string(),
            row_line: listed[row],
        });
    }
    let (baseline, candidate) = joined.sources();
    let mut missing = Vec::new();
    let mut items = 0;
    for of_item in repeats.values_mut() {
        of_item.sort_unstable();
        let before = missing.len();
        for &(_, task, in_baseline, in_candidate) in of_item.iter() {
            let (has, line, lacks) = match (in_baseline, in_candidate) {
                (0, line) => (candidate, line, baseline),
                (line, 0) => (baseline, line, candidate),
                _ => continue,
            };
            missing.push(format!("`{task}` in `{has}` row {line}, not in `{lacks}`"));
        }
        items += usize::from(missing.len() > before);
    }
    if !missing.is_empty() {
        return Err(ListedError::MissingRepeats {
            list: list.source.clone(),
            count: missing.len(),
            items,
            first: missing.into_iter().take(SHOWN_MISSING).collect(),
        });
    }
    let mut tasks = Vec::with_capacity(list.tasks.len());
    for (task, line) in &list.tasks {
        match repeats.get(task.as_str()) {
            Some(of_item) => tasks.extend(
                of_item
                    .iter()
                    .map(|(_, row, _, _)| (row.to_string(), *line)),
            ),
            None => tasks.push((task.clone(), *line)),
        }
    }
    Ok(TaskList {
        source: list.source.clone(),
        tasks,
    })
}

/// Refuses a manifest's holdout (`recorded`, the ids it lists) that names the repeats
/// of an item tested (`items`, the pairs collapsed to items): holdout-intact proves
/// items, and the ledger counts on the holdout's identity, so such a holdout is made
/// again rather than read two ways.
pub(crate) fn refuse_holdout_of_repeats(
    manifest: &str,
    recorded: &[String],
    items: &Pairs,
) -> Result<(), ListedError> {
    let tested: BTreeSet<&str> = items.tasks().collect();
    let first = recorded.iter().find_map(|id| {
        repeat_form(id)
            .filter(|(item, _)| tested.contains(item) && !tested.contains(id.as_str()))
            .map(|(item, _)| (id, item))
    });
    match first {
        Some((row, item)) => Err(ListedError::HoldoutOfRepeats {
            manifest: manifest.to_string(),
            row: row.clone(),
            item: item.to_string(),
        }),
        None => Ok(()),
    }
}
