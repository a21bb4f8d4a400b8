//! The shared rules of [`super::assemble`] applied to the samples of an external sort
//! ([`super::sorted`]), in three passes over the tasks:
//!
//! 1. the largest number of repeats of an item, and of an item of each `kind`;
//! 2. what is left out and why, the repeats checked and reduced, the scores mapped:
//!    every count, note and error of the import, and the CSV's columns;
//! 3. the rows, handed out one at a time to be written ([`Plan::rows`]).
//!
//! Memory holds the sort's buffer and one task's samples.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::decide::{Decide, Kept, Row};
use super::repeats::RepeatCheck;
use super::sorted::{Entries, groups};
use super::{
    Direction, Dropped, FIRST_IDS, Found, ImportError, LogReducer, OnMissing, Repeats, Rules, Tally,
};
use crate::base::sorter::Sorted;

/// What the first pass finds: the most repeats of any item, and by kind.
struct Shape {
    most: usize,
    expected: BTreeMap<String, u64>,
}

/// Everything an import says besides its rows, and how to read them again.
pub(crate) struct Plan {
    sorted: Sorted,
    kinds: Vec<Arc<str>>,
    reducers: BTreeMap<String, LogReducer>,
    rules: Rules,
    most: usize,
    expected: BTreeMap<String, u64>,
    flip: bool,
    /// The rows written.
    pub rows: usize,
    /// Whether every score is 0 or 1.
    pub outcomes: bool,
    /// Whether some row has a kind.
    pub with_kind: bool,
    /// Whether some row has a group.
    pub with_group: bool,
    /// What was left out.
    pub dropped: Dropped,
    /// The notes, in the order the import says them.
    pub notes: Vec<String>,
    /// How repeats were reduced.
    pub repeats: Option<String>,
    /// The logged metric's direction.
    pub direction: Direction,
    /// Items whose repeats are byte-identical copies.
    pub identical_repeats: Option<Tally>,
    /// Per kind (`""` for rows without one) with document keys: whether every id is a
    /// plain integer (the record then stores ranges).
    pub plain_ids: BTreeMap<String, bool>,
}

/// A tally being counted in sorted order.
#[derive(Default)]
struct Counting {
    count: usize,
    first: Vec<String>,
}

impl Counting {
    fn add(&mut self, id: &str) {
        self.count += 1;
        if self.first.len() < FIRST_IDS {
            self.first.push(id.to_string());
        }
    }

    fn tally(self) -> Tally {
        Tally {
            count: self.count,
            first: self.first,
        }
    }
}

/// The first pass: the most repeats of an item that is not duplicated, and the
/// repeats expected of each kind's items (the most of the kind, at least as many as
/// the log declares).
fn shape(
    sorted: &Sorted,
    kinds: &[Arc<str>],
    declared: &BTreeMap<String, u64>,
) -> Result<Shape, ImportError> {
    let mut shape = Shape {
        most: 1,
        expected: BTreeMap::new(),
    };
    groups(sorted, &mut |group| {
        if group.samples.is_empty() {
            return Ok(());
        }
        let twice = group.twice();
        if !twice {
            shape.most = shape.most.max(group.samples.len());
        }
        if !(twice || group.duplicated) && group.samples.iter().all(|s| s.repeat.is_some()) {
            let kind = group.samples[0].kind.map_or("", |k| &kinds[k as usize]);
            let most = shape.expected.entry(kind.to_string()).or_insert(0);
            *most = (*most).max(group.samples.len() as u64);
        }
        Ok(())
    })?;
    for (kind, k) in &mut shape.expected {
        if let Some(said) = declared.get(kind) {
            *k = (*k).max(*said);
        }
    }
    Ok(shape)
}

