//! The arxiv verifier joined held up against the verifier built from the whole truth:
//! on paper lists drawn from the shipped papers (namesakes, hyphenated titles, titles
//! inside others) in any order, tasks files and outputs drawn at random (the right
//! fact, another paper's, a hedge of two, a surname alone, part of a title, unknown
//! and repeated tasks, missing and failed outputs, a paper list with a problem),
//! `sort_truth` and `grade_joined` give the scores CSV, the summary and the first error
//! that `verify::build` and `grade_tasks` give, with the grading lookups held and on
//! disk.

use proptest::prelude::*;

use super::tests::{held, joined, joined_by};
use crate::base::sorter::MemoryRuns;
use crate::verify::arxiv::KINDS;
use crate::verify::arxiv::rows::ArxivRows;
use crate::verify::arxiv::truth::{Paper, load_papers, papers_csv};

static MEMORY: MemoryRuns = MemoryRuns;

/// `score` joined with the arxiv lookups on disk from the first paper; `None` when
/// they were not put there (a truth refused).
fn joined_on_disk(
    truth: &str,
    tasks: &str,
    outputs: &str,
    answered: bool,
    least: usize,
) -> (super::tests::Scored, bool) {
    let rows = ArxivRows::holding(0, &MEMORY);
    let scored = joined_by(&rows, "arxiv", truth, tasks, outputs, answered, least);
    (scored, rows.on_disk())
}

const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");

fn shipped() -> Vec<Paper> {
    load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean")
}

/// A CSV cell, quoted.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The paper list of `papers`, with a row repeating the first paper's ID when `repeat`.
fn truth_text(papers: &[&Paper], repeat: bool) -> String {
    let mut text = papers_csv(papers.iter().copied());
    if repeat && let Some(first) = papers.first() {
        text.push_str(&format!(
            "{},Another Title,Some One,{}\n",
            first.arxiv_id, first.year
        ));
    }
    text
}

/// What an output says of `paper` for a task of kind `kind`, in the form `form`.
fn fact(paper: &Paper, kind: usize, form: usize) -> String {
    let surname = paper.first_author.rsplit(' ').next().unwrap_or_default();
    let half_title: Vec<&str> = paper.title.split(' ').collect();
    let half_title = half_title[..half_title.len().div_ceil(2)].join(" ");
    match (kind, form % 3) {
        (0, 0) => format!("arXiv {}", paper.arxiv_id),
        (0, 1) => format!("{}v2", paper.arxiv_id),
        (0, _) => paper.arxiv_id.clone(),
        (1, 0) => format!("\"{}\"", paper.title),
        (1, 1) => paper.title.to_lowercase(),
        (1, _) => half_title,
        (2, 0) => paper.first_author.clone(),
        (2, 1) => surname.to_string(),
        (2, _) => format!("{} et al.", paper.first_author),
        (_, 0) => paper.year.to_string(),
        (_, 1) => format!("in {}", paper.year),
        _ => format!("{} or so", paper.year),
    }
}

