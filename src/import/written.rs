//! The scores CSV and the companion record of an import written as their rows are
//! read from the sort ([`super::sorted::Plan::rows`]), never held whole: the CSV a few
//! thousand rows at a time, the record's document keys gathered in a second external
//! sort (by task, then by id) and written from it. The bytes are those of
//! [`super::render_csv`] and [`super::record::ImportRecord::to_json`].

use std::collections::BTreeMap;
use std::io::{self, Write};

use super::plan::{Plan, record_id};
use super::record::{ImportRecord, plain_integer};
use crate::base::csv::{Cell, CsvWriter};
use crate::base::sorter::{Budget, RunStore, Sorted, Sorter};
use crate::digest::RunningDigest;
use crate::scores::{CORRECT_COLUMN, GROUP_COLUMN, SCORE_COLUMN, TASK_ID_COLUMN};

/// The scores CSV's columns: `task_id`, `group` (under `--repeats all`), `kind` when
/// rows have one, `correct` when every score is 0 or 1, and `score`.
pub(crate) fn header(with_group: bool, with_kind: bool, outcomes: bool) -> Vec<&'static str> {
    let mut header = vec![TASK_ID_COLUMN];
    if with_group {
        header.push(GROUP_COLUMN);
    }
    if with_kind {
        header.push("kind");
    }
    if outcomes {
        header.push(CORRECT_COLUMN);
    }
    header.push(SCORE_COLUMN);
    header
}

/// The columns a row fills.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Columns {
    /// `group` is written.
    pub group: bool,
    /// `kind` is written.
    pub kind: bool,
    /// `correct` is written.
    pub outcomes: bool,
}

/// One row of the scores CSV.
pub(crate) fn row(
    csv: &mut CsvWriter,
    columns: Columns,
    task_id: &str,
    group: Option<&str>,
    kind: Option<&str>,
    score: f64,
) {
    // Identifiers are data: written as they are, never neutralised, so the two arms'
    // files pair on exactly the ids the logs hold.
    csv.cell(Cell::Trusted(task_id));
    if columns.group {
        csv.cell(Cell::Trusted(group.unwrap_or(task_id)));
    }
    if columns.kind {
        csv.cell(Cell::Trusted(kind.unwrap_or("")));
    }
    if columns.outcomes {
        csv.cell(Cell::Trusted(if score == 1.0 { "1" } else { "0" }));
    }
    csv.number(score);
    csv.end_row();
}

fn failed(e: io::Error) -> super::ImportError {
    super::ImportError::Refused(format!(
        "the scores could not be written to a temporary file: {e}; free space in the temporary folder (TMPDIR)"
    ))
}

/// Writes the scores CSV of `plan` to `out`, gathering the rows' document keys into
/// `documents`; returns the CSV's SHA-256.
pub(crate) fn write_scores(
    plan: &Plan,
    out: &mut dyn Write,
    documents: &mut Documents<'_>,
) -> Result<String, super::ImportError> {
    let columns = Columns {
        group: plan.with_group,
        kind: plan.with_kind,
        outcomes: plan.outcomes,
    };
    let mut digest = RunningDigest::default();
    let mut csv = CsvWriter::with_capacity(1 << 17);
    csv.header(&header(columns.group, columns.kind, columns.outcomes));
    let mut failure: Option<io::Error> = None;
    let mut sink = |text: &str| {
        digest.update(text.as_bytes());
        if failure.is_none()
            && let Err(e) = out.write_all(text.as_bytes())
        {
            failure = Some(e);
        }
    };
    plan.rows(&mut |r| {
        let kind = plan.kind(r).map(|k| &**k);
        row(
            &mut csv,
            columns,
            &r.task_id,
            r.group.as_deref(),
            kind,
            r.score,
        );
        csv.hand_on(1 << 16, &mut sink);
        if let Some(key) = r.doc_key {
            documents
                .push(kind.unwrap_or(""), &r.task_id, key)
                .map_err(failed)?;
        }
        Ok(())
    })?;
    let rest = csv.finish();
    sink(&rest);
    match failure {
        Some(e) => Err(failed(e)),
        None => Ok(digest.hex()),
    }
}

/// The rows' document keys, being gathered in an external sort: by kind (in the
/// record's order), then by id as a number where every id of the kind is a plain
/// integer (the record stores ranges), else in row order.
pub(crate) struct Documents<'s> {
    sorter: Sorter<'s>,
    store: &'s dyn RunStore,
    /// Each kind with keys, whether its ids are plain integers.
    kinds: Vec<(String, bool)>,
    index: BTreeMap<String, u32>,
    rows: u64,
    key: Vec<u8>,
}

