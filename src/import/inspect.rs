//! Inspect AI logs: `.eval` files (zip archives holding `header.json` and one
//! `samples/<id>_epoch_<n>.json` per sample and epoch) and `.json` logs (one object with
//! `eval` and `samples`). The task id is `<task>:<sample id>`, `kind` the task;
//! `--scorer` chooses among the scores; values map as Inspect's `value_to_float` maps
//! them (C 1, P 0.5, I and N 0, booleans, numbers, numeric strings, yes/no, true/false),
//! except that an unknown value is refused rather than read as 0. Epochs are reduced by
//! `--repeats`; a sample with an `error` is missing, not wrong.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Cursor, Read};

use serde_json::{Map, Value};

use super::{Found, ImportError, Repeats, Sample, choose, id_text};

/// One Inspect log: its task name and samples, as JSON values.
#[derive(Debug, Clone, PartialEq)]
pub struct Log {
    /// The input file as given.
    pub file: String,
    /// `eval.task`.
    pub task: String,
    /// The samples, one per sample and epoch.
    pub samples: Vec<Value>,
}

/// Reads a `.json` log.
pub fn log_from_json(file: &str, bytes: &[u8]) -> Result<Log, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let samples = match value.get("samples") {
        Some(Value::Array(samples)) => samples.clone(),
        _ => {
            return Err(ImportError::malformed(
                file,
                "no `samples` list; write the log with its samples (not a header-only log)",
            ));
        }
    };
    Ok(Log {
        file: file.to_string(),
        task: task_name(file, &value)?,
        samples,
    })
}

fn task_name(file: &str, log: &Value) -> Result<String, ImportError> {
    match log.get("eval").and_then(|e| e.get("task")) {
        Some(Value::String(task)) => Ok(task.clone()),
        _ => Err(ImportError::malformed(
            file,
            "no `eval.task`; is this an Inspect log?",
        )),
    }
}

/// Reads a `.eval` (zip) log: `header.json` for the task, every `samples/*.json` in
/// name order.
pub fn log_from_eval(file: &str, bytes: &[u8]) -> Result<Log, ImportError> {
    let bad = |what: String| ImportError::malformed(file, what);
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("not a zip archive (.eval): {e}")))?;
    let mut names: Vec<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(|n| n.into_owned())
        .collect();
    names.sort();
    let mut read_member = |name: &str| -> Result<Value, ImportError> {
        let mut member = archive
            .by_name(name)
            .map_err(|e| bad(format!("cannot read `{name}` in the archive: {e}")))?;
        let mut text = Vec::new();
        member
            .read_to_end(&mut text)
            .map_err(|e| bad(format!("cannot read `{name}` in the archive: {e}")))?;
        serde_json::from_slice(&text).map_err(|e| bad(format!("`{name}` is not JSON: {e}")))
    };
    let header = read_member("header.json")?;
    let task = task_name(file, &header)?;
    let samples = names
        .iter()
        .map(|name| read_member(name))
        .collect::<Result<Vec<Value>, ImportError>>()?;
    Ok(Log {
        file: file.to_string(),
        task,
        samples,
    })
}

/// A score value as Inspect's `value_to_float` reads it; `None` when it does not (a
/// list or dict, or text Inspect would only warn about).
pub fn value_to_float(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => match s.as_str() {
            "C" => Some(1.0),
            "P" => Some(0.5),
            "I" | "N" => Some(0.0),
            _ if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) => s.parse().ok(),
            _ => match s.to_lowercase().as_str() {
                "yes" | "true" => Some(1.0),
                "no" | "false" => Some(0.0),
                _ => None,
            },
        },
        _ => None,
    }
}

