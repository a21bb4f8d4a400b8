//! The import use case: read another eval tool's per-sample logs, apply the shared
//! rules ([`crate::import::assemble`]), and hand back the scores CSV and its companion
//! record to be written together. Also [`check_imports`], which `admit` calls so that two lm-eval
//! runs on different documents never pair and tasks an import left out are counted.

use std::path::{Path, PathBuf};

use super::log_files;
use super::outcome::{CommandOutcome, Status, Write};
use super::{open_file, read_file};
use crate::admission::LeftOut;
use crate::atomic::StreamedFile;
use crate::base::numbers::count;
use crate::base::sorter::Run;
use crate::digest::sha256_hex;
use crate::import::gepa::GepaSelectors;
use crate::import::plan;
use crate::import::record::{
    Documents, ImportRecord, InputLog, companion_path, different_documents,
};
use crate::import::sorted::Entries;
use crate::import::{
    Format, Found, ImportError, Imported, Rules, Scale, dspy, helm, inspect, lm_eval, openai_evals,
    promptfoo, written,
};
use crate::progress::ProgressSink;
use crate::report::InputFile;

/// The settings of one `import`: the format, the logs, the scores file to write (its
/// record goes beside it) and the selectors of each format.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ImportSettings {
    /// The log's format.
    pub format: crate::import::Format,
    /// The logs of one run: files, folders or globs ([`super::log_files::expand`]).
    pub from: Vec<PathBuf>,
    /// Where to write the scores CSV; the record goes beside it as *.import.json.
    pub out: PathBuf,
    /// lm-eval: the filter whose lines are read (repeat it when tasks name theirs
    /// differently).
    pub filter: Vec<String>,
    /// lm-eval, helm, dspy, openai-evals (metrics events): the per-sample metric,
    /// `NAME` or `TASK=NAME`.
    pub metric: Vec<String>,
    /// lm-eval with one --from whose name is not lm-eval's: the task.
    pub task: Option<String>,
    /// inspect: the scorer whose values are read, `NAME` or `TASK=NAME`.
    pub scorer: Vec<String>,
    /// inspect, promptfoo, helm: how an item's repeats become its score.
    pub repeats: Option<crate::import::Repeats>,
    /// The metric is lower-is-better.
    pub lower_is_better: bool,
    /// The metric is higher-is-better (needed where the log does not say, as for
    /// lm-eval samples read without their results file).
    pub higher_is_better: bool,
    /// promptfoo: the provider (id or label) or prompt (`prompt:N` or its label) to
    /// read, or one of each.
    pub arm: Vec<String>,
    /// promptfoo: the test variable that names a test (default: all of them).
    pub id_var: Option<String>,
    /// promptfoo: assertion types left out of the score, comma-separated.
    pub drop_assert: Vec<String>,
    /// openai-evals: `match` or `metrics` events.
    pub event: Option<String>,
    /// helm: the split.
    pub split: Option<String>,
    /// helm: read this perturbation instead of the unperturbed instances.
    pub perturbation: Option<String>,
    /// dspy: the example field that identifies a task (with a GEPA result, a field of
    /// the --valset records).
    pub id_field: Option<String>,
    /// dspy, a GEPA result: the candidate read, `best` or its index (0 is the seed
    /// program, the baseline).
    pub candidate: Option<String>,
    /// dspy, a GEPA result with --id-field: the validation examples as a JSON list of
    /// records, in the order the run was given them.
    pub valset: Option<PathBuf>,
    /// Missing, duplicated or errored samples: `fail`, or `intersect` to leave those
    /// tasks out (counted in the record).
    pub on_missing: crate::import::OnMissing,
    /// Map scores from [MIN, MAX] onto [0, 1], e.g. 0:100 (10:0 for lower-is-better).
    pub scale: Option<String>,
}

