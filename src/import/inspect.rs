//! Inspect AI logs: `.eval` files (zip archives holding `header.json` and one
//! `samples/<id>_epoch_<n>.json` per sample and epoch) and `.json` logs (one object with
//! `eval` and `samples`). The task id is `<task>:<sample id>`, `kind` the task;
//! `--scorer` chooses among the scores (per task with `TASK=NAME`); values map as
//! Inspect's `value_to_float` maps them (C 1, P 0.5, I and N 0, booleans, numbers,
//! numeric strings, yes/no, true/false), except that an unknown value is refused rather
//! than read as 0. Epochs are repeats, reduced by `--repeats` or else by the log's own
//! `epochs_reducer`, and every sample must have every epoch `eval.config.epochs`
//! declares; a sample with an `error` is missing, not wrong. The digest of each
//! sample's `output.completion` tells repeats that are copies of one answer.
//!
//! Both kinds are read as streams: a sample's messages, events and output (nearly all
//! of a log's bytes) are stepped over, never built, so memory holds one sample at a
//! time and a few numbers for each. A zip member is read through a cap, so an archive
//! that inflates without end is refused, and an archive holding two members of one
//! name (which one is meant cannot be told) is refused as ambiguous.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufReader, Read, Seek};

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::record::doc_key;
use super::{Found, ImportError, LogReducer, Repeats, Sample, id_text};

/// The most a zip member may inflate to: as much as evogate reads of a whole file.
pub(crate) const MAX_MEMBER_BYTES: u64 = crate::table::MAX_WHOLE_BYTES;

/// One Inspect log: its task, status and the few fields of each sample that matter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Log {
    /// The input file as given.
    pub file: String,
    /// `eval.task`.
    pub task: String,
    /// `status`: `success`, `error`, `cancelled`, `started`.
    pub status: Option<String>,
    /// `eval.config.epochs_reducer`: the names of the reducers, as Inspect logs them
    /// (`mean`, `pass_at_2`, a custom `worst`); empty when it names none.
    pub reducers: Vec<String>,
    /// `eval.config.epochs`: how many times each sample was to run.
    pub epochs: Option<u64>,
    /// `eval.dataset` as `name location (N samples)`.
    pub dataset: Option<String>,
    /// The samples, one per sample and epoch.
    pub samples: Vec<LogSample>,
}

/// The fields of one sample that matter, read without building the rest.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LogSample {
    /// `id` as text.
    pub id: String,
    /// `epoch` (1 when absent).
    pub epoch: u64,
    /// Whether the sample carries an `error`.
    pub error: bool,
    /// Each scorer's `value`.
    pub scores: Vec<(String, Value)>,
    /// A key of the sample's `input` ([`doc_key`] of its compact JSON).
    pub input_key: Option<u64>,
    /// A key of the sample's `output.completion` text, when it has one.
    pub output_key: Option<u64>,
}

/// A sample as it sits in the log; `id` and `epoch` checked later, with the file's name.
#[derive(Deserialize)]
struct RawSample {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    epoch: Option<Value>,
    #[serde(default, deserialize_with = "error_present")]
    error: bool,
    #[serde(default)]
    scores: Option<BTreeMap<String, RawScore>>,
    #[serde(default, deserialize_with = "input_digest")]
    input: Option<u64>,
    #[serde(default, deserialize_with = "completion_digest")]
    output: Option<u64>,
}

#[derive(Deserialize)]
struct RawScore {
    #[serde(default)]
    value: Option<Value>,
}

/// `error` is set unless absent, null or empty.
fn error_present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        _ => true,
    })
}

fn input_digest<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    Ok((!value.is_null()).then(|| doc_key(&value.to_string())))
}

/// The key of `output.completion`, the text the model answered with.
fn completion_digest<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    #[derive(Deserialize)]
    struct Output {
        #[serde(default)]
        completion: Option<String>,
    }
    let output: Option<Output> = Option::deserialize(deserializer)?;
    Ok(output.and_then(|o| o.completion).map(|text| doc_key(&text)))
}

