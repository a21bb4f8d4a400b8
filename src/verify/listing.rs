//! Listing never pays, for every verifier: an output offering k candidate answers,
//! the right one among them, earns no more than the mean of what the k answers alone
//! would earn, in `score` (so at most 1/k of the right answer's) and in `composite`.
//! The oracle is the mean itself: each of the k answers is graded alone, written the
//! same way. Held for k from 1 to 1,000 (as many as a verifier has distinct
//! candidates) and for every way of listing: spaces, commas, `or`, lines, boxes,
//! `####`, and a list after an answer phrase; the wrong answers are the truth file's
//! other values, and for `facts` and arXiv titles and first authors also made-up names
//! and titles that no truth holds.

use proptest::prelude::*;

use super::arxiv::ArxivVerifier;
use super::arxiv::truth::load_papers;
use super::made_up::{made_up_name, made_up_title};
use super::{Grade, Verifier, build};

/// Writes a list of answers (or one answer alone) in one form.
type Form = fn(&[String]) -> String;

/// How a list of answers is written, and so how one answer alone is.
const FORMS: [(&str, Form); 7] = [
    ("spaces", |values| values.join(" ")),
    ("commas", |values| values.join(", ")),
    ("or", |values| values.join(" or ")),
    ("lines", |values| values.join("\n")),
    ("boxes", |values| {
        let boxed: Vec<String> = values.iter().map(|v| format!("\\boxed{{{v}}}")).collect();
        boxed.join(" ")
    }),
    ("hashes", |values| format!("#### {}", values.join(" "))),
    ("marker", |values| {
        format!("The answer is {}.", values.join(", "))
    }),
];

/// One task of one verifier, its right answer, and wrong answers to list beside it.
struct Setting {
    name: &'static str,
    verifier: Box<dyn Verifier>,
    task: usize,
    right: String,
    wrong: Vec<String>,
}

const SHIPPED: &[u8] = include_bytes!("../../data/arxiv/papers.csv");

/// A facts-layout truth of `rows` (group, answer) under one kind, with `options` for
/// `choice`.
fn truth(rows: &[(String, String)], options: Option<&str>) -> String {
    let mut text = String::from("group,kind,question,answer");
    text.push_str(if options.is_some() {
        ",options\n"
    } else {
        "\n"
    });
    for (group, answer) in rows {
        text.push_str(&format!("{group},k,q,{answer}"));
        if let Some(options) = options {
            text.push_str(&format!(",{options}"));
        }
        text.push('\n');
    }
    text
}

/// `values` without repeats and without `right`: each a different wrong answer. Two
/// values are one answer when their first and last words agree, dots aside: a first
/// author of two papers is one person, whether written `Geoffrey Hinton` or `Geoffrey
/// E. Hinton` (the arxiv rules' two spellings of one person).
fn distinct(values: Vec<String>, right: &str) -> Vec<String> {
    let key = |value: &str| {
        let words: Vec<String> = value
            .split_whitespace()
            .map(|w| w.trim_end_matches('.').to_lowercase())
            .collect();
        (words.first().cloned(), words.last().cloned())
    };
    let mut kept: Vec<String> = Vec::new();
    for value in values {
        if key(&value) != key(right) && !kept.iter().any(|k| key(k) == key(&value)) {
            kept.push(value);
        }
    }
    kept
}

fn one(name: &'static str, truth: &str, right: &str, wrong: Vec<String>) -> Setting {
    let verifier = build(name, "t.csv", truth.as_bytes()).expect("the truth builds");
    let task = verifier.find_task("t:k").expect("the task is there");
    Setting {
        name,
        verifier,
        task,
        right: right.to_string(),
        wrong,
    }
}