/// Imports the logs `args` names into the scores and the record to write, with the
/// notes for stderr; every file read is listed, so that neither output replaces one.
/// The logs' bytes read are counted into `progress`.
pub(crate) fn run(
    args: &ImportSettings,
    progress: &dyn ProgressSink,
) -> anyhow::Result<CommandOutcome> {
    applies(args)?;
    let scale = args.scale.as_deref().map(Scale::parse).transpose()?;
    let from = log_files::expand(args.format, &args.from)?;
    let total = from
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum();
    progress.begin(total);
    let store = crate::base::sorter::run_store();
    let mut entries = Entries::new(store);
    let (mut found, inputs) =
        read_logs(args, &from, progress, &mut entries).map_err(|e| naming(e, &from))?;
    let refused = |e: ImportError| naming(e.into(), &from);
    entries.absorb(&mut found).map_err(refused)?;
    let rules = Rules {
        on_missing: args.on_missing,
        scale,
        repeats: args.repeats,
        lower_is_better: args.lower_is_better,
        higher_is_better: args.higher_is_better,
    };
    let selectors = std::mem::take(&mut found.selectors);
    let datasets = std::mem::take(&mut found.datasets);
    let selected_on_these_scores = found.selected_on_these_scores;
    let plan = plan::plan(found, entries, rules).map_err(refused)?;
    // The scores and the record (millions of rows for a large log) are written to
    // temporary files as the rows are read, and copied into place together.
    let mut documents = written::Documents::new(store, &plan.plain_ids);
    let mut scores = store.create().map_err(spool_failed)?;
    let sha256 = written::write_scores(&plan, &mut RunWriter(&mut scores), &mut documents)
        .map_err(refused)?;
    scores.finish().map_err(spool_failed)?;
    let described = Imported {
        rows: Vec::new(),
        outcomes: plan.outcomes,
        dropped: plan.dropped.clone(),
        selectors,
        notes: plan.notes.clone(),
        repeats: plan.repeats.clone(),
        direction: plan.direction.clone(),
        selected_on_these_scores,
        datasets,
        identical_repeats: plan.identical_repeats.clone(),
    };
    let mut record = ImportRecord::new(args.format, &described, args.on_missing, scale, inputs);
    record.rows = plan.rows;
    record.scores_sha256 = sha256;
    let mut written_record = store.create().map_err(spool_failed)?;
    written::write_record(&record, documents, &mut RunWriter(&mut written_record))
        .map_err(spool_failed)?;
    written_record.finish().map_err(spool_failed)?;
    progress.end();
    let record_path = companion_path(&args.out);
    let mut outcome = CommandOutcome::new(Status::Success, String::new());
    // Folders and globs name files the command line does not; a HELM run, files
    // beside its statistics; lm-eval, a results file beside the samples.
    outcome.read = record
        .inputs
        .iter()
        .map(|input| ("--from", PathBuf::from(&input.path)))
        .collect();
    outcome.notes = plan.notes.clone();
    outcome.notes.push(format!(
        "wrote {} to {} and the record to {}",
        count(plan.rows as u64, "row"),
        args.out.display(),
        record_path.display()
    ));
    let copy = |run: Box<dyn Run>| {
        move |out: &mut dyn std::io::Write| -> std::io::Result<()> {
            std::io::copy(&mut run.reader()?, out).map(|_| ())
        }
    };
    outcome.writes.push(Write::Streamed(vec![
        StreamedFile::new(args.out.clone(), copy(scores)),
        StreamedFile::new(record_path, copy(written_record)),
    ]));
    Ok(outcome)
}

/// A temporary file of the import that could not be written or read.
fn spool_failed(e: std::io::Error) -> anyhow::Error {
    anyhow::anyhow!(
        "the import could not use a temporary file: {e}; free space in the temporary folder (TMPDIR)"
    )
}

/// Appends what is written to a temporary run.
struct RunWriter<'a>(&'a mut Box<dyn Run>);

