//! `admission.md`, `--format markdown` and the GitHub step summary: the verdict on the
//! first line, then the reasons, the test, the per-stratum table, the power sentence,
//! the evidence, the candidate's losses and the inputs with their SHA-256. Every piece
//! of text that came from an input goes through [`super::escape::markdown`].

use std::fmt::Write;

use super::Report;
use super::escape::{markdown as esc, markdown_clipped};
use crate::admission::SHOWN_LOSSES;
use crate::admission::{Check, Delta, TestMethod, TestName, Verdict};
use crate::figures::{number, p_value, percent, signed};

/// Characters of feedback shown per loss.
const FEEDBACK_CHARS: usize = 160;

/// The test in words, e.g. `McNemar's exact test`.
pub(crate) fn test_words(report: &Report) -> String {
    let method = match report.admission.test.method {
        TestMethod::Exact => "exact",
        TestMethod::Saddlepoint => "saddlepoint approximation",
    };
    match report.admission.test.name {
        TestName::McNemar => format!("McNemar's test ({method}) on `correct`"),
        TestName::SignedRank => format!(
            "Wilcoxon signed-rank test ({method}, zeros: {}) on `score`",
            report
                .admission
                .test
                .zero_method
                .as_deref()
                .unwrap_or("wilcox")
        ),
    }
}

/// `0.1985 [0.12, 0.27]`, or the estimate alone without an interval.
pub(crate) fn interval(delta: &Delta) -> String {
    match (delta.low, delta.high) {
        (Some(low), Some(high)) => format!(
            "{} [{}, {}]",
            signed(delta.estimate),
            signed(low),
            signed(high)
        ),
        _ => signed(delta.estimate),
    }
}

/// Renders the report as GitHub Flavored Markdown.
pub fn render(report: &Report) -> String {
    let mut md = String::new();
    let verdict = match report.admission.verdict {
        Verdict::Admitted => "admitted",
        Verdict::Refused => "refused",
    };
    let _ = writeln!(md, "## evogate admit: {verdict}\n");
    for reason in &report.admission.reasons {
        let _ = writeln!(md, "- {}", esc(reason));
    }
    let confidence = number(report.admission.delta.confidence * 100.0);
    let _ = writeln!(
        md,
        "\n**Test:** {}, one-sided for improvement at alpha {}, on {} pairs.\n",
        test_words(report),
        crate::figures::level(report.admission.alpha),
        report.admission.n
    );
    let _ = writeln!(md, "| | baseline | candidate |\n| --- | --- | --- |");
    let _ = writeln!(
        md,
        "| mean score | {} | {} |",
        signed(report.admission.baseline.mean),
        signed(report.admission.candidate.mean)
    );
    if let (Some(b), Some(c)) = (
        report.admission.baseline.correct,
        report.admission.candidate.correct,
    ) {
        let _ = writeln!(md, "| correct | {b} | {c} |");
    }
    if let Some(d) = report.admission.discordant {
        let _ = writeln!(
            md,
            "| right only here | {} | {} |",
            d.baseline_only, d.candidate_only
        );
    }
    let _ = writeln!(
        md,
        "\nDifference (candidate − baseline) {} ({confidence}% interval: {}). p_improvement {}, p_regression {}, two-sided {}.\n",
        interval(&report.admission.delta),
        esc(&report.admission.delta.interval),
        p_value(report.admission.p_improvement),
        p_value(report.admission.p_regression),
        p_value(report.admission.p_two_sided)
    );
    if let Some(column) = &report.admission.strata_column {
        let column = esc(column);
        let _ = writeln!(md, "### Strata by {column}\n");
        let _ = writeln!(
            md,
            "| {column} | n | baseline | candidate | difference [{confidence}%] | p_regression | regressed |\n| --- | ---: | ---: | ---: | --- | ---: | --- |"
        );
        for s in &report.admission.strata {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} |",
                esc(&s.value),
                s.n,
                signed(s.baseline_mean),
                signed(s.candidate_mean),
                interval(&s.delta),
                p_value(s.p_regression),
                if s.significant_regression {
                    "**yes**"
                } else {
                    "no"
                }
            );
        }
        md.push('\n');
    }
    let _ = writeln!(md, "### Power\n\n{}\n", esc(&report.admission.power));
    if let Some(c) = &report.admission.cluster {
        let _ = writeln!(
            md,
            "### Clusters\n\n{} clusters by `{}`{}: signed-rank on cluster mean differences p_improvement {}; design effect {}.{}\n",
            c.clusters,
            c.column,
            if c.decides {
                " (the decision rests on them)"
            } else {
                ""
            },
            crate::figures::p_value(c.p_improvement),
            c.design_effect
                .map_or("not defined".to_string(), |d| format!("{d:.2}")),
            c.warning
                .as_ref()
                .map_or(String::new(), |w| format!(" **Warning:** {}.", esc(w)))
        );
    }
    if let Some(l) = &report.ledger {
        let _ = writeln!(
            md,
            "### Holdout reuse\n\nAttempt {} on this holdout: decided at alpha {} of the declared {} (spent before {}, left after {}).\n",
            l.attempt,
            crate::figures::p_value(l.alpha_this_attempt),
            crate::figures::level(l.declared_alpha),
            crate::figures::p_value(l.alpha_spent_before),
            crate::figures::p_value(l.alpha_left)
        );
    }
    if let Some(shift) = report.admission.min_detectable_shift {
        let _ = writeln!(md, "Minimum detectable shift: {}.\n", percent(shift));
    }
    let _ = writeln!(
        md,
        "### Evidence\n\n| criterion | result | proof |\n| --- | --- | --- |"
    );
    for e in &report.admission.evidence {
        let criterion = e.criterion.name();
        let result = match e.result {
            Check::Pass => "pass",
            Check::Fail => "**fail**",
        };
        let _ = writeln!(md, "| {criterion} | {result} | {} |", esc(&e.proof));
    }
    if !report.admission.losses.is_empty() {
        let _ = writeln!(
            md,
            "\n### Where the candidate scored lower (up to {SHOWN_LOSSES})\n\n| task | stratum | baseline | candidate | feedback on the candidate |\n| --- | --- | ---: | ---: | --- |"
        );
        for loss in &report.admission.losses {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                esc(&loss.task_id),
                esc(loss.stratum.as_deref().unwrap_or("")),
                number(loss.baseline_score),
                number(loss.candidate_score),
                markdown_clipped(
                    loss.candidate_feedback.as_deref().unwrap_or(""),
                    FEEDBACK_CHARS
                )
            );
        }
    }
    let _ = writeln!(
        md,
        "\n### Inputs\n\n| role | path | SHA-256 |\n| --- | --- | --- |"
    );
    for input in &report.inputs {
        let _ = writeln!(
            md,
            "| {} | {} | `{}` |",
            input.role,
            esc(&input.path),
            input.sha256
        );
    }
    md
}