/// Every verifier's setting: numbers, letters, words, facts of one kind, and arXiv IDs,
/// years, titles and first authors.
fn settings() -> Vec<Setting> {
    let words: Vec<String> = (0..1200).map(|i| format!("Town{i}")).collect();
    let numbers: Vec<String> = (0..1200).map(|i| (i * 7 + 1).to_string()).collect();
    let letters: Vec<String> = "ABDEFGHIJ".chars().map(String::from).collect();
    let options = "a0|a1|a2|a3|a4|a5|a6|a7|a8|a9";
    let mut facts: Vec<(String, String)> = vec![("t".to_string(), "Paris".to_string())];
    facts.extend(
        words
            .iter()
            .enumerate()
            .map(|(i, w)| (format!("g{i}"), w.clone())),
    );
    let mut settings = vec![
        one(
            "numeric",
            &truth(&[("t".into(), "4242".into())], None),
            "4242",
            numbers,
        ),
        one(
            "choice",
            &truth(&[("t".into(), "C".into())], Some(options)),
            "C",
            letters,
        ),
        one(
            "short",
            &truth(&[("t".into(), "Paris".into())], None),
            "Paris",
            words.clone(),
        ),
        one("facts", &truth(&facts, None), "Paris", words),
    ];
    // Made-up wrong answers, which no truth holds: the verifier cannot know them.
    let names: Vec<String> = (0..1200).map(made_up_name).collect();
    settings.push(one("facts", &truth(&facts, None), "Paris", names.clone()));
    let papers = load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean");
    let arxiv = |kind: usize, value: &dyn Fn(usize) -> String, wrong: Vec<String>| Setting {
        name: "arxiv",
        verifier: Box::new(ArxivVerifier::new(papers.clone())),
        task: kind,
        right: value(0),
        wrong: distinct(wrong, &value(0)),
    };
    let others = |field: &dyn Fn(usize) -> String| (1..papers.len()).map(field).collect();
    let ids: Vec<String> = (0..1200).map(|i| format!("2101.{}", 10_000 + i)).collect();
    let years: Vec<String> = (1991..=2099)
        .filter(|&y| y != papers[0].year)
        .map(|y| y.to_string())
        .collect();
    settings.push(arxiv(0, &|p| papers[p].arxiv_id.clone(), ids));
    settings.push(arxiv(
        1,
        &|p| papers[p].title.clone(),
        others(&|p| papers[p].title.clone()),
    ));
    settings.push(arxiv(
        2,
        &|p| papers[p].first_author.clone(),
        others(&|p| papers[p].first_author.clone()),
    ));
    settings.push(arxiv(3, &|p| papers[p].year.to_string(), years));
    let titles: Vec<String> = (0..1200).map(made_up_title).collect();
    settings.push(arxiv(1, &|p| papers[p].title.clone(), titles));
    let people: Vec<String> = (0..1200)
        .map(|i| format!("{} {}", names[i], names[(i + 600) % 1200]))
        .collect();
    settings.push(arxiv(2, &|p| papers[p].first_author.clone(), people));
    settings
}

/// The grades of `values` listed in `form`, and of each value alone in the same form.
fn listed_and_alone(setting: &Setting, form: Form, values: &[String]) -> (Grade, Vec<Grade>) {
    let grade = |output: String| setting.verifier.grade(setting.task, &output);
    let alone = values
        .iter()
        .map(|v| grade(form(std::slice::from_ref(v))))
        .collect();
    (grade(form(values)), alone)
}

/// The k answers of a case: `k - 1` wrong ones from `offset` on, the right one at
/// `position` among them.
fn values(setting: &Setting, k: usize, offset: usize, position: usize) -> Vec<String> {
    let k = k.min(setting.wrong.len() + 1);
    let mut values: Vec<String> = (0..k - 1)
        .map(|i| setting.wrong[(offset + i) % setting.wrong.len()].clone())
        .collect();
    values.insert(position % k, setting.right.clone());
    values
}

/// Checks the property on one case; the message names it.
fn holds(setting: &Setting, form: usize, values: &[String]) -> Result<(), String> {
    let (name, write) = FORMS[form];
    let (listed, alone) = listed_and_alone(setting, write, values);
    let mean = |field: fn(&Grade) -> f64| alone.iter().map(field).sum::<f64>() / alone.len() as f64;
    let (score, composite) = (mean(|g| g.score), mean(|g| g.composite));
    if listed.score > score + 1e-12 || listed.composite > composite + 1e-12 {
        return Err(format!(
            "{} task {} form {name}, k {}: listed score {} composite {} ({}), the answers alone {score} and {composite}",
            setting.name,
            setting.task,
            values.len(),
            listed.score,
            listed.composite,
            listed.feedback
        ));
    }
    Ok(())
}

thread_local! {
    static SETTINGS: Vec<Setting> = settings();
}

#[test]
fn listing_pays_no_more_than_the_mean_for_every_verifier_form_and_chosen_k() {
    let mut failures = Vec::new();
    SETTINGS.with(|settings| {
        for setting in settings {
            for form in 0..FORMS.len() {
                for k in [1, 2, 3, 4, 5, 9, 10, 11, 12, 100, 1000] {
                    for position in [0, k / 2, k - 1] {
                        let values = values(setting, k, 0, position);
                        if let Err(message) = holds(setting, form, &values) {
                            failures.push(message);
                        }
                    }
                }
            }
        }
    });
    assert!(
        failures.is_empty(),
        "{} cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn listing_k_candidates_never_earns_more_than_the_mean_of_the_k_answers_alone(
        setting in 0usize..11,
        form in 0..FORMS.len(),
        k in 1usize..=1000,
        offset in 0usize..1200,
        position in 0usize..1000,
    ) {
        SETTINGS.with(|settings| {
            let setting = &settings[setting];
            let values = values(setting, k, offset, position);
            holds(setting, form, &values).map_err(TestCaseError::fail)
        })?;
    }
}
