//! `evogate admit`: turn the arguments into [`AdmitSettings`] and an [`AdmitRequest`],
//! run the admission ([`crate::pipeline::admit`]), and hand its outcome (the report,
//! the report folder, the step summary) to the executor.

use std::path::PathBuf;

use super::Printout;
use super::execute::Effects;
use super::execute::step_summary;
use crate::admission::{Margin, StrataRequest};
use crate::alpha::Alpha;
use crate::cli::{AdmitArgs, ReportFormat};
use crate::import::record::companion_path;
use crate::pipeline::admit::{
    self, AdmitFiles, AdmitOn, AdmitRequest, AdmitSettings, report_names,
};
use crate::pipeline::outcome::AttemptLedger;

fn settings(args: &AdmitArgs) -> anyhow::Result<AdmitSettings> {
    if args.margin.is_some() && args.cluster.is_some() {
        anyhow::bail!(
            "--cluster tests improvement on clusters, which --margin (non-inferiority) does not ask; leave out one of them"
        );
    }
    let strata = StrataRequest::from_flag(args.strata.as_deref());
    Ok(AdmitSettings {
        alpha: Alpha::new(args.alpha)?,
        test: args.test,
        zero: args.zero_method,
        strata,
        margin: match (args.margin, args.equivalence) {
            (_, Some(m)) => Some(Margin::equivalence(m)?),
            (Some(m), None) => Some(Margin::new(m)?),
            (None, None) => None,
        },
        cluster: args.cluster.is_some(),
        allow_missing: args.allow_missing,
    })
}

/// Runs `admit`, checking the report folder and the step summary before a ledger
/// records an attempt.
pub(crate) fn run(args: AdmitArgs) -> anyhow::Result<Printout> {
    let settings = settings(&args)?;
    // The import records beside the scores files are read too (their documents and
    // digests are checked), so no write may replace them either.
    let record = |scores: &Option<PathBuf>| scores.as_deref().map(companion_path);
    let (baseline_record, candidate_record) = (record(&args.baseline), record(&args.candidate));
    let effects = Effects::default()
        .input_if("--summary", args.summary.as_deref())
        .input_if("--baseline", args.baseline.as_deref())
        .input_if("--candidate", args.candidate.as_deref())
        .input_if("--baseline's import record", baseline_record.as_deref())
        .input_if("--candidate's import record", candidate_record.as_deref())
        .input_if("--tasks", args.tasks.as_deref())
        .input_if("--manifest", args.manifest.as_deref())
        .ledger_if(args.ledger.as_deref());
    let planned = args.report_dir.as_deref().map(report_names);
    let effects = effects.report_files(planned.as_deref().unwrap_or_default());
    effects.plan(planned.iter().flatten().map(PathBuf::as_path), true)?;
    let evidence = match (&args.summary, &args.baseline, &args.candidate) {
        (Some(summary), _, _) => AdmitOn::Summary {
            summary: summary.clone(),
            manifest: args.manifest.clone(),
        },
        (None, Some(baseline), Some(candidate)) => AdmitOn::Files(AdmitFiles {
            baseline: baseline.clone(),
            candidate: candidate.clone(),
            tasks: args.tasks.clone(),
            manifest: args.manifest.clone(),
            keep_feedback: args.report_dir.is_some(),
            // The inputs' SHA-256 are in what a report folder, the step summary, a JSON
            // or Markdown report and a ledger record; the text report does not show them.
            digests_shown: args.report_dir.is_some()
                || args.ledger.is_some()
                || args.format != ReportFormat::Text
                || step_summary().is_some(),
        }),
        _ => anyhow::bail!("admit needs --baseline and --candidate, or --summary"),
    };
    let request = AdmitRequest {
        evidence,
        report_dir: args.report_dir,
        format: args.format,
    };
    let mut ledger = effects.ledger()?;
    let recorder = ledger.as_mut().map(|l| l as &mut dyn AttemptLedger);
    effects.finish(admit::run(&request, &settings, recorder)?)
}
