//! A holdout of items with scores that hold repeats:
//! `split --from-scores` over an `import --repeats all` file lists items, not
//! their `item#r` rows; `admit --tasks`/`--manifest` reads a listed item as all of its
//! repeats, names a repeat one arm lacks, proves holdout-intact on the items and counts
//! on the holdout's identity in the ledger; `admit --sequential` refuses repeats before
//! it looks for them in the holdout's order, saying what to do. From a real Inspect log
//! whose samples are run for three epochs, as `import_suites.rs` builds them.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{assert_input_error, run, write};

fn formats(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(rel)
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let done = run(dir, args);
    assert_eq!(done.code, 0, "{args:?}: {}{}", done.stdout, done.stderr);
    done.stdout
}

fn json_of(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The real Inspect log of five ARC samples (`data_arc_sonnet.json`) with each sample
/// run for three epochs: `values[i]` the three `choice` values of sample i + 1 (`C`
/// right, `I` wrong), each epoch's answer text its own.
fn arc_epochs(dir: &Path, name: &str, values: [[&str; 3]; 5]) -> String {
    let text = fs::read_to_string(formats("inspect/data_arc_sonnet.json")).unwrap();
    let mut log = json_of(&text);
    let mut samples = Vec::new();
    for sample in log["samples"].as_array().unwrap() {
        let at = sample["id"].as_u64().unwrap() as usize - 1;
        for (epoch, value) in values[at].iter().enumerate() {
            let mut copy = sample.clone();
            copy["epoch"] = json!(epoch + 1);
            copy["scores"]["choice"]["value"] = json!(value);
            copy["output"]["completion"] = json!(format!("ANSWER: {value} (epoch {epoch})"));
            samples.push(copy);
        }
    }
    log["samples"] = Value::Array(samples);
    log["eval"]["config"]["epochs"] = json!(3);
    fs::write(dir.join(name), log.to_string()).unwrap();
    name.to_string()
}

const BASE: [[&str; 3]; 5] = [
    ["C", "I", "C"],
    ["I", "I", "C"],
    ["C", "C", "C"],
    ["I", "I", "I"],
    ["C", "I", "I"],
];
const TUNED: [[&str; 3]; 5] = [
    ["C", "C", "C"],
    ["C", "I", "C"],
    ["C", "C", "C"],
    ["C", "I", "C"],
    ["C", "C", "I"],
];

/// The five items of the log, as `import inspect` names them.
fn items() -> Vec<String> {
    (1..=5)
        .map(|i| format!("inspect_evals/arc_easy:{i}"))
        .collect()
}

/// Imports both arms with every repeat kept (`base.csv`, `tuned.csv`) and splits the
/// baseline's scores into `split/` with every item in the holdout.
fn imported_and_split(dir: &Path) -> String {
    for (log, values, out) in [
        ("base.json", BASE, "base.csv"),
        ("tuned.json", TUNED, "tuned.csv"),
    ] {
        let log = arc_epochs(dir, log, values);
        ok(
            dir,
            &[
                "import",
                "inspect",
                "--from",
                &log,
                "--out",
                out,
                "--repeats",
                "all",
            ],
        );
    }
    let done = run(
        dir,
        &[
            "split",
            "--from-scores",
            "base.csv",
            "--ratios",
            "0,0,1",
            "--out",
            "split",
        ],
    );
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert!(
        done.stderr
            .contains("`base.csv` holds repeats (rows `<item>#<r>` whose group is the item): its 15 rows are 5 items"),
        "{}",
        done.stderr
    );
    done.stdout
}

fn evidence<'a>(report: &'a Value, criterion: &str) -> &'a Value {
    report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["criterion"] == criterion)
        .unwrap_or_else(|| panic!("no {criterion} in {report}"))
}

