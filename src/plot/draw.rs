//! The drawing itself. Each function renders into a string through plotters'
//! `SVGBackend`; errors from the backend cannot occur when writing to memory, and if
//! one did the plot would be an SVG that says so rather than a panic.

use std::fmt::Write as _;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{EValuePlot, OutcomesPlot, PowerPlot, StrataPlot};
use crate::base::bidi::is_bidi_control;

const SIZE: (u32, u32) = (640, 400);
const FONT: &str = "sans-serif";

/// A font whose size reaches the SVG as `px` exactly: plotters writes the size it is
/// given divided by 1.24, so 20 would come out as 16.129032258064516.
/// A `FontDesc`, not a `(family, size)` pair, because axis labels round a pair's size
/// to whole pixels before dividing.
fn font(px: f64) -> FontDesc<'static> {
    (FONT, px * 1.24).into_font()
}

/// Axis labels and descriptions.
const LABEL_PX: f64 = 10.0;
const CANDIDATE: RGBColor = RGBColor(31, 119, 180);
const BASELINE: RGBColor = RGBColor(214, 39, 40);
const GREY: RGBColor = RGBColor(140, 140, 140);
const MARGIN: RGBColor = RGBColor(230, 120, 0);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), Box<dyn std::error::Error>>;

fn render(title: &str, draw: impl FnOnce(&Area) -> Drawn) -> String {
    let mut svg = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| Box::new(e) as Box<dyn std::error::Error>)
            .and_then(|()| {
                root.titled(title, font(20.0))
                    .map_err(|e| Box::new(e) as Box<dyn std::error::Error>)
            })
            .and_then(|area| draw(&area))
            .and_then(|()| {
                root.present()
                    .map_err(|e| Box::new(e) as Box<dyn std::error::Error>)
            })
    };
    match result {
        Ok(()) => svg,
        Err(error) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\"><text x=\"10\" y=\"20\">plot failed: {}</text></svg>\n",
            SIZE.0,
            SIZE.1,
            escape(&error.to_string())
        ),
    }
}

/// `text` with every character XML 1.0 forbids (or that only a terminal would act on)
/// shown instead: C0 controls and DEL as their Unicode control pictures (ESC as `␛`),
/// C1 controls and the non-characters U+FFFE and U+FFFF as `�`. Plotters escapes
/// `&<>"'` but passes these through, and one of them makes the whole file invalid.
/// Bidirectional controls ([`is_bidi_control`]) are removed, as in Markdown, so a label
/// is drawn in the order it was written.
pub(super) fn xml_chars(text: &str) -> String {
    text.chars()
        .filter(|&c| !is_bidi_control(c))
        .map(|c| match c {
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
            '\u{7f}' => '\u{2421}',
            '\u{80}'..='\u{9f}' | '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            other => other,
        })
        .collect()
}

