//! `evogate import` on the real logs in `data/formats/` (sources in its SOURCES.md):
//! one test per format, pairs of runs taken to `admit`, and one test per refusal rule.

use std::path::{Path, PathBuf};

use crate::util::{assert_input_error, run, write};

fn formats(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(rel);
    path.to_str().unwrap().to_string()
}

const GSM8K_TUNED: &str = "lm-eval/samples_gsm8k_2025-09-09T13-31-53.431753.jsonl";
const GSM8K_BASE: &str = "lm-eval/samples_gsm8k_2025-09-09T13-42-42.857006.jsonl";

/// Runs `import FORMAT --from ... --out out` with `extra`, in `dir`.
fn import(
    dir: &Path,
    format: &str,
    from: &[String],
    out: &str,
    extra: &[&str],
) -> crate::util::Run {
    let mut args = vec!["import".to_string(), format.to_string()];
    for path in from {
        args.push("--from".to_string());
        args.push(path.clone());
    }
    args.extend(["--out".to_string(), out.to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    run(dir, &args)
}

/// [`import`] that must succeed: exit 0, or the test fails with what it printed.
fn imported(
    dir: &Path,
    format: &str,
    from: &[String],
    out: &str,
    extra: &[&str],
) -> crate::util::Run {
    let done = import(dir, format, from, out, extra);
    assert_eq!(done.code, 0, "{}", done.stderr);
    done
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

fn record(dir: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&read(dir, name)).unwrap()
}

#[test]
fn lm_eval_gsm8k_runs_import_by_task_and_doc_and_pair_in_admit() {
    let dir = tempfile::tempdir().unwrap();
    imported(
        dir.path(),
        "lm-eval",
        &[formats(GSM8K_BASE)],
        "base.csv",
        &[],
    );
    imported(
        dir.path(),
        "lm-eval",
        &[formats(GSM8K_TUNED)],
        "tuned.csv",
        &[],
    );
    // Values read by hand from the logs' `exact_match` under `strict-match`.
    assert_eq!(
        read(dir.path(), "base.csv"),
        "task_id,kind,correct,score\ngsm8k:16,gsm8k,1,1\ngsm8k:17,gsm8k,0,0\ngsm8k:18,gsm8k,1,1\n"
    );
    assert_eq!(
        read(dir.path(), "tuned.csv"),
        "task_id,kind,correct,score\ngsm8k:16,gsm8k,1,1\ngsm8k:17,gsm8k,0,0\ngsm8k:18,gsm8k,0,0\n"
    );
    let rec = record(dir.path(), "base.import.json");
    assert_eq!(rec["format"], "lm-eval");
    assert_eq!(rec["selectors"]["filter"], "gsm8k=strict-match");
    // The primary metric of gsm8k's `metric_list` in the results file beside it.
    assert_eq!(rec["selectors"]["metric"], "gsm8k=exact_match");
    // Each document's key: the first 16 hex digits of its `doc_hash` in the log.
    assert_eq!(rec["schema"], "evogate/import/v3");
    assert_eq!(rec["documents"]["gsm8k"]["ranges"], "16-18");
    assert_eq!(
        rec["documents"]["gsm8k"]["keys"],
        "8d52662ed683404dad662c6b86448869be370d8da8f4f002"
    );
    assert_eq!(rec["inputs"][0]["sha256"].as_str().unwrap().len(), 64);
    let admit = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "tuned.csv",
            "--candidate",
            "base.csv",
        ],
    );
    // One discordant pair cannot be significant: inconclusive, exit 1, McNemar on 3 pairs.
    assert_eq!(admit.code, 1, "{}", admit.stderr);
    assert!(admit.stdout.contains("3 pairs"), "{}", admit.stdout);
    assert!(
        admit.stdout.contains("b 0 (baseline only), c 1"),
        "{}",
        admit.stdout
    );
}

