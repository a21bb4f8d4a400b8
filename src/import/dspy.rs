//! DSPy's JSON: what `dspy.Evaluate(save_as_json=...)` writes, or a GEPA result
//! ([`super::gepa`], told apart by its `val_subscores`).
//!
//! `Evaluate` writes a list of records, each the example's fields, the prediction's
//! fields and the metric's value under the metric's name. The records carry no ids of
//! their own, so `--id-field` names the example field that identifies the task;
//! `--metric` names the score field (booleans, as GEPA's metrics may return, read as 1
//! and 0). The runs of one program may be given as several files: the k-th record of
//! an id, counted through the files in the order given, is its repeat k (a file that
//! lists an example k times holds k repeats), reduced by `--repeats`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::gepa::{self, GepaSelectors};
use super::{Found, ImportError, Sample, choose, id_text, numeric};

/// The samples of saved evaluations (the runs of one program, in the order given)
/// or of one candidate of a GEPA result (one file).
pub(crate) fn read(
    inputs: &[(String, Vec<u8>)],
    selectors: &GepaSelectors,
) -> Result<Found, ImportError> {
    let mut found = Found::default();
    let mut before: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (file, bytes) in inputs {
        let mut run = read_one(file, bytes, selectors, inputs.len())?;
        // The k-th record of an id, counted through the files in order, is its
        // repeat k.
        for sample in &mut run.samples {
            let offset = before.get(&sample.task_id).copied().unwrap_or(0);
            sample.repeat = sample.repeat.map(|r| r + offset);
        }
        for sample in &run.samples {
            let most = before.entry(sample.task_id.clone()).or_insert(0);
            *most = (*most).max(sample.repeat.unwrap_or(0));
        }
        found.absorb(run);
    }
    Ok(found)
}

/// One file of [`read`]; `files` is how many were given.
fn read_one(
    file: &str,
    bytes: &[u8],
    selectors: &GepaSelectors,
    files: usize,
) -> Result<Found, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    if gepa::is_gepa_result(&value) {
        if files > 1 {
            return Err(ImportError::malformed(
                file,
                "a GEPA result is read alone: import each candidate from its one file",
            ));
        }
        return gepa::read(file, &value, selectors);
    }
    for (option, given) in [
        ("--candidate", selectors.candidate.is_some()),
        ("--valset", selectors.valset.is_some()),
    ] {
        if given {
            return Err(ImportError::Refused(format!(
                "{option} applies to a GEPA result, and `{file}` is not one (it has no `val_subscores`); leave {option} out"
            )));
        }
    }
    read_records(file, &value, selectors.id_field, selectors.metric)
}

/// The samples of the records `dspy.Evaluate` saved.
fn read_records(
    file: &str,
    value: &Value,
    id_field: Option<&str>,
    metric: Option<&str>,
) -> Result<Found, ImportError> {
    let records = match value {
        Value::Array(records) if records.iter().all(Value::is_object) => records,
        _ => {
            return Err(ImportError::malformed(
                file,
                "not a list of records as dspy.Evaluate(save_as_json=...) writes them, nor a GEPA result (GEPAResult or DspyGEPAResult .to_dict())",
            ));
        }
    };
    let (mut ids, mut numbers) = (BTreeSet::new(), BTreeSet::new());
    for record in records.iter().filter_map(Value::as_object) {
        for (key, value) in record {
            if matches!(value, Value::String(_) | Value::Number(_)) {
                ids.insert(key.clone());
            }
            if numeric(value).is_some() {
                numbers.insert(key.clone());
            }
        }
    }
    let Some(id_field) = id_field else {
        return Err(ImportError::Choice {
            option: "--id-field".to_string(),
            given: None,
            choices: ids.into_iter().collect(),
            why: "the records carry no ids; name the example field that identifies a task"
                .to_string(),
        });
    };
    let id_field = choose("--id-field", Some(id_field), &ids, "")?;
    let metric = choose(
        "--metric",
        metric,
        &numbers,
        "the records carry several numbers",
    )?;
    let mut found = Found::default();
    let mut seen: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (index, record) in records.iter().enumerate() {
        let task_id = record.get(&id_field).map(id_text).ok_or_else(|| {
            ImportError::malformed(file, format!("record {} has no `{id_field}`", index + 1))
        })?;
        found.universe.insert(task_id.clone());
        let Some(score) = record.get(&metric).and_then(numeric) else {
            continue;
        };
        let repeat = seen.entry(task_id.clone()).or_insert(0);
        *repeat += 1;
        found.samples.push(Sample {
            task_id,
            score,
            kind: None,
            doc_key: None,
            repeat: Some(*repeat),
            group: None,
            // The whole record (keys sorted): the example's and the prediction's
            // fields, so equal digests are repeats that answered alike.
            output_key: Some(super::record::doc_key(&record.to_string())),
        });
    }
    found.selectors.insert("id-field".to_string(), id_field);
    found.selectors.insert("metric".to_string(), metric);
    Ok(found)
}
