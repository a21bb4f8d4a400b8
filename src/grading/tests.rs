//! The streaming grader against the whole-file grader it replaced (kept here as the
//! oracle, `naive_grade`): the same scores CSV, summary and error, first among several,
//! for every pairing of tricky tasks files with tricky outputs files, read whole or a
//! few bytes at a time.

use super::*;
use crate::outputs::naive as naive_outputs;
use crate::table::chunks::Chunks;
use crate::verify;

/// The oracle: the whole-file grader `score` used before the tasks file was streamed,
/// changed only to grade by position, as verifiers now do.
mod naive_grade {
    use std::collections::HashMap;

    use super::SCORE_COLUMNS;
    use crate::base::csv::{Cell, CsvWriter};
    use crate::base::hash::FastMap;
    use crate::base::numbers::number;
    use crate::error::InputError;
    use crate::outputs::Output;
    use crate::table::Table;
    use crate::verify::{Grade, Verifier};

    /// One graded task, borrowing its names from the verifier's task and the tasks file.
    #[derive(Debug, Clone, PartialEq)]
    pub(super) struct Scored<'a> {
        /// The task.
        pub task_id: &'a str,
        /// Its group.
        pub group: &'a str,
        /// Its kind.
        pub kind: &'a str,
        /// The grade.
        pub grade: Grade,
        /// Extra columns of the tasks file, in its order.
        pub extra: Vec<&'a str>,
    }

    /// Every task graded, with the extra column names and how many tasks had no output.
    #[derive(Debug, Clone, PartialEq)]
    pub(super) struct ScoreSheet<'a> {
        /// Graded tasks in the tasks file's order.
        pub rows: Vec<Scored<'a>>,
        /// Names of the tasks file's columns beyond `task_id,group,kind,prompt`.
        pub extra_columns: Vec<String>,
        /// Tasks graded as empty answers because no output was given.
        pub missing_outputs: Vec<String>,
    }

    /// No output (or no row) for a task yet.
    const NONE: u32 = u32::MAX;

    /// Grades the tasks of `tasks` (a tasks file) with `outputs` (from `outputs_source`).
    ///
    /// Each task id is looked up once in a map of the verifier's tasks; the output of a
    /// task and the row that lists it are then found by the task's position, so a million
    /// outputs cost a million lookups in each file rather than a map per file.
    pub(super) fn grade_tasks<'a>(
        verifier: &'a dyn Verifier,
        tasks: &'a Table,
        outputs_source: &str,
        outputs: &[Output],
    ) -> Result<ScoreSheet<'a>, InputError> {
        let id_column = tasks.require("task_id")?;
        tasks.require_rows()?;
        let count = verifier.task_count();
        let known: FastMap<String, u32> = verifier
            .tasks()
            .into_iter()
            .enumerate()
            .map(|(index, task)| (task.task_id, index as u32))
            .collect();
        let standard = ["task_id", "group", "kind", "prompt"];
        let extra: Vec<usize> = (0..tasks.headers.len())
            .filter(|&i| !standard.contains(&tasks.headers[i].as_str()))
            .collect();
        // The known task of each output (NONE for an id the truth does not hold), the
        // output of each known task, and the first line of outputs for unknown ids, which
        // are strays at best but must still be reported as repeats first.
        let mut output_task: Vec<u32> = Vec::with_capacity(outputs.len());
        let mut output_of: Vec<u32> = vec![NONE; count];
        let mut unknown: HashMap<&str, u64> = HashMap::new();
        for (position, output) in outputs.iter().enumerate() {
            let task = known.get(&output.task_id).copied().unwrap_or(NONE);
            output_task.push(task);
            let first = if task == NONE {
                unknown.insert(&output.task_id, output.line)
            } else {
                let slot = &mut output_of[task as usize];
                let first = (*slot != NONE).then(|| outputs[*slot as usize].line);
                if first.is_none() {
                    *slot = position as u32;
                }
                first
            };
            if let Some(first) = first {
                return Err(InputError::invalid(
                    outputs_source,
                    output.line,
                    format!(
                        "a second output for task `{}` (the first is on row {first}); keep one output per task",
                        output.task_id
                    ),
                ));
            }
        }
        let mut listed_on: Vec<Option<u64>> = vec![None; count];
        let mut rows = Vec::with_capacity(tasks.rows.len());
        let mut missing = Vec::new();
        for row in &tasks.rows {
            let task_id = row.fields[id_column].trim();
            let index = *known.get(task_id).ok_or_else(|| {
                InputError::invalid(
                    &tasks.source,
                    row.line,
                    format!("task `{task_id}` is not in the ground truth; use the tasks file `split` wrote from the same truth file"),
                )
            })? as usize;
            if let Some(first) = listed_on[index].replace(row.line) {
                return Err(InputError::invalid(
                    &tasks.source,
                    row.line,
                    format!(
                        "task `{task_id}` is listed twice (first on row {first}); remove the repeat"
                    ),
                ));
            }
            let answer = match output_of[index] {
                NONE => {
                    missing.push(task_id.to_string());
                    None
                }
                position => Some(outputs[position as usize].output.as_str()),
            };
            let mut grade = verifier.grade(index, answer.unwrap_or(""));
            if answer.is_none() {
                // Changed since: a task with no output says so in its feedback.
                grade.feedback = "unanswered: no output for this task".to_string();
            }
            // The id found the task, so it is the task's own id.
            let (group, kind) = verifier.task_names(index);
            rows.push(Scored {
                task_id,
                group,
                kind,
                grade,
                extra: extra.iter().map(|&i| row.fields[i].as_str()).collect(),
            });
        }
        if let Some(stray) = outputs
            .iter()
            .zip(&output_task)
            .find(|(_, task)| **task == NONE || listed_on[**task as usize].is_none())
            .map(|(output, _)| output)
        {
            return Err(InputError::invalid(
                outputs_source,
                stray.line,
                format!(
                    "output for task `{}`, which is not in `{}`; remove it or score against the tasks file it was made for",
                    stray.task_id, tasks.source
                ),
            ));
        }
        Ok(ScoreSheet {
            rows,
            extra_columns: extra.iter().map(|&i| tasks.headers[i].clone()).collect(),
            missing_outputs: missing,
        })
    }

    /// The scores CSV of a sheet: [`SCORE_COLUMNS`], then the extra columns.
    pub(super) fn scores_csv(sheet: &ScoreSheet) -> String {
        // About 150 bytes a row (ids, numbers and a feedback line), so the document is
        // not copied as it grows.
        let mut csv = CsvWriter::with_capacity(150 * (sheet.rows.len() + 1));
        let mut header: Vec<&str> = SCORE_COLUMNS.to_vec();
        header.extend(sheet.extra_columns.iter().map(String::as_str));
        csv.header(&header);
        for row in &sheet.rows {
            let grade = &row.grade;
            let numbers = [
                if grade.correct {
                    "1".to_string()
                } else {
                    "0".to_string()
                },
                number(grade.correctness),
                number(grade.composite),
                number(grade.score),
            ];
            let mut cells = Vec::with_capacity(SCORE_COLUMNS.len() + row.extra.len());
            cells.extend([
                Cell::Text(row.task_id),
                Cell::Text(row.group),
                Cell::Text(row.kind),
            ]);
            cells.extend(numbers.iter().map(|n| Cell::Trusted(n)));
            // Changed since: the outcome, `unanswered` for a task with no output.
            let unanswered = grade.feedback.starts_with("unanswered:");
            cells.push(Cell::Trusted(if unanswered {
                "unanswered"
            } else {
                grade.outcome.name()
            }));
            cells.push(Cell::Text(&grade.feedback));
            cells.extend(row.extra.iter().map(|e| Cell::Text(e)));
            csv.row(&cells);
        }
        csv.finish()
    }
}

