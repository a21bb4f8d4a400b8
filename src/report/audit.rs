//! `evogate audit`'s report (`evogate/audit/v1`): [`AuditReport`] is the schema of
//! `audit.json` (written by [`super::json::document`]); the text for the terminal and
//! the Markdown (`audit.md`) render it and compute nothing. Claim ids, descriptions,
//! sources and reasons (which quote the admission's findings) are untrusted: kept to one
//! line in the text, whose other control characters `main`'s terminal sanitiser shows
//! as escapes, and escaped with [`super::escape::markdown`] for Markdown.

use serde::Serialize;

use super::escape::markdown;
use crate::audit::{ClaimVerdict, Judgement};
use crate::base::numbers::{p_value, shift};

/// The schema name of `audit.json`.
pub(crate) const SCHEMA: &str = "evogate/audit/v1";

/// `audit.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AuditReport {
    /// Always `evogate/audit/v1`.
    pub schema: &'static str,
    /// The level asked for; each claim is tested at it divided by its attempts.
    pub alpha: f64,
    /// Claims supported.
    pub supported: usize,
    /// Claims in all.
    pub claims: usize,
    /// One judgement per claim, in file order.
    pub judgements: Vec<Judgement>,
}

impl AuditReport {
    /// The report on `judgements` at `alpha`.
    pub(crate) fn new(alpha: f64, judgements: Vec<Judgement>) -> AuditReport {
        AuditReport {
            schema: SCHEMA,
            alpha,
            supported: judgements
                .iter()
                .filter(|j| j.verdict == ClaimVerdict::Supported)
                .count(),
            claims: judgements.len(),
            judgements,
        }
    }
}

/// `--format text`: each claim's verdict and reason, then its numbers on an indented
/// line.
pub(crate) fn text_report(report: &AuditReport) -> String {
    let mut out = String::new();
    for j in &report.judgements {
        out.push_str(&format!(
            "{}: {} ({}, {}): {}\n    {}\n",
            one_line(&j.claim_id),
            j.verdict.name(),
            j.evidence,
            metric(j),
            one_line(&j.reason),
            numbers(j)
        ));
    }
    out.push_str(&format!(
        "{} of {} supported at alpha {}. {}\n",
        report.supported,
        crate::base::numbers::count(report.claims as u64, "claim"),
        report.alpha,
        crate::base::numbers::SHIFT_UNIT
    ));
    out
}

/// `--format markdown` and `audit.md`.
pub(crate) fn markdown_report(report: &AuditReport) -> String {
    let mut out = format!(
        "# Audit: {} of {} supported\n\nAlpha {} (one-sided), divided by a claim's attempts. Each claim is judged on the strongest evidence it has: `supported` is significant under every pairing the evidence allows, `not-supported` has data that are not significant, `unverifiable` is significant in the best case only (or was selected on the scored set), `unsupportable` is not significant even in the best case. {}\n\n| claim | verdict | evidence | p best case | p worst case | b, c | n (effective) | alpha | detectable shift (proportion): best case, 80% power |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        report.supported,
        crate::base::numbers::count(report.claims as u64, "claim"),
        report.alpha,
        crate::base::numbers::SHIFT_UNIT
    );
    for j in &report.judgements {
        out.push_str(&format!(
            "| {} | **{}** | {}, {} | {} | {} | {} | {} | {} | {}, {} |\n",
            markdown(&j.claim_id),
            j.verdict.name(),
            j.evidence,
            metric(j),
            p_value(j.p_best_case),
            j.p_worst_case.map_or("–".into(), p_value),
            discordant(j),
            effective(j),
            p_value(j.alpha),
            j.min_detectable_shift_best_case
                .map_or("none".into(), shift),
            j.min_detectable_shift_80_power.map_or("none".into(), shift),
        ));
    }
    out.push_str("\n## Reasons\n\n");
    for j in &report.judgements {
        out.push_str(&format!(
            "- **{}**: {}{}{}\n",
            markdown(&j.claim_id),
            markdown(&j.description),
            j.source
                .as_deref()
                .map_or(String::new(), |s| format!(" (source: {})", markdown(s))),
            format_args!("\n  {}", markdown(&j.reason))
        ));
    }
    out
}

fn metric(j: &Judgement) -> String {
    let name = match j.metric {
        crate::audit::Metric::Binary => "binary",
        crate::audit::Metric::Mean => "mean",
    };
    if j.metric_inferred {
        format!("{name}, inferred")
    } else {
        name.to_string()
    }
}

fn discordant(j: &Judgement) -> String {
    match (j.b, j.c, j.worst_case_b, j.worst_case_c) {
        (Some(b), Some(c), _, _) => format!("{b}, {c}"),
        (_, _, Some(b), Some(c)) => format!("worst {b}, {c}"),
        _ => "–".to_string(),
    }
}

fn effective(j: &Judgement) -> String {
    match j.n {
        Some(n) if n != j.effective_n => format!("{n} ({})", j.effective_n),
        Some(n) => n.to_string(),
        None => format!("– ({})", j.effective_n),
    }
}

fn numbers(j: &Judgement) -> String {
    format!(
        "p best case {}, worst case {}; b, c {}; n {}, effective n {}; alpha {}; detectable shift {} best case, {} at 80% power",
        p_value(j.p_best_case),
        j.p_worst_case.map_or("–".into(), p_value),
        discordant(j),
        j.n.map_or("–".into(), |n| n.to_string()),
        j.effective_n,
        p_value(j.alpha),
        j.min_detectable_shift_best_case
            .map_or("none".into(), shift),
        j.min_detectable_shift_80_power.map_or("none".into(), shift),
    )
}

/// `text` with its line breaks as spaces, so a claim cannot print a line of its own.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}
