//! The rules of `verifier-rules.md`, one test each, on the shipped papers.

use proptest::prelude::*;

use super::*;
use crate::verify::arxiv::truth::load_papers;

const SHIPPED: &[u8] = include_bytes!("../../../data/arxiv/papers.csv");

fn verifier() -> ArxivVerifier {
    ArxivVerifier::new(load_papers("papers.csv", SHIPPED).expect("the shipped truth is clean"))
}

fn grade(task_id: &str, output: &str) -> Grade {
    let verifier = verifier();
    let index = verifier.find_task(task_id).expect("a known task");
    verifier.grade(index, output)
}

fn numbers(grade: &Grade) -> (f64, f64, f64, bool) {
    (
        grade.correctness,
        grade.composite,
        grade.score,
        grade.correct,
    )
}

#[test]
fn the_score_table_holds_row_for_row() {
    assert_eq!(
        numbers(&grade("1706.03762:id", "The paper is arXiv 1706.03762.")),
        (1.0, 1.0, 1.0, true)
    );
    assert_eq!(
        numbers(&grade(
            "1706.03762:id",
            "It is either 1706.03762 or 1810.04805."
        )),
        (0.5, 0.75, 0.5, false)
    );
    assert_eq!(
        numbers(&grade("1706.03762:id", "That paper is arXiv 1706.03799.")),
        (0.0, 0.5, 0.0, false)
    );
    assert_eq!(
        numbers(&grade("1706.03762:id", "Great question!")),
        (0.0, 0.0, 0.0, false)
    );
}

#[test]
fn feedback_names_the_expected_value_in_a_stable_wording() {
    assert_eq!(
        grade("1706.03762:id", "That paper is arXiv 1706.03799.").feedback,
        "expected ID 1706.03762, response said 1706.03799"
    );
    assert_eq!(
        grade("1706.03762:id", "It is either 1706.03762 or 1810.04805.").feedback,
        "hedged: 1706.03762 among 1706.03762, 1810.04805; give one answer"
    );
    assert_eq!(
        grade("1706.03762:id", "Great question!").feedback,
        "no ID found; expected 1706.03762"
    );
    assert_eq!(
        grade("1706.03762:first_author", "Ashish Vaswani").feedback,
        "correct first author Ashish Vaswani"
    );
    assert_eq!(
        grade("1706.03762:year", "2016").feedback,
        "expected year 2017, response said 2016"
    );
}

#[test]
fn tasks_are_four_per_paper_with_the_documented_prompts() {
    let verifier = verifier();
    let tasks = verifier.tasks();
    assert_eq!(tasks.len(), 544);
    let first: Vec<&str> = tasks[..4].iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(
        first,
        [
            "1301.3781:id",
            "1301.3781:title",
            "1301.3781:first_author",
            "1301.3781:year"
        ]
    );
    assert_eq!(
        tasks[1].prompt,
        "What is the exact title of arXiv paper 1301.3781?"
    );
    assert_eq!(
        tasks[0].prompt,
        "Find the arXiv ID of the paper titled \"Efficient Estimation of Word Representations in Vector Space\"."
    );
}

#[test]
fn versioned_and_prefixed_ids_are_the_right_id() {
    assert_eq!(grade("1706.03762:id", "1706.03762v7").score, 1.0);
    assert_eq!(grade("1706.03762:id", "arXiv:1706.03762").score, 1.0);
    assert_eq!(
        grade("1706.03762:id", "https://arxiv.org/abs/1706.03762v2").score,
        1.0
    );
    assert_eq!(
        grade(
            "1706.03762:id",
            "1706.03762 (also listed as arXiv:1706.03762v5)"
        )
        .score,
        1.0,
        "one ID, named twice"
    );
}

#[test]
fn a_confidently_wrong_id_has_composite_half_and_score_zero() {
    let wrong = grade("1706.03762:id", "Definitely 1810.04805.");
    assert_eq!((wrong.composite, wrong.score), (0.5, 0.0));
}

#[test]
fn an_id_is_not_a_year() {
    let year = grade("2005.14165:year", "It is 2005.14165.");
    assert_eq!(
        numbers(&year),
        (0.0, 0.0, 0.0, false),
        "2005.14165 is not the year 2005"
    );
    assert_eq!(
        grade("2005.14165:year", "2020 (arXiv 2005.14165)").score,
        1.0
    );
    assert_eq!(grade("2005.14165:year", "2019 or 2020").correctness, 0.5);
}

#[test]
fn titles_need_whole_words_and_accept_hyphen_spellings() {
    assert_eq!(
        grade("1706.03762:title", "Attention Is All You Need").score,
        1.0
    );
    let needed = grade(
        "1706.03762:title",
        "It is about how attention is all you needed",
    );
    assert!(
        needed.correctness < 1.0 && !needed.correct,
        "`... all you needed` is not the title"
    );
    for spelling in ["Low-Rank", "Low Rank", "LowRank"] {
        let answer = format!("LoRA: {spelling} Adaptation of Large Language Models");
        assert_eq!(grade("2106.09685:title", &answer).score, 1.0, "{answer}");
    }
}

