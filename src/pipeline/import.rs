//! The import use case: read another eval tool's per-sample logs, apply the shared
//! rules ([`crate::import::assemble`]), and hand back the scores CSV and its companion
//! record to be written together. Also [`check_imports`], which `admit` calls so that two lm-eval
//! runs on different documents never pair and tasks an import left out are counted.

use std::path::{Path, PathBuf};

use super::outcome::{CommandOutcome, Status, Write};
use super::{open_file, read_file};
use crate::admission::LeftOut;
use crate::atomic::FileToWrite;
use crate::digest::sha256_hex;
use crate::import::gepa::GepaSelectors;
use crate::import::record::{
    Documents, ImportRecord, InputLog, companion_path, different_documents,
};
use crate::import::{
    Format, Found, ImportError, Scale, assemble, dspy, helm, inspect, lm_eval, openai_evals,
    promptfoo, render_csv,
};
use crate::report::InputFile;

/// The file a HELM run folder holds the per-instance statistics in.
const HELM_STATS: &str = "per_instance_stats.json";

/// The settings of one `import`: the format, the logs, the scores file to write (its
/// record goes beside it) and the selectors of each format.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportSettings {
    /// The log's format.
    pub format: crate::import::Format,
    /// A log (lm-eval: one samples file per task, all of one run; inspect: .eval or
    /// .json logs; helm: the run folder).
    pub from: Vec<PathBuf>,
    /// Where to write the scores CSV; the record goes beside it as *.import.json.
    pub out: PathBuf,
    /// lm-eval: the filter whose lines are read (repeat it when tasks name theirs
    /// differently).
    pub filter: Vec<String>,
    /// lm-eval, helm, dspy, openai-evals (metrics events): the per-sample metric.
    pub metric: Option<String>,
    /// lm-eval with one --from whose name is not lm-eval's: the task.
    pub task: Option<String>,
    /// inspect: the scorer whose values are read.
    pub scorer: Option<String>,
    /// inspect: how several epochs of a sample become one score.
    pub repeats: Option<crate::import::Repeats>,
    /// promptfoo: the provider (id or label) or prompt (`prompt:N`) to read.
    pub arm: Option<String>,
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
    /// Map scores from [MIN, MAX] onto [0, 1], e.g. 0:100.
    pub scale: Option<String>,
}

/// Imports the logs `args` names into the scores and the record to write, with the
/// notes for stderr.
pub fn run(args: &ImportSettings) -> anyhow::Result<CommandOutcome> {
    let scale = args.scale.as_deref().map(Scale::parse).transpose()?;
    let (found, inputs) = read_logs(args)?;
    let imported = assemble(found, args.on_missing, scale)?;
    // The scores and the record (a million rows each for a large log) are written out
    // on two cores.
    let (csv, record) = std::thread::scope(|scope| {
        let record = scope.spawn(|| {
            ImportRecord::new(args.format, &imported, args.on_missing, scale, inputs).to_json()
        });
        let csv = render_csv(&imported);
        (csv, record.join())
    });
    let record = record.map_err(|_| anyhow::anyhow!("writing the import record failed"))?;
    let record_path = companion_path(&args.out);
    let mut outcome = CommandOutcome::new(Status::Success, String::new());
    // helm reads a file inside the run folder that `--from` names.
    outcome.read = args
        .from
        .iter()
        .filter(|path| path.is_dir())
        .map(|dir| ("--from", dir.join(HELM_STATS)))
        .collect();
    outcome.notes = imported.notes.clone();
    outcome.notes.push(format!(
        "wrote {} rows to {} and the record to {}",
        imported.rows.len(),
        args.out.display(),
        record_path.display()
    ));
    outcome.writes.push(Write::Files(vec![
        FileToWrite::new(&args.out, csv),
        FileToWrite::new(&record_path, record),
    ]));
    // A million rows are left to the process exit rather than freed one by one.
    Ok(outcome.holding(imported))
}