/// `eval` (a JSON log) or the header's `eval` (a `.eval`).
#[derive(Deserialize, Default)]
struct EvalSpec {
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    dataset: Option<Value>,
    #[serde(default)]
    config: Option<EvalConfig>,
}

#[derive(Deserialize, Default)]
struct EvalConfig {
    #[serde(default)]
    epochs: Option<Value>,
    #[serde(default)]
    epochs_reducer: Option<Value>,
}

/// `header.json` of a `.eval`.
#[derive(Deserialize)]
struct Header {
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    eval: Option<EvalSpec>,
}

/// A whole JSON log, its samples converted one by one as they are read.
struct JsonLog {
    status: Option<String>,
    eval: Option<EvalSpec>,
    samples: Option<Vec<RawSample>>,
}

impl<'de> Deserialize<'de> for JsonLog {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<JsonLog, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = JsonLog;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an Inspect log object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<JsonLog, A::Error> {
                let mut log = JsonLog {
                    status: None,
                    eval: None,
                    samples: None,
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "status" => log.status = map.next_value()?,
                        "eval" => log.eval = Some(map.next_value()?),
                        "samples" => log.samples = map.next_value()?,
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(log)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// Reads a `.json` log from a stream.
pub(crate) fn log_from_json(file: &str, input: impl Read) -> Result<Log, ImportError> {
    let mut reader =
        serde_json::Deserializer::from_reader(BufReader::with_capacity(1 << 20, input));
    let log = JsonLog::deserialize(&mut reader)
        .and_then(|log| reader.end().map(|()| log))
        .map_err(|e| ImportError::malformed(file, format!("not an Inspect JSON log: {e}")))?;
    let Some(samples) = log.samples else {
        return Err(ImportError::malformed(
            file,
            "no `samples` list; write the log with its samples (not a header-only log)",
        ));
    };
    let eval = log.eval.unwrap_or_default();
    let samples = samples
        .into_iter()
        .map(|raw| checked(file, raw))
        .collect::<Result<Vec<_>, _>>()?;
    from_parts(file, log.status, eval, samples)
}

fn from_parts(
    file: &str,
    status: Option<String>,
    eval: EvalSpec,
    samples: Vec<LogSample>,
) -> Result<Log, ImportError> {
    let Some(task) = eval.task else {
        return Err(ImportError::malformed(
            file,
            "no `eval.task`; is this an Inspect log?",
        ));
    };
    let config = eval.config.unwrap_or_default();
    let epochs = config.epochs.as_ref().and_then(Value::as_u64);
    let reducers = match config.epochs_reducer {
        Some(Value::Array(names)) => names.iter().map(id_text).collect(),
        Some(Value::String(name)) => vec![name],
        _ => Vec::new(),
    };
    let dataset = eval.dataset.map(|d| {
        let field = |key: &str| d.get(key).map(id_text).unwrap_or_default();
        format!(
            "name {}, location {}, {} samples",
            field("name"),
            field("location"),
            field("samples")
        )
    });
    Ok(Log {
        file: file.to_string(),
        task,
        status,
        reducers,
        epochs,
        dataset,
        samples,
    })
}

/// A sample's id and epoch checked: an id is a number or a string, an epoch a whole
/// number from 1.
fn checked(file: &str, raw: RawSample) -> Result<LogSample, ImportError> {
    let id = match &raw.id {
        Some(v @ (Value::Number(_) | Value::String(_))) => id_text(v),
        _ => return Err(ImportError::malformed(file, "a sample has no `id`")),
    };
    let epoch = match &raw.epoch {
        None | Some(Value::Null) => 1,
        Some(value) => value.as_u64().filter(|e| *e >= 1).ok_or_else(|| {
            ImportError::malformed(
                file,
                format!("sample `{id}`: epoch {value} is not a whole number from 1"),
            )
        })?,
    };
    let scores = raw
        .scores
        .unwrap_or_default()
        .into_iter()
        .filter_map(|(name, score)| Some((name, score.value?)))
        .collect();
    Ok(LogSample {
        id,
        epoch,
        error: raw.error,
        scores,
        input_key: raw.input,
        output_key: raw.output,
    })
}

/// A reader that refuses to give more than `limit` bytes: the error names the member.
struct Capped<R> {
    inner: R,
    left: u64,
    name: String,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buffer)?;
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(n)
            }
            None => Err(std::io::Error::other(format!(
                "`{}` inflates past {} MiB, more than evogate reads of one member (a zip bomb, or not an Inspect log)",
                self.name,
                MAX_MEMBER_BYTES >> 20
            ))),
        }
    }
}

