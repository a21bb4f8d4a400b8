//! `split --from-scores`: a holdout manifest for an imported suite, from a real lm-eval
//! log through `import` to a ledger attempt counted on its holdout (fixed-n and
//! sequential alike), groups dealt whole as `split --check` reads them, and the errors.

use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{assert_input_error, evidence, run, write};

fn lm_eval(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats/lm-eval")
        .join(name);
    path.to_str().unwrap().to_string()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let done = run(dir, args);
    assert_eq!(done.code, 0, "{args:?}: {}{}", done.stdout, done.stderr);
    done.stdout
}

#[test]
fn an_lm_eval_log_gets_a_holdout_manifest_and_its_runs_count_on_it_in_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let base = lm_eval("samples_gsm8k_2025-09-09T13-42-42.857006.jsonl");
    let tuned = lm_eval("samples_gsm8k_2025-09-09T13-31-53.431753.jsonl");
    ok(
        dir.path(),
        &["import", "lm-eval", "--from", &base, "--out", "base.csv"],
    );
    ok(
        dir.path(),
        &["import", "lm-eval", "--from", &tuned, "--out", "tuned.csv"],
    );
    let split = ok(
        dir.path(),
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
    assert!(
        split.contains("holdout      3 tasks from    1 group\n"),
        "{split}"
    );
    let manifest: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("split/manifest.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["verifier"], "import:lm-eval");
    assert_eq!(manifest["truth"]["path"], "base.csv");
    let holdout = &manifest["splits"][2];
    let mut ids: Vec<&str> = holdout["task_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(holdout["order_sha256"].is_string());
    ids.sort();
    assert_eq!(ids, ["gsm8k:16", "gsm8k:17", "gsm8k:18"]);
    // `args` with the ledger, as JSON: refused (exit 1), the report.
    let refused = |args: &[&str]| -> serde_json::Value {
        let done = run(
            dir.path(),
            &[args, &["--ledger", "ledger.jsonl", "--format", "json"]].concat(),
        );
        assert_eq!(done.code, 1, "{}", done.stderr);
        serde_json::from_str(&done.stdout).unwrap()
    };
    // Fixed-n admit on the holdout, with the ledger: attempt 1, holdout intact.
    let report = refused(&[
        "admit",
        "--baseline",
        "base.csv",
        "--candidate",
        "tuned.csv",
        "--tasks",
        "split/holdout.csv",
        "--manifest",
        "split/manifest.json",
    ]);
    assert_eq!(report["ledger"]["attempt"], 1);
    let intact = evidence(&report, "holdout-intact").unwrap();
    assert_eq!(intact["result"], "pass", "{intact}");
    // A sequential run on the same holdout is attempt 2 of the same count.
    let report = refused(&[
        "admit",
        "--sequential",
        "--manifest",
        "split/manifest.json",
        "--baseline",
        "base.csv",
        "--candidate",
        "tuned.csv",
    ]);
    assert_eq!(report["ledger"]["attempt"], 2);
    let shown = ok(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert!(shown.contains(": 2 attempts, 0 admitted;"), "{shown}");
}

#[test]
fn tasks_are_dealt_whole_by_the_group_their_ids_name_and_the_holdout_is_shuffled() {
    let dir = tempfile::tempdir().unwrap();
    let mut scores = "task_id,kind,correct,score\n".to_string();
    for bench in ["arc", "gsm8k", "mmlu", "piqa"] {
        for i in 0..30 {
            scores.push_str(&format!("{bench}:{i},{bench},1,1\n"));
        }
    }
    write(dir.path(), "s.csv", &scores);
    let split = |out: &str| {
        ok(
            dir.path(),
            &[
                "split",
                "--from-scores",
                "s.csv",
                "--out",
                out,
                "--seed",
                "7",
            ],
        )
    };
    split("a");
    split("b");
    for name in ["train.csv", "val.csv", "holdout.csv", "manifest.json"] {
        assert_eq!(
            fs::read(dir.path().join("a").join(name)).unwrap(),
            fs::read(dir.path().join("b").join(name)).unwrap(),
            "{name}"
        );
    }
    let checked = run(dir.path(), &["split", "--check", "a"]);
    assert_eq!(checked.code, 0, "{}", checked.stdout);
    let holdout = fs::read_to_string(dir.path().join("a/holdout.csv")).unwrap();
    let ids: Vec<&str> = holdout
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    // One benchmark of four (largest remainder of 4 groups by 50,25,25: 2, 1, 1), all of
    // its 30 tasks, not in file order.
    assert_eq!(ids.len(), 30);
    let bench = ids[0].split(':').next().unwrap();
    assert!(ids.iter().all(|id| id.starts_with(&format!("{bench}:"))));
    let in_file_order: Vec<String> = (0..30).map(|i| format!("{bench}:{i}")).collect();
    assert_ne!(ids, in_file_order);
    let manifest = fs::read_to_string(dir.path().join("a/manifest.json")).unwrap();
    assert!(manifest.contains("\"verifier\": \"scores\""), "{manifest}");
}

#[test]
fn a_repeated_task_a_stale_record_and_a_single_benchmark_are_refused_saying_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let split = |scores: &str| {
        run(
            dir.path(),
            &["split", "--from-scores", scores, "--out", "x"],
        )
    };
    write(
        dir.path(),
        "twice.csv",
        "task_id,score\na:1,1\na:2,0\na:1,1\n",
    );
    let twice = split("twice.csv");
    assert_input_error(
        &twice,
        &[
            "`twice.csv` row 4",
            "`a:1` is listed twice (first on row 2)",
        ],
    );
    write(
        dir.path(),
        "one.csv",
        "task_id,score\ngsm8k:1,1\ngsm8k:2,0\n",
    );
    let one = split("one.csv");
    assert_input_error(&one, &["gets no group", "--ratios 0,0,1"]);
    write(dir.path(), "s.csv", "task_id,score\na,1\nb,0\nc,1\n");
    write(
        dir.path(),
        "s.import.json",
        &format!(
            "{{\"format\": \"inspect\", \"scores_sha256\": \"{}\"}}",
            "0".repeat(64)
        ),
    );
    let stale = split("s.csv");
    assert_input_error(
        &stale,
        &["`s.import.json` was written for another scores file"],
    );
    assert!(!dir.path().join("x").exists());
    let both = run(
        dir.path(),
        &[
            "split",
            "--from-scores",
            "s.csv",
            "--truth",
            "s.csv",
            "--out",
            "x",
        ],
    );
    assert_eq!(both.code, 2);
}
