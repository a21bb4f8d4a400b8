//! `evogate import` of whole suites: several tasks or subjects in one arm,
//! repeats, direction and the honesty rules, on suites built from the real logs in
//! `data/formats/` (sources in its SOURCES.md). Expected values are read by hand from
//! those logs or computed here from their definitions, never from evogate's output.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::util::{assert_input_error, formats, put, run, text};

fn json_of(path: &Path) -> Value {
    serde_json::from_str(&text(path)).unwrap()
}

/// Runs `evogate` with `args` in `dir`.
fn evogate(dir: &Path, args: &[&str]) -> crate::util::Run {
    run(dir, args)
}

/// Runs `evogate import FORMAT --from FROM --out OUT` with `extra` in `dir`.
fn import(dir: &Path, format: &str, from: &str, out: &str, extra: &[&str]) -> crate::util::Run {
    let mut args = vec!["import", format, "--from", from, "--out", out];
    args.extend(extra);
    run(dir, &args)
}

fn ok(done: crate::util::Run) -> crate::util::Run {
    assert_eq!(done.code, 0, "{}", done.stderr);
    done
}

/// The selectors of the lm-eval suite: gsm8k's metric comes from its results file;
/// the other two tasks' results file does not say which way their metrics run.
const SUITE_SELECTORS: &[&str] = &[
    "--filter",
    "strict-match",
    "--metric",
    "hellaswag=acc",
    "--metric",
    "arc_easy=acc_norm",
    "--higher-is-better",
];

const GSM8K_BASE: &str = "lm-eval/samples_gsm8k_2025-09-09T13-42-42.857006.jsonl";
const DATE: &str = "2025-09-09T13-42-42.857006";

