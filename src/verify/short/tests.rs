//! The `short` verifier's grades, and each of its rules against gaming.

use super::*;
use crate::verify::one_answer::testing::assert_grades;
use crate::verify::{Verifier, build};

fn verifier() -> Box<dyn Verifier> {
    let truth = "group,kind,question,answer\n\
            fr,capital,Capital of France?,Paris\n\
            dday,date,When was D-Day?,6 June 1944|June 6 1944\n\
            band,music,Which band?,The Beatles\n\
            album,music,Joy Division's first album?,Unknown Pleasures\n";
    build("short", "s.csv", truth.as_bytes()).unwrap()
}

fn grade(id: &str, output: &str) -> Grade {
    let v = verifier();
    v.grade(v.find_task(id).unwrap(), output)
}

fn tokens(text: &str) -> Vec<String> {
    squad_tokens(text)
}

/// `output` to "Capital of France?" earns nothing as a refusal.
fn assert_refusal(output: &str) {
    let g = grade("fr:capital", output);
    assert_eq!((g.correctness, g.composite), (0.0, 0.0), "{output}");
    assert!(g.feedback.starts_with("no answer given"), "{}", g.feedback);
}

/// `output` to "Capital of France?" is graded as a wrong answer.
fn assert_wrong(output: &str) {
    let feedback = grade("fr:capital", output).feedback;
    assert_eq!(feedback, format!("expected Paris, response said {output}"));
}

#[test]
fn normalises_as_squad_does() {
    assert_eq!(tokens("The  Beatles!"), ["beatles"]);
    assert_eq!(tokens("U.S.-based, an apple"), ["usbased", "apple"]);
    assert_eq!(tokens("Théâtre—the end"), ["théâtre—", "end"]);
    assert_eq!(tokens("Don't"), ["dont"]);
}

