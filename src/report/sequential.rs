//! `admission.json` of `admit --sequential` (schema `evogate/sequential/v1`) and its
//! text and Markdown: where the monitoring stands after the pairs scored so far, in the
//! order fixed before scoring. The struct's field docs are the schema; the writers
//! compute nothing.

use std::fmt::Write;

use serde::Serialize;

use super::escape::{markdown, plain};
use super::{InputFile, LedgerInfo};
use crate::base::numbers::{count, number, p_value, plural, signed};

/// The schema name of a sequential report.
pub(crate) const SCHEMA: &str = "evogate/sequential/v1";

/// The largest e-value written; beyond it the report says this (JSON has no infinity).
pub(crate) const E_VALUE_CAP: f64 = 1e300;

/// A sequential admission report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SequentialReport {
    /// Always `evogate/sequential/v1`.
    pub schema: String,
    /// `admitted` (exit 0), `refused` (exit 1) or `continue` (exit 3: score more tasks).
    pub verdict: String,
    /// Why it stopped, or why it goes on, in one sentence.
    pub reason: String,
    /// The e-processes' data: `mcnemar` (0/1 `correct`: the discordant pairs) or
    /// `signed-rank` (scores: the mean difference in [−1, 1]), named after the exact
    /// test of the last look.
    pub test: String,
    /// The level: the chance of admitting a candidate that is not better, however often
    /// one looks.
    pub alpha: f64,
    /// Refused early once the upper bound on the improvement is at or below this.
    pub margin: f64,
    /// The tasks of the order (the holdout): the last look is at this many pairs.
    pub holdout_tasks: u64,
    /// The pairs scored in both files, a prefix of the order.
    pub pairs_scored: u64,
    /// The look that decided (1-based: the pairs it had seen), or the last look taken
    /// when the verdict is `continue`. Pairs after a deciding look are not used.
    pub look: u64,
    /// The improvement e-value at `look` (capped at 1e300).
    pub e_value: f64,
    /// log10 of the improvement e-value, uncapped.
    pub log10_e_value: f64,
    /// The e-value at which the candidate is admitted: 1/alpha for `correct`,
    /// 1/(alpha · share) for scores.
    pub threshold: f64,
    /// The anytime-valid bounds on the mean paired difference (candidate − baseline) at
    /// `look`, each at one-sided level alpha, valid at every look at once.
    pub interval: SequentialInterval,
    /// The mean paired difference at `look`.
    pub mean_difference: f64,
    /// While `continue`: an estimate of the further tasks the e-value needs if the
    /// pairs to come look like those so far (absent when no improvement is in sight).
    pub tasks_needed: Option<u64>,
    /// The exact test of the last look, when every task was scored undecided.
    pub final_look: Option<FinalLookReport>,
    /// Each stratum's regression e-value at `look` (refused when one reaches 1/alpha).
    pub strata: Vec<StratumEvidence>,
    /// This run's attempt in the holdout-reuse ledger: opened by its first look,
    /// continued by its later looks, closed by the deciding one.
    pub ledger: Option<LedgerInfo>,
    /// Every input's path as given and SHA-256.
    pub inputs: Vec<InputFile>,
}

/// Anytime-valid bounds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SequentialInterval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Two-sided confidence, 1 − 2·alpha.
    pub confidence: f64,
}

/// The exact test of the last look.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct FinalLookReport {
    /// What it is, in words.
    pub method: String,
    /// The level it was run at: what the e-process left over.
    pub alpha: f64,
    /// Its p-value (for `correct`: of the whole procedure, early stops included).
    pub p_value: f64,
    /// The one-look exact p-value of the same pairs, what `admit` reports for them
    /// (for `correct` never above `p_value`; for scores the same).
    pub fixed_n_p_value: f64,
    /// Whether it showed the improvement.
    pub shown: bool,
}

/// One stratum's regression e-process.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StratumEvidence {
    /// The stratum's value (untrusted text).
    pub stratum: String,
    /// Its pairs up to `look`.
    pub pairs: u64,
    /// Its regression e-value (capped at 1e300).
    pub e_value: f64,
}

/// Renders the report as plain text: the verdict line first.
pub(crate) fn text(report: &SequentialReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: {}", report.verdict, plain(&report.reason));
    for line in lines(report) {
        let _ = writeln!(out, "  {}", plain(&line));
    }
    out
}

/// Renders the report as Markdown (`admission.md`, the step summary).
pub(crate) fn markdown_report(report: &SequentialReport, plot: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Sequential admission: {}\n", report.verdict);
    let _ = writeln!(out, "{}\n", markdown(&report.reason));
    for line in lines(report) {
        let _ = writeln!(out, "- {}", markdown(&line));
    }
    if let Some(file) = plot {
        let _ = writeln!(out, "\n![e-value path against the threshold]({file})");
    }
    out
}

