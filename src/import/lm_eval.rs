//! lm-evaluation-harness `--log_samples` files: one JSON line per document per filter,
//! in files named `samples_<task>_<date>.jsonl`, one per task, several making one run.
//! The task id is `<task>:<doc_id>` (never the prompt hash, which changes when an
//! optimizer changes the prompt); `kind` is the task; `--filter` and `--metric` (per
//! task, `TASK=NAME`) choose the line and the value. A `results_<date>.json` beside the
//! files gives each task's primary metric (the first of its `metric_list`), its
//! direction (`higher_is_better`) and its sample count (`n-samples`, checked). A metric's value sits at the top level of the line (0.4.x:
//! `"metrics": ["exact_match"], "exact_match": 1.0`) or inside a `metrics` object
//! (`"metrics": {"exact_match": 1.0}`). Files are read line by line, each by a targeted
//! scanner (`lm_eval_scan`) that leaves any line it does not fully understand to serde_json.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read;
use std::sync::Arc;

use memchr::memchr;
use serde_json::Value;

use super::lm_eval_chunks::{CHUNK, Stop, read_parallel};
use super::lm_eval_line::Line;
use super::lm_eval_scan::scan;
use super::record::doc_key;
use super::{Found, Gather, ImportError, Sample, choose, numeric};
use crate::base::sorter::{Run, run_store};

/// The refusal of a read whose lines could not be kept in a temporary file.
fn spool_failed(file: &str, e: std::io::Error) -> ImportError {
    ImportError::malformed(
        file,
        format!(
            "its lines could not be kept in a temporary file: {e}; free space in the temporary folder (TMPDIR)"
        ),
    )
}

/// What a `results_<date>.json` says about one task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskResults {
    /// The results file, as given or found.
    pub file: String,
    /// The first metric of the task's `metric_list` (its primary metric).
    pub primary: Option<String>,
    /// `higher_is_better` by metric.
    pub higher_is_better: BTreeMap<String, bool>,
    /// `n-samples` `effective`: the documents the task ran on.
    pub n_samples: Option<u64>,
    /// The task config's `repeats`: how many responses lm-eval drew per document
    /// before its filter reduced them to one.
    pub repeats: Option<u64>,
}

/// The tasks of a `results_<date>.json` written beside the samples files.
pub fn read_results(
    file: &str,
    bytes: &[u8],
) -> Result<BTreeMap<String, TaskResults>, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let mut tasks: BTreeMap<String, TaskResults> = BTreeMap::new();
    let entry = |tasks: &mut BTreeMap<String, TaskResults>, task: &str| -> TaskResults {
        tasks.remove(task).unwrap_or_else(|| TaskResults {
            file: file.to_string(),
            ..TaskResults::default()
        })
    };
    if let Some(Value::Object(configs)) = value.get("configs") {
        for (task, config) in configs {
            let mut info = entry(&mut tasks, task);
            info.primary = config
                .pointer("/metric_list/0/metric")
                .and_then(Value::as_str)
                .map(str::to_string);
            info.repeats = config.get("repeats").and_then(Value::as_u64);
            tasks.insert(task.clone(), info);
        }
    }
    if let Some(Value::Object(directions)) = value.get("higher_is_better") {
        for (task, metrics) in directions {
            let mut info = entry(&mut tasks, task);
            if let Value::Object(metrics) = metrics {
                for (metric, higher) in metrics {
                    if let Value::Bool(higher) = higher {
                        info.higher_is_better.insert(metric.clone(), *higher);
                    }
                }
            }
            tasks.insert(task.clone(), info);
        }
    }
    if let Some(Value::Object(counts)) = value.get("n-samples") {
        for (task, count) in counts {
            let mut info = entry(&mut tasks, task);
            info.n_samples = count.get("effective").and_then(Value::as_u64);
            tasks.insert(task.clone(), info);
        }
    }
    if tasks.is_empty() {
        return Err(ImportError::malformed(
            file,
            "holds no `configs`, `higher_is_better` or `n-samples`; is this lm-eval's results_<date>.json?",
        ));
    }
    Ok(tasks)
}

/// The `results_<date>.json` that belongs beside `samples_<task>_<date>.jsonl`.
pub fn results_name(samples: &str) -> Option<String> {
    let name = samples.strip_suffix(".jsonl")?;
    let date = name.rsplit_once('_')?.1;
    Some(format!("results_{date}.json"))
}

