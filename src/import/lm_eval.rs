//! lm-evaluation-harness `--log_samples` files: one JSON line per document per filter,
//! in files named `samples_<task>_<date>.jsonl`, one per task, several making one run.
//! The task id is `<task>:<doc_id>` (never the prompt hash, which changes when an
//! optimizer changes the prompt); `kind` is the task; `--filter` and `--metric` choose
//! the line and the value. A metric's value sits at the top level of the line (0.4.x:
//! `"metrics": ["exact_match"], "exact_match": 1.0`) or inside a `metrics` object
//! (`"metrics": {"exact_match": 1.0}`). Files are read line by line, each by a targeted
//! scanner (`lm_eval_scan`) that leaves any line it does not fully understand to serde_json.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{Found, ImportError, Sample, choose, id_text, numeric};

/// One line kept: which task, document, filter, and its metrics' values.
struct Entry {
    task: usize,
    doc_id: String,
    filter: usize,
    doc_hash: Option<String>,
    values: Vec<(usize, f64)>,
}

/// Accumulates the lines of every file of one run.
#[derive(Default)]
pub struct Reader {
    tasks: Vec<String>,
    filters: Names,
    metrics: Names,
    entries: Vec<Entry>,
}

/// Interned names, so a million lines hold indices, not strings.
#[derive(Default)]
struct Names {
    index: BTreeMap<String, usize>,
    names: Vec<String>,
}

impl Names {
    fn get(&mut self, name: &str) -> usize {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), self.names.len() - 1);
        self.names.len() - 1
    }
}

/// The task named by a `samples_<task>_<date>.jsonl` file name (path allowed).
pub fn task_from_file_name(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next()?;
    let stem = name.strip_prefix("samples_")?.strip_suffix(".jsonl")?;
    let (task, date) = stem.rsplit_once('_')?;
    (!task.is_empty() && date.starts_with(|c: char| c.is_ascii_digit())).then(|| task.to_string())
}

impl Reader {
    /// A reader with no lines yet.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Reads one samples file of `task`, line by line; `file` names it in messages.
    pub fn add(
        &mut self,
        file: &str,
        task: &str,
        mut input: impl BufRead,
    ) -> Result<(), ImportError> {
        let task_index = match self.tasks.iter().position(|t| t == task) {
            Some(i) => i,
            None => {
                self.tasks.push(task.to_string());
                self.tasks.len() - 1
            }
        };
        let before = self.entries.len();
        let mut buffer = Vec::new();
        let mut line = 0u64;
        loop {
            buffer.clear();
            let read = input
                .read_until(b'\n', &mut buffer)
                .map_err(|e| ImportError::malformed(file, format!("cannot read it: {e}")))?;
            if read == 0 {
                break;
            }
            line += 1;
            if buffer.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let bad = |message: String| ImportError::Malformed {
                file: file.to_string(),
                line: Some(line),
                message,
            };
            // The scanner reads the usual line; serde_json reads (and words the errors
            // of) every line the scanner leaves to it.
            let parsed: Line<'_> = match super::lm_eval_scan::scan(&buffer) {
                Some(parsed) => parsed,
                None => serde_json::from_slice(&buffer)
                    .map_err(|e| bad(format!("not a JSON object: {e}")))?,
            };
            let entry = self
                .entry(task_index, parsed)
                .map_err(|m| bad(format!("{m}; is this an lm-eval --log_samples file?")))?;
            self.entries.push(entry);
        }
        if self.entries.len() == before {
            return Err(ImportError::malformed(
                file,
                "holds no sample lines; give the samples_<task>_<date>.jsonl that --log_samples wrote",
            ));
        }
        Ok(())
    }

    fn entry(&mut self, task: usize, line: Line<'_>) -> Result<Entry, String> {
        let doc_id = match &line.doc_id {
            Some(v @ (Value::Number(_) | Value::String(_))) => id_text(v),
            _ => return Err("no `doc_id`".to_string()),
        };
        let filter = self.filters.get(line.filter.as_deref().unwrap_or("none"));
        let mut values = Vec::new();
        match line.metrics {
            Some(Value::Array(names)) => {
                for name in names {
                    let Value::String(name) = name else {
                        return Err("`metrics` holds a name that is not a string".to_string());
                    };
                    let value = match line.scalars.iter().find(|(key, _)| *key == name) {
                        Some((_, Some(number))) => *number,
                        Some((_, None)) => {
                            return Err(format!("metric `{name}` is not a number"));
                        }
                        None => return Err(format!("metric `{name}` is listed but has no value")),
                    };
                    values.push((self.metrics.get(&name), value));
                }
            }
            Some(Value::Object(map)) => {
                for (name, value) in map {
                    let number = numeric(&value)
                        .ok_or_else(|| format!("metric `{name}` is {value}, not a number"))?;
                    values.push((self.metrics.get(&name), number));
                }
            }
            _ => return Err("no `metrics` list or object".to_string()),
        }
        Ok(Entry {
            task,
            doc_id,
            filter,
            doc_hash: line.doc_hash.map(Cow::into_owned),
            values,
        })
    }

    /// The samples under the chosen filter (one of `filters` per task, or the task's
    /// only one) and metric.
    pub fn finish(self, filters: &[String], metric: Option<&str>) -> Result<Found, ImportError> {
        let mut per_task: Vec<BTreeSet<String>> = vec![BTreeSet::new(); self.tasks.len()];
        for entry in &self.entries {
            per_task[entry.task].insert(self.filters.names[entry.filter].clone());
        }
        let mut chosen = Vec::with_capacity(self.tasks.len());
        for (task, found) in self.tasks.iter().zip(&per_task) {
            let matching: BTreeSet<String> = found
                .iter()
                .filter(|f| filters.contains(f))
                .cloned()
                .collect();
            let why = format!("task `{task}` has lines for several filters");
            let pick = match (filters.is_empty(), matching.len()) {
                (true, _) => choose("--filter", None, found, &why)?,
                (false, 1) => matching.into_iter().next().unwrap_or_default(),
                (false, _) => {
                    let given = filters.join(",");
                    return Err(ImportError::Choice {
                        option: "--filter".to_string(),
                        given: Some(given),
                        choices: found.iter().cloned().collect(),
                        why: format!("task `{task}` needs exactly one of the filters given"),
                    });
                }
            };
            chosen.push(self.filters.index[&pick]);
        }
        let mut names: BTreeSet<String> = BTreeSet::new();
        for entry in self.entries.iter().filter(|e| chosen[e.task] == e.filter) {
            names.extend(
                entry
                    .values
                    .iter()
                    .map(|(m, _)| self.metrics.names[*m].clone()),
            );
        }
        let metric_name = choose(
            "--metric",
            metric,
            &names,
            "the lines carry several metrics",
        )?;
        let metric_index = self.metrics.index[&metric_name];
        let mut found = Found::default();
        for entry in self.entries {
            let task_id = format!("{}:{}", self.tasks[entry.task], entry.doc_id);
            // Tasks with a sample need not be in the universe: only those without one
            // are looked up there.
            let value = entry.values.iter().find(|(m, _)| *m == metric_index);
            let Some(&(_, score)) = value.filter(|_| chosen[entry.task] == entry.filter) else {
                // Another filter's line, or the chosen filter's without the metric.
                found.universe.insert(task_id);
                continue;
            };
            found.samples.push(Sample {
                task_id,
                score,
                kind: Some(self.tasks[entry.task].clone()),
                doc_hash: entry.doc_hash,
            });
        }
        let filter_record: Vec<String> = self
            .tasks
            .iter()
            .zip(&chosen)
            .map(|(t, f)| format!("{t}={}", self.filters.names[*f]))
            .collect();
        found
            .selectors
            .insert("filter".to_string(), filter_record.join(","));
        found.selectors.insert("metric".to_string(), metric_name);
        Ok(found)
    }
}