impl std::io::Write for RunWriter<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.append(bytes)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A refusal that names no file (a selector to choose, tasks missing) with the files
/// read; other errors name theirs already.
fn naming(error: anyhow::Error, from: &[PathBuf]) -> anyhow::Error {
    match error.downcast_ref::<ImportError>() {
        Some(ImportError::Choice { .. } | ImportError::Refused(_)) => {
            let shown: Vec<String> = from
                .iter()
                .take(3)
                .map(|p| format!("`{}`", p.display()))
                .collect();
            let more = match from.len() {
                n if n > 3 => format!(" and {} more", n - 3),
                _ => String::new(),
            };
            anyhow::anyhow!("{error} (reading {}{more})", shown.join(", "))
        }
        _ => error,
    }
}

/// Refuses a selector the format does not read, rather than ignore it.
fn applies(args: &ImportSettings) -> anyhow::Result<()> {
    use Format::*;
    let given: [(&str, bool, &[Format]); 14] = [
        ("--filter", !args.filter.is_empty(), &[LmEval]),
        (
            "--metric",
            !args.metric.is_empty(),
            &[LmEval, Helm, Dspy, OpenaiEvals],
        ),
        ("--task", args.task.is_some(), &[LmEval]),
        ("--scorer", !args.scorer.is_empty(), &[Inspect]),
        (
            "--repeats",
            args.repeats.is_some(),
            &[Inspect, Promptfoo, Helm, LmEval, Dspy],
        ),
        ("--arm", !args.arm.is_empty(), &[Promptfoo]),
        ("--id-var", args.id_var.is_some(), &[Promptfoo]),
        ("--drop-assert", !args.drop_assert.is_empty(), &[Promptfoo]),
        ("--event", args.event.is_some(), &[OpenaiEvals]),
        ("--split", args.split.is_some(), &[Helm]),
        ("--perturbation", args.perturbation.is_some(), &[Helm]),
        ("--id-field", args.id_field.is_some(), &[Dspy]),
        ("--candidate", args.candidate.is_some(), &[Dspy]),
        ("--valset", args.valset.is_some(), &[Dspy]),
    ];
    for (option, is_given, formats) in given {
        if is_given && !formats.contains(&args.format) {
            let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
            anyhow::bail!(
                "{option} does not apply to {} logs (it is read for {}); leave it out",
                args.format.name(),
                names.join(", ")
            );
        }
    }
    Ok(())
}

/// The SHA-256 of a regular file of at most [`crate::table::MAX_WHOLE_BYTES`], streamed
/// (a FIFO or `/dev/zero` would keep the digest, and the import waiting on it, going).
fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let size = regular_file(path)?;
    let cap = crate::table::MAX_WHOLE_BYTES;
    if size > cap {
        anyhow::bail!(
            "`{}`: larger than {} MiB, more than evogate reads as one log",
            path.display(),
            cap >> 20
        );
    }
    let file = open_file(path)?;
    crate::digest::HashingReader::new(std::io::Read::take(file, cap))
        .finish()
        .map_err(|e| anyhow::anyhow!("`{}`: cannot read it: {e}", path.display()))
}

/// The size of `path`, refused unless it is a regular file: read before anything
/// opens it, since opening a FIFO blocks until a writer comes.
fn regular_file(path: &Path) -> anyhow::Result<u64> {
    let meta = std::fs::metadata(path)
        .map_err(|e| anyhow::anyhow!("`{}`: cannot read it: {e}", path.display()))?;
    if !meta.is_file() {
        anyhow::bail!(
            "`{}`: not a regular file; give the log's file",
            path.display()
        );
    }
    Ok(meta.len())
}