/// Regression: `split --from-scores` made a holdout of the 15 `item#r` rows, and
/// `admit --manifest` then failed holdout-intact on every run, as `admit` tests on
/// the items (and a list of items was "not scored").
#[test]
fn a_repeats_import_of_a_real_inspect_log_gets_a_holdout_of_items_and_admit_counts_it_in_the_ledger()
 {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let split = imported_and_split(dir);
    assert!(
        split.contains("holdout      5 tasks from    1 group\n"),
        "{split}"
    );
    let manifest = json_of(&fs::read_to_string(dir.join("split/manifest.json")).unwrap());
    let holdout = &manifest["splits"][2];
    let mut ids: Vec<String> = holdout["task_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    ids.sort();
    assert_eq!(ids, items());
    assert_eq!(holdout["groups"], json!(["inspect_evals/arc_easy"]));
    let holdout_csv = fs::read_to_string(dir.join("split/holdout.csv")).unwrap();
    assert_eq!(holdout_csv.lines().count(), 1 + 5, "{holdout_csv}");
    assert!(!holdout_csv.contains('#'), "{holdout_csv}");
    let checked = run(dir, &["split", "--check", "split"]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);

    // Fixed-n admit on the holdout of items, with the ledger.
    let fixed = run(
        dir,
        &[
            "admit",
            "--baseline",
            "base.csv",
            "--candidate",
            "tuned.csv",
            "--tasks",
            "split/holdout.csv",
            "--manifest",
            "split/manifest.json",
            "--ledger",
            "ledger.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(fixed.code, 1, "{}", fixed.stderr);
    let report = json_of(&fixed.stdout);
    // Five items: mean differences 1/3, 1/3, 0, 2/3, 1/3 (candidate − baseline of the
    // share of right epochs), four non-zero and all up: exact signed-rank p = 2^-4,
    // above the ledger's first alpha 0.0304.
    assert_eq!(report["n"], 5, "{report}");
    assert_eq!(report["p_improvement"], 0.0625);
    assert_eq!(report["repeats"]["rows"], 15);
    assert_eq!(report["repeats"]["items"], 5);
    assert_eq!(report["repeats"]["k"], 3);
    let intact = evidence(&report, "holdout-intact");
    assert_eq!(intact["result"], "pass", "{intact}");
    assert!(
        intact["proof"]
            .as_str()
            .unwrap()
            .starts_with("5 tasks used = the 5 holdout tasks of split/manifest.json"),
        "{intact}"
    );
    let pairing = evidence(&report, "pairing-complete");
    assert_eq!(pairing["result"], "pass", "{pairing}");
    let ledger = &report["ledger"];
    assert_eq!(ledger["attempt"], 1);
    // The identity is the holdout's: SHA-256 of its sorted item ids.
    // python3 -c 'import hashlib; print(hashlib.sha256("\n".join(
    //   f"inspect_evals/arc_easy:{i}" for i in range(1, 6)).encode()).hexdigest())'
    assert_eq!(
        ledger["holdout_sha256"],
        "374f3f763bd7bf14c1600ab23bc110667814aaf95ae38d0c9d8af489359f4389"
    );

    // The manifest alone (the files hold just the holdout's items) is the same holdout:
    // these files decided alike already, so that attempt stands.
    let again = run(
        dir,
        &[
            "admit",
            "--baseline",
            "base.csv",
            "--candidate",
            "tuned.csv",
            "--manifest",
            "split/manifest.json",
            "--ledger",
            "ledger.jsonl",
            "--format",
            "json",
        ],
    );
    assert_eq!(again.code, 1, "{}", again.stderr);
    let report = json_of(&again.stdout);
    assert_eq!(evidence(&report, "holdout-intact")["result"], "pass");
    assert_eq!(report["ledger"]["attempt"], 1);
    assert_eq!(report["ledger"]["repeated"], true);

    // admit --sequential refuses the repeats, saying what to do ...
    let sequential = |base: &str, tuned: &str| {
        run(
            dir,
            &[
                "admit",
                "--sequential",
                "--manifest",
                "split/manifest.json",
                "--baseline",
                base,
                "--candidate",
                tuned,
                "--ledger",
                "ledger.jsonl",
                "--format",
                "json",
            ],
        )
    };
    assert_input_error(
        &sequential("base.csv", "tuned.csv"),
        &[
            "`base.csv` row 2: `inspect_evals/arc_easy:1#1` is a repeat of item `inspect_evals/arc_easy:1`",
            "admit --sequential looks at one row per task",
            "import again with a reducer (--repeats mean, or majority)",
        ],
    );
    // ... and a reduced import, one row per item, is monitored on the same holdout of
    // items: the next attempt of the same count.
    for (log, out) in [
        ("base.json", "base-mean.csv"),
        ("tuned.json", "tuned-mean.csv"),
    ] {
        ok(
            dir,
            &[
                "import",
                "inspect",
                "--from",
                log,
                "--out",
                out,
                "--repeats",
                "mean",
            ],
        );
    }
    let reduced = sequential("base-mean.csv", "tuned-mean.csv");
    assert!(reduced.code == 0 || reduced.code == 1, "{}", reduced.stderr);
    assert_eq!(json_of(&reduced.stdout)["ledger"]["attempt"], 2);
    let shown = ok(dir, &["ledger", "show", "ledger.jsonl"]);
    assert!(shown.contains(": 2 attempts, 0 admitted;"), "{shown}");
}

/// A scores file of `items` (id, repeats) in stratum `a`, every repeat right.
fn repeats_csv(items: &[(&str, usize)]) -> String {
    let mut text = String::from("task_id,group,kind,correct,score\n");
    for (item, k) in items {
        for r in 1..=*k {
            text.push_str(&format!("{item}#{r},{item},a,1,1\n"));
        }
    }
    text
}

fn admit_on(dir: &Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["admit", "--baseline", "b.csv", "--candidate", "c.csv"];
    args.extend(extra);
    run(dir, &args)
}

/// Regression: a task list of items gave "`b.csv` lacks 2 tasks that `items.csv` has".
#[test]
fn a_list_of_items_pairs_all_of_their_repeats_and_leaves_the_other_items_out() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    write(dir, "b.csv", &repeats_csv(&[("x", 3), ("y", 2), ("z", 3)]));
    write(dir, "c.csv", &repeats_csv(&[("x", 3), ("y", 2), ("z", 3)]));
    write(dir, "items.csv", "task_id\nx\ny\n");
    let done = admit_on(dir, &["--tasks", "items.csv", "--format", "json"]);
    assert_eq!(done.code, 1, "{}", done.stderr);
    let report = json_of(&done.stdout);
    assert_eq!(report["n"], 2);
    assert_eq!(report["repeats"]["rows"], 5);
    assert_eq!(report["repeats"]["items"], 2);
    assert_eq!(report["repeats"]["k"], 2);
    assert_eq!(report["repeats"]["k_max"], 3);
    assert_eq!(
        evidence(&report, "pairing-complete")["proof"],
        "the 2 tasks of items.csv, each once in both files, paired by task_id (3 other baseline rows and 3 other candidate rows left out)"
    );
    // A list of rows still pairs those rows.
    write(dir, "rows.csv", "task_id\nx#1\nx#2\n");
    let rows = json_of(&admit_on(dir, &["--tasks", "rows.csv", "--format", "json"]).stdout);
    assert_eq!(rows["repeats"]["rows"], 2);
    assert_eq!(rows["repeats"]["items"], 1);
}

#[test]
fn a_repeat_of_a_listed_item_that_one_arm_lacks_is_counted_and_named_never_averaged_away() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // x#3 only in the baseline, y#1 only in the candidate; z (not listed) lacks z#2 in
    // the candidate, which does not matter.
    let base = "task_id,group,kind,correct,score\nx#1,x,a,1,1\nx#2,x,a,1,1\nx#3,x,a,0,0\ny#2,y,a,1,1\nz#1,z,a,1,1\nz#2,z,a,1,1\n";
    let cand = "task_id,group,kind,correct,score\nx#1,x,a,1,1\nx#2,x,a,1,1\ny#1,y,a,0,0\ny#2,y,a,1,1\nz#1,z,a,1,1\n";
    write(dir, "b.csv", base);
    write(dir, "c.csv", cand);
    write(dir, "items.csv", "task_id\nx\ny\n");
    assert_input_error(
        &admit_on(dir, &["--tasks", "items.csv"]),
        &[
            "2 repeats of 2 items of `items.csv` are not in both scores files",
            "`x#3` in `b.csv` row 4, not in `c.csv`",
            "`y#1` in `c.csv` row 4, not in `b.csv`",
            "never on those that happen to be there",
        ],
    );
    // Without a list, the files must hold the same rows, repeats included.
    assert_input_error(
        &admit_on(dir, &[]),
        &["`c.csv` lacks 2 tasks that `b.csv` has", "`x#3` (row 4)"],
    );
    // An item listed beside one of its repeats is ambiguous.
    write(dir, "both.csv", "task_id\nz\nz#1\n");
    assert_input_error(
        &admit_on(dir, &["--tasks", "both.csv"]),
        &["`both.csv` lists item `z` (row 2) and its repeat `z#1` (row 3)"],
    );
}

/// A holdout that lists the repeats of the items tested (what `split --from-scores`
/// wrote before it listed items) is refused with the fix, before any ledger is touched.
#[test]
fn a_manifest_that_records_repeats_as_the_holdout_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let scores = repeats_csv(&[("x", 2), ("y", 2)]);
    write(dir, "b.csv", &scores);
    write(dir, "c.csv", &scores);
    crate::util::write_manifest(dir, &["x#1", "x#2", "y#1", "y#2"]);
    let done = admit_on(
        dir,
        &["--manifest", "manifest.json", "--ledger", "ledger.jsonl"],
    );
    assert_input_error(
        &done,
        &[
            "`manifest.json` records a holdout of repeats (`x#1`, a repeat of item `x`)",
            "make it again with `evogate split --from-scores`",
        ],
    );
    assert!(!dir.join("ledger.jsonl").exists());
    // The holdout of items is proved.
    crate::util::write_manifest(dir, &["x", "y"]);
    let done = admit_on(dir, &["--manifest", "manifest.json", "--format", "json"]);
    let report = json_of(&done.stdout);
    assert_eq!(evidence(&report, "holdout-intact")["result"], "pass");
}

