//! `evogate admit`: turn the arguments into [`AdmitSettings`], run the admission
//! ([`crate::pipeline::admit`]), print the report, write the report folder and append
//! the Markdown to the GitHub step summary when there is one.

use std::io::Write;
use std::path::Path;

use super::{Printout, Status};
use crate::admission::{Margin, StrataRequest, Verdict};
use crate::alpha::Alpha;
use crate::atomic::refuse_overwriting_inputs;
use crate::cli::{AdmitArgs, ReportFormat};
use crate::pipeline::admit::{
    AdmitFiles, AdmitSettings, admit, admit_summary, report_names, write_report_folder,
};
use crate::report::{json, markdown, text};

fn settings(args: &AdmitArgs) -> anyhow::Result<AdmitSettings> {
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
    Ok(AdmitSettings {
        alpha: Alpha::new(args.alpha)?,
        test: args.test,
        zero: args.zero_method,
        strata,
        margin: args.margin.map(Margin::new).transpose()?,
        cluster: args.cluster.is_some(),
        allow_missing: args.allow_missing,
    })
}

/// Runs `admit`, checking the report folder before a ledger records an attempt.
pub fn run(args: AdmitArgs) -> anyhow::Result<Printout> {
    let settings = settings(&args)?;
    if let Some(dir) = &args.report_dir {
        refuse_overwriting_inputs(
            report_names(dir).iter().map(|p| p.as_path()),
            &[
                ("--summary", &args.summary),
                ("--baseline", &args.baseline),
                ("--candidate", &args.candidate),
                ("--tasks", &args.tasks),
                ("--manifest", &args.manifest),
                ("--ledger", &args.ledger),
            ]
            .iter()
            .filter_map(|(flag, path)| Some((*flag, path.as_deref()?)))
            .collect::<Vec<_>>(),
        )?;
    }
    let (manifest, ledger) = (args.manifest.as_deref(), args.ledger.as_deref());
    let evaluation = match (&args.summary, &args.baseline, &args.candidate) {
        (Some(summary), _, _) => admit_summary(summary, manifest, ledger, &settings)?,
        (None, Some(baseline), Some(candidate)) => {
            let files = AdmitFiles {
                baseline: baseline.clone(),
                candidate: candidate.clone(),
                tasks: args.tasks.clone(),
                manifest: args.manifest.clone(),
                ledger: args.ledger.clone(),
                keep_feedback: args.report_dir.is_some(),
            };
            admit(&files, &settings)?
        }
        _ => anyhow::bail!("admit needs --baseline and --candidate, or --summary"),
    };
    let report = &evaluation.report;
    let mut notes = evaluation.notes.clone();
    if let Some(info) = &report.ledger {
        notes.push(ledger_note(info));
    }
    if let Some(warning) = report
        .admission
        .cluster
        .as_ref()
        .and_then(|c| c.warning.clone())
    {
        notes.push(warning);
    }
    if let Some(dir) = &args.report_dir {
        let written = write_report_folder(dir, &evaluation)?;
        notes.push(format!("wrote {written} files to {}", dir.display()));
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        append(Path::new(&summary), &markdown::render(report))?;
        notes.push("appended the report to the GitHub step summary".to_string());
    }
    let stdout = match args.format {
        ReportFormat::Json => json::render(report),
        ReportFormat::Markdown => markdown::render(report),
        ReportFormat::Text => text::render(report),
    };
    let status = match report.admission.verdict {
        Verdict::Admitted => Status::Success,
        Verdict::Refused | Verdict::Inconclusive => Status::Negative,
    };
    // Freeing a million pairs one allocation at a time takes a visible share of the
    // run, and the process ends right after this returns.
    std::mem::forget(evaluation);
    Ok(Printout {
        status,
        stdout,
        notes,
    })
}

/// Where the attempt stands in the ledger, or that it repeated an earlier one.
fn ledger_note(info: &crate::report::LedgerInfo) -> String {
    if info.repeated {
        format!(
            "ledger {}: these scores files were decided alike as attempt {} on this holdout already; no new attempt is spent (decided again at that attempt's alpha {})",
            info.path, info.attempt, info.alpha_this_attempt
        )
    } else {
        format!(
            "ledger {}: attempt {} on this holdout, alpha {}",
            info.path, info.attempt, info.alpha_this_attempt
        )
    }
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