impl<'s> Documents<'s> {
    /// An empty gathering for the kinds of `plain_ids`; runs go to `store`.
    pub(crate) fn new(store: &'s dyn RunStore, plain_ids: &BTreeMap<String, bool>) -> Self {
        Documents {
            sorter: Sorter::new(
                store,
                Budget {
                    least: 16 << 20,
                    per_record: 0,
                },
            ),
            store,
            kinds: plain_ids.iter().map(|(k, p)| (k.clone(), *p)).collect(),
            index: (plain_ids.keys().enumerate())
                .map(|(i, k)| (k.clone(), i as u32))
                .collect(),
            rows: 0,
            key: Vec::with_capacity(32),
        }
    }

    fn push(&mut self, kind: &str, task_id: &str, key: u64) -> io::Result<()> {
        let Some(&index) = self.index.get(kind) else {
            return Ok(());
        };
        let id = record_id(task_id, kind).unwrap_or(task_id);
        self.key.clear();
        self.key.extend_from_slice(&index.to_be_bytes());
        match self.kinds[index as usize].1 {
            // Sorted as the record sorts (id, key) pairs.
            true => {
                let number = plain_integer(id).unwrap_or(0);
                self.key.extend_from_slice(&number.to_be_bytes());
                self.key.extend_from_slice(&key.to_be_bytes());
                self.sorter.push(&self.key, &[])
            }
            false => {
                self.key.extend_from_slice(&self.rows.to_be_bytes());
                self.rows += 1;
                let mut payload = key.to_be_bytes().to_vec();
                payload.extend_from_slice(id.as_bytes());
                self.sorter.push(&self.key, &payload)
            }
        }
    }
}

/// `key` as 16 lowercase hex digits.
fn hex(key: u64) -> [u8; 16] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = [0u8; 16];
    for (i, digit) in text.iter_mut().enumerate() {
        *digit = DIGITS[(key >> (4 * (15 - i))) as usize & 15];
    }
    text
}

fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// Writes `record` (whose `documents` are left empty) as [`ImportRecord::to_json`]
/// would write it with the documents gathered in `documents`.
pub(crate) fn write_record(
    record: &ImportRecord,
    documents: Documents<'_>,
    out: &mut dyn Write,
) -> io::Result<()> {
    let text = record.to_json();
    let kinds = documents.kinds.clone();
    let store = documents.store;
    let sorted: Sorted = documents.sorter.finish();
    let split = "\n  \"scores_sha256\": ";
    let at = match (kinds.is_empty(), text.find(split)) {
        (false, Some(at)) => at,
        _ => return out.write_all(text.as_bytes()),
    };
    out.write_all(&text.as_bytes()[..at])?;
    out.write_all(b"\n  \"documents\": {")?;
    let mut merged = sorted.merge()?;
    let mut current: Option<u32> = None;
    let mut keys = store.create()?;
    let mut ranges: Option<(u64, u64)> = None;
    let mut first_id = true;
    // Ends the kind being written: its last range, its keys.
    let close = |out: &mut dyn Write,
                 plain: bool,
                 ranges: &mut Option<(u64, u64)>,
                 keys: &mut Box<dyn crate::base::sorter::Run>|
     -> io::Result<()> {
        if plain {
            if let Some((first, last)) = ranges.take() {
                write_range(out, first, last)?;
            }
            out.write_all(b"\",\n      \"keys\": \"")?;
        } else {
            out.write_all(b"\n      ],\n      \"keys\": \"")?;
        }
        keys.finish()?;
        io::copy(&mut keys.reader()?, out)?;
        out.write_all(b"\"\n    }")
    };
    while let Some((key, payload)) = merged.next_record()? {
        let kind = u32::from_be_bytes(key[..4].try_into().expect("4 bytes"));
        let (name, plain) = &kinds[kind as usize];
        if current != Some(kind) {
            if let Some(previous) = current {
                close(out, kinds[previous as usize].1, &mut ranges, &mut keys)?;
                out.write_all(b",")?;
                keys = store.create()?;
            }
            current = Some(kind);
            first_id = true;
            write!(out, "\n    {}: {{", json_string(name))?;
            out.write_all(if *plain {
                b"\n      \"ranges\": \""
            } else {
                b"\n      \"ids\": ["
            })?;
        }
        if *plain {
            let number = u64::from_be_bytes(key[4..12].try_into().expect("8 bytes"));
            keys.append(&hex(u64::from_be_bytes(
                key[12..20].try_into().expect("8 bytes"),
            )))?;
            ranges = match ranges {
                Some((first, last)) if last.checked_add(1) == Some(number) => Some((first, number)),
                Some((first, last)) => {
                    write_range(out, first, last)?;
                    out.write_all(b",")?;
                    Some((number, number))
                }
                None => Some((number, number)),
            };
        } else {
            let doc = u64::from_be_bytes(payload[..8].try_into().expect("8 bytes"));
            keys.append(&hex(doc))?;
            let id = String::from_utf8_lossy(&payload[8..]);
            if !first_id {
                out.write_all(b",")?;
            }
            first_id = false;
            write!(out, "\n        {}", json_string(&id))?;
        }
    }
    if let Some(kind) = current {
        close(out, kinds[kind as usize].1, &mut ranges, &mut keys)?;
    }
    out.write_all(b"\n  },")?;
    out.write_all(&text.as_bytes()[at..])?;
    Ok(())
}