fn read_logs(
    args: &ImportSettings,
    from: &[PathBuf],
    progress: &dyn ProgressSink,
    entries: &mut Entries<'_>,
) -> anyhow::Result<(Found, Vec<InputLog>)> {
    let mut inputs = Vec::new();
    let whole = |inputs: &mut Vec<InputLog>, path: &Path| -> anyhow::Result<(String, Vec<u8>)> {
        let bytes = read_file(path)?;
        let name = path.display().to_string();
        inputs.push(InputLog {
            path: name.clone(),
            sha256: sha256_hex(&bytes),
        });
        Ok((name, bytes))
    };
    let several = from.len() > 1;
    let mut found = Found::default();
    match args.format {
        Format::LmEval => return read_lm_eval(args, from, progress, entries),
        Format::Inspect => {
            let mut logs = Vec::new();
            for path in from {
                let name = path.display().to_string();
                regular_file(path)?;
                // Parsed as a stream on this thread, digested on another.
                let (log, sha256) = std::thread::scope(|scope| {
                    let digest = scope.spawn(|| sha256_file(path));
                    let file = progress.reader(open_file(path)?);
                    let log = if name.ends_with(".eval") {
                        inspect::log_from_eval(&name, file)
                    } else {
                        inspect::log_from_json(&name, file)
                    };
                    let sha256 = digest
                        .join()
                        .map_err(|_| anyhow::anyhow!("digesting `{name}` failed"))??;
                    anyhow::Ok((log?, sha256))
                })?;
                inputs.push(InputLog { path: name, sha256 });
                logs.push(log);
            }
            found = inspect::read(&logs, &args.scorer)?;
        }
        Format::Promptfoo => {
            for path in from {
                let (name, bytes) = whole(&mut inputs, path)?;
                let selectors = promptfoo::PromptfooSelectors {
                    arm: args.arm.clone(),
                    id_var: args.id_var.clone(),
                    drop_assert: args.drop_assert.clone(),
                };
                found.absorb(promptfoo::read(&name, &bytes, &selectors)?);
            }
        }
        Format::OpenaiEvals => {
            for path in from {
                // A regular file is read as a stream and digested on the way; anything
                // else (a pipe) is read whole, as before.
                let name = path.display().to_string();
                let streamed = std::fs::metadata(path).is_ok_and(|m| m.is_file());
                if !streamed {
                    let (name, bytes) = whole(&mut inputs, path)?;
                    let metric = single_metric(&args.metric)?;
                    let choice = openai_evals::Choice {
                        event: args.event.as_deref(),
                        metric,
                        prefix: several,
                    };
                    found.absorb(openai_evals::read(
                        &name,
                        bytes.as_slice(),
                        choice,
                        entries,
                    )?);
                    continue;
                }
                // Read a line at a time (each at most a row's cap), so a log of any
                // size is read in the same memory.
                let file = open_file(path)?;
                let metric = single_metric(&args.metric)?;
                let mut reader = std::io::BufReader::with_capacity(
                    1 << 16,
                    crate::digest::HashingReader::new(file),
                );
                let choice = openai_evals::Choice {
                    event: args.event.as_deref(),
                    metric,
                    prefix: several,
                };
                found.absorb(openai_evals::read(&name, &mut reader, choice, entries)?);
                let sha256 = reader
                    .into_inner()
                    .finish()
                    .map_err(|e| anyhow::anyhow!("`{name}`: cannot read it: {e}"))?;
                inputs.push(InputLog { path: name, sha256 });
            }
        }
        Format::Helm => {
            for stats in from {
                let folder = stats.parent().unwrap_or(Path::new("."));
                let spec = folder.join("run_spec.json");
                let kind = if spec.is_file() {
                    let (name, bytes) = whole(&mut inputs, &spec)?;
                    Some(helm::subject(&name, &bytes)?)
                } else {
                    folder.file_name().map(|n| n.to_string_lossy().into_owned())
                };
                let state = folder.join("scenario_state.json");
                let instance_keys = if state.is_file() {
                    let (name, bytes) = whole(&mut inputs, &state)?;
                    helm::instance_keys(&name, &bytes)?
                } else {
                    Default::default()
                };
                let run = helm::HelmRun {
                    kind,
                    prefix: several,
                    instance_keys,
                };
                let (name, bytes) = whole(&mut inputs, stats)?;
                let selectors = helm::HelmSelectors {
                    metric: args.metric.clone(),
                    split: args.split.clone(),
                    perturbation: args.perturbation.clone(),
                };
                found.absorb(helm::read(&name, &bytes, &selectors, &run)?);
            }
        }
        Format::Dspy => {
            let runs = from
                .iter()
                .map(|path| whole(&mut inputs, path))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let valset = args
                .valset
                .as_deref()
                .map(|path| whole(&mut inputs, path))
                .transpose()?;
            let selectors = GepaSelectors {
                candidate: args.candidate.as_deref(),
                id_field: args.id_field.as_deref(),
                valset: valset.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
                metric: single_metric(&args.metric)?,
            };
            found = dspy::read(&runs, &selectors)?;
        }
    }
    Ok((found, inputs))
}

