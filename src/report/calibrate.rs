//! `evogate calibrate`'s report (`evogate/calibrate/v1`): [`CalibrationReport`] with
//! the doc comments on its fields is the schema of `calibrate.json` (written by
//! [`super::json::rounded`]); the text for the terminal and the Markdown
//! (`calibrate.md`) render it and compute nothing. Run names, item ids and strata come
//! from inputs: flattened with [`super::escape::plain`] in text and escaped with
//! [`super::escape::markdown`] in Markdown.

use std::fmt::Write;

use serde::Serialize;

use super::InputFile;
use super::escape::{markdown as esc, plain};
use crate::admission::calibration::{Flips, Noise};
use crate::admission::{TestInfo, TestedMetric, Verdict};
use crate::base::numbers::{level, p_value, shift, signed};

/// The schema name of `calibrate.json`.
pub(crate) const SCHEMA: &str = "evogate/calibrate/v1";

/// Items listed in the Markdown's table of flipping items (the JSON lists all).
pub(crate) const SHOWN_ITEMS: usize = 25;

/// Flipping items listed in the text output.
pub(crate) const SHOWN_TEXT_ITEMS: usize = 10;

/// One run: a scores file, or one repeat of a file that holds repeats.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Run {
    /// The run's name: the path as given, with `#r` for repeat r of a file.
    pub name: String,
    /// `A` (a run of the skill) or `placebo` (a run of its neutral edit).
    pub arm: &'static str,
}

/// The gate's decision on one ordered pair of runs, as `admit` takes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PairVerdict {
    /// The run in the baseline's place.
    pub baseline: String,
    /// The run in the candidate's place.
    pub candidate: String,
    /// `A/A`, `A/placebo` or `placebo/A`.
    pub arms: &'static str,
    /// `admitted`, `refused` or `inconclusive`.
    pub verdict: Verdict,
    /// The one-sided p-value for improvement.
    pub p_improvement: f64,
    /// The one-sided p-value for regression.
    pub p_regression: f64,
    /// candidate − baseline in the test's metric.
    pub difference: f64,
    /// McNemar's b and c (0/1 outcomes only).
    pub discordant: Option<(u64, u64)>,
}

/// How many ordered pairs of each kind got each verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct VerdictCounts {
    /// Pairs admitted: every one is a false admission, since nothing changed.
    pub admitted: u64,
    /// Pairs refused.
    pub refused: u64,
    /// Pairs inconclusive.
    pub inconclusive: u64,
}

impl VerdictCounts {
    /// The counts of `verdicts`.
    pub(crate) fn of<'a>(verdicts: impl Iterator<Item = &'a PairVerdict>) -> VerdictCounts {
        let mut counts = VerdictCounts::default();
        for v in verdicts {
            match v.verdict {
                Verdict::Admitted => counts.admitted += 1,
                Verdict::Refused => counts.refused += 1,
                Verdict::Inconclusive => counts.inconclusive += 1,
            }
        }
        counts
    }
}

/// `calibrate.json`: its fields are the schema, in this order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CalibrationReport {
    /// Always `evogate/calibrate/v1`.
    pub schema: &'static str,
    /// `quiet` when the gate admits no A/A pair (exit 0), `noisy` when it admits one or
    /// more (exit 1).
    pub verdict: &'static str,
    /// What the figures say, as sentences.
    pub findings: Vec<String>,
    /// The level of every test.
    pub alpha: f64,
    /// The power at which `noise.detectable_shift` is stated.
    pub power: f64,
    /// The test the gate ran on every pair (as `admit` reports it).
    pub test: TestInfo,
    /// Items in every run.
    pub items: u64,
    /// The runs, A runs first.
    pub runs: Vec<Run>,
    /// The flips among the A runs.
    pub flips: Flips,
    /// What that noise lets the gate see.
    pub noise: Noise,
    /// The verdicts on the ordered A/A pairs.
    pub aa: VerdictCounts,
    /// The verdicts on the ordered pairs of an A run and a placebo run (both ways); null
    /// without a placebo.
    pub placebo: Option<VerdictCounts>,
    /// Every ordered pair's verdict: the A/A pairs, then the placebo pairs.
    pub pairs: Vec<PairVerdict>,
    /// Every input file's path as given and SHA-256.
    pub inputs: Vec<InputFile>,
}