/// One line kept. Its doc id and metric values sit in its [`Part`]'s arenas, ending
/// where the next line's begin (one allocation per chunk, not several per line).
struct Entry {
    filter: u32,
    doc_key: Option<u64>,
    id_end: usize,
    values_end: usize,
}

/// The lines of one chunk of one task's file, as a worker parsed them. Filter and
/// metric indices are the part's own until [`Reader::merge`] makes them the run's.
struct Part {
    task: usize,
    /// The run this part's file is, when several runs of its task are its repeats.
    repeat: Option<u64>,
    ids: String,
    values: Vec<(u32, f64)>,
    entries: Vec<Entry>,
    filters: Names,
    metrics: Names,
    /// Lines in the chunk, blank ones included (up to the refused one).
    lines: u64,
    /// The first refused line (1-based within the chunk) and why.
    refused: Option<(u64, String)>,
}

/// Accumulates the lines of every file of one run: each part, once its names are the
/// run's, goes to a temporary run (`crate::base::sorter::run_store`) to be read back
/// once the filters and metrics are chosen, so memory does not grow with the lines.
pub struct Reader {
    tasks: Vec<String>,
    filters: Names,
    metrics: Names,
    /// The parts read, in order, as bytes ([`Part::save`]).
    spool: Option<Box<dyn Run>>,
    /// Each (task, filter) that has lines, and each (task, filter, metric) those
    /// lines carry.
    has_filter: BTreeSet<(usize, u32)>,
    carries: BTreeSet<(usize, u32, u32)>,
    /// Lines kept of the file being read.
    kept: usize,
    chunk: usize,
    workers: usize,
}