/// Reads a `.eval` (zip) log: `header.json` for the task, every `samples/*.json` in
/// name order, each member streamed through [`MAX_MEMBER_BYTES`].
pub(crate) fn log_from_eval(file: &str, input: impl Read + Seek) -> Result<Log, ImportError> {
    let bad = |what: String| ImportError::malformed(file, what);
    let mut archive = zip::ZipArchive::new(BufReader::new(input))
        .map_err(|e| bad(format!("not a zip archive (.eval): {e}")))?;
    if archive.has_duplicate_names() {
        return Err(bad(
            "the archive holds two members of one name, so which one is meant cannot be told (Python's zipfile would read the last silently); write the log again".to_string(),
        ));
    }
    let mut names: Vec<String> = archive
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(|n| n.into_owned())
        .collect();
    names.sort();
    fn member<T: serde::de::DeserializeOwned, R: Read + Seek>(
        archive: &mut zip::ZipArchive<R>,
        file: &str,
        name: &str,
    ) -> Result<T, ImportError> {
        let bad = |what: String| ImportError::malformed(file, what);
        let member = archive
            .by_name(name)
            .map_err(|e| bad(format!("cannot read `{name}` in the archive: {e}")))?;
        let capped = Capped {
            inner: member,
            left: MAX_MEMBER_BYTES,
            name: name.to_string(),
        };
        serde_json::from_reader(BufReader::with_capacity(1 << 16, capped)).map_err(|e| {
            match e.is_io() {
                // The cap's message names the member already.
                true => bad(format!("cannot read it: {e}")),
                false => bad(format!("`{name}` is not JSON: {e}")),
            }
        })
    }
    let header: Header = member(&mut archive, file, "header.json")?;
    let mut samples = Vec::with_capacity(names.len());
    for name in &names {
        let raw: RawSample = member(&mut archive, file, name)?;
        samples.push(checked(file, raw)?);
    }
    from_parts(
        file,
        header.status,
        header.eval.unwrap_or_default(),
        samples,
    )
}

