//! The drawing itself. Each function renders into a string through plotters'
//! `SVGBackend`; errors from the backend cannot occur when writing to memory, and if
//! one did the plot would be an SVG that says so rather than a panic.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{OutcomesPlot, PowerPlot, StrataPlot};

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
pub fn xml_chars(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'),
            '\u{7f}' => '\u{2421}',
            '\u{80}'..='\u{9f}' | '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            other => other,
        })
        .collect()
}

/// XML-escapes the text of the fallback document (plotters escapes its own text).
pub fn escape(text: &str) -> String {
    xml_chars(text)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// The paired outcomes: McNemar's four cells as bars, or a paired dot plot of scores.
pub fn outcomes_svg(plot: &OutcomesPlot) -> String {
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
            render("Paired outcomes", |area| {
                let top = cells.iter().map(|c| c.1).max().unwrap_or(0).max(1);
                let mut chart = ChartBuilder::on(area)
                    .margin(10)
                    .x_label_area_size(30)
                    .y_label_area_size(50)
                    .build_cartesian_2d(0u32..4u32, 0u64..top + top / 10 + 1)?;
                chart
                    .configure_mesh()
                    .label_style(font(LABEL_PX))
                    .axis_desc_style(font(LABEL_PX))
                    .disable_x_mesh()
                    .x_labels(4)
                    .x_label_formatter(&|x| {
                        cells
                            .get(*x as usize)
                            .map_or(String::new(), |c| c.0.to_string())
                    })
                    .y_desc("pairs")
                    .draw()?;
                for (index, (_, count, color)) in cells.iter().enumerate() {
                    let x = index as u32;
                    chart.draw_series(std::iter::once(Rectangle::new(
                        [(x, 0), (x + 1, *count)],
                        color.mix(0.8).filled(),
                    )))?;
                    chart.draw_series(std::iter::once(Text::new(
                        count.to_string(),
                        (x, *count),
                        font(16.0),
                    )))?;
                }
                Ok(())
            })
        }
        OutcomesPlot::Pairs { pairs } => render("Paired scores", |area| {
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
        }),
    }
}

/// Each stratum's difference with its interval, a line at 0 and one at −margin.
pub fn strata_svg(plot: &StrataPlot) -> String {
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
            let label = match interval {
                Some(_) => xml_chars(&r.label),
                None => format!("{} (no interval)", xml_chars(&r.label)),
            };
            (r, label, interval)
        })
        .collect();
    render("Difference by stratum (candidate − baseline)", |area| {
        let count = rows.len().max(1) as i32;
        let mut chart = ChartBuilder::on(area)
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(130)
            .build_cartesian_2d(-1.05f64..1.05f64, 0i32..count)?;
        chart
            .configure_mesh()
            .label_style(font(LABEL_PX))
            .axis_desc_style(font(LABEL_PX))
            .disable_y_mesh()
            .y_labels(rows.len().max(1))
            .y_label_formatter(&|y| {
                let index = count - 1 - *y;
                rows.get(index as usize)
                    .map_or(String::new(), |(_, label, _)| label.clone())
            })
            .x_desc("paired difference")
            .draw()?;
        chart.draw_series(LineSeries::new(
            [(0.0, 0), (0.0, count)],
            BLACK.stroke_width(1),
        ))?;
        if let Some(margin) = plot.margin.filter(|m| m.is_finite()) {
            let x = round(-margin.clamp(0.0, 1.0));
            chart.draw_series(DashedLineSeries::new(
                [(x, 0), (x, count)],
                6,
                4,
                BASELINE.stroke_width(1),
            ))?;
        }
        for (index, (row, _, interval)) in rows.iter().enumerate() {
            let y = count - 1 - index as i32;
            let color = if row.significant_regression {
                BASELINE
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

/// The minimum detectable shift k/n against n on a log axis, this run's n marked.
pub fn power_svg(plot: &PowerPlot) -> String {
    let k = u64::from(plot.min_discordant.max(1));
    let n = plot.n.max(1);
    let high = (n * 10).max(k * 10);
    render(
        &format!("Minimum detectable shift at alpha {}", plot.alpha),
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
                .y_desc("shift")
                .draw()?;
            let steps = 200u32;
            let curve = (0..=steps).filter_map(|i| {
                let x = (k as f64 * (high as f64 / k as f64).powf(f64::from(i) / f64::from(steps)))
                    .round() as u64;
                (x >= k).then(|| (x, round(k as f64 / x as f64)))
            });
            chart.draw_series(LineSeries::new(curve, CANDIDATE.stroke_width(2)))?;
            let label = if n >= k {
                format!("n = {n}: {:.1}%", 100.0 * k as f64 / n as f64)
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
                (n, (y + 0.06).min(1.0)),
                font(12.0),
            )))?;
            Ok(())
        },
    )
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
                "Paired outcomes",
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

    #[test]
    fn pairs_plot_draws_one_circle_per_finite_pair() {
        let svg = outcomes_svg(&OutcomesPlot::Pairs {
            pairs: vec![(0.5, 1.0), (0.0, 0.75), (f64::NAN, 1.0)],
        });
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
            }],
            margin: None,
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
        };
        let plot = StrataPlot {
            rows: vec![
                row("overall", 0.2, false),
                row("kind=<script>&\"'", -0.3, true),
                row("kind=id", 0.1, false),
            ],
            margin: Some(0.05),
        };
        let svg = strata_svg(&plot);
        assert_well_formed(&svg);
        assert!(!svg.contains("<script>"));
        let texts = texts(&svg);
        assert!(
            texts
                .iter()
                .any(|t| t == "kind=&lt;script&gt;&amp;&quot;&apos;"),
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
            texts(&svg).iter().any(|t| t == "n = 24: 20.8%"),
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
}