const SHIPPED: &[u8] = include_bytes!("../../data/arxiv/papers.csv");

/// Scores the plain way, the oracle of the streaming grader: both files read whole
/// (the outputs by the whole-file reader), then graded.
fn naive_score(
    verifier: &dyn Verifier,
    tasks: &[u8],
    outputs: &[u8],
) -> Result<(String, Summary), String> {
    // The scanner's whole table: how the CSV is read is held by the scanner's own
    // tests against the `csv` crate (which takes an unclosed quote as a last field).
    let tasks = crate::table::scan::scan_table("tasks.csv", tasks).map_err(|e| e.to_string())?;
    let outputs = naive_outputs::parse_outputs("o.jsonl", outputs).map_err(|e| e.to_string())?;
    let sheet = naive_grade::grade_tasks(verifier, &tasks, "o.jsonl", &outputs)
        .map_err(|e| e.to_string())?;
    let summary = Summary {
        tasks: sheet.rows.len(),
        correct: sheet.rows.iter().filter(|r| r.grade.correct).count(),
        missing: sheet.missing_outputs.len(),
        errored: 0,
        first_missing: sheet.missing_outputs.iter().take(5).cloned().collect(),
    };
    Ok((naive_grade::scores_csv(&sheet), summary))
}

/// Scores as `score` does now, both files handed over `size` bytes at a time.
fn score_now(
    verifier: &dyn Verifier,
    tasks: &[u8],
    outputs: &[u8],
    size: usize,
) -> Result<(String, Summary), String> {
    let tasks =
        RowScanner::new("tasks.csv", Chunks { bytes: tasks, size }).map_err(|e| e.to_string())?;
    let outputs = OutputsReader::new(
        "o.jsonl",
        Chunks {
            bytes: outputs,
            size,
        },
    );
    let mut csv = String::new();
    // Handed on after every row, or once at the end.
    let every = if size % 2 == 1 { 1 } else { HAND_ON_EVERY };
    let summary = grade_tasks_handing_on(
        verifier,
        tasks,
        outputs,
        &mut |c| csv.push_str(c),
        every,
        false,
    )
    .map_err(|e| e.to_string())?;
    Ok((csv, summary))
}

