//! `admit` on arms that did not answer every task: a crashed or cut-short run is refused
//! (the `answers-complete` criterion) unless `--allow-missing`, whether the gap is in
//! the `answered` column `score --allow-missing` writes or in what `evogate import`
//! left out. The repository's demo data, cut short, is the case the issue reported.

use std::path::Path;

use crate::util::{assert_input_error, evidence, lm_eval_strict, papers, run, write};

fn repository(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .to_str()
        .unwrap()
        .to_string()
}

fn json(result: &crate::util::Run) -> serde_json::Value {
    serde_json::from_str(&result.stdout).unwrap_or_else(|e| panic!("{e}: {}", result.stdout))
}

/// The `answers-complete` entry of a JSON report, if any.
fn answers(report: &serde_json::Value) -> Option<serde_json::Value> {
    evidence(report, "answers-complete").cloned()
}

/// `score` of the demo's holdout with `outputs`, written to `out`, with `extra`.
fn score(dir: &Path, outputs: &str, out: &str, extra: &[&str]) -> crate::util::Run {
    let truth = papers();
    let holdout = repository("reports/demo/split/holdout.csv");
    let mut args = vec![
        "score",
        "--truth",
        truth.to_str().unwrap(),
        "--tasks",
        &holdout,
        "--outputs",
        outputs,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    let result = run(dir, &args);
    assert_eq!(result.code, 0, "{}", result.stderr);
    result
}

fn admit(dir: &Path, baseline: &str, candidate: &str, extra: &[&str]) -> crate::util::Run {
    let mut args = vec![
        "admit",
        "--baseline",
        baseline,
        "--candidate",
        candidate,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

#[test]
fn a_baseline_cut_to_90_of_136_outputs_gets_the_candidate_refused_naming_the_46_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::read_to_string(repository("data/demo/baseline.jsonl")).unwrap();
    let cut: String = full.lines().take(90).map(|l| format!("{l}\n")).collect();
    write(dir.path(), "cut.jsonl", &cut);
    score(
        dir.path(),
        &repository("data/demo/baseline.jsonl"),
        "baseline.csv",
        &[],
    );
    score(dir.path(), "cut.jsonl", "cut.csv", &["--allow-missing"]);
    score(
        dir.path(),
        &repository("data/demo/regressing.jsonl"),
        "candidate.csv",
        &[],
    );
    // On the full baseline the candidate is refused: p_improvement 0.1055.
    let whole = admit(dir.path(), "baseline.csv", "candidate.csv", &[]);
    assert_eq!(whole.code, 1, "{}", whole.stderr);
    let p = json(&whole)["p_improvement"].as_f64().unwrap();
    assert!((0.1..0.11).contains(&p), "{p}");
    // Cut short, the baseline's 46 empty answers would make it significant (p 8.1e-8)
    // and admitted; the gate refuses and says why.
    let refused = admit(dir.path(), "cut.csv", "candidate.csv", &[]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let report = json(&refused);
    assert_eq!(report["verdict"], "refused");
    assert!(report["p_improvement"].as_f64().unwrap() < 1e-6);
    let finding = answers(&report).expect("an answers-complete finding");
    assert_eq!(finding["result"], "fail");
    let proof = finding["proof"].as_str().unwrap();
    assert!(
        proof.contains("baseline cut.csv 46 of 136 unanswered (first: 2110.08207:first_author, 2110.08207:year,"),
        "{proof}"
    );
    assert!(
        proof.contains("candidate candidate.csv 0 of 136 unanswered"),
        "{proof}"
    );
    let reasons = report["reasons"].to_string();
    assert!(
        reasons.contains("the baseline did not answer 46 of the 136 tasks"),
        "{reasons}"
    );
    assert!(reasons.contains("--allow-missing"), "{reasons}");
    // The text report says it too.
    let text = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "cut.csv",
            "--candidate",
            "candidate.csv",
        ],
    );
    assert_eq!(text.code, 1);
    assert!(
        text.stdout.contains("did not answer 46 of the 136 tasks"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("FAIL  answers-complete"),
        "{}",
        text.stdout
    );
    // Asked to decide on them as wrong answers, the gate does, and keeps the count in
    // the reasons and the evidence.
    let allowed = admit(dir.path(), "cut.csv", "candidate.csv", &["--allow-missing"]);
    assert_eq!(allowed.code, 0, "{}", allowed.stderr);
    let report = json(&allowed);
    let finding = answers(&report).unwrap();
    assert_eq!(finding["result"], "pass");
    assert!(
        finding["proof"]
            .as_str()
            .unwrap()
            .contains("46 of 136 unanswered"),
        "{finding}"
    );
    assert!(
        report["reasons"][0]
            .as_str()
            .unwrap()
            .contains("the baseline did not answer 46 of the 136 tasks"),
        "{}",
        report["reasons"]
    );
}

/// A baseline wrong on five tasks, each of them answered.
const BASELINE: &str =
    "task_id,correct,score,answered\na,0,0,1\nb,0,0,1\nc,0,0,1\nd,0,0,1\ne,0,0,1\n";

#[test]
fn unanswered_candidate_tasks_refuse_too_and_a_full_answered_column_passes() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "b.csv", BASELINE);
    write(
        dir.path(),
        "c.csv",
        "task_id,correct,score,answered\na,1,1,true\nb,1,1,1\nc,1,1,1\nd,1,1,1\ne,0,0,FALSE\n",
    );
    write(
        dir.path(),
        "all.csv",
        "task_id,correct,score,answered\na,1,1,1\nb,1,1,1\nc,1,1,1\nd,1,1,1\ne,1,1,1\n",
    );
    let refused = admit(dir.path(), "b.csv", "c.csv", &["--strata", "none"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let finding = answers(&json(&refused)).unwrap();
    assert_eq!(finding["result"], "fail");
    assert!(
        finding["proof"]
            .as_str()
            .unwrap()
            .contains("candidate c.csv 1 of 5 unanswered (first: e)"),
        "{finding}"
    );
    // Every task answered: the criterion is there and passes, and 5 wins admit.
    let complete = admit(dir.path(), "b.csv", "all.csv", &["--strata", "none"]);
    assert_eq!(complete.code, 0, "{}", complete.stderr);
    assert_eq!(answers(&json(&complete)).unwrap()["result"], "pass");
    // Files without the column (every task answered, as `score` requires) carry no
    // such criterion.
    write(
        dir.path(),
        "plain.csv",
        "task_id,correct,score\na,0,0\nb,0,0\nc,0,0\nd,0,0\ne,0,0\n",
    );
    let plain = admit(dir.path(), "plain.csv", "plain.csv", &["--strata", "none"]);
    assert!(answers(&json(&plain)).is_none(), "{}", plain.stdout);
    // A value that is not 0 or 1 is an input error naming file, row and task.
    write(
        dir.path(),
        "bad.csv",
        "task_id,correct,score,answered\na,0,0,1\nb,0,0,maybe\n",
    );
    let bad = admit(dir.path(), "bad.csv", "c.csv", &[]);
    assert_input_error(&bad, &["`bad.csv` row 3", "task `b`", "answered `maybe`"]);
}

/// An lm-eval log whose document 2 has no `strict-match` line: importing that filter
/// leaves it out.
fn log(outcome: &str) -> String {
    let line = |doc: u32, filter: &str| {
        format!(
            "{{\"doc_id\": {doc}, \"filter\": \"{filter}\", \"doc_hash\": \"h{doc}\", \"metrics\": {{\"exact_match\": {outcome}}}}}\n"
        )
    };
    [
        line(0, "strict-match"),
        line(1, "strict-match"),
        line(2, "flexible-extract"),
    ]
    .concat()
}

#[test]
fn tasks_an_import_left_out_count_as_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "samples_toy_2025-01-01T00-00-00.jsonl",
        &log("0.0"),
    );
    write(
        dir.path(),
        "samples_toy_2025-01-02T00-00-00.jsonl",
        &log("1.0"),
    );
    for (from, out) in [
        ("samples_toy_2025-01-01T00-00-00.jsonl", "b.csv"),
        ("samples_toy_2025-01-02T00-00-00.jsonl", "c.csv"),
    ] {
        let mut args = lm_eval_strict(from, out);
        args.extend([
            "--metric",
            "exact_match",
            "--on-missing",
            "intersect",
            "--higher-is-better",
        ]);
        let done = run(dir.path(), &args);
        assert_eq!(done.code, 0, "{}", done.stderr);
    }
    // Both files hold toy:0 and toy:1, so they pair; toy:2 is in neither.
    let refused = admit(dir.path(), "b.csv", "c.csv", &[]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let finding = answers(&json(&refused)).unwrap();
    assert_eq!(finding["result"], "fail");
    let proof = finding["proof"].as_str().unwrap();
    for arm in ["baseline b.csv", "candidate c.csv"] {
        assert!(
            proof.contains(&format!(
                "{arm} 0 of 2 unanswered, 1 left out by its import: 1 missing (first: toy:2)"
            )),
            "{proof}"
        );
    }
    let allowed = admit(dir.path(), "b.csv", "c.csv", &["--allow-missing"]);
    assert_eq!(answers(&json(&allowed)).unwrap()["result"], "pass");
    // The records that changed the verdict are listed with their SHA-256.
    let inputs = json(&refused)["inputs"].clone();
    for (role, path) in [
        ("baseline-import", "b.import.json"),
        ("candidate-import", "c.import.json"),
    ] {
        let bytes = std::fs::read(dir.path().join(path)).unwrap();
        let expected = evogate::digest::sha256_hex(&bytes);
        let listed = inputs
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["role"] == role)
            .unwrap_or_else(|| panic!("no {role} in {inputs}"));
        assert_eq!(listed["path"], path);
        assert_eq!(listed["sha256"], expected.as_str());
    }
}