/// The real gsm8k lines as another task whose metric is `metric` (its value the line's
/// `exact_match`, negated for `flip`).
fn as_task(metric: &str, flip: bool) -> String {
    let mut out = String::new();
    for line in text(&formats(GSM8K_BASE)).lines() {
        let mut value: Value = serde_json::from_str(line).unwrap();
        let map = value.as_object_mut().unwrap();
        let score = map.remove("exact_match").unwrap().as_f64().unwrap();
        let score = if flip { 1.0 - score } else { score };
        map.insert("metrics".into(), json!([metric]));
        map.insert(metric.into(), json!(score));
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

/// An lm-eval output folder of three tasks with different metrics: gsm8k (the real
/// file, `exact_match`, and its results file naming it primary), hellaswag (`acc`) and
/// arc_easy (`acc_norm`, the outcomes flipped).
fn lm_eval_suite(dir: &Path) -> String {
    let run = dir.join("out/model");
    put(
        &run.join(format!("samples_gsm8k_{DATE}.jsonl")),
        &text(&formats(GSM8K_BASE)),
    );
    put(
        &run.join(format!("results_{DATE}.json")),
        &text(&formats(&format!("lm-eval/results_{DATE}.json"))),
    );
    put(
        &run.join(format!("samples_hellaswag_{DATE}.jsonl")),
        &as_task("acc", false),
    );
    put(
        &run.join(format!("samples_arc_easy_{DATE}.jsonl")),
        &as_task("acc_norm", true),
    );
    run.to_str().unwrap().to_string()
}

#[test]
fn three_lm_eval_tasks_with_different_metrics_make_one_arm() {
    let dir = tempfile::tempdir().unwrap();
    let folder = &lm_eval_suite(dir.path());
    // One metric for all is refused naming the tasks that lack it, not called missing.
    let one = import(
        dir.path(),
        "lm-eval",
        folder,
        "s.csv",
        &["--filter", "strict-match", "--metric", "acc"],
    );
    assert_input_error(
        &one,
        &["--metric `acc` for task `arc_easy` is not in the log; the log has: `acc_norm`"],
    );
    // A selector for a task the run does not hold is an error listing the tasks.
    let stray = import(
        dir.path(),
        "lm-eval",
        folder,
        "s.csv",
        &["--filter", "strict-match", "--metric", "mmlu=acc"],
    );
    assert_input_error(
        &stray,
        &["--metric `mmlu=acc` is not in the log", "`gsm8k=NAME`"],
    );
    // Per task; gsm8k takes the primary metric its results file names.
    let done = ok(import(
        dir.path(),
        "lm-eval",
        folder,
        "s.csv",
        SUITE_SELECTORS,
    ));
    // The real log's exact_match under strict-match: docs 16 and 18 right, 17 wrong.
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,kind,correct,score\n\
         arc_easy:16,arc_easy,0,0\narc_easy:17,arc_easy,1,1\narc_easy:18,arc_easy,0,0\n\
         gsm8k:16,gsm8k,1,1\ngsm8k:17,gsm8k,0,0\ngsm8k:18,gsm8k,1,1\n\
         hellaswag:16,hellaswag,1,1\nhellaswag:17,hellaswag,0,0\nhellaswag:18,hellaswag,1,1\n"
    );
    let record = json_of(&dir.path().join("s.import.json"));
    assert_eq!(
        record["selectors"]["metric"],
        "arc_easy=acc_norm,gsm8k=exact_match,hellaswag=acc"
    );
    // Every input is in the one record: three samples files and the results file.
    assert_eq!(record["inputs"].as_array().unwrap().len(), 4);
    assert_eq!(record["documents"].as_object().unwrap().len(), 3);
    // The results file says the direction and that gsm8k ran on 100 documents.
    assert_eq!(record["direction"]["logged"], "higher");
    assert!(
        record["direction"]["source"]
            .as_str()
            .unwrap()
            .contains("higher_is_better"),
        "{record}"
    );
    assert!(
        done.stderr.contains("says task `gsm8k` ran on 100 documents (n-samples effective), but its samples file holds 3"),
        "{}",
        done.stderr
    );
    // A glob the shell left unexpanded, and several paths after one --from, read the same.
    let glob = format!("{folder}/samples_*.jsonl");
    ok(import(
        dir.path(),
        "lm-eval",
        &glob,
        "g.csv",
        SUITE_SELECTORS,
    ));
    assert_eq!(
        text(&dir.path().join("g.csv")),
        text(&dir.path().join("s.csv"))
    );
}

/// A HELM suite: the real philosophy run copied as `subjects`, each with its own
/// run_spec.json, so instance ids (`id147`) repeat across subjects.
fn helm_suite(dir: &Path, subjects: &[&str]) -> PathBuf {
    let real =
        formats("helm/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2");
    let runs = dir.join("runs/v1");
    for subject in subjects {
        let run = runs.join(format!(
            "mmlu:subject={subject},method=multiple_choice_joint,model=openai_gpt2"
        ));
        for name in ["per_instance_stats.json", "scenario_state.json"] {
            put(&run.join(name), &text(&real.join(name)));
        }
        let mut spec = json_of(&real.join("run_spec.json"));
        spec["name"] = json!(format!(
            "mmlu:subject={subject},method=multiple_choice_joint,model=openai_gpt2"
        ));
        spec["scenario_spec"]["args"]["subject"] = json!(subject);
        put(&run.join("run_spec.json"), &spec.to_string());
    }
    runs
}

#[test]
fn five_helm_subjects_make_one_arm_with_the_subject_as_kind_and_in_the_id() {
    let dir = tempfile::tempdir().unwrap();
    let subjects = [
        "anatomy",
        "astronomy",
        "philosophy",
        "virology",
        "world_religions",
    ];
    let runs = helm_suite(dir.path(), &subjects);
    ok(import(
        dir.path(),
        "helm",
        runs.to_str().unwrap(),
        "s.csv",
        &["--split", "test", "--metric", "exact_match"],
    ));
    let csv = text(&dir.path().join("s.csv"));
    // 9 test instances a subject, one right (id222) in each.
    assert_eq!(csv.lines().count(), 1 + 5 * 9, "{csv}");
    for subject in subjects {
        assert!(
            csv.contains(&format!(
                "mmlu:subject={subject}:id222,mmlu:subject={subject},1,1\n"
            )),
            "{csv}"
        );
        assert!(
            csv.contains(&format!("mmlu:subject={subject}:id147,")),
            "{csv}"
        );
    }
    let record = json_of(&dir.path().join("s.import.json"));
    // Per subject: run_spec, scenario_state and per_instance_stats.
    assert_eq!(record["inputs"].as_array().unwrap().len(), 15);
    assert_eq!(record["documents"].as_object().unwrap().len(), 5);
    // A lower-is-better metric: HELM's inference_runtime (seconds) mapped with --scale.
    let runtime = |scale: &str| {
        let selectors = [
            "--split",
            "test",
            "--metric",
            "inference_runtime",
            "--scale",
            scale,
        ];
        import(
            dir.path(),
            "helm",
            runs.to_str().unwrap(),
            "r.csv",
            &selectors,
        )
    };
    let done = ok(runtime("0:10"));
    let record = json_of(&dir.path().join("r.import.json"));
    assert_eq!(record["direction"]["logged"], "lower", "{}", done.stderr);
    // id147's runtime in the real log is 0.6803672313690186 s: 1 - 0.068...
    let csv = text(&dir.path().join("r.csv"));
    let row = csv
        .lines()
        .find(|l| l.starts_with("mmlu:subject=anatomy:id147,"))
        .unwrap();
    let score: f64 = row.rsplit(',').next().unwrap().parse().unwrap();
    assert!(
        (score - (1.0 - 0.6803672313690186 / 10.0)).abs() < 1e-6,
        "{row}"
    );
    // Reversing it again is refused rather than turned upside down twice.
    let twice = runtime("10:0");
    assert_input_error(&twice, &["reverses it again"]);
}

/// The real promptfoo export as `promptfoo eval --repeat 3` writes it: every result
/// three times, the score of the gpt-5 arm's k-th copy set to `scores[k]`.
fn promptfoo_repeat(dir: &Path) -> String {
    let mut log = json_of(&formats("promptfoo/sample-export.subset.json"));
    let results = log["results"]["results"].as_array().unwrap().clone();
    let mut repeated = Vec::new();
    for k in 0..3 {
        for result in &results {
            let mut copy = result.clone();
            if copy["provider"]["id"] == "openai:gpt-5" {
                copy["score"] = json!([1.0, 0.0, 1.0][k]);
            }
            repeated.push(copy);
        }
    }
    log["results"]["results"] = Value::Array(repeated);
    let path = dir.join("repeat.json");
    put(&path, &log.to_string());
    path.to_str().unwrap().to_string()
}

#[test]
fn a_promptfoo_repeat_3_log_reduces_its_repeats_or_keeps_them_as_groups() {
    let dir = tempfile::tempdir().unwrap();
    let log = &promptfoo_repeat(dir.path());
    let base = [
        "import",
        "promptfoo",
        "--from",
        log,
        "--id-var",
        "riddle",
        "--arm",
        "openai:gpt-5",
    ];
    let needed = evogate(dir.path(), &[&base[..], &["--out", "s.csv"]].concat());
    assert_input_error(
        &needed,
        &["--repeats is needed (items have up to 3 repeats"],
    );
    ok(evogate(
        dir.path(),
        &[&base[..], &["--out", "m.csv", "--repeats", "majority"]].concat(),
    ));
    // 1, 0, 1: the majority is 1 for each of the two tests.
    let csv = text(&dir.path().join("m.csv"));
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",1,1")), "{csv}");
    ok(evogate(
        dir.path(),
        &[&base[..], &["--out", "a.csv", "--repeats", "all"]].concat(),
    ));
    let all = text(&dir.path().join("a.csv"));
    assert!(all.starts_with("task_id,group,correct,score\n"), "{all}");
    assert_eq!(all.lines().count(), 1 + 2 * 3, "{all}");
    assert!(all.contains("?#2\",\""), "{all}");
    // Both arms with every repeat, tested on items.
    ok(import(
        dir.path(),
        "promptfoo",
        log,
        "b.csv",
        &[
            "--id-var",
            "riddle",
            "--arm",
            "openai:gpt-5-mini",
            "--drop-assert",
            "latency,cost",
            "--repeats",
            "all",
        ],
    ));
    // Both arms with every repeat: admit tests on the two items, not the six rows.
    let admit = evogate(
        dir.path(),
        &["admit", "--baseline", "b.csv", "--candidate", "a.csv"],
    );
    assert!(admit.code == 0 || admit.code == 1, "{}", admit.stderr);
    assert!(
        admit
            .stdout
            .contains("repeats:    6 rows are repeats of 2 items"),
        "{}",
        admit.stdout
    );
    assert!(admit.stdout.contains(", 2 pairs"), "{}", admit.stdout);
}

