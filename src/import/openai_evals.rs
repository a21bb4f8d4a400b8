//! The `oaieval` record log (JSON Lines): a `spec` line, a `final_report` line, then
//! events. `match` events carry `correct`; model-graded evals record `metrics` events,
//! whose `data` field `--metric` names. The task id is the event's `sample_id` (which
//! oaieval derives from the line of the samples file); `kind` is the spec's `base_eval`.
//!
//! The log is read a line at a time, and of each event only what the import needs is
//! kept ([`Event`]): its line, `sample_id`, and the numbers of its `data`, not the
//! event's JSON (whose prompt and sampled text made 2.4 KB an event).

use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use serde_json::Value;

use super::{Found, ImportError, Sample, choose, numeric};

/// What the import keeps of one `match` or `metrics` event.
struct Event {
    /// The 1-based line.
    line: u64,
    /// Whether it is a `metrics` event (else `match`).
    metrics: bool,
    /// Its `sample_id`, when that is a string.
    sample_id: Option<String>,
    /// What its `data` holds.
    data: Data,
}

/// The part of an event's `data` that can become a score.
enum Data {
    /// A `match` event: `data.correct` as a number, if it is one.
    Correct(Option<f64>),
    /// A `metrics` event whose `data` is an object of plain keys and scalar values
    /// (as a JSON pointer reads it, a key): its numeric fields.
    Numbers(BTreeMap<String, f64>),
    /// Any other `metrics` event: its `data` whole (a key with `/` or `~`, a nested
    /// value, or data that is not an object, where a JSON pointer reads differently
    /// from a key).
    Whole(Option<Value>),
}

impl Data {
    /// The numeric fields' names.
    fn names(&self) -> Vec<String> {
        match self {
            Data::Correct(_) => Vec::new(),
            Data::Numbers(numbers) => numbers.keys().cloned().collect(),
            Data::Whole(Some(Value::Object(data))) => data
                .iter()
                .filter(|(_, v)| numeric(v).is_some())
                .map(|(k, _)| k.clone())
                .collect(),
            Data::Whole(_) => Vec::new(),
        }
    }

    /// The value of `/data/<field>` as a score.
    fn score(&self, field: &str) -> Option<f64> {
        match self {
            Data::Correct(value) => *value,
            Data::Numbers(numbers) => numbers.get(field).copied(),
            Data::Whole(data) => {
                let event = serde_json::json!({ "data": data.clone()? });
                event.pointer(&format!("/data/{field}")).and_then(numeric)
            }
        }
    }
}

/// What the import keeps of a `match` (`metrics` false) or `metrics` event's `data`.
fn kept_data(value: &mut Value, metrics: bool) -> Data {
    let data = value.get_mut("data").map(Value::take);
    if !metrics {
        return Data::Correct(
            data.as_ref()
                .and_then(|d| d.get("correct"))
                .and_then(numeric),
        );
    }
    match data {
        Some(Value::Object(map))
            if map
                .iter()
                .all(|(k, v)| !(k.contains(['/', '~']) || v.is_object() || v.is_array())) =>
        {
            Data::Numbers(
                map.iter()
                    .filter_map(|(k, v)| Some((k.clone(), numeric(v)?)))
                    .collect(),
            )
        }
        data => Data::Whole(data),
    }
}