/// Applies the shared rules to the samples gathered in `entries` and what else the
/// readers `found` (its samples and ids already taken into `entries`): every count,
/// note and error of [`super::assemble`], with the rows left in the sort to be read by
/// [`Plan::rows`]. Time: O(n log n); memory: the sort's buffer.
pub(crate) fn plan(found: Found, entries: Entries<'_>, rules: Rules) -> Result<Plan, ImportError> {
    let Found {
        selectors: _,
        mut notes,
        reducers,
        declared_repeats,
        lower_is_better,
        direction_source,
        direction_unknown,
        ..
    } = found;
    let (sorted, kinds) = entries.finish();
    let shape = shape(&sorted, &kinds, &declared_repeats)?;
    let decide = Decide {
        rules,
        most: shape.most,
        expected: &shape.expected,
        kinds: &kinds,
        reducers: &reducers,
    };
    // Known before the rows, said after the refusals and the reductions.
    let direction = super::direction(
        lower_is_better,
        direction_source,
        &direction_unknown,
        &rules,
    );
    let flip = direction.as_ref().is_ok_and(|d| d.logged == "lower")
        && !rules.scale.is_some_and(super::Scale::reverses);
    let intersect = rules.on_missing == OnMissing::Intersect;
    let (mut missing, mut twice, mut errored) = (
        Counting::default(),
        Counting::default(),
        Counting::default(),
    );
    let mut check = RepeatCheck::default();
    let mut universe = 0usize;
    let mut first_failure: Option<ImportError> = None;
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut turned = 0usize;
    let (mut rows, mut outside, mut first_outside) = (0usize, 0usize, None);
    let (mut outcomes, mut with_kind, mut with_group) = (true, false, false);
    let mut plain_ids: BTreeMap<String, bool> = BTreeMap::new();
    groups(&sorted, &mut |group| {
        universe += usize::from(group.universe);
        let Kept {
            twice: is_twice,
            lacking,
            unanswered,
            kept,
        } = decide.kept(group);
        if is_twice {
            twice.add(&group.task_id);
        }
        if group.errored {
            errored.add(&group.task_id);
        }
        if !lacking.is_empty() {
            check.note_lacking(&group.task_id, &lacking);
        }
        if unanswered || (intersect && !lacking.is_empty()) {
            missing.add(&group.task_id);
        }
        let samples = &group.samples;
        if !is_twice
            && samples.len() > 1
            && samples.iter().all(|s| s.repeat.is_some())
            && decide.expected[decide.kind_name(&samples[0])] > 1
            && samples.iter().all(|s| s.output_key.is_some())
        {
            let same = samples
                .windows(2)
                .all(|w| w[0].output_key == w[1].output_key);
            check.note_outputs(&group.task_id, samples.len(), same);
        }
        if !kept {
            return Ok(());
        }
        let (made, name) = decide.rows(group, &mut turned);
        used.extend(name);
        let made = match made {
            Ok(made) => made,
            Err(error) => {
                first_failure.get_or_insert(error);
                return Ok(());
            }
        };
        for row in made {
            let logged = row.score;
            let scaled = rules.scale.map_or(logged, |s| s.apply(logged)) + 0.0;
            if !(scaled.is_finite() && (0.0..=1.0).contains(&scaled)) {
                outside += 1;
                first_outside.get_or_insert((row.task_id, logged));
                continue;
            }
            let score = if flip { 1.0 - scaled + 0.0 } else { scaled };
            rows += 1;
            outcomes &= score == 0.0 || score == 1.0;
            with_kind |= row.kind.is_some();
            with_group |= row.group.is_some();
            if row.doc_key.is_some() {
                let kind = row.kind.map_or("", |k| &kinds[k as usize]);
                let plain = record_id(&row.task_id, kind).is_some_and(plain_integer);
                *plain_ids.entry(kind.to_string()).or_insert(true) &= plain;
            }
        }
        Ok(())
    })?;
    check.expected = shape.expected.clone();
    let dropped = Dropped {
        missing: missing.tally(),
        duplicated: twice.tally(),
        errored: errored.tally(),
    };
    let left_out = dropped.missing.count + dropped.duplicated.count + dropped.errored.count > 0;
    super::refuse_or_note(&dropped, &check, rules.on_missing, &mut notes)?;
    if let Some(note) = super::identical_note(&check) {
        notes.push(note);
    }
    if let Some(error) = first_failure {
        return Err(error);
    }
    let repeats = if shape.most <= 1 && rules.repeats != Some(Repeats::All) {
        if let Some(given) = rules.repeats {
            notes.push(format!(
                "no item has more than one repeat, so --repeats {} changed nothing",
                given.name()
            ));
        }
        None
    } else {
        if turned > 0 {
            notes.push(format!(
                "reducing repeats turned the 0/1 outcomes of {} into scores, so the file has no `correct` column and admit uses the signed-rank test",
                crate::base::numbers::count(turned as u64, "task")
            ));
        }
        Some(used.into_iter().collect::<Vec<_>>().join(", "))
    };
    let direction = direction?;
    if let Some((task, value)) = first_outside {
        return Err(super::outside_error(outside, &task, value, rules.scale));
    }
    if rows == 0 {
        return Err(super::nothing_left(universe, left_out));
    }
    check.expected.retain(|_, k| *k > 1);
    Ok(Plan {
        sorted,
        kinds,
        reducers,
        rules,
        most: shape.most,
        expected: shape.expected,
        flip,
        rows,
        outcomes,
        with_kind,
        with_group,
        dropped,
        notes,
        repeats,
        direction,
        identical_repeats: check.identical_tally(),
        plain_ids,
    })
}

/// The id a record stores for a row's document: `<id>` of a task id `<kind>:<id>`,
/// else the whole task id; `None` where the record keeps no key.
pub(crate) fn record_id<'a>(task_id: &'a str, kind: &str) -> Option<&'a str> {
    Some(
        task_id
            .strip_prefix(kind)
            .and_then(|r| r.strip_prefix(':'))
            .filter(|_| !kind.is_empty())
            .unwrap_or(task_id),
    )
}

/// An id in the ranges' form: digits without a leading zero, within u64.
pub(crate) fn plain_integer(id: &str) -> bool {
    super::record::plain_integer(id).is_some()
}

impl Plan {
    /// The kind of a row.
    pub(crate) fn kind(&self, row: &Row) -> Option<&Arc<str>> {
        row.kind.map(|k| &self.kinds[k as usize])
    }

    /// Hands every row, in order, scores mapped onto [0, 1], to `each`.
    pub(crate) fn rows(
        &self,
        each: &mut dyn FnMut(&Row) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        let decide = Decide {
            rules: self.rules,
            most: self.most,
            expected: &self.expected,
            kinds: &self.kinds,
            reducers: &self.reducers,
        };
        let mut turned = 0;
        groups(&self.sorted, &mut |group| {
            if !decide.kept(group).kept {
                return Ok(());
            }
            for mut row in decide.rows(group, &mut turned).0? {
                let scaled = self.rules.scale.map_or(row.score, |s| s.apply(row.score)) + 0.0;
                row.score = if self.flip {
                    1.0 - scaled + 0.0
                } else {
                    scaled
                };
                each(&row)?;
            }
            Ok(())
        })
    }
}