/// Inspect's `pass_at(k)` as its definition: 1 - C(n - c, k) / C(n, k).
fn pass_at(n: u64, c: u64, k: u64) -> f64 {
    fn choose(n: u64, k: u64) -> f64 {
        if k > n {
            return 0.0;
        }
        (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
    }
    1.0 - choose(n - c, k) / choose(n, k)
}

/// The real popularity log with its one sample run for four epochs valued `values`,
/// the log naming `reducer` as its epochs_reducer.
fn inspect_epochs(dir: &Path, reducer: &str, values: &[&str]) -> PathBuf {
    let mut log = json_of(&formats("inspect/log_read_sample.json"));
    let sample = log["samples"][0].clone();
    let mut samples = Vec::new();
    for (epoch, value) in values.iter().enumerate() {
        let mut copy = sample.clone();
        copy["epoch"] = json!(epoch + 1);
        copy["scores"]["match"]["value"] = json!(value);
        samples.push(copy);
    }
    log["samples"] = Value::Array(samples);
    log["eval"]["config"]["epochs"] = json!(values.len());
    log["eval"]["config"]["epochs_reducer"] = json!([reducer]);
    let path = dir.join(format!("epochs_{reducer}.json"));
    put(&path, &log.to_string());
    path
}

#[test]
fn an_inspect_log_with_epochs_is_reduced_by_its_own_reducer() {
    let dir = tempfile::tempdir().unwrap();
    let values = ["I", "C", "I", "I"];
    for (reducer, wanted) in [
        ("pass_at_2", pass_at(4, 1, 2)),
        ("mean", 0.25),
        ("median", 0.0),
        ("max", 1.0),
        ("mode", 0.0),
    ] {
        let log = inspect_epochs(dir.path(), reducer, &values);
        ok(import(
            dir.path(),
            "inspect",
            log.to_str().unwrap(),
            "s.csv",
            &[],
        ));
        let csv = text(&dir.path().join("s.csv"));
        let score: f64 = csv
            .lines()
            .nth(1)
            .unwrap()
            .rsplit(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((score - wanted).abs() < 1e-6, "{reducer}: {csv}");
        let record = json_of(&dir.path().join("s.import.json"));
        assert_eq!(
            record["repeats"],
            format!("{reducer} (the log's epochs_reducer)")
        );
    }
    // pass_at_2 of one right in four is 0.5 by the definition.
    assert_eq!(pass_at(4, 1, 2), 0.5);
    // --repeats overrides the log's reducer; `all` keeps each epoch with its item.
    let log = inspect_epochs(dir.path(), "mean", &values);
    ok(import(
        dir.path(),
        "inspect",
        log.to_str().unwrap(),
        "a.csv",
        &["--repeats", "all"],
    ));
    assert_eq!(
        text(&dir.path().join("a.csv")),
        "task_id,group,kind,correct,score\n\
         popularity:1#1,popularity:1,popularity,0,0\npopularity:1#2,popularity:1,popularity,1,1\n\
         popularity:1#3,popularity:1,popularity,0,0\npopularity:1#4,popularity:1,popularity,0,0\n"
    );
}

#[test]
fn inspect_epochs_that_are_not_whole_numbers_from_1_are_refused_naming_the_epoch() {
    let dir = tempfile::tempdir().unwrap();
    for bad in [json!(-1), json!("2"), json!(0)] {
        let mut log = json_of(&formats("inspect/log_read_sample.json"));
        log["samples"][0]["epoch"] = bad.clone();
        let path = dir.path().join("bad.json");
        put(&path, &log.to_string());
        let done = import(dir.path(), "inspect", path.to_str().unwrap(), "s.csv", &[]);
        assert_input_error(
            &done,
            &[&format!(
                "sample `1`: epoch {bad} is not a whole number from 1"
            )],
        );
    }
}

#[test]
fn an_inspect_log_that_ended_in_error_imports_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = json_of(&formats("inspect/log_read_sample.json"));
    log["status"] = json!("error");
    let path = dir.path().join("err.json");
    put(&path, &log.to_string());
    let done = ok(import(
        dir.path(),
        "inspect",
        path.to_str().unwrap(),
        "s.csv",
        &[],
    ));
    assert!(
        done.stderr
            .contains("err.json` ended with status `error`, not `success`"),
        "{}",
        done.stderr
    );
    let record = json_of(&dir.path().join("s.import.json"));
    assert!(
        record["notes"]
            .to_string()
            .contains("ended with status `error`")
    );
    // The dataset the run used is recorded.
    assert!(
        record["datasets"]
            .to_string()
            .contains("name popularity, location example://popularity, 100 samples"),
        "{record}"
    );
}

#[test]
fn inspect_arms_on_different_inputs_under_the_same_ids_do_not_pair() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = json_of(&formats("inspect/data_arc_qwen.json"));
    ok(import(
        dir.path(),
        "inspect",
        formats("inspect/data_arc_qwen.json").to_str().unwrap(),
        "a.csv",
        &[],
    ));
    for sample in log["samples"].as_array_mut().unwrap() {
        sample["input"] = json!("a question from another dataset");
    }
    log["eval"]["dataset"]["name"] = json!("totally_different");
    let other = dir.path().join("other.json");
    put(&other, &log.to_string());
    ok(import(
        dir.path(),
        "inspect",
        other.to_str().unwrap(),
        "b.csv",
        &[],
    ));
    let admit = evogate(
        dir.path(),
        &["admit", "--baseline", "a.csv", "--candidate", "b.csv"],
    );
    assert_input_error(&admit, &["3 tasks were run on different documents"]);
}