#[test]
fn title_partial_credit_is_the_share_of_long_words_from_half_on() {
    // "Attention Is All You Need": attention, all, you, need (4 words of 3+ letters).
    let partial = grade("1706.03762:title", "Something about attention and need");
    assert_eq!(partial.correctness, 0.5);
    assert!(
        partial.feedback.starts_with("partial title (2/4 words)"),
        "{}",
        partial.feedback
    );
    assert_eq!(grade("1706.03762:title", "Just attention").correctness, 0.0);
    let other = grade(
        "1706.03762:title",
        "Deep Residual Learning for Image Recognition",
    );
    assert_eq!(
        (other.correctness, other.composite),
        (0.0, 0.5),
        "another paper's title is confidently wrong"
    );
}

#[test]
fn authors_need_a_given_name_initial_or_et_al() {
    assert_eq!(grade("1512.03385:first_author", "Kaiming He").score, 1.0);
    assert_eq!(grade("1512.03385:first_author", "K. He et al.").score, 1.0);
    let pronoun = grade("1512.03385:first_author", "He wrote it.");
    assert_eq!(
        pronoun.correctness, 0.0,
        "`He wrote it.` does not earn Kaiming He"
    );
    assert_eq!(
        grade("1406.2661:first_author", "I. J. Goodfellow").score,
        1.0
    );
    assert_eq!(grade("1406.2661:first_author", "Ian Goodfellow").score, 1.0);
}

#[test]
fn another_name_presented_as_the_answer_is_confidently_wrong() {
    let shazeer = grade(
        "1706.03762:first_author",
        "The first author is Noam Shazeer.",
    );
    assert_eq!(
        (shazeer.correctness, shazeer.composite, shazeer.score),
        (0.0, 0.5, 0.0)
    );
    assert_eq!(
        shazeer.feedback,
        "expected first author Ashish Vaswani, response said Noam Shazeer"
    );
    let known = grade("1706.03762:first_author", "Jacob Devlin");
    assert_eq!(
        known.feedback,
        "expected first author Ashish Vaswani, response said Jacob Devlin"
    );
    let hedge = grade("1706.03762:first_author", "Ashish Vaswani or Jacob Devlin");
    assert_eq!(hedge.correctness, 0.5);
    let echo = grade(
        "1706.03762:first_author",
        "Who is the first author of the paper \"Attention Is All You Need\"?",
    );
    assert_eq!(echo.composite, 0.0, "echoing the prompt names nobody");
}

#[test]
fn conciseness_falls_linearly_from_800_to_4000_characters() {
    let long = format!("1706.03762 {}", "x".repeat(2389));
    assert_eq!(long.chars().count(), 2400);
    let graded = grade("1706.03762:id", &long);
    assert!(
        (graded.composite - (0.5 + 0.3 + 0.2 * 0.5)).abs() < 1e-12,
        "{}",
        graded.composite
    );
    // Characters, not bytes: 711 characters in 1,411 bytes are concise.
    let accented = format!("1706.03762 {}", "é".repeat(700));
    assert_eq!(grade("1706.03762:id", &accented).composite, 1.0);
    let wide = format!("1706.03762 {}", "é".repeat(2389));
    assert!((grade("1706.03762:id", &wide).composite - 0.9).abs() < 1e-12);
    let verbose = grade("1706.03762:id", &format!("1706.03762 {}", "x".repeat(5000)));
    assert!((verbose.composite - 0.8).abs() < 1e-12);
    assert_eq!(
        grade("1706.03762:id", &"x".repeat(10)).composite,
        0.0,
        "a brief evasion earns no conciseness"
    );
}

proptest! {
    #[test]
    fn any_text_grades_within_bounds_and_wrong_answers_score_zero(text in "\\PC{0,300}", kind in 0usize..4) {
        let verifier = verifier();
        let graded = verifier.grade(40 + kind, &text);
        for value in [graded.correctness, graded.composite, graded.score] {
            prop_assert!((0.0..=1.0).contains(&value));
        }
        if graded.correctness == 0.0 {
            prop_assert_eq!(graded.score, 0.0);
        }
        prop_assert!(!graded.feedback.contains('\n'));
    }
}

#[test]
fn a_task_is_found_and_graded_by_position() {
    let verifier = verifier();
    let index = verifier.find_task("1706.03762:id").expect("a known task");
    let (group, kind) = verifier.task_names(index);
    assert_eq!((group, kind), ("1706.03762", "id"));
    assert!(verifier.grade(index, "arXiv 1706.03762").correct);
    assert_eq!(verifier.tasks().len(), verifier.task_count());
}

