//! Every shipped task answered exactly, in several ordinary phrasings, must grade
//! correct; answered with another paper's value, it must grade wrong and score 0. The
//! other value is chosen to be hard: for first authors, another first author with the
//! same surname where there is one (`Xi Chen` for Xinlei Chen's paper).

use super::*;
use crate::verify::arxiv::truth::load_papers;

const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");

fn papers() -> Vec<Paper> {
    load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean")
}

/// The value a task of `kind` about `paper` asks for.
fn value(paper: &Paper, kind: &str) -> String {
    match kind {
        "id" => paper.arxiv_id.clone(),
        "title" => paper.title.clone(),
        "first_author" => paper.first_author.clone(),
        _ => paper.year.to_string(),
    }
}

/// An answer giving `value` for a task of `kind`.
type Phrasing = fn(&str, &str) -> String;

/// The phrasings, by name: the bare value, the value in a sentence in three ways, and
/// the IDs as `arXiv:` and as an abs address.
const PHRASINGS: [(&str, Phrasing); 5] = [
    ("bare value", |_, value| value.to_string()),
    ("sentence", |kind, value| match kind {
        "id" => format!("The paper is arXiv {value}."),
        "title" => format!("The title is \"{value}\"."),
        "first_author" => format!("The first author is {value}."),
        _ => format!("It was first submitted in {value}."),
    }),
    ("prefixed or led by", |kind, value| match kind {
        "id" => format!("arXiv:{value}"),
        "title" => format!("It is titled {value}."),
        "first_author" => format!("It was led by {value}."),
        _ => format!("In {value}."),
    }),
    ("address or value first", |kind, value| match kind {
        "id" => format!("https://arxiv.org/abs/{value}"),
        "title" => format!("{value} is the title."),
        "first_author" => format!("{value} is listed first."),
        _ => format!("{value} is the year."),
    }),
    (
        "hedging words around one answer",
        |kind, value| match kind {
            "id" => format!("I believe it is arXiv:{value}v2 (see arxiv.org/abs/{value})."),
            "title" => format!("I believe it is called \"{value}\", if I recall."),
            "first_author" => format!("I believe {value} wrote it, with co-authors."),
            _ => format!("I believe it was {value}, if I recall."),
        },
    ),
];

/// Whether two spellings of a first author are one person: the same surname and the
/// same first given name (`Diederik P. Kingma`, `Diederik P Kingma`).
fn same_person(a: &str, b: &str) -> bool {
    fn ends(name: &str) -> (Option<&str>, Option<&str>) {
        (
            name.split_whitespace().next(),
            name.split_whitespace().last(),
        )
    }
    ends(a) == ends(b)
}

/// Another paper's value for the task of `kind` about `papers[i]`, never the task's
/// own: for first authors, another person with the same surname when there is one.
fn other_value(papers: &[Paper], i: usize, kind: &str) -> String {
    let own = value(&papers[i], kind);
    let differs = |j: &usize| {
        let other = value(&papers[*j], kind);
        if kind == "first_author" {
            !same_person(&own, &other)
        } else {
            other != own
        }
    };
    let order = (1..papers.len()).map(|step| (i + step) % papers.len());
    let surname = |name: &str| name.split_whitespace().last().unwrap_or("").to_string();
    let namesake = order
        .clone()
        .filter(differs)
        .find(|&j| kind == "first_author" && surname(&papers[j].first_author) == surname(&own));
    let j = namesake
        .or_else(|| order.clone().find(differs))
        .expect("another paper with another value");
    value(&papers[j], kind)
}

#[test]
fn every_task_answered_with_its_own_value_is_correct_in_every_phrasing() {
    let papers = papers();
    let verifier = ArxivVerifier::new(papers.clone());
    let mut report = Vec::new();
    for (name, phrase) in PHRASINGS {
        let mut correct = 0;
        let mut failures = Vec::new();
        for (index, task) in verifier.tasks().iter().enumerate() {
            let answer = phrase(&task.kind, &value(&papers[index / 4], &task.kind));
            let grade = verifier.grade(index, &answer);
            if grade.correct && grade.score == 1.0 {
                correct += 1;
            } else {
                failures.push(format!(
                    "{}: {answer:?} -> {}",
                    task.task_id, grade.feedback
                ));
            }
        }
        report.push(format!(
            "{name}: {correct} of {} correct",
            verifier.tasks().len()
        ));
        if !failures.is_empty() {
            report.push(format!(
                "  first failures: {:#?}",
                &failures[..failures.len().min(12)]
            ));
        }
    }
    let all = verifier.tasks().len();
    assert_eq!(all, 544, "the shipped truth makes 544 tasks");
    let expected: Vec<String> = PHRASINGS
        .iter()
        .map(|(name, _)| format!("{name}: {all} of {all} correct"))
        .collect();
    assert_eq!(report, expected, "\n{}", report.join("\n"));
}