#[test]
fn a_selector_that_does_not_apply_to_the_format_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let from = formats(GSM8K_BASE);
    let done = import(
        dir.path(),
        "lm-eval",
        from.to_str().unwrap(),
        "s.csv",
        &["--scorer", "match"],
    );
    assert_input_error(
        &done,
        &["--scorer does not apply to lm-eval logs (it is read for inspect); leave it out"],
    );
    let done = import(
        dir.path(),
        "openai-evals",
        from.to_str().unwrap(),
        "s.csv",
        &["--repeats", "mean"],
    );
    assert_input_error(&done, &["--repeats does not apply to openai-evals logs"]);
}

#[test]
fn an_endless_line_ends_in_a_named_error() {
    let dir = tempfile::tempdir().unwrap();
    let done = evogate(
        dir.path(),
        &[
            "import",
            "lm-eval",
            "--task",
            "x",
            "--from",
            "/dev/zero",
            "--out",
            "z.csv",
        ],
    );
    assert_input_error(
        &done,
        &["`/dev/zero` row 1: the line is longer than 64 MiB"],
    );
}

#[test]
fn an_eval_archive_with_two_members_of_one_name_is_refused_as_ambiguous() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::File::open(formats("inspect/log_read_sample.eval")).unwrap();
    let mut source = zip::ZipArchive::new(source).unwrap();
    let sample = {
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut source.by_name("samples/1_epoch_1.json").unwrap(),
            &mut text,
        )
        .unwrap();
        text
    };
    let header = {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut source.by_name("header.json").unwrap(), &mut text)
            .unwrap();
        text
    };
    let mut bytes = std::io::Cursor::new(Vec::new());
    {
        let mut writer = zip::ZipWriter::new(&mut bytes);
        let options = zip::write::SimpleFileOptions::default();
        writer.start_file("header.json", options).unwrap();
        std::io::Write::write_all(&mut writer, header.as_bytes()).unwrap();
        for name in ["samples/1_epoch_1.json", "samples/1_epoch_9.json"] {
            writer.start_file(name, options).unwrap();
            std::io::Write::write_all(&mut writer, sample.as_bytes()).unwrap();
        }
        writer.finish().unwrap();
    }
    // The second member renamed to the first's name, in its local and central headers.
    let mut bytes = bytes.into_inner();
    let (from, to) = (b"samples/1_epoch_9.json", b"samples/1_epoch_1.json");
    let mut at = 0;
    while let Some(i) = bytes[at..].windows(from.len()).position(|w| w == from) {
        bytes[at + i..at + i + to.len()].copy_from_slice(to);
        at += i + 1;
    }
    let path = dir.path().join("dup.eval");
    std::fs::write(&path, bytes).unwrap();
    let done = import(dir.path(), "inspect", path.to_str().unwrap(), "s.csv", &[]);
    assert_input_error(&done, &["dup.eval", "two members of one name"]);
}

