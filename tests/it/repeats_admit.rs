//! Repeats as repeats: scores files whose rows are `<item>#<r>` with
//! the item as `group` are tested on items, never on rows as independent tasks, and
//! `admission.json` gains a `repeats` block per arm. Expected figures are computed by
//! hand or by statsmodels (the call is above each), never read from evogate.

use std::path::Path;

use serde_json::Value;

use crate::util::{assert_input_error, import_dspy_repeats, run, write};

/// A scores file of `items` (id, right count) with `k` repeats each, the first
/// `right` of an item's repeats right; kind `a` for every item.
fn repeats_file(dir: &Path, name: &str, k: usize, items: &[(&str, usize)]) -> String {
    let mut text = String::from("task_id,group,kind,correct,score\n");
    for (item, right) in items {
        for r in 1..=k {
            let c = u8::from(r <= *right);
            text.push_str(&format!("\"{item}#{r}\",\"{item}\",a,{c},{c}\n"));
        }
    }
    write(dir, name, &text)
}

fn admit(dir: &Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["admit", "--baseline", "b.csv", "--candidate", "c.csv"];
    args.extend(extra);
    run(dir, &args)
}

fn json(done: &crate::util::Run) -> Value {
    serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout))
}

#[track_caller]
fn close(actual: &Value, expected: f64) {
    let actual = actual.as_f64().unwrap();
    assert!((actual - expected).abs() < 1e-9, "{actual} vs {expected}");
}

const ITEMS: [&str; 6] = ["a", "b|x", "c*", "d", "e", "f"];

fn six_items(dir: &Path) {
    let base: Vec<(&str, usize)> = ITEMS.iter().copied().zip([3, 0, 1, 2, 3, 0]).collect();
    let cand: Vec<(&str, usize)> = ITEMS.iter().copied().zip([3, 1, 2, 3, 3, 3]).collect();
    repeats_file(dir, "b.csv", 3, &base);
    repeats_file(dir, "c.csv", 3, &cand);
}

/// statsmodels 0.14.4 `proportion_confint(p*neff, neff, alpha=0.1, method="beta")`
/// (Clopper–Pearson at the effective number of items), with p the mean of the per-item
/// values, neff = min(max(p(1-p)/var, n), rows) and var = sum((v - p)^2)/n^2 (n = 6
/// items, 18 rows): (estimate, neff, low, high).
const BASELINE: [(f64, f64, f64, f64); 3] = [
    (
        0.5,
        8.526315789473683,
        0.2014883016362738,
        0.7985116983637262,
    ),
    (
        0.6666666666666666,
        6.0,
        0.27133837251975246,
        0.9371501082916456,
    ),
    (
        0.3333333333333333,
        6.0,
        0.06284989170835438,
        0.7286616274802475,
    ),
];
const CANDIDATE: [(f64, f64, f64, f64); 3] = [
    (
        0.8333333333333334,
        12.857142857142854,
        0.5734613236978592,
        0.9668156195703638,
    ),
    (1.0, 6.0, 0.6069622310029172, 1.0),
    (
        0.6666666666666666,
        6.0,
        0.27133837251975246,
        0.9371501082916456,
    ),
];

