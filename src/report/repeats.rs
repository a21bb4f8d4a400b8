//! The repeats section of the text and Markdown reports (only when the scores held
//! repeats of items): what the tests ran on, then per arm pass@1, pass@k and pass^k
//! with their intervals, the flaky items by id (escaped: ids come from the inputs) and
//! the warnings.

use std::fmt::Write;

use super::Report;
use super::escape::{markdown as esc, plain};
use crate::admission::repeats::{ArmRepeatsView, FigureView, RepeatsView};
use crate::base::numbers::{number, signed};

/// `0.4333 [0.33, 0.54]`.
fn figure(f: &FigureView) -> String {
    format!(
        "{} [{}, {}]",
        signed(f.estimate),
        signed(f.low),
        signed(f.high)
    )
}

/// The arms in order with their names.
fn arms(r: &RepeatsView) -> [(&'static str, &ArmRepeatsView); 2] {
    [("baseline", &r.baseline), ("candidate", &r.candidate)]
}

/// `flaky: 3 items (a, b, c)`, with "and N more" past the ids kept.
fn flaky(view: &ArmRepeatsView, escape: fn(&str) -> String) -> String {
    if view.flaky_items == 0 {
        return "no flaky items".to_string();
    }
    let ids: Vec<String> = view.flaky_ids.iter().map(|id| escape(id)).collect();
    let more = match view.flaky_items.saturating_sub(view.flaky_ids.len()) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(
        "{} flaky {} (repeats that disagree): {}{more}",
        view.flaky_items,
        if view.flaky_items == 1 {
            "item"
        } else {
            "items"
        },
        ids.join(", ")
    )
}

/// The text report's lines.
pub(crate) fn text(out: &mut String, report: &Report) {
    let Some(r) = &report.admission.repeats else {
        return;
    };
    let confidence = number(r.confidence * 100.0);
    let _ = writeln!(out, "repeats:    {}", plain(&r.tested_on));
    let _ = writeln!(
        out,
        "  right means {}; k = {}; {confidence}% intervals, {}",
        r.right, r.k, r.interval
    );
    for (name, view) in arms(r) {
        let _ = writeln!(
            out,
            "  {name:<10} pass@1 {}  pass@{k} {}  pass^{k} {}",
            figure(&view.pass_at_1),
            figure(&view.pass_at_k),
            figure(&view.pass_hat_k),
            k = view.k
        );
        let _ = writeln!(out, "    {}", flaky(view, plain));
    }
    if let Some(note) = &r.note {
        let _ = writeln!(out, "  note: {note}");
    }
    for warning in &r.warnings {
        let _ = writeln!(out, "  warning: {}", plain(warning));
    }
}

/// The Markdown report's section.
pub(crate) fn markdown(md: &mut String, report: &Report) {
    let Some(r) = &report.admission.repeats else {
        return;
    };
    let confidence = number(r.confidence * 100.0);
    let _ = writeln!(
        md,
        "### Repeats\n\n{}. A right repeat is one with {}; every figure is at k = {} with its {confidence}% interval ({}).\n",
        esc(&r.tested_on),
        esc(r.right),
        r.k,
        esc(r.interval)
    );
    let _ = writeln!(
        md,
        "| arm | pass@1 | pass@{k} (any of {k} right) | pass^{k} (all {k} right) | flaky items |\n| --- | --- | --- | --- | ---: |",
        k = r.k
    );
    for (name, view) in arms(r) {
        let _ = writeln!(
            md,
            "| {name} | {} | {} | {} | {} |",
            figure(&view.pass_at_1),
            figure(&view.pass_at_k),
            figure(&view.pass_hat_k),
            view.flaky_items
        );
    }
    md.push('\n');
    for (name, view) in arms(r) {
        if view.flaky_items > 0 {
            let _ = writeln!(md, "- {name}: {}", flaky(view, esc));
        }
    }
    if let Some(note) = &r.note {
        let _ = writeln!(md, "- {}", esc(note));
    }
    for warning in &r.warnings {
        let _ = writeln!(md, "- **Warning:** {}", esc(warning));
    }
    md.push('\n');
}
