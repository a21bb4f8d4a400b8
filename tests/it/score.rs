//! `evogate score`: grading a split's outputs, and every kind of bad input.

use std::fs;

use crate::util::{assert_input_error, papers, run, score_args, write};

fn holdout(dir: &std::path::Path) -> String {
    crate::util::split_24(dir);
    "s/holdout.csv".to_string()
}

fn score(dir: &std::path::Path, tasks: &str, outputs: &str) -> crate::util::Run {
    score_with(dir, tasks, outputs, &[])
}

/// `score` on the shipped truth with `extra` arguments, e.g. `--out`.
fn score_with(
    dir: &std::path::Path,
    tasks: &str,
    outputs: &str,
    extra: &[&str],
) -> crate::util::Run {
    let truth = papers();
    let mut args = score_args(truth.to_str().unwrap(), tasks, outputs);
    args.extend_from_slice(extra);
    run(dir, &args)
}

/// Three tasks: Attention's ID and year, and BERT's ID.
const THREE_TASKS: &str = "task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n1706.03762:year,1706.03762,year,q\n1810.04805:id,1810.04805,id,q\n";

#[test]
fn grades_csv_and_jsonl_outputs_alike() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tasks.csv", THREE_TASKS);
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,The paper is arXiv 1706.03762.\n1706.03762:year,It was 2016.\n1810.04805:id,No idea.\n",
    );
    write(
        dir.path(),
        "o.jsonl",
        "{\"task_id\":\"1706.03762:id\",\"output\":\"The paper is arXiv 1706.03762.\"}\n{\"task_id\":\"1706.03762:year\",\"output\":\"It was 2016.\"}\n{\"task_id\":\"1810.04805:id\",\"output\":\"No idea.\"}\n",
    );
    let csv = score(dir.path(), "tasks.csv", "o.csv");
    let jsonl = score(dir.path(), "tasks.csv", "o.jsonl");
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    assert_eq!(csv.stdout, jsonl.stdout);
    assert_eq!(csv.stderr, "", "every task was answered: no note");
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "task_id,group,kind,correct,correctness,composite,score,outcome,feedback"
    );
    assert!(
        lines[1].starts_with("1706.03762:id,1706.03762,id,1,1,1,1,right,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("1706.03762:year,1706.03762,year,0,0,0.5,0,wrong,"),
        "{}",
        lines[2]
    );
    assert!(
        // `No idea.` refuses: abstained, told from an answer that names no ID.
        lines[3].starts_with("1810.04805:id,1810.04805,id,0,0,0,0,abstained,"),
        "{}",
        lines[3]
    );
}

#[test]
fn tasks_without_output_exit_2_naming_how_many_and_the_first_ids() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tasks.csv", THREE_TASKS);
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,The paper is arXiv 1706.03762.\n",
    );
    let result = score_with(dir.path(), "tasks.csv", "o.csv", &["--out", "scores.csv"]);
    assert_input_error(
        &result,
        &[
            "2 of 3 tasks have no answer in `o.csv`",
            "(first: 1706.03762:year, 1810.04805:id)",
            "--allow-missing",
        ],
    );
    assert!(
        !dir.path().join("scores.csv").exists(),
        "a refused run wrote scores"
    );
}

#[test]
fn allow_missing_scores_unanswered_tasks_as_empty_answers_and_marks_them() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tasks.csv", THREE_TASKS);
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,The paper is arXiv 1706.03762.\n",
    );
    let result = score_with(dir.path(), "tasks.csv", "o.csv", &["--allow-missing"]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert!(
        result.stderr.contains(
            "note: 2 of 3 tasks have no answer in `o.csv` (first: 1706.03762:year, 1810.04805:id)"
        ),
        "{}",
        result.stderr
    );
    let lines: Vec<&str> = result.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "task_id,group,kind,correct,correctness,composite,score,outcome,feedback,answered",
            "1706.03762:id,1706.03762,id,1,1,1,1,right,correct ID 1706.03762,1",
            "1706.03762:year,1706.03762,year,0,0,0,0,unanswered,unanswered: no output for this task,0",
            "1810.04805:id,1810.04805,id,0,0,0,0,unanswered,unanswered: no output for this task,0",
        ]
    );
}

#[test]
fn allow_missing_refuses_a_tasks_file_that_has_its_own_answered_column() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tasks.csv",
        "task_id,group,kind,prompt,answered\n1706.03762:id,1706.03762,id,q,yes\n",
    );
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,1706.03762\n",
    );
    let result = score_with(dir.path(), "tasks.csv", "o.csv", &["--allow-missing"]);
    assert_input_error(
        &result,
        &["`tasks.csv` row 1", "a column `answered`", "rename it"],
    );
    // Without the flag the column is carried into the scores as before.
    let carried = score(dir.path(), "tasks.csv", "o.csv");
    assert_eq!(carried.code, 0, "{}", carried.stderr);
    assert!(carried.stdout.starts_with(
        "task_id,group,kind,correct,correctness,composite,score,outcome,feedback,answered\n"
    ));
}