impl Default for Reader {
    fn default() -> Reader {
        Reader {
            tasks: Vec::new(),
            filters: Names::default(),
            metrics: Names::default(),
            spool: None,
            has_filter: BTreeSet::new(),
            carries: BTreeSet::new(),
            kept: 0,
            chunk: CHUNK,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get().clamp(1, 4)),
        }
    }
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

    /// A reader that reads in chunks of `chunk` bytes on `workers` threads (tests use
    /// small chunks to put lines across chunk ends).
    #[doc(hidden)]
    pub fn with_chunks(chunk: usize, workers: usize) -> Reader {
        Reader {
            chunk,
            workers,
            ..Reader::default()
        }
    }

    /// Reads one samples file of `task`, its chunks parsed on every core, and returns
    /// its SHA-256 (lowercase hex); `file` names it in messages.
    pub fn add(
        &mut self,
        file: &str,
        task: &str,
        input: impl Read + Send,
    ) -> Result<String, ImportError> {
        self.add_run(file, task, None, input)
    }

    /// [`Reader::add`] for one of several runs of `task` read as its repeats: every
    /// line of the file is repeat `repeat` of its document.
    pub fn add_run(
        &mut self,
        file: &str,
        task: &str,
        repeat: Option<u64>,
        input: impl Read + Send,
    ) -> Result<String, ImportError> {
        let task_index = match self.tasks.iter().position(|t| t == task) {
            Some(i) => i,
            None => {
                self.tasks.push(task.to_string());
                self.tasks.len() - 1
            }
        };
        self.kept = 0;
        let mut lines = 0u64;
        let read = read_parallel(
            input,
            self.chunk,
            self.workers,
            |bytes| {
                let mut part = Part::parse(task_index, bytes);
                part.repeat = repeat;
                part
            },
            |part| {
                let at = lines;
                lines += part.lines;
                self.merge(file, at, part)
            },
        );
        let sha256 = match read {
            Ok(sha256) => sha256,
            Err(Stop::Merge(e)) => return Err(e),
            Err(Stop::LineTooLong(line)) => {
                return Err(ImportError::Malformed {
                    file: file.to_string(),
                    line: Some(line),
                    message: format!(
                        "the line is longer than {} MiB, more than evogate reads as one JSON line; check that this is an lm-eval --log_samples file",
                        crate::table::scan::MAX_ROW_BYTES >> 20
                    ),
                });
            }
            Err(Stop::Read(e)) => {
                return Err(ImportError::malformed(file, format!("cannot read it: {e}")));
            }
        };
        if self.kept == 0 {
            return Err(ImportError::malformed(
                file,
                "holds no sample lines; give the samples_<task>_<date>.jsonl that --log_samples wrote",
            ));
        }
        Ok(sha256)
    }

    /// Takes in the next part of a file whose earlier parts held `before` lines: its
    /// names become the run's; its refused line, if any, becomes the error.
    fn merge(&mut self, file: &str, before: u64, mut part: Part) -> Result<(), ImportError> {
        let filters: Vec<u32> = (part.filters.names.iter())
            .map(|n| self.filters.get(n) as u32)
            .collect();
        let metrics: Vec<u32> = (part.metrics.names.iter())
            .map(|n| self.metrics.get(n) as u32)
            .collect();
        // What the lines hold, by the run's indices: the part's distinct pairs first.
        let (filter_count, metric_count) = (filters.len(), metrics.len());
        let width = metric_count + 1;
        let mut seen = vec![false; filter_count * width];
        let mut values_start = 0;
        for entry in &part.entries {
            let f = entry.filter as usize;
            seen[f * width + metric_count] = true;
            for (m, _) in &part.values[values_start..entry.values_end] {
                seen[f * width + *m as usize] = true;
            }
            values_start = entry.values_end;
        }
        for (at, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
            let (f, m) = (at / width, at % width);
            if m == metric_count {
                self.has_filter.insert((part.task, filters[f]));
            } else {
                self.carries.insert((part.task, filters[f], metrics[m]));
            }
        }
        for entry in &mut part.entries {
            entry.filter = filters[entry.filter as usize];
        }
        for value in &mut part.values {
            value.0 = metrics[value.0 as usize];
        }
        let refused = part.refused.take();
        self.kept += part.entries.len();
        if refused.is_none() {
            let spool = match &mut self.spool {
                Some(spool) => spool,
                None => self
                    .spool
                    .insert(run_store().create().map_err(|e| spool_failed(file, e))?),
            };
            spool
                .append(&part.save())
                .map_err(|e| spool_failed(file, e))?;
        }
        match refused {
            Some((line, message)) => Err(ImportError::Malformed {
                file: file.to_string(),
                line: Some(before + line),
                message,
            }),
            None => Ok(()),
        }
    }

    /// The samples under the chosen filter (one of `filters` per task, or the task's
    /// only one) and metric (`--metric NAME`, as a single value).
    pub fn finish(self, filters: &[String], metric: Option<&str>) -> Result<Found, ImportError> {
        let metrics: Vec<String> = metric.map(str::to_string).into_iter().collect();
        self.finish_suite(filters, &metrics, &BTreeMap::new())
    }

    /// The samples under the chosen filter and, per task, the metric `metrics` gives
    /// (`NAME` or `TASK=NAME`), else the primary metric its results file names, else
    /// its only one; `results` holds what the `results_*.json` beside the files say.
    pub fn finish_suite(
        self,
        filters: &[String],
        metrics: &[String],
        results: &BTreeMap<String, TaskResults>,
    ) -> Result<Found, ImportError> {
        let mut samples = Found::default();
        let mut found = self.finish_into(filters, metrics, results, &mut samples)?;
        found.samples = samples.samples;
        found.universe.extend(samples.universe);
        Ok(found)
    }

    /// [`Reader::finish_suite`] handing the samples, and the ids of the lines not
    /// read, to `into` as the spooled lines are read back.
    pub(crate) fn finish_into(
        mut self,
        filters: &[String],
        metrics: &[String],
        results: &BTreeMap<String, TaskResults>,
        into: &mut dyn Gather,
    ) -> Result<Found, ImportError> {
        // Which filters each task has, and which metrics the chosen lines carry, by index.
        let mut per_task = vec![vec![false; self.filters.names.len()]; self.tasks.len()];
        for &(task, filter) in &self.has_filter {
            per_task[task][filter as usize] = true;
        }
        // Whether some task's lines have the filter `name`.
        let in_some_task = |name: &String| {
            self.filters
                .index
                .get(name)
                .is_some_and(|&i| per_task.iter().any(|has| has[i]))
        };
        let mut chosen = Vec::with_capacity(self.tasks.len());
        for (task, has) in self.tasks.iter().zip(&per_task) {
            let found: std::collections::BTreeSet<String> = (self.filters.names.iter())
                .zip(has)
                .filter(|(_, has)| **has)
                .map(|(name, _)| name.clone())
                .collect();
            let matching: Vec<&String> = found.iter().filter(|f| filters.contains(f)).collect();
            let why = format!("task `{task}` has lines for several filters");
            let listed = |names: &mut dyn Iterator<Item = &String>| {
                names
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let pick = match (filters.is_empty(), matching.len()) {
                (true, _) => choose("--filter", None, &found, &why)?,
                (false, 1) => matching[0].clone(),
                // No task has a filter given: the filters of every task are listed.
                (false, 0) if !filters.iter().any(&in_some_task) => {
                    let every: std::collections::BTreeSet<&String> = self
                        .filters
                        .names
                        .iter()
                        .filter(|n| in_some_task(n))
                        .collect();
                    return Err(ImportError::Choice {
                        option: "--filter".to_string(),
                        given: Some(filters.join(",")),
                        choices: every.into_iter().cloned().collect(),
                        why: String::new(),
                    });
                }
                // The filter given is in another task's lines, not in this one's.
                (false, 0) => {
                    let mut repeated: Vec<&String> = filters.iter().collect();
                    repeated.extend(found.iter().take(1));
                    return Err(ImportError::Refused(format!(
                        "--filter {} is not in the lines of task `{task}`, which have {}; each task reads the one filter given that its lines have, so repeat --filter to give every task its own ({})",
                        listed(&mut filters.iter()),
                        listed(&mut found.iter()),
                        repeated
                            .iter()
                            .map(|f| format!("--filter {f}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    )));
                }
                (false, _) => {
                    return Err(ImportError::Refused(format!(
                        "task `{task}` has lines for more than one of the filters given ({}); each task reads exactly one: leave out all but one of them",
                        listed(&mut matching.iter().copied())
                    )));
                }
            };
            chosen.push(self.filters.index[&pick] as u32);
        }
        let mut carried = vec![vec![false; self.metrics.names.len()]; self.tasks.len()];
        for &(task, filter, metric) in &self.carries {
            if chosen[task] == filter {
                carried[task][metric as usize] = true;
            }
        }
        let task_set: std::collections::BTreeSet<String> = self.tasks.iter().cloned().collect();
        let given = super::per_task("--metric", metrics, &task_set)?;
        let mut metric_of = Vec::with_capacity(self.tasks.len());
        let mut lower: Option<(bool, String)> = None;
        // Tasks whose metric's direction no results file gives: never taken as
        // higher-is-better unsaid (a WER would not be inverted).
        let mut unknown: Vec<String> = Vec::new();
        for (index, task) in self.tasks.iter().enumerate() {
            let names: std::collections::BTreeSet<String> = (self.metrics.names.iter())
                .zip(&carried[index])
                .filter(|(_, c)| **c)
                .map(|(name, _)| name.clone())
                .collect();
            let info = results.get(task);
            let primary = info
                .and_then(|r| r.primary.as_deref())
                .filter(|p| names.contains(*p));
            let name = match (given.get(task), primary) {
                (Some(name), _) if names.contains(name) => name.clone(),
                (Some(name), _) => {
                    return Err(ImportError::Choice {
                        option: "--metric".to_string(),
                        // Worded `acc` for task `gsm8k`: the task whose lines lack it.
                        given: Some(format!("{name}` for task `{task}")),
                        choices: names.iter().cloned().collect(),
                        why: String::new(),
                    });
                }
                (None, Some(primary)) => primary.to_string(),
                (None, None) => choose(
                    "--metric",
                    None,
                    &names,
                    &format!(
                        "task `{task}` has lines with several metrics; give --metric NAME or --metric {task}=NAME"
                    ),
                )?,
            };
            let logged = info.and_then(|r| Some((&r.file, *r.higher_is_better.get(&name)?)));
            if logged.is_none() {
                unknown.push(match info {
                    Some(r) => format!(
                        "`{}` gives no `higher_is_better` for `{name}` of task `{task}`",
                        r.file
                    ),
                    None => format!(
                        "no results_<date>.json beside the samples of task `{task}` gives `higher_is_better` for `{name}`"
                    ),
                });
            }
            if let Some((file, higher)) = logged {
                match &lower {
                    Some((l, source)) if *l == higher => {
                        return Err(ImportError::Refused(format!(
                            "the metrics differ in direction ({source}; `{file}` says `{name}` of task `{task}` is {}); import them to separate files",
                            if higher {
                                "higher-is-better"
                            } else {
                                "lower-is-better"
                            }
                        )));
                    }
                    Some(_) => {}
                    None => {
                        lower = Some((
                            !higher,
                            format!("`higher_is_better` in `{file}` for `{name}` of task `{task}`"),
                        ));
                    }
                }
            }
            metric_of.push(self.metrics.index[&name] as u32);
        }
        let kinds: Vec<Arc<str>> = self.tasks.iter().map(|t| Arc::from(t.as_str())).collect();
        let mut found = Found::default();
        // A results file's sample count against the documents read: a cut log.
        let mut documents = vec![0u64; self.tasks.len()];
        let spool_name = self.tasks.first().map_or("", String::as_str);
        if let Some(spool) = self.spool.as_mut() {
            spool.finish().map_err(|e| spool_failed(spool_name, e))?;
        }
        let mut reader = match self.spool.as_ref() {
            Some(spool) => Some(std::io::BufReader::with_capacity(
                1 << 16,
                spool.reader().map_err(|e| spool_failed(spool_name, e))?,
            )),
            None => None,
        };
        while let Some(part) = match &mut reader {
            Some(reader) => Part::load(reader).map_err(|e| spool_failed(spool_name, e))?,
            None => None,
        } {
            let task = &self.tasks[part.task];
            let (mut id_start, mut values_start) = (0, 0);
            for entry in &part.entries {
                let id = &part.ids[id_start..entry.id_end];
                let values = &part.values[values_start..entry.values_end];
                (id_start, values_start) = (entry.id_end, entry.values_end);
                let mut task_id = String::with_capacity(task.len() + 1 + id.len());
                task_id.push_str(task);
                task_id.push(':');
                task_id.push_str(id);
                // Tasks with a sample need not be in the universe: only those without one
                // are looked up there.
                let value = values.iter().find(|(m, _)| *m == metric_of[part.task]);
                let Some(&(_, score)) = value.filter(|_| chosen[part.task] == entry.filter) else {
                    // Another filter's line, or the chosen filter's without the metric.
                    into.universe(task_id)?;
                    continue;
                };
                if !results.is_empty() && part.repeat.unwrap_or(1) == 1 {
                    documents[part.task] += 1;
                }
                into.sample(Sample {
                    task_id,
                    score,
                    kind: Some(Arc::clone(&kinds[part.task])),
                    doc_key: entry.doc_key,
                    repeat: part.repeat,
                    group: None,
                    output_key: None,
                })?;
            }
        }
        let filter_record: Vec<String> = self
            .tasks
            .iter()
            .zip(&chosen)
            .map(|(t, f)| format!("{t}={}", self.filters.names[*f as usize]))
            .collect();
        found
            .selectors
            .insert("filter".to_string(), filter_record.join(","));
        let metric_record: Vec<String> = self
            .tasks
            .iter()
            .zip(&metric_of)
            .map(|(t, m)| format!("{t}={}", self.metrics.names[*m as usize]))
            .collect();
        found
            .selectors
            .insert("metric".to_string(), metric_record.join(","));
        if let Some((lower, source)) = lower {
            found.lower_is_better = Some(lower);
            found.direction_source = Some(source);
        }
        found.direction_unknown = unknown;
        for (index, task) in self.tasks.iter().enumerate() {
            let Some(info) = results.get(task) else {
                continue;
            };
            if let Some(k) = info.repeats.filter(|k| *k > 1) {
                found.notes.push(format!(
                    "`{}` says task `{task}` drew {k} responses per document (repeats: {k}), and its samples hold one score per document, after the filter reduced them: those repeats are not in the log (runs of the task given together with --repeats are)",
                    info.file
                ));
            }
            if let Some(expected) = info.n_samples.filter(|n| *n != documents[index]) {
                found.notes.push(format!(
                    "`{}` says task `{task}` ran on {} (n-samples effective), but its samples file holds {} under the filter chosen: the log may be cut short, or from another run",
                    info.file,
                    crate::base::numbers::count(expected, "document"),
                    documents[index]
                ));
            }
        }
        Ok(found)
    }
}

impl Part {
    /// The part as bytes, for the spool: its task, repeat, ids, values and entries.
    fn save(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(
            48 + self.ids.len() + 12 * self.values.len() + 29 * self.entries.len(),
        );
        let mut put = |word: u64| bytes.extend_from_slice(&word.to_le_bytes());
        put(self.task as u64);
        put(self.repeat.map_or(0, |r| r.wrapping_add(1)));
        put(self.repeat.is_some() as u64);
        put(self.ids.len() as u64);
        put(self.values.len() as u64);
        put(self.entries.len() as u64);
        bytes.extend_from_slice(self.ids.as_bytes());
        for (metric, value) in &self.values {
            bytes.extend_from_slice(&metric.to_le_bytes());
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for entry in &self.entries {
            bytes.extend_from_slice(&entry.filter.to_le_bytes());
            bytes.push(entry.doc_key.is_some() as u8);
            bytes.extend_from_slice(&entry.doc_key.unwrap_or(0).to_le_bytes());
            bytes.extend_from_slice(&(entry.id_end as u64).to_le_bytes());
            bytes.extend_from_slice(&(entry.values_end as u64).to_le_bytes());
        }
        bytes
    }

    /// The next part [`Part::save`] wrote to `input`, `None` at its end.
    fn load(input: &mut impl Read) -> std::io::Result<Option<Part>> {
        let mut head = [0u8; 48];
        match input.read(&mut head[..1])? {
            0 => return Ok(None),
            _ => input.read_exact(&mut head[1..])?,
        }
        let word = |i: usize| u64::from_le_bytes(head[8 * i..8 * i + 8].try_into().expect("8"));
        let mut ids = vec![0u8; word(3) as usize];
        input.read_exact(&mut ids)?;
        let ids = String::from_utf8(ids).map_err(std::io::Error::other)?;
        let mut values = Vec::with_capacity(word(4) as usize);
        let mut value = [0u8; 12];
        for _ in 0..word(4) {
            input.read_exact(&mut value)?;
            values.push((
                u32::from_le_bytes(value[..4].try_into().expect("4")),
                f64::from_le_bytes(value[4..].try_into().expect("8")),
            ));
        }
        let mut entries = Vec::with_capacity(word(5) as usize);
        let mut entry = [0u8; 29];
        for _ in 0..word(5) {
            input.read_exact(&mut entry)?;
            let at = |i: usize| u64::from_le_bytes(entry[i..i + 8].try_into().expect("8"));
            entries.push(Entry {
                filter: u32::from_le_bytes(entry[..4].try_into().expect("4")),
                doc_key: (entry[4] == 1).then(|| at(5)),
                id_end: at(13) as usize,
                values_end: at(21) as usize,
            });
        }
        Ok(Some(Part {
            task: word(0) as usize,
            repeat: (word(2) == 1).then(|| word(1).wrapping_sub(1)),
            ids,
            values,
            entries,
            filters: Names::default(),
            metrics: Names::default(),
            lines: 0,
            refused: None,
        }))
    }

    /// Parses the whole lines of `bytes` (the last may lack its newline) up to the first
    /// it refuses.
    fn parse(task: usize, bytes: &[u8]) -> Part {
        let mut part = Part {
            task,
            repeat: None,
            ids: String::new(),
            values: Vec::new(),
            entries: Vec::new(),
            filters: Names::default(),
            metrics: Names::default(),
            lines: 0,
            refused: None,
        };
        let mut at = 0;
        while at < bytes.len() {
            let end = memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
            let line = &bytes[at..end];
            at = end;
            part.lines += 1;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // The scanner reads the usual line; serde_json reads (and words the errors
            // of) every line the scanner leaves to it.
            let parsed = match scan(line) {
                Some(parsed) => Ok(parsed),
                None => serde_json::from_slice::<Line>(line)
                    .map_err(|e| format!("not a JSON object: {e}")),
            };
            let kept = parsed.and_then(|line| {
                part.entry(line)
                    .map_err(|m| format!("{m}; is this an lm-eval --log_samples file?"))
            });
            if let Err(message) = kept {
                part.refused = Some((part.lines, message));
                break;
            }
        }
        part
    }

    fn entry(&mut self, line: Line<'_>) -> Result<(), String> {
        match &line.doc_id {
            Some(Value::String(id)) => self.ids.push_str(id),
            Some(Value::Number(id)) => {
                let _ = write!(self.ids, "{id}");
            }
            _ => return Err("no `doc_id`".to_string()),
        }
        let filter = self.filters.get(line.filter.as_deref().unwrap_or("none")) as u32;
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
                    self.values.push((self.metrics.get(&name) as u32, value));
                }
            }
            Some(Value::Object(map)) => {
                for (name, value) in map {
                    let number = numeric(&value)
                        .ok_or_else(|| format!("metric `{name}` is {value}, not a number"))?;
                    self.values.push((self.metrics.get(&name) as u32, number));
                }
            }
            _ => return Err("no `metrics` list or object".to_string()),
        }
        self.entries.push(Entry {
            filter,
            doc_key: line.doc_hash.as_deref().map(doc_key),
            id_end: self.ids.len(),
            values_end: self.values.len(),
        });
        Ok(())
    }
}
