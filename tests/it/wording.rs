//! Counts and their nouns agree in everything printed: one task is `1 task`, never
//! `1 tasks`, in notes, reports, errors and summaries.

use std::path::Path;

use crate::util::{ADMIT_B_C, papers, run, score_args, write};

/// Every `1 <plural noun>` in `text` (a count of one with a plural noun).
fn one_plural(text: &str) -> Vec<String> {
    let nouns = [
        "tasks",
        "pairs",
        "rows",
        "papers",
        "groups",
        "claims",
        "documents",
        "records",
        "differences",
        "units",
        "repeats",
        "samples",
    ];
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| {
            w[0].trim_start_matches(['(', '[']) == "1"
                && nouns.contains(&w[1].trim_end_matches([',', '.', ')', ':', ';']))
        })
        .map(|w| w.join(" "))
        .collect()
}

#[test]
fn a_count_of_one_takes_the_singular_in_notes_reports_and_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut printed = String::new();
    let mut keep = |args: &[&str]| {
        let done = run(d, args);
        printed.push_str(&done.stdout);
        printed.push_str(&done.stderr);
        done
    };
    // score: one task, one answer.
    write(
        d,
        "t.csv",
        "task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n",
    );
    write(d, "o.csv", "task_id,output\n1706.03762:id,1706.03762\n");
    let truth = papers();
    let truth = truth.to_str().unwrap();
    let scored = keep(
        &[
            &score_args(truth, "t.csv", "o.csv")[..],
            &["--out", "s.csv"],
        ]
        .concat(),
    );
    assert!(
        scored.stdout.contains("scored 1 task: 1 correct"),
        "{}",
        scored.stdout
    );
    // score: one of one task unanswered, with an error instead of its answer.
    write(
        d,
        "err.jsonl",
        "{\"task_id\": \"1706.03762:id\", \"error\": \"timeout\"}\n",
    );
    let missing = keep(&score_args(truth, "t.csv", "err.jsonl"));
    assert!(
        missing.stderr.contains(
            "1 of 1 task has no answer in `err.jsonl` (first: 1706.03762:id); it carries an error instead of an answer; rerun it"
        ),
        "{}",
        missing.stderr
    );
    // admit: one pair, in text and Markdown.
    write(d, "b.csv", "task_id,correct,score\nt1,0,0\n");
    write(d, "c.csv", "task_id,correct,score\nt1,1,1\n");
    for format in ["text", "markdown"] {
        let admitted = keep(&[&ADMIT_B_C[..], &["--format", format]].concat());
        assert!(
            admitted.stdout.contains("With 1 pair no result"),
            "{}",
            admitted.stdout
        );
    }
    // truth check: one paper.
    let one_paper: String = std::fs::read_to_string(papers())
        .unwrap()
        .lines()
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    write(d, "one.csv", &format!("{one_paper}\n"));
    let checked = keep(&["truth", "check", "one.csv"]);
    assert!(
        checked.stdout.contains("1 paper, no problems"),
        "{}",
        checked.stdout
    );
    // import: one sample.
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats/lm-eval/samples_gsm8k_2025-09-09T13-42-42.857006.jsonl");
    let first = std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    write(
        d,
        "samples_gsm8k_2025-09-09T13-42-42.857006.jsonl",
        &format!("{first}\n"),
    );
    let imported = keep(&[
        "import",
        "lm-eval",
        "--from",
        "samples_gsm8k_2025-09-09T13-42-42.857006.jsonl",
        "--out",
        "i.csv",
        "--higher-is-better",
    ]);
    assert!(
        imported.stderr.contains("wrote 1 row to i.csv"),
        "{}",
        imported.stderr
    );
    assert_eq!(one_plural(&printed), Vec::<String>::new(), "{printed}");
}
