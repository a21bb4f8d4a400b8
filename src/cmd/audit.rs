//! `evogate audit`: judge each claim of the claims file ([`crate::pipeline::audit`]),
//! print the report and write `audit.json` and `audit.md` with `--report-dir`.

use super::{Printout, Status};
use crate::alpha::Alpha;
use crate::atomic::{refuse_overwriting_inputs, replace_folder};
use crate::cli::{AuditArgs, ReportFormat};
use crate::pipeline::audit::{audit, report_files};
use crate::report::audit::{markdown_report, text_report};

/// Runs `audit`.
pub fn run(args: AuditArgs) -> anyhow::Result<Printout> {
    let report = audit(&args.claims, Alpha::new(args.alpha)?)?;
    if let Some(dir) = &args.report_dir {
        let files = report_files(dir, &report)?;
        refuse_overwriting_inputs(
            files.iter().map(|f| f.path.as_path()),
            &[("--claims", args.claims.as_path())],
        )?;
        replace_folder(dir, &files)?;
    }
    let stdout = match args.format {
        ReportFormat::Json => crate::report::json::document(&report)?,
        ReportFormat::Markdown => markdown_report(&report),
        ReportFormat::Text => text_report(&report),
    };
    let status = if report.supported == report.claims {
        Status::Success
    } else {
        Status::Negative
    };
    Ok(Printout::new(status, stdout))
}
