//! The join held up against the verifier built from the whole truth (each benchmark
//! verifier and `facts`): on small truths,
//! tasks files and outputs drawn at random (repeats, unknown ids, missing and failed
//! outputs, bad truth rows, either outputs format), and with sort budgets from nothing
//! (a run a record) to everything in memory, `sort_truth` and `grade_joined` give the
//! scores CSV, the summary and the first error that `verify::build` and `grade_tasks`
//! give.

use proptest::prelude::*;

use super::*;
use crate::base::sorter::MemoryRuns;
use crate::verify::{build, read_rowwise, rowwise};

pub(super) type Scored = Result<(String, Summary), String>;

/// `score` with the verifier held.
pub(super) fn held(name: &str, truth: &str, tasks: &str, outputs: &str, answered: bool) -> Scored {
    let verifier = build(name, "truth.csv", truth.as_bytes()).map_err(|e| e.to_string())?;
    let tasks = RowScanner::new("tasks.csv", tasks.as_bytes()).map_err(|e| e.to_string())?;
    let outputs = OutputsReader::new("o.jsonl", outputs.as_bytes());
    let mut csv = String::new();
    let summary = super::super::grade_tasks(
        verifier.as_ref(),
        tasks,
        outputs,
        &mut |c| csv.push_str(c),
        answered,
    )
    .map_err(|e| e.to_string())?;
    Ok((csv, summary))
}

/// `score` joined, each sort writing a run once `least` bytes wait.
pub(super) fn joined(
    name: &str,
    truth: &str,
    tasks: &str,
    outputs: &str,
    answered: bool,
    least: usize,
) -> Scored {
    let verifier = rowwise(name).expect("a verifier read row by row");
    joined_by(
        verifier.as_ref(),
        name,
        truth,
        tasks,
        outputs,
        answered,
        least,
    )
}

/// [`joined`] with the verifier `verifier` read row by row.
pub(super) fn joined_by(
    verifier: &dyn crate::verify::Rowwise,
    name: &str,
    truth: &str,
    tasks: &str,
    outputs: &str,
    answered: bool,
    least: usize,
) -> Scored {
    let store = MemoryRuns;
    let budget = Budget {
        least,
        per_record: 0,
    };
    let sorted = sort_truth("truth.csv", &store, budget, |each| {
        read_rowwise(name, verifier, "truth.csv", truth.as_bytes(), each)
    })
    .map_err(|e| e.to_string())?;
    let tasks = RowScanner::new("tasks.csv", tasks.as_bytes()).map_err(|e| e.to_string())?;
    let outputs = OutputsReader::new("o.jsonl", outputs.as_bytes());
    let mut csv = String::new();
    let summary = grade_joined(
        verifier,
        &sorted,
        tasks,
        outputs,
        (&store, budget),
        &mut |c| csv.push_str(c),
        answered,
    )
    .map_err(|e| e.to_string())?;
    Ok((csv, summary))
}

const IDS: [(&str, &str); 6] = [
    ("g0", "k"),
    ("g1", "k"),
    ("g2", "x"),
    ("a:b", "k"),
    ("a", "b:k"),
    ("g3", "k"),
];

/// Answers each verifier reads (the first three) and refuses (the last two).
fn answer(name: &str, pick: usize) -> &'static str {
    let answers = match name {
        "numeric" => ["7", "1/2", "-3", "seven", ""],
        "choice" => ["A", "B", "C", "Q", ""],
        // Two answers sharing an alias, for the other answers of a kind.
        "facts" => ["Paris", "New York City|NYC", "paris|Lutetia", "!!!", ""],
        _ => ["Paris", "New York City|NYC", "7", "!!!", ""],
    };
    answers[pick % answers.len()]
}

const TEXTS: [&str; 10] = [
    "Paris",
    "NYC",
    "The answer is 7",
    "I don't know",
    "=cmd, \"quoted\"",
    "London or Paris",
    "",
    "(B)",
    "Lutetia, not NYC",
    "New York City or paris",
];

/// Truth rows as (id, answer) picks.
fn truth_text(name: &str, rows: &[(usize, usize)]) -> String {
    let options = name == "choice";
    let mut text = String::from(if options {
        "group,kind,question,answer,options\n"
    } else {
        "group,kind,question,answer\n"
    });
    for &(id, pick) in rows {
        let (group, kind) = IDS[id % IDS.len()];
        let answer = answer(name, pick);
        text.push_str(&format!("\"{group}\", {kind} ,question {id},\"{answer}\""));
        if options {
            text.push_str(",first|second|third");
        }
        text.push('\n');
    }
    text
}

