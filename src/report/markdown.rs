//! `admission.md`, `--format markdown` and the GitHub step summary: the verdict on the
//! first line, then the reasons, the test, the per-stratum table, the power sentence,
//! the evidence, the candidate's losses and the inputs with their SHA-256. Every piece
//! of text that came from an input goes through [`super::escape::markdown`].

use std::fmt::Write;

use super::escape::{markdown as esc, markdown_clipped};
use super::{InputFile, Report};
use crate::admission::SHOWN_LOSSES;
use crate::admission::{
    Check, Criterion, Delta, OutcomeCounts, TestInfo, TestMethod, TestName, TestedMetric,
};
use crate::base::numbers::{number, p_value, shift, signed};

/// What the design effect is, said where it is printed.
pub(crate) const DESIGN_EFFECT_MEANS: &str = "the variance of the mean difference with the tasks of a group moving together, over its variance were every task independent; above 1 the task-level p-value overstates the evidence";

/// Characters of feedback shown per loss.
const FEEDBACK_CHARS: usize = 160;

/// The test in words, e.g. `McNemar's exact test`.
pub(crate) fn test_words(report: &Report) -> String {
    test_words_of(&report.admission.test)
}

/// [`test_words`] of a test alone (`calibrate` reports the test of many admissions).
pub(crate) fn test_words_of(test: &TestInfo) -> String {
    let method = match test.method {
        TestMethod::Exact => "exact",
        TestMethod::Saddlepoint => "saddlepoint approximation",
    };
    match test.name {
        TestName::McNemar => format!("McNemar's test ({method}) on `correct`"),
        TestName::SignedRank => format!(
            "Wilcoxon signed-rank test ({method}, zeros: {}) on `score`",
            test.zero_method.as_deref().unwrap_or("wilcox")
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

/// Why the interval can hold 0 beside a significant improvement, said only when it
/// does: the test and the interval are different procedures answering different
/// questions, and the verdict follows the test (docs/reports.md).
pub(crate) fn interval_note(report: &Report) -> Option<String> {
    let admission = &report.admission;
    let significant = admission.evidence.iter().any(|finding| {
        finding.criterion == Criterion::ImprovementSignificant && finding.result == Check::Pass
    });
    let low = admission.delta.low?;
    if !significant || low > 0.0 {
        return None;
    }
    let level = number(admission.delta.confidence * 100.0);
    Some(match admission.test.name {
        TestName::McNemar => format!(
            "The {level}% interval holds 0 although the improvement is significant: the test is McNemar's exact test on the discordant pairs alone, while the interval is Tango's score interval for the difference over all {} pairs, an approximation to another question, and near the edge the two can disagree; the verdict follows the exact test, and --margin is decided by exact tests against the margin, not by the interval.",
            admission.n
        ),
        TestName::SignedRank => format!(
            "The {level}% interval holds 0 although the improvement is significant: the signed-rank test asks whether the differences lean positive by their ranks, while the interval bounds the mean score difference assuming only that scores lie in [0, 1] (a betting interval), which takes more pairs to exclude 0; the verdict follows the test, and --margin is decided by exact tests against the margin, not by the interval."
        ),
    })
}

/// Renders the report as GitHub Flavored Markdown, for stdout and the step summary.
pub(crate) fn render(report: &Report) -> String {
    render_with(report, &[])
}

/// `admission.md` in a report folder: [`render`] with relative links to the `plots`
/// written beside it, as (file name, title).
pub(crate) fn render_in_folder(report: &Report, plots: &[(&str, &str)]) -> String {
    render_with(report, plots)
}

/// `count (proportion)`: `28 (0.8235)`.
/// The `### Inputs` table: each input's role, path (escaped) and SHA-256.
pub(crate) fn inputs_table(md: &mut String, inputs: &[InputFile]) {
    let _ = writeln!(
        md,
        "\n### Inputs\n\n| role | path | SHA-256 |\n| --- | --- | --- |"
    );
    for input in inputs {
        let _ = writeln!(
            md,
            "| {} | {} | `{}` |",
            input.role,
            esc(&input.path),
            input.sha256
        );
    }
}

fn correct_cell(correct: u64, n: usize) -> String {
    let proportion = if n == 0 {
        0.0
    } else {
        correct as f64 / n as f64
    };
    format!("{correct} ({})", signed(proportion))
}

/// The arms' figures in the metric of the test: each arm's correct count and proportion
/// for McNemar, with the other figures after it; the mean scores for signed-rank.
fn arms_table(md: &mut String, report: &Report) {
    let a = &report.admission;
    let _ = writeln!(md, "| | baseline | candidate |\n| --- | --- | --- |");
    let mean = |md: &mut String, label: &str| {
        let _ = writeln!(
            md,
            "| {label} | {} | {} |",
            signed(a.baseline.mean),
            signed(a.candidate.mean)
        );
    };
    match (a.test.metric, a.baseline.correct, a.candidate.correct) {
        (TestedMetric::ProportionCorrect, Some(b), Some(c)) => {
            let _ = writeln!(
                md,
                "| correct of {} (proportion correct: the tested metric) | {} | {} |",
                a.n,
                correct_cell(b, a.n),
                correct_cell(c, a.n)
            );
            if let Some(d) = a.discordant {
                let _ = writeln!(
                    md,
                    "| right only here | {} | {} |",
                    d.baseline_only, d.candidate_only
                );
            }
            mean(md, "mean score (not tested)");
        }
        _ => mean(md, "mean score (the tested metric)"),
    }
    for (name, baseline, candidate) in outcome_rows(report) {
        let _ = writeln!(
            md,
            "| outcome {name} (not tested) | {baseline} | {candidate} |"
        );
    }
}

/// The outcomes either arm's answers came to, each with its count in both arms (`-`
/// for an arm whose file has no `outcome` column): the rows of the arms table.
fn outcome_rows(report: &Report) -> Vec<(&'static str, String, String)> {
    let a = &report.admission;
    let each = |arm: &Option<OutcomeCounts>| arm.as_ref().map(OutcomeCounts::each);
    let (baseline, candidate) = (each(&a.baseline.outcomes), each(&a.candidate.outcomes));
    let shown = |arm: Option<[(&str, u64); 7]>, at: usize| {
        arm.map_or("-".to_string(), |counts| counts[at].1.to_string())
    };
    let count = |arm: Option<[(&str, u64); 7]>, at: usize| arm.map_or(0, |counts| counts[at].1);
    OutcomeCounts::default()
        .each()
        .iter()
        .enumerate()
        .filter(|&(at, _)| count(baseline, at) + count(candidate, at) > 0)
        .map(|(at, (name, _))| (*name, shown(baseline, at), shown(candidate, at)))
        .collect()
}

/// The per-stratum table in the test's metric, with a `margin` column under
/// `--margin`, and each row's note below it.
fn strata_table(md: &mut String, report: &Report, column: &str, confidence: &str) {
    let a = &report.admission;
    let metric = a.test.metric;
    let arms = match metric {
        TestedMetric::ProportionCorrect => [
            "baseline correct (proportion)",
            "candidate correct (proportion)",
        ],
        TestedMetric::MeanScore => ["baseline mean score", "candidate mean score"],
    };
    let margin_header = a.margin.map_or(String::new(), |m| {
        format!(" non-inferior at {} (p_noninferiority) |", number(m))
    });
    let _ = writeln!(
        md,
        "| {column} | n | {} | {} | difference in {} [{confidence}%] | p_regression | regressed |{margin_header}\n| --- | ---: | ---: | ---: | --- | ---: | --- |{}",
        arms[0],
        arms[1],
        metric.words(),
        if a.margin.is_some() { " --- |" } else { "" }
    );
    for s in &a.strata {
        let (baseline, candidate) = match (metric, s.baseline_correct, s.candidate_correct) {
            (TestedMetric::ProportionCorrect, Some(b), Some(c)) => {
                (correct_cell(b, s.n), correct_cell(c, s.n))
            }
            _ => (signed(s.baseline_mean), signed(s.candidate_mean)),
        };
        let p = s.p_noninferiority.map(p_value).unwrap_or_default();
        let margin = match s.margin_holds {
            Some(true) => format!(" holds ({p}) |"),
            Some(false) => format!(" **fails** ({p}) |"),
            None => String::new(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {baseline} | {candidate} | {} | {} | {} |{margin}",
            esc(&s.value),
            s.n,
            interval(&s.delta),
            p_value(s.tails.p_regression),
            if s.significant_regression {
                "**yes**"
            } else {
                "no"
            }
        );
    }
    let notes: Vec<String> = a
        .strata
        .iter()
        .filter_map(|s| {
            let note = s.note.as_ref()?;
            Some(format!(
                "- {}={}: {}",
                esc(&s.name),
                esc(&s.value),
                esc(note)
            ))
        })
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(md, "\n{}", notes.join("\n"));
    }
    md.push('\n');
}

fn render_with(report: &Report, plots: &[(&str, &str)]) -> String {
    let mut md = String::new();
    let verdict = report.admission.verdict.word();
    let _ = writeln!(md, "## evogate admit: {verdict}\n");
    for reason in &report.admission.reasons {
        let _ = writeln!(md, "- {}", esc(reason));
    }
    let a = &report.admission;
    let _ = writeln!(
        md,
        "\n**Question:** {} **Verdict: {}.**",
        esc(&a.question.words),
        esc(&a.question.answer(a.verdict))
    );
    let confidence = number(report.admission.delta.confidence * 100.0);
    let _ = writeln!(
        md,
        "\n**Test:** {}, one-sided for improvement at alpha {}, on {}.\n",
        test_words(report),
        crate::base::numbers::level(report.admission.alpha),
        crate::base::numbers::count(report.admission.n as u64, "pair")
    );
    if let Some(t) = &a.margin_tests {
        let _ = writeln!(
            md,
            "**Against the margin:** {}: p_noninferiority {}, p_nonsuperiority {}, p_equivalence {} (each one-sided at alpha {}).\n",
            esc(&t.method),
            p_value(t.p_noninferiority),
            p_value(t.p_nonsuperiority),
            p_value(t.p_equivalence),
            crate::base::numbers::level(a.alpha)
        );
    }
    arms_table(&mut md, report);
    let _ = writeln!(
        md,
        "\nDifference in {} (candidate − baseline) {} ({confidence}% interval: {}). p_improvement {}, p_regression {}, two-sided {}.\n",
        report.admission.test.metric.words(),
        interval(&report.admission.delta),
        esc(&report.admission.delta.interval),
        p_value(report.admission.tails.p_improvement),
        p_value(report.admission.tails.p_regression),
        p_value(report.admission.tails.p_two_sided)
    );
    if let Some(note) = interval_note(report) {
        let _ = writeln!(md, "{}\n", esc(&note));
    }
    if !plots.is_empty() {
        let links: Vec<String> = plots
            .iter()
            .map(|(file, title)| format!("[{title}]({file})"))
            .collect();
        let _ = writeln!(md, "Plots: {}.\n", links.join(", "));
    }
    if let Some(column) = &report.admission.strata_column {
        let column = esc(column);
        let _ = writeln!(md, "### Strata by {column}\n");
        strata_table(&mut md, report, &column, &confidence);
    }
    let _ = writeln!(md, "### Power\n\n{}\n", esc(&report.admission.power));
    if let Some(c) = &report.admission.cluster {
        let _ = writeln!(
            md,
            "### Clusters\n\n{} clusters by `{}`{}: signed-rank on cluster mean differences p_improvement {}; design effect {} ({}).{}\n",
            c.clusters,
            c.column,
            if c.decides {
                " (the decision rests on them)"
            } else {
                ""
            },
            crate::base::numbers::p_value(c.tails.p_improvement),
            c.design_effect
                .map_or("not defined".to_string(), |d| format!("{d:.2}")),
            DESIGN_EFFECT_MEANS,
            c.warning
                .as_ref()
                .map_or(String::new(), |w| format!(" **Warning:** {}.", esc(w)))
        );
    }
    super::repeats::markdown(&mut md, report);
    if let Some(l) = &report.ledger {
        let _ = writeln!(
            md,
            "### Holdout reuse\n\nAttempt {} on this holdout{}: decided at alpha {} of the declared {} (spent before {}, left after {}).\n",
            l.attempt,
            if l.repeated {
                ", repeated (these scores files were decided alike on these tasks already, so this run spent no new attempt)"
            } else {
                ""
            },
            crate::base::numbers::p_value(l.alpha_this_attempt),
            crate::base::numbers::level(l.declared_alpha),
            crate::base::numbers::p_value(l.alpha_spent_before),
            crate::base::numbers::p_value(l.alpha_left)
        );
    }
    if let Some(detectable) = report.admission.min_detectable_shift {
        let _ = writeln!(
            md,
            "Minimum detectable shift: {}. {}\n",
            shift(detectable),
            crate::base::numbers::SHIFT_UNIT
        );
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
    if report.inputs.iter().any(|i| i.role == "summary") {
        let _ = writeln!(
            md,
            "\nDecided on a summary (`admit --summary`): the tasks the candidate lost are not listed, since a summary holds no task rows."
        );
    }
    if !report.admission.losses.is_empty() {
        let _ = writeln!(
            md,
            "\n### Where the candidate scored lower (up to {SHOWN_LOSSES})\n\n| task | stratum | baseline score | candidate score | feedback on the candidate |\n| --- | --- | ---: | ---: | --- |"
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
    inputs_table(&mut md, &report.inputs);
    md
}
