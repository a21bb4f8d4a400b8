//! The join against a naive pairing written straight from the rules (every file read
//! whole into a table, a map of tasks, the first failing row in file order, pairs
//! sorted at the end), on random small files full of repeats, bad values, missing
//! tasks, disagreeing strata and task lists: both give the same pairs, or the same
//! error message.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};

use super::{Baseline, Keep, StrataRequest, TaskList};
use crate::error::InputError;
use crate::table::Table;

/// A pair as plain values: task, stratum, group, then each side's row, score, correct
/// and feedback.
type Plain = (
    String,
    Option<String>,
    Option<String>,
    [(u64, u64, Option<bool>, Option<String>); 2],
);

/// One checked row of the naive reading.
struct Row {
    line: u64,
    task: String,
    score: f64,
    correct: Option<bool>,
    stratum: Option<String>,
    group: Option<String>,
    feedback: Option<String>,
}

fn naive_file(
    source: &str,
    text: &str,
    strata: Option<&str>,
) -> Result<(Vec<Row>, bool, bool), InputError> {
    let table = Table::parse(source, text.as_bytes())?;
    let (id, score) = (table.column("task_id"), table.column("score"));
    let correct = table.column("correct");
    let stratum = strata.and_then(|s| table.column(s));
    let (group, feedback) = (table.column("group"), table.column("feedback"));
    let mut rows: Vec<Row> = Vec::new();
    let mut first: BTreeMap<String, u64> = BTreeMap::new();
    let mut failure = None;
    if let (Some(id), Some(score)) = (id, score) {
        for row in &table.rows {
            let line = row.line;
            let task = row.fields[id].trim();
            let bad = |message: String| Some(InputError::invalid(source, line, message));
            if task.is_empty() {
                failure = bad("empty task_id; every row needs the task it scores".into());
                break;
            }
            if let Some(earlier) = first.get(task) {
                failure = bad(format!(
                    "task `{task}` appears twice (rows {earlier} and {line}); keep one row per task"
                ));
                break;
            }
            let text = row.fields[score].trim();
            let value = match text.parse::<f64>() {
                Ok(v) if (0.0..=1.0).contains(&v) => v + 0.0,
                Ok(_) => {
                    failure = bad(format!(
                        "task `{task}`: score `{text}` is outside [0, 1]; give a number in [0, 1]"
                    ));
                    break;
                }
                Err(_) => {
                    failure = bad(format!(
                        "task `{task}`: score `{text}` is not a number; give a number in [0, 1]"
                    ));
                    break;
                }
            };
            let flag = correct.map(|c| row.fields[c].trim());
            let correct = match flag {
                None => None,
                Some("0") => Some(false),
                Some("1") => Some(true),
                Some(other) => {
                    failure = bad(format!(
                        "task `{task}`: correct `{other}` is not 0 or 1; give 1 when the ground truth says the answer is right, else 0"
                    ));
                    break;
                }
            };
            first.insert(task.to_string(), line);
            rows.push(Row {
                line,
                task: task.to_string(),
                score: value,
                correct,
                stratum: stratum.map(|c| row.fields[c].trim().to_string()),
                group: group.map(|c| row.fields[c].trim().to_string()),
                feedback: feedback.map(|c| row.fields[c].clone()),
            });
        }
    }
    table.require("task_id")?;
    table.require("score")?;
    table.require_rows()?;
    match failure {
        Some(error) => Err(error),
        None => Ok((rows, correct.is_some(), stratum.is_some())),
    }
}