/// A task id from the truth's (`< IDS.len()`), or one it does not hold.
fn id_of(pick: usize) -> String {
    match IDS.get(pick) {
        Some((group, kind)) => format!("{group}:{kind}"),
        None => "zz:k".to_string(),
    }
}

fn tasks_text(rows: &[usize], layout: usize) -> String {
    let mut text = String::from(
        [
            "task_id,group,kind,prompt\n",
            "note,task_id,prompt,answered\n",
            "id,prompt\n",
        ][layout],
    );
    for (i, &pick) in rows.iter().enumerate() {
        let id = id_of(pick);
        text.push_str(&match layout {
            0 => format!(" {id} ,g,k,q\n"),
            1 => format!("\"=n{i}, x\",{id},q,{i}\n"),
            _ => format!("{id},q\n"),
        });
    }
    text
}

fn outputs_text(rows: &[(usize, usize, bool)], jsonl: bool) -> String {
    let mut text = String::new();
    if !jsonl {
        text.push_str("task_id,output,error\n");
    }
    for &(pick, output, failed) in rows {
        let id = id_of(pick);
        let output = TEXTS[output % TEXTS.len()];
        if jsonl {
            let error = if failed {
                ", \"error\": \"timeout\""
            } else {
                ""
            };
            text.push_str(&format!(
                "{{\"task_id\": \"{id}\", \"output\": {}{error}}}\n",
                serde_json::to_string(output).unwrap()
            ));
        } else {
            let quoted = output.replace('"', "\"\"");
            text.push_str(&format!(
                "{id},\"{quoted}\",{}\n",
                if failed { "boom" } else { "" }
            ));
        }
    }
    text
}

/// `list` with the entries of `extra` put in, each at its place.
fn with_extra<T: Clone>(mut list: Vec<T>, extra: impl IntoIterator<Item = (usize, T)>) -> Vec<T> {
    for (at, item) in extra {
        list.insert(at % (list.len() + 1), item);
    }
    list
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn the_join_scores_and_refuses_as_the_held_verifier_does(
        name in prop::sample::select(vec!["short", "numeric", "choice", "facts", "facts"]),
        ids in prop::sample::subsequence(vec![0usize, 1, 2, 3, 5], 1..=5).prop_shuffle(),
        answers in prop::collection::vec(0usize..3, 6),
        bad_truth in prop::option::weighted(0.15, (0usize..8, 0usize..6, 3usize..5)),
        drop_task in prop::option::weighted(0.2, 0usize..8),
        extra_tasks in prop::collection::vec((0usize..8, 0usize..7), 0..3),
        layout in prop::sample::select(vec![0usize, 0, 0, 0, 0, 1, 2]),
        shown in prop::collection::vec((any::<bool>(), 0usize..8, prop::bool::weighted(0.1)), 6),
        extra_outputs in prop::collection::vec((0usize..8, 0usize..7, 0usize..8), 0..3),
        order in any::<prop::sample::Index>(),
        jsonl in any::<bool>(),
        answered in any::<bool>(),
        least in prop::sample::select(vec![0usize, 40, 1 << 20]),
    ) {
        // The truth: distinct ids, now and then a row repeating one (`a`,`b:k` repeats
        // `a:b`,`k`'s id) or with an answer the verifier refuses.
        let rows: Vec<(usize, usize)> = ids.iter().map(|&id| (id, answers[id])).collect();
        let rows = with_extra(rows, bad_truth.map(|(at, id, pick)| (at, (id, pick))));
        let truth = truth_text(name, &rows);
        // The tasks: the truth's, now and then one dropped, or more (a repeat or one
        // the truth does not hold), in another order.
        let mut listed = ids.clone();
        if let Some(at) = drop_task.filter(|_| !listed.is_empty()) {
            listed.remove(at % listed.len());
        }
        let extra_tasks = extra_tasks.into_iter().filter(|(at, _)| at % 3 == 0);
        let mut listed = with_extra(listed, extra_tasks);
        if !listed.is_empty() {
            let at = order.index(listed.len());
            listed.rotate_left(at);
        }
        let tasks = tasks_text(&listed, layout);
        // The outputs: some of the tasks', some failed, and up to two more.
        let outputs: Vec<(usize, usize, bool)> = listed
            .iter()
            .zip(&shown)
            .filter(|(_, (shown, _, _))| *shown)
            .map(|(&id, &(_, text, failed))| (id, text, failed))
            .collect();
        let extra_outputs = extra_outputs.into_iter().map(|(at, id, text)| (at, (id, text, false)));
        let outputs = with_extra(outputs, extra_outputs);
        let outputs = outputs_text(&outputs, jsonl);
        let expected = held(name, &truth, &tasks, &outputs, answered);
        let got = joined(name, &truth, &tasks, &outputs, answered, least);
        prop_assert_eq!(got, expected, "truth {:?} tasks {:?} outputs {:?}", truth, tasks, outputs);
    }
}

