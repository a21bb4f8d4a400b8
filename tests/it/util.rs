//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The shipped arxiv ground truth.
pub(crate) fn papers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/arxiv/papers.csv")
}

/// A command for the binary, run in `dir`.
pub(crate) fn evogate(dir: &Path) -> Command {
    let mut command = Command::cargo_bin("evogate").expect("the binary is built");
    command.current_dir(dir);
    command
}

/// What one run printed and its exit code.
pub(crate) struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary with `args` in `dir`, with the GitHub step summary unset so that a
/// CI run's own summary is never written to.
pub(crate) fn run<S: AsRef<std::ffi::OsStr>>(dir: &Path, args: &[S]) -> Run {
    let output = evogate(dir)
        .args(args)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A real log of another tool in `tests/data/formats/` (sources in its SOURCES.md).
pub(crate) fn formats(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats")
        .join(rel)
}

/// The text of the file at `path`.
pub(crate) fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Writes `contents` to `path`, making its folder first.
pub(crate) fn put(path: &Path, contents: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

/// A scores file of tasks t0..t9, each task's `correct` and `score` being
/// `correct(task)`.
pub(crate) fn ten_tasks(correct: &dyn Fn(usize) -> u8) -> String {
    let mut text = String::from("task_id,correct,score\n");
    for task in 0..10 {
        let c = correct(task);
        text.push_str(&format!("t{task},{c},{c}\n"));
    }
    text
}

/// Writes `text` to `dir/name` and returns the name.
pub(crate) fn write(dir: &Path, name: &str, text: &str) -> String {
    std::fs::write(dir.join(name), text).expect("the fixture is written");
    name.to_string()
}

/// Asserts the run failed with exit 2, no panic, and stderr containing every needle.
pub(crate) fn assert_input_error(run: &Run, needles: &[&str]) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "missing {needle:?} in {}",
            run.stderr
        );
    }
}

/// Asserts that `text` contains `needle`, showing the text when it does not.
#[track_caller]
pub(crate) fn assert_contains(text: &str, needle: &str) {
    assert!(text.contains(needle), "missing {needle:?} in {text}");
}

/// Asserts that `output` is the refusal of a GITHUB_STEP_SUMMARY naming the input that
/// `option` gave: exit 2, the message, and the option named.
pub(crate) fn assert_step_summary_refused(output: &std::process::Output, option: &str) {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: GITHUB_STEP_SUMMARY names an input of this run: "),
        "{stderr}"
    );
    assert!(stderr.contains(option), "{stderr}");
}

/// Splits the shipped truth into `dir/s` with 24 cases at the default seed 13, and
/// checks that it ran.
pub(crate) fn split_24(dir: &Path) -> Run {
    let truth = papers();
    let args = [
        "split",
        "--truth",
        truth.to_str().expect("a UTF-8 path"),
        "--out",
        "s",
        "--cases",
        "24",
    ];
    let result = run(dir, &args);
    assert_eq!(result.code, 0, "{}", result.stderr);
    result
}

/// The first column (`task_id`) of every data row of a CSV file the tool wrote.
pub(crate) fn first_column(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("the file was written");
    text.lines()
        .skip(1)
        .map(|line| line.split(',').next().unwrap_or_default().to_string())
        .collect()
}

/// The names of the entries of a folder, sorted.
pub(crate) fn file_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `score` of `outputs` for `tasks` against `truth`, for more arguments to follow.
pub(crate) fn score_args<'a>(truth: &'a str, tasks: &'a str, outputs: &'a str) -> Vec<&'a str> {
    vec![
        "score",
        "--truth",
        truth,
        "--tasks",
        tasks,
        "--outputs",
        outputs,
    ]
}

/// `import lm-eval` of `from` into `out` under the `strict-match` filter, for more
/// arguments to follow.
pub(crate) fn lm_eval_strict<'a>(from: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "import",
        "lm-eval",
        "--from",
        from,
        "--out",
        out,
        "--filter",
        "strict-match",
    ]
}

/// `import dspy` of the runs `from` (each a repeat, in order) into `out`, the records'
/// id in `question` and their metric `exact_match`, under `--repeats repeats`.
pub(crate) fn import_dspy_repeats(dir: &Path, from: &[&str], repeats: &str, out: &str) -> Run {
    let mut args = vec!["import", "dspy"];
    for file in from {
        args.extend(["--from", file]);
    }
    args.extend([
        "--id-field",
        "question",
        "--metric",
        "exact_match",
        "--repeats",
        repeats,
        "--out",
        out,
    ]);
    run(dir, &args)
}

/// The entry of a JSON report's `evidence` for `criterion`, if it has one.
pub(crate) fn evidence<'a>(
    report: &'a serde_json::Value,
    criterion: &str,
) -> Option<&'a serde_json::Value> {
    report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["criterion"] == criterion)
}

/// `admit` on `b.csv` and `c.csv`, for more arguments to follow.
pub(crate) const ADMIT_B_C: [&str; 5] = ["admit", "--baseline", "b.csv", "--candidate", "c.csv"];

/// `admit --sequential` on `b.csv` and `c.csv`, for more arguments to follow.
pub(crate) const ADMIT_SEQUENTIAL_B_C: [&str; 6] = [
    "admit",
    "--sequential",
    "--baseline",
    "b.csv",
    "--candidate",
    "c.csv",
];

/// A ledger with the manifest [`write_manifest`] writes.
pub(crate) const LEDGER_WITH_MANIFEST: [&str; 4] =
    ["--ledger", "ledger.jsonl", "--manifest", "manifest.json"];

/// The names of the temporary files (`.NAME.PID.evogate-tmp`) left in `dir`.
pub(crate) fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("evogate-tmp"))
        .collect()
}

/// Writes `manifest.json` in `dir`, as `split` writes one, recording `task_ids` as the
/// holdout (`--ledger` needs a manifest).
pub(crate) fn write_manifest<S: AsRef<str>>(dir: &Path, task_ids: &[S]) -> String {
    write(dir, "manifest.json", &manifest_json(task_ids))
}

/// A `manifest.json` as `split` writes one, recording `task_ids` as the holdout.
pub(crate) fn manifest_json<S: AsRef<str>>(task_ids: &[S]) -> String {
    let task_ids: Vec<&str> = task_ids.iter().map(AsRef::as_ref).collect();
    let task_ids = task_ids.as_slice();
    let split = |name: &str, ids: &[&str]| {
        serde_json::json!({
            "name": name,
            "file": {"path": format!("{name}.csv"), "sha256": "0".repeat(64)},
            "tasks": ids.len(),
            "groups": ids,
            "task_ids": ids,
        })
    };
    let manifest = serde_json::json!({
        "schema": "evogate/manifest/v1",
        "verifier": "arxiv",
        "truth": {"path": "t.csv", "sha256": "0".repeat(64)},
        "seed": 13,
        "ratios": [50, 25, 25],
        "cases": "all",
        "algorithm": "evogate",
        "splits": [split("train", &[]), split("val", &[]), split("holdout", task_ids)],
        "holdout_power": {"alpha": 0.05, "n": task_ids.len(), "min_discordant": 5,
                          "min_detectable_shift": 0.5},
    });
    manifest.to_string()
}