#[test]
fn admit_refuses_a_record_that_does_not_match_its_scores_file_and_notes_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    for (name, log) in [
        ("a", GSM8K_BASE),
        (
            "b",
            "lm-eval/samples_gsm8k_2025-09-09T13-31-53.431753.jsonl",
        ),
    ] {
        ok(import(
            dir.path(),
            "lm-eval",
            formats(log).to_str().unwrap(),
            &format!("{name}.csv"),
            &[],
        ));
    }
    let record = json_of(&dir.path().join("a.import.json"));
    assert_eq!(
        record["scores_sha256"].as_str().unwrap().len(),
        64,
        "{record}"
    );
    // The record of one run beside the scores of another (an interrupted import).
    let b = text(&dir.path().join("b.csv"));
    std::fs::write(dir.path().join("a.csv"), &b).unwrap();
    let admit = evogate(
        dir.path(),
        &["admit", "--baseline", "a.csv", "--candidate", "b.csv"],
    );
    assert_input_error(
        &admit,
        &["`a.import.json` was written for another scores file than `a.csv`"],
    );
    // No record beside the candidate while the baseline has one: a note.
    std::fs::remove_file(dir.path().join("a.import.json")).unwrap();
    let admit = evogate(
        dir.path(),
        &["admit", "--baseline", "b.csv", "--candidate", "a.csv"],
    );
    assert!(
        admit
            .stderr
            .contains("`b.csv` has an import record and `a.csv` has none"),
        "{}",
        admit.stderr
    );
}

