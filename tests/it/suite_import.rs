//! Suite import's holes: special files named like logs, repeats missing from some
//! items, the metric's direction, arms of several prompts and evogate's own records in
//! an import folder. Each test failed on the code before its fix, as its comment says,
//! and the logs are built from the real ones in `data/formats/` (sources in its
//! SOURCES.md).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{
    assert_input_error, formats, import_dspy_repeats, lm_eval_strict, put, run, text,
};

/// Writes `log` to `dir/name` and returns the name.
fn put_log(dir: &Path, name: &str, log: &Value) -> String {
    put(&dir.join(name), &log.to_string());
    name.to_string()
}

/// A real log of `data/formats/`, parsed.
fn format_json(rel: &str) -> Value {
    serde_json::from_str(&text(&formats(rel))).unwrap()
}

/// The import record `name` in `dir`.
fn import_record(dir: &Path, name: &str) -> Value {
    serde_json::from_str(&text(&dir.join(name))).unwrap()
}

fn ok(done: crate::util::Run) -> crate::util::Run {
    assert_eq!(done.code, 0, "{}", done.stderr);
    done
}

const GSM8K_BASE: &str = "lm-eval/samples_gsm8k_2025-09-09T13-42-42.857006.jsonl";

/// Runs the binary with `args` in `dir`, killed after `limit`: `None` when it was
/// still running then (the code before the fix blocked forever on a FIFO).
fn run_within(dir: &Path, args: &[&str], limit: Duration) -> Option<crate::util::Run> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_evogate"))
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    Some(crate::util::Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}

/// Asserts that `import lm-eval --from FROM`, in a folder whose `suite` holds the real
/// gsm8k samples and a FIFO named like a samples file, exits 2 within 30 s naming the
/// FIFO and writes nothing.
#[cfg(unix)]
fn assert_import_refuses_the_fifo(from: &str) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("suite");
    put(
        &folder.join("samples_gsm8k_2025-09-09T13-42-42.857006.jsonl"),
        &text(&formats(GSM8K_BASE)),
    );
    let fifo = folder.join("samples_fifo_2025-09-09T13-42-42.857006.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let args = [
        "import",
        "lm-eval",
        "--from",
        from,
        "--out",
        "s.csv",
        "--higher-is-better",
    ];
    let done = run_within(dir.path(), &args, Duration::from_secs(30))
        .expect("import returns instead of waiting on the FIFO");
    assert_input_error(
        &done,
        &[
            "samples_fifo_2025-09-09T13-42-42.857006.jsonl",
            "not a regular file",
        ],
    );
    assert!(!dir.path().join("s.csv").exists());
}

/// Regression: a FIFO named like a samples file inside an import folder
/// blocked `import` until it was killed. Now it exits 2 at once naming the FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_named_like_a_log_inside_an_import_folder_exits_2_naming_it_instead_of_blocking() {
    assert_import_refuses_the_fifo("suite");
}

/// Regression: a FIFO matched by a glob that `import` expands itself (`--from
/// 'suite/samples_*.jsonl'`, left unexpanded by the shell) blocked `import` as the folder
/// walk did before it refused such files. It now exits 2 at once naming the FIFO.
#[cfg(unix)]
#[test]
fn a_fifo_matched_by_an_import_glob_exits_2_naming_it_instead_of_blocking() {
    assert_import_refuses_the_fifo("suite/samples_*.jsonl");
}

/// Regression: a folder import read evogate's own `*.import.json`,
/// left in the folder by an earlier import, as a log and failed. It is never a log.
#[test]
fn a_folder_import_ignores_the_import_record_an_earlier_import_wrote_there() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("runs");
    put(
        &folder.join("results.json"),
        &text(&formats("promptfoo/sample-export.subset.json")),
    );
    let args = |out: &str| {
        [
            "import",
            "promptfoo",
            "--from",
            "runs",
            "--arm",
            "openai:gpt-5",
            "--id-var",
            "riddle",
            "--out",
            out,
        ]
        .map(str::to_string)
    };
    ok(run(dir.path(), &args("runs/first.csv")));
    assert!(folder.join("first.import.json").is_file());
    // The second import of the same folder reads the one log, not the record beside it.
    ok(run(dir.path(), &args("second.csv")));
    assert_eq!(
        text(&dir.path().join("second.csv")),
        text(&folder.join("first.csv"))
    );
    let record = import_record(dir.path(), "second.import.json");
    assert_eq!(record["inputs"].as_array().unwrap().len(), 1, "{record}");
}

