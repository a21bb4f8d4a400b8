//! `evogate audit`: judge each claim of the claims file and report.

use std::path::{Component, Path, PathBuf};

use anyhow::bail;
use serde::Serialize;

use super::{Printout, Status, read_table};
use crate::admission::{StrataRequest, TestChoice, Verdict};
use crate::alpha::Alpha;
use crate::atomic::{FileToWrite, ensure_dir, write_all};
use crate::audit::{
    Claim, ClaimVerdict, Evidence, Judgement, judge, judge_admission, parse_claims,
};
use crate::cli::{AuditArgs, ReportFormat};
use crate::pipeline::admit::{Input, Settings, evaluate};
use crate::report::escape::markdown;
use crate::stats::signed_rank::ZeroMethod;

/// The audit report (`evogate/audit/v1`).
#[derive(Debug, Serialize)]
pub struct AuditReport {
    /// Always `evogate/audit/v1`.
    pub schema: &'static str,
    /// The level.
    pub alpha: f64,
    /// Claims supported.
    pub supported: usize,
    /// Claims in all.
    pub claims: usize,
    /// One judgement per claim, in file order.
    pub judgements: Vec<Judgement>,
}

/// Runs `audit`.
pub fn run(args: AuditArgs) -> anyhow::Result<Printout> {
    let alpha = Alpha::new(args.alpha)?;
    let table = read_table(&args.claims)?;
    let claims = parse_claims(&table)?;
    let folder = args
        .claims
        .parent()
        .map_or_else(PathBuf::new, Path::to_path_buf);
    let mut judgements = Vec::new();
    for claim in &claims {
        judgements.push(match judge(claim, alpha) {
            Some(judged) => judged,
            None => rerun(claim, &folder, &table.source, alpha)?,
        });
    }
    let supported = judgements
        .iter()
        .filter(|j| j.verdict == ClaimVerdict::Supported)
        .count();
    let report = AuditReport {
        schema: "evogate/audit/v1",
        alpha: args.alpha,
        supported,
        claims: judgements.len(),
        judgements,
    };
    let json = crate::report::json::document(&report)?;
    let md = markdown_report(&report);
    if let Some(dir) = &args.report_dir {
        ensure_dir(dir)?;
        write_all(&[
            FileToWrite::new(dir.join("audit.json"), json.clone()),
            FileToWrite::new(dir.join("audit.md"), md.clone()),
        ])?;
    }
    let stdout = match args.format {
        ReportFormat::Json => json,
        ReportFormat::Markdown => md,
        ReportFormat::Text => text_report(&report),
    };
    let status = if supported == report.claims {
        Status::Success
    } else {
        Status::Negative
    };
    Ok(Printout::new(status, stdout))
}

/// Reruns the admission test on a claim's score files.
fn rerun(claim: &Claim, folder: &Path, source: &str, alpha: Alpha) -> anyhow::Result<Judgement> {
    let Evidence::ScoreFiles {
        baseline,
        candidate,
    } = &claim.evidence
    else {
        bail!(
            "`{source}` row {}: the claim has no score files",
            claim.line
        );
    };
    let inside = |name: &str| -> anyhow::Result<Input> {
        let relative = Path::new(name);
        let escapes = relative.is_absolute()
            || relative
                .components()
                .try_fold(0i64, |depth, part| match part {
                    Component::ParentDir if depth == 0 => None,
                    Component::ParentDir => Some(depth - 1),
                    Component::Normal(_) => Some(depth + 1),
                    _ => Some(depth),
                })
                .is_none();
        if escapes {
            bail!(
                "`{source}` row {}: score file `{name}` is outside the claims file's folder; give a path relative to it, without leaving it",
                claim.line
            );
        }
        let path = folder.join(relative);
        // A link inside the folder may still lead out of it.
        if let (Ok(real), Ok(real_folder)) = (path.canonicalize(), folder.canonicalize())
            && !real.starts_with(&real_folder)
        {
            bail!(
                "`{source}` row {}: score file `{name}` is a link that leads outside the claims file's folder; copy the file into the folder instead",
                claim.line
            );
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "`{source}` row {}: cannot read score file `{}`: {e}; give its path relative to the claims file's folder",
                claim.line,
                path.display()
            )
        })?;
        Ok(Input {
            path: name.to_string(),
            bytes,
        })
    };
    let settings = Settings {
        alpha,
        test: TestChoice::Auto,
        zero: ZeroMethod::Wilcox,
        strata: Some(StrataRequest {
            column: "kind".to_string(),
            required: false,
        }),
        margin: None,
        cluster: false,
    };
    let evaluation = evaluate(
        &inside(baseline)?,
        &inside(candidate)?,
        None,
        None,
        &settings,
    )?;
    let report = &evaluation.report;
    let first = report.admission.reasons.first().map_or("", String::as_str);
    Ok(judge_admission(
        claim,
        report.admission.verdict == Verdict::Admitted,
        report.admission.p_improvement,
        first,
    ))
}

fn verdict_name(verdict: ClaimVerdict) -> &'static str {
    match verdict {
        ClaimVerdict::Supported => "supported",
        ClaimVerdict::NotSupported => "not-supported",
        ClaimVerdict::Unsupportable => "unsupportable",
        ClaimVerdict::Unverifiable => "unverifiable",
    }
}

fn text_report(report: &AuditReport) -> String {
    let mut out = String::new();
    for j in &report.judgements {
        out.push_str(&format!(
            "{}: {} ({}): {}\n",
            j.claim_id.replace(['\n', '\r'], " "),
            verdict_name(j.verdict),
            j.evidence,
            j.reason
        ));
    }
    out.push_str(&format!(
        "{} of {} claims supported at alpha {}\n",
        report.supported, report.claims, report.alpha
    ));
    out
}

fn markdown_report(report: &AuditReport) -> String {
    let mut out = format!(
        "# Audit: {} of {} claims supported\n\nAlpha {} (one-sided). Each claim is judged on the strongest evidence it has.\n\n| claim | description | evidence | verdict | reason |\n| --- | --- | --- | --- | --- |\n",
        report.supported, report.claims, report.alpha
    );
    for j in &report.judgements {
        out.push_str(&format!(
            "| {} | {} | {} | **{}** | {} |\n",
            markdown(&j.claim_id),
            markdown(&j.description),
            j.evidence,
            verdict_name(j.verdict),
            markdown(&j.reason)
        ));
    }
    out
}
