//! The companion record written beside every imported scores file
//! (`scores.csv` → `scores.import.json`): the format, the selectors as resolved, the
//! inputs' SHA-256s, what was left out, and for lm-eval each document's key, so that
//! `admit` can refuse to pair runs made on different documents.
//!
//! Schema `evogate/import/v2` stores, per lm-eval task, the doc ids (as integer ranges
//! when every id is a plain non-negative integer, as lm-eval writes them) and one
//! 64-bit key per document ([`doc_key`], 16 hex digits each, in the ids' order): 24
//! bytes a document instead of the 80 of v1's `{"task:id": "<doc_hash>"}` map, which
//! made the record four times the size of the scores it describes. `admit` still reads
//! v1 records (`doc_hashes`), keying their hashes the same way.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Dropped, Imported};

/// The record's schema name.
pub(crate) const SCHEMA: &str = "evogate/import/v3";

/// One input log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InputLog {
    /// The path as given on the command line.
    pub path: String,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

/// What an import read and how (the JSON schema is this struct).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ImportRecord {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// The format, as given on the command line (`lm-eval`, `inspect`, ...).
    pub format: &'static str,
    /// The selectors as resolved, by option name without dashes.
    pub selectors: BTreeMap<String, String>,
    /// `fail` or `intersect`.
    pub on_missing: &'static str,
    /// `--scale MIN:MAX` when given.
    pub scale: Option<String>,
    /// The logs read, in the order given.
    pub inputs: Vec<InputLog>,
    /// Rows written.
    pub rows: usize,
    /// Tasks left out, by reason (all zero unless `--on-missing intersect`).
    pub dropped: Dropped,
    /// Notes, e.g. that a mean turned outcomes into scores.
    pub notes: Vec<String>,
    /// The written rows' document keys, by `kind` (empty for rows without one):
    /// lm-eval's `doc_hash`, Inspect's sample input, promptfoo's vars, HELM's instance.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub documents: BTreeMap<String, TaskDocuments>,
    /// The SHA-256 of the scores file written beside this record (lowercase hex):
    /// `admit` refuses a record that does not match the file it sits beside.
    pub scores_sha256: String,
    /// How items' repeats were reduced, when some had several (`null` otherwise).
    pub repeats: Option<String>,
    /// The logged metric's direction and where it was read; the written scores are
    /// always higher-is-better on [0, 1].
    pub direction: super::Direction,
    /// The log chose this arm on these very scores (GEPA's best candidate on its
    /// validation set): `admit` then refuses, as a gain on them is no evidence.
    pub selected_on_these_scores: bool,
    /// What identifies the data each input ran on (Inspect's `eval.dataset`), by input.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub datasets: BTreeMap<String, String>,
    /// The items whose every repeat gave byte-identical output text (where the log
    /// carries it), as a cache replays one answer: `admit` warns that such repeats add
    /// no evidence. Absent when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identical_repeats: Option<super::Tally>,
}

/// One lm-eval task's documents: the row `<task>:<id>` ran on the document whose key
/// is `keys[16 i..16 i + 16]` when `id` is the i-th id.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TaskDocuments {
    /// The ids when every one is a plain non-negative integer (digits, no leading
    /// zero): ascending ranges `first-last` or single ids, comma-separated.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ranges: String,
    /// Otherwise the ids, in the rows' order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ids: Vec<String>,
    /// Each document's [`doc_key`], 16 lowercase hex digits each, in the ids' order.
    pub keys: String,
}