#[test]
fn an_output_carrying_an_error_counts_as_missing_not_as_a_wrong_answer() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = "task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n1706.03762:year,1706.03762,year,q\n1810.04805:id,1810.04805,id,q\n1810.04805:year,1810.04805,year,q\n";
    write(dir.path(), "tasks.csv", tasks);
    // An error string with no output, an error object beside an output, and a null
    // error (no error) beside an answer.
    write(
        dir.path(),
        "o.jsonl",
        concat!(
            "{\"task_id\":\"1706.03762:id\",\"output\":\"arXiv 1706.03762\"}\n",
            "{\"task_id\":\"1706.03762:year\",\"error\":\"timeout after 60 s\"}\n",
            "{\"task_id\":\"1810.04805:id\",\"output\":\"1810.04805\",\"error\":{\"message\":\"rate limited\"}}\n",
            "{\"task_id\":\"1810.04805:year\",\"output\":\"2018\",\"error\":null}\n",
        ),
    );
    write(
        dir.path(),
        "o.csv",
        "task_id,output,error\n1706.03762:id,arXiv 1706.03762,\n1706.03762:year,,timeout after 60 s\n1810.04805:id,1810.04805,rate limited\n1810.04805:year,2018,  \n",
    );
    for outputs in ["o.jsonl", "o.csv"] {
        let refused = score(dir.path(), "tasks.csv", outputs);
        assert_input_error(
            &refused,
            &[
                &format!("2 of 4 tasks have no answer in `{outputs}`"),
                "(first: 1706.03762:year, 1810.04805:id)",
                "2 of them carry an error instead of an answer",
            ],
        );
        let allowed = score_with(dir.path(), "tasks.csv", outputs, &["--allow-missing"]);
        assert_eq!(allowed.code, 0, "{outputs}: {}", allowed.stderr);
        let lines: Vec<&str> = allowed.stdout.lines().collect();
        assert_eq!(
            lines[1..],
            [
                "1706.03762:id,1706.03762,id,1,1,1,1,right,correct ID 1706.03762,1",
                "1706.03762:year,1706.03762,year,0,0,0,0,unanswered,unanswered: the output carries an error instead of an answer,0",
                "1810.04805:id,1810.04805,id,0,0,0,0,unanswered,unanswered: the output carries an error instead of an answer,0",
                "1810.04805:year,1810.04805,year,1,1,1,1,right,correct year 2018,1",
            ],
            "{outputs}"
        );
    }
}

#[test]
fn writes_the_scores_file_atomically_with_out() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = holdout(dir.path());
    write(dir.path(), "o.csv", "task_id,output\n");
    let empty = score(dir.path(), &tasks, "o.csv");
    assert_input_error(&empty, &["`o.csv`", "no data rows"]);
    let first = fs::read_to_string(dir.path().join(&tasks)).unwrap();
    let task = first
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .to_string();
    write(
        dir.path(),
        "o.csv",
        &format!("task_id,output\n{task},nothing\n"),
    );
    let result = score_with(
        dir.path(),
        &tasks,
        "o.csv",
        &["--out", "scores.csv", "--allow-missing"],
    );
    assert_eq!(result.code, 0, "{}", result.stderr);
    let scores = fs::read_to_string(dir.path().join("scores.csv")).unwrap();
    assert_eq!(scores.lines().count(), 7);
    assert!(
        result.stdout.contains("scored 6 tasks"),
        "{}",
        result.stdout
    );
}

#[test]
fn bad_inputs_exit_2_naming_the_file_the_row_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = write(
        dir.path(),
        "tasks.csv",
        "task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n",
    );
    let cases: [(&str, &[u8], &[&str]); 7] = [
        (
            "missing-column.csv",
            b"task_id,answer\n1706.03762:id,x\n",
            &["`missing-column.csv`", "no column `output`"],
        ),
        ("empty.csv", b"", &["`empty.csv` is empty"]),
        (
            "header-only.csv",
            b"task_id,output\n",
            &["`header-only.csv` has a header but no data rows"],
        ),
        (
            "ragged.csv",
            b"task_id,output\n1706.03762:id,x,y\n",
            &["`ragged.csv` row 2", "3 fields where the header has 2"],
        ),
        (
            "utf8.csv",
            b"task_id,output\n1706.03762:id,\xff\xfe\n",
            &["`utf8.csv` row 2", "not valid UTF-8"],
        ),
        (
            "dup.csv",
            b"task_id,output\n1706.03762:id,x\n1706.03762:id,y\n",
            &[
                "`dup.csv` row 3",
                "a second output for task `1706.03762:id`",
                "first is on row 2",
            ],
        ),
        (
            "unknown.csv",
            b"task_id,output\n1706.03762:id,x\n9999.99999:id,y\n",
            &[
                "`unknown.csv` row 3",
                "`9999.99999:id`",
                "not in `tasks.csv`",
            ],
        ),
    ];
    for (name, bytes, needles) in cases {
        fs::write(dir.path().join(name), bytes).unwrap();
        let result = score(dir.path(), &tasks, name);
        assert_input_error(&result, needles);
    }
    write(
        dir.path(),
        "stranger.csv",
        "task_id,group,kind,prompt\n0000.00000:id,x,id,q\n",
    );
    write(dir.path(), "o.csv", "task_id,output\n0000.00000:id,x\n");
    let result = score(dir.path(), "stranger.csv", "o.csv");
    assert_input_error(
        &result,
        &["`stranger.csv` row 2", "not in the ground truth"],
    );
}