/// The fields of one line that matter, read without building the document, the
/// arguments or the responses (most of a line's bytes), so a million lines read fast.
#[derive(Debug)]
/// The scanner borrows its names from the line; serde_json's reading owns them.
pub(super) struct Line<'a> {
    pub(super) doc_id: Option<Value>,
    pub(super) filter: Option<Cow<'a, str>>,
    pub(super) doc_hash: Option<Cow<'a, str>>,
    pub(super) metrics: Option<Value>,
    /// Every other top-level field: its number (booleans as 0/1), or `None`.
    pub(super) scalars: Vec<(Cow<'a, str>, Option<f64>)>,
}

impl<'de> Deserialize<'de> for Line<'static> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Line<'static>, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Line<'static>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Line<'static>, A::Error> {
                let mut line = Line {
                    doc_id: None,
                    filter: None,
                    doc_hash: None,
                    metrics: None,
                    scalars: Vec::new(),
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "doc_id" => line.doc_id = Some(map.next_value()?),
                        "filter" => line.filter = Some(Cow::Owned(map.next_value()?)),
                        "doc_hash" => {
                            line.doc_hash = map.next_value::<Option<String>>()?.map(Cow::Owned)
                        }
                        "metrics" => line.metrics = Some(map.next_value()?),
                        _ => {
                            let Scalar(value) = map.next_value()?;
                            line.scalars.push((Cow::Owned(key), value));
                        }
                    }
                }
                Ok(line)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// A number or boolean as `Some`; anything else skipped without being built.
struct Scalar(Option<f64>);

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Scalar, D::Error> {
        struct Any;
        impl<'de> Visitor<'de> for Any {
            type Value = Scalar;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v as f64)))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
                Ok(Scalar(Some(v as f64)))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
                Ok(Scalar(Some(if v { 1.0 } else { 0.0 })))
            }
            fn visit_str<E>(self, _: &str) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Scalar(None))
            }
        }
        deserializer.deserialize_any(Any)
    }
}
