//! What every number in an admission report is: the strata table and the reasons in the
//! metric of the test that ran (so `difference` is candidate − baseline of the columns
//! beside it), one unit for shifts in every command, p-values too small for a double
//! printed as `< 1e-300` with their logarithm in the JSON, marked regressed and
//! margin-failing strata, notes where interval and test part ways, linked plots, and the
//! design effect explained where it is printed.

use std::fs;
use std::path::Path;

use crate::util::{Run, run, write};

/// `(task, kind, baseline correct, baseline score, candidate correct, candidate score)`
/// rows as `b.csv` and `c.csv`, each task its own group; `correct` is left out when
/// `with_correct` is false.
fn scores(dir: &Path, rows: &[(String, &str, u8, f64, u8, f64)], with_correct: bool) {
    let header = if with_correct {
        "task_id,group,kind,correct,score\n"
    } else {
        "task_id,group,kind,score\n"
    };
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (id, kind, bc, bs, cc, cs) in rows {
        for (text, correct, score) in [(&mut base, bc, bs), (&mut cand, cc, cs)] {
            let correct = if with_correct {
                format!("{correct},")
            } else {
                String::new()
            };
            text.push_str(&format!("{id},{id},{kind},{correct}{score}\n"));
        }
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

/// `count` rows of one kind, numbered from `from`.
fn rows(
    kind: &'static str,
    from: usize,
    count: usize,
    baseline: (u8, f64),
    candidate: (u8, f64),
) -> Vec<(String, &'static str, u8, f64, u8, f64)> {
    (from..from + count)
        .map(|i| {
            (
                format!("t{i:04}"),
                kind,
                baseline.0,
                baseline.1,
                candidate.0,
                candidate.1,
            )
        })
        .collect()
}

fn admit(dir: &Path, extra: &[&str]) -> Run {
    let mut args = vec!["admit", "--baseline", "b.csv", "--candidate", "c.csv"];
    args.extend_from_slice(extra);
    run(dir, &args)
}

/// The first line of `report` that starts with `prefix` (a strata table row).
fn table_row<'a>(report: &'a str, prefix: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no row `{prefix}` in:\n{report}"))
}

fn json(out: &Run) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// A McNemar holdout whose partial scores make the mean scores differ from the
/// proportions correct, as in the demo: kind `title` has 4 tasks, the baseline right on
/// 3 (scores 1, 1, 0.9, 0.2) and the candidate on 2 (scores 1, 1, 0.1, 0.6); kind `year`
/// has 8 tasks the candidate wins.
fn partial_scores(dir: &Path) {
    let mut all = Vec::new();
    all.extend(rows("title", 0, 2, (1, 1.0), (1, 1.0)));
    all.extend(rows("title", 2, 1, (1, 0.9), (0, 0.1)));
    all.extend(rows("title", 3, 1, (0, 0.2), (0, 0.6)));
    all.extend(rows("year", 4, 8, (0, 0.0), (1, 1.0)));
    scores(dir, &all, true);
}

#[test]
fn the_mcnemar_strata_table_shows_proportions_correct_whose_difference_is_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    partial_scores(dir.path());
    let out = admit(dir.path(), &["--format", "markdown"]);
    // Title: baseline 3 of 4 right (0.75), candidate 2 of 4 (0.5), difference -0.25;
    // mean scores would be 0.775 and 0.675, and the old row mixed them.
    assert!(
        out.stdout.contains(
            "| kind | n | baseline correct (proportion) | candidate correct (proportion) | difference in proportion correct [90%] | p_regression | regressed |"
        ),
        "{}",
        out.stdout
    );
    let title = table_row(&out.stdout, "| title |");
    assert!(
        title.starts_with("| title | 4 | 3 (0.75) | 2 (0.5) | -0.25 ["),
        "{title}"
    );
    assert!(
        !title.contains("0.775") && !title.contains("0.675"),
        "{title}"
    );
    let out = admit(dir.path(), &["--format", "json"]);
    let report = json(&out);
    assert_eq!(report["test"]["metric"], "proportion-correct");
    let title = &report["strata"][0];
    assert_eq!(
        (
            title["value"].as_str(),
            title["baseline_correct"].as_u64(),
            title["candidate_correct"].as_u64()
        ),
        (Some("title"), Some(3), Some(2))
    );
    assert_eq!(title["delta"]["estimate"], -0.25);
    let text = admit(dir.path(), &[]).stdout;
    assert!(
        text.contains(
            "strata by kind (proportion correct; difference = candidate − baseline, 90% interval):"
        ),
        "{text}"
    );
    assert!(text.contains("baseline 3 (0.75)"), "{text}");
}

