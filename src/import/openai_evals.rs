//! The `oaieval` record log (JSON Lines): a `spec` line, a `final_report` line, then
//! events. `match` events carry `correct`; model-graded evals record `metrics` events,
//! whose `data` field `--metric` names. The task id is the event's `sample_id` (which
//! oaieval derives from the line of the samples file); `kind` is the spec's `base_eval`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Found, ImportError, Sample, choose, numeric};

/// The samples of one record log under `event` (`match` or `metrics`) and `metric`;
/// with `prefix` (several logs in one arm) the task id is `<base_eval>:<sample_id>`.
pub(crate) fn read(
    file: &str,
    bytes: &[u8],
    event: Option<&str>,
    metric: Option<&str>,
    prefix: bool,
) -> Result<Found, ImportError> {
    let mut kind = None;
    let mut events = Vec::new();
    for (index, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let value: Value = serde_json::from_slice(line).map_err(|e| ImportError::Malformed {
            file: file.to_string(),
            line: Some(index as u64 + 1),
            message: format!("not JSON: {e}"),
        })?;
        if let Some(spec) = value.get("spec") {
            kind = spec
                .get("base_eval")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        if let Some(Value::String(kind)) = value.get("type")
            && (kind == "match" || kind == "metrics")
        {
            events.push((index as u64 + 1, value));
        }
    }
    let types: BTreeSet<String> = events
        .iter()
        .filter_map(|(_, e)| e.get("type").and_then(Value::as_str).map(str::to_string))
        .collect();
    if types.is_empty() {
        return Err(ImportError::malformed(
            file,
            "holds no `match` or `metrics` events; is this an oaieval record log (--record_path)?",
        ));
    }
    let event = choose(
        "--event",
        event,
        &types,
        "the log records both match and metrics events",
    )?;
    let chosen: Vec<&(u64, Value)> = events
        .iter()
        .filter(|(_, e)| e.get("type").and_then(Value::as_str) == Some(event.as_str()))
        .collect();
    let field = if event == "match" {
        "correct".to_string()
    } else {
        let mut names = BTreeSet::new();
        for (_, e) in &chosen {
            if let Some(Value::Object(data)) = e.get("data") {
                names.extend(
                    data.iter()
                        .filter(|(_, v)| numeric(v).is_some())
                        .map(|(k, _)| k.clone()),
                );
            }
        }
        choose(
            "--metric",
            metric,
            &names,
            "metrics events carry several fields",
        )?
    };
    let mut found = Found::default();
    for (line, e) in chosen {
        let bad = |message: String| ImportError::Malformed {
            file: file.to_string(),
            line: Some(*line),
            message,
        };
        let task_id = e
            .get("sample_id")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("the event has no `sample_id`".to_string()))?;
        let task_id = match (&kind, prefix) {
            (Some(kind), true) => format!("{kind}:{task_id}"),
            _ => task_id.to_string(),
        };
        found.universe.insert(task_id.clone());
        let value = e.pointer(&format!("/data/{field}"));
        let Some(score) = value.and_then(numeric) else {
            return Err(bad(format!(
                "sample `{task_id}`: `data.{field}` is not a number or a boolean"
            )));
        };
        found.samples.push(Sample {
            task_id,
            score,
            kind: kind.as_deref().map(Into::into),
            doc_key: None,
            repeat: None,
            group: None,
            output_key: None,
        });
    }
    found.selectors.insert("event".to_string(), event.clone());
    if event == "metrics" {
        found.selectors.insert("metric".to_string(), field);
    }
    Ok(found)
}