#[test]
fn a_gepa_best_candidate_cannot_be_admitted_on_the_scores_it_was_chosen_on() {
    let dir = tempfile::tempdir().unwrap();
    let gepa = formats("dspy/gepa_result_v2.json");
    let gepa = gepa.to_str().unwrap();
    ok(import(
        dir.path(),
        "dspy",
        gepa,
        "base.csv",
        &["--candidate", "0"],
    ));
    ok(import(
        dir.path(),
        "dspy",
        gepa,
        "best.csv",
        &["--candidate", "best"],
    ));
    assert_eq!(
        json_of(&dir.path().join("best.import.json"))["selected_on_these_scores"],
        true
    );
    assert_eq!(
        json_of(&dir.path().join("base.import.json"))["selected_on_these_scores"],
        false
    );
    let admit = evogate(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "base.csv",
            "--candidate",
            "best.csv",
            "--format",
            "json",
        ],
    );
    assert_eq!(admit.code, 1, "{}", admit.stderr);
    let report: Value = serde_json::from_str(&admit.stdout).unwrap();
    assert_ne!(report["verdict"], "admitted");
    assert!(
        admit.stdout.contains("not-selected-on-these-scores"),
        "{}",
        admit.stdout
    );
}

/// The real gsm8k lines as task `hellaswag` whose lines name filter `none` and metric
/// `acc`: a suite whose tasks name their filters differently.
fn other_filter() -> String {
    let mut out = String::new();
    for line in text(&formats(GSM8K_BASE)).lines() {
        let mut value: Value = serde_json::from_str(line).unwrap();
        let map = value.as_object_mut().unwrap();
        let score = map.remove("exact_match").unwrap();
        map.insert("filter".into(), json!("none"));
        map.insert("metrics".into(), json!(["acc"]));
        map.insert("acc".into(), score);
        out.push_str(&value.to_string());
        out.push('\n');
    }
    out
}

