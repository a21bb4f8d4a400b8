//! The holdout a manifest recorded, read as a stream: the manifest is parsed as
//! [`HoldoutRecord::from_manifest`](super::HoldoutRecord::from_manifest) parses it
//! (the same checks, the same errors for the same bytes), but the first holdout split's
//! task ids are sent on in batches as they are read instead of being kept, and every
//! other list of ids is only checked. A manifest of ten million tasks is read in the
//! memory of a batch.

use std::cell::RefCell;
use std::io::BufReader;
use std::sync::mpsc::SyncSender;

use serde::Deserialize;
use serde::de::{Deserializer, SeqAccess, Visitor};

use super::HoldoutRecord;
use super::skeleton::{Skeleton, read_skeleton};
use crate::base::sorter::{Budget, RunStore, Sorter};
use crate::digest::HashingReader;
use crate::error::InputError;
use crate::split::manifest::{FileDigest, HoldoutPower, MANIFEST_SCHEMA};
use crate::table::Reopen;

/// Ids sent at a time.
const BATCH: usize = 4096;

/// Holdout ids sent on together, one after the other in one text: a batch costs two
/// allocations, not one an id (the reader and the join run on two threads, and a
/// string made on one and dropped on the other is the dearer kind to free).
#[derive(Debug, Default)]
pub(crate) struct IdBatch {
    text: String,
    /// Where each id ends in `text`.
    ends: Vec<usize>,
}

impl IdBatch {
    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    /// How many ids the batch holds.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the batch holds no id.
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The id at `at` (`None` past the last).
    pub(crate) fn get(&self, at: usize) -> Option<&str> {
        let end = *self.ends.get(at)?;
        let start = at.checked_sub(1).map_or(0, |before| self.ends[before]);
        self.text.get(start..end)
    }
}

/// What the holdout check needs of the manifest besides the ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// The recorded SHA-256 of `holdout.csv`.
    pub sha256: String,
    /// The manifest's own SHA-256, when asked for.
    pub digest: Option<String>,
    /// The holdout's identity in the ledger (see
    /// [`holdout_identity`](super::holdout::holdout_identity)), when asked for.
    pub identity: Option<String>,
}

/// The state of one manifest's reading, for the field readers below (serde's derive
/// gives a field's reader nothing but the field).
struct Reading<'s> {
    send: SyncSender<IdBatch>,
    /// Ids a first, fast reading handed out already.
    skip: usize,
    batch: IdBatch,
    /// Whether a holdout split was read already (only the first counts).
    taken: bool,
    /// The name of the split being read, once read.
    name: Option<String>,
    /// The ids of a split read before its name.
    held: Vec<String>,
    /// The holdout's ids, for its identity.
    sorter: Option<Sorter<'s>>,
    failed: Option<std::io::Error>,
}

thread_local! {
    static READING: RefCell<Option<Reading<'static>>> = const { RefCell::new(None) };
}

impl Reading<'_> {
    fn send(&mut self, id: &str) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        if let Some(sorter) = &mut self.sorter
            && let Err(error) = sorter.push(id.as_bytes(), &[])
        {
            self.failed.get_or_insert(error);
        }
        self.batch.push(id);
        if self.batch.len() == BATCH {
            let next = IdBatch {
                text: String::with_capacity(self.batch.text.len()),
                ends: Vec::with_capacity(BATCH),
            };
            let _ = self.send.send(std::mem::replace(&mut self.batch, next));
        }
    }
}

/// The manifest's fields, as [`crate::split::manifest::Manifest`] has them (and its
/// name, which serde's messages quote).
#[derive(Deserialize)]
#[allow(dead_code)]
struct Manifest {
    schema: String,
    verifier: String,
    truth: FileDigest,
    seed: u64,
    ratios: [u32; 3],
    cases: String,
    algorithm: String,
    #[serde(deserialize_with = "splits")]
    splits: Option<String>,
    holdout_power: HoldoutPower,
}

/// One split's fields, as [`crate::split::manifest::SplitEntry`] has them.
#[derive(Deserialize)]
#[allow(dead_code)]
struct SplitEntry {
    #[serde(deserialize_with = "split_name")]
    name: String,
    file: FileDigest,
    tasks: usize,
    #[serde(deserialize_with = "groups")]
    groups: (),
    #[serde(deserialize_with = "task_ids")]
    task_ids: (),
}

fn with<T>(act: impl FnOnce(&mut Reading<'static>) -> T) -> T {
    READING.with(|reading| {
        act(reading
            .borrow_mut()
            .as_mut()
            .expect("a manifest is being read"))
    })
}

fn split_name<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let name = String::deserialize(deserializer)?;
    with(|reading| reading.name = Some(name.clone()));
    Ok(name)
}

/// A list of strings; `keep` is given each.
fn strings<'de, D: Deserializer<'de>>(deserializer: D, keep: fn(String)) -> Result<(), D::Error> {
    struct Ids(fn(String));
    impl<'de> Visitor<'de> for Ids {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while let Some(id) = seq.next_element::<String>()? {
                (self.0)(id);
            }
            Ok(())
        }
    }
    deserializer.deserialize_seq(Ids(keep))
}

/// A split's groups: only checked.
fn groups<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    strings(deserializer, drop)
}

/// A split's task ids: the first holdout split's are sent on (held until the split's
/// name is read, when it comes after them); any other's are only checked.
fn task_ids<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
    strings(deserializer, |id| {
        with(|reading| match reading.name.as_deref() {
            Some("holdout") if !reading.taken => reading.send(&id),
            Some(_) => {}
            None => reading.held.push(id),
        });
    })
}