/// `--format text`.
pub(crate) fn text(report: &CalibrationReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: the gate admitted {} of {} A/A pairs at alpha {}",
        report.verdict,
        report.aa.admitted,
        count(&report.aa),
        level(report.alpha)
    );
    for finding in &report.findings {
        let _ = writeln!(out, "  - {}", plain(finding));
    }
    let f = &report.flips;
    let _ = writeln!(
        out,
        "flips:      {} of {} items flip across {} runs ({}); mean flip rate {}",
        f.items_that_flip,
        f.items,
        f.runs,
        percent(f.share_that_flip),
        rate(f.flip_rate)
    );
    for s in &f.strata {
        let _ = writeln!(
            out,
            "  {:<14} {} of {} items flip ({}), flip rate {}",
            plain(&s.value),
            s.items_that_flip,
            s.items,
            percent(s.share_that_flip),
            rate(s.flip_rate)
        );
    }
    let flipping: Vec<_> = f
        .per_item
        .iter()
        .filter(|i| i.differing_pairs > 0)
        .collect();
    if !flipping.is_empty() {
        let _ = writeln!(
            out,
            "items:      {}",
            if flipping.len() > SHOWN_TEXT_ITEMS {
                format!(
                    "the {SHOWN_TEXT_ITEMS} of {} flipping items with the highest flip rate (all in the JSON)",
                    flipping.len()
                )
            } else {
                "the items that flip, highest flip rate first".to_string()
            }
        );
        for item in flipping.iter().take(SHOWN_TEXT_ITEMS) {
            let _ = writeln!(
                out,
                "  {:<24} flip rate {}{}",
                plain(&item.task_id),
                rate(item.flip_rate),
                item.runs_correct.map_or_else(
                    || format!(", mean score {}", rate(item.mean_score)),
                    |c| format!(", right in {c} of {} runs", f.runs)
                )
            );
        }
    }
    let _ = writeln!(out, "noise:      {}", noise_words(report));
    let _ = writeln!(out, "pairs:");
    for p in &report.pairs {
        let _ = writeln!(
            out,
            "  {:<9} {} -> {}: {} (p_improvement {}, difference {})",
            p.arms,
            plain(&p.baseline),
            plain(&p.candidate),
            p.verdict.word(),
            p_value(p.p_improvement),
            signed(p.difference)
        );
    }
    out
}

/// The ordered pairs counted.
fn count(c: &VerdictCounts) -> u64 {
    c.admitted + c.refused + c.inconclusive
}

/// A share as a percentage with one decimal: `33.3%`.
pub(crate) fn percent(share: f64) -> String {
    format!("{:.1}%", share * 100.0)
}

/// A rate or a spread: four significant digits, as shifts are written.
pub(crate) fn rate(value: f64) -> String {
    shift(value)
}

/// The noise and the shift the gate tells from it, in words.
pub(crate) fn noise_words(report: &CalibrationReport) -> String {
    let n = &report.noise;
    let spread = match (n.discordance, n.sd) {
        (Some(psi), _) => format!("Two runs disagree on {} of items", percent(psi)),
        (_, Some(sd)) => format!(
            "An item's score difference between two runs has standard deviation {}",
            rate(sd)
        ),
        _ => "no spread measured".to_string(),
    };
    let power = format!("{}%", crate::base::numbers::number(report.power * 100.0));
    let detectable = match (n.detectable_shift, n.method.as_deref()) {
        (Some(s), Some(method)) => format!(
            "the smallest shift the gate tells from this noise with {power} power at alpha {} is {} on {} items ({})",
            level(report.alpha),
            shift(s),
            report.items,
            if method == "exact" {
                "exact power of McNemar's test"
            } else {
                "normal approximation"
            }
        ),
        _ => format!("no shift reaches {power} power on {} items", report.items),
    };
    let best = n.min_detectable_shift.map_or(String::new(), |m| {
        format!("; no shift below {} can show at all", shift(m))
    });
    format!(
        "{spread}; {detectable}{best}. {}",
        crate::base::numbers::SHIFT_UNIT
    )
}