#[test]
fn admit_refuses_lm_eval_runs_made_on_different_documents() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(formats(GSM8K_BASE)).unwrap();
    let changed = text.replacen(
        "ad662c6b86448869ef350d4e32c0949d5373ca786126a665119d96fc35297d79",
        "0000000000000000000000000000000000000000000000000000000000000000",
        1,
    );
    assert_ne!(text, changed);
    write(
        dir.path(),
        "samples_gsm8k_2025-01-01T00-00-00.0.jsonl",
        &changed,
    );
    assert_eq!(
        import(dir.path(), "lm-eval", &[formats(GSM8K_TUNED)], "a.csv", &[]).code,
        0
    );
    imported(
        dir.path(),
        "lm-eval",
        &["samples_gsm8k_2025-01-01T00-00-00.0.jsonl".to_string()],
        "b.csv",
        &["--higher-is-better"],
    );
    let admit = run(
        dir.path(),
        &["admit", "--baseline", "a.csv", "--candidate", "b.csv"],
    );
    assert_input_error(
        &admit,
        &["1 task was run on different documents", "`gsm8k:17`"],
    );
}

/// Two filters, two metrics, in the nested layout (`metrics` an object).
const TWO_FILTERS: &str = r#"{"doc_id": 0, "filter": "strict-match", "doc_hash": "h0", "metrics": {"exact_match": 1.0, "bleu": 57.0}}
{"doc_id": 0, "filter": "flexible-extract", "doc_hash": "h0", "metrics": {"exact_match": 0.0, "bleu": 12.5}}
{"doc_id": 1, "filter": "strict-match", "doc_hash": "h1", "metrics": {"exact_match": 0.0, "bleu": 3.0}}
{"doc_id": 1, "filter": "flexible-extract", "doc_hash": "h1", "metrics": {"exact_match": 1.0, "bleu": 100.0}}
"#;
const TWO_FILTERS_NAME: &str = "samples_toy_2025-01-01T00-00-00.jsonl";

#[test]
fn lm_eval_reads_the_nested_layout_and_the_filter_chooses_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let from = [write(dir.path(), TWO_FILTERS_NAME, TWO_FILTERS)];
    let flexible = &[
        "--filter",
        "flexible-extract",
        "--metric",
        "exact_match",
        "--higher-is-better",
    ];
    assert_eq!(
        import(dir.path(), "lm-eval", &from, "s.csv", flexible).code,
        0
    );
    assert_eq!(
        read(dir.path(), "s.csv"),
        "task_id,kind,correct,score\ntoy:0,toy,0,0\ntoy:1,toy,1,1\n"
    );
}

#[test]
fn a_needed_selector_that_is_missing_exits_2_listing_the_choices() {
    let dir = tempfile::tempdir().unwrap();
    let from = [write(dir.path(), TWO_FILTERS_NAME, TWO_FILTERS)];
    let run = import(
        dir.path(),
        "lm-eval",
        &from,
        "s.csv",
        &["--metric", "exact_match"],
    );
    assert_input_error(
        &run,
        &["--filter is needed", "`flexible-extract`, `strict-match`"],
    );
    let run = import(
        dir.path(),
        "lm-eval",
        &from,
        "s.csv",
        &["--filter", "strict-match"],
    );
    assert_input_error(&run, &["--metric is needed", "`bleu`, `exact_match`"]);
    assert!(!dir.path().join("s.csv").exists());
    let pf = import(
        dir.path(),
        "promptfoo",
        &[formats("promptfoo/sample-export.subset.json")],
        "p.csv",
        &[],
    );
    assert_input_error(
        &pf,
        &["--arm is needed", "`openai:gpt-5`, `openai:gpt-5-mini`"],
    );
}

#[test]
fn a_selector_naming_what_the_log_lacks_exits_2_listing_the_choices() {
    let dir = tempfile::tempdir().unwrap();
    let from = [formats(GSM8K_BASE)];
    let run = import(dir.path(), "lm-eval", &from, "s.csv", &["--metric", "acc"]);
    assert_input_error(
        &run,
        &[
            "--metric `acc` for task `gsm8k` is not in the log",
            "`exact_match`",
        ],
    );
    let run = import(
        dir.path(),
        "lm-eval",
        &from,
        "s.csv",
        &["--filter", "flexible-extract"],
    );
    assert_input_error(&run, &["--filter `flexible-extract`", "`strict-match`"]);
    let helm =
        formats("helm/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2");
    let run = import(
        dir.path(),
        "helm",
        &[helm],
        "h.csv",
        &["--metric", "exact_match"],
    );
    assert_input_error(&run, &["--split is needed", "`test`, `valid`"]);
}