/// The figures, one sentence each, shared by the text and the Markdown.
fn lines(report: &SequentialReport) -> Vec<String> {
    let mut lines = vec![
        format!(
            "look {}: {} of {} holdout task{} used ({} scored)",
            report.look,
            report.look,
            report.holdout_tasks,
            plural(report.holdout_tasks),
            report.pairs_scored
        ),
        format!(
            "e-value {} against the threshold {} (alpha {}; {})",
            e_value(report.e_value, report.log10_e_value),
            number(report.threshold),
            number(report.alpha),
            report.test
        ),
        format!(
            "mean difference {}, anytime-valid {}% interval [{}, {}]",
            signed(report.mean_difference),
            number(report.interval.confidence * 100.0),
            signed(report.interval.low),
            signed(report.interval.high)
        ),
    ];
    if report.verdict == "continue" {
        lines.push(match report.tasks_needed {
            Some(n) => {
                let left = report.holdout_tasks.saturating_sub(report.pairs_scored);
                if n > left {
                    format!(
                        "about {n} more task{} if the pairs to come look like these, more than the {left} the holdout has left: the e-value is unlikely to decide before the last look, at {}, which decides with the exact test",
                        plural(n),
                        report.holdout_tasks
                    )
                } else {
                    format!(
                        "about {n} more task{} if the pairs to come look like these (the last look is at {})",
                        plural(n),
                        report.holdout_tasks
                    )
                }
            }
            None => "no improvement in sight: the e-value is not growing".to_string(),
        });
    }
    if let Some(last) = &report.final_look {
        let shown = if last.shown { "shown" } else { "not shown" };
        lines.push(if report.test == "mcnemar" {
            format!(
                "last look: {} at alpha {} (what the early looks left of {}), p {} for the whole procedure against alpha {}: {shown}; admit gives these counts p {}, smaller because it looks once, while this p also counts every earlier look at which the e-value would have admitted",
                last.method,
                number(last.alpha),
                number(report.alpha),
                p_value(last.p_value),
                number(report.alpha),
                p_value(last.fixed_n_p_value)
            )
        } else {
            // A p below its alpha not shown: the mean decided, as it does in `admit`.
            let shown = if !last.shown && last.p_value < last.alpha {
                format!(
                    "not shown, as the mean difference {} is not positive (admit refuses these pairs too)",
                    signed(report.mean_difference)
                )
            } else {
                shown.to_string()
            };
            format!(
                "last look: {} at alpha {} (what the e-process left of {}), p {}: {shown}; it is the p admit gives these pairs, held to the smaller alpha because the e-process spent the rest",
                last.method,
                number(last.alpha),
                number(report.alpha),
                p_value(last.p_value)
            )
        });
    }
    if report.verdict == "admitted" && report.interval.low <= 0.0 {
        lines.push(format!(
            "the {}% interval holds 0 although admitted: it is anytime-valid, holding at every look at once, so it is wider than a one-look interval; the verdict comes from the e-value or the exact test of the last look",
            number(report.interval.confidence * 100.0)
        ));
    }
    for stratum in &report.strata {
        lines.push(format!(
            "stratum {}: {}, regression e-value {}",
            stratum.stratum,
            count(stratum.pairs, "pair"),
            number(stratum.e_value)
        ));
    }
    if let Some(ledger) = &report.ledger {
        lines.push(format!(
            "ledger {}: attempt {} on this holdout at alpha {}{}",
            ledger.path,
            ledger.attempt,
            number(ledger.alpha_this_attempt),
            if report.verdict == "continue" {
                " (open: spent whether or not the run goes on; a later look on these pairs and more continues it)"
            } else if ledger.repeated {
                " (a repeat of that attempt: nothing spent)"
            } else {
                ""
            }
        ));
    }
    lines
}

/// An e-value for a sentence: plain below a million, else as a power of ten.
fn e_value(value: f64, log10: f64) -> String {
    if value < 1e6 {
        number(value)
    } else {
        format!("10^{}", number((log10 * 10.0).floor() / 10.0))
    }
}

/// `evogate power --sequential` (schema `evogate/power-sequential/v1`): a sequential
/// design's cost at one shift, beside the fixed-n exact test's n.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SequentialPowerReport {
    /// Always `evogate/power-sequential/v1`.
    pub schema: &'static str,
    /// The level.
    pub alpha: f64,
    /// The true shift δ (share correct, candidate − baseline).
    pub shift: f64,
    /// The share of pairs that disagree, ψ.
    pub discordance: f64,
    /// The holdout: the last look.
    pub holdout: u64,
    /// The fixed-n exact McNemar test's smallest n with 80% power at this shift.
    pub fixed_n_for_80_power: Option<u64>,
    /// The fixed-n exact test's power on the whole holdout.
    pub fixed_n_power_at_holdout: Option<f64>,
    /// The sequential design, by simulation.
    pub sequential: crate::stats::sequential::Operating,
    /// The Monte-Carlo error of `sequential.power`: its 95% Wilson interval over the
    /// simulated runs.
    pub power_monte_carlo_95: SequentialInterval,
}

/// The text of `power --sequential`.
pub(crate) fn power_text(report: &SequentialPowerReport) -> String {
    let s = &report.sequential;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "sequential admission at alpha {}, shift {}, discordance {}, holdout {} ({} simulated runs):",
        number(report.alpha),
        number(report.shift),
        number(report.discordance),
        report.holdout,
        s.runs
    );
    let _ = writeln!(
        out,
        "  tasks to a decision: mean {}, median {}, 90th percentile {}",
        number((s.mean_tasks * 10.0).round() / 10.0),
        s.median_tasks,
        s.p90_tasks
    );
    let percent = |p: f64| number((p * 1000.0).round() / 10.0);
    let error = &report.power_monte_carlo_95;
    let _ = writeln!(
        out,
        "  admitted in {}% of runs (Monte-Carlo error: 95% interval {}% to {}% over {} runs)",
        percent(s.power),
        percent(error.low),
        percent(error.high),
        s.runs
    );
    let fixed = match (report.fixed_n_for_80_power, report.fixed_n_power_at_holdout) {
        (Some(n), Some(p)) => format!(
            "  fixed-n exact test: {} for 80% power; {}% power on {}",
            count(n, "task"),
            number((p * 1000.0).round() / 10.0),
            if report.holdout == 1 {
                "the one task".to_string()
            } else {
                format!("all {} tasks", report.holdout)
            }
        ),
        (Some(n), None) => format!("  fixed-n exact test: {} for 80% power", count(n, "task")),
        _ => "  fixed-n exact test: no n up to its limit reaches 80% power".to_string(),
    };
    let _ = writeln!(out, "{fixed}");
    out
}