/// The real gsm8k samples as a task whose per-document metric is `wer` (a word error
/// rate, lower is better), valued `values` by document, with no results file beside.
fn wer_samples(dir: &Path, name: &str, values: [f64; 3]) -> String {
    let mut out = String::new();
    for (line, value) in text(&formats(GSM8K_BASE)).lines().zip(values) {
        let mut row: Value = serde_json::from_str(line).unwrap();
        let map = row.as_object_mut().unwrap();
        map.remove("exact_match");
        map.insert("metrics".into(), json!(["wer"]));
        map.insert("wer".into(), json!(value));
        out.push_str(&row.to_string());
        out.push('\n');
    }
    put(&dir.join(name), &out);
    name.to_string()
}

/// Regression: lm-eval samples read without their results file were
/// taken as higher-is-better (`source: default`), so a WER was not inverted and the
/// better model looked worse. The direction is now needed; with it the WER is mapped.
#[test]
fn lm_eval_samples_without_their_results_file_need_the_direction_and_a_wer_is_inverted() {
    let dir = tempfile::tempdir().unwrap();
    let from = wer_samples(
        dir.path(),
        "samples_asr_2025-01-01T00-00-00.jsonl",
        [0.1, 0.5, 0.25],
    );
    let import = |extra: &[&str]| {
        let mut args = lm_eval_strict(&from, "s.csv");
        args.extend(extra);
        run(dir.path(), &args)
    };
    assert_input_error(
        &import(&[]),
        &[
            "which way the metric runs is not in the log",
            "task `asr` gives `higher_is_better` for `wer`",
            "--higher-is-better or --lower-is-better",
        ],
    );
    assert!(!dir.path().join("s.csv").exists());
    ok(import(&["--lower-is-better"]));
    // 1 - WER, by hand.
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,kind,score\nasr:16,asr,0.9\nasr:17,asr,0.5\nasr:18,asr,0.75\n"
    );
    let record = import_record(dir.path(), "s.import.json");
    assert_eq!(record["direction"]["logged"], "lower");
    assert_eq!(record["direction"]["source"], "--lower-is-better");
    ok(import(&["--higher-is-better"]));
    let record = import_record(dir.path(), "s.import.json");
    assert_eq!(record["direction"]["source"], "--higher-is-better");
    // The two flags together are refused by the parser.
    let both = import(&["--higher-is-better", "--lower-is-better"]);
    assert_eq!(both.code, 2, "{}", both.stderr);
    // Against the log's own word (the real results file says higher is better).
    let against = run(
        dir.path(),
        &[
            "import",
            "lm-eval",
            "--from",
            formats(GSM8K_BASE).to_str().unwrap(),
            "--out",
            "g.csv",
            "--lower-is-better",
        ],
    );
    assert_input_error(&against, &["the log says higher is better"]);
}

/// Imports a WER task twice into `dir`: `b.csv` with --lower-is-better and `c.csv`
/// with --higher-is-better, each with its record.
fn opposite_imports(dir: &Path) {
    let base = wer_samples(
        dir,
        "samples_asr_2025-01-01T00-00-00.jsonl",
        [0.1, 0.5, 0.25],
    );
    let cand = wer_samples(
        dir,
        "samples_asr_2025-01-02T00-00-00.jsonl",
        [0.0, 0.4, 0.2],
    );
    for (from, out, direction) in [
        (&base, "b.csv", "--lower-is-better"),
        (&cand, "c.csv", "--higher-is-better"),
    ] {
        let mut args = lm_eval_strict(from, out);
        args.push(direction);
        ok(run(dir, &args));
    }
}

/// The order of `b.csv`'s tasks, as `admit --sequential --order` reads it.
fn order_of_baseline(dir: &Path) {
    let ids: String = text(&dir.join("b.csv"))
        .lines()
        .skip(1)
        .map(|line| format!("{}\n", line.split(',').next().unwrap()))
        .collect();
    put(&dir.join("order.csv"), &format!("task_id\n{ids}"));
}

/// `admit --sequential` of `c.csv` against `b.csv` in `order.csv`'s order.
fn admit_sequential_on_order(dir: &Path) -> crate::util::Run {
    run(
        dir,
        &[
            "admit",
            "--sequential",
            "--order",
            "order.csv",
            "--baseline",
            "b.csv",
            "--candidate",
            "c.csv",
        ],
    )
}