#[test]
fn scores_outside_the_unit_interval_are_refused_unless_scale_maps_them() {
    let dir = tempfile::tempdir().unwrap();
    let from = [write(dir.path(), TWO_FILTERS_NAME, TWO_FILTERS)];
    let bleu = [
        "--filter",
        "strict-match",
        "--metric",
        "bleu",
        "--higher-is-better",
    ];
    let run = import(dir.path(), "lm-eval", &from, "s.csv", &bleu);
    assert_input_error(
        &run,
        &[
            "2 scores are outside [0, 1]",
            "`toy:0` scores 57",
            "--scale",
        ],
    );
    let scaled = [&bleu[..], &["--scale", "0:100"]].concat();
    assert_eq!(
        import(dir.path(), "lm-eval", &from, "s.csv", &scaled).code,
        0
    );
    assert_eq!(
        read(dir.path(), "s.csv"),
        "task_id,kind,score\ntoy:0,toy,0.57\ntoy:1,toy,0.03\n"
    );
    assert_eq!(record(dir.path(), "s.import.json")["scale"], "0:100");
}

#[test]
fn missing_samples_fail_by_default_and_intersect_records_them() {
    let dir = tempfile::tempdir().unwrap();
    // doc 2 has a flexible-extract line but no strict-match line.
    let text = format!(
        "{TWO_FILTERS}{}\n",
        r#"{"doc_id": 2, "filter": "flexible-extract", "metrics": {"exact_match": 1.0}}"#
    );
    let from = [write(dir.path(), TWO_FILTERS_NAME, &text)];
    let strict = ["--filter", "strict-match", "--metric", "exact_match"];
    let run = import(dir.path(), "lm-eval", &from, "s.csv", &strict);
    assert_input_error(
        &run,
        &["1 missing (first: `toy:2`)", "--on-missing intersect"],
    );
    let opt_in = [
        &strict[..],
        &["--on-missing", "intersect", "--higher-is-better"],
    ]
    .concat();
    let run = import(dir.path(), "lm-eval", &from, "s.csv", &opt_in);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let rec = record(dir.path(), "s.import.json");
    assert_eq!(rec["dropped"]["missing"]["count"], 1);
    assert_eq!(rec["dropped"]["missing"]["first"][0], "toy:2");
    assert_eq!(rec["rows"], 2);
}

#[test]
fn inspect_arc_runs_of_different_limits_pair_on_the_shared_tasks() {
    let dir = tempfile::tempdir().unwrap();
    imported(
        dir.path(),
        "inspect",
        &[formats("inspect/data_arc_qwen.json")],
        "qwen.csv",
        &[],
    );
    imported(
        dir.path(),
        "inspect",
        &[formats("inspect/data_arc_sonnet.json")],
        "sonnet.csv",
        &[],
    );
    // C, I, I for qwen (limit 3); C five times for sonnet (limit 5).
    assert_eq!(
        read(dir.path(), "qwen.csv"),
        "task_id,kind,correct,score\ninspect_evals/arc_easy:1,inspect_evals/arc_easy,1,1\ninspect_evals/arc_easy:2,inspect_evals/arc_easy,0,0\ninspect_evals/arc_easy:3,inspect_evals/arc_easy,0,0\n"
    );
    assert_eq!(read(dir.path(), "sonnet.csv").lines().count(), 6);
    let admit = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "qwen.csv",
            "--candidate",
            "sonnet.csv",
            "--tasks",
            "qwen.csv",
        ],
    );
    assert_eq!(admit.code, 1, "{}", admit.stderr);
    assert!(
        admit.stdout.contains("b 0 (baseline only), c 2"),
        "{}",
        admit.stdout
    );
}