fn read_logs(args: &ImportSettings) -> anyhow::Result<(Found, Vec<InputLog>)> {
    let mut inputs = Vec::new();
    let mut whole = |path: &Path| -> anyhow::Result<(String, Vec<u8>)> {
        let bytes = read_file(path)?;
        let name = path.display().to_string();
        inputs.push(InputLog {
            path: name.clone(),
            sha256: sha256_hex(&bytes),
        });
        Ok((name, bytes))
    };
    let single = |what: &str| -> anyhow::Result<&Path> {
        match args.from.as_slice() {
            [one] => Ok(one),
            _ => anyhow::bail!("{what} reads one --from; import each file to its own scores file"),
        }
    };
    let found = match args.format {
        Format::LmEval => return read_lm_eval(args),
        Format::Inspect => {
            let mut logs = Vec::new();
            for path in &args.from {
                let (name, bytes) = whole(path)?;
                logs.push(if name.ends_with(".eval") {
                    inspect::log_from_eval(&name, &bytes)?
                } else {
                    inspect::log_from_json(&name, &bytes)?
                });
            }
            inspect::read(&logs, args.scorer.as_deref(), args.repeats)?
        }
        Format::Promptfoo => {
            let (name, bytes) = whole(single("promptfoo")?)?;
            let selectors = promptfoo::PromptfooSelectors {
                arm: args.arm.clone(),
                id_var: args.id_var.clone(),
                drop_assert: args.drop_assert.clone(),
            };
            promptfoo::read(&name, &bytes, &selectors)?
        }
        Format::OpenaiEvals => {
            let (name, bytes) = whole(single("openai-evals")?)?;
            openai_evals::read(&name, &bytes, args.event.as_deref(), args.metric.as_deref())?
        }
        Format::Helm => {
            let path = single("helm")?;
            let file = if path.is_dir() {
                path.join(HELM_STATS)
            } else {
                path.to_path_buf()
            };
            let (name, bytes) = whole(&file)?;
            let selectors = helm::HelmSelectors {
                metric: args.metric.clone(),
                split: args.split.clone(),
                perturbation: args.perturbation.clone(),
            };
            helm::read(&name, &bytes, &selectors)?
        }
        Format::Dspy => {
            let (name, bytes) = whole(single("dspy")?)?;
            let valset = args.valset.as_deref().map(&mut whole).transpose()?;
            let selectors = GepaSelectors {
                candidate: args.candidate.as_deref(),
                id_field: args.id_field.as_deref(),
                valset: valset.as_ref().map(|(n, b)| (n.as_str(), b.as_slice())),
                metric: args.metric.as_deref(),
            };
            dspy::read(&name, &bytes, &selectors)?
        }
    };
    Ok((found, inputs))
}

/// lm-eval files are streamed in chunks, parsed on every core and digested on the way.
fn read_lm_eval(args: &ImportSettings) -> anyhow::Result<(Found, Vec<InputLog>)> {
    if args.task.is_some() && args.from.len() > 1 {
        anyhow::bail!(
            "--task names the task of a single --from; with several files keep lm-eval's samples_<task>_<date>.jsonl names"
        );
    }
    let mut reader = lm_eval::Reader::new();
    let mut inputs = Vec::new();
    for path in &args.from {
        let name = path.display().to_string();
        let task = match (&args.task, args.from.len()) {
            (Some(task), 1) => task.clone(),
            _ => lm_eval::task_from_file_name(&name).ok_or_else(|| {
                ImportError::malformed(
                    &name,
                    "the file name is not samples_<task>_<date>.jsonl, so it does not name the task; keep lm-eval's name (or give --task with a single --from)",
                )
            })?,
        };
        let sha256 = reader.add(&name, &task, open_file(path)?)?;
        inputs.push(InputLog { path: name, sha256 });
    }
    Ok((reader.finish(&args.filter, args.metric.as_deref())?, inputs))
}

/// What [`check_imports`] found in the companion records.
#[derive(Debug, Clone, PartialEq)]
pub struct Imports {
    /// What each import left out (the baseline's, then the candidate's).
    pub left_out: [Option<LeftOut>; 2],
    /// Each record read, with its SHA-256, for the report's `inputs` (roles
    /// `baseline-import` and `candidate-import`): records change the verdict, so a
    /// report lists them to be reproducible from its inputs.
    pub records: Vec<InputFile>,
}

/// Reads the companion records of two scores files (`evogate import` writes one beside
/// each): refuses to pair two whose records show the same task run on different
/// documents (lm-eval's `doc_hash`), and returns what each import left out, which
/// `admit` counts as unanswered, with the records read and their digests. Files
/// without a record, or records without hashes, have nothing to compare.
pub fn check_imports(baseline: &Path, candidate: &Path) -> anyhow::Result<Imports> {
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
    let imports = Imports {
        left_out: [
            base.as_ref().and_then(Documents::left_out),
            cand.as_ref().and_then(Documents::left_out),
        ],
        records: records.take(),
    };
    let (Some(base), Some(cand)) = (base, cand) else {
        return Ok(imports);
    };
    let differ = different_documents(&base, &cand).map_err(|(which, e)| {
        let scores = if which == 0 { baseline } else { candidate };
        anyhow::anyhow!(
            "`{}`: not an import record: {e}; re-run evogate import or remove it",
            companion_path(scores).display()
        )
    })?;
    if let Some((task, b, c)) = differ.first() {
        anyhow::bail!(
            "{} tasks were run on different documents in the baseline and the candidate (first: `{task}`, document key {b} vs {c}, from {} and {}); pair runs of the same documents",
            differ.len(),
            companion_path(baseline).display(),
            companion_path(candidate).display()
        );
    }
    Ok(imports)
}
