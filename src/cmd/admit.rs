//! `evogate admit`: read two scores files (and optionally the holdout's tasks file and
//! manifest), pair them, decide, print the report, write the report folder and append
//! the Markdown to the GitHub step summary when there is one. `demo` reuses
//! [`evaluate`] and [`report_files`].

use std::fs::File;
use std::io::Write;
use std::path::Path;

use super::{Outcome, Status, open_file, read_file};
use crate::admission::{
    Alpha, Baseline, Config, HoldoutRecord, Joined, Keep, Margin, Pairs, StrataRequest, TaskList,
    TestChoice, Verdict, decide,
};
use crate::atomic::{Output, ensure_dir, write_all};
use crate::cli::AdmitArgs;
use crate::digest::sha256_hex;
use crate::error::InputError;
use crate::ledger;
use crate::report::LedgerInfo;
use crate::report::{InputFile, Report, json, markdown, pairs, svg, text};
use crate::stats::signed_rank::ZeroMethod;
use crate::table::Table;
use crate::table::ahead::RowsAhead;

/// An input file: its path as it should appear in reports, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The path as given (or, for the demo, relative to the repository).
    pub path: String,
    /// The file's contents.
    pub bytes: Vec<u8>,
}

impl Input {
    /// Reads `path`, keeping it as given.
    pub fn read(path: &Path) -> anyhow::Result<Input> {
        Ok(Input {
            path: path.display().to_string(),
            bytes: read_file(path)?,
        })
    }

    fn digest(&self, role: &str) -> InputFile {
        InputFile {
            role: role.to_string(),
            path: self.path.clone(),
            sha256: sha256_hex(&self.bytes),
        }
    }
}

/// The settings of one admission, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The level.
    pub alpha: Alpha,
    /// `--test`.
    pub test: TestChoice,
    /// `--zero-method`.
    pub zero: ZeroMethod,
    /// `--strata`, absent for `none`.
    pub strata: Option<StrataRequest>,
    /// `--margin`.
    pub margin: Option<Margin>,
    /// `--cluster group`.
    pub cluster: bool,
}

/// A decided admission with the pairs behind it.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The report.
    pub report: Report,
    /// The pairs, sorted by task.
    pub pairs: Pairs,
}

/// Reads a scores file from a stream, digesting it on the way, so the file is never
/// held whole (`admit` on 10^6 pairs); the reading, digesting and scanning run on a
/// thread of their own. `read` gets the path as given and the rows; `role` names the
/// file in the report's digests.
fn read_digested<T>(
    role: &str,
    path: &Path,
    file: File,
    read: impl FnOnce(&str, &mut RowsAhead) -> Result<T, InputError>,
) -> anyhow::Result<(T, InputFile)> {
    let source = path.display().to_string();
    let mut rows = RowsAhead::spawn(&source, file)?;
    let value = read(&source, &mut rows)?;
    let digest = InputFile {
        role: role.to_string(),
        path: source,
        sha256: rows.finish()?,
    };
    Ok((value, digest))
}

/// Pairs and decides. Errors are inputs that cannot be used (exit status 2).
pub fn evaluate(
    baseline: &Input,
    candidate: &Input,
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    settings: &Settings,
) -> anyhow::Result<Evaluation> {
    let column = settings.strata.as_ref().map(|s| s.column.as_str());
    let base = Baseline::read(&baseline.path, baseline.bytes.as_slice(), column, true)?;
    let joined = base.join(&candidate.path, candidate.bytes.as_slice(), Keep::All)?;
    let digests = [baseline.digest("baseline"), candidate.digest("candidate")];
    evaluate_joined(joined, digests, tasks, manifest, settings)
}

/// [`evaluate`] on scores already read; `digests` are the baseline's and the
/// candidate's.
fn evaluate_joined(
    joined: Joined,
    digests: [InputFile; 2],
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    settings: &Settings,
) -> anyhow::Result<Evaluation> {
    let list = match tasks {
        Some(t) => Some(TaskList::from_table(&Table::parse(&t.path, &t.bytes)?)?),
        None => None,
    };
    let mut inputs = Vec::from(digests);
    inputs.extend(tasks.map(|t| t.digest("tasks")));
    inputs.extend(manifest.map(|m| m.digest("manifest")));
    let pairs = joined.pair(list.as_ref(), settings.strata.as_ref())?;
    judge(pairs, inputs, tasks, manifest, settings)
}