#[test]
fn inspect_eval_zip_and_json_logs_of_one_run_give_the_same_scores() {
    let dir = tempfile::tempdir().unwrap();
    imported(
        dir.path(),
        "inspect",
        &[formats("inspect/log_read_sample.eval")],
        "z.csv",
        &[],
    );
    imported(
        dir.path(),
        "inspect",
        &[formats("inspect/log_read_sample.json")],
        "j.csv",
        &[],
    );
    assert_eq!(
        read(dir.path(), "z.csv"),
        "task_id,kind,correct,score\npopularity:1,popularity,1,1\n"
    );
    assert_eq!(read(dir.path(), "z.csv"), read(dir.path(), "j.csv"));
    imported(
        dir.path(),
        "inspect",
        &[formats("inspect/mmlu-summary-choices.eval")],
        "m.csv",
        &[],
    );
    assert_eq!(
        record(dir.path(), "m.import.json")["selectors"]["scorer"],
        "inspect_evals/mmlu_0_shot=choice"
    );
}

/// An Inspect JSON log of two samples, the second with two epochs (C and I), and a
/// third sample that errored.
const EPOCHS: &str = r#"{"eval": {"task": "t"}, "samples": [
 {"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}},
 {"id": 2, "epoch": 1, "scores": {"match": {"value": "C"}}},
 {"id": 2, "epoch": 2, "scores": {"match": {"value": "I"}}},
 {"id": 3, "epoch": 1, "scores": {}, "error": {"message": "rate limited"}}
]}"#;

#[test]
fn inspect_epochs_need_repeats_and_a_mean_turns_outcomes_into_scores() {
    let dir = tempfile::tempdir().unwrap();
    let from = [write(dir.path(), "e.json", EPOCHS)];
    let run = import(
        dir.path(),
        "inspect",
        &from,
        "s.csv",
        &["--on-missing", "intersect"],
    );
    assert_input_error(
        &run,
        &[
            "--repeats is needed (items have up to 2 repeats and the log names no reducer)",
            "`mean`, `majority`, `first`, `all`",
        ],
    );
    let run = import(
        dir.path(),
        "inspect",
        &from,
        "s.csv",
        &["--repeats", "majority", "--on-missing", "intersect"],
    );
    assert_input_error(
        &run,
        &["task `t:2`: its 2 repeats have no value held by more than half"],
    );
    let run = imported(
        dir.path(),
        "inspect",
        &from,
        "s.csv",
        &["--repeats", "mean", "--on-missing", "intersect"],
    );
    assert!(
        run.stderr
            .contains("reducing repeats turned the 0/1 outcomes of 1 task into scores"),
        "{}",
        run.stderr
    );
    // t:1 ran one of the two epochs t:2 ran: left out whole as missing, never
    // averaged over its one epoch.
    assert!(
        run.stderr
            .contains("1 repeat missing (first: `t:1#2`) in 1 item"),
        "{}",
        run.stderr
    );
    assert_eq!(read(dir.path(), "s.csv"), "task_id,kind,score\nt:2,t,0.5\n");
    assert_eq!(
        record(dir.path(), "s.import.json")["dropped"]["missing"]["first"][0],
        "t:1"
    );
}

#[test]
fn errored_samples_are_missing_not_wrong_and_fail_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let from = [write(dir.path(), "e.json", EPOCHS)];
    let run = import(
        dir.path(),
        "inspect",
        &from,
        "s.csv",
        &["--repeats", "first"],
    );
    assert_input_error(&run, &["1 errored (first: `t:3`)"]);
    imported(
        dir.path(),
        "inspect",
        &from,
        "s.csv",
        &["--repeats", "first", "--on-missing", "intersect"],
    );
    assert!(!read(dir.path(), "s.csv").contains("t:3"));
    assert_eq!(
        record(dir.path(), "s.import.json")["dropped"]["errored"]["count"],
        1
    );
}

#[test]
fn duplicated_samples_fail_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let log = formats("inspect/data_arc_qwen.json");
    let run = import(dir.path(), "inspect", &[log.clone(), log], "s.csv", &[]);
    assert_input_error(&run, &["3 duplicated (first: `inspect_evals/arc_easy:1`"]);
}

