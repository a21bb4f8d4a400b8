//! The shared rules of [`super::assemble`] applied to samples held in an external sort
//! ([`crate::base::sorter`]) instead of memory, so that an import's memory does not grow
//! with its rows. Every sample, and every id of the universe, the errored and the
//! duplicated, is a record keyed by its (trimmed) task id; the merged records come
//! grouped by task, in the order the rows are written. Three passes read them:
//!
//! 1. the largest number of repeats of an item, and of an item of each `kind`;
//! 2. what is left out and why, the repeats checked and reduced, the scores mapped:
//!    every count, note and error of the import, and the CSV's columns;
//! 3. the rows, handed out one at a time to be written.
//!
//! Memory holds the sort's buffer and one task's samples.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::sync::Arc;

use super::repeats::RepeatCheck;
use super::{
    Direction, Dropped, FIRST_IDS, Found, ImportError, OnMissing, Repeats, Rules, Sample, Tally,
};
use crate::base::sorter::{Budget, RunStore, Sorted, Sorter};
use crate::table::trim_field;

/// The bytes of records an import keeps in memory before it writes a sorted run.
const BUFFER: usize = 24 << 20;

const SAMPLE: u8 = 0;
const UNIVERSE: u8 = 1;
const ERRORED: u8 = 2;
const DUPLICATED: u8 = 3;

/// The samples and ids of one import, being gathered into an external sort.
pub(crate) struct Entries<'s> {
    sorter: Sorter<'s>,
    kinds: Vec<Arc<str>>,
    kind_index: BTreeMap<Arc<str>, u32>,
    payload: Vec<u8>,
}

fn sort_failed(e: io::Error) -> ImportError {
    ImportError::Refused(format!(
        "the samples could not be sorted in temporary files: {e}; free space in the temporary folder (TMPDIR)"
    ))
}

impl<'s> Entries<'s> {
    /// Nothing gathered yet; sorted runs go to `store`.
    pub(crate) fn new(store: &'s dyn RunStore) -> Entries<'s> {
        Entries {
            sorter: Sorter::new(
                store,
                Budget {
                    least: BUFFER,
                    per_record: 0,
                },
            ),
            kinds: Vec::new(),
            kind_index: BTreeMap::new(),
            payload: Vec::with_capacity(64),
        }
    }

    /// Adds one sample; its id and kind are trimmed as every reader trims a cell.
    pub(crate) fn push(&mut self, sample: &Sample) -> Result<(), ImportError> {
        let kind = sample.kind.as_deref().map(|k| self.kind(trim_field(k)));
        let p = &mut self.payload;
        p.clear();
        p.push(SAMPLE);
        let flags = u8::from(sample.repeat.is_some())
            | u8::from(sample.doc_key.is_some()) << 1
            | u8::from(sample.output_key.is_some()) << 2
            | u8::from(kind.is_some()) << 3;
        p.push(flags);
        p.extend_from_slice(&sample.score.to_le_bytes());
        for value in [sample.repeat, sample.doc_key, sample.output_key]
            .into_iter()
            .flatten()
        {
            p.extend_from_slice(&value.to_le_bytes());
        }
        if let Some(kind) = kind {
            p.extend_from_slice(&kind.to_le_bytes());
        }
        self.sorter
            .push(trim_field(&sample.task_id).as_bytes(), &self.payload)
            .map_err(sort_failed)
    }

    fn kind(&mut self, kind: &str) -> u32 {
        if let Some(&index) = self.kind_index.get(kind) {
            return index;
        }
        let shared: Arc<str> = Arc::from(kind);
        self.kinds.push(Arc::clone(&shared));
        self.kind_index.insert(shared, self.kinds.len() as u32 - 1);
        self.kinds.len() as u32 - 1
    }

    fn push_id(&mut self, id: &str, tag: u8) -> Result<(), ImportError> {
        self.sorter
            .push(trim_field(id).as_bytes(), &[tag])
            .map_err(sort_failed)
    }

    /// Takes in the samples and ids `found` holds, and leaves it without them.
    pub(crate) fn absorb(&mut self, found: &mut Found) -> Result<(), ImportError> {
        for sample in std::mem::take(&mut found.samples) {
            self.push(&sample)?;
        }
        for id in std::mem::take(&mut found.universe) {
            self.push_id(&id, UNIVERSE)?;
        }
        for id in std::mem::take(&mut found.errored) {
            self.push_id(&id, ERRORED)?;
        }
        for id in std::mem::take(&mut found.duplicated) {
            self.push_id(&id, DUPLICATED)?;
        }
        Ok(())
    }

    fn finish(self) -> (Sorted, Vec<Arc<str>>) {
        (self.sorter.finish(), self.kinds)
    }
}

impl super::Gather for Entries<'_> {
    fn sample(&mut self, sample: Sample) -> Result<(), ImportError> {
        self.push(&sample)
    }