#[test]
fn the_signed_rank_strata_table_shows_mean_scores_whose_difference_is_the_difference() {
    let dir = tempfile::tempdir().unwrap();
    partial_scores(dir.path());
    let out = admit(
        dir.path(),
        &["--test", "signed-rank", "--format", "markdown"],
    );
    assert!(
        out.stdout.contains(
            "| kind | n | baseline mean score | candidate mean score | difference in mean score [90%] | p_regression | regressed |"
        ),
        "{}",
        out.stdout
    );
    let title = table_row(&out.stdout, "| title |");
    // 0.675 − 0.775 = −0.1.
    assert!(
        title.starts_with("| title | 4 | 0.775 | 0.675 | -0.1 ["),
        "{title}"
    );
    assert_eq!(
        json(&admit(
            dir.path(),
            &["--test", "signed-rank", "--format", "json"]
        ))["test"]["metric"],
        "mean-score"
    );
}

#[test]
fn a_mcnemar_refusal_quotes_proportions_correct_not_mean_scores() {
    let dir = tempfile::tempdir().unwrap();
    // kind `a`: the baseline right on 6 of 6 (score 0.5 each), the candidate on none
    // (score 0.4 each); kind `b`: 12 candidate wins.
    let mut all = rows("a", 0, 6, (1, 0.5), (0, 0.4));
    all.extend(rows("b", 6, 12, (0, 0.0), (1, 1.0)));
    scores(dir.path(), &all, true);
    let out = admit(dir.path(), &[]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout.contains(
            "The candidate regressed significantly on kind=a: p_regression 0.01562 < alpha 0.05 (proportion correct 0 against the baseline's 1: right on 0 of 6 against 6)."
        ),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("mean score 0.4"), "{}", out.stdout);
    assert!(out.stdout.contains("REGRESSED"), "{}", out.stdout);
}

