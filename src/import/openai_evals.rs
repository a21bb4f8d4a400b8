//! The `oaieval` record log (JSON Lines): a `spec` line, a `final_report` line, then
//! events. `match` events carry `correct`; model-graded evals record `metrics` events,
//! whose `data` field `--metric` names. The task id is the event's `sample_id` (which
//! oaieval derives from the line of the samples file); `kind` is the spec's `base_eval`.
//!
//! The log is read a line at a time, and of each event only what the import needs is
//! kept ([`Event`]): its line, `sample_id`, and the numbers of its `data`, not the
//! event's JSON (whose prompt and sampled text made 2.4 KB an event).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Read};

use serde_json::Value;

use super::{Found, Gather, ImportError, Sample, choose, numeric};
use crate::base::sorter::{Run, run_store};
use crate::table::scan::MAX_ROW_BYTES;

/// What the import reads of the log: `--event`, `--metric`, and whether task ids
/// take the `base_eval` as a prefix (several logs in one arm).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Choice<'a> {
    /// `--event`.
    pub event: Option<&'a str>,
    /// `--metric`.
    pub metric: Option<&'a str>,
    /// Ids are `<base_eval>:<sample_id>`.
    pub prefix: bool,
}

/// The events kept, written in order to a temporary run as bytes (their `data`
/// whole, where it must be kept, in memory), read back once the event is chosen.
struct Spool<'f> {
    file: &'f str,
    run: Box<dyn Run>,
    whole: Vec<Option<Value>>,
    bytes: Vec<u8>,
}

fn spool_failed(file: &str, e: std::io::Error) -> ImportError {
    ImportError::malformed(
        file,
        format!(
            "its events could not be kept in a temporary file: {e}; free space in the temporary folder (TMPDIR)"
        ),
    )
}

impl<'f> Spool<'f> {
    fn new(file: &'f str) -> Result<Spool<'f>, ImportError> {
        Ok(Spool {
            file,
            run: run_store().create().map_err(|e| spool_failed(file, e))?,
            whole: Vec::new(),
            bytes: Vec::with_capacity(1 << 16),
        })
    }

    fn push(&mut self, event: &Event) -> Result<(), ImportError> {
        let b = &mut self.bytes;
        b.extend_from_slice(&event.line.to_le_bytes());
        b.push(u8::from(event.metrics));
        let text = |b: &mut Vec<u8>, t: &str| {
            b.extend_from_slice(&(t.len() as u64).to_le_bytes());
            b.extend_from_slice(t.as_bytes());
        };
        match &event.sample_id {
            Some(id) => {
                b.push(1);
                text(b, id);
            }
            None => b.push(0),
        }
        match &event.data {
            Data::Correct(value) => {
                b.push(0);
                b.push(u8::from(value.is_some()));
                b.extend_from_slice(&value.unwrap_or(0.0).to_le_bytes());
            }
            Data::Numbers(numbers) => {
                b.push(1);
                b.extend_from_slice(&(numbers.len() as u64).to_le_bytes());
                for (name, value) in numbers {
                    text(b, name);
                    b.extend_from_slice(&value.to_le_bytes());
                }
            }
            Data::Whole(value) => {
                b.push(2);
                b.extend_from_slice(&(self.whole.len() as u64).to_le_bytes());
                self.whole.push(value.clone());
            }
        }
        if b.len() >= 1 << 16 {
            self.run.append(b).map_err(|e| spool_failed(self.file, e))?;
            b.clear();
        }
        Ok(())
    }

    /// The events pushed, read back in order.
    fn replay(&mut self) -> Result<Replay<'_>, ImportError> {
        let file = self.file;
        let failed = |e| spool_failed(file, e);
        self.run.append(&self.bytes).map_err(failed)?;
        self.bytes.clear();
        self.run.finish().map_err(failed)?;
        let Spool { run, whole, .. } = self;
        Ok(Replay {
            file,
            input: std::io::BufReader::with_capacity(1 << 16, run.reader().map_err(failed)?),
            whole,
        })
    }
}

type Input<'r> = std::io::BufReader<Box<dyn std::io::Read + Send + 'r>>;

/// The events of a [`Spool`], read back in order.
struct Replay<'r> {
    file: &'r str,
    input: Input<'r>,
    whole: &'r mut Vec<Option<Value>>,
}

