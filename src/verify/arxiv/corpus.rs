//! Pins every grade of a corpus of varied answers (right, hedged, wrong, evasive,
//! Unicode, hostile, hedges between titles and between names, prompt echoes) to every
//! task of the shipped truth. `corpus_grades.txt` holds one SHA-256 prefix per task of
//! the grades the verifier gave before grading was made faster; a change to how any of
//! these answers grades fails here and prints the task's grades. Regenerate the file
//! only for an intended change of the rules: `EVOGATE_BLESS_CORPUS=1 cargo test
//! corpus`; `EVOGATE_DUMP_CORPUS=FILE` writes every grade in full, to compare the
//! grades before and after such a change.

use std::fmt::Write as _;

use super::*;
use crate::digest::sha256_hex;
use crate::verify::arxiv::truth::load_papers;

const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");
const PINNED: &str = include_str!("corpus_grades.txt");

/// `text` with every word's first letter only, dotted: `Tsung-Yi` becomes `T.-Y.`.
fn initials(given: &str) -> String {
    given
        .split('-')
        .filter_map(|part| part.chars().next())
        .map(|c| format!("{c}."))
        .collect::<Vec<_>>()
        .join("-")
}

/// The answers put to every task about `papers[i]`.
fn answers(papers: &[Paper], i: usize) -> Vec<String> {
    let p = &papers[i];
    let q = &papers[(i + 1) % papers.len()];
    let r = &papers[(i + 37) % papers.len()];
    let words: Vec<&str> = p.first_author.split_whitespace().collect();
    let surname = words.last().copied().unwrap_or_default();
    let given = words.first().copied().unwrap_or_default();
    let title_words: Vec<&str> = p.title.split_whitespace().collect();
    let half = title_words[..title_words.len() / 2 + 1].join(" ");
    let (id, title, author, year) = (&p.arxiv_id, &p.title, &p.first_author, p.year);
    let mut out = vec![
        String::new(),
        "Great question! I am not sure.".to_string(),
        format!("The paper is arXiv {id}."),
        format!("arXiv:{id}v3, see https://arxiv.org/abs/{}", q.arxiv_id),
        format!("It is either {id} or {}.", q.arxiv_id),
        q.arxiv_id.clone(),
        format!("https://arxiv.org/pdf/{id}.pdf (1.{id})"),
        format!("The title is \"{title}\"."),
        title.to_lowercase(),
        title.replace('-', ""),
        title.replace('-', " "),
        format!("Either \"{title}\" or \"{}\".", q.title),
        format!("I think it's \"{}\".", q.title),
        format!("Something like \"{half} ...\", I don't remember the rest."),
        format!(
            "Something about {}",
            title_words[title_words.len() / 2..].join(" ")
        ),
        format!("{title} by {author}, {year}"),
        format!("{title}s"),
        format!("The first author is {author}."),
        format!("{author} et al. ({year})"),
        format!("{} {surname}", initials(given)),
        format!("{surname} wrote it."),
        format!("It was written by {surname}."),
        author.to_lowercase(),
        author.to_uppercase(),
        format!("Either {author} or {} is listed first.", q.first_author),
        format!(
            "The authors include {} and {}.",
            q.first_author, r.first_author
        ),
        "The first author is Noam Shazeer.".to_string(),
        "It was led by Zoltan Brightwater, I believe. Deep Learning Wizard Bob said so."
            .to_string(),
        format!("He wrote it. {year}"),
        format!("In {year}."),
        format!("Either {year} or {}.", year + 1),
        format!("{}", year - 1),
        format!("Submitted in {year} as {id}; 1990, 2100 and 20171 are not years."),
        format!("« {title} » — déjà vu: {author} l’a écrit en {year}."),
        format!(
            "İstanbul ﬁne Ｔｈｅ {}’s paper {}",
            author,
            title.to_uppercase()
        ),
        format!("=cmd|' /C calc'!A0 {id}"),
        format!("\u{202e}{title}\u{0}\t{author}"),
        format!("{title}\n{}\r\n{}", q.title, r.title),
        format!("🤖 {author} 🤖 {} 🤖", q.first_author),
        "'; DROP TABLE papers; --".to_string(),
        format!("{id} {}", "lorem ipsum dolor ".repeat(250)),
        format!(
            "Sure! \"{title}\" ({id}) by {} {surname} et al., {year}.",
            initials(given)
        ),
        format!("{surname}, {given}: {}", q.title.replace(' ', "-")),
        format!("van den {surname} and Van Der {surname}, or {given}-{surname}"),
        format!("{given}. {surname}! {given}? {surname}: {given}\n{surname}"),
    ];
    for kind in KINDS {
        out.push(prompt(p, kind));
    }
    out
}