fn assert_scores_as_naive(verifier: &dyn Verifier, tasks: &[u8], outputs: &[u8]) {
    let expected = naive_score(verifier, tasks, outputs);
    for size in [1, 5, 1 << 16] {
        let now = score_now(verifier, tasks, outputs, size);
        assert_eq!(
            now,
            expected,
            "{size}-byte reads of tasks {:?} and outputs {:?}",
            String::from_utf8_lossy(tasks),
            String::from_utf8_lossy(outputs)
        );
    }
}

/// Tasks files for the shipped truth: plain, odd but valid, and bad in every way
/// `score` checks, some in two ways at once.
const TASKS: &[&[u8]] = &[
    b"task_id,group,kind,prompt\n1706.03762:id,1706.03762,id,q\n1706.03762:year,1706.03762,year,q\n1810.04805:title,1810.04805,title,q\n",
    b"\xEF\xBB\xBFtask_id,group,kind,prompt\r\n 1706.03762:id ,g,k,\"multi\r\nline\"\r\n\r\n1810.04805:first_author,x,y,z\r\n",
    b"prompt,task_id,note,kind\nq,1706.03762:id,=cmd|' /C calc',id\nq,1706.03762:title, spaced ,x\nq,1512.03385:year,\"say \"\"hi\"\"\",x\n",
    b"task_id\n1706.03762:id\n1512.03385:id\n1512.03385:title\n1512.03385:year\n1810.04805:id\n1810.04805:year\n1301.3781:id\n",
    b"task_id,group,kind,prompt\n1706.03762:id,a,b,c\n1706.03762:id,a,b,c\n",
    b"task_id,group,kind,prompt\n1706.03762:id,a,b,c\n9999.99999:id,a,b,c\n1706.03762:id,a,b,c\n",
    b"task_id,group,kind,prompt\n1706.03762:id,a,b,c\n1706.03762:year,a,b\n",
    b"task_id,group,kind,prompt\n9999.99999:id,a,b,c\n1706.03762:year,a,b\n",
    b"task_id,group,kind,prompt\n1706.03762:id,a,b,\xff\n",
    b"group,kind,prompt\na,b,c\n",
    b"group,kind,prompt\na,b\n",
    b"task_id,group,kind,prompt\n",
    b"task_id,group,kind,prompt\n\n\n",
    b"",
    b" \n\t\n",
    b"task_id,task_id\n1706.03762:id,x\n",
    b"task_id,group\n1706.03762:id,\"unclosed\n",
];