fn write_range(out: &mut dyn Write, first: u64, last: u64) -> io::Result<()> {
    match last > first {
        true => write!(out, "{first}-{last}"),
        false => write!(out, "{first}"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::base::sorter::MemoryRuns;
    use crate::import::plan::plan;
    use crate::import::sorted::Entries;
    use crate::import::{Found, OnMissing, Repeats, Rules, Sample, assemble, render_csv};

    fn sample(task: &str, kind: Option<&str>, doc: Option<u64>, repeat: Option<u64>) -> Sample {
        Sample {
            task_id: task.to_string(),
            score: (task.len() % 3) as f64 / 2.0,
            kind: kind.map(Arc::from),
            doc_key: doc,
            repeat,
            group: None,
            output_key: None,
        }
    }

    /// The scores and record written as the rows are read, and as `assemble` holds them.
    fn both_ways(found: Found, rules: Rules) -> ((String, String), (String, String)) {
        let held = assemble(found.clone(), rules).unwrap();
        let mut record = ImportRecord::new(
            crate::import::Format::LmEval,
            &held,
            rules.on_missing,
            None,
            Vec::new(),
        );
        let csv = render_csv(&held);
        record.scores_sha256 = crate::digest::sha256_hex(csv.as_bytes());
        let expected = (csv, record.to_json());

        let store = MemoryRuns;
        let mut entries = Entries::new(&store);
        let mut found = found;
        entries.absorb(&mut found).unwrap();
        let plan = plan(found, entries, rules).unwrap();
        let mut documents = Documents::new(&store, &plan.plain_ids);
        let mut scores = Vec::new();
        let sha = write_scores(&plan, &mut scores, &mut documents).unwrap();
        let mut streamed = record.clone();
        streamed.documents.clear();
        streamed.scores_sha256 = sha;
        let mut text = Vec::new();
        write_record(&streamed, documents, &mut text).unwrap();
        let got = (
            String::from_utf8(scores).unwrap(),
            String::from_utf8(text).unwrap(),
        );
        (got, expected)
    }

    #[test]
    fn scores_and_record_written_row_by_row_are_the_bytes_of_the_held_ones() {
        let mut found = Found::default();
        // Integer ids with gaps and a repeat of one id, ids that are not integers,
        // a kind whose ids mix both, and rows without a document key or kind.
        for id in [0, 1, 2, 3, 10, 12, 13, 100, 9, 11] {
            found.samples.push(sample(
                &format!("gsm8k:{id}"),
                Some("gsm8k"),
                Some(id * 77),
                None,
            ));
        }
        for id in ["b", "a\"q", "c\\n", "0x"] {
            found
                .samples
                .push(sample(&format!("arc:{id}"), Some("arc"), Some(7), None));
        }
        for id in ["5", "07", "x", "6"] {
            found
                .samples
                .push(sample(&format!("mix:{id}"), Some("mix"), Some(9), None));
        }
        found
            .samples
            .push(sample("other:3", Some("other"), None, None));
        found.samples.push(sample("plain", None, Some(1), None));
        found.samples.push(sample("plain2", None, Some(2), None));
        let (got, expected) = both_ways(found.clone(), Rules::default());
        assert_eq!(got.0, expected.0);
        assert_eq!(got.1, expected.1);
        assert!(
            expected.1.contains("\"ranges\": \"0-3,9-13,100\""),
            "{}",
            expected.1
        );

        // Under --repeats all every repeat is a row of its item's group.
        let mut repeated = Found::default();
        for id in 1..=3u64 {
            for repeat in 1..=2u64 {
                let mut s = sample(&format!("t:{id}"), Some("t"), Some(id), Some(repeat));
                s.score = ((id + repeat) % 2) as f64;
                repeated.samples.push(s);
            }
        }
        let rules = Rules {
            repeats: Some(Repeats::All),
            on_missing: OnMissing::Intersect,
            ..Rules::default()
        };
        let (got, expected) = both_ways(repeated, rules);
        assert_eq!(got, expected);
        assert!(expected.0.starts_with("task_id,group,kind,correct,score\n"));
    }
}