/// `--metric` for a format with one metric for the whole log.
fn single_metric(metric: &[String]) -> anyhow::Result<Option<&str>> {
    match metric {
        [] => Ok(None),
        [one] if !one.contains('=') => Ok(Some(one)),
        _ => anyhow::bail!(
            "--metric TASK=NAME and several --metric apply to lm-eval and helm suites; this format reads one --metric NAME"
        ),
    }
}

/// lm-eval files are streamed in chunks, parsed on every core and digested on the way;
/// a `results_<date>.json` beside a samples file gives its tasks' primary metrics,
/// directions and sample counts.
fn read_lm_eval(
    args: &ImportSettings,
    from: &[PathBuf],
    progress: &dyn ProgressSink,
    entries: &mut Entries<'_>,
) -> anyhow::Result<(Found, Vec<InputLog>)> {
    if args.task.is_some() && from.len() > 1 {
        anyhow::bail!(
            "--task names the task of a single --from; with several files keep lm-eval's samples_<task>_<date>.jsonl names"
        );
    }
    let mut reader = lm_eval::Reader::new();
    let mut inputs = Vec::new();
    let mut results = std::collections::BTreeMap::new();
    let mut results_read = std::collections::BTreeSet::new();
    let mut tasks = Vec::with_capacity(from.len());
    for path in from {
        let name = path.display().to_string();
        tasks.push(match (&args.task, from.len()) {
            (Some(task), 1) => task.clone(),
            _ => lm_eval::task_from_file_name(&name).ok_or_else(|| {
                ImportError::malformed(
                    &name,
                    "the file name is not samples_<task>_<date>.jsonl, so it does not name the task; keep lm-eval's name (or give --task with a single --from)",
                )
            })?,
        });
    }
    let runs = lm_eval_runs(from, &tasks, args.repeats.is_some())?;
    for ((path, task), repeat) in from.iter().zip(&tasks).zip(runs) {
        let name = path.display().to_string();
        let sha256 = reader.add_run(&name, task, repeat, progress.reader(open_file(path)?))?;
        inputs.push(InputLog { path: name, sha256 });
        let results_path = path
            .file_name()
            .and_then(|n| lm_eval::results_name(&n.to_string_lossy()))
            .map(|r| path.with_file_name(r));
        if let Some(results_path) = results_path.filter(|p| p.is_file())
            && results_read.insert(results_path.clone())
        {
            let bytes = read_file(&results_path)?;
            let results_name = results_path.display().to_string();
            results.extend(lm_eval::read_results(&results_name, &bytes)?);
            inputs.push(InputLog {
                path: results_name,
                sha256: sha256_hex(&bytes),
            });
        }
    }
    Ok((
        reader.finish_into(&args.filter, &args.metric, &results, entries)?,
        inputs,
    ))
}