/// An output for the task of `kind` about `own`: `pick` chooses the right fact,
/// another paper's (`other`), a hedge of both, or words that name nothing.
fn output_text(own: &Paper, other: &Paper, kind: usize, pick: usize, form: usize) -> String {
    match pick % 6 {
        0 | 1 => format!("I believe it is {}.", fact(own, kind, form)),
        2 => format!("It is {}.", fact(other, kind, form)),
        3 => format!(
            "Either {} or {}.",
            fact(own, kind, form),
            fact(other, kind, form + 1)
        ),
        4 => format!(
            "{}; {}",
            fact(other, (kind + 1) % 4, form),
            fact(own, kind, form)
        ),
        _ => "I don't know; maybe Zorblax Quentin, 1999.".to_string(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn the_join_scores_and_refuses_arxiv_outputs_as_the_held_verifier_does(
        chosen in prop::sample::subsequence((0usize..136).collect::<Vec<_>>(), 1..=12).prop_shuffle(),
        repeat in prop::bool::weighted(0.1),
        tasks in prop::collection::vec((0usize..16, 0usize..4), 0..40),
        outputs in prop::collection::vec((any::<bool>(), 0usize..16, 0usize..6, 0usize..3, prop::bool::weighted(0.1)), 40),
        unknown in prop::option::weighted(0.15, 0usize..40),
        jsonl in any::<bool>(),
        answered in any::<bool>(),
        least in prop::sample::select(vec![0usize, 200, 1 << 20]),
    ) {
        let all = shipped();
        let papers: Vec<&Paper> = chosen.iter().map(|&i| &all[i]).collect();
        let truth = truth_text(&papers, repeat);
        // Tasks of the chosen papers (a few repeated), now and then one the truth does
        // not hold (a shipped paper not chosen, or an unknown kind).
        let mut listed: Vec<(String, usize, usize)> = tasks
            .iter()
            .map(|&(paper, kind)| {
                let paper = paper % papers.len();
                (format!("{}:{}", papers[paper].arxiv_id, KINDS[kind]), paper, kind)
            })
            .collect();
        if let Some(at) = unknown {
            let id = if at % 2 == 0 { "0704.0001:id".to_string() } else { format!("{}:abstract", papers[0].arxiv_id) };
            listed.insert(at % (listed.len() + 1), (id, 0, 0));
        }
        let mut tasks_csv = String::from("task_id,group,kind,prompt\n");
        for (id, _, _) in &listed {
            tasks_csv.push_str(&format!("{id},g,k,q\n"));
        }
        // Outputs for some of the listed tasks, in reverse order, some failed.
        let mut outputs_text = String::new();
        if !jsonl {
            outputs_text.push_str("task_id,output,error\n");
        }
        for ((id, paper, kind), &(shown, other, pick, form, failed)) in listed.iter().zip(&outputs).rev() {
            if !shown {
                continue;
            }
            let text = output_text(papers[*paper], &all[other * 8 % all.len()], *kind, pick, form);
            if jsonl {
                let error = if failed { ", \"error\": \"timeout\"" } else { "" };
                outputs_text.push_str(&format!(
                    "{{\"task_id\": \"{id}\", \"output\": {}{error}}}\n",
                    serde_json::to_string(&text).unwrap()
                ));
            } else {
                outputs_text.push_str(&format!("{id},{},{}\n", quoted(&text), if failed { "boom" } else { "" }));
            }
        }
        let expected = held("arxiv", &truth, &tasks_csv, &outputs_text, answered);
        let got = joined("arxiv", &truth, &tasks_csv, &outputs_text, answered, least);
        prop_assert_eq!(&got, &expected, "truth {:?} tasks {:?} outputs {:?}", truth, tasks_csv, outputs_text);
        let (on_disk, used) = joined_on_disk(&truth, &tasks_csv, &outputs_text, answered, least);
        prop_assert_eq!(used, !repeat, "the lookups go to disk for every clean truth");
        prop_assert_eq!(on_disk, expected, "on disk: truth {:?} tasks {:?} outputs {:?}", truth, tasks_csv, outputs_text);
    }
}

#[test]
fn every_shipped_task_graded_joined_grades_as_held() {
    let all = shipped();
    let papers: Vec<&Paper> = all.iter().collect();
    let truth = truth_text(&papers, false);
    let mut tasks = String::from("task_id,group,kind,prompt\n");
    let mut outputs = String::from("task_id,output\n");
    for (index, paper) in all.iter().enumerate() {
        for (kind, name) in KINDS.iter().enumerate() {
            let id = format!("{}:{name}", paper.arxiv_id);
            tasks.push_str(&format!("{id},g,k,q\n"));
            let other = &all[(index * 7 + kind + 1) % all.len()];
            let text = output_text(paper, other, kind, index + kind, index / 3);
            outputs.push_str(&format!("{id},{}\n", quoted(&text)));
        }
    }
    let expected = held("arxiv", &truth, &tasks, &outputs, false).unwrap();
    assert_eq!(expected.1.tasks, 4 * all.len());
    assert!(expected.1.correct > 0 && expected.1.correct < expected.1.tasks);
    for least in [0, 1 << 20] {
        assert_eq!(
            joined("arxiv", &truth, &tasks, &outputs, false, least).unwrap(),
            expected
        );
        let (on_disk, used) = joined_on_disk(&truth, &tasks, &outputs, false, least);
        assert!(used);
        assert_eq!(on_disk.unwrap(), expected);
    }
}