#[test]
fn split_from_scores_deals_items_of_repeats_whole_by_the_group_their_ids_name() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let mut scores = String::from("task_id,group,kind,correct,score\n");
    for bench in ["arc", "gsm8k", "mmlu", "piqa"] {
        for i in 0..10 {
            for r in 1..=3 {
                scores.push_str(&format!("{bench}:{i}#{r},{bench}:{i},{bench},1,1\n"));
            }
        }
    }
    write(dir, "s.csv", &scores);
    ok(dir, &["split", "--from-scores", "s.csv", "--out", "out"]);
    let mut all = Vec::new();
    for name in ["train", "val", "holdout"] {
        let text = fs::read_to_string(dir.join(format!("out/{name}.csv"))).unwrap();
        let rows: Vec<Vec<String>> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        // Each split holds whole benchmarks of 10 items, each item once, grouped by
        // the benchmark its id names, in the item's kind.
        assert_eq!(rows.len() % 10, 0, "{name}: {text}");
        for row in &rows {
            assert!(!row[0].contains('#'), "{name}: {text}");
            assert_eq!(row[0].split(':').next().unwrap(), row[1], "{name}: {text}");
            assert_eq!(row[1], row[2], "{name}: {text}");
        }
        all.extend(rows.into_iter().map(|r| r[0].clone()));
    }
    all.sort();
    let mut expected: Vec<String> = ["arc", "gsm8k", "mmlu", "piqa"]
        .iter()
        .flat_map(|b| (0..10).map(move |i| format!("{b}:{i}")))
        .collect();
    expected.sort();
    assert_eq!(all, expected);
    let checked = run(dir, &["split", "--check", "out"]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);

    // Repeats of one item in two kinds, and an item that is also a row of its own.
    write(
        dir,
        "kinds.csv",
        "task_id,group,kind,score\na:1#1,a:1,x,1\na:1#2,a:1,y,1\n",
    );
    assert_input_error(
        &run(dir, &["split", "--from-scores", "kinds.csv", "--out", "k"]),
        &[
            "`kinds.csv` row 3: the repeats of item `a:1` have different kinds (`x` on row 2, `y` here)",
        ],
    );
    write(
        dir,
        "mixed.csv",
        "task_id,group,score\na:1#1,a:1,1\na:1,a,1\n",
    );
    assert_input_error(
        &run(dir, &["split", "--from-scores", "mixed.csv", "--out", "m"]),
        &["`mixed.csv` row 3: task `a:1` is a row of its own and also the item of the repeats"],
    );
    assert!(!dir.join("k").exists() && !dir.join("m").exists());
}