/// Decides on pairs already made; `inputs` are the report's digests.
fn judge(
    pairs: Pairs,
    inputs: Vec<InputFile>,
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    settings: &Settings,
) -> anyhow::Result<Evaluation> {
    let test = settings
        .test
        .resolve(&pairs, settings.zero, &pairs.baseline, &pairs.candidate)?;
    let holdout = match manifest {
        Some(m) => Some(HoldoutRecord::from_manifest(
            &m.path,
            &m.bytes,
            tasks.map(|t| (t.path.clone(), sha256_hex(&t.bytes))),
        )?),
        None => None,
    };
    let config = Config {
        alpha: settings.alpha,
        test,
        margin: settings.margin,
        holdout,
        cluster: settings.cluster,
    };
    let admission = decide(&pairs, &config);
    Ok(Evaluation {
        report: Report::new(admission, &pairs, inputs),
        pairs,
    })
}

/// The files of a report folder: `admission.json`, `admission.md`, `pairs.csv` and the
/// plots `outcomes.svg`, `strata.svg` and `power.svg`.
pub fn report_files(dir: &Path, evaluation: &Evaluation) -> Vec<Output> {
    let report = &evaluation.report;
    let mut files = vec![
        Output::new(dir.join("admission.json"), json::render(report)),
        Output::new(dir.join("admission.md"), markdown::render(report)),
        Output::new(dir.join("pairs.csv"), pairs::render(&evaluation.pairs)),
    ];
    for (name, svg) in svg::render(report, &evaluation.pairs) {
        files.push(Output::new(dir.join(name), svg));
    }
    files
}

fn settings(args: &AdmitArgs) -> anyhow::Result<Settings> {
    let strata = match args.strata.as_deref().map(str::trim) {
        Some("none") => None,
        Some(column) => Some(StrataRequest {
            column: column.to_string(),
            required: true,
        }),
        None => Some(StrataRequest {
            column: "kind".to_string(),
            required: false,
        }),
    };
    Ok(Settings {
        alpha: Alpha::new(args.alpha)?,
        test: match args.test.as_str() {
            "mcnemar" => TestChoice::McNemar,
            "signed-rank" => TestChoice::SignedRank,
            _ => TestChoice::Auto,
        },
        zero: match args.zero_method.as_str() {
            "pratt" => ZeroMethod::Pratt,
            _ => ZeroMethod::Wilcox,
        },
        strata,
        margin: args.margin.map(Margin::new).transpose()?,
        cluster: args.cluster.is_some(),
    })
}