/// The samples of `logs` (one run) under `scorer`, epochs reduced by `repeats`.
pub fn read(
    logs: &[Log],
    scorer: Option<&str>,
    repeats: Option<Repeats>,
) -> Result<Found, ImportError> {
    let mut scorers = BTreeSet::new();
    for log in logs {
        for sample in &log.samples {
            if let Some(Value::Object(scores)) = sample.get("scores") {
                scorers.extend(scores.keys().cloned());
            }
        }
    }
    let scorer = choose(
        "--scorer",
        scorer,
        &scorers,
        "the samples carry several scores",
    )?;
    let mut found = Found::default();
    // task id → epoch → value, and the task's kind.
    let mut epochs: BTreeMap<String, (String, BTreeMap<u64, f64>)> = BTreeMap::new();
    let mut errored = BTreeSet::new();
    for log in logs {
        for sample in &log.samples {
            let object = sample.as_object().ok_or_else(|| {
                ImportError::malformed(&log.file, "a sample is not a JSON object")
            })?;
            let id = match object.get("id") {
                Some(v @ (Value::Number(_) | Value::String(_))) => id_text(v),
                _ => return Err(ImportError::malformed(&log.file, "a sample has no `id`")),
            };
            let task_id = format!("{}:{id}", log.task);
            found.universe.insert(task_id.clone());
            if has_error(object) {
                errored.insert(task_id);
                continue;
            }
            let epoch = object.get("epoch").and_then(Value::as_u64).unwrap_or(1);
            let Some(value) = score_of(object, &scorer) else {
                continue;
            };
            let number = value_to_float(value).ok_or_else(|| {
                ImportError::malformed(
                    &log.file,
                    format!(
                        "sample `{id}` epoch {epoch}: scorer `{scorer}` value {value} is not C, I, P, N, a number or a boolean"
                    ),
                )
            })?;
            let slot = epochs
                .entry(task_id.clone())
                .or_insert_with(|| (log.task.clone(), BTreeMap::new()));
            if slot.1.insert(epoch, number).is_some() {
                found.duplicated.push(task_id);
            }
        }
    }
    let most = epochs.values().map(|(_, e)| e.len()).max().unwrap_or(0);
    let repeats = match (most, repeats) {
        (0 | 1, r) => r.unwrap_or(Repeats::First),
        (_, Some(r)) => r,
        (n, None) => {
            return Err(ImportError::Choice {
                option: "--repeats".to_string(),
                given: None,
                choices: vec!["mean".into(), "majority".into(), "first".into()],
                why: format!("samples have up to {n} epochs"),
            });
        }
    };
    let mut turned = 0usize;
    for (task_id, (kind, values)) in epochs {
        if errored.contains(&task_id) {
            continue;
        }
        let all: Vec<f64> = values.values().copied().collect();
        let score = match repeats {
            Repeats::First => all[0],
            Repeats::Mean => {
                let mean = all.iter().sum::<f64>() / all.len() as f64;
                let binary = all.iter().all(|v| *v == 0.0 || *v == 1.0);
                if binary && mean != 0.0 && mean != 1.0 {
                    turned += 1;
                }
                mean
            }
            Repeats::Majority => majority(&all).ok_or_else(|| {
                ImportError::Refused(format!(
                    "task `{task_id}`: its {} epochs have no value held by more than half; use --repeats mean or first",
                    all.len()
                ))
            })?,
        };
        found.samples.push(Sample {
            task_id,
            score,
            kind: Some(kind.into()),
            doc_key: None,
        });
    }
    if turned > 0 {
        found.notes.push(format!(
            "--repeats mean turned the 0/1 outcomes of {turned} tasks into scores, so the file has no `correct` column and admit uses the signed-rank test"
        ));
    }
    found.errored = errored.into_iter().collect();
    found.selectors.insert("scorer".to_string(), scorer);
    if most > 1 {
        let name = match repeats {
            Repeats::Mean => "mean",
            Repeats::Majority => "majority",
            Repeats::First => "first",
        };
        found
            .selectors
            .insert("repeats".to_string(), name.to_string());
    }
    Ok(found)
}

fn has_error(sample: &Map<String, Value>) -> bool {
    match sample.get("error") {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}

fn score_of<'a>(sample: &'a Map<String, Value>, scorer: &str) -> Option<&'a Value> {
    sample.get("scores")?.get(scorer)?.get("value")
}

/// The value more than half of `values` hold.
fn majority(values: &[f64]) -> Option<f64> {
    values
        .iter()
        .find(|v| values.iter().filter(|w| w == v).count() * 2 > values.len())
        .copied()
}