/// Each lm-eval file's repeat: when a task has samples files of several runs (dates
/// in `samples_<task>_<date>.jsonl`), under `--repeats` run k in date order is repeat
/// k of each document; without it, an error naming the runs. A task of one run has
/// none.
fn lm_eval_runs(
    from: &[PathBuf],
    tasks: &[String],
    as_repeats: bool,
) -> anyhow::Result<Vec<Option<u64>>> {
    let date = |path: &Path| -> String {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        name.as_deref()
            .and_then(|n| n.strip_suffix(".jsonl"))
            .and_then(|n| n.rsplit_once('_'))
            .map(|(_, date)| date.to_string())
            .unwrap_or_default()
    };
    let mut dates: std::collections::BTreeMap<&str, std::collections::BTreeSet<String>> =
        std::collections::BTreeMap::new();
    for (path, task) in from.iter().zip(tasks) {
        dates.entry(task).or_default().insert(date(path));
    }
    if !as_repeats && let Some((task, runs)) = dates.iter().find(|(_, runs)| runs.len() > 1) {
        let files: Vec<String> = from
            .iter()
            .zip(tasks)
            .filter(|(_, t)| t == task)
            .map(|(p, _)| format!("`{}`", p.display()))
            .collect();
        anyhow::bail!(
            "task `{task}` has samples files of {} runs ({}): give --repeats to read the runs as repeats of each document (mean, majority, first, all, ...), or import each run to its own scores file",
            runs.len(),
            files.join(", ")
        );
    }
    Ok(from
        .iter()
        .zip(tasks)
        .map(|(path, task)| {
            let runs = &dates[task.as_str()];
            (runs.len() > 1)
                .then(|| {
                    runs.iter()
                        .position(|d| *d == date(path))
                        .map(|i| i as u64 + 1)
                })
                .flatten()
        })
        .collect())
}

/// What the companion records of two scores files say, for `admit`.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Imports {
    /// Each record read, with its SHA-256, for the report's `inputs` (roles
    /// `baseline-import` and `candidate-import`): records change the verdict, so a
    /// report lists them to be reproducible from its inputs.
    pub records: Vec<InputFile>,
    /// The tasks each import left out (the baseline's, then the candidate's).
    pub left_out: [Option<LeftOut>; 2],
    /// The SHA-256 each record says its scores file has (v3 records).
    pub scores_sha256: [Option<String>; 2],
    /// The candidate's record, when it says the candidate was chosen on these scores.
    pub selected_on_these_scores: Option<String>,
    /// Things the report should say (a record beside one file only).
    pub notes: Vec<String>,
    /// What each record says of repeats that were byte-identical copies, as warnings.
    pub identical_repeats: Vec<String>,
}

impl Imports {
    /// Refuses a record written for another scores file than the one beside it (an
    /// interrupted or stale import): `digests` are the scores files' SHA-256s as read.
    pub(crate) fn check_scores(&self, files: [&Path; 2], digests: [&str; 2]) -> anyhow::Result<()> {
        for ((expected, file), digest) in self.scores_sha256.iter().zip(files).zip(digests) {
            if let Some(expected) = expected.as_deref().filter(|e| *e != digest) {
                anyhow::bail!(
                    "`{}` was written for another scores file than `{}` (its scores_sha256 {expected}, the file's {digest}): the file was changed or its import interrupted; re-run evogate import, or remove the record",
                    companion_path(file).display(),
                    file.display()
                );
            }
        }
        Ok(())
    }
}