fn naive(
    b: &str,
    c: &str,
    list: Option<&TaskList>,
    strata: Option<&StrataRequest>,
) -> Result<Vec<Plain>, String> {
    let column = strata.map(|s| s.column.as_str());
    let (base, _, b_has) = naive_file("b.csv", b, column).map_err(|e| e.to_string())?;
    let (cand, _, c_has) = naive_file("c.csv", c, column).map_err(|e| e.to_string())?;
    let strata_column = match strata {
        Some(s) if b_has || c_has => Some(s.column.clone()),
        Some(s) if s.required => {
            return Err(format!(
                "--strata {0}: neither `b.csv` nor `c.csv` has a `{0}` column; name a column they have, or give --strata none",
                s.column
            ));
        }
        _ => None,
    };
    let by_task = |rows: Vec<Row>| -> BTreeMap<String, Row> {
        rows.into_iter().map(|r| (r.task.clone(), r)).collect()
    };
    let (base, cand) = (by_task(base), by_task(cand));
    let gap = |file: &str, other: &str, lacking: Vec<(String, u64)>| -> Option<String> {
        (!lacking.is_empty()).then(|| {
            let shown: Vec<String> = lacking
                .iter()
                .take(5)
                .map(|(t, l)| format!("`{t}` (row {l})"))
                .collect();
            let more = if lacking.len() > 5 { ", ..." } else { "" };
            let s = if lacking.len() == 1 { "" } else { "s" };
            format!(
                "`{file}` lacks {} task{s} that `{other}` has (first: {}{more})",
                lacking.len(),
                shown.join(", ")
            )
        })
    };
    let wanted: Vec<String> = match list {
        None => {
            let missing =
                |x: &BTreeMap<String, Row>, y: &BTreeMap<String, Row>| -> Vec<(String, u64)> {
                    x.values()
                        .filter(|r| !y.contains_key(&r.task))
                        .map(|r| (r.task.clone(), r.line))
                        .collect()
                };
            let gaps: Vec<String> = [
                gap("c.csv", "b.csv", missing(&base, &cand)),
                gap("b.csv", "c.csv", missing(&cand, &base)),
            ]
            .into_iter()
            .flatten()
            .collect();
            if !gaps.is_empty() {
                return Err(format!(
                    "the two scores files hold different tasks: {}; score both on the same tasks file, or pin the tasks with --tasks",
                    gaps.join(", and ")
                ));
            }
            base.keys().cloned().collect()
        }
        Some(list) => {
            let mut sorted = list.tasks.clone();
            sorted.sort();
            for (file, rows) in [("b.csv", &base), ("c.csv", &cand)] {
                let lacking = sorted
                    .iter()
                    .filter(|(t, _)| !rows.contains_key(t))
                    .cloned()
                    .collect();
                if let Some(gap) = gap(file, "t.csv", lacking) {
                    return Err(format!(
                        "{gap}; every task of `t.csv` must be scored in both files: rescore on that tasks file"
                    ));
                }
            }
            sorted.into_iter().map(|(t, _)| t).collect()
        }
    };
    let mut pairs = Vec::new();
    for task in wanted {
        let (x, y) = (&base[&task], &cand[&task]);
        if let (Some(s), Some(t)) = (&x.stratum, &y.stratum)
            && s != t
        {
            let column = strata_column.clone().unwrap_or_default();
            return Err(format!(
                "task `{task}`: `b.csv` row {} has {column} `{s}` but `c.csv` row {} has `{t}`; both files must describe the same task",
                x.line, y.line
            ));
        }
        let side = |r: &Row| (r.line, r.score.to_bits(), r.correct, r.feedback.clone());
        pairs.push((
            task.clone(),
            strata_column
                .as_ref()
                .and(x.stratum.clone().or(y.stratum.clone())),
            x.group.clone().or(y.group.clone()),
            [side(x), side(y)],
        ));
    }
    Ok(pairs)
}

fn joined(
    b: &str,
    c: &str,
    list: Option<&TaskList>,
    strata: Option<&StrataRequest>,
) -> Result<Vec<Plain>, String> {
    let pairs = super::tests::pair_texts(b, c, list, strata)?;
    let side = |s: &super::Side| {
        (
            s.line,
            s.score.to_bits(),
            s.correct,
            pairs.feedback(s).map(str::to_string),
        )
    };
    Ok(pairs
        .pairs
        .iter()
        .map(|p| {
            (
                pairs.task(p).to_string(),
                pairs.stratum(p).map(str::to_string),
                pairs.group(p).map(str::to_string),
                [side(&p.baseline), side(&p.candidate)],
            )
        })
        .collect())
}

const TASKS: [&str; 9] = [
    "a",
    "b",
    " c ",
    "long-task-name-0001:id",
    "long-task-name-0001:title",
    "long-task-name-0002:id",
    "long-task-name",
    "é",
    "",
];
const SCORES: [&str; 8] = ["0", "1", "0.5", "-0", " 0.25 ", "1.5", "x", "0.75"];

/// Draws for [`case`], on the generator's raw output.
struct Draw(ChaCha8Rng);

impl Draw {
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, p: f64) -> bool {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for at in (1..items.len()).rev() {
            let other = self.below(at + 1);
            items.swap(at, other);
        }
    }
}