#[test]
fn a_failed_run_keeps_the_old_scores_file_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = holdout(dir.path());
    let listed = fs::read_to_string(dir.path().join(&tasks)).unwrap();
    // Every listed task, then one the truth does not hold: found only after grading.
    let mut bad = listed.clone();
    bad.push_str("9999.99999:id,9999.99999,id,q\n");
    write(dir.path(), "bad.csv", &bad);
    let first = listed.lines().nth(1).unwrap().split(',').next().unwrap();
    write(
        dir.path(),
        "o.csv",
        &format!("task_id,output\n{first},nothing\n"),
    );
    write(dir.path(), "scores.csv", "old\n");
    fs::create_dir(dir.path().join("folder")).unwrap();
    for out in ["scores.csv", "folder"] {
        let result = score_with(dir.path(), "bad.csv", "o.csv", &["--out", out]);
        // The input's error comes first, even when --out is a folder.
        assert_input_error(
            &result,
            &["`bad.csv`", "9999.99999:id", "not in the ground truth"],
        );
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("scores.csv")).unwrap(),
        "old\n"
    );
    let left = crate::util::temporary_files(dir.path());
    assert!(left.is_empty(), "{left:?}");
}

#[cfg(unix)]
#[test]
fn a_file_size_limit_is_a_named_error_with_exit_2_and_no_temporary_file() {
    // Regression: under `ulimit -f` the kernel's SIGXFSZ killed the run silently and
    // left `.s.csv.PID.evogate-tmp`.
    let dir = tempfile::tempdir().unwrap();
    let truth = papers();
    let split = run(
        dir.path(),
        &["split", "--truth", truth.to_str().unwrap(), "--out", "s"],
    );
    assert_eq!(split.code, 0, "{}", split.stderr);
    let tasks = fs::read_to_string(dir.path().join("s/holdout.csv")).unwrap();
    // 136 tasks: a scores file of about 13 KB.
    let mut outputs = String::from("task_id,output\n");
    for line in tasks.lines().skip(1) {
        let id = line.split(',').next().unwrap();
        outputs.push_str(&format!("{id},2014\n"));
    }
    write(dir.path(), "o.csv", &outputs);
    write(dir.path(), "s.csv", "old\n");
    let binary = assert_cmd::cargo::cargo_bin("evogate");
    let output = std::process::Command::new("sh")
        .current_dir(dir.path())
        // 2 blocks: 1 or 2 KiB by the shell's unit, less than the scores file.
        .args(["-c", "ulimit -f 2 && exec \"$0\" \"$@\""])
        .arg(&binary)
        .args(["score", "--truth", truth.to_str().unwrap()])
        .args([
            "--tasks",
            "s/holdout.csv",
            "--outputs",
            "o.csv",
            "--out",
            "s.csv",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{:?} {stderr}",
        output.status
    );
    assert!(
        stderr.contains("`s.csv`: cannot write it: File too large"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("s.csv")).unwrap(),
        "old\n"
    );
    let left = crate::util::temporary_files(dir.path());
    assert!(left.is_empty(), "{left:?}");
}

/// The shipped numeric truth (the facts layout) and its tasks and outputs.
fn numeric_data(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/numeric")
        .join(name)
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_facts_layout_truth_without_verifier_asks_for_a_verifier_not_an_arxiv_id_column() {
    let dir = tempfile::tempdir().unwrap();
    let (truth, tasks, outputs) = (
        numeric_data("problems.csv"),
        numeric_data("tasks.csv"),
        numeric_data("outputs.jsonl"),
    );
    let done = run(dir.path(), &score_args(&truth, &tasks, &outputs));
    assert_input_error(
        &done,
        &[
            "problems.csv` row 1: the header `group,kind,question,answer` is the facts layout",
            "give --verifier facts, numeric, choice or short",
        ],
    );
    assert!(
        !done.stderr.contains("add it or pick the right file"),
        "{}",
        done.stderr
    );
    // The same file with the verifier it was written for is scored.
    let done = run(
        dir.path(),
        &[
            &score_args(&truth, &tasks, &outputs)[..],
            &["--verifier", "numeric"],
        ]
        .concat(),
    );
    assert_eq!(done.code, 0, "{}", done.stderr);
}

#[test]
fn an_arxiv_truth_given_to_another_verifier_asks_for_the_arxiv_verifier() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.csv", THREE_TASKS);
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,1706.03762\n",
    );
    let done = score_with(dir.path(), "t.csv", "o.csv", &["--verifier", "short"]);
    assert_input_error(
        &done,
        &[
            "row 1: the header `arxiv_id,title,first_author,year` is the arxiv layout",
            "which the short verifier does not read",
            "give --verifier arxiv, or leave --verifier out",
        ],
    );
}