#[test]
fn promptfoo_arms_in_one_file_pair_by_test_variables_without_latency_and_cost() {
    let dir = tempfile::tempdir().unwrap();
    let from = [formats("promptfoo/sample-export.subset.json")];
    let drop = ["--drop-assert", "latency,cost", "--id-var", "riddle"];
    imported(
        dir.path(),
        "promptfoo",
        &from,
        "big.csv",
        &[&["--arm", "openai:gpt-5"][..], &drop].concat(),
    );
    imported(
        dir.path(),
        "promptfoo",
        &from,
        "mini.csv",
        &[&["--arm", "prompt:1"][..], &drop].concat(),
    );
    // Without latency and cost every kept assertion passed: 1 and 1 for both arms.
    assert!(
        read(dir.path(), "big.csv").starts_with("task_id,correct,score\n\"I speak without a mouth")
    );
    assert_eq!(read(dir.path(), "big.csv").matches(",1,1\n").count(), 2);
    imported(
        dir.path(),
        "promptfoo",
        &from,
        "raw.csv",
        &["--arm", "openai:gpt-5-mini", "--id-var", "riddle"],
    );
    assert!(
        read(dir.path(), "raw.csv").contains(",0.75\n"),
        "{}",
        read(dir.path(), "raw.csv")
    );
    let admit = run(
        dir.path(),
        &["admit", "--baseline", "mini.csv", "--candidate", "big.csv"],
    );
    assert_eq!(admit.code, 1, "{}", admit.stderr);
    assert!(admit.stdout.contains("2 pairs"), "{}", admit.stdout);
    let wrong = import(
        dir.path(),
        "promptfoo",
        &from,
        "x.csv",
        &["--arm", "openai:gpt-5", "--drop-assert", "speed"],
    );
    assert_input_error(
        &wrong,
        &[
            "--drop-assert `speed` is not in the log",
            "`contains`, `cost`, `latency`, `llm-rubric`",
        ],
    );
}

#[test]
fn openai_evals_match_events_become_outcomes_by_sample_id() {
    let dir = tempfile::tempdir().unwrap();
    let from = [formats(
        "openai-evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
    )];
    let run = import(dir.path(), "openai-evals", &from, "s.csv", &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        read(dir.path(), "s.csv"),
        "task_id,kind,correct,score\ntest-match.s1.0,test-match,0,0\ntest-match.s1.1,test-match,1,1\ntest-match.s1.2,test-match,0,0\n"
    );
}

#[test]
fn helm_run_folder_reads_one_split_and_metric() {
    let dir = tempfile::tempdir().unwrap();
    let helm =
        formats("helm/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2");
    imported(
        dir.path(),
        "helm",
        &[helm],
        "s.csv",
        &["--split", "test", "--metric", "exact_match"],
    );
    let csv = read(dir.path(), "s.csv");
    // 9 test instances (the tenth is in `valid`); gpt2 gets one right (id222).
    assert_eq!(csv.lines().count(), 10, "{csv}");
    assert_eq!(csv.matches(",1,1\n").count(), 1, "{csv}");
    // The subject, from run_spec.json, is the kind.
    assert!(csv.contains("id222,mmlu:subject=philosophy,1,1\n"), "{csv}");
}