    fn universe(&mut self, id: String) -> Result<(), ImportError> {
        self.push_id(&id, UNIVERSE)
    }
}

/// One sample as a sorted record holds it.
#[derive(Debug, Clone, Copy)]
struct Held {
    score: f64,
    repeat: Option<u64>,
    doc_key: Option<u64>,
    output_key: Option<u64>,
    kind: Option<u32>,
}

fn decode(payload: &[u8]) -> Held {
    let flags = payload[1];
    let word = |at: usize| u64::from_le_bytes(payload[at..at + 8].try_into().expect("8 bytes"));
    let mut at = 10;
    let mut next = |present: bool| {
        present.then(|| {
            at += 8;
            word(at - 8)
        })
    };
    let repeat = next(flags & 1 != 0);
    let doc_key = next(flags & 2 != 0);
    let output_key = next(flags & 4 != 0);
    let kind = (flags & 8 != 0)
        .then(|| u32::from_le_bytes(payload[at..at + 4].try_into().expect("4 bytes")));
    Held {
        score: f64::from_le_bytes(payload[2..10].try_into().expect("8 bytes")),
        repeat,
        doc_key,
        output_key,
        kind,
    }
}

/// One task's records.
#[derive(Debug, Default)]
struct Group {
    task_id: String,
    samples: Vec<Held>,
    universe: bool,
    errored: bool,
    duplicated: bool,
}

impl Group {
    /// Two or more samples that are not distinct repeats of one item.
    fn twice(&self) -> bool {
        let distinct = self.samples.iter().all(|s| s.repeat.is_some())
            && self.samples.windows(2).all(|w| w[0].repeat != w[1].repeat);
        self.samples.len() > 1 && !distinct
    }
}

/// Hands every task's group of records, in task order, to `each`.
fn groups(
    sorted: &Sorted,
    each: &mut dyn FnMut(&Group) -> Result<(), ImportError>,
) -> Result<(), ImportError> {
    let mut merged = sorted.merge().map_err(sort_failed)?;
    let mut group = Group::default();
    let mut open = false;
    while let Some((key, payload)) = merged.next_record().map_err(sort_failed)? {
        if !open || key != group.task_id.as_bytes() {
            if open {
                group.samples.sort_by_key(|s| s.repeat);
                each(&group)?;
            }
            group.task_id.clear();
            group.task_id.push_str(&String::from_utf8_lossy(key));
            group.samples.clear();
            (group.universe, group.errored, group.duplicated) = (false, false, false);
            open = true;
        }
        match payload[0] {
            SAMPLE => group.samples.push(decode(payload)),
            UNIVERSE => group.universe = true,
            ERRORED => group.errored = true,
            _ => group.duplicated = true,
        }
    }
    if open {
        group.samples.sort_by_key(|s| s.repeat);
        each(&group)?;
    }
    Ok(())
}

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

/// What the first pass finds: the most repeats of any item, and by kind.
struct Shape {
    most: usize,
    expected: BTreeMap<String, u64>,
}

/// Everything an import says besides its rows, and how to read them again.
pub(crate) struct Plan {
    sorted: Sorted,
    kinds: Vec<Arc<str>>,
    reducers: BTreeMap<String, Repeats>,
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

/// The per-task decisions of the second and third passes.
struct Decide<'p> {
    rules: Rules,
    most: usize,
    expected: &'p BTreeMap<String, u64>,
    kinds: &'p [Arc<str>],
    reducers: &'p BTreeMap<String, Repeats>,
}

/// What became of one kept task: its rows before the scale, or why its repeats
/// cannot be reduced; with the reduction's name, when it was reduced.
type Fate = (Result<Vec<Row>, ImportError>, Option<String>);

/// Whether a task is duplicated, lacks repeats, is missing, and is kept.
struct Kept {
    twice: bool,
    lacking: Vec<u64>,
    unanswered: bool,
    kept: bool,
}

impl Decide<'_> {
    fn kept(&self, group: &Group) -> Kept {
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

    fn kind_name(&self, held: &Held) -> &str {
        held.kind.map_or("", |k| &self.kinds[k as usize])
    }

    /// The repeats the item lacks (none for an item of one sample without a number).
    fn lacking(&self, group: &Group) -> Vec<u64> {
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
    fn rows(&self, group: &Group, turned: &mut usize) -> Fate {
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
            None => match first
                .kind
                .and_then(|k| self.reducers.get(&*self.kinds[k as usize]))
            {
                Some(rule) => (*rule, true),
                None => {
                    let error = ImportError::Choice {
                        option: "--repeats".to_string(),
                        given: None,
                        choices: [
                            "mean",
                            "majority",
                            "first",
                            "all",
                            "median",
                            "mode",
                            "max",
                            "pass_at_K",
                            "at_least_K",
                        ]
                        .map(String::from)
                        .to_vec(),
                        why: format!(
                            "items have up to {} repeats and the log names no reducer",
                            self.most
                        ),
                    };
                    return (Err(error), None);
                }
            },
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