/// The 64 bits that stand for a document: the first 16 hex digits of its `doc_hash`
/// when that is a SHA-256 in lowercase hex (as lm-eval writes it), else of the SHA-256
/// of the `doc_hash` text. Two different documents get the same key with probability
/// 2^-64, so a run on other documents is told apart in practice.
pub(crate) fn doc_key(doc_hash: &str) -> u64 {
    let bytes = doc_hash.as_bytes();
    // A fold, not `all`: without the early exit the check is vectorised.
    if bytes.len() == 64
        && bytes
            .iter()
            .fold(true, |hex, c| hex & matches!(c, b'0'..=b'9' | b'a'..=b'f'))
        && let Ok(key) = u64::from_str_radix(&doc_hash[..16], 16)
    {
        return key;
    }
    let digest = Sha256::digest(bytes);
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// `key` as 16 lowercase hex digits (a million keys: no formatting machinery).
fn push_key(text: &mut String, key: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for shift in (0..16).rev() {
        text.push(char::from(DIGITS[(key >> (4 * shift)) as usize & 15]));
    }
}

/// An id in the ranges' form: digits without a leading zero, within u64.
pub(crate) fn plain_integer(id: &str) -> Option<u64> {
    let bytes = id.as_bytes();
    let plain = !bytes.is_empty()
        && bytes.iter().all(u8::is_ascii_digit)
        && (bytes[0] != b'0' || bytes.len() == 1);
    plain.then(|| id.parse().ok()).flatten()
}

impl TaskDocuments {
    /// The documents of one task from its (id, key) pairs, ids unique.
    fn of(pairs: Vec<(&str, u64)>) -> TaskDocuments {
        let numbers: Option<Vec<(u64, u64)>> = pairs
            .iter()
            .map(|&(id, key)| Some((plain_integer(id)?, key)))
            .collect();
        let mut documents = TaskDocuments {
            keys: String::with_capacity(16 * pairs.len()),
            ..TaskDocuments::default()
        };
        match numbers {
            Some(mut numbers) => {
                numbers.sort_unstable();
                let mut at = 0;
                while at < numbers.len() {
                    let first = numbers[at].0;
                    let mut last = at;
                    while last + 1 < numbers.len() && numbers[last + 1].0 == numbers[last].0 + 1 {
                        last += 1;
                    }
                    if !documents.ranges.is_empty() {
                        documents.ranges.push(',');
                    }
                    let _ = match last > at {
                        true => write!(documents.ranges, "{first}-{}", numbers[last].0),
                        false => write!(documents.ranges, "{first}"),
                    };
                    at = last + 1;
                }
                for (_, key) in numbers {
                    push_key(&mut documents.keys, key);
                }
            }
            None => {
                for (id, key) in pairs {
                    documents.ids.push(id.to_string());
                    push_key(&mut documents.keys, key);
                }
            }
        }
        documents
    }

    /// The (id, key) pairs, or what is wrong with the record.
    fn pairs(&self) -> Result<Vec<(String, u64)>, String> {
        let mut ids = Vec::new();
        if self.ranges.is_empty() {
            ids.clone_from(&self.ids);
        } else {
            if !self.ids.is_empty() {
                return Err("a task has both `ranges` and `ids`".to_string());
            }
            for range in self.ranges.split(',') {
                let bad = || format!("`{range}` in `ranges` is not an id or a range first-last");
                let (first, last) = range.split_once('-').unwrap_or((range, range));
                let first = plain_integer(first).ok_or_else(bad)?;
                let last = plain_integer(last).ok_or_else(bad)?;
                let room = (self.keys.len() / 16).saturating_sub(ids.len()) as u64;
                if last < first || last - first >= room {
                    return Err(bad());
                }
                ids.extend((first..=last).map(|id| id.to_string()));
            }
        }
        if self.keys.len() != 16 * ids.len() {
            return Err(format!(
                "{} ids but {} bytes of keys (16 hex digits each)",
                ids.len(),
                self.keys.len()
            ));
        }
        ids.into_iter()
            .zip(self.keys.as_bytes().chunks(16))
            .map(|(id, key)| {
                let key = std::str::from_utf8(key)
                    .ok()
                    .and_then(|k| u64::from_str_radix(k, 16).ok())
                    .ok_or_else(|| format!("the key of `{id}` is not 16 hex digits"))?;
                Ok((id, key))
            })
            .collect()
    }
}

impl ImportRecord {
    /// The record of `imported`.
    pub(crate) fn new(
        format: super::Format,
        imported: &Imported,
        on_missing: super::OnMissing,
        scale: Option<super::Scale>,
        inputs: Vec<InputLog>,
    ) -> ImportRecord {
        // Keys by kind; a task id `<kind>:<id>` is stored as `<id>` (lm-eval's and
        // Inspect's ids), any other whole.
        let mut by_task: BTreeMap<&str, Vec<(&str, u64)>> = BTreeMap::new();
        for row in &imported.rows {
            let Some(key) = row.doc_key else {
                continue;
            };
            let kind = row.kind.as_deref().unwrap_or("");
            let id = row
                .task_id
                .strip_prefix(kind)
                .and_then(|r| r.strip_prefix(':'))
                .filter(|_| !kind.is_empty())
                .unwrap_or(&row.task_id);
            by_task.entry(kind).or_default().push((id, key));
        }
        ImportRecord {
            schema: SCHEMA,
            format: format.name(),
            selectors: imported.selectors.clone(),
            on_missing: match on_missing {
                super::OnMissing::Fail => "fail",
                super::OnMissing::Intersect => "intersect",
            },
            scale: scale.map(|s| format!("{}:{}", s.min, s.max)),
            inputs,
            rows: imported.rows.len(),
            dropped: imported.dropped.clone(),
            notes: imported.notes.clone(),
            documents: by_task
                .into_iter()
                .map(|(task, pairs)| (task.to_string(), TaskDocuments::of(pairs)))
                .collect(),
            scores_sha256: String::new(),
            repeats: imported.repeats.clone(),
            direction: imported.direction.clone(),
            selected_on_these_scores: imported.selected_on_these_scores,
            datasets: imported.datasets.clone(),
            identical_repeats: imported.identical_repeats.clone(),
        }
    }

    /// The record as pretty JSON with a final newline.
    pub(crate) fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// How the name of every import record ends: a folder import never takes such a file
/// for a log.
pub(crate) const RECORD_SUFFIX: &str = ".import.json";

/// Where the record of the scores file `scores` goes: its extension replaced by
/// `import.json`.
pub(crate) fn companion_path(scores: &Path) -> PathBuf {
    scores.with_extension(&RECORD_SUFFIX[1..])
}

/// The part of a record `admit` reads back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct Documents {
    /// v1 records: each task's document hash.
    #[serde(default)]
    pub doc_hashes: BTreeMap<String, String>,
    /// v2 records: the documents' keys by lm-eval task.
    #[serde(default)]
    pub documents: BTreeMap<String, TaskDocuments>,
    /// The tasks the import left out, by reason.
    #[serde(default)]
    pub dropped: Dropped,
    /// v3 records: the SHA-256 of the scores file written beside the record.
    #[serde(default)]
    pub scores_sha256: Option<String>,
    /// v3 records: the log chose this arm on these scores.
    #[serde(default)]
    pub selected_on_these_scores: bool,
    /// v3 records: notes (e.g. that GEPA chose on these scores).
    #[serde(default)]
    pub notes: Vec<String>,
    /// v2 and v3 records: which way the logged metric ran and where that was read.
    #[serde(default)]
    pub direction: Option<LoggedDirection>,
    /// v3 records: the items whose repeats are byte-identical copies.
    #[serde(default)]
    pub identical_repeats: Option<super::Tally>,
}

/// A record's `direction`, as `admit` reads it back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub(crate) struct LoggedDirection {
    /// `higher` or `lower`: which logged values were better.
    #[serde(default)]
    pub logged: String,
    /// Where that was read (`default (...)` when nothing said).
    #[serde(default)]
    pub source: String,
}