#[test]
fn repeats_are_tested_on_items_and_the_report_gives_pass_at_k_and_the_flaky_items() {
    let dir = tempfile::tempdir().unwrap();
    six_items(dir.path());
    let done = admit(dir.path(), &["--format", "json"]);
    let report = json(&done);
    // 18 rows, 6 items: the test counted items; their mean differences 0, 1/3, 1/3,
    // 1/3, 0, 1: four non-zero, all up, exact signed-rank p = 2^-4.
    assert_eq!(report["n"], 6, "{report}");
    assert_eq!(report["test"]["name"], "signed-rank");
    close(&report["p_improvement"], 0.0625);
    assert_ne!(report["verdict"], "admitted");
    let repeats = &report["repeats"];
    assert_eq!(repeats["rows"], 18);
    assert_eq!(repeats["items"], 6);
    assert_eq!(repeats["k"], 3);
    assert_eq!(repeats["right"], "correct = 1");
    close(&repeats["confidence"], 0.9);
    for (arm, expected) in [("baseline", BASELINE), ("candidate", CANDIDATE)] {
        assert_eq!(repeats[arm]["k"], 3);
        for (field, (estimate, neff, low, high)) in ["pass_at_1", "pass_at_k", "pass_hat_k"]
            .iter()
            .zip(expected)
        {
            let figure = &repeats[arm][field];
            close(&figure["estimate"], estimate);
            close(&figure["effective_items"], neff);
            close(&figure["low"], low);
            close(&figure["high"], high);
        }
    }
    // Items whose repeats disagree: baseline c* (1 of 3) and d (2 of 3); candidate b|x
    // (1 of 3) and c* (2 of 3).
    assert_eq!(repeats["baseline"]["flaky_items"], 2);
    assert_eq!(
        repeats["baseline"]["flaky_ids"],
        serde_json::json!(["c*", "d"])
    );
    assert_eq!(
        repeats["candidate"]["flaky_ids"],
        serde_json::json!(["b|x", "c*"])
    );
    assert_eq!(repeats["warnings"], serde_json::json!([]));
    assert!(
        done.stderr
            .contains("repeats: 18 rows are repeats of 6 items: every test ran on the 6 items"),
        "{}",
        done.stderr
    );
    // The Markdown report says so and names the flaky items, escaped.
    let md = admit(dir.path(), &["--format", "markdown"]).stdout;
    assert!(
        md.contains("### Repeats\n\n18 rows are repeats of 6 items"),
        "{md}"
    );
    assert!(
        md.contains("| baseline | 0.5 [0.2015, 0.7985] | 0.6667 [0.2713, 0.9372] | 0.3333 [0.0628, 0.7287] | 2 |"),
        "{md}"
    );
    assert!(
        md.contains("- candidate: 2 flaky items (repeats that disagree): b\\|x, c\\*"),
        "{md}"
    );
    let text = admit(dir.path(), &[]).stdout;
    assert!(
        text.contains("pass@1 0.8333 [0.5735, 0.9668]  pass@3 1 [0.607, 1]"),
        "{text}"
    );
}

/// Regression: the rows of repeats were paired and tested as independent tasks, so 5
/// cached copies of 2 wins (10 discordant rows, McNemar p = 2^-10) were admitted. On
/// the items the two wins give p = 2^-2, and both arms are warned of as copies.
#[test]
fn copies_of_two_wins_are_two_items_not_ten_tasks_and_are_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let items = ["p", "q", "r", "s", "t", "u"];
    let base: Vec<(&str, usize)> = items.iter().copied().zip([5, 5, 0, 0, 0, 0]).collect();
    let cand: Vec<(&str, usize)> = items.iter().copied().zip([5, 5, 5, 5, 0, 0]).collect();
    repeats_file(dir.path(), "b.csv", 5, &base);
    repeats_file(dir.path(), "c.csv", 5, &cand);
    let done = admit(dir.path(), &["--format", "json"]);
    assert_eq!(done.code, 1, "{}", done.stderr);
    let report = json(&done);
    assert_eq!(report["n"], 6);
    close(&report["p_improvement"], 0.25);
    let warnings = report["repeats"]["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    for (warning, arm) in warnings.iter().zip(["baseline", "candidate"]) {
        let warning = warning.as_str().unwrap();
        assert!(
            warning.starts_with(&format!("the {arm}'s repeats agree on every item")),
            "{warning}"
        );
        assert!(warning.contains("a multiple of k"), "{warning}");
        assert!(
            warning.contains(
                "its 30 rows carry the evidence of 6 items; the effective number of items is 6"
            ),
            "{warning}"
        );
    }
    assert!(
        done.stderr
            .contains("note: repeats: the candidate's repeats agree"),
        "{}",
        done.stderr
    );
    // The same rows as 30 tasks of their own (no repeat form) are admitted: the count
    // the repeats rule stops.
    let tasks = |from: &str, to: &str| {
        let text = std::fs::read_to_string(dir.path().join(from)).unwrap();
        let text = text
            .replace('#', "-r")
            .replace("task_id,group,", "task_id,item,");
        write(dir.path(), to, &text);
    };
    tasks("b.csv", "b30.csv");
    tasks("c.csv", "c30.csv");
    let rows = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "b30.csv",
            "--candidate",
            "c30.csv",
            "--format",
            "json",
        ],
    );
    assert_eq!(rows.code, 0, "{}", rows.stdout);
    assert_eq!(json(&rows)["n"], 30);
}

