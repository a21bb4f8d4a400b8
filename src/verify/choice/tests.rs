//! The `choice` verifier's grades, and each of its rules against gaming.

use crate::verify::one_answer::testing::{assert_grades, refusal};
use crate::verify::{Grade, Verifier, build};

fn verifier() -> Box<dyn Verifier> {
    let truth = "group,kind,question,answer,options\n\
            lab,arc,Which protects the eyes?,B,rubber gloves|safety goggles|breathing mask|lead apron\n\
            tf,arc,Is water wet?,A,True|False\n\
            ten,mmlu_pro,Pick J.,J,a1|a2|a3|a4|a5|a6|a7|a8|a9|a10\n\
            city,mmlu,Which city?,A,Paris|Paris Texas|Lyon|Nice\n";
    build("choice", "c.csv", truth.as_bytes()).unwrap()
}

fn grade(id: &str, output: &str) -> Grade {
    let v = verifier();
    v.grade(v.find_task(id).unwrap(), output)
}

#[test]
fn every_accepted_form_of_the_right_option_is_right() {
    let right = [
        "B",
        "(B)",
        "B.",
        "**B**",
        "Answer: B",
        "ANSWER: B",
        "The answer is B.",
        "the answer is (B) safety goggles",
        "safety goggles",
        "It's B.",
        "I choose option B because goggles cover the eyes.",
        "A) gloves protect hands\nB) goggles protect eyes\nC) no\nD) no\n\nANSWER: B",
    ]
    .map(|output| ("lab:arc", output));
    assert_grades(grade, right, (true, 1.0, 1.0));
    assert_eq!(grade("lab:arc", "B").feedback, "correct option B");
    assert!(grade("ten:mmlu_pro", "The answer is (J)").correct);
    assert!(grade("city:mmlu", "Answer: Paris").correct);
    assert!(!grade("city:mmlu", "Answer: Paris Texas").correct);
}

#[test]
fn a_wrong_option_is_confidently_wrong() {
    let g = grade("lab:arc", "The answer is C.");
    assert_eq!((g.correctness, g.composite, g.score), (0.0, 0.5, 0.0));
    assert_eq!(
        g.feedback,
        "expected B (safety goggles), response chose C (breathing mask)"
    );
    assert_eq!(grade("lab:arc", "A lead apron").correctness, 0.0);
    assert!(!grade("lab:arc", "A lead apron").feedback.contains("among"));
}

#[test]
fn two_options_are_a_hedge() {
    for output in ["The answer is A or B", "A and B", "The answer is B or A."] {
        let g = grade("lab:arc", output);
        assert_eq!(
            (g.correctness, g.feedback.as_str()),
            (0.5, "hedged: B among A, B; choose one option"),
            "{output:?}"
        );
    }
    let g = grade("lab:arc", "The answer is B or C");
    assert_eq!((g.correct, g.correctness, g.composite), (false, 0.5, 0.75));
    assert_eq!(g.feedback, "hedged: B among B, C; choose one option");
    assert_eq!(
        grade("lab:arc", "safety goggles or rubber gloves").correctness,
        0.5
    );
}

#[test]
fn every_letter_a_to_d_is_no_choice() {
    let no_choice = [
        "A B C D",
        "The answer is A, B, C or D.",
        "(A) (B) (C) (D)",
        "Answer: A/B/C/D",
        "A) maybe\nB) maybe\nC) maybe\nD) maybe",
        "B, C or D",
    ]
    .map(|output| ("lab:arc", output));
    assert_grades(grade, no_choice, (false, 0.0, 0.0));
    assert_eq!(
        grade("tf:arc", "True or False").feedback,
        "named 2 of the 2 options, which is no choice; choose one; expected A (True)"
    );
}

#[test]
fn a_verbose_evasive_answer_earns_nothing() {
    let evasive = "Each of these has merits, and the question is ambiguous without more context about the lab. "
            .repeat(40);
    let g = grade("lab:arc", &evasive);
    assert_eq!(
        (g.correctness, g.composite, g.score),
        (0.0, 0.0, 0.0),
        "{}",
        g.feedback
    );
    assert_eq!(g.feedback, "no option chosen; expected B (safety goggles)");
}

