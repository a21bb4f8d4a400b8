//! `evogate score`: grading a split's outputs, and every kind of bad input.

use std::fs;

use crate::util::{assert_input_error, papers, run, write};

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
    let mut args = vec![
        "score",
        "--truth",
        truth.to_str().unwrap(),
        "--tasks",
        tasks,
        "--outputs",
        outputs,
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

#[test]
fn grades_csv_and_jsonl_outputs_alike_and_counts_missing_ones() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "tasks.csv",
        "task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n1706.03762:year,1706.03762,year,q\n1810.04805:id,1810.04805,id,q\n",
    );
    write(
        dir.path(),
        "o.csv",
        "task_id,output\n1706.03762:id,The paper is arXiv 1706.03762.\n1706.03762:year,It was 2016.\n",
    );
    write(
        dir.path(),
        "o.jsonl",
        "{\"task_id\":\"1706.03762:id\",\"output\":\"The paper is arXiv 1706.03762.\"}\n{\"task_id\":\"1706.03762:year\",\"output\":\"It was 2016.\"}\n",
    );
    let csv = score(dir.path(), "tasks.csv", "o.csv");
    let jsonl = score(dir.path(), "tasks.csv", "o.jsonl");
    assert_eq!(csv.code, 0, "{}", csv.stderr);
    assert_eq!(csv.stdout, jsonl.stdout);
    let lines: Vec<&str> = csv.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "task_id,group,kind,correct,correctness,composite,score,feedback"
    );
    assert!(
        lines[1].starts_with("1706.03762:id,1706.03762,id,1,1,1,1,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("1706.03762:year,1706.03762,year,0,0,0.5,0,"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("1810.04805:id,1810.04805,id,0,0,0,0,"),
        "{}",
        lines[3]
    );
    assert!(
        csv.stderr.contains("note: 1 of 3 tasks had no output"),
        "{}",
        csv.stderr
    );
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
    let result = score_with(dir.path(), &tasks, "o.csv", &["--out", "scores.csv"]);
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
    let left: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("evogate-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