/// The splits: each read as [`SplitEntry`]; the first named `holdout` gives its file's
/// recorded SHA-256.
fn splits<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    struct Splits;
    impl<'de> Visitor<'de> for Splits {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a sequence")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
            let mut holdout = None;
            loop {
                with(|reading| {
                    reading.name = None;
                    reading.held.clear();
                });
                let Some(split) = seq.next_element::<SplitEntry>()? else {
                    return Ok(holdout);
                };
                with(|reading| {
                    let held = std::mem::take(&mut reading.held);
                    if split.name == "holdout" && !reading.taken {
                        // Ids read before the split's name go on now.
                        for id in &held {
                            reading.send(id);
                        }
                        reading.taken = true;
                        holdout = Some(split.file.sha256.clone());
                    }
                });
            }
        }
    }
    deserializer.deserialize_seq(Splits)
}

/// Reads the manifest (named `source`; `reopen` reads it from its start), sending the
/// holdout's task ids to `send` in batches as they are read; with `identity`, also
/// sorts them there for the holdout's identity; with `digest`, digests the manifest. A
/// manifest as `split` writes it is read
/// a buffer at a time ([`read_skeleton`]); one the fast reading gives up on is read
/// again by serde. On an error, the caller words it as
/// [`HoldoutRecord::from_manifest`] does for the same bytes.
pub(crate) fn read_recorded(
    source: &str,
    reopen: Reopen<'_>,
    send: SyncSender<IdBatch>,
    identity: Option<&'static dyn RunStore>,
    digest: bool,
) -> Result<Recorded, InputError> {
    let budget = Budget {
        least: 4 << 20,
        per_record: 8,
    };
    let io = |error: std::io::Error| InputError::Io {
        file: source.to_string(),
        message: error.to_string(),
    };
    let mut reading = Reading {
        send,
        skip: 0,
        batch: IdBatch::default(),
        taken: false,
        name: None,
        held: Vec::new(),
        sorter: identity.map(|store| Sorter::new(store, budget)),
        failed: None,
    };
    let input = reopen().map_err(io)?;
    let input = match digest {
        true => HashingReader::new(input),
        false => HashingReader::plain(input),
    };
    let mut hashing = BufReader::with_capacity(1 << 16, input);
    let skeleton = read_skeleton(&mut hashing, &mut |id| reading.send(id)).map_err(io)?;
    let (sha256, digest, reading) = match skeleton {
        Skeleton::Read(skeleton) => {
            let record = HoldoutRecord::from_manifest(source, &skeleton, None)?;
            let digest = hashing.into_inner().finish_if().map_err(io)?;
            (record.sha256, digest, reading)
        }
        Skeleton::GaveUp(handed) => {
            reading.skip = handed;
            let (sha256, whole, reading) = read_by_serde(source, reopen, reading)?;
            (sha256, Some(whole).filter(|_| digest), reading)
        }
    };
    let Reading {
        send,
        batch,
        sorter,
        failed,
        ..
    } = reading;
    if !batch.is_empty() {
        let _ = send.send(batch);
    }
    drop(send);
    if let Some(error) = failed {
        return Err(io(error));
    }
    let identity = match sorter {
        None => None,
        Some(sorter) => Some(identity_of(&sorter.finish()).map_err(io)?),
    };
    Ok(Recorded {
        sha256,
        digest,
        identity,
    })
}

/// Reads the manifest by serde, with the field readers above; its holdout file's
/// SHA-256, the manifest's own, and the reading's state.
fn read_by_serde(
    source: &str,
    reopen: Reopen<'_>,
    reading: Reading<'static>,
) -> Result<(String, String, Reading<'static>), InputError> {
    let io = |error: std::io::Error| InputError::Io {
        file: source.to_string(),
        message: error.to_string(),
    };
    let input = reopen().map_err(io)?;
    // The field readers reach the reading through a thread-local, for the reading only.
    READING.with(|slot| *slot.borrow_mut() = Some(reading));
    let mut hashing = BufReader::with_capacity(1 << 16, HashingReader::new(input));
    let parsed = {
        // serde_json reads a stream a byte at a time: through a buffer, not the file.
        let mut deserializer = serde_json::Deserializer::from_reader(&mut hashing);
        Manifest::deserialize(&mut deserializer).and_then(|view| deserializer.end().map(|()| view))
    };
    let reading = READING
        .with(|slot| slot.borrow_mut().take())
        .expect("the reading was set up above");
    let view = parsed.map_err(|e| {
        InputError::invalid(
            source,
            e.line() as u64,
            format!("not a manifest that `evogate split` wrote ({e}); give the manifest.json beside the holdout"),
        )
    })?;
    if view.schema != MANIFEST_SCHEMA {
        return Err(InputError::invalid(
            source,
            0,
            format!(
                "schema `{}` is not `{MANIFEST_SCHEMA}`; give a manifest that `evogate split` wrote",
                view.schema
            ),
        ));
    }
    let sha256 = view
        .splits
        .ok_or_else(|| InputError::invalid(source, 0, "the manifest records no `holdout` split"))?;
    let digest = hashing.into_inner().finish().map_err(io)?;
    Ok((sha256, digest, reading))
}

/// SHA-256 of the sorted ids joined by `\n`.
fn identity_of(sorted: &crate::base::sorter::Sorted) -> std::io::Result<String> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    let mut merged = sorted.merge()?;
    let mut first = true;
    while let Some((id, _)) = merged.next_record()? {
        if !first {
            hasher.update(b"\n");
        }
        first = false;
        hasher.update(id);
    }
    Ok(format!("{:x}", hasher.finalize()))
}