impl Documents {
    /// The tasks the import left out, when it left any: all of them count as
    /// unanswered (a missing or errored sample has no answer; a duplicated one no
    /// single answer).
    pub(crate) fn left_out(&self) -> Option<crate::admission::LeftOut> {
        let Dropped {
            missing,
            duplicated,
            errored,
        } = &self.dropped;
        let parts = [
            (missing, "missing"),
            (errored, "errored"),
            (duplicated, "duplicated"),
        ];
        let count: usize = parts.iter().map(|(t, _)| t.count).sum();
        if count == 0 {
            return None;
        }
        let why: Vec<String> = parts
            .iter()
            .filter(|(t, _)| t.count > 0)
            .map(|(t, what)| format!("{} {what}", t.count))
            .collect();
        let mut first: Vec<String> = parts.iter().flat_map(|(t, _)| t.first.clone()).collect();
        first.sort();
        first.truncate(super::FIRST_IDS);
        Some(crate::admission::LeftOut {
            count,
            why: why.join(", "),
            first,
        })
    }
}

impl Documents {
    /// Each task's document key, from a record of either schema, or what is wrong.
    fn keys(&self) -> Result<Vec<(String, u64)>, String> {
        let mut keys: Vec<(String, u64)> = self
            .doc_hashes
            .iter()
            .map(|(task, hash)| (task.clone(), doc_key(hash)))
            .collect();
        for (task, documents) in &self.documents {
            let pairs = documents
                .pairs()
                .map_err(|e| format!("task `{task}`: {e}"))?;
            keys.extend(
                pairs
                    .into_iter()
                    .map(|(id, key)| (format!("{task}:{id}"), key)),
            );
        }
        Ok(keys)
    }
}

/// A task run on different documents in two records: the task id and the
/// baseline's and the candidate's document keys (16 hex digits each).
pub(crate) type Differing = (String, String, String);

/// The tasks both records hold whose documents differ (sorted by task id), or what
/// is wrong with one of the records (`Err((0 baseline | 1 candidate, message))`).
pub(crate) fn different_documents(
    baseline: &Documents,
    candidate: &Documents,
) -> Result<Vec<Differing>, (usize, String)> {
    let base = baseline.keys().map_err(|e| (0, e))?;
    let cand = candidate.keys().map_err(|e| (1, e))?;
    let base: FxHashMap<String, u64> = base.into_iter().collect();
    let hex = |key: u64| format!("{key:016x}");
    let mut differ: Vec<Differing> = cand
        .into_iter()
        .filter_map(|(task, c)| {
            let b = *base.get(&task)?;
            (b != c).then(|| (task, hex(b), hex(c)))
        })
        .collect();
    differ.sort_unstable();
    Ok(differ)
}
