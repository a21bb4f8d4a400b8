//! The report's SVG plots, drawn by [`crate::plot`]: the paired outcomes
//! (`outcomes.svg`), each stratum's difference with its interval (`strata.svg`) and
//! the minimum detectable shift against n with this run's n marked (`power.svg`). This
//! module only fills the plots' input structs from the report and the pairs.

use super::Report;
use crate::admission::rows::PairRows;
use crate::plot::{
    OutcomesPlot, PowerPlot, Scatter, StrataPlot, StratumRow, outcomes_svg, power_svg, strata_svg,
};

/// The plot files of a report folder with the titles `admission.md` links them by, in
/// the order [`render`] returns them.
pub(crate) const PLOTS: [(&str, &str); 3] = [
    ("outcomes.svg", "paired outcomes"),
    ("strata.svg", "difference by stratum"),
    ("power.svg", "minimum detectable shift"),
];

/// A plot file: drawn whole, or the paired-scores plot, drawn a dot a pair from the
/// pairs as they are read ([`write_scatter`]).
pub(crate) enum Plot {
    /// The file's text.
    Whole(String),
    /// The paired-scores plot of the pairs.
    Scatter,
}

/// The plot files of a report folder, by name, in a fixed order, each drawn whole.
pub(crate) fn render(report: &Report, pairs: Option<&PairRows>) -> Vec<(&'static str, String)> {
    plots(report, pairs.is_some())
        .into_iter()
        .map(|(name, plot)| {
            let text = match plot {
                Plot::Whole(text) => text,
                Plot::Scatter => {
                    let mut bytes = Vec::new();
                    let pairs = pairs.expect("a scatter is planned only with pairs");
                    write_scatter(pairs, &mut bytes).expect("writing to memory cannot fail");
                    String::from_utf8(bytes).expect("a plot is UTF-8")
                }
            };
            (name, text)
        })
        .collect()
}

/// Writes the paired-scores plot of `pairs`, a dot a pair, in task order.
pub(crate) fn write_scatter(pairs: &PairRows, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let scatter = Scatter::new();
    out.write_all(scatter.head().as_bytes())?;
    let mut dots = String::with_capacity(1 << 16);
    pairs.each(&mut |pair| {
        scatter.point(pair.baseline.score, pair.candidate.score, &mut dots);
        if dots.len() >= 1 << 16 {
            out.write_all(dots.as_bytes())?;
            dots.clear();
        }
        Ok(())
    })?;
    out.write_all(dots.as_bytes())?;
    out.write_all(scatter.tail().as_bytes())
}

/// The plot files of a report folder, by name, in a fixed order: the paired-scores
/// plot (when the pairs are at hand, `pairs`, and no McNemar cells are drawn instead)
/// left to be drawn from the pairs.
pub(crate) fn plots(report: &Report, pairs: bool) -> Vec<(&'static str, Plot)> {
    let outcomes = match (
        report.admission.discordant,
        report.admission.baseline.correct,
    ) {
        (Some(d), Some(baseline_correct)) => Some({
            // The baseline's correct tasks are the both-right ones plus b.
            let both_right = baseline_correct.saturating_sub(d.baseline_only);
            let n = report.admission.n as u64;
            Plot::Whole(outcomes_svg(&OutcomesPlot::Cells {
                both_right,
                baseline_only: d.baseline_only,
                candidate_only: d.candidate_only,
                both_wrong: n.saturating_sub(both_right + d.baseline_only + d.candidate_only),
            }))
        }),
        // Scores without their pairs (a summary) cannot be drawn one point per pair.
        _ => pairs.then_some(Plot::Scatter),
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
    if let Some(outcomes) = outcomes {
        files.push(("outcomes.svg", outcomes));
    }
    files.push(("strata.svg", Plot::Whole(strata_svg(&strata))));
    files.push(("power.svg", Plot::Whole(power_svg(&power))));
    files
}
