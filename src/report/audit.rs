//! `evogate audit`'s report (`evogate/audit/v1`): one judgement per claim, rendered as
//! text for the terminal and as Markdown (`audit.md`); JSON goes through
//! [`super::json::document`]. Free text from the claims file is escaped for Markdown
//! here and for the terminal by `main`'s sanitiser.

use serde::Serialize;

use super::escape::markdown;
use crate::audit::{ClaimVerdict, Judgement};

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

fn verdict_name(verdict: ClaimVerdict) -> &'static str {
    match verdict {
        ClaimVerdict::Supported => "supported",
        ClaimVerdict::NotSupported => "not-supported",
        ClaimVerdict::Unsupportable => "unsupportable",
        ClaimVerdict::Unverifiable => "unverifiable",
    }
}

/// The text for the terminal.
pub fn text_report(report: &AuditReport) -> String {
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

/// `audit.md`.
pub fn markdown_report(report: &AuditReport) -> String {
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