#[test]
fn a_p_value_below_the_double_range_prints_as_a_bound_and_keeps_its_logarithm() {
    let dir = tempfile::tempdir().unwrap();
    // 1,100 discordant pairs, all won by the candidate: p = 2^-1100, which is 0 in f64.
    scores(dir.path(), &rows("id", 0, 1100, (0, 0.0), (1, 1.0)), true);
    let text = admit(dir.path(), &[]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("improvement < 1e-300,"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("p_improvement < 1e-300 < alpha 0.05"),
        "{}",
        text.stdout
    );
    let markdown = admit(dir.path(), &["--format", "markdown"]).stdout;
    assert!(markdown.contains("p_improvement < 1e-300,"), "{markdown}");
    for out in [&text.stdout, &markdown] {
        assert!(
            !out.contains("improvement 0,") && !out.contains("p_improvement 0 "),
            "{out}"
        );
    }
    let report = json(&admit(dir.path(), &["--format", "json"]));
    // mpmath 1.4.1: log10(2**-1100) = -331.13299523037931; the JSON keeps 12 digits.
    assert_eq!(report["p_improvement"], 0.0);
    assert_eq!(report["log10_p_improvement"], -331.13299523);
    assert_eq!(report["log10_p_two_sided"], -330.831965235);
    assert_eq!(report["strata"][0]["log10_p_improvement"], -331.13299523);
}

#[test]
fn a_signed_rank_stratum_below_zero_but_not_regressed_says_why() {
    let dir = tempfile::tempdir().unwrap();
    // Kind `x`: 400 pairs gain 0.01 and 100 lose 0.5. The mean difference is −0.092 and
    // its interval lies below zero (the betting interval needs this many pairs to
    // exclude zero), but the 400 gains hold the smallest ranks: W+ = 80,200 of 125,250,
    // so the one-sided signed-rank test sees no regression.
    let mut all = rows("x", 0, 400, (0, 0.5), (0, 0.51));
    all.extend(rows("x", 400, 100, (0, 0.9), (0, 0.4)));
    all.extend(rows("y", 500, 10, (0, 0.2), (0, 0.6)));
    scores(dir.path(), &all, false);
    let report = json(&admit(dir.path(), &["--format", "json"]));
    let x = &report["strata"][0];
    assert_eq!(x["value"], "x");
    assert!(x["delta"]["high"].as_f64().unwrap() < 0.0, "{x}");
    assert_eq!(x["significant_regression"], false);
    let note = x["note"].as_str().unwrap_or_else(|| panic!("no note: {x}"));
    assert!(note.contains("lies wholly below zero"), "{note}");
    assert!(note.contains("The level is not the reason"), "{note}");
    assert!(
        note.contains("ranks the paired differences while the interval"),
        "{note}"
    );
    assert_eq!(report["strata"][1]["note"], serde_json::Value::Null);
    let markdown = admit(dir.path(), &["--format", "markdown"]).stdout;
    assert!(
        markdown.contains(
            "- kind=x: Its 90% interval of the mean score difference lies wholly below zero"
        ),
        "{markdown}"
    );
    let text = admit(dir.path(), &[]).stdout;
    assert!(text.contains("    note: Its 90% interval"), "{text}");
}

#[test]
fn a_stratum_failing_the_margin_is_marked_in_the_table_the_text_and_the_plot() {
    let dir = tempfile::tempdir().unwrap();
    // Kind `year`: 2 baseline-only pairs of 5 (not a significant regression, p 0.25);
    // its melded non-inferiority test at 0.05 gives P(Binomial(5, 0.05) <= 2) = 0.9988.
    // Kind `id`: 20 candidate wins.
    let mut all = rows("id", 0, 20, (0, 0.0), (1, 1.0));
    all.extend(rows("year", 20, 2, (1, 1.0), (0, 0.0)));
    all.extend(rows("year", 22, 3, (1, 1.0), (1, 1.0)));
    scores(dir.path(), &all, true);
    let out = admit(
        dir.path(),
        &[
            "--margin",
            "0.05",
            "--format",
            "markdown",
            "--report-dir",
            "r",
        ],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("| p_regression | regressed | non-inferior at 0.05 (p_noninferiority) |"),
        "{}",
        out.stdout
    );
    let year = table_row(&out.stdout, "| year |");
    assert!(year.contains("| no | **fails** ("), "{year}");
    let id = table_row(&out.stdout, "| id |");
    assert!(id.contains("| no | holds ("), "{id}");
    let text = admit(dir.path(), &["--margin", "0.05"]).stdout;
    assert!(
        text.lines()
            .any(|l| l.contains("year") && l.ends_with("BELOW MARGIN")),
        "{text}"
    );
    let svg = fs::read_to_string(dir.path().join("r/strata.svg")).unwrap();
    assert!(svg.contains("kind=year (below margin)"), "{svg}");
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r/admission.json")).unwrap())
            .unwrap();
    assert_eq!(report["strata"][1]["margin_holds"], false);
    assert_eq!(report["strata"][0]["margin_holds"], true);
}

#[test]
fn admission_md_links_the_plots_beside_it_and_explains_the_design_effect() {
    let dir = tempfile::tempdir().unwrap();
    partial_scores(dir.path());
    let out = admit(dir.path(), &["--report-dir", "r"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("design effect ")
            && out
                .stdout
                .contains("over its variance were every task independent"),
        "{}",
        out.stdout
    );
    let md = fs::read_to_string(dir.path().join("r/admission.md")).unwrap();
    for (title, file) in [
        ("paired outcomes", "outcomes.svg"),
        ("difference by stratum", "strata.svg"),
        ("minimum detectable shift", "power.svg"),
    ] {
        assert!(md.contains(&format!("[{title}]({file})")), "{md}");
        assert!(dir.path().join("r").join(file).is_file());
    }
    assert!(
        md.contains("over its variance were every task independent"),
        "{md}"
    );
    // On stdout and in the step summary there is no folder to link into.
    let stdout = admit(dir.path(), &["--format", "markdown"]).stdout;
    assert!(!stdout.contains("](strata.svg)"), "{stdout}");
}

#[test]
fn power_admit_and_audit_write_shifts_in_one_unit() {
    let dir = tempfile::tempdir().unwrap();
    let unit = "Shifts are proportions on the 0–1 scale: 0.05 is 5 percentage points.";
    let power = run(dir.path(), &["power", "--n", "136"]).stdout;
    assert!(
        power.contains("n 136: minimum detectable shift 0.0368"),
        "{power}"
    );
    assert!(power.contains(unit), "{power}");
    // 136 pairs, as in the demo: the same 5/136 in the same unit.
    let mut all = rows("id", 0, 30, (0, 0.0), (1, 1.0));
    all.extend(rows("id", 30, 106, (1, 1.0), (1, 1.0)));
    scores(dir.path(), &all, true);
    let admit_text = admit(dir.path(), &[]).stdout;
    assert!(
        admit_text.contains("minimum detectable shift 0.0368 ("),
        "{admit_text}"
    );
    assert!(admit_text.contains(unit), "{admit_text}");
    assert!(!admit_text.contains("3.7%"), "{admit_text}");
    write(
        dir.path(),
        "claims.csv",
        "claim_id,description,n,baseline,candidate\npr-1,better,136,0.5,0.6\n",
    );
    let audit = run(dir.path(), &["audit", "--claims", "claims.csv"]).stdout;
    assert!(
        audit.contains("detectable shift 0.0368 best case"),
        "{audit}"
    );
    assert!(audit.contains(unit), "{audit}");
}

#[test]
fn audit_prints_p_values_below_the_double_range_as_a_bound_with_their_logarithms() {
    let dir = tempfile::tempdir().unwrap();
    // b 0, c 1,100: McNemar's p is 2^-1100. Rates 0.2 and 0.9 of 5,000 tasks: the best
    // case is 3,500 wins, 2^-3500, and the worst pairing b 500, c 4,000.
    write(
        dir.path(),
        "claims.csv",
        "claim_id,description,b,c,n,baseline,candidate\nwins,all won,0,1100,,,\nrates,rates,,,5000,0.2,0.9\n",
    );
    let text = run(dir.path(), &["audit", "--claims", "claims.csv"]);
    assert!(
        text.stdout.contains("p_improvement < 1e-300 < alpha 0.05"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("p best case < 1e-300"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.contains("p best case 0,"), "{}", text.stdout);
    let out = run(
        dir.path(),
        &["audit", "--claims", "claims.csv", "--format", "json"],
    );
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let wins = &report["judgements"][0];
    // mpmath 1.4.1 at 60 digits: log10(2**-1100) = -331.13299523037931,
    // log10(2**-3500) = -1053.6049848239342, and for the worst pairing
    // log10(fsum(binomial(4500, j) for j in range(4000, 4501))) - 4500*log10(2) =
    // -674.56875150963908.
    assert!(
        (wins["log10_p_improvement"].as_f64().unwrap() + 331.132995230379).abs() < 1e-9,
        "{wins}"
    );
    assert!(
        (wins["log10_p_best_case"].as_f64().unwrap() + 331.132995230379).abs() < 1e-9,
        "{wins}"
    );
    let rates = &report["judgements"][1];
    assert!(
        (rates["log10_p_best_case"].as_f64().unwrap() + 1053.60498482393).abs() < 1e-9,
        "{rates}"
    );
    assert!(
        (rates["log10_p_worst_case"].as_f64().unwrap() + 674.568751509639).abs() < 1e-9,
        "{rates}"
    );
    assert_eq!(rates["p_best_case"], 0.0);
}

#[test]
fn a_mcnemar_stratum_whose_tango_interval_excludes_zero_before_the_exact_test_says_why() {
    let dir = tempfile::tempdir().unwrap();
    // Kind `year`: 4 baseline-only pairs of 34 (b 4, c 0): the exact one-sided
    // p_regression is 2^-4 = 0.0625, not below 0.05, while Tango's 90% interval,
    // [-0.2377, -0.0353], lies below zero.
    let mut all = rows("id", 0, 20, (0, 0.0), (1, 1.0));
    all.extend(rows("year", 20, 4, (1, 1.0), (0, 0.0)));
    all.extend(rows("year", 24, 30, (1, 1.0), (1, 1.0)));
    scores(dir.path(), &all, true);
    let report = json(&admit(dir.path(), &["--format", "json"]));
    let year = &report["strata"][1];
    assert_eq!(
        (year["value"].as_str(), year["p_regression"].as_f64()),
        (Some("year"), Some(0.0625))
    );
    assert!(year["delta"]["high"].as_f64().unwrap() < 0.0, "{year}");
    let note = year["note"]
        .as_str()
        .unwrap_or_else(|| panic!("no note: {year}"));
    assert!(
        note.contains("McNemar's exact test gives p_regression 0.0625 >= alpha 0.05")
            && note.contains("the Tango interval is an asymptotic score interval"),
        "{note}"
    );
}

/// The keys of the object that opens at the first line equal to `opening` in pretty
/// JSON, in the order written: the lines indented two spaces deeper than `opening`,
/// up to its closing brace.
fn keys_after(text: &str, opening: &str) -> Vec<String> {
    let indent = opening.len() - opening.trim_start().len();
    let key_indent = " ".repeat(indent + 2);
    let close = format!("{}}}", " ".repeat(indent));
    let lines = text.lines().skip_while(|l| *l != opening).skip(1);
    lines
        .take_while(|l| !l.starts_with(&close))
        .filter_map(|l| {
            let rest = l.strip_prefix(&key_indent)?.strip_prefix('"')?;
            Some(rest.split('"').next()?.to_string())
        })
        .collect()
}

#[test]
fn admission_json_writes_the_p_values_where_docs_reports_md_lists_them() {
    // Strata from `kind`, and a cluster view since every task has its own group.
    let dir = tempfile::tempdir().unwrap();
    let losses = rows("title", 0, 4, (1, 1.0), (0, 0.0));
    let wins = rows("year", 4, 8, (0, 0.0), (1, 1.0));
    scores(dir.path(), &[losses, wins].concat(), true);
    let out = admit(dir.path(), &["--format", "json"]);
    let top = keys_after(&out.stdout, "{");
    let around = |key: &str, before: usize, after: usize| -> Vec<String> {
        let at = top.iter().position(|k| k == key).unwrap();
        top[at - before..=at + after].to_vec()
    };
    assert_eq!(
        around("p_improvement", 1, 6),
        [
            "discordant",
            "p_improvement",
            "p_regression",
            "p_two_sided",
            "log10_p_improvement",
            "log10_p_regression",
            "log10_p_two_sided",
            "min_detectable_shift",
        ],
        "{top:?}"
    );
    assert_eq!(
        keys_after(&out.stdout, "    {")[8..14],
        [
            "discordant",
            "p_improvement",
            "p_regression",
            "log10_p_improvement",
            "log10_p_regression",
            "significant_regression",
        ]
    );
    assert_eq!(
        keys_after(&out.stdout, "  \"cluster\": {"),
        [
            "column",
            "clusters",
            "decides",
            "p_improvement",
            "p_regression",
            "log10_p_improvement",
            "log10_p_regression",
            "method",
            "design_effect",
            "min_detectable_shift",
            "warning",
        ]
    );
}