/// XML-escapes the text of the fallback document (plotters escapes its own text).
pub(super) fn escape(text: &str) -> String {
    xml_chars(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The paired outcomes: McNemar's four cells as bars (the paired dot plot of scores is
/// [`Scatter`]).
pub(crate) fn outcomes_svg(plot: &OutcomesPlot) -> String {
    match plot {
        OutcomesPlot::Cells {
            both_right,
            baseline_only,
            candidate_only,
            both_wrong,
        } => {
            let cells = [
                ("both right", *both_right, GREY),
                ("baseline only (b)", *baseline_only, BASELINE),
                ("candidate only (c)", *candidate_only, CANDIDATE),
                ("both wrong", *both_wrong, GREY),
            ];
            render("Paired outcomes on correct (McNemar)", |area| {
                let top = cells.iter().map(|c| c.1).max().unwrap_or(0).max(1);
                // One segment per cell, so bars, their counts and their names share a
                // centre.
                let mut chart = ChartBuilder::on(area)
                    .margin(10)
                    .x_label_area_size(35)
                    .y_label_area_size(50)
                    .build_cartesian_2d((0u32..3u32).into_segmented(), 0u64..top + top / 8 + 1)?;
                chart
                    .configure_mesh()
                    .label_style(font(LABEL_PX))
                    .axis_desc_style(font(LABEL_PX))
                    .disable_x_mesh()
                    .x_labels(cells.len())
                    .x_label_formatter(&|x| match x {
                        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => cells
                            .get(*i as usize)
                            .map_or(String::new(), |c| c.0.to_string()),
                        SegmentValue::Last => String::new(),
                    })
                    .x_desc("outcome of each pair")
                    .y_desc("pairs")
                    .draw()?;
                for (index, (_, count, color)) in cells.iter().enumerate() {
                    let x = index as u32;
                    let right = if index + 1 < cells.len() {
                        SegmentValue::Exact(x + 1)
                    } else {
                        SegmentValue::Last
                    };
                    let mut bar = Rectangle::new(
                        [(SegmentValue::Exact(x), 0), (right, *count)],
                        color.mix(0.8).filled(),
                    );
                    bar.set_margin(0, 0, 6, 6);
                    chart.draw_series(std::iter::once(bar))?;
                    chart.draw_series(std::iter::once(Text::new(
                        count.to_string(),
                        (SegmentValue::CenterOf(x), *count),
                        font(14.0)
                            .color(&BLACK)
                            .pos(Pos::new(HPos::Center, VPos::Bottom)),
                    )))?;
                }
                Ok(())
            })
        }
    }
}

/// The paired-scores plot (one dot a pair), written a dot at a time: the frame (title,
/// axes, the diagonal), then each pair's dot, then the end, so that a million pairs
/// are drawn into a file without holding the drawing. The frame is drawn by plotters
/// and each dot placed by the frame's own coordinates, so the bytes are the ones
/// plotters would write for all the dots at once.
pub(crate) struct Scatter {
    /// The document up to its first dot.
    head: String,
    /// After the last dot.
    tail: String,
    /// The chart's coordinates, when the frame was drawn.
    coord: Option<Cartesian2d<RangedCoordf64, RangedCoordf64>>,
}

impl Scatter {
    /// The frame.
    pub(crate) fn new() -> Scatter {
        let mut coord = None;
        let svg = render("Paired scores", |area| {
            let mut chart = ChartBuilder::on(area)
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(45)
                .build_cartesian_2d(0f64..1.02f64, 0f64..1.02f64)?;
            chart
                .configure_mesh()
                .label_style(font(LABEL_PX))
                .axis_desc_style(font(LABEL_PX))
                .x_desc("baseline score")
                .y_desc("candidate score")
                .draw()?;
            chart.draw_series(LineSeries::new(
                [(0.0, 0.0), (1.0, 1.0)],
                GREY.stroke_width(1),
            ))?;
            coord = Some(chart.as_coord_spec().clone());
            Ok(())
        });
        let end = svg.rfind("</svg>").filter(|_| coord.is_some());
        let (head, tail) = match end {
            Some(at) => (svg[..at].to_string(), svg[at..].to_string()),
            None => (svg, String::new()),
        };
        Scatter { head, tail, coord }
    }

    /// The document up to the first dot.
    pub(crate) fn head(&self) -> &str {
        &self.head
    }

    /// After the last dot.
    pub(crate) fn tail(&self) -> &str {
        &self.tail
    }

    /// Appends the dot of one pair (scores clamped to [0, 1], rounded to six
    /// decimals); none for a score that is not finite, or when the frame failed.
    pub(crate) fn point(&self, baseline: f64, candidate: f64, out: &mut String) {
        let Some(coord) = &self.coord else { return };
        if !(baseline.is_finite() && candidate.is_finite()) {
            return;
        }
        let (x, y) = coord.translate(&(
            round(baseline.clamp(0.0, 1.0)),
            round(candidate.clamp(0.0, 1.0)),
        ));
        let _ = writeln!(
            out,
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" opacity=\"0.4\" fill=\"#1F77B4\" stroke=\"none\" stroke-width=\"1\"/>"
        );
    }
}

/// Each stratum's difference with its interval, a line at 0 and one at −margin. Rows
/// are centred in equal bands; a regressed row is red and labelled `(regressed)`, one
/// whose lower bound fails the margin orange and labelled `(below margin)`.
pub(crate) fn strata_svg(plot: &StrataPlot) -> String {
    // Each row with its interval, when both bounds are finite.
    let rows: Vec<_> = plot
        .rows
        .iter()
        .filter(|r| r.estimate.is_finite())
        .map(|r| {
            let interval = r
                .low
                .zip(r.high)
                .filter(|(low, high)| low.is_finite() && high.is_finite());
            let mut marks = String::new();
            if interval.is_none() {
                marks.push_str(" (no interval)");
            }
            if r.significant_regression {
                marks.push_str(" (regressed)");
            }
            if r.below_margin {
                marks.push_str(" (below margin)");
            }
            // The stratum's name is cut to fit, never its marks.
            let room = MAX_LABEL_CHARS.saturating_sub(marks.chars().count()).max(8);
            let label = clip(&xml_chars(&r.label), room) + &marks;
            (r, label, interval)
        })
        .collect();
    // Labels are right-aligned against the axis: the label area is as wide as the
    // longest label needs, at most MAX_LABEL_CHARS (a few more with every mark).
    let longest = rows
        .iter()
        .map(|(_, label, _)| label.chars().count())
        .max()
        .unwrap_or(0);
    let label_area = (longest as f64 * CHAR_WIDTH * LABEL_PX).ceil() as u32 + 15;
    let confidence = crate::base::numbers::number(plot.confidence * 100.0);
    let title = format!("Difference in {} by stratum", plot.metric);
    render(&title, |area| {
        // Row i (from the top) is drawn at the middle of its band, count − i − ½.
        let count = rows.len().max(1) as f64;
        let middle = |index: usize| count - index as f64 - 0.5;
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(label_area)
            .build_cartesian_2d(-1.05f64..1.05f64, 0f64..count)?;
        chart
            .configure_mesh()
            .label_style(font(LABEL_PX))
            .axis_desc_style(font(LABEL_PX))
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(format!(
                "candidate − baseline, with {confidence}% intervals"
            ))
            .draw()?;
        // The row labels, drawn here rather than as axis ticks so that each is centred
        // on its row, right-aligned against the axis.
        let base = area.get_base_pixel();
        for (index, (_, label, _)) in rows.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(-1.05, middle(index)));
            area.draw(&Text::new(
                label.clone(),
                (x - base.0 - 8, y - base.1),
                font(LABEL_PX)
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
        }
        let (bottom, top) = (0.0, count);
        chart.draw_series(LineSeries::new(
            [(0.0, bottom), (0.0, top)],
            BLACK.stroke_width(1),
        ))?;
        if let Some(margin) = plot.margin.filter(|m| m.is_finite()) {
            let x = round(-margin.clamp(0.0, 1.0));
            chart.draw_series(DashedLineSeries::new(
                [(x, bottom), (x, top)],
                6,
                4,
                BASELINE.stroke_width(1),
            ))?;
        }
        for (index, (row, _, interval)) in rows.iter().enumerate() {
            let y = middle(index);
            let color = if row.significant_regression {
                BASELINE
            } else if row.below_margin {
                MARGIN
            } else {
                CANDIDATE
            };
            if let Some((low, high)) = interval {
                chart.draw_series(std::iter::once(PathElement::new(
                    [(round(*low), y), (round(*high), y)],
                    color.stroke_width(2),
                )))?;
            }
            chart.draw_series(std::iter::once(Circle::new(
                (round(row.estimate), y),
                4,
                color.filled(),
            )))?;
        }
        Ok(())
    })
}

/// Approximate width of a character of the sans-serif labels, in font sizes (DejaVu
/// Sans averages about 0.55 em over letters, digits and `=`; 0.6 leaves room).
const CHAR_WIDTH: f64 = 0.6;

/// The longest stratum label drawn whole, in characters: its label area then takes at
/// most about 45% of the plot's width.
const MAX_LABEL_CHARS: usize = 45;

/// `label` cut to `chars` characters, the last of them `…`, when it is longer.
fn clip(label: &str, chars: usize) -> String {
    if label.chars().count() <= chars {
        return label.to_string();
    }
    let mut cut: String = label.chars().take(chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The minimum detectable shift k/n against n on a log axis, this run's n marked.
pub(crate) fn power_svg(plot: &PowerPlot) -> String {
    let k = u64::from(plot.min_discordant.max(1));
    let n = plot.n.max(1);
    let high = (n * 10).max(k * 10);
    render(
        &format!(
            "Minimum detectable shift at alpha {} (best case)",
            crate::base::numbers::level(plot.alpha)
        ),
        |area| {
            let mut chart = ChartBuilder::on(area)
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(50)
                .build_cartesian_2d((1u64..high).log_scale(), 0f64..1.05f64)?;
            chart
                .configure_mesh()
                .label_style(font(LABEL_PX))
                .axis_desc_style(font(LABEL_PX))
                .x_desc("pairs (n)")
                .y_desc("minimum detectable shift (proportion of pairs)")
                .draw()?;
            let steps = 200u32;
            let curve = (0..=steps).filter_map(|i| {
                let x = (k as f64 * (high as f64 / k as f64).powf(f64::from(i) / f64::from(steps)))
                    .round() as u64;
                (x >= k).then(|| (x, round(k as f64 / x as f64)))
            });
            chart.draw_series(LineSeries::new(curve, CANDIDATE.stroke_width(2)))?;
            let label = if n >= k {
                format!(
                    "n = {n}: {}",
                    crate::base::numbers::shift(k as f64 / n as f64)
                )
            } else {
                format!("n = {n}: none (needs {k})")
            };
            let y = if n >= k {
                round(k as f64 / n as f64)
            } else {
                1.0
            };
            chart.draw_series(std::iter::once(Circle::new((n, y), 5, BASELINE.filled())))?;
            chart.draw_series(std::iter::once(Text::new(
                label,
                (n, (y + 0.03).min(1.0)),
                font(12.0)
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            )))?;
            Ok(())
        },
    )
}

/// log10 of the improvement e-value after each look, with the threshold as a line: the
/// run was admitted where the path first meets it.
pub(crate) fn e_value_svg(plot: &EValuePlot) -> String {
    let last = plot.holdout.max(plot.log10_path.len() as u64).max(1);
    let top = plot
        .log10_path
        .iter()
        .copied()
        .fold(plot.log10_threshold, f64::max)
        .min(300.0)
        + 0.5;
    let bottom = plot
        .log10_path
        .iter()
        .copied()
        .fold(-1.0, f64::min)
        .max(-300.0)
        - 0.5;
    render("Improvement e-value by look", |area| {
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0u64..last, bottom..top)?;
        chart
            .configure_mesh()
            .label_style(font(LABEL_PX))
            .axis_desc_style(font(LABEL_PX))
            .x_desc("look (pairs scored, in the fixed order)")
            .y_desc("log10 e-value")
            .draw()?;
        let threshold = round(plot.log10_threshold);
        chart.draw_series(LineSeries::new(
            [(0, threshold), (last, threshold)],
            MARGIN.stroke_width(2),
        ))?;
        let path = std::iter::once((0, 0.0)).chain(
            plot.log10_path
                .iter()
                .enumerate()
                .map(|(i, &y)| (i as u64 + 1, round(y.clamp(bottom, top)))),
        );
        chart.draw_series(LineSeries::new(path, CANDIDATE.stroke_width(2)))?;
        chart.draw_series(std::iter::once(Text::new(
            format!(
                "threshold {}",
                crate::base::numbers::number(10f64.powf(plot.log10_threshold))
            ),
            (0, threshold),
            font(12.0)
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Bottom)),
        )))?;
        Ok(())
    })
}

/// Coordinates rounded to 1e-6 so no float noise reaches the file.
fn round(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

#[cfg(test)]
mod tests {
    use super::super::StratumRow;
    use super::*;

    /// A minimal well-formedness check: every tag closes in order and the root is svg.
    fn assert_well_formed(svg: &str) {
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        // Regression: sizes came out as 9.67741935483871 (plotters divides by 1.24).
        for size in svg.split("font-size=\"").skip(1) {
            let size = &size[..size.find('"').expect("the attribute closes")];
            assert!(size.parse::<u32>().is_ok(), "font-size {size}");
        }
        assert!(svg.contains("width=\"640\"") && svg.contains("height=\"400\""));
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(start) = rest.find('<') {
            let end = rest[start..].find('>').expect("every tag closes") + start;
            let tag = &rest[start + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.trim()),
                    "mismatched </{name}>"
                );
            } else if !tag.ends_with('/') && !tag.starts_with('?') && !tag.starts_with('!') {
                stack.push(
                    tag.split_whitespace()
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                );
            }
            rest = &rest[end + 1..];
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    /// The text content of every `<text>` element.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = &t[t.find('>')? + 1..t.find("</text>")?];
                Some(body.trim().to_string())
            })
            .collect()
    }

    /// Asserts that every one of `wanted` is the whole text of some `<text>` of `svg`.
    fn assert_shows(svg: &str, wanted: &[&str]) {
        let texts = texts(svg);
        for text in wanted {
            assert!(
                texts.iter().any(|t| t == text),
                "missing {text} in {texts:?}"
            );
        }
    }

    #[test]
    fn cells_plot_shows_the_four_counts() {
        let svg = outcomes_svg(&OutcomesPlot::Cells {
            both_right: 40,
            baseline_only: 3,
            candidate_only: 17,
            both_wrong: 76,
        });
        assert_well_formed(&svg);
        assert_shows(
            &svg,
            &[
                "40",
                "3",
                "17",
                "76",
                "candidate only (c)",
                "Paired outcomes on correct (McNemar)",
            ],
        );
        assert_eq!(
            svg,
            outcomes_svg(&OutcomesPlot::Cells {
                both_right: 40,
                baseline_only: 3,
                candidate_only: 17,
                both_wrong: 76
            })
        );
    }

    /// The paired-scores plot drawn a dot at a time.
    fn scatter(pairs: &[(f64, f64)]) -> String {
        let scatter = Scatter::new();
        let mut svg = scatter.head().to_string();
        for &(baseline, candidate) in pairs {
            scatter.point(baseline, candidate, &mut svg);
        }
        svg + scatter.tail()
    }

    /// The paired-scores plot as plotters draws it with every dot at once: the oracle
    /// of [`Scatter`], which draws it a dot at a time.
    fn plotters_scatter(pairs: &[(f64, f64)]) -> String {
        render("Paired scores", |area| {
            let mut chart = ChartBuilder::on(area)
                .margin(10)
                .x_label_area_size(35)
                .y_label_area_size(45)
                .build_cartesian_2d(0f64..1.02f64, 0f64..1.02f64)?;
            chart
                .configure_mesh()
                .label_style(font(LABEL_PX))
                .axis_desc_style(font(LABEL_PX))
                .x_desc("baseline score")
                .y_desc("candidate score")
                .draw()?;
            chart.draw_series(LineSeries::new(
                [(0.0, 0.0), (1.0, 1.0)],
                GREY.stroke_width(1),
            ))?;
            let points = pairs
                .iter()
                .filter(|(b, c)| b.is_finite() && c.is_finite())
                .map(|&(b, c)| {
                    Circle::new(
                        (round(b.clamp(0.0, 1.0)), round(c.clamp(0.0, 1.0))),
                        3,
                        CANDIDATE.mix(0.4).filled(),
                    )
                });
            chart.draw_series(points)?;
            Ok(())
        })
    }

    proptest::proptest! {
        #[test]
        fn dots_written_one_at_a_time_are_the_bytes_plotters_writes_for_all_at_once(
            pairs in proptest::collection::vec(
                (proptest::prop_oneof![proptest::num::f64::ANY, 0.0..=1.0f64, proptest::sample::select(vec![0.0, 1.0, 0.25, 1e-7, 0.9999995, -0.0])],
                 proptest::prop_oneof![proptest::num::f64::ANY, 0.0..=1.0f64, proptest::sample::select(vec![0.0, 1.0, 0.75, 0.5000005])]),
                0..60),
        ) {
            let streamed = scatter(&pairs);
            proptest::prop_assert_eq!(streamed, plotters_scatter(&pairs));
        }
    }

    #[test]
    fn pairs_plot_draws_one_circle_per_finite_pair() {
        let svg = scatter(&[(0.5, 1.0), (0.0, 0.75), (f64::NAN, 1.0)]);
        assert_well_formed(&svg);
        assert_eq!(svg.matches("<circle").count(), 2);
    }

    #[test]
    fn a_stratum_holding_esc_bel_and_control_bytes_still_makes_valid_xml() {
        let plot = StrataPlot {
            rows: vec![StratumRow {
                label: "kind=\u{1b}[2J\u{7}\u{1}x\u{85}\u{7f}".into(),
                estimate: 0.1,
                low: Some(0.0),
                high: Some(0.2),
                significant_regression: false,
                below_margin: false,
            }],
            margin: None,
            metric: "mean score".into(),
            confidence: 0.9,
        };
        let svg = strata_svg(&plot);
        assert_well_formed(&svg);
        let forbidden: Vec<char> = svg
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\n' | '\t' | '\r'))
            .collect();
        assert!(forbidden.is_empty(), "{forbidden:?}");
        assert!(
            texts(&svg).iter().any(|t| t == "kind=␛[2J␇␁x\u{FFFD}␡"),
            "{:?}",
            texts(&svg)
        );
        assert_eq!(escape("a\u{1}<"), "a␁&lt;");
    }

    #[test]
    fn strata_plot_escapes_labels_and_draws_each_row_and_the_margin() {
        let row = |label: &str, estimate: f64, regression: bool| StratumRow {
            label: label.into(),
            estimate,
            low: Some(estimate - 0.1),
            high: Some(estimate + 0.1),
            significant_regression: regression,
            below_margin: false,
        };
        let plot = StrataPlot {
            rows: vec![
                row("overall", 0.2, false),
                row("kind=<script>&\"'", -0.3, true),
                row("kind=id", 0.1, false),
            ],
            margin: Some(0.05),
            metric: "proportion correct".into(),
            confidence: 0.9,
        };
        let svg = strata_svg(&plot);
        assert_well_formed(&svg);
        assert!(!svg.contains("<script>"));
        let texts = texts(&svg);
        assert!(
            texts
                .iter()
                .any(|t| t == "kind=&lt;script&gt;&amp;&quot;&apos; (regressed)"),
            "label not escaped: {texts:?}"
        );
        assert_shows(&svg, &["overall", "kind=id"]);
        assert_eq!(svg.matches("<circle").count(), 3);
        assert!(
            svg.contains("stroke-dasharray")
                || svg.matches("<line").count() + svg.matches("<polyline").count() > 3
        );
    }

    #[test]
    fn strata_plot_draws_a_row_without_an_interval_as_its_point() {
        let row = |label: &str, low: Option<f64>, high: Option<f64>| StratumRow {
            label: label.into(),
            estimate: 0.5,
            low,
            high,
            significant_regression: false,
            below_margin: false,
        };
        let plot = StrataPlot {
            rows: vec![
                row("overall", Some(0.25), Some(0.75)),
                row("kind=year", None, None),
                row("kind=id", Some(f64::NAN), Some(1.0)),
                StratumRow {
                    estimate: f64::NAN,
                    ..row("kind=title", Some(0.0), Some(1.0))
                },
            ],
            margin: None,
            metric: "mean score".into(),
            confidence: 0.9,
        };
        let svg = strata_svg(&plot);
        assert_well_formed(&svg);
        assert_shows(
            &svg,
            &[
                "overall",
                "kind=year (no interval)",
                "kind=id (no interval)",
            ],
        );
        let texts = texts(&svg);
        // A row without a finite estimate has no point to draw.
        assert!(
            !texts.iter().any(|t| t.starts_with("kind=title")),
            "{texts:?}"
        );
        assert_eq!(svg.matches("<circle").count(), 3);
    }

    #[test]
    fn power_plot_marks_this_runs_n() {
        let svg = power_svg(&PowerPlot {
            alpha: 0.05,
            n: 24,
            min_discordant: 5,
        });
        assert_well_formed(&svg);
        assert!(
            texts(&svg).iter().any(|t| t == "n = 24: 0.2083"),
            "no marked n"
        );
        assert!(svg.contains("<polyline"), "no curve");
        let small = power_svg(&PowerPlot {
            alpha: 0.05,
            n: 3,
            min_discordant: 5,
        });
        assert!(texts(&small).iter().any(|t| t == "n = 3: none (needs 5)"));
    }

    /// Every `<text>` of `svg` with its anchor point, anchor, font size and content.
    fn placed_texts(svg: &str) -> Vec<(f64, f64, String, f64, String)> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let attribute = |name: &str| {
                    let start = t.find(&format!(" {name}=\""))? + name.len() + 3;
                    let end = start + t[start..].find('"')?;
                    Some(t[start..end].to_string())
                };
                let body = t[t.find('>')? + 1..t.find("</text>")?].trim().to_string();
                Some((
                    attribute("x")?.parse().ok()?,
                    attribute("y")?.parse().ok()?,
                    attribute("text-anchor").unwrap_or_else(|| "start".into()),
                    attribute("font-size")?.parse().ok()?,
                    body,
                ))
            })
            .collect()
    }

    /// Asserts that every text of `svg`, at the widest a sans-serif font draws it
    /// ([`CHAR_WIDTH`] of its size per character) and a size high, lies inside the
    /// canvas. Rotated axis descriptions are checked by their anchor only.
    fn assert_unclipped(svg: &str) {
        for (x, y, anchor, size, body) in placed_texts(svg) {
            let width = body.chars().count() as f64 * CHAR_WIDTH * size;
            let (left, right) = match anchor.as_str() {
                "middle" => (x - width / 2.0, x + width / 2.0),
                "end" => (x - width, x),
                _ => (x, x + width),
            };
            let rotated = svg.contains(&format!("rotate(270, {x}, {y})"));
            if rotated {
                assert!(
                    (0.0..=640.0).contains(&x) && (0.0..=400.0).contains(&y),
                    "{body}"
                );
                continue;
            }
            assert!(
                left >= 0.0 && right <= 640.0 && (0.0..=400.0).contains(&y),
                "`{body}` spans {left:.0}..{right:.0} at y {y}"
            );
        }
    }

    #[test]
    fn strata_plot_names_its_metric_and_level_and_marks_regressed_and_margin_rows() {
        let row = |label: &str, estimate: f64, regressed: bool, below: bool| StratumRow {
            label: label.into(),
            estimate,
            low: Some(estimate - 0.1),
            high: Some(estimate + 0.1),
            significant_regression: regressed,
            below_margin: below,
        };
        let plot = StrataPlot {
            rows: vec![
                row("overall", 0.2, false, false),
                row("kind=first_author", -0.47, true, true),
                row("kind=title", -0.02, false, true),
                row(
                    &format!("kind={}", "a_very_long_stratum_value".repeat(4)),
                    -0.5,
                    true,
                    false,
                ),
            ],
            margin: Some(0.05),
            metric: "proportion correct".into(),
            confidence: 0.9,
        };
        let svg = strata_svg(&plot);
        assert_well_formed(&svg);
        assert_unclipped(&svg);
        let texts = texts(&svg);
        assert_shows(
            &svg,
            &[
                "Difference in proportion correct by stratum",
                "candidate − baseline, with 90% intervals",
                "kind=first_author (regressed) (below margin)",
                "kind=title (below margin)",
            ],
        );
        // The long label is cut, not run off the canvas.
        assert!(
            texts
                .iter()
                .any(|t| t.starts_with("kind=a_very") && t.ends_with("… (regressed)")),
            "{texts:?}"
        );
        // Red for the regressed row, orange for the one below the margin.
        assert!(svg.contains("#D62728") && svg.contains("#E67800"));
    }

    #[test]
    fn strata_rows_sit_in_the_middle_of_their_bands_not_on_the_axis() {
        let plot = StrataPlot {
            rows: (0..4)
                .map(|i| StratumRow {
                    label: format!("kind={i}"),
                    estimate: 0.1,
                    low: Some(0.0),
                    high: Some(0.2),
                    significant_regression: false,
                    below_margin: false,
                })
                .collect(),
            margin: None,
            metric: "mean score".into(),
            confidence: 0.9,
        };
        let svg = strata_svg(&plot);
        let ys: Vec<f64> = placed_texts(&svg)
            .into_iter()
            .filter(|t| t.4.starts_with("kind="))
            .map(|t| t.1)
            .collect();
        assert_eq!(ys.len(), 4, "{ys:?}");
        let mut sorted = ys.clone();
        sorted.sort_by(f64::total_cmp);
        let band = sorted[1] - sorted[0];
        // The bottom row is half a band above the x axis, the top one half a band below
        // the plot's top: neither is cut in half by an edge.
        // The x axis: the lowest long horizontal line.
        let axis = svg
            .split("points=\"")
            .skip(1)
            .filter_map(|l| {
                let points: Vec<(f64, f64)> = l[..l.find('"')?]
                    .split_whitespace()
                    .filter_map(|p| {
                        let (x, y) = p.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect();
                let [(x1, y1), (x2, y2)] = points[..] else {
                    return None;
                };
                (y1 == y2 && (x2 - x1).abs() > 100.0).then_some(y1)
            })
            .fold(0.0_f64, f64::max);
        assert!(band > 0.0);
        assert!(
            (axis - sorted[3] - band / 2.0).abs() <= 2.0,
            "axis {axis}, rows {sorted:?}"
        );
    }

    #[test]
    fn bar_labels_are_centred_on_their_bars_and_nothing_is_clipped() {
        let svg = outcomes_svg(&OutcomesPlot::Cells {
            both_right: 80,
            baseline_only: 2,
            candidate_only: 25,
            both_wrong: 29,
        });
        assert_unclipped(&svg);
        let placed = placed_texts(&svg);
        let x_of = |text: &str, size: f64| {
            placed
                .iter()
                .find(|t| t.4 == text && t.3 == size)
                .map(|t| (t.0, t.2.clone()))
                .unwrap_or_else(|| panic!("no {text}"))
        };
        for (count, name) in [
            ("80", "both right"),
            ("2", "baseline only (b)"),
            ("25", "candidate only (c)"),
            ("29", "both wrong"),
        ] {
            let (count_x, count_anchor) = x_of(count, 14.0);
            let (name_x, name_anchor) = x_of(name, LABEL_PX);
            assert_eq!(
                (count_anchor.as_str(), name_anchor.as_str()),
                ("middle", "middle")
            );
            assert!(
                (count_x - name_x).abs() <= 1.0,
                "{count} at {count_x}, {name} at {name_x}"
            );
        }
        assert_shows(&svg, &["Paired outcomes on correct (McNemar)"]);
        let power = power_svg(&PowerPlot {
            alpha: 0.05,
            n: 136,
            min_discordant: 5,
        });
        assert_unclipped(&power);
        assert_shows(
            &power,
            &[
                "n = 136: 0.0368",
                "minimum detectable shift (proportion of pairs)",
                "Minimum detectable shift at alpha 0.05 (best case)",
            ],
        );
    }
}
