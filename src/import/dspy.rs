//! DSPy's JSON: what `dspy.Evaluate(save_as_json=...)` writes, or a GEPA result
//! ([`super::gepa`], told apart by its `val_subscores`).
//!
//! `Evaluate` writes a list of records, each the example's fields, the prediction's
//! fields and the metric's value under the metric's name. The records carry no ids of
//! their own, so `--id-field` names the example field that identifies the task;
//! `--metric` names the score field (booleans, as GEPA's metrics may return, read as 1
//! and 0).

use std::collections::BTreeSet;

use serde_json::Value;

use super::gepa::{self, GepaSelectors};
use super::{Found, ImportError, Sample, choose, id_text, numeric};

/// The samples of a saved evaluation or of one candidate of a GEPA result.
pub(crate) fn read(
    file: &str,
    bytes: &[u8],
    selectors: &GepaSelectors,
) -> Result<Found, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    if gepa::is_gepa_result(&value) {
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
    for (index, record) in records.iter().enumerate() {
        let task_id = record.get(&id_field).map(id_text).ok_or_else(|| {
            ImportError::malformed(file, format!("record {} has no `{id_field}`", index + 1))
        })?;
        found.universe.insert(task_id.clone());
        let Some(score) = record.get(&metric).and_then(numeric) else {
            continue;
        };
        found.samples.push(Sample {
            task_id,
            score,
            kind: None,
            doc_key: None,
            repeat: None,
            group: None,
        });
    }
    found.selectors.insert("id-field".to_string(), id_field);
    found.selectors.insert("metric".to_string(), metric);
    Ok(found)
}