/// One line per answer: its index and every field of its grade, floats exactly.
fn render(grades: &[Grade]) -> String {
    let mut text = String::new();
    for (index, grade) in grades.iter().enumerate() {
        let _ = writeln!(
            text,
            "{index}\t{}\t{:?}\t{:?}\t{:?}\t{}",
            grade.correct, grade.correctness, grade.composite, grade.score, grade.feedback
        );
    }
    text
}

#[test]
fn every_corpus_answer_grades_as_pinned_on_every_shipped_task() {
    let papers = load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean");
    let verifier = ArxivVerifier::new(papers.clone());
    let mut lines = String::new();
    let mut dump = String::new();
    let mut failures = Vec::new();
    let pinned: Vec<&str> = PINNED.lines().collect();
    for (index, task) in verifier.tasks().iter().enumerate() {
        let paper = index / KINDS.len();
        let answers = answers(&papers, paper);
        let grades: Vec<Grade> = answers
            .iter()
            .map(|answer| verifier.grade(index, answer))
            .collect();
        let rendered = render(&grades);
        let line = format!(
            "{} {}",
            task.task_id,
            &sha256_hex(rendered.as_bytes())[..16]
        );
        if pinned.get(index) != Some(&line.as_str()) {
            failures.push(format!(
                "{line} (pinned: {:?})\n{rendered}",
                pinned.get(index)
            ));
        }
        lines.push_str(&line);
        lines.push('\n');
        let _ = writeln!(dump, "{}\n{rendered}", task.task_id);
        for (index, answer) in answers.iter().enumerate() {
            let _ = writeln!(dump, "answer {index}\t{answer:?}");
        }
    }
    if let Some(path) = std::env::var_os("EVOGATE_DUMP_CORPUS") {
        // Every grade in full, to read what a change of the rules changes.
        std::fs::write(path, &dump).expect("the dump file is writable");
    }
    if std::env::var_os("EVOGATE_BLESS_CORPUS").is_some() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/verify/arxiv/corpus_grades.txt"
        );
        std::fs::write(path, &lines).expect("the pinned file is writable");
        return;
    }
    assert_eq!(
        pinned.len(),
        verifier.tasks().len(),
        "one pinned line per task"
    );
    assert!(
        failures.is_empty(),
        "{} of {} tasks grade differently; the first:\n{}",
        failures.len(),
        verifier.tasks().len(),
        failures[0]
    );
}

#[test]
fn every_corpus_answer_grades_the_same_with_the_lookups_on_disk() {
    static MEMORY: crate::base::sorter::MemoryRuns = crate::base::sorter::MemoryRuns;
    let papers = load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean");
    let held = ArxivVerifier::new(papers.clone());
    let on_disk = ArxivVerifier::new(papers.clone());
    on_disk.use_disk(
        super::disk::DiskLookups::build(&on_disk.papers, &MEMORY).expect("a table in memory"),
    );
    assert!(matches!(
        on_disk.lookups.get(),
        Some(super::Lookups::OnDisk(_))
    ));
    let mut graded = 0;
    for index in 0..held.task_count() {
        for answer in answers(&papers, index / KINDS.len()) {
            assert_eq!(
                on_disk.grade(index, &answer),
                held.grade(index, &answer),
                "task {index}, answer {answer:?}"
            );
            graded += 1;
        }
    }
    assert!(graded > 2000, "{graded}");
    assert_eq!(on_disk.disk_failure(), None);
}