#[test]
fn a_truth_with_a_bad_letter_or_options_is_refused_naming_the_row() {
    for (row, message) in [
        (
            "x,k,q,E,a|b|c|d",
            "`answer` `E` is not one of the letters A to D",
        ),
        (
            "x,k,q,b,a|b|c|d",
            "`answer` `b` is not one of the letters A to D",
        ),
        ("x,k,q,A,only", "`options` must hold 2 to 10"),
        ("x,k,q,A,a|A", "option B `A` is empty or repeats another"),
    ] {
        let truth = format!("group,kind,question,answer,options\n{row}\n");
        let error = refusal("choice", "c.csv", &truth);
        assert!(error.starts_with("`c.csv` row 2: "), "{error}");
        assert!(error.contains(message), "{error}");
    }
    let v = verifier();
    assert_eq!(
        v.prompt(v.find_task("tf:arc").unwrap()),
        "Is water wet?\nA. True\nB. False"
    );
}

#[test]
fn options_named_many_times_take_linear_work_and_overlapping_ones_are_both_named() {
    let v = build(
        "choice",
        "c.csv",
        "group,kind,question,answer,options\nnyc,k,q,A,New York|York City|Paris|Lyon\n".as_bytes(),
    )
    .unwrap();
    // Two options sharing a word are both named: a hedge, not a panic.
    let g = v.grade(0, "Answer: New York City");
    assert_eq!(
        (g.correctness, g.feedback.as_str()),
        (0.5, "hedged: A among A, B; choose one option")
    );
    // A hundred thousand mentions and letters are read in one pass each.
    let long = "New York (B) Paris [C] ".repeat(100_000);
    assert_eq!(v.grade(0, &long).outcome, crate::verify::Outcome::Invalid);
}

/// Asserts the outcome of each output for the task `id`.
fn assert_outcomes(id: &str, cases: &[(&str, crate::verify::Outcome)]) {
    for (output, expected) in cases {
        let g = grade(id, output);
        assert_eq!(g.outcome, *expected, "{output:?}: {}", g.feedback);
    }
}

#[test]
fn an_option_a_negation_rejects_is_not_chosen() {
    use crate::verify::Outcome::{Abstained, Invalid, Right};
    assert_outcomes(
        "lab:arc",
        &[
            ("The answer is not B.", Invalid),
            ("Answer: not B", Invalid),
            ("I won't choose B.", Abstained),
            ("B is not correct.", Invalid),
            ("The answer is not A, it is B.", Right),
            ("Answer: safety goggles, not rubber gloves", Right),
            ("The answer is B, not C.", Right),
            ("Neither A nor C; the answer is B.", Right),
        ],
    );
}

#[test]
fn a_reason_naming_another_option_is_the_reasons_not_a_second_choice() {
    assert!(grade("lab:arc", "The answer is B because C is not right.").correct);
    // `A because` is the letter, not the article.
    let g = grade("lab:arc", "The answer is A because B is not right.");
    assert_eq!(
        g.feedback,
        "expected B (safety goggles), response chose A (rubber gloves)"
    );
    assert!(
        grade(
            "lab:arc",
            "I choose B because goggles cover the eyes, not A."
        )
        .correct
    );
}

#[test]
fn a_capital_inside_an_options_own_text_is_part_of_it() {
    let v = build(
        "choice",
        "c.csv",
        "group,kind,question,answer,options\nvit,k,q,B,Vitamin C|Vitamin D|Iron|Zinc\nplan,k,q,B,Plan A|Plan B|Plan C|Plan D\n"
            .as_bytes(),
    )
    .unwrap();
    let grade = |id: &str, output: &str| v.grade(v.find_task(id).unwrap(), output);
    assert!(grade("vit:k", "Answer: Vitamin D").correct);
    assert_eq!(
        grade("vit:k", "Answer: Vitamin C").feedback,
        "expected B (Vitamin D), response chose A (Vitamin C)"
    );
    assert!(grade("plan:k", "Answer: Plan B").correct);
    assert!(grade("plan:k", "The answer is Plan B because Plan A fails.").correct);
}

#[test]
fn verdicts_conclusions_and_other_languages_state_a_choice() {
    let reasoning = "Goggles cover the eyes; gloves protect the hands and the apron stops rays.\n";
    for closing in [
        "B is correct.",
        "Therefore, B.",
        "So, B.",
        "I'd go with B.",
        "Respuesta: B",
        "Réponse : B",
        "答案：B",
        "정답: B",
        "الإجابة: ب",
        "Answer: Ｂ",
        "Answer:\u{200b}\u{200b} B",
    ] {
        let g = grade("lab:arc", &format!("{reasoning}{closing}"));
        assert!(g.correct, "{closing:?}: {}", g.feedback);
    }
    // A verdict later than the answer phrase decides; an earlier one does not.
    assert!(!grade("lab:arc", "The answer is B. On reflection, C is correct.").correct);
    assert!(grade("lab:arc", "C is correct? No: the answer is B.").correct);
}