/// Two scores files and a task list drawn from one seed: the candidate is the
/// baseline's rows reordered and changed a little.
fn case(seed: u64) -> (String, String, Option<TaskList>, Option<StrataRequest>) {
    let mut rng = Draw(ChaCha8Rng::seed_from_u64(seed));
    let mut columns = vec!["task_id", "score"];
    for optional in ["correct", "kind", "group", "feedback"] {
        if rng.chance(0.6) {
            columns.push(optional);
        }
    }
    if rng.chance(0.03) {
        columns.remove(rng.below(2));
    }
    let n = rng.below(8);
    let mut distinct = rng.chance(0.8);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut pool: Vec<&str> = TASKS[..8].to_vec();
    rng.shuffle(&mut pool);
    for i in 0..n {
        let task = if distinct && i < pool.len() {
            pool[i]
        } else {
            distinct = false;
            TASKS[rng.below(TASKS.len())]
        };
        let score = if rng.chance(0.9) {
            SCORES[rng.below(5)]
        } else {
            SCORES[rng.below(8)]
        };
        rows.push(vec![
            task.to_string(),
            score.to_string(),
            if rng.chance(0.95) {
                ["0", "1"][rng.below(2)]
            } else {
                "2"
            }
            .to_string(),
            ["id", "year"][rng.below(2)].to_string(),
            ["p", "q"][rng.below(2)].to_string(),
            ["ok", "\"no, not\"", ""][rng.below(3)].to_string(),
        ]);
    }
    let render = |columns: &[&str], rows: &[Vec<String>]| {
        let all = ["task_id", "score", "correct", "kind", "group", "feedback"];
        let mut text = columns.join(",") + "\n";
        for row in rows {
            let fields: Vec<&str> = columns
                .iter()
                .map(|c| row[all.iter().position(|a| a == c).unwrap()].as_str())
                .collect();
            text.push_str(&fields.join(","));
            text.push('\n');
        }
        text
    };
    let base = render(&columns, &rows);
    let mut cand_rows = rows.clone();
    if rng.chance(0.7) {
        rng.shuffle(&mut cand_rows);
    } else if rng.chance(0.5) {
        cand_rows.sort();
    }
    for _ in 0..rng.below(3) {
        match rng.below(4) {
            0 if !cand_rows.is_empty() => {
                let at = rng.below(cand_rows.len());
                cand_rows.remove(at);
            }
            1 => cand_rows.push(vec![
                TASKS[rng.below(TASKS.len())].into(),
                "1".into(),
                "1".into(),
                "id".into(),
                "p".into(),
                "x".into(),
            ]),
            2 if !cand_rows.is_empty() => {
                let at = rng.below(cand_rows.len());
                cand_rows[at][3] = "title".into();
            }
            _ if !cand_rows.is_empty() => {
                let at = rng.below(cand_rows.len());
                cand_rows[at][1] = SCORES[rng.below(8)].into();
            }
            _ => {}
        }
    }
    let mut cand_columns = columns.clone();
    if rng.chance(0.1) {
        cand_columns.retain(|c| *c != "kind" && *c != "group");
    }
    let cand = render(&cand_columns, &cand_rows);
    let list = rng.chance(0.3).then(|| {
        let mut listed: Vec<&str> = TASKS[..8]
            .iter()
            .copied()
            .filter(|_| rng.chance(0.5))
            .collect();
        rng.shuffle(&mut listed);
        let tasks = listed
            .iter()
            .enumerate()
            .map(|(i, t)| (t.trim().to_string(), i as u64 + 2))
            .collect();
        TaskList {
            source: "t.csv".into(),
            tasks,
        }
    });
    let strata = match rng.below(3) {
        0 => None,
        r => Some(StrataRequest {
            column: "kind".into(),
            required: r == 2,
        }),
    };
    (base, cand, list, strata)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn the_join_pairs_and_refuses_as_the_naive_pairing_does(seed in any::<u64>()) {
        let (base, cand, list, strata) = case(seed);
        let expected = naive(&base, &cand, list.as_ref(), strata.as_ref());
        let got = joined(&base, &cand, list.as_ref(), strata.as_ref());
        prop_assert_eq!(got, expected, "baseline:\n{}candidate:\n{}list {:?} strata {:?}", base, cand, list, strata);
    }
}

#[test]
fn pairings_are_equal_by_their_contents() {
    let pairing = |b: &str, c: &str| {
        let base = Baseline::read("b.csv", b.as_bytes(), None, true).unwrap();
        let joined = base.join("c.csv", c.as_bytes(), Keep::All).unwrap();
        joined.pair(None, None).unwrap()
    };
    let one = pairing(
        "task_id,score,feedback\nb,1,x\na,0,y\n",
        "task_id,score\na,1\nb,0\n",
    );
    let other = pairing(
        "task_id,score,feedback\na,0,y\nb,1,x\n",
        "task_id,score\nb,0\na,1\n",
    );
    // The same tasks and scores on other lines are another pairing.
    assert_ne!(one, other);
    let lines =
        |p: &super::Pairs| -> Vec<u64> { p.pairs.iter().map(|x| x.baseline.line).collect() };
    assert_eq!((lines(&one), lines(&other)), (vec![3, 2], vec![2, 3]));
    let same = pairing(
        "task_id,score,feedback\nb,1,x\na,0,y\n",
        "task_id,score\na,1\nb,0\n",
    );
    assert_eq!(one, same);
    let feedback = pairing(
        "task_id,score,feedback\nb,1,x\na,0,z\n",
        "task_id,score\na,1\nb,0\n",
    );
    assert_ne!(one, feedback);
}