/// Outputs files for the tasks above: plain, odd but valid, and bad in every way.
const OUTPUTS: &[&[u8]] = &[
    b"{\"task_id\":\"1706.03762:id\",\"output\":\"The paper is arXiv 1706.03762.\"}\n{\"task_id\":\"1706.03762:year\",\"output\":\"It was 2016.\"}\n",
    b"\xEF\xBB\xBF{\"task_id\":\" 1810.04805:title \",\"output\":\"\\\"BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding\\\"\"}\r\n\r\n{\"task_id\":\"1706.03762:id\",\"output\":\"-1 or =2, \\\"q\\\"\\n \"}\r\n",
    b"task_id,output\n1706.03762:id,\"1706.03762, I think\"\n1512.03385:year,2015\n1301.3781:id,x\n",
    b"task_id,output\n1706.03762:id,a\n1706.03762:id,b\n",
    b"{\"task_id\":\"x:id\",\"output\":\"a\"}\n{\"task_id\":\"x:id\",\"output\":\"b\"}\n",
    b"{\"task_id\":\"1706.03762:id\",\"output\":\"a\"}\n{\"task_id\":\"9999.99999:id\",\"output\":\"b\"}\n",
    b"{\"task_id\":\"1512.03385:id\",\"output\":\"a\"}\n{\"task_id\":\"9999.99999:id\",\"output\":\"b\"}\n",
    b"{\"task_id\":\"9999.99999:id\",\"output\":\"b\"}\n{\"task_id\":\"1512.03385:id\",\"output\":\"a\"}\n",
    b"{\"task_id\":\"1706.03762:id\",\"output\":\"a\"}\n{\"task_id\":\"1706.03762:id\",\"output\":\"b\"}\n{oops\n",
    b"{\"task_id\":\"1706.03762:id\",\"output\":\"a\"}\n{oops\n{\"task_id\":\"a\",\"output\":\"\xff\"}\n",
    b"{\"task_id\":\"1706.03762:id\",\"output\":3}\n",
    b"task_id,answer\n1706.03762:id,x\n",
    b"task_id,output\n",
    b"",
    b"task_id,output\n1706.03762:id,x,y\n",
];

#[test]
fn every_pairing_of_tricky_files_scores_as_the_whole_file_grader_did() {
    let verifier = verify::build("arxiv", "papers.csv", SHIPPED).unwrap();
    for tasks in TASKS {
        for outputs in OUTPUTS {
            assert_scores_as_naive(verifier.as_ref(), tasks, outputs);
        }
    }
}

#[test]
fn the_facts_verifier_scores_as_the_naive_grader_does() {
    let text = "group,kind,question,answer\n\
        fr,capital,Capital of France?,Paris\n\
        de,capital,Capital of Germany?,Berlin\n\
        a:b,c,Colons?,x|y\n";
    let verifier = verify::build("facts", "f.csv", text.as_bytes()).unwrap();
    let tasks = b"task_id,group,kind,prompt\nfr:capital,,,\na:b:c,,,\nde:capital,,,\n";
    for outputs in [
        &b"task_id,output\nfr:capital,Paris or Berlin\na:b:c,y\n"[..],
        b"task_id,output\nde:capital,Berlin\nde:capital,Berlin\n",
        b"task_id,output\nit:capital,Rome\n",
    ] {
        assert_scores_as_naive(verifier.as_ref(), tasks, outputs);
    }
}

#[test]
fn a_summary_names_the_first_five_tasks_without_an_output() {
    let verifier = verify::build("arxiv", "papers.csv", SHIPPED).unwrap();
    let (csv, summary) = score_now(
        verifier.as_ref(),
        TASKS[3],
        b"task_id,output\n1512.03385:title,Deep Residual Learning for Image Recognition\n",
        3,
    )
    .unwrap();
    assert_eq!(csv.lines().count(), 8);
    assert_eq!(
        summary,
        Summary {
            tasks: 7,
            correct: 1,
            missing: 6,
            errored: 0,
            first_missing: [
                "1706.03762:id",
                "1512.03385:id",
                "1512.03385:year",
                "1810.04805:id",
                "1810.04805:year"
            ]
            .map(String::from)
            .to_vec(),
        }
    );
}