/// Reads the companion records of two scores files (`evogate import` writes one beside
/// each): refuses to pair two whose records show the same task run on different
/// documents (lm-eval's `doc_hash`, Inspect's inputs, promptfoo's vars, HELM's
/// instances), and returns what each import left out (the baseline's, then the
/// candidate's), which `admit` counts as unanswered, the records read with their
/// digests, the scores digests to check once the files are read, and whether the
/// candidate was chosen on these scores. Files without a record, or records without
/// keys, have nothing to compare; a record beside one file only is a note.
pub(crate) fn check_imports(baseline: &Path, candidate: &Path) -> anyhow::Result<Imports> {
    let records = std::cell::RefCell::new(Vec::new());
    let read = |scores: &Path, role: &str| -> anyhow::Result<Option<Documents>> {
        let path = companion_path(scores);
        if !path.is_file() {
            return Ok(None);
        }
        let bytes = read_file(&path)?;
        records.borrow_mut().push(InputFile {
            role: role.to_string(),
            path: path.display().to_string(),
            sha256: sha256_hex(&bytes),
        });
        let documents = serde_json::from_slice(&bytes).map_err(|e| {
            anyhow::anyhow!(
                "`{}`: not an import record: {e}; re-run evogate import or remove it",
                path.display()
            )
        })?;
        Ok(Some(documents))
    };
    let (base, cand) = (
        read(baseline, "baseline-import")?,
        read(candidate, "candidate-import")?,
    );
    let mut imports = Imports {
        left_out: [
            base.as_ref().and_then(Documents::left_out),
            cand.as_ref().and_then(Documents::left_out),
        ],
        scores_sha256: [
            base.as_ref().and_then(|d| d.scores_sha256.clone()),
            cand.as_ref().and_then(|d| d.scores_sha256.clone()),
        ],
        selected_on_these_scores: cand
            .as_ref()
            .filter(|d| d.selected_on_these_scores)
            .map(|_| companion_path(candidate).display().to_string()),
        notes: Vec::new(),
        identical_repeats: [("baseline", baseline, &base), ("candidate", candidate, &cand)]
            .into_iter()
            .filter_map(|(arm, scores, record)| {
                let copies = record.as_ref()?.identical_repeats.as_ref()?;
                Some(format!(
                    "the {arm}'s import record ({}) found {} {} whose every repeat is the same output text byte for byte (first: {}): copies of one answer, as a cache replays it, which add no evidence beyond the item",
                    companion_path(scores).display(),
                    copies.count,
                    if copies.count == 1 { "item" } else { "items" },
                    copies.first.join(", ")
                ))
            })
            .collect(),
        records: records.take(),
    };
    let (base, cand) = match (base, cand) {
        (Some(base), Some(cand)) => (base, cand),
        (None, None) => return Ok(imports),
        (base, _) => {
            let (has, lacks) = match base {
                Some(_) => (baseline, candidate),
                None => (candidate, baseline),
            };
            imports.notes.push(format!(
                "`{}` has an import record and `{}` has none ({} is missing), so the documents the two ran on and what its import left out cannot be checked",
                has.display(),
                lacks.display(),
                companion_path(lacks).display()
            ));
            return Ok(imports);
        }
    };
    if let (Some(b), Some(c)) = (&base.direction, &cand.direction)
        && b.logged != c.logged
    {
        anyhow::bail!(
            "the two imports read their metrics in opposite directions: `{}` says {} is better ({}), `{}` says {} is better ({}), so one file's scores were turned upside down and the other's were not; import both with the same direction (--higher-is-better or --lower-is-better, or beside the log's own word)",
            companion_path(baseline).display(),
            b.logged,
            b.source,
            companion_path(candidate).display(),
            c.logged,
            c.source
        );
    }
    let differ = different_documents(&base, &cand).map_err(|(which, e)| {
        let scores = if which == 0 { baseline } else { candidate };
        anyhow::anyhow!(
            "`{}`: not an import record: {e}; re-run evogate import or remove it",
            companion_path(scores).display()
        )
    })?;
    if let Some((task, b, c)) = differ.first() {
        anyhow::bail!(
            "{} run on different documents in the baseline and the candidate (first: `{task}`, document key {b} vs {c}, from {} and {}); pair runs of the same documents",
            if differ.len() == 1 {
                "1 task was".to_string()
            } else {
                format!("{} tasks were", differ.len())
            },
            companion_path(baseline).display(),
            companion_path(candidate).display()
        );
    }
    Ok(imports)
}