#[test]
fn a_year_is_shown_as_its_decimal_digits() {
    for year in [
        0u16,
        7,
        10,
        99,
        100,
        1991,
        2017,
        2099,
        9999,
        10000,
        u16::MAX,
    ] {
        assert_eq!(YearText::new(year).as_ref(), year.to_string());
    }
}

#[test]
fn a_bare_surname_shared_by_several_first_authors_earns_a_share_of_them() {
    // Five known first authors are called Chen: `Chen` alone does not say which, so it
    // earns what naming one of the five at random would: a fifth.
    let bare = grade("2011.10566:first_author", "The first author is Chen.");
    assert_eq!(numbers(&bare), (0.2, 0.5 * 0.2 + 0.3 + 0.2, 0.2, false));
    assert_eq!(
        bare.feedback,
        "ambiguous: Chen fits 5 known first authors; expected first author Xinlei Chen; give the full name"
    );
    // A surname only one known first author has is that author, as the rules say.
    assert!(grade("1706.03762:first_author", "The first author is Vaswani.").correct);
    // An ambiguous surname that is not the expected author's is wrong.
    let other = grade("1706.03762:first_author", "The first author is Chen.");
    assert_eq!(
        (other.score, other.feedback.as_str()),
        (
            0.0,
            "expected first author Ashish Vaswani, response said Chen"
        )
    );
}

#[test]
fn listing_namesakes_is_a_hedge_and_a_full_name_settles_a_bare_surname() {
    let listed = grade(
        "2011.10566:first_author",
        "Xi Chen, Ting Chen or Xinlei Chen.",
    );
    assert_eq!(
        (listed.correctness, listed.feedback.as_str()),
        (
            1.0 / 3.0,
            "hedged: Xinlei Chen among Xi Chen, Ting Chen, Xinlei Chen; give one answer"
        )
    );
    let settled = grade(
        "2011.10566:first_author",
        "Xinlei Chen. Chen et al. showed it.",
    );
    assert!(settled.correct, "{}", settled.feedback);
}

#[test]
fn a_given_name_that_fits_no_known_first_author_is_another_person() {
    // Vaswani's surname with another given name is a fluent wrong answer.
    let ashok = grade(
        "1706.03762:first_author",
        "The first author is Ashok Vaswani.",
    );
    assert_eq!(
        (ashok.score, ashok.feedback.as_str()),
        (
            0.0,
            "expected first author Ashish Vaswani, response said Ashok Vaswani"
        )
    );
}

#[test]
fn feedback_quotes_names_with_their_accents() {
    let accented = grade(
        "1706.03762:first_author",
        "Le premier auteur est Jürgen Schmidhüber.",
    );
    assert_eq!(
        accented.feedback,
        "expected first author Ashish Vaswani, response said Jürgen Schmidhüber"
    );
    let namesake = grade("2011.10566:first_author", "Réponse : Xï Chen.");
    assert_eq!(
        namesake.feedback,
        "expected first author Xinlei Chen, response said Xï Chen"
    );
}

#[test]
fn listing_the_tasks_builds_none_of_the_lookups_grading_needs_until_a_grade() {
    let truth = crate::table::scan::RowScanner::new("papers.csv", SHIPPED)
        .expect("the shipped truth has a header");
    let verifier =
        ArxivVerifier::from_loaded(load_truth(truth).expect("the shipped truth is clean"));
    // What `split` asks: every task's names, id lookup and prompt.
    for index in 0..verifier.task_count() {
        let (group, kind) = verifier.task_names(index);
        let id = crate::task::task_id(group, kind);
        assert_eq!(verifier.find_task(&id), Some(index));
        assert!(!verifier.prompt(index).is_empty());
    }
    assert!(verifier.lookups.get().is_none());
    let index = verifier
        .find_task("1706.03762:title")
        .expect("a shipped task");
    let grade = verifier.grade(index, "Attention Is All You Need");
    assert!(grade.correct, "{grade:?}");
    assert!(verifier.lookups.get().is_some());
}

#[test]
fn a_verifier_of_papers_whose_ids_repeat_grades_each_task_by_the_first_paper_of_its_id() {
    let paper = |id: &str, title: &str, author: &str| Paper {
        arxiv_id: id.to_string(),
        title: title.to_string(),
        first_author: author.to_string(),
        year: 2017,
    };
    let verifier = ArxivVerifier::new(vec![
        paper("1706.03762", "Attention Is All You Need", "Ashish Vaswani"),
        paper("1706.03762", "Another Paper Entirely", "Jacob Devlin"),
    ]);
    assert!(verifier.ids_repeat);
    assert_eq!(verifier.find_task("1706.03762:title"), Some(1));
    // Task 5 is the second paper's title task; its id names the first paper.
    let grade = verifier.grade(5, "Attention Is All You Need");
    assert!(grade.correct, "{grade:?}");
}