/// A JSON string holding `text`.
fn json(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

/// A CSV field holding `text`.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[test]
fn every_shipped_task_scores_as_the_naive_grader_does_in_any_order_with_extra_columns() {
    let verifier = verify::build("arxiv", "papers.csv", SHIPPED).unwrap();
    let tasks = verifier.tasks();
    let answers = [
        "The paper is arXiv 1706.03762.",
        "It was written by Ashish Vaswani et al. in 2017.",
        "\"Attention Is All You Need\", or maybe \"Deep Residual Learning for Image Recognition\"",
        "=1+2, 2015 or 2016",
        " Kaiming He ",
        "déjà vu, «BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding»",
        "",
    ];
    let mut tasks_csv = String::from("note,task_id,prompt\n");
    let mut jsonl = String::new();
    let mut csv = String::from("output,task_id\n");
    // Every task once, in a scrambled order; every seventh without an output.
    for step in 0..tasks.len() {
        let index = step * 211 % tasks.len();
        let task = &tasks[index];
        let id = if step % 3 == 0 {
            format!(" {} ", task.task_id)
        } else {
            task.task_id.clone()
        };
        tasks_csv.push_str(&format!(
            "{},{},{}\n",
            quoted(&format!("-{step}, {}", task.kind)),
            id,
            quoted(&task.prompt)
        ));
        if step % 7 != 0 {
            let answer = answers[step % answers.len()].replace("1706.03762", &task.group);
            jsonl.push_str(&format!(
                "{{\"task_id\":{},\"output\":{}}}\n",
                json(&id),
                json(&answer)
            ));
            csv.push_str(&format!("{},{id}\r\n", quoted(&answer)));
        }
    }
    let expected = naive_score(verifier.as_ref(), tasks_csv.as_bytes(), jsonl.as_bytes());
    let (scores, summary) = expected.clone().expect("a clean run");
    assert_eq!(summary.tasks, tasks.len());
    assert!(summary.correct > 0 && summary.missing > 0, "{summary:?}");
    assert_eq!(scores.lines().count(), tasks.len() + 1);
    assert_scores_as_naive(verifier.as_ref(), tasks_csv.as_bytes(), jsonl.as_bytes());
    assert_scores_as_naive(verifier.as_ref(), tasks_csv.as_bytes(), csv.as_bytes());
}

/// A tasks file and an outputs file over the shipped tasks, drawn from `seed`: the
/// outputs in the tasks' order (each output read when its row asks), shuffled a
/// little or wholly (outputs held until their row comes), some missing, and now and
/// then an output for a task no row lists, for an id the truth lacks, a second output
/// for a task, or a row the truth lacks or that repeats.
fn drawn_files(tasks: &[crate::task::Task], seed: u64) -> (String, String) {
    let mut rng = crate::base::random::Random::expanded(seed);
    let mut below = |n: usize| rng.below(n as u64) as usize;
    let answers = [
        "The paper is arXiv 1706.03762.",
        "\"Attention Is All You Need\" by Ashish Vaswani, 2017",
        "maybe 2016 or 2015",
        "",
    ];
    let count = 1 + below(12);
    let mut listed: Vec<usize> = Vec::new();
    while listed.len() < count {
        let task = below(40);
        if !listed.contains(&task) {
            listed.push(task);
        }
    }
    let mut rows: Vec<String> = listed.iter().map(|&t| tasks[t].task_id.clone()).collect();
    match below(12) {
        0 => rows.insert(below(rows.len() + 1), "9999.99999:id".into()),
        1 => rows.insert(below(rows.len() + 1), rows[below(rows.len())].clone()),
        _ => {}
    }
    let mut outputs: Vec<String> = listed
        .iter()
        .filter(|_| below(8) != 0)
        .map(|&t| tasks[t].task_id.clone())
        .collect();
    match below(3) {
        0 => {
            for i in (1..outputs.len()).rev() {
                outputs.swap(i, below(i + 1));
            }
        }
        1 if outputs.len() > 1 => {
            for _ in 0..1 + below(2) {
                let i = below(outputs.len() - 1);
                outputs.swap(i, i + 1);
            }
        }
        _ => {}
    }
    let mut extra: Vec<String> = Vec::new();
    if below(5) == 0 {
        let unlisted = (40..tasks.len())
            .nth(below(20))
            .expect("more than 60 tasks");
        extra.push(tasks[unlisted].task_id.clone());
    }
    if below(5) == 0 {
        extra.push("0000.00000:id".into());
    }
    if below(8) == 0 && !outputs.is_empty() {
        extra.push(outputs[below(outputs.len())].clone());
    }
    for id in extra {
        let at = below(outputs.len() + 1);
        outputs.insert(at, id);
    }
    let tasks_csv = std::iter::once("task_id,group,kind,prompt".to_string())
        .chain(rows.iter().map(|id| format!("{id},g,k,p")))
        .map(|line| line + "\n")
        .collect();
    let jsonl = outputs
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let answer = answers[i % answers.len()];
            format!("{{\"task_id\":{},\"output\":{}}}\n", json(id), json(answer))
        })
        .collect();
    (tasks_csv, jsonl)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn outputs_in_any_order_score_as_the_whole_file_grader_did(seed in proptest::prelude::any::<u64>()) {
        let verifier = verify::build("arxiv", "papers.csv", SHIPPED).unwrap();
        let (tasks, outputs) = drawn_files(&verifier.tasks(), seed);
        assert_scores_as_naive(verifier.as_ref(), tasks.as_bytes(), outputs.as_bytes());
    }
}
