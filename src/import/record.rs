//! The companion record written beside every imported scores file
//! (`scores.csv` → `scores.import.json`): the format, the selectors as resolved, the
//! inputs' SHA-256s, what was left out, and for lm-eval each task's document hash, so
//! that `admit` can refuse to pair runs made on different documents.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Dropped, Imported};

/// The record's schema name.
pub const SCHEMA: &str = "evogate/import/v1";

/// One input log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputLog {
    /// The path as given on the command line.
    pub path: String,
    /// Its SHA-256, lowercase hex.
    pub sha256: String,
}

/// What an import read and how (the JSON schema is this struct).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImportRecord<'a> {
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
    /// lm-eval only: each written task's `doc_hash`, in the rows' (task id) order,
    /// borrowed from the rows (written by [`ImportRecord::to_json`] on a line of its own).
    #[serde(skip)]
    pub doc_hashes: Vec<(&'a str, &'a str)>,
}

impl<'a> ImportRecord<'a> {
    /// The record of `imported`.
    pub fn new(
        format: super::Format,
        imported: &'a Imported,
        on_missing: super::OnMissing,
        scale: Option<super::Scale>,
        inputs: Vec<InputLog>,
    ) -> ImportRecord<'a> {
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
            doc_hashes: imported
                .rows
                .iter()
                .filter_map(|r| Some((r.task_id.as_str(), r.doc_hash.as_deref()?)))
                .collect(),
        }
    }

    /// The record as pretty JSON with a final newline; the document hashes, one per
    /// task (a million for a large lm-eval run), on one line of their own rather than
    /// one line each, which keeps the record a third smaller and its writing cheap.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        if !self.doc_hashes.is_empty() {
            let mut hashes = Vec::new();
            let mut writer = serde_json::Serializer::new(&mut hashes);
            // The rows are sorted and unique by task id, so this is the map admit reads.
            let _ = serde::Serializer::collect_map(&mut writer, self.doc_hashes.iter().copied());
            let hashes = String::from_utf8(hashes).unwrap_or_default();
            // The pretty text ends with `\n}`: the field goes in before the brace.
            text.truncate(text.len() - 2);
            text.push_str(",\n  \"doc_hashes\": ");
            text.push_str(&hashes);
            text.push_str("\n}");
        }
        text.push('\n');
        text
    }
}

/// Where the record of the scores file `scores` goes: its extension replaced by
/// `import.json`.
pub fn companion_path(scores: &Path) -> PathBuf {
    scores.with_extension("import.json")
}

/// The part of a record `admit` reads back.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Documents {
    /// Each task's document hash.
    #[serde(default)]
    pub doc_hashes: BTreeMap<String, String>,
    /// The tasks the import left out, by reason.
    #[serde(default)]
    pub dropped: Dropped,
}

impl Documents {
    /// The tasks the import left out, when it left any: all of them count as
    /// unanswered (a missing or errored sample has no answer; a duplicated one no
    /// single answer).
    pub fn left_out(&self) -> Option<crate::admission::LeftOut> {
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

/// When both records hold document hashes: the tasks whose documents differ (sorted),
/// with the baseline's and the candidate's hash.
pub fn different_documents(
    baseline: &Documents,
    candidate: &Documents,
) -> Vec<(String, String, String)> {
    baseline
        .doc_hashes
        .iter()
        .filter_map(|(task, base)| {
            let cand = candidate.doc_hashes.get(task)?;
            (cand != base).then(|| (task.clone(), base.clone(), cand.clone()))
        })
        .collect()
}