/// What `admit` and `admit --sequential` say of the imports [`opposite_imports`] writes.
const OPPOSITE: [&str; 3] = [
    "opposite directions",
    "`b.import.json` says lower is better (--lower-is-better)",
    "`c.import.json` says higher is better (--higher-is-better)",
];

/// Regression: `admit` paired two records whose metrics ran in
/// opposite directions (one file's scores turned upside down, the other's not) without
/// a word. It now exits 2 naming both records.
#[test]
fn admit_refuses_two_imports_whose_metrics_ran_in_opposite_directions() {
    let dir = tempfile::tempdir().unwrap();
    opposite_imports(dir.path());
    let admit = run(
        dir.path(),
        &["admit", "--baseline", "b.csv", "--candidate", "c.csv"],
    );
    assert_input_error(&admit, &OPPOSITE);
}

/// Regression: `admit --sequential` read no import record, so two imports whose metrics
/// ran in opposite directions were paired without a word (exit 1, refused, on WERs
/// where the candidate is better). It now refuses them as `admit` does.
#[test]
fn admit_sequential_refuses_two_imports_whose_metrics_ran_in_opposite_directions() {
    let dir = tempfile::tempdir().unwrap();
    opposite_imports(dir.path());
    order_of_baseline(dir.path());
    let sequential = admit_sequential_on_order(dir.path());
    assert_input_error(&sequential, &OPPOSITE);
}

/// Regression: `admit --sequential` paired a scores file with an import record written
/// for other bytes (a file changed after its import, or an import interrupted between
/// its two files), which `admit` refuses. It now refuses it too, naming the record.
#[test]
fn admit_sequential_refuses_a_scores_file_its_import_record_was_not_written_for() {
    let dir = tempfile::tempdir().unwrap();
    let samples = wer_samples(
        dir.path(),
        "samples_asr_2025-01-01T00-00-00.jsonl",
        [0.1, 0.5, 0.25],
    );
    for out in ["b.csv", "c.csv"] {
        let mut args = lm_eval_strict(&samples, out);
        args.push("--lower-is-better");
        ok(run(dir.path(), &args));
    }
    order_of_baseline(dir.path());
    // The candidate's scores change after its import: its record no longer fits.
    let changed = text(&dir.path().join("c.csv")).replacen("asr,0.9\n", "asr,1\n", 1);
    assert_ne!(changed, text(&dir.path().join("c.csv")));
    put(&dir.path().join("c.csv"), &changed);
    let sequential = admit_sequential_on_order(dir.path());
    assert_input_error(
        &sequential,
        &["`c.import.json` was written for another scores file than `c.csv`"],
    );
}

/// The usual promptfoo comparison of two prompts on one provider: the real export's
/// results, all on `openai:gpt-5`, its two prompts labelled `terse` and `verbose`.
fn two_prompts(dir: &Path) -> String {
    let mut log = format_json("promptfoo/sample-export.subset.json");
    for result in log["results"]["results"].as_array_mut().unwrap() {
        let prompt = result["promptIdx"].as_u64().unwrap();
        result["provider"] = json!({"id": "openai:gpt-5", "label": ""});
        let label = ["terse", "verbose"][prompt as usize];
        result["prompt"] = json!({"raw": "…", "label": label});
    }
    put_log(dir, "two.json", &log)
}

/// Regression: `--arm <provider>` on a file of two prompts on that
/// provider mixed both prompts into one arm, and a prompt's label was refused as an
/// arm. The provider alone is now refused naming the prompts, and a label or
/// `prompt:N` (with the provider or without) chooses one.
#[test]
fn an_arm_of_two_prompts_is_refused_naming_them_and_a_prompt_label_chooses_one() {
    let dir = tempfile::tempdir().unwrap();
    let log = two_prompts(dir.path());
    let import = |arms: &[&str], out: &str| {
        let mut args = vec![
            "import",
            "promptfoo",
            "--from",
            &log,
            "--id-var",
            "riddle",
            "--out",
            out,
        ];
        for arm in arms {
            args.extend(["--arm", arm]);
        }
        run(dir.path(), &args)
    };
    assert_input_error(
        &import(&["openai:gpt-5"], "mixed.csv"),
        &[
            "`--arm openai:gpt-5` holds the results of 2 prompts",
            "`prompt:0` (label `terse`) and `prompt:1` (label `verbose`)",
            "not mixed",
        ],
    );
    assert!(!dir.path().join("mixed.csv").exists());
    ok(import(&["verbose"], "verbose.csv"));
    ok(import(&["prompt:1"], "one.csv"));
    ok(import(&["openai:gpt-5", "verbose"], "both.csv"));
    // prompt:1's scores in the real export: 0.75 and 0.666667 (the mini model's rows).
    let verbose = text(&dir.path().join("verbose.csv"));
    assert_eq!(verbose.lines().count(), 3, "{verbose}");
    assert!(verbose.contains(",0.75\n"), "{verbose}");
    assert_eq!(verbose, text(&dir.path().join("one.csv")));
    assert_eq!(verbose, text(&dir.path().join("both.csv")));
    // Two arms that no result answers to together.
    assert_input_error(
        &import(&["openai:gpt-5", "nonesuch"], "x.csv"),
        &["--arm `nonesuch` is not in the log"],
    );
}