#[test]
fn dspy_evaluate_records_need_an_id_field_and_the_recorded_gepa_calls_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let calls = import(
        dir.path(),
        "dspy",
        &[formats("dspy/gepa_dummy_lm.json")],
        "s.csv",
        &[],
    );
    assert_input_error(&calls, &["not a list of records as dspy.Evaluate"]);
    let saved = r#"[{"input": "What is the color of the sky?", "output": "blue", "metric": true},
 {"input": "=What does the fox say?", "output": "ring-ding", "metric": false}]"#;
    let from = [write(dir.path(), "eval.json", saved)];
    let run = import(dir.path(), "dspy", &from, "s.csv", &[]);
    assert_input_error(&run, &["--id-field is needed", "`input`, `output`"]);
    let run = import(dir.path(), "dspy", &from, "s.csv", &["--id-field", "input"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Identifiers are data: a task id starting with `=` is written as it is (no `'`
    // from the formula guard), and admit pairs it with the same id in the other arm.
    assert_eq!(
        read(dir.path(), "s.csv"),
        "task_id,correct,score\n=What does the fox say?,0,0\nWhat is the color of the sky?,1,1\n"
    );
    let other = r#"[{"input": "What is the color of the sky?", "output": "blue", "metric": true},
 {"input": "=What does the fox say?", "output": "ring-ding-ding", "metric": true}]"#;
    let from = [write(dir.path(), "other.json", other)];
    let second = import(dir.path(), "dspy", &from, "t.csv", &["--id-field", "input"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    let paired = crate::util::run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "s.csv",
            "--candidate",
            "t.csv",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&paired.stdout).unwrap();
    assert_eq!(report["n"], 2, "{}", paired.stderr);
    assert_eq!(report["discordant"]["candidate_only"], 1);
}

/// A real `dspy.GEPA` run's `detailed_results.to_dict()` (made as SOURCES.md says).
const GEPA_DSPY: &str = "dspy/gepa_detailed_results.json";

#[test]
fn a_gepa_result_of_a_real_dspy_run_imports_the_seed_and_the_best_candidate_and_they_pair_in_admit()
{
    let dir = tempfile::tempdir().unwrap();
    let from = [formats(GEPA_DSPY)];
    let asked = import(dir.path(), "dspy", &from, "s.csv", &[]);
    assert_input_error(
        &asked,
        &[
            "--candidate is needed",
            "0 is the seed program, the baseline",
            "`best (= 1)`, `0`, `1`",
        ],
    );
    imported(dir.path(), "dspy", &from, "seed.csv", &["--candidate", "0"]);
    imported(
        dir.path(),
        "dspy",
        &from,
        "best.csv",
        &["--candidate", "best"],
    );
    // The run's subscores, booleans: seed {0: false, 1: false}, best {0: false, 1: true}.
    assert_eq!(
        read(dir.path(), "seed.csv"),
        "task_id,correct,score\n0,0,0\n1,0,0\n"
    );
    assert_eq!(
        read(dir.path(), "best.csv"),
        "task_id,correct,score\n0,0,0\n1,1,1\n"
    );
    let rec = record(dir.path(), "best.import.json");
    assert_eq!(rec["selectors"]["candidate"], "best (1)");
    assert_eq!(rec["selectors"]["id"], "validation id");
    let admit = run(
        dir.path(),
        &["admit", "--baseline", "seed.csv", "--candidate", "best.csv"],
    );
    // One discordant pair in the candidate's favour: not significant, exit 1.
    assert_eq!(admit.code, 1, "{}", admit.stderr);
    assert!(admit.stdout.contains("2 pairs"), "{}", admit.stdout);
    // Task ids from a field of the validation examples the run was given.
    let valset = ["--valset", &formats("dspy/gepa_valset.json")];
    let asked = import(
        dir.path(),
        "dspy",
        &from,
        "q.csv",
        &[&["--candidate", "1"], &valset[..]].concat(),
    );
    assert_input_error(&asked, &["--id-field is needed", "`input`, `output`"]);
    imported(
        dir.path(),
        "dspy",
        &from,
        "q.csv",
        &[&["--candidate", "1", "--id-field", "input"], &valset[..]].concat(),
    );
    assert_eq!(
        read(dir.path(), "q.csv"),
        "task_id,correct,score\nWhat does the fox say?,1,1\nWhat is the color of the sky?,0,0\n"
    );
    assert_eq!(
        record(dir.path(), "q.import.json")["inputs"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "the valset's digest is recorded"
    );
}

#[test]
fn gepa_results_of_schema_0_and_schema_2_read_alike() {
    let dir = tempfile::tempdir().unwrap();
    for (schema, file) in [
        ("v0", "dspy/gepa_result_v0.json"),
        ("v2", "dspy/gepa_result_v2.json"),
    ] {
        for (candidate, wanted) in [
            ("0", "task_id,score\n0,0.1\n1,0.2\n"),
            ("1", "task_id,score\n0,0.3\n1,0.4\n"),
            ("best", "task_id,score\n0,0.3\n1,0.4\n"),
        ] {
            let out = format!("{schema}-{candidate}.csv");
            imported(
                dir.path(),
                "dspy",
                &[formats(file)],
                &out,
                &["--candidate", candidate],
            );
            assert_eq!(
                read(dir.path(), &out),
                wanted,
                "{schema} --candidate {candidate}"
            );
        }
    }
}

#[test]
fn gepa_results_refuse_what_they_cannot_answer() {
    let dir = tempfile::tempdir().unwrap();
    let from = [formats(GEPA_DSPY)];
    let asked = import(dir.path(), "dspy", &from, "s.csv", &["--candidate", "2"]);
    assert_input_error(
        &asked,
        &[
            "--candidate `2` is not in the log",
            "`best (= 1)`, `0`, `1`",
        ],
    );
    let asked = import(
        dir.path(),
        "dspy",
        &from,
        "s.csv",
        &["--candidate", "0", "--metric", "acc"],
    );
    assert_input_error(&asked, &["--metric `acc` does not apply to a GEPA result"]);
    let asked = import(
        dir.path(),
        "dspy",
        &from,
        "s.csv",
        &["--candidate", "0", "--id-field", "input"],
    );
    assert_input_error(&asked, &["needs --valset FILE"]);
    let evaluate = [write(dir.path(), "eval.json", r#"[{"q": "a", "m": 1}]"#)];
    let asked = import(
        dir.path(),
        "dspy",
        &evaluate,
        "s.csv",
        &["--candidate", "0"],
    );
    assert_input_error(&asked, &["--candidate applies to a GEPA result"]);
    // Candidate 1 was run on one validation example of three (an incremental policy):
    // the two others are missing, which fails unless the user opts in.
    let sparse = [write(
        dir.path(),
        "sparse.json",
        r#"{"val_subscores": [{"0": 1.0, "1": 0.0, "2": 1.0}, {"0": true}],
            "per_val_instance_best_candidates": {"0": [0, 1], "1": [0], "2": [0]},
            "val_aggregate_scores": [0.6667, 1.0], "best_idx": 1}"#,
    )];
    let asked = import(
        dir.path(),
        "dspy",
        &sparse,
        "s.csv",
        &["--candidate", "best"],
    );
    assert_input_error(&asked, &["tasks 2 missing (first: `1`, `2`)"]);
    imported(
        dir.path(),
        "dspy",
        &sparse,
        "s.csv",
        &["--candidate", "best", "--on-missing", "intersect"],
    );
    assert_eq!(read(dir.path(), "s.csv"), "task_id,correct,score\n0,1,1\n");
    let text = [write(
        dir.path(),
        "text.json",
        r#"{"val_subscores": [{"0": "yes"}]}"#,
    )];
    let asked = import(dir.path(), "dspy", &text, "s.csv", &["--candidate", "0"]);
    assert_input_error(
        &asked,
        &["candidate 0's score on validation example `0` is \"yes\""],
    );
}

#[test]
fn an_empty_or_unreadable_log_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let empty = [write(dir.path(), "samples_t_2025-01-01T00.jsonl", "\n")];
    let run = import(dir.path(), "lm-eval", &empty, "s.csv", &[]);
    assert_input_error(
        &run,
        &["`samples_t_2025-01-01T00.jsonl`: holds no sample lines"],
    );
    let garbage = [write(dir.path(), "bad.eval", "garbage")];
    let run = import(dir.path(), "inspect", &garbage, "s.csv", &[]);
    assert_input_error(&run, &["`bad.eval`: not a zip archive (.eval)"]);
    let unnamed = [write(dir.path(), "log.jsonl", TWO_FILTERS)];
    let run = import(dir.path(), "lm-eval", &unnamed, "s.csv", &[]);
    assert_input_error(
        &run,
        &["`log.jsonl`: the file name is not samples_<task>_<date>.jsonl"],
    );
    let named = [
        "--task",
        "toy",
        "--filter",
        "strict-match",
        "--metric",
        "exact_match",
        "--higher-is-better",
    ];
    assert_eq!(
        import(dir.path(), "lm-eval", &unnamed, "s.csv", &named).code,
        0
    );
    assert!(read(dir.path(), "s.csv").contains("toy:0,toy,1,1\n"));
}

/// Regression: `import --out` naming the log it reads, or a path whose
/// record (`X.import.json`) is the log or the `--valset`, exited 0 and replaced the
/// log. Every such run now exits 2 naming both, and the log keeps its bytes.
#[test]
fn import_refuses_to_write_over_its_own_log_or_valset() {
    let dir = tempfile::tempdir().unwrap();
    let copy = |rel: &str, name: &str| -> String {
        std::fs::copy(formats(rel), dir.path().join(name)).unwrap();
        name.to_string()
    };
    let lm_eval = copy(GSM8K_BASE, "samples_gsm8k_2025-01-01.jsonl");
    let promptfoo = copy("promptfoo/sample-export.subset.json", "promptfoo.json");
    let helm = "helm-run";
    std::fs::create_dir(dir.path().join(helm)).unwrap();
    let helm_stats = format!("{helm}/per_instance_stats.json");
    copy(
        "helm/mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2/per_instance_stats.json",
        &helm_stats,
    );
    let evals = copy(
        "openai-evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
        "evals.jsonl",
    );
    // A log named like a record: `--out x.csv` would write its record over it.
    let evals_record = copy(
        "openai-evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl",
        "x.import.json",
    );
    let gepa = copy(GEPA_DSPY, "gepa.json");
    let valset = copy("dspy/gepa_valset.json", "v.import.json");
    let lm_eval_flags = ["--filter", "strict-match", "--metric", "exact_match"];
    let cases: [(&str, &String, &str, Vec<&str>, &str); 6] = [
        (
            "lm-eval",
            &lm_eval,
            &lm_eval,
            lm_eval_flags.to_vec(),
            "--from",
        ),
        (
            "promptfoo",
            &promptfoo,
            &promptfoo,
            vec!["--arm", "prompt:1"],
            "--from",
        ),
        (
            "helm",
            &helm.to_string(),
            &helm_stats,
            vec!["--split", "test", "--metric", "exact_match"],
            "--from",
        ),
        ("openai-evals", &evals, &evals, vec![], "--from"),
        ("openai-evals", &evals_record, "x.csv", vec![], "--from"),
        (
            "dspy",
            &gepa,
            "v.csv",
            vec!["--valset", &valset, "--id-field", "input"],
            "--valset",
        ),
    ];
    for (format, from, out, extra, option) in cases {
        let log = dir
            .path()
            .join(if format == "helm" { &helm_stats } else { from });
        let before = std::fs::read(&log).unwrap();
        let run = import(dir.path(), format, std::slice::from_ref(from), out, &extra);
        assert_input_error(&run, &["would be written over the input", option]);
        assert_eq!(std::fs::read(&log).unwrap(), before, "{format} {out}");
    }
    // The command wrote nothing at all.
    assert!(!dir.path().join("x.csv").exists());
    assert!(!dir.path().join("v.csv").exists());
}

/// Regression: `admit` reads the import record beside each scores
/// file, but only the scores files were guarded, so a GITHUB_STEP_SUMMARY naming
/// `b.import.json` had the Markdown report appended to it (exit 1), and every later
/// `admit` on those files exited 2 on the broken record. It now exits 2 before writing,
/// and the record keeps its bytes.
#[test]
fn admit_refuses_a_step_summary_that_names_an_import_record_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let log = "openai-evals/230417220821DPM75QNS_auto_gpt_completion_fn_test-match.jsonl";
    std::fs::copy(formats(log), dir.path().join("log.jsonl")).unwrap();
    let from = ["log.jsonl".to_string()];
    imported(dir.path(), "openai-evals", &from, "b.csv", &[]);
    imported(dir.path(), "openai-evals", &from, "c.csv", &[]);
    for (record, option) in [
        ("b.import.json", "--baseline's import record"),
        ("c.import.json", "--candidate's import record"),
    ] {
        let path = dir.path().join(record);
        let before = std::fs::read(&path).unwrap();
        let output = crate::util::evogate(dir.path())
            .args(["admit", "--baseline", "b.csv", "--candidate", "c.csv"])
            .env("GITHUB_STEP_SUMMARY", &path)
            .output()
            .unwrap();
        crate::util::assert_step_summary_refused(&output, option);
        assert_eq!(std::fs::read(&path).unwrap(), before, "{record}");
    }
}

#[test]
#[cfg(unix)]
fn an_inspect_log_that_is_no_regular_file_is_refused_before_it_is_read() {
    // The digest of an Inspect log read `/dev/zero` without end, and a FIFO blocked
    // the import at its open: both are refused by name, at once.
    let dir = tempfile::tempdir().unwrap();
    let output = crate::util::evogate(dir.path())
        .args(["import", "inspect", "--from", "/dev/zero", "--out", "o.csv"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`/dev/zero`: not a regular file"),
        "{stderr}"
    );
    assert!(!dir.path().join("o.csv").exists());
}
