//! An import's samples held in an external sort ([`crate::base::sorter`]) instead of
//! memory, so that its memory does not grow with its rows. Every sample, and every id
//! of the universe, the errored and the duplicated, is a record keyed by its (trimmed)
//! task id; merged, the records come grouped by task ([`groups`]), in the order the
//! rows are written. [`super::plan`] reads them in passes.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

use super::{Found, ImportError, Sample};
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

    pub(crate) fn finish(self) -> (Sorted, Vec<Arc<str>>) {
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
pub(crate) struct Held {
    pub(crate) score: f64,
    pub(crate) repeat: Option<u64>,
    pub(crate) doc_key: Option<u64>,
    pub(crate) output_key: Option<u64>,
    pub(crate) kind: Option<u32>,
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
pub(crate) struct Group {
    pub(crate) task_id: String,
    pub(crate) samples: Vec<Held>,
    pub(crate) universe: bool,
    pub(crate) errored: bool,
    pub(crate) duplicated: bool,
}

impl Group {
    /// Two or more samples that are not distinct repeats of one item.
    pub(crate) fn twice(&self) -> bool {
        let distinct = self.samples.iter().all(|s| s.repeat.is_some())
            && self.samples.windows(2).all(|w| w[0].repeat != w[1].repeat);
        self.samples.len() > 1 && !distinct
    }
}

/// Hands every task's group of records, in task order, to `each`.
pub(crate) fn groups(
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
