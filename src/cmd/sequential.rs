//! `evogate admit --sequential`: check the arguments into [`SequentialSettings`], replay
//! the monitoring ([`crate::pipeline::sequential`]), print where it stands, write the
//! report folder and append the Markdown to the GitHub step summary when there is one.

use std::path::Path;

use anyhow::Context;

use super::{Printout, Status, append};
use crate::admission::StrataRequest;
use crate::alpha::Alpha;
use crate::atomic::{refuse_overwriting_inputs, replace_folder};
use crate::cli::{AdmitArgs, ReportFormat};
use crate::pipeline::sequential::{
    SequentialFiles, SequentialSettings, report_files, report_names, sequential,
};
use crate::report::json;
use crate::report::sequential::{markdown_report, text};
use crate::stats::sequential;

/// Runs `admit --sequential`.
pub fn run(args: AdmitArgs) -> anyhow::Result<Printout> {
    let margin = args.margin.unwrap_or(0.0);
    if !(0.0..1.0).contains(&margin) {
        anyhow::bail!(
            "--margin {margin}: with --sequential the margin is the smallest improvement worth having, in [0, 1); e.g. 0.02"
        );
    }
    let settings = SequentialSettings {
        alpha: Alpha::new(args.alpha)?,
        margin,
        test: args.test,
        zero: args.zero_method,
        strata: StrataRequest::from_flag(args.strata.as_deref()),
    };
    let (Some(baseline), Some(candidate), Some(order)) =
        (&args.baseline, &args.candidate, &args.order)
    else {
        anyhow::bail!("admit --sequential needs --baseline, --candidate and --order");
    };
    if let Some(dir) = &args.report_dir {
        refuse_overwriting_inputs(
            report_names(dir).iter().map(|p| p.as_path()),
            &[
                ("--baseline", baseline.as_path()),
                ("--candidate", candidate.as_path()),
                ("--order", order.as_path()),
            ]
            .into_iter()
            .chain(args.ledger.as_deref().map(|l| ("--ledger", l)))
            .collect::<Vec<_>>(),
        )?;
    }
    let files = SequentialFiles {
        baseline: baseline.clone(),
        candidate: candidate.clone(),
        order: order.clone(),
        ledger: args.ledger.clone(),
    };
    let run = sequential(&files, &settings)?;
    let mut notes = Vec::new();
    if let Some(dir) = &args.report_dir {
        let files = report_files(dir, &run)?;
        replace_folder(dir, &files)?;
        notes.push(format!("wrote {} files to {}", files.len(), dir.display()));
    }
    if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
        append(Path::new(&summary), &markdown_report(&run.report, None))?;
        notes.push("appended the report to the GitHub step summary".to_string());
    }
    let stdout = match args.format {
        ReportFormat::Json => json::rounded(&run.report).context("writing the report")?,
        ReportFormat::Markdown => markdown_report(&run.report, None),
        ReportFormat::Text => text(&run.report),
    };
    let status = match run.status {
        sequential::Standing::Admitted => Status::Success,
        sequential::Standing::Refused => Status::Negative,
        sequential::Standing::Continue => Status::Continue,
    };
    Ok(Printout {
        status,
        stdout,
        notes,
    })
}