/// An Inspect log declaring `epochs: 3` whose sample 2 ran once.
fn inspect_epochs(dir: &Path) -> String {
    let mut log = format_json("inspect/data_arc_qwen.json");
    let first = log["samples"][0].clone();
    let mut samples = Vec::new();
    for (id, epochs, values) in [(1, 3, ["C", "I", "C"]), (2, 1, ["C", "C", "C"])] {
        for epoch in 1..=epochs {
            let mut sample = first.clone();
            sample["id"] = json!(id);
            sample["epoch"] = json!(epoch);
            sample["scores"] = json!({"choice": {"value": values[epoch - 1]}});
            samples.push(sample);
        }
    }
    log["samples"] = Value::Array(samples);
    log["eval"]["config"]["epochs"] = json!(3);
    put_log(dir, "epochs.json", &log)
}

/// Regression: with `--repeats mean` the sample that ran one of its
/// three declared epochs was averaged over that one, with no missing count and no
/// note. It is now named as missing repeats (exit 2), or left out whole and counted
/// under `--on-missing intersect`.
#[test]
fn an_inspect_item_missing_epochs_is_named_and_never_averaged_over_fewer() {
    let dir = tempfile::tempdir().unwrap();
    let log = inspect_epochs(dir.path());
    let import = |extra: &[&str]| {
        let mut args = vec!["import", "inspect", "--from", &log, "--out", "s.csv"];
        args.extend(extra);
        run(dir.path(), &args)
    };
    for repeats in ["mean", "first", "all"] {
        assert_input_error(
            &import(&["--repeats", repeats]),
            &[
                "2 repeats missing (first: `inspect_evals/arc_easy:2#2`, `inspect_evals/arc_easy:2#3`) in 1 item",
                "--on-missing intersect",
            ],
        );
    }
    let done = ok(import(&["--repeats", "mean", "--on-missing", "intersect"]));
    assert!(done.stderr.contains("left out whole"), "{}", done.stderr);
    // Sample 1's three epochs, C I C: a mean of 2/3.
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,kind,score\ninspect_evals/arc_easy:1,inspect_evals/arc_easy,0.666667\n"
    );
    let record = import_record(dir.path(), "s.import.json");
    assert_eq!(record["dropped"]["missing"]["count"], 1);
    assert_eq!(
        record["dropped"]["missing"]["first"][0],
        "inspect_evals/arc_easy:2"
    );
}

/// promptfoo `--repeat 3` where one test of the arm ran three times and the other
/// once.
fn promptfoo_short_repeat(dir: &Path) -> String {
    let mut log = format_json("promptfoo/sample-export.subset.json");
    let results = log["results"]["results"].as_array().unwrap().clone();
    let mut repeated = results.clone();
    for _ in 0..2 {
        repeated.extend(
            results
                .iter()
                .filter(|r| r["testIdx"] == 0 || r["provider"]["id"] != "openai:gpt-5")
                .cloned(),
        );
    }
    log["results"]["results"] = Value::Array(repeated);
    put_log(dir, "short.json", &log)
}

/// Regression: promptfoo repeats of 3 and 1 were averaged with no note
/// (`mean`), and `all` wrote 3 + 1 rows. The missing repeats are now named.
#[test]
fn a_promptfoo_test_run_fewer_times_than_the_others_is_named_not_averaged() {
    let dir = tempfile::tempdir().unwrap();
    let log = promptfoo_short_repeat(dir.path());
    let import = |arm: &str, repeats: &str, out: &str| {
        run(
            dir.path(),
            &[
                "import",
                "promptfoo",
                "--from",
                &log,
                "--arm",
                arm,
                "--id-var",
                "riddle",
                "--repeats",
                repeats,
                "--out",
                out,
            ],
        )
    };
    for repeats in ["mean", "first", "all"] {
        let done = import("openai:gpt-5", repeats, "s.csv");
        // The ids are the riddles, cut short on the terminal.
        assert_input_error(
            &done,
            &[
                "error: 2 repeats missing (first: `You see a boat",
                "in 1 item",
            ],
        );
    }
    // The other arm ran every test three times: complete.
    ok(import("openai:gpt-5-mini", "all", "m.csv"));
    assert_eq!(text(&dir.path().join("m.csv")).lines().count(), 1 + 2 * 3);
}

