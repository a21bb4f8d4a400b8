//! The import use case: read another eval tool's per-sample logs, apply the shared
//! rules ([`crate::import::assemble`]), and write the scores CSV and its companion
//! record atomically. Also [`check_imports`], which `admit` calls so that two lm-eval
//! runs on different documents never pair and tasks an import left out are counted.

use std::path::Path;

use super::{open_file, read_file};
use crate::admission::LeftOut;
use crate::atomic::{FileToWrite, write_all};
use crate::cli::ImportArgs;
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

/// Imports the logs `args` names, writes the scores and the record, and returns the
/// notes for stderr.
pub fn import(args: &ImportArgs) -> anyhow::Result<Vec<String>> {
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
    write_all(&[
        FileToWrite::new(&args.out, csv),
        FileToWrite::new(&record_path, record),
    ])?;
    let mut notes = imported.notes.clone();
    notes.push(format!(
        "wrote {} rows to {} and the record to {}",
        imported.rows.len(),
        args.out.display(),
        record_path.display()
    ));
    // A million rows are left to the process exit rather than freed one by one.
    std::mem::forget(imported);
    Ok(notes)
}

fn read_logs(args: &ImportArgs) -> anyhow::Result<(Found, Vec<InputLog>)> {
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
                path.join("per_instance_stats.json")
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
fn read_lm_eval(args: &ImportArgs) -> anyhow::Result<(Found, Vec<InputLog>)> {
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