impl Replay<'_> {
    fn next(&mut self) -> Result<Option<Event>, ImportError> {
        let file = self.file;
        self.read().map_err(|e| spool_failed(file, e))
    }

    fn read(&mut self) -> std::io::Result<Option<Event>> {
        use std::io::Read;
        let input = &mut self.input;
        let mut word = [0u8; 8];
        if input.read(&mut word[..1])? == 0 {
            return Ok(None);
        }
        input.read_exact(&mut word[1..])?;
        let line = u64::from_le_bytes(word);
        fn read_byte(input: &mut Input<'_>) -> std::io::Result<u8> {
            let mut byte = [0u8; 1];
            input.read_exact(&mut byte)?;
            Ok(byte[0])
        }
        fn read_word(input: &mut Input<'_>) -> std::io::Result<u64> {
            let mut word = [0u8; 8];
            input
                .read_exact(&mut word)
                .map(|()| u64::from_le_bytes(word))
        }
        let read_text = |input: &mut Input<'_>| -> std::io::Result<String> {
            let mut length = [0u8; 8];
            input.read_exact(&mut length)?;
            let mut text = vec![0u8; u64::from_le_bytes(length) as usize];
            input.read_exact(&mut text)?;
            String::from_utf8(text).map_err(std::io::Error::other)
        };
        let metrics = read_byte(input)? == 1;
        let sample_id = match read_byte(input)? {
            1 => Some(read_text(input)?),
            _ => None,
        };
        let data = match read_byte(input)? {
            0 => {
                let present = read_byte(input)? == 1;
                let value = f64::from_bits(read_word(input)?);
                Data::Correct(present.then_some(value))
            }
            1 => {
                let mut numbers = BTreeMap::new();
                for _ in 0..read_word(input)? {
                    let name = read_text(input)?;
                    numbers.insert(name, f64::from_bits(read_word(input)?));
                }
                Data::Numbers(numbers)
            }
            _ => Data::Whole(self.whole[read_word(input)? as usize].take()),
        };
        Ok(Some(Event {
            line,
            metrics,
            sample_id,
            data,
        }))
    }
}

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
    choice: Choice<'_>,
    into: &mut dyn Gather,
) -> Result<Found, ImportError> {
    let Choice {
        event,
        metric,
        prefix,
    } = choice;
    let mut kind = None;
    let mut events = Spool::new(file)?;
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut types: BTreeSet<String> = BTreeSet::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        let read = (&mut input)
            .take(MAX_ROW_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(|e| ImportError::malformed(file, format!("cannot read it: {e}")))?;
        if read == 0 && number > 0 {
            break;
        }
        number += 1;
        if line.len() > MAX_ROW_BYTES && line.last() != Some(&b'\n') {
            return Err(ImportError::Malformed {
                file: file.to_string(),
                line: Some(number),
                message: format!(
                    "the line is longer than {} MiB, more than evogate reads as one JSON line; check that this is an oaieval record log",
                    MAX_ROW_BYTES >> 20
                ),
            });
        }
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
        let data = kept_data(&mut value, metrics);
        if metrics {
            names.extend(data.names());
        }
        events.push(&Event {
            line: number,
            metrics,
            sample_id,
            data,
        })?;
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
    let field = if !metrics {
        "correct".to_string()
    } else {
        choose(
            "--metric",
            metric,
            &names,
            "metrics events carry several fields",
        )?
    };
    let mut found = Found::default();
    let kind: Option<std::sync::Arc<str>> = kind.as_deref().map(Into::into);
    let mut events = events.replay()?;
    while let Some(e) = events.next()? {
        if e.metrics != metrics {
            continue;
        }
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
        into.universe(task_id.clone())?;
        let Some(score) = e.data.score(&field) else {
            return Err(bad(format!(
                "sample `{task_id}`: `data.{field}` is not a number or a boolean"
            )));
        };
        into.sample(Sample {
            task_id,
            score,
            kind: kind.clone(),
            doc_key: None,
            repeat: None,
            group: None,
            output_key: None,
        })?;
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

    fn read(
        file: &str,
        input: &[u8],
        event: Option<&str>,
        metric: Option<&str>,
        prefix: bool,
    ) -> Result<Found, ImportError> {
        let mut samples = Found::default();
        let choice = Choice {
            event,
            metric,
            prefix,
        };
        super::read(file, input, choice, &mut samples)?;
        Ok(samples)
    }

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

    #[test]
    fn a_line_past_the_row_cap_is_refused_with_its_number_and_one_at_the_cap_is_read() {
        let event = "{\"type\": \"match\", \"sample_id\": \"s.1\", \"data\": {\"correct\": true}}";
        // A line of exactly the cap, padded with spaces, then an unending second line.
        let padded = format!("{event}{}\n", " ".repeat(MAX_ROW_BYTES - event.len()));
        let found = read("log", padded.as_bytes(), None, None, false).unwrap();
        assert_eq!(scores(&found), [("s.1", 1.0)]);
        let long = format!("{padded}{}", " ".repeat(MAX_ROW_BYTES + 1));
        let error = read("log", long.as_bytes(), None, None, false).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`log` row 2: the line is longer than 64 MiB"),
            "{error}"
        );
    }
}
