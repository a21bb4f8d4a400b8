//! The report's SVG plots, drawn by [`crate::plot`]: the paired outcomes
//! (`outcomes.svg`), each stratum's difference with its interval (`strata.svg`) and
//! the minimum detectable shift against n with this run's n marked (`power.svg`). This
//! module only fills the plots' input structs from the report and the pairs.

use super::Report;
use crate::admission::Pairs;
use crate::plot::{
    OutcomesPlot, PowerPlot, StrataPlot, StratumRow, outcomes_svg, power_svg, strata_svg,
};

/// The plot files of a report folder with the titles `admission.md` links them by, in
/// the order [`render`] returns them.
pub(crate) const PLOTS: [(&str, &str); 3] = [
    ("outcomes.svg", "paired outcomes"),
    ("strata.svg", "difference by stratum"),
    ("power.svg", "minimum detectable shift"),
];

/// The plot files of a report folder, by name, in a fixed order.
pub(crate) fn render(report: &Report, pairs: Option<&Pairs>) -> Vec<(&'static str, String)> {
    let outcomes = match (
        report.admission.discordant,
        report.admission.baseline.correct,
    ) {
        (Some(d), Some(baseline_correct)) => Some({
            // The baseline's correct tasks are the both-right ones plus b.
            let both_right = baseline_correct.saturating_sub(d.baseline_only);
            let n = report.admission.n as u64;
            OutcomesPlot::Cells {
                both_right,
                baseline_only: d.baseline_only,
                candidate_only: d.candidate_only,
                both_wrong: n.saturating_sub(both_right + d.baseline_only + d.candidate_only),
            }
        }),
        // Scores without their pairs (a summary) cannot be drawn one point per pair.
        _ => pairs.map(|pairs| OutcomesPlot::Pairs {
            pairs: pairs
                .pairs
                .iter()
                .map(|p| (p.baseline.score, p.candidate.score))
                .collect(),
        }),
    };
    let row = |label: String, delta: &crate::admission::Delta, marks: (bool, bool)| StratumRow {
        label,
        estimate: delta.estimate,
        low: delta.low,
        high: delta.high,
        significant_regression: marks.0,
        below_margin: marks.1,
    };
    // Unstratified, the regression criterion is the overall test: the decision's own
    // verdict on it is drawn, never recomputed here.
    let failed = |criterion: crate::admission::Criterion| {
        report.admission.strata.is_empty()
            && report
                .admission
                .evidence
                .iter()
                .any(|e| e.criterion == criterion && e.result == crate::admission::Check::Fail)
    };
    let overall = (
        failed(crate::admission::Criterion::NoStratumRegressed),
        failed(crate::admission::Criterion::MarginHolds),
    );
    let rows = std::iter::once(row("overall".to_string(), &report.admission.delta, overall))
        .chain(report.admission.strata.iter().map(|s| {
            row(
                format!("{}={}", s.name, s.value),
                &s.delta,
                (s.significant_regression, s.margin_holds == Some(false)),
            )
        }))
        .collect();
    let strata = StrataPlot {
        metric: report.admission.test.metric.words().to_string(),
        confidence: report.admission.delta.confidence,
        rows,
        margin: report.admission.margin,
    };
    let power = PowerPlot {
        alpha: report.admission.alpha,
        n: report.admission.n as u64,
        min_discordant: report.admission.min_discordant,
    };
    let mut files = Vec::with_capacity(3);
    if let Some(outcomes) = &outcomes {
        files.push(("outcomes.svg", outcomes_svg(outcomes)));
    }
    files.push(("strata.svg", strata_svg(&strata)));
    files.push(("power.svg", power_svg(&power)));
    files
}