#[test]
fn a_filter_only_some_tasks_have_names_the_task_that_lacks_it_and_says_repeat_the_filter() {
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("suite");
    put(
        &run_dir.join(format!("samples_gsm8k_{DATE}.jsonl")),
        &text(&formats(GSM8K_BASE)),
    );
    put(
        &run_dir.join(format!("samples_hellaswag_{DATE}.jsonl")),
        &other_filter(),
    );
    let one = import(
        dir.path(),
        "lm-eval",
        "suite",
        "s.csv",
        &["--filter", "strict-match"],
    );
    assert_input_error(
        &one,
        &[
            "--filter `strict-match` is not in the lines of task `hellaswag`, which have `none`",
            "repeat --filter to give every task its own (--filter strict-match --filter none)",
        ],
    );
    assert!(!one.stderr.contains("is not in the log"), "{}", one.stderr);
    // The fix the message gives works: each task reads its own filter.
    ok(import(
        dir.path(),
        "lm-eval",
        "suite",
        "s.csv",
        &[
            "--filter",
            "strict-match",
            "--filter",
            "none",
            "--higher-is-better",
        ],
    ));
    let rows = text(&dir.path().join("s.csv"));
    assert_eq!(rows.lines().count(), 7, "{rows}");
    assert!(rows.contains("hellaswag:16,hellaswag,1,1"), "{rows}");
    // A filter no task has is still "not in the log", with the filters of every task
    // (the first task's alone were listed before: `strict-match`, not hellaswag's `none`).
    let neither = import(
        dir.path(),
        "lm-eval",
        "suite",
        "n.csv",
        &["--filter", "flexible-extract"],
    );
    assert_input_error(
        &neither,
        &["--filter `flexible-extract` is not in the log; the log has: `none`, `strict-match` ("],
    );
}

#[test]
fn a_glob_in_a_folder_part_is_refused_saying_only_the_file_name_is_matched() {
    let dir = tempfile::tempdir().unwrap();
    lm_eval_suite(dir.path());
    let done = import(
        dir.path(),
        "lm-eval",
        "out/*/samples_*.jsonl",
        "s.csv",
        SUITE_SELECTORS,
    );
    assert_input_error(
        &done,
        &[
            "`out/*/samples_*.jsonl`",
            "`*` and `?` are matched in the last part of a path only (the file name), and `*` is a folder part",
            "give the folder `out`, which is searched 3 levels down",
        ],
    );
    // What the message offers works.
    ok(import(
        dir.path(),
        "lm-eval",
        "out",
        "s.csv",
        SUITE_SELECTORS,
    ));
    ok(import(
        dir.path(),
        "lm-eval",
        "out/model/samples_*.jsonl",
        "g.csv",
        SUITE_SELECTORS,
    ));
}