/// F1 values computed by hand from SQuAD v1.1's definition: precision and recall of
/// the shared tokens (counted with multiplicity).
#[test]
fn token_f1_is_squads() {
    let f1 = |p: &str, g: &str| token_f1(&tokens(p), &tokens(g));
    assert_eq!(f1("Paris", "Paris"), 1.0);
    assert_eq!(f1("Paris France", "Paris"), 2.0 / 3.0);
    assert_eq!(f1("June 1944", "6 June 1944"), 0.8);
    // The articles go: "b" against "b b".
    assert!((f1("a a b", "a b b") - 2.0 / 3.0).abs() < 1e-15);
    assert!((f1("x x y", "x y y") - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(f1("Lyon", "Paris"), 0.0);
}

#[test]
fn exact_match_after_normalisation_is_right_and_f1_is_partial() {
    let right = [
        "Paris",
        "paris.",
        "The answer is Paris.",
        "Answer: **Paris**",
        "Paris\n\nIt is the capital.",
    ]
    .map(|output| ("fr:capital", output));
    assert_grades(grade, right, (true, 1.0, 1.0));
    assert!(grade("band:music", "Beatles").correct);
    assert!(grade("dday:date", "June 6, 1944").correct);
    let g = grade("dday:date", "June 1944");
    assert_eq!((g.correct, g.correctness), (false, 0.8));
    assert_eq!(
        g.feedback,
        "partial: token F1 0.80 against 6 June 1944; response said June 1944"
    );
    let g = grade("band:music", "Beatles The");
    assert_eq!(
        (g.correct, g.correctness),
        (true, 1.0),
        "articles go wherever they stand"
    );
    let g = grade("dday:date", "1944 June 6");
    assert_eq!((g.correct, g.correctness), (false, PARTIAL_MAX));
    let g = grade("fr:capital", "Lyon");
    assert_eq!((g.correctness, g.composite, g.score), (0.0, 0.5, 0.0));
    assert_eq!(g.feedback, "expected Paris, response said Lyon");
}

#[test]
fn two_answers_offered_are_a_hedge() {
    let hedges = ["Paris or Lyon", "Lyon; Paris", "Answer: Paris / Marseille"]
        .map(|output| ("fr:capital", output));
    assert_grades(grade, hedges, (false, 0.5, 0.75));
    assert_eq!(
        grade("fr:capital", "Paris or Lyon").feedback,
        "hedged: Paris among Paris, Lyon; give one answer"
    );
}

#[test]
fn a_verbose_evasive_answer_earns_nothing() {
    let verbose = format!(
            "{}Paris might be one possibility among many.",
            "It is hard to say for certain, since capitals have moved over the centuries and sources disagree. "
                .repeat(5)
        );
    let g = grade("fr:capital", &verbose);
    assert_eq!(
        (g.correctness, g.composite, g.score),
        (0.0, 0.0, 0.0),
        "{}",
        g.feedback
    );
    assert!(
        g.feedback.starts_with("no short answer found ("),
        "{}",
        g.feedback
    );
    for refusal in [
        "I don't know.",
        "Not sure",
        "Unknown",
        // After leading space or Markdown, or after a marker.
        "  **I don't know.**",
        "> I'm not sure",
        "Answer: unable to tell",
        "_No idea_ what the capital is",
    ] {
        assert_refusal(refusal);
    }
}

#[test]
fn a_refusal_is_told_by_whole_words() {
    // `unknowns` and `no ideas` only begin with the letters of a refusal: wrong
    // answers, not refusals.
    for wrong in ["Unknowns", "No ideas"] {
        assert_wrong(wrong);
    }
}

#[test]
fn a_refusal_after_a_lead_in_is_no_answer() {
    for refusal in [
        "Sorry, I don't know",
        "Honestly, I'm not sure.",
        "I'm afraid I don't know",
        "Unfortunately I cannot answer that",
        "I'm sorry, but I don't know.",
        "Well, to be honest, no idea",
        "Answer: sorry, unknown",
    ] {
        assert_refusal(refusal);
    }
}

#[test]
fn a_lead_in_is_told_by_whole_words_and_needs_refusal_words_after_it() {
    // `Sorrynot sure` and `Wellknown` are not lead-ins; a lead-in alone, or followed
    // by anything but refusal words, is an answer.
    for wrong in [
        "Sorrynot sure",
        "Honestlyunknown",
        "Sorry",
        "Honestly, Lyon",
        "Sorry, I think Lyon",
    ] {
        assert_wrong(wrong);
    }
    // A lead-in, refusal words and an alias: graded as an answer, the alias alone
    // (the unsure part offers nothing).
    let g = grade("fr:capital", "Honestly, not sure, but Paris");
    assert!(g.correct, "{}", g.feedback);
    let g = grade("album:music", "Sorry, Unknown Pleasures");
    assert!(g.correctness > 0.0, "{}", g.feedback);
}

#[test]
fn an_answer_that_begins_with_refusal_words_but_gives_an_alias_is_graded() {
    // The alias and one other word: each word beside an alias is an answer too.
    let g = grade("album:music", "Unknown Pleasures (1979)");
    assert_eq!((g.correct, g.correctness), (false, 0.5), "{}", g.feedback);
    assert_eq!(g.outcome, Outcome::Partial(0.5));
    let g = grade("fr:capital", "Not sure, but Paris");
    assert!(g.correct, "{}", g.feedback);
    // Words of the question after a refusal are still a refusal.
    let g = grade("dday:date", "I don't know which day in June");
    assert_eq!((g.correctness, g.composite), (0.0, 0.0), "{}", g.feedback);
}

/// Whether a line after the answer line is a further answer depends on the output
/// alone, never on the truth: the limit was twice the truth's longest alias, so a
/// four-word line was a second answer (a hedge) for a two-word truth and nothing (the
/// first line committed to) for a one-word truth. A template listing three candidates,
/// the last padded with `(not sure)`, earned 0.417 where answering one at random earns
/// 1/3 (benches/reward_hacking.py found it at 0.397 over the shipped questions).
#[test]
fn a_further_line_is_read_the_same_whatever_the_truth() {
    let truth = "group,kind,question,answer\n\
            pride,q,Who wrote Pride and Prejudice?,Jane Austen|Austen\n\
            tokyo,q,What is the capital of Japan?,Tokyo\n\
            speed,q,Speed of light in km/s?,\"300,000\"\n";
    let v = build("short", "s.csv", truth.as_bytes()).unwrap();
    let candidates = ["jane austen", "tokyo", "300,000"];
    let orders = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut total = 0.0;
    for order in orders {
        let [a, b, c] = order.map(|i| candidates[i]);
        let output =
            format!("i am not sure.\nit is answer: {a}.\nanswer: #### {b}\n#### {c} (not sure)");
        let scores: Vec<f64> = ["pride:q", "tokyo:q", "speed:q"]
            .iter()
            .map(|id| v.grade(v.find_task(id).unwrap(), &output).score)
            .collect();
        // The output offers the same answers whichever task it answers: their scores
        // sum to at most one right answer's.
        let sum: f64 = scores.iter().sum();
        assert!(sum <= 1.0 + 1e-12, "{output:?}: {scores:?}");
        total += sum;
    }
    assert!(total / 18.0 <= 1.0 / 3.0 + 1e-12, "mean {}", total / 18.0);
}