/// Two lm-eval runs of one task (two dates): without `--repeats` an error naming the
/// runs; with it, run k is repeat k of each document, and a document missing from one
/// run is a missing repeat.
#[test]
fn two_lm_eval_runs_of_one_task_are_its_repeats_under_repeats_and_checked_whole() {
    let dir = tempfile::tempdir().unwrap();
    let base = text(&formats(GSM8K_BASE));
    put(
        &dir.path()
            .join("runs/samples_gsm8k_2025-01-01T00-00-00.jsonl"),
        &base,
    );
    put(
        &dir.path()
            .join("runs/samples_gsm8k_2025-01-02T00-00-00.jsonl"),
        &text(&formats(
            "lm-eval/samples_gsm8k_2025-09-09T13-31-53.431753.jsonl",
        )),
    );
    let import = |extra: &[&str]| {
        let mut args = lm_eval_strict("runs", "s.csv");
        args.push("--higher-is-better");
        args.extend(extra);
        run(dir.path(), &args)
    };
    assert_input_error(
        &import(&[]),
        &["task `gsm8k` has samples files of 2 runs", "--repeats"],
    );
    ok(import(&["--repeats", "all"]));
    // Base 1 0 1, tuned 1 0 0 (read by hand from the logs' exact_match).
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,group,kind,correct,score\n\
         gsm8k:16#1,gsm8k:16,gsm8k,1,1\ngsm8k:16#2,gsm8k:16,gsm8k,1,1\n\
         gsm8k:17#1,gsm8k:17,gsm8k,0,0\ngsm8k:17#2,gsm8k:17,gsm8k,0,0\n\
         gsm8k:18#1,gsm8k:18,gsm8k,1,1\ngsm8k:18#2,gsm8k:18,gsm8k,0,0\n"
    );
    // The second run without its last document: that document lacks repeat 2.
    let cut: String = base.lines().take(2).map(|l| format!("{l}\n")).collect();
    put(
        &dir.path()
            .join("runs/samples_gsm8k_2025-01-02T00-00-00.jsonl"),
        &cut,
    );
    assert_input_error(
        &import(&["--repeats", "mean"]),
        &["1 repeat missing (first: `gsm8k:18#2`) in 1 item"],
    );
}

/// DSPy records of one id are its repeats, through the files in order; cached copies
/// (the same record every time) are noted and recorded for `admit`.
#[test]
fn dspy_runs_are_repeats_and_cached_copies_are_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let record = |q: &str, answer: &str, ok: bool| json!({"question": q, "answer": answer, "exact_match": ok});
    let run1 = json!([record("a", "1", true), record("b", "2", false)]);
    let run2 = json!([record("a", "1", true), record("b", "3", true)]);
    put(&dir.path().join("r1.json"), &run1.to_string());
    put(&dir.path().join("r2.json"), &run2.to_string());
    let done = ok(import_dspy_repeats(
        dir.path(),
        &["r1.json", "r2.json"],
        "all",
        "s.csv",
    ));
    assert_eq!(
        text(&dir.path().join("s.csv")),
        "task_id,group,correct,score\na#1,a,1,1\na#2,a,1,1\nb#1,b,0,0\nb#2,b,1,1\n"
    );
    assert!(
        done.stderr
            .contains("the repeats of 1 of the 2 items whose outputs the log carries are byte-identical copies"),
        "{}",
        done.stderr
    );
    let written = import_record(dir.path(), "s.import.json");
    assert_eq!(
        written["identical_repeats"],
        json!({"count": 1, "first": ["a"]})
    );
    // A third run that lacks `b`: its third repeat is missing.
    put(
        &dir.path().join("r3.json"),
        &json!([record("a", "1", true)]).to_string(),
    );
    let short = import_dspy_repeats(
        dir.path(),
        &["r1.json", "r2.json", "r3.json"],
        "mean",
        "t.csv",
    );
    assert_input_error(&short, &["1 repeat missing (first: `b#3`)"]);
}