/// The samples of one record log, read from `input`, under `event` (`match` or
/// `metrics`) and `metric`; with `prefix` (several logs in one arm) the task id is
/// `<base_eval>:<sample_id>`.
pub(crate) fn read(
    file: &str,
    mut input: impl BufRead,
    event: Option<&str>,
    metric: Option<&str>,
    prefix: bool,
) -> Result<Found, ImportError> {
    let mut kind = None;
    let mut events = Vec::new();
    let mut types: BTreeSet<String> = BTreeSet::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|e| ImportError::malformed(file, format!("cannot read it: {e}")))?;
        if read == 0 && number > 0 {
            break;
        }
        number += 1;
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if text.iter().all(u8::is_ascii_whitespace) {
            if read == 0 {
                break;
            }
            continue;
        }
        let mut value: Value =
            serde_json::from_slice(text).map_err(|e| ImportError::Malformed {
                file: file.to_string(),
                line: Some(number),
                message: format!("not JSON: {e}"),
            })?;
        if let Some(spec) = value.get("spec") {
            kind = spec
                .get("base_eval")
                .and_then(Value::as_str)
                .map(str::to_string);
        }
        let metrics = match value.get("type") {
            Some(Value::String(t)) if t == "match" => false,
            Some(Value::String(t)) if t == "metrics" => true,
            _ => continue,
        };
        types.insert(if metrics { "metrics" } else { "match" }.to_string());
        let sample_id = value
            .get("sample_id")
            .and_then(Value::as_str)
            .map(str::to_string);
        events.push(Event {
            line: number,
            metrics,
            sample_id,
            data: kept_data(&mut value, metrics),
        });
    }
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
    let metrics = event == "metrics";
    events.retain(|e| e.metrics == metrics);
    let field = if !metrics {
        "correct".to_string()
    } else {
        let names: BTreeSet<String> = events.iter().flat_map(|e| e.data.names()).collect();
        choose(
            "--metric",
            metric,
            &names,
            "metrics events carry several fields",
        )?
    };
    let mut found = Found::default();
    found.samples.reserve(events.len());
    let kind: Option<std::sync::Arc<str>> = kind.as_deref().map(Into::into);
    for e in events {
        let bad = |message: String| ImportError::Malformed {
            file: file.to_string(),
            line: Some(e.line),
            message,
        };
        let task_id = e
            .sample_id
            .ok_or_else(|| bad("the event has no `sample_id`".to_string()))?;
        let task_id = match (&kind, prefix) {
            (Some(kind), true) => format!("{kind}:{task_id}"),
            _ => task_id,
        };
        found.universe.insert(task_id.clone());
        let Some(score) = e.data.score(&field) else {
            return Err(bad(format!(
                "sample `{task_id}`: `data.{field}` is not a number or a boolean"
            )));
        };
        found.samples.push(Sample {
            task_id,
            score,
            kind: kind.clone(),
            doc_key: None,
            repeat: None,
            group: None,
            output_key: None,
        });
    }
    found.selectors.insert("event".to_string(), event.clone());
    if metrics {
        found.selectors.insert("metric".to_string(), field);
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(found: &Found) -> Vec<(&str, f64)> {
        (found.samples.iter())
            .map(|s| (s.task_id.as_str(), s.score))
            .collect()
    }

    #[test]
    fn a_metric_with_a_slash_is_read_as_a_json_pointer_into_nested_data() {
        // `a/b` is a key of one event and a path into another's nested `a`: each is
        // read as `/data/a/b` reads it.
        let log = concat!(
            "{\"spec\": {\"base_eval\": \"e\"}}\n",
            "{\"type\": \"metrics\", \"sample_id\": \"s.1\", \"data\": {\"a/b\": 1}}\n",
            "{\"type\": \"metrics\", \"sample_id\": \"s.2\", \"data\": {\"a\": {\"b\": 0.5}}}\n",
            "{\"type\": \"metrics\", \"sample_id\": \"s.3\", \"data\": {\"a\": 1, \"c\": 0}}\n",
        );
        let error = read("log", log.as_bytes(), None, Some("a/b"), false).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`log` row 2: sample `s.1`: `data.a/b` is not a number or a boolean"
        );
        let found = read("log", log.as_bytes(), None, Some("c"), true);
        assert_eq!(
            found.unwrap_err().to_string(),
            "`log` row 2: sample `e:s.1`: `data.c` is not a number or a boolean"
        );
        // The key names the metric; the pointer reads the nested value, as before.
        let nested = log.replace("{\"a/b\": 1}", "{\"a/b\": 1, \"a\": {\"b\": 0.25}}");
        let nested = nested.replace("{\"a\": 1, \"c\": 0}", "{\"a\": {\"b\": true}, \"a/b\": 0}");
        let found = read("log", nested.as_bytes(), None, Some("a/b"), false).unwrap();
        assert_eq!(scores(&found), [("s.1", 0.25), ("s.2", 0.5), ("s.3", 1.0)]);
    }

    #[test]
    fn lines_are_counted_across_blank_and_crlf_lines_and_the_spec_may_come_last() {
        let log = concat!(
            "{\"type\": \"match\", \"sample_id\": \"s.1\", \"data\": {\"correct\": true}}\r\n",
            "\r\n",
            "{\"type\": \"sampling\", \"sample_id\": \"s.1\", \"data\": {}}\n",
            "{\"type\": \"match\", \"sample_id\": \"s.2\", \"data\": {\"correct\": false}}\n",
            "{\"spec\": {\"base_eval\": \"late\"}}",
        );
        let found = read("log", log.as_bytes(), None, None, true).unwrap();
        assert_eq!(scores(&found), [("late:s.1", 1.0), ("late:s.2", 0.0)]);
        let broken = log.replace("{\"spec\"", "{spec");
        let error = read("log", broken.as_bytes(), None, None, true).unwrap_err();
        assert!(
            error.to_string().starts_with("`log` row 5: not JSON: "),
            "{error}"
        );
    }
}
