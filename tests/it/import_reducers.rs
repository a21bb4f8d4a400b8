//! `evogate import inspect` of logs whose `epochs_reducer` evogate cannot apply: a
//! reducer of the task's own (`@score_reducer`) or several reducers. The logs are the
//! real popularity log of `tests/data/formats/inspect/` run for four epochs and given the
//! reducer fields as Inspect writes them (`reducer_log_names` in
//! `inspect_ai/scorer/_reducer/registry.py`: one name per reducer in
//! `eval.config.epochs_reducer`, and one `results.scores` entry and one `reductions`
//! entry per reducer, each with its `reducer`).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{assert_input_error, formats, put, run, text};

/// The real popularity log with its one sample run for four epochs (I, C, I, I) and
/// reduced, as Inspect records it, by the reducers `names`.
fn reduced_by(dir: &Path, names: &[&str]) -> PathBuf {
    let mut log: Value = serde_json::from_str(&text(&formats("inspect/log_read_sample.json")))
        .expect("the real log is JSON");
    let sample = log["samples"][0].clone();
    let samples = ["I", "C", "I", "I"]
        .iter()
        .enumerate()
        .map(|(epoch, value)| {
            let mut copy = sample.clone();
            copy["epoch"] = json!(epoch + 1);
            copy["scores"]["match"]["value"] = json!(value);
            copy
        })
        .collect();
    log["samples"] = Value::Array(samples);
    log["eval"]["config"]["epochs"] = json!(4);
    log["eval"]["config"]["epochs_reducer"] = json!(names);
    let score = log["results"]["scores"][0].clone();
    let reduction = log["reductions"][0].clone();
    let (mut scores, mut reductions) = (Vec::new(), Vec::new());
    for name in names {
        let mut score = score.clone();
        score["reducer"] = json!(name);
        scores.push(score);
        let mut reduction = reduction.clone();
        reduction["reducer"] = json!(name);
        reductions.push(reduction);
    }
    log["results"]["scores"] = Value::Array(scores);
    log["reductions"] = Value::Array(reductions);
    let path = dir.join(format!(
        "reduced_by_{}.json",
        names.join("_").replace('/', "_")
    ));
    put(&path, &log.to_string());
    path
}

fn import(dir: &Path, from: &Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec![
        "import",
        "inspect",
        "--from",
        from.to_str().unwrap(),
        "--out",
        "s.csv",
    ];
    args.extend(extra);
    run(dir, &args)
}

#[test]
fn a_custom_reducer_is_named_with_its_scorer_and_repeats_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let log = reduced_by(dir.path(), &["worst"]);
    let done = import(dir.path(), &log, &[]);
    assert_input_error(
        &done,
        &[
            "task `popularity`",
            "up to 4 repeats",
            "epochs_reducer of scorer `match` is `worst`",
            "not one of Inspect's built-in reducers",
            "give --repeats with the rule it stands for",
            "`mean`, `majority`, `first`, `all`, `median`, `mode`, `max`, `pass_at_K`, `at_least_K`",
        ],
    );
    assert!(!done.stderr.contains("names no reducer"), "{}", done.stderr);
    // The rule given stands in for the custom one: the worst of I, C, I, I is 0.
    let done = import(dir.path(), &log, &["--repeats", "first"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,kind,correct,score\npopularity:1,popularity,0,0\n"
    );
}

#[test]
fn several_reducers_are_named_and_one_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let log = reduced_by(dir.path(), &["mean", "pass_at_2"]);
    let done = import(dir.path(), &log, &[]);
    assert_input_error(
        &done,
        &[
            "task `popularity`",
            "epochs_reducer of scorer `match` names 2 reducers, `mean` and `pass_at_2`",
            "choose one with --repeats",
        ],
    );
    assert!(!done.stderr.contains("names no reducer"), "{}", done.stderr);
    let done = import(dir.path(), &log, &["--repeats", "pass_at_2"]);
    assert_eq!(done.code, 0, "{}", done.stderr);
    // pass_at_2 of one right in four: 1 - C(3, 2) / C(4, 2) = 1 - 3/6.
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,kind,score\npopularity:1,popularity,0.5\n"
    );
}

#[test]
fn a_package_reducer_keeps_its_namespace_in_the_message() {
    let dir = tempfile::tempdir().unwrap();
    // A reducer from an installed package is logged as `<package>/<name>`.
    let log = reduced_by(dir.path(), &["my_evals/worst_of"]);
    let done = import(dir.path(), &log, &[]);
    assert_input_error(
        &done,
        &["epochs_reducer of scorer `match` is `my_evals/worst_of`"],
    );
}