/// Runs `admit`.
pub fn run(args: AdmitArgs) -> anyhow::Result<Outcome> {
    let settings = settings(&args)?;
    super::import::check_documents(&args.baseline, &args.candidate)?;
    // Every file is opened before any is parsed, so an unreadable one is reported first.
    let baseline = open_file(&args.baseline)?;
    let candidate = open_file(&args.candidate)?;
    let tasks = args.tasks.as_deref().map(Input::read).transpose()?;
    let manifest = args.manifest.as_deref().map(Input::read).transpose()?;
    let column = settings.strata.as_ref().map(|s| s.column.as_str());
    // The baseline's feedback appears only in pairs.csv; the candidate's also in the
    // losses of every report.
    let with_pairs_csv = args.report_dir.is_some();
    let (base, base_digest) =
        read_digested("baseline", &args.baseline, baseline, |source, rows| {
            Baseline::read_rows(source, rows, column, with_pairs_csv)
        })?;
    // Without pairs.csv the reports show the candidate's feedback only on its losses.
    let keep = if with_pairs_csv {
        Keep::All
    } else {
        Keep::Losses
    };
    let (joined, cand_digest) =
        read_digested("candidate", &args.candidate, candidate, |source, rows| {
            base.join_rows(source, rows, keep)
        })?;
    let mut evaluation = evaluate_joined(
        joined,
        [base_digest, cand_digest],
        tasks.as_ref(),
        manifest.as_ref(),
        &settings,
    )?;
    let mut notes = Vec::new();
    if let Some(path) = &args.ledger {
        evaluation = with_ledger(
            path,
            evaluation,
            &settings,
            tasks.as_ref(),
            manifest.as_ref(),
        )?;
        let info = evaluation
            .report
            .ledger
            .as_ref()
            .expect("with_ledger sets it");
        notes.push(format!(
            "ledger {}: attempt {} on this holdout, alpha {}",
            path.display(),
            info.attempt,
            info.alpha_this_attempt
        ));
    }
    if let Some(warning) = evaluation
        .report
        .cluster
        .as_ref()
        .and_then(|c| c.warning.clone())
    {
        notes.push(warning);
    }
    let report = &evaluation.report;
    if let Some(dir) = &args.report_dir {
        ensure_dir(dir)?;
        let files = report_files(dir, &evaluation);
        write_all(&files)?;
        notes.push(format!("wrote {} files to {}", files.len(), dir.display()));
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        append(Path::new(&summary), &markdown::render(report))?;
        notes.push("appended the report to the GitHub step summary".to_string());
    }
    let stdout = match args.format.as_str() {
        "json" => json::render(report),
        "markdown" => markdown::render(report),
        _ => text::render(report),
    };
    let status = match report.verdict {
        Verdict::Admitted => Status::Success,
        Verdict::Refused => Status::Negative,
    };
    // Freeing a million pairs one allocation at a time takes a visible share of the
    // run, and the process ends right after this returns.
    std::mem::forget(evaluation);
    Ok(Outcome {
        status,
        stdout,
        notes,
    })
}

/// Decides again at the alpha the ledger leaves for this attempt on this holdout, and
/// records the attempt, all under the ledger's lock.
fn with_ledger(
    path: &Path,
    first: Evaluation,
    settings: &Settings,
    tasks: Option<&Input>,
    manifest: Option<&Input>,
) -> anyhow::Result<Evaluation> {
    let task_ids: Vec<String> = first.pairs.tasks().map(str::to_string).collect();
    let holdout = ledger::holdout_identity(&task_ids);
    let declared = settings.alpha.get();
    let (record, mut evaluation) =
        ledger::file::record_attempt(path, &holdout, declared, |attempt| {
            let at = Settings {
                alpha: Alpha::new(attempt.alpha)?,
                ..settings.clone()
            };
            let inputs = first.report.inputs.clone();
            let evaluation = judge(first.pairs, inputs, tasks, manifest, &at)?;
            let report = &evaluation.report;
            let decision = ledger::Decision {
                candidate_sha256: report.inputs[1].sha256.clone(),
                baseline_sha256: report.inputs[0].sha256.clone(),
                test: match report.test.name {
                    crate::admission::TestName::McNemar => "mcnemar".to_string(),
                    crate::admission::TestName::SignedRank => "signed-rank".to_string(),
                },
                n: report.n as u64,
                p_improvement: report.p_improvement,
                verdict: match report.verdict {
                    Verdict::Admitted => ledger::Verdict::Admitted,
                    Verdict::Refused => ledger::Verdict::Refused,
                },
            };
            Ok((decision, evaluation))
        })?;
    evaluation.report.ledger = Some(LedgerInfo {
        path: path.display().to_string(),
        holdout_sha256: record.holdout_sha256.clone(),
        attempt: record.attempt,
        declared_alpha: record.declared_alpha,
        alpha_this_attempt: record.alpha_this_attempt,
        alpha_spent_before: record.alpha_spent_before,
        alpha_left: ledger::spending::alpha_left_after(record.declared_alpha, record.attempt),
    });
    Ok(evaluation)
}

/// Appends `text` to the step summary; GitHub concatenates every step's additions.
fn append(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| {
            anyhow::anyhow!(
                "GITHUB_STEP_SUMMARY `{}`: cannot open it: {e}",
                path.display()
            )
        })?;
    file.write_all(format!("{text}\n").as_bytes()).map_err(|e| {
        anyhow::anyhow!(
            "GITHUB_STEP_SUMMARY `{}`: cannot write it: {e}",
            path.display()
        )
    })
}