#[test]
fn items_with_unequal_repeats_are_figured_at_the_fewest_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    // Item x: 2 repeats (1 right); item y: 4 repeats (3 right); same in both arms.
    let text = "task_id,group,correct,score\nx#1,x,1,1\nx#2,x,0,0\ny#1,y,1,1\ny#2,y,1,1\ny#3,y,1,1\ny#4,y,0,0\n";
    write(dir.path(), "b.csv", text);
    write(dir.path(), "c.csv", text);
    let report = json(&admit(dir.path(), &["--format", "json"]));
    let repeats = &report["repeats"];
    assert_eq!(
        (repeats["k"].as_u64(), repeats["k_max"].as_u64()),
        (Some(2), Some(4))
    );
    assert!(
        repeats["note"]
            .as_str()
            .unwrap()
            .starts_with("items ran 2 to 4 repeats: pass@k and pass^k are at k = 2"),
        "{repeats}"
    );
    // x: pass@2 = 1, pass^2 = 0; y: pass@2 = 1 - C(1,2)/C(4,2) = 1, pass^2 = C(3,2)/C(4,2)
    // = 1/2; pass@1 = (1/2 + 3/4)/2.
    close(&repeats["baseline"]["pass_at_1"]["estimate"], 0.625);
    close(&repeats["baseline"]["pass_at_k"]["estimate"], 1.0);
    close(&repeats["baseline"]["pass_hat_k"]["estimate"], 0.25);
}

#[test]
fn mcnemar_cluster_and_sequential_are_refused_on_repeats_and_a_mixed_item_is_named() {
    let dir = tempfile::tempdir().unwrap();
    six_items(dir.path());
    assert_input_error(
        &admit(dir.path(), &["--test", "mcnemar"]),
        &[
            "--test mcnemar needs one 0/1 outcome per item",
            "up to 3 repeats",
        ],
    );
    assert_input_error(
        &admit(dir.path(), &["--cluster", "group"]),
        &[
            "--cluster group: the scores hold repeats",
            "leave --cluster out",
        ],
    );
    let mut order = String::from("task_id\n");
    for item in ITEMS {
        for r in 1..=3 {
            order.push_str(&format!("\"{item}#{r}\"\n"));
        }
    }
    write(dir.path(), "order.csv", &order);
    assert_input_error(
        &admit(dir.path(), &["--sequential", "--order", "order.csv"]),
        &[
            "admit --sequential looks at one row per task",
            "--repeats mean",
        ],
    );
    let mixed = "task_id,group,correct,score\nm,m,1,1\nm#1,m,1,1\nm#2,m,0,0\n";
    write(dir.path(), "b.csv", mixed);
    write(dir.path(), "c.csv", mixed);
    assert_input_error(
        &admit(dir.path(), &[]),
        &["task `m` is a row of its own and also the item of the repeats"],
    );
}

/// Repeats that an import found to be byte-identical copies (DSPy's cache replaying
/// one answer) are warned of by `admit`, from the import records.
#[test]
fn identical_copies_an_import_recorded_are_warned_of_by_admit() {
    let dir = tempfile::tempdir().unwrap();
    let record = |q: &str, answer: &str, ok: bool| serde_json::json!({"question": q, "answer": answer, "exact_match": ok});
    for (run_name, b_answer) in [("r1.json", "2"), ("r2.json", "2")] {
        write(
            dir.path(),
            run_name,
            &serde_json::json!([record("a", "1", true), record("b", b_answer, false)]).to_string(),
        );
    }
    for (run_name, b_answer) in [("s1.json", "3"), ("s2.json", "4")] {
        write(
            dir.path(),
            run_name,
            &serde_json::json!([
                record("a", "1", true),
                record("b", b_answer, b_answer == "3")
            ])
            .to_string(),
        );
    }
    for (first, second, out) in [
        ("r1.json", "r2.json", "b.csv"),
        ("s1.json", "s2.json", "c.csv"),
    ] {
        let done = import_dspy_repeats(dir.path(), &[first, second], "all", out);
        assert_eq!(done.code, 0, "{}", done.stderr);
    }
    let report = json(&admit(dir.path(), &["--format", "json"]));
    let warnings: Vec<&str> = report["repeats"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    // The baseline's two runs are the same records: both items are copies, and its
    // right counts are all 0 or 2; the candidate's b differs between runs.
    assert!(
        warnings.iter().any(|w| w.starts_with("the baseline's import record (b.import.json) found 2 items whose every repeat is the same output text")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w
                .starts_with("the candidate's import record (c.import.json) found 1 item whose")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("the baseline's repeats agree on every item")),
        "{warnings:?}"
    );
}
