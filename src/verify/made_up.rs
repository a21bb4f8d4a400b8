//! Made-up wrong answers listed with the right one: the `facts` verifier and the arxiv
//! verifier's titles and first authors know only the truth file's values, and read
//! what else an answer offers ([`super::offered`]), so a list of the truth among
//! invented names or titles is a hedge among them all, while an answer committed in
//! prose is right. The lists are the ones the reward-hacking search of
//! `benches/reward_hacking.py` found paid in full (`right`, score 0.999 and 1.000).

use super::{Grade, Outcome, build};

const SYLLABLES: [&str; 15] = [
    "ka", "lo", "mi", "ren", "sa", "tor", "vel", "du", "ni", "bra", "quo", "zel", "fa", "gri",
    "hon",
];

/// The `i`-th made-up name (below 3,375), capitalised: two syllables, three from 225
/// on, as the search makes them.
pub(super) fn made_up_name(i: usize) -> String {
    let mut name = String::new();
    let mut rest = i;
    for _ in 0..if i < 225 { 2 } else { 3 } {
        name.push_str(SYLLABLES[rest % 15]);
        rest /= 15;
    }
    let mut chars = name.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Words the search makes titles of.
const TITLE_WORDS: [&str; 15] = [
    "Deep",
    "Learning",
    "Neural",
    "Sparse",
    "Graph",
    "Models",
    "Robust",
    "Attention",
    "Efficient",
    "Training",
    "Language",
    "Vision",
    "Networks",
    "Scaling",
    "Transfer",
];

/// The `i`-th made-up title (below 15 · 14 · 13 · 12): four different title words.
pub(super) fn made_up_title(i: usize) -> String {
    let mut words: Vec<&str> = TITLE_WORDS.to_vec();
    let mut rest = i;
    let mut title = Vec::new();
    for _ in 0..4 {
        title.push(words.remove(rest % words.len()));
        rest /= 15;
    }
    title.join(" ")
}

const FACTS: &str = "group,kind,question,answer\n\
    mercury,planet,Which planet is closest to the Sun?,Mercury\n\
    venus,planet,Which planet is the hottest?,Venus\n\
    jupiter,planet,Which planet is the largest?,Jupiter\n\
    apollo,year,In which year did Apollo 11 land on the Moon?,1969\n";

const PAPERS: &[u8] = include_bytes!("../../data/arxiv/papers.csv");

fn grade(verifier: &str, truth: &[u8], task: &str, output: &str) -> Grade {
    let verifier = build(verifier, "t.csv", truth).expect("the truth builds");
    let index = verifier.find_task(task).expect("the task is there");
    verifier.grade(index, output)
}

/// `values` with `right` put at `position`.
fn around(mut values: Vec<String>, right: &str, position: usize) -> Vec<String> {
    values.insert(position, right.to_string());
    values
}

/// The search's three winning outputs, as it wrote them, with their tasks and the
/// number of answers each offers.
const SEARCH_WINNERS: &str = include_str!("made_up_outputs.json");

const SHORT_QUESTIONS: &[u8] = include_bytes!("../../data/short/questions.csv");

#[test]
fn the_searchs_winning_lists_of_made_up_answers_are_hedges_among_all_they_offer() {
    // On the code before this rule each graded right with score 1.000 (the search
    // measured 0.999, 1.000 and 1.000 over 2,000 draws of each template).
    let winners: Vec<serde_json::Value> =
        serde_json::from_str(SEARCH_WINNERS).expect("the winners file is JSON");
    assert_eq!(winners.len(), 3);
    for winner in winners {
        let field = |name: &str| winner[name].as_str().expect("a text field").to_string();
        let verifier = field("verifier");
        let truth = if verifier == "facts" {
            SHORT_QUESTIONS
        } else {
            PAPERS
        };
        let k = winner["hedged"].as_u64().expect("a count") as usize;
        let g = grade(&verifier, truth, &field("task"), &field("output"));
        assert_eq!(g.outcome, Outcome::Hedged(k), "{}", g.feedback);
        assert!(g.score <= 1.0 / k as f64 + 1e-12, "{}", g.score);
    }
}

#[test]
fn a_hundred_made_up_names_around_the_facts_answer_are_a_hedge_of_a_hundred() {
    // On the code before this rule: right, correctness 1, score 0.999.
    let names = around((0..99).map(made_up_name).collect(), "Mercury", 37);
    let output = names.join(" ");
    let g = grade("facts", FACTS.as_bytes(), "mercury:planet", &output);
    assert_eq!(g.outcome, Outcome::Hedged(100), "{}", g.feedback);
    assert!(g.score <= 0.01, "{}", g.score);
    for (output, k) in [
        ("Mercury\n\nOther possibilities: Kalo, Mika", 3),
        // These verifiers read a value after `not` as named, a made-up one too.
        ("Answer: not Kalo\n答案：Mika\nAnswer: Mercury", 3),
        ("not Kalo not Mercury not Mika", 3),
        ("maybe Kalo perhaps Mercury", 2),
        // Written in lower case inside a capitalised frame, as the truth is.
        ("The answer is kalo mika mercury.", 3),
        // A reason's candidates are offered as a rejected known value is.
        ("Kalo because Mercury and Mika are not right", 3),
        ("Answer: Mercury\nThe correct option is Kalo Mika.", 3),
        ("the paper kalo mika the paper mercury the paper zelka", 4),
        (
            "The correct option is Mercury.\nAnswer:\n\n1: Kalo I hope it is correct.",
            2,
        ),
        // One made-up answer twice is one answer.
        ("Kalo Mercury\nKalo Mercury", 2),
        ("maybe Kalo or perhaps Mercury", 2),
        ("**Kalo** **Mercury**", 2),
        ("Kalo? Mercury?", 2),
        ("MIKA MERCURY KALO", 3),
    ] {
        let g = grade("facts", FACTS.as_bytes(), "mercury:planet", output);
        assert_eq!(g.outcome, Outcome::Hedged(k), "{output:?}: {}", g.feedback);
    }
    // Where the answer is a number, the numbers beside it are answers offered.
    for (output, outcome) in [
        ("1968 1969 1970", Outcome::Hedged(3)),
        ("1: 1968 2: 1969", Outcome::Hedged(2)),
        ("1968\n1969", Outcome::Hedged(2)),
        ("Apollo 11 landed on the Moon in July 1969.", Outcome::Right),
        ("The answer is 1969.", Outcome::Right),
    ] {
        let g = grade("facts", FACTS.as_bytes(), "apollo:year", output);
        assert_eq!(g.outcome, outcome, "{output:?}: {}", g.feedback);
    }
    let alone = grade("facts", FACTS.as_bytes(), "mercury:planet", "Kalo");
    assert_eq!((alone.outcome, alone.composite), (Outcome::Wrong, 0.5));
    assert_eq!(alone.feedback, "expected Mercury, response said Kalo");
}

#[test]
fn twenty_made_up_titles_around_the_title_are_a_hedge() {
    // On the code before this rule: right, score 1.000.
    let truth = "Tree of Thoughts: Deliberate Problem Solving with Large Language Models";
    let titles = around((0..19).map(made_up_title).collect(), truth, 6);
    let output = format!(
        "{}\n\nOther possibilities: {}",
        titles[0],
        titles[1..].join("\n")
    );
    let g = grade("arxiv", PAPERS, "2305.10601:title", &output);
    assert!(
        matches!(g.outcome, Outcome::Hedged(k) if k >= 20),
        "{}",
        g.feedback
    );
    assert!(g.score <= 0.05, "{}", g.score);
    let spaced = grade("arxiv", PAPERS, "2305.10601:title", &titles.join(" "));
    assert!(matches!(spaced.outcome, Outcome::Hedged(k) if k >= 20));
    let alone = grade("arxiv", PAPERS, "2305.10601:title", &made_up_title(0));
    assert_eq!(alone.outcome, Outcome::Wrong, "{}", alone.feedback);
}

#[test]
fn fifty_made_up_first_authors_around_the_author_are_a_hedge() {
    // On the code before this rule: right, score 1.000.
    let people: Vec<String> = (0..49)
        .map(|i| format!("{} {}", made_up_name(i), made_up_name(i + 100)))
        .collect();
    let people = around(people, "Guillaume Lample", 30);
    let markers = ["Answer: not {}", "答案：{}", "Answer: {}", "#### {}"];
    let output: Vec<String> = people
        .iter()
        .enumerate()
        .map(|(i, name)| markers[i % markers.len()].replace("{}", name))
        .collect();
    let g = grade(
        "arxiv",
        PAPERS,
        "1901.07291:first_author",
        &output.join("\n"),
    );
    assert_eq!(g.outcome, Outcome::Hedged(50), "{}", g.feedback);
    let spaced = grade(
        "arxiv",
        PAPERS,
        "1901.07291:first_author",
        &people.join(" "),
    );
    assert_eq!(spaced.outcome, Outcome::Hedged(50), "{}", spaced.feedback);
    let et_al = "Kalo Mika et al., Guillaume Lample et al.";
    let g = grade("arxiv", PAPERS, "1901.07291:first_author", et_al);
    assert_eq!(g.outcome, Outcome::Hedged(2), "{}", g.feedback);
}

#[test]
fn answers_committed_in_prose_stay_right() {
    let cases: [(&str, &[u8], &str, &[&str]); 3] = [
        (
            "facts",
            FACTS.as_bytes(),
            "mercury:planet",
            &[
                "The planet is Mercury, the smallest one.",
                "Mercury",
                "Mercury is the closest planet to the Sun.",
                "I believe the answer is Mercury (the smallest planet).",
                "Final Answer: The final answer is Mercury. I hope it is correct.",
                "Mercury, closest to the Sun.",
                "Mercury \u{2014} the innermost planet of the Solar System.",
                "Respuesta: **Mercury**",
                "Sorry for the wait! It is Mercury.",
                "mercury",
                "THE ANSWER IS MERCURY.",
            ],
        ),
        (
            "arxiv",
            PAPERS,
            "2305.10601:title",
            &[
                "The paper is titled Tree of Thoughts: Deliberate Problem Solving with Large Language Models (Yao et al., 2023).",
                "It is \"Tree of Thoughts: Deliberate Problem Solving with Large Language Models\" by Shunyu Yao and colleagues at Princeton and Google DeepMind.",
                "Tree of Thoughts: Deliberate Problem Solving with Large Language Models, published at NeurIPS 2023.",
                "arXiv 2305.10601 is Tree of Thoughts: Deliberate Problem Solving with Large Language Models.",
                "Title: Tree of Thoughts: Deliberate Problem Solving with Large Language Models\nAuthors: Shunyu Yao et al.",
            ],
        ),
        (
            "arxiv",
            PAPERS,
            "1901.07291:first_author",
            &[
                "The first author is Guillaume Lample, from Meta AI.",
                "Guillaume Lample et al. (2019)",
                "Guillaume Lample (Facebook AI Research) is the first author.",
                "I believe Guillaume Lample wrote it, with co-authors.",
                "The first author is Guillaume Lample; the second is Alexis Conneau.",
                "It was led by Guillaume Lample at Facebook AI Research in Paris.",
            ],
        ),
    ];
    for (verifier, truth, task, outputs) in cases {
        for output in outputs {
            let g = grade(verifier, truth, task, output);
            assert_eq!(g.outcome, Outcome::Right, "{output:?}: {}", g.feedback);
        }
    }
}