#[test]
fn every_task_answered_with_another_papers_value_is_wrong_and_scores_zero() {
    let papers = papers();
    let verifier = ArxivVerifier::new(papers.clone());
    let mut report = Vec::new();
    for (name, phrase) in PHRASINGS {
        let mut failures = Vec::new();
        for (index, task) in verifier.tasks().iter().enumerate() {
            let answer = phrase(&task.kind, &other_value(&papers, index / 4, &task.kind));
            let grade = verifier.grade(index, &answer);
            let wrong = !grade.correct
                && grade.correctness == 0.0
                && grade.score == 0.0
                && grade.feedback.contains(", response said ");
            if !wrong {
                failures.push(format!(
                    "{}: {answer:?} -> {} (correctness {})",
                    task.task_id, grade.feedback, grade.correctness
                ));
            }
        }
        report.push(format!("{name}: {} not graded wrong", failures.len()));
        if !failures.is_empty() {
            report.push(format!(
                "  first: {:#?}",
                &failures[..failures.len().min(12)]
            ));
        }
    }
    let expected: Vec<String> = PHRASINGS
        .iter()
        .map(|(name, _)| format!("{name}: 0 not graded wrong"))
        .collect();
    assert_eq!(report, expected, "\n{}", report.join("\n"));
}

#[test]
fn the_other_values_include_every_shared_surname() {
    // The hard cases are in the wrong-answer test: each first author who shares a
    // surname with another first author is answered with that other person.
    let papers = papers();
    let namesakes: Vec<(String, String)> = (0..papers.len())
        .map(|i| {
            (
                papers[i].first_author.clone(),
                other_value(&papers, i, "first_author"),
            )
        })
        .filter(|(own, other)| own.split_whitespace().last() == other.split_whitespace().last())
        .collect();
    // Chen (5 people), Song (2 people, 3 papers), Zhang (3), Liu (6 people, 7 papers).
    assert_eq!(namesakes.len(), 5 + 3 + 3 + 7, "{namesakes:?}");
}

/// The names after `response said ` or between `among ` and `; give one answer`.
fn quoted_names(feedback: &str) -> Vec<&str> {
    let listed = if let Some((_, said)) = feedback.split_once(", response said ") {
        said
    } else if let Some((_, among)) = feedback.split_once(" among ") {
        among.trim_end_matches("; give one answer")
    } else {
        ""
    };
    listed.split(", ").filter(|name| !name.is_empty()).collect()
}

#[test]
fn author_feedback_quotes_only_names_the_response_gave() {
    let papers = papers();
    let verifier = ArxivVerifier::new(papers.clone());
    let task = |id: &str| verifier.find_task(id).expect("a shipped task");
    // Xinlei Chen's paper, answered with another Chen.
    let xinlei = task("2011.10566:first_author");
    assert_eq!(
        verifier.grade(xinlei, "It was led by Xi Chen.").feedback,
        "expected first author Xinlei Chen, response said Xi Chen"
    );
    // Yang Song's paper: a hedge between two Songs lists what the answer wrote.
    let song = task("2011.13456:first_author");
    let hedge = verifier.grade(song, "Either J. Song or Y. Song.");
    assert_eq!(
        (hedge.correctness, hedge.feedback.as_str()),
        (
            0.5,
            "hedged: Yang Song among J. Song, Y. Song; give one answer"
        )
    );
    // Every first-author answer in every phrasing, own value or another's: each
    // name the feedback says the response gave is in the response.
    let mut checked = 0;
    for (_, phrase) in PHRASINGS {
        for (index, task) in verifier.tasks().iter().enumerate() {
            if task.kind != "first_author" {
                continue;
            }
            let paper = index / 4;
            let own = value(&papers[paper], "first_author");
            let other = other_value(&papers, paper, "first_author");
            for answer in [
                phrase("first_author", &own),
                phrase("first_author", &other),
                format!("Either {own} or {other}."),
            ] {
                let feedback = verifier.grade(index, &answer).feedback;
                for name in quoted_names(&feedback) {
                    assert!(
                        answer.contains(name),
                        "{}: {answer:?} -> {feedback:?} quotes {name:?}",
                        task.task_id
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 5 * 136 * 2, "only {checked} names were quoted");
}