/// `--format markdown` and `calibrate.md`.
pub(crate) fn markdown(report: &CalibrationReport) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "## evogate calibrate: {}\n\nThe gate admitted **{} of {}** A/A pairs (runs of one skill on the same items, where nothing changed) at alpha {}.\n",
        report.verdict,
        report.aa.admitted,
        count(&report.aa),
        level(report.alpha)
    );
    for finding in &report.findings {
        let _ = writeln!(md, "- {}", esc(finding));
    }
    let metric = TestedMetric::of(report.test.name).words();
    let _ = writeln!(
        md,
        "\n**Test:** {} on {} items, as `admit` runs it; differences in {metric}.\n",
        super::markdown::test_words_of(&report.test),
        report.items
    );
    let f = &report.flips;
    let _ = writeln!(
        md,
        "### Flips\n\n{} of {} items flip across {} runs ({}); the mean flip rate (the share of run pairs that differ on an item) is {}.\n",
        f.items_that_flip,
        f.items,
        f.runs,
        percent(f.share_that_flip),
        rate(f.flip_rate)
    );
    if let Some(column) = &f.strata_column {
        let _ = writeln!(
            md,
            "| {} | items | items that flip | share | flip rate |\n| --- | ---: | ---: | ---: | ---: |",
            esc(column)
        );
        for s in &f.strata {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                esc(&s.value),
                s.items,
                s.items_that_flip,
                percent(s.share_that_flip),
                rate(s.flip_rate)
            );
        }
        md.push('\n');
    }
    let flipping: Vec<_> = f
        .per_item
        .iter()
        .filter(|i| i.differing_pairs > 0)
        .collect();
    if !flipping.is_empty() {
        let _ = writeln!(
            md,
            "Items that flip (highest flip rate first{}):\n\n| item | stratum | flip rate | runs right | mean score |\n| --- | --- | ---: | ---: | ---: |",
            if flipping.len() > SHOWN_ITEMS {
                format!("; {SHOWN_ITEMS} of {}, all in the JSON", flipping.len())
            } else {
                String::new()
            }
        );
        for item in flipping.iter().take(SHOWN_ITEMS) {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                esc(&item.task_id),
                esc(item.stratum.as_deref().unwrap_or("")),
                rate(item.flip_rate),
                item.runs_correct
                    .map_or(String::new(), |c| format!("{c} of {}", f.runs)),
                rate(item.mean_score)
            );
        }
        md.push('\n');
    }
    // Numbers and fixed words only: nothing from the inputs to escape.
    let _ = writeln!(md, "### Noise\n\n{}\n", noise_words(report));
    let _ = writeln!(
        md,
        "### Verdicts on every pair of runs\n\n| baseline | candidate | arms | verdict | p_improvement | p_regression | difference | b, c |\n| --- | --- | --- | --- | ---: | ---: | ---: | --- |"
    );
    for p in &report.pairs {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            esc(&p.baseline),
            esc(&p.candidate),
            p.arms,
            if p.verdict == Verdict::Admitted {
                "**admitted**"
            } else {
                p.verdict.word()
            },
            p_value(p.p_improvement),
            p_value(p.p_regression),
            signed(p.difference),
            p.discordant
                .map_or(String::new(), |(b, c)| format!("{b}, {c}"))
        );
    }
    super::markdown::inputs_table(&mut md, &report.inputs);
    md
}