#[test]
fn a_truth_whose_tasks_all_grade_joins_every_one_in_the_tasks_files_order() {
    // `a:b`,`k` and `a`,`b:k` share the id `a:b:k`: one of them only.
    let truth = truth_text("short", &[(0, 0), (1, 1), (2, 2), (3, 0), (5, 1)]);
    let tasks = tasks_text(&[5, 3, 0, 1, 2], 0);
    let outputs = outputs_text(
        &[(2, 2, false), (0, 0, false), (1, 1, true), (3, 1, false)],
        true,
    );
    let expected = held("short", &truth, &tasks, &outputs, true).unwrap();
    assert_eq!(expected.1.tasks, 5);
    assert_eq!(expected.1.missing, 2);
    for least in [0, 40, 1 << 20] {
        assert_eq!(
            joined("short", &truth, &tasks, &outputs, true, least).unwrap(),
            expected
        );
    }
}

#[test]
fn a_facts_truth_is_refused_joined_as_held_whatever_comes_first() {
    let tasks = tasks_text(&[0, 1], 0);
    let outputs = outputs_text(&[(0, 0, false), (1, 5, false)], true);
    for truth in [
        // A repeated task, then a row that does not parse: the parse error is said.
        "group,kind,question,answer\ng0,k,q,Paris\ng0,k,q,Paris\ng1,k,\"q,x\n",
        // A refused row, then a row that does not parse.
        "group,kind,question,answer\ng0,k,,Paris\ng1,k,\"q,x\n",
        // A column missing: said once a row is read, else the truth has no rows.
        "group,kind,answer\ng0,k,Paris\n",
        "group,kind,answer\n",
        // A repeat after a refused row, and a refused row that repeats a task.
        "group,kind,question,answer\ng0,k,q,!!\ng1,k,q,x\ng1,k,q,y\n",
        "group,kind,question,answer\ng0,k,q,x\ng0,k,q,!!\n",
        "group,kind,question,answer\ng0,k,q,x\ng1,k,q,y\ng1,k,q,!!\ng0,k,q,z\n",
        // The arxiv layout.
        "arxiv_id,title,first_author,year\n1706.03762,A,B,2017\n",
    ] {
        let expected = held("facts", truth, &tasks, &outputs, false);
        assert!(expected.is_err(), "{truth}");
        for least in [0, 1 << 20] {
            assert_eq!(
                joined("facts", truth, &tasks, &outputs, false, least),
                expected,
                "{truth}"
            );
        }
    }
}

/// A store whose runs cannot be made, as when the temporary folder is full or gone.
struct NoRoom;

impl RunStore for NoRoom {
    fn create(&self) -> std::io::Result<Box<dyn crate::base::sorter::Run>> {
        Err(std::io::Error::other("No space left on device"))
    }
}

#[test]
fn a_temporary_folder_without_room_is_said_as_that_with_the_fix() {
    let truth = truth_text("short", &[(0, 0), (1, 1)]);
    let budget = Budget {
        least: 0,
        per_record: 0,
    };
    let verifier = rowwise("short").expect("a benchmark verifier");
    let error = sort_truth("truth.csv", &NoRoom, budget, |each| {
        read_rowwise(
            "short",
            verifier.as_ref(),
            "truth.csv",
            truth.as_bytes(),
            each,
        )
    })
    .err()
    .expect("no run can be written")
    .to_string();
    assert_eq!(
        error,
        "cannot keep the rows being sorted in the temporary folder (TMPDIR, else /tmp): No space left on device; free space there, or set TMPDIR to a folder with room"
    );
}
