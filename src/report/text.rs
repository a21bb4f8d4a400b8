//! `--format text` (the default): the verdict and reasons first, then the figures a
//! person checks, one per line. Text from inputs is flattened with [`escape::plain`] so
//! it cannot move the terminal's cursor.
//!
//! [`escape::plain`]: super::escape::plain

use std::fmt::Write;

use super::Report;
use super::escape::plain;
use super::markdown::{interval, interval_note, test_words};
use crate::admission::{Check, OutcomeCounts, Verdict};
use crate::base::numbers::{count, number, p_value, shift, signed};

/// Renders the report as plain text.
pub(crate) fn render(report: &Report) -> String {
    let mut text = String::new();
    let failed = report
        .admission
        .evidence
        .iter()
        .filter(|e| e.result == Check::Fail)
        .count();
    let _ = match report.admission.verdict {
        Verdict::Admitted => writeln!(
            text,
            "admitted: all {} criteria pass",
            report.admission.evidence.len()
        ),
        Verdict::Refused => writeln!(
            text,
            "refused: {failed} of {} criteria fail",
            report.admission.evidence.len()
        ),
        Verdict::Inconclusive => writeln!(
            text,
            "inconclusive: {failed} of {} criteria fail; {} would give 80% power for the observed shift",
            report.admission.evidence.len(),
            report
                .admission
                .tasks_needed
                .map_or("more tasks".to_string(), |n| format!(
                    "about {}",
                    count(n, "task")
                ))
        ),
    };
    for reason in &report.admission.reasons {
        let _ = writeln!(text, "  - {}", plain(reason));
    }
    let question = &report.admission.question;
    let _ = writeln!(
        text,
        "question:   {} -> {}",
        question.words,
        question.answer(report.admission.verdict)
    );
    if let Some(t) = &report.admission.margin_tests {
        let _ = writeln!(
            text,
            "margin:     p_noninferiority {}, p_nonsuperiority {}, p_equivalence {} ({})",
            p_value(t.p_noninferiority),
            p_value(t.p_nonsuperiority),
            p_value(t.p_equivalence),
            t.method
        );
    }
    let confidence = number(report.admission.delta.confidence * 100.0);
    let _ = writeln!(
        text,
        "test:       {}, one-sided at alpha {}, {}",
        test_words(report).replace('`', ""),
        crate::base::numbers::level(report.admission.alpha),
        count(report.admission.n as u64, "pair")
    );
    let correct = |c: Option<u64>| c.map_or(String::new(), |c| format!(", {c} correct"));
    let _ = writeln!(
        text,
        "baseline:   mean {}{}\ncandidate:  mean {}{}",
        signed(report.admission.baseline.mean),
        correct(report.admission.baseline.correct),
        signed(report.admission.candidate.mean),
        correct(report.admission.candidate.correct)
    );
    let outcomes = |arm: &Option<OutcomeCounts>| {
        arm.as_ref()
            .map_or("no outcome column".to_string(), |counts| {
                let named: Vec<String> = counts
                    .each()
                    .iter()
                    .filter(|(_, count)| *count > 0)
                    .map(|(name, count)| format!("{count} {name}"))
                    .collect();
                if named.is_empty() {
                    "no tasks".to_string()
                } else {
                    named.join(", ")
                }
            })
    };
    if report.admission.baseline.outcomes.is_some() || report.admission.candidate.outcomes.is_some()
    {
        let _ = writeln!(
            text,
            "outcomes:   baseline {}; candidate {}",
            outcomes(&report.admission.baseline.outcomes),
            outcomes(&report.admission.candidate.outcomes)
        );
    }
    if let Some(d) = report.admission.discordant {
        let _ = writeln!(
            text,
            "discordant: b {} (baseline only), c {} (candidate only)",
            d.baseline_only, d.candidate_only
        );
    }
    let _ = writeln!(
        text,
        "difference: {} in {} ({confidence}% interval)\np-values:   improvement {}, regression {}, two-sided {}",
        interval(&report.admission.delta),
        report.admission.test.metric.words(),
        p_value(report.admission.tails.p_improvement),
        p_value(report.admission.tails.p_regression),
        p_value(report.admission.tails.p_two_sided)
    );
    if let Some(note) = interval_note(report) {
        let _ = writeln!(text, "            {}", plain(&note));
    }
    if let Some(column) = &report.admission.strata_column {
        let _ = writeln!(
            text,
            "strata by {} ({}; difference = candidate − baseline, {confidence}% interval):",
            plain(column),
            report.admission.test.metric.words()
        );
        for s in &report.admission.strata {
            let arm = |correct: Option<u64>, mean: f64| match (correct, s.n) {
                (Some(c), n) if n > 0 => format!("{c} ({})", signed(c as f64 / n as f64)),
                _ => signed(mean),
            };
            let _ = writeln!(
                text,
                "  {:<14} n {:>4}  baseline {:<12} candidate {:<12} difference {:<26} p_regression {}{}{}{}",
                plain(&s.value),
                s.n,
                arm(s.baseline_correct, s.baseline_mean),
                arm(s.candidate_correct, s.candidate_mean),
                interval(&s.delta),
                p_value(s.tails.p_regression),
                if s.significant_regression {
                    "  REGRESSED"
                } else {
                    ""
                },
                s.p_noninferiority.map_or(String::new(), |p| format!(
                    "  p_noninferiority {}",
                    p_value(p)
                )),
                if s.margin_holds == Some(false) {
                    "  BELOW MARGIN"
                } else {
                    ""
                }
            );
            if let Some(note) = &s.note {
                let _ = writeln!(text, "    note: {}", plain(note));
            }
        }
    }
    match report.admission.min_detectable_shift {
        Some(detectable) => {
            let _ = writeln!(
                text,
                "power:      minimum detectable shift {} ({})",
                shift(detectable),
                crate::base::numbers::SHIFT_UNIT
            );
        }
        None => {
            let _ = writeln!(text, "power:");
        }
    }
    let _ = writeln!(text, "  {}", plain(&report.admission.power));
    if let Some(c) = &report.admission.cluster {
        let _ = writeln!(
            text,
            "clusters:   {} by {}{}, p_improvement {}, design effect {} ({})",
            c.clusters,
            c.column,
            if c.decides { " (deciding)" } else { "" },
            crate::base::numbers::p_value(c.tails.p_improvement),
            c.design_effect
                .map_or("not defined".to_string(), |d| format!("{d:.2}")),
            super::markdown::DESIGN_EFFECT_MEANS
        );
        if let Some(w) = &c.warning {
            let _ = writeln!(text, "  warning: {w}");
        }
    }
    super::repeats::text(&mut text, report);
    if let Some(l) = &report.ledger {
        let _ = writeln!(
            text,
            "ledger:     attempt {} on this holdout{}, alpha {} (alpha left {})",
            l.attempt,
            if l.repeated {
                ", repeated (no new attempt spent)"
            } else {
                ""
            },
            crate::base::numbers::p_value(l.alpha_this_attempt),
            crate::base::numbers::p_value(l.alpha_left)
        );
    }
    let _ = writeln!(text, "evidence:");
    for e in &report.admission.evidence {
        let result = match e.result {
            Check::Pass => "pass",
            Check::Fail => "FAIL",
        };
        let _ = writeln!(
            text,
            "  {result}  {:<24} {}",
            e.criterion.name(),
            plain(&e.proof)
        );
    }
    text
}