/// A score value as Inspect's `value_to_float` reads it; `None` when it does not (a
/// list or dict, or text Inspect would only warn about).
pub(crate) fn value_to_float(value: &Value) -> Option<f64> {
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

/// The samples of `logs` (one run) under each task's scorer (`scorers`: `NAME` for
/// every task or `TASK=NAME`), epochs as repeats.
pub(crate) fn read(logs: &[Log], scorers: &[String]) -> Result<Found, ImportError> {
    let mut found = Found::default();
    let tasks: BTreeSet<String> = logs.iter().map(|l| l.task.clone()).collect();
    let given = super::per_task("--scorer", scorers, &tasks)?;
    let mut chosen: BTreeMap<&str, String> = BTreeMap::new();
    for task in &tasks {
        let mut names = BTreeSet::new();
        for log in logs.iter().filter(|l| &l.task == task) {
            for sample in &log.samples {
                names.extend(sample.scores.iter().map(|(n, _)| n.clone()));
            }
        }
        let why = format!("the samples of task `{task}` carry several scores");
        let scorer = if names.is_empty() {
            let files: Vec<&str> = logs
                .iter()
                .filter(|l| &l.task == task)
                .map(|l| l.file.as_str())
                .collect();
            return Err(ImportError::malformed(
                &files.join("`, `"),
                format!(
                    "no sample of task `{task}` carries a score (an unscored log); score it with `inspect score`, then import"
                ),
            ));
        } else {
            super::choose(
                "--scorer",
                given.get(task).map(String::as_str),
                &names,
                &why,
            )?
        };
        chosen.insert(task.as_str(), scorer);
    }
    for log in logs {
        let scorer = &chosen[log.task.as_str()];
        match log.status.as_deref() {
            None | Some("success") => {}
            Some(status) => found.notes.push(format!(
                "`{}` ended with status `{status}`, not `success`: its samples may be cut short or errored",
                log.file
            )),
        }
        if let Some(reducer) = log_reducer(&log.reducers, scorer) {
            found.reducers.insert(log.task.clone(), reducer);
        }
        if let Some(epochs) = log.epochs {
            let known = found.declared_repeats.entry(log.task.clone()).or_insert(0);
            *known = (*known).max(epochs);
        }
        if let Some(dataset) = &log.dataset {
            found.datasets.insert(log.file.clone(), dataset.clone());
        }
        let kind: std::sync::Arc<str> = std::sync::Arc::from(log.task.as_str());
        for sample in &log.samples {
            let task_id = format!("{}:{}", log.task, sample.id);
            found.universe.insert(task_id.clone());
            if sample.error {
                found.errored.push(task_id);
                continue;
            }
            let Some((_, value)) = sample.scores.iter().find(|(n, _)| n == scorer) else {
                continue;
            };
            let number = value_to_float(value).ok_or_else(|| {
                ImportError::malformed(
                    &log.file,
                    format!(
                        "sample `{}` epoch {}: scorer `{scorer}` value {value} is not C, I, P, N, a number or a boolean",
                        sample.id, sample.epoch
                    ),
                )
            })?;
            found.samples.push(Sample {
                task_id,
                score: number,
                kind: Some(std::sync::Arc::clone(&kind)),
                doc_key: sample.input_key,
                repeat: Some(sample.epoch),
                group: None,
                output_key: sample.output_key,
            });
        }
    }
    let record: Vec<String> = chosen.iter().map(|(t, s)| format!("{t}={s}")).collect();
    found
        .selectors
        .insert("scorer".to_string(), record.join(","));
    Ok(found)
}

/// What the log's `epochs_reducer` says for the repeats `scorer` scored: one reducer
/// evogate knows, names it cannot apply (a custom reducer or several), or nothing.
fn log_reducer(names: &[String], scorer: &str) -> Option<LogReducer> {
    match names {
        [] => None,
        [name] => Some(match Repeats::parse(name) {
            Ok(rule) => LogReducer::Known(rule),
            Err(_) => LogReducer::Unusable {
                scorer: scorer.to_string(),
                names: names.to_vec(),
            },
        }),
        _ => Some(LogReducer::Unusable {
            scorer: scorer.to_string(),
            names: names.to_vec(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_member_reads_up_to_its_limit_and_refuses_past_it_naming_the_member() {
        let read = |left: u64| {
            let mut capped = Capped {
                inner: &b"0123456789"[..],
                left,
                name: "samples/1_epoch_1.json".to_string(),
            };
            let mut bytes = Vec::new();
            capped.read_to_end(&mut bytes).map(|_| bytes)
        };
        assert_eq!(read(10).unwrap(), b"0123456789");
        let error = read(9).unwrap_err().to_string();
        assert!(
            error.starts_with("`samples/1_epoch_1.json` inflates past 1024 MiB"),
            "{error}"
        );
    }
}
