//! The `numeric` verifier's grades, and each of its rules against gaming.

use super::*;
use crate::verify::Verifier;
use crate::verify::one_answer::testing::{assert_grades, refusal};

fn verifier() -> Box<dyn Verifier> {
    let truth = "group,kind,question,answer\n\
        eggs,gsm8k,How many dozen?,7\n\
        salary,gsm8k,What is her salary?,\"57,500\"\n\
        half,math,What is 1/2 as a decimal?,1/2\n\
        share,gsm8k,What percent?,25%\n\
        big,science,Avogadro?,6.02e23\n\
        aime,aime,An AIME answer?,033\n";
    crate::verify::build("numeric", "n.csv", truth.as_bytes()).unwrap()
}

fn grade(id: &str, output: &str) -> Grade {
    let v = verifier();
    v.grade(v.find_task(id).unwrap(), output)
}

fn outcome(id: &str, output: &str) -> (f64, f64, f64) {
    let g = grade(id, output);
    (g.correctness, g.composite, g.score)
}

#[test]
fn the_final_number_in_any_written_form_is_right() {
    let right = [
        (
            "eggs:gsm8k",
            "She eats 3*7 = 21 eggs a week, 84 in 4 weeks, 84/12 = 7 dozen.\n#### 7",
        ),
        ("eggs:gsm8k", "The answer is 7."),
        ("eggs:gsm8k", "7"),
        ("eggs:gsm8k", "$\\boxed{7}$"),
        ("salary:gsm8k", "Her salary is $57,500 a year."),
        ("salary:gsm8k", "#### 57500"),
        ("half:math", "\\boxed{\\frac{1}{2}}"),
        ("half:math", "The answer is 0.5"),
        ("half:math", "50%"),
        ("share:gsm8k", "The answer is 25"),
        ("share:gsm8k", "0.25"),
        ("big:science", "about 6.02 × 10^23"),
        ("aime:aime", "\\boxed{33}"),
    ];
    assert_grades(grade, right, (true, 1.0, 1.0));
    assert_eq!(grade("eggs:gsm8k", "#### 7").feedback, "correct number 7");
}

#[test]
fn a_wrong_final_number_is_confidently_wrong_whatever_the_working_holds() {
    let g = grade(
        "eggs:gsm8k",
        "3*7 = 21, and 7 is close, but 42/12 = 3.5\n#### 3.5",
    );
    assert_eq!((g.correctness, g.composite, g.score), (0.0, 0.5, 0.0));
    assert_eq!(g.feedback, "expected 7, response said 3.5");
    let g = grade("eggs:gsm8k", "\\boxed{\\sqrt{7}}");
    assert_eq!(
        g.feedback,
        "expected 7, the final answer `\\sqrt{7}` is not a number"
    );
    assert_eq!(g.score, 0.0);
    // Feedback quotes a long number as it quotes any response, cut to 60 characters.
    let long = format!("#### 7.{}", "5".repeat(400));
    assert_eq!(
        grade("eggs:gsm8k", &long).feedback,
        format!("expected 7, response said 7.{}...", "5".repeat(58))
    );
    // A number too large for f64 is infinite, and no answer to any question.
    let huge = format!("#### 7{}", "0".repeat(400));
    for beyond in [
        "#### 1e400",
        "The answer is -1e999.",
        huge.as_str(),
        "#### 7e99999999999999999999",
    ] {
        assert_eq!(outcome("eggs:gsm8k", beyond), (0.0, 0.5, 0.0), "{beyond}");
    }
}

#[test]
fn a_list_of_numbers_holding_the_right_one_is_a_hedge_earning_its_share() {
    for (output, k) in [
        ("1, 2, 3, 4, 5, 6, 7", 7),
        ("7, 8, 9", 3),
        ("It is 5, 6, 7, or 8.", 4),
        ("The answer is 6 or 7", 2),
        ("\\boxed{6, 7}", 2),
    ] {
        let share = 1.0 / f64::from(k);
        let g = grade("eggs:gsm8k", output);
        // Composite: the mean of the right answer's (1) and the k - 1 wrong ones' (0.5);
        // score: the mean of their scores (1 and 0).
        assert_eq!(
            (g.correct, g.correctness, g.composite, g.score),
            (false, share, 0.5 * share + 0.3 + 0.2, share),
            "{output}"
        );
        assert_eq!(g.outcome, Outcome::Hedged(k as usize), "{output}");
        assert!(g.feedback.starts_with("hedged: 7 among "), "{}", g.feedback);
    }
    // More than ten values is a list, which is no answer.
    let list = grade("eggs:gsm8k", "#### 0 1 2 3 4 5 6 7 8 9 10");
    assert_eq!(
        (list.correctness, list.composite, list.score),
        (0.0, 0.0, 0.0)
    );
    assert_eq!(list.outcome, Outcome::Invalid);
    assert_eq!(
        list.feedback,
        "listed more than 10 numbers (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...), which is no answer; give one final answer; expected 7"
    );
}

#[test]
fn hashes_followed_by_two_numbers_are_a_hedge() {
    let hedges = [
        "#### 7 8",
        "#### 8 or 7",
        "working...\n#### 7\n#### 8",
        "\\boxed{7} \\boxed{8}",
    ]
    .map(|output| ("eggs:gsm8k", output));
    assert_grades(grade, hedges, (false, 0.5, 0.75));
    let g = grade("eggs:gsm8k", "#### 7 8");
    assert_eq!(g.feedback, "hedged: 7 among 7, 8; give one final answer");
    // The same value twice is one answer.
    assert!(grade("eggs:gsm8k", "#### 7\n#### 7.0").correct);
}

#[test]
fn a_verbose_evasive_answer_earns_nothing() {
    let evasive = "This is a subtle question that depends on many assumptions about the eggs, \
        the weeks and how one counts a dozen; without more context I would rather not commit \
        to a figure. "
        .repeat(30);
    let g = grade("eggs:gsm8k", &evasive);
    assert_eq!(outcome("eggs:gsm8k", &evasive), (0.0, 0.0, 0.0));
    // It would rather not commit: a refusal, told from an answer that holds no number.
    assert_eq!(g.outcome, Outcome::Abstained);
    assert_eq!(g.feedback, "no answer given (a refusal); expected 7");
    let g = grade("eggs:gsm8k", "It depends on how one counts a dozen.");
    assert_eq!(
        (g.outcome, g.feedback.as_str()),
        (Outcome::Invalid, "no number found; expected 7")
    );
    assert_eq!(outcome("eggs:gsm8k", ""), (0.0, 0.0, 0.0));
}

#[test]
fn a_truth_that_is_not_one_number_is_refused_naming_the_row() {
    let truth = "group,kind,question,answer\na,k,q,7\nb,k,q,seven\n";
    let error = refusal("numeric", "n.csv", truth);
    assert!(
        error.starts_with("`n.csv` row 3: `answer` `seven` is not one number"),
        "{error}"
    );
    let repeated = "group,kind,question,answer\na,k,q,1\nb,k,q,2\na,k,q,3\n";
    let error = refusal("numeric", "n.csv", repeated);
    assert!(
        error.starts_with("`n.csv` row 4: task `a:k` appears again (first on row 2)"),
        "{error}"
    );
    let empty = "group,kind,question,answer\na,k,,1\n";
    let error = refusal("numeric", "n.csv", empty);
    assert!(error.contains("row 2: `question` is empty"), "{error}");
    let error = refusal(
        "numeric",
        "n.csv",
        "group,kind,question,answer\na,k,q,1e400\n",
    );
    assert!(
        error.starts_with("`n.csv` row 2: `answer` `1e400` is beyond the largest number"),
        "{error}"
    );
    for bad in ["7 or 8", "x = 7", "7 apples"] {
        let truth = format!("group,kind,question,answer\na,k,q,{bad}\n");
        assert!(
            crate::verify::build("numeric", "n.csv", truth.as_bytes()).is_err(),
            "{bad}"
        );
    }
}

/// The outcome and correctness of each output for the task `id`.
fn assert_outcomes(id: &str, cases: &[(&str, Outcome)]) {
    for (output, expected) in cases {
        let g = grade(id, output);
        assert_eq!(g.outcome, *expected, "{output:?}: {}", g.feedback);
    }
}

#[test]
fn a_number_a_negation_rejects_is_never_the_answer() {
    assert_outcomes(
        "eggs:gsm8k",
        &[
            ("The answer is not 7, it is 8.", Outcome::Wrong),
            ("The answer is not 7.", Outcome::Invalid),
            ("I won't say 7.", Outcome::Abstained),
            ("#### 7 is wrong; the correct value is 8", Outcome::Wrong),
            ("The answer is not 6 or 8; it is 7.", Outcome::Right),
            ("It is not 6 but 7.", Outcome::Right),
            ("The answer is 7, not 6.", Outcome::Right),
        ],
    );
}

#[test]
fn the_result_of_working_after_the_answer_phrase_is_the_answer() {
    assert_outcomes(
        "eggs:gsm8k",
        &[
            ("The answer is 84 / 12 = 7.", Outcome::Right),
            ("Answer: 3 + 4 = 7", Outcome::Right),
            ("The answer is $3 \\times 2 + 1 = 7$.", Outcome::Right),
            (
                "Answer: 84/13 = 6.46, so 7 dozen are needed.",
                Outcome::Right,
            ),
            (
                "The answer is: 84 / 13 = 6.46, rounded up to 7.",
                Outcome::Right,
            ),
            // An operand after `so` is working, not a result.
            ("The answer is 7 so 3 + 4 checks.", Outcome::Right),
            (
                "The answer is 7 because 3 + 4 = 7 and not 8.",
                Outcome::Right,
            ),
        ],
    );
}

#[test]
fn answer_forms_of_latex_other_languages_and_full_width_are_read() {
    assert_outcomes(
        "eggs:gsm8k",
        &[
            ("\\boxed{\\boxed{7}}", Outcome::Right),
            ("\\boxed{\\textnormal{7}}", Outcome::Right),
            ("$\\frac{14}{2}$", Outcome::Right),
            ("The answer is $\\approx 7$.", Outcome::Right),
            ("The answer is ７.", Outcome::Right),
            (
                "Working.\nRespuesta: 7 (comprobado 2 veces)",
                Outcome::Right,
            ),
            ("Working.\n答案：7（检查了 2 次）", Outcome::Right),
            (
                "\\boxed{6} first.\nFinal Answer: The final answer is 7. I hope it is correct.",
                Outcome::Right,
            ),
        ],
    );
    assert_outcomes(
        "half:math",
        &[
            ("\\cfrac{1}{2}", Outcome::Right),
            ("\\frac1{2}", Outcome::Right),
        ],
    );
}

#[test]
fn a_number_inside_an_expression_is_not_a_value() {
    assert_outcomes(
        "eggs:gsm8k",
        &[
            ("The answer is $\\sqrt{7}$.", Outcome::Invalid),
            ("$x^7$", Outcome::Invalid),
            ("$\\frac{1+\\sqrt{7}}{2}$", Outcome::Invalid),
            ("$7^2$ is 49, so 7", Outcome::Right),
        ],
    );
    let g = grade("eggs:gsm8k", "$x^7$");
    assert_eq!(
        g.feedback,
        "expected 7, the final answer `x^7` is not a number"
    );
    assert_eq!((g.correctness, g.composite, g.score), (0.0, 0.0, 0.0));
}

#[test]
fn an_integer_truth_is_held_to_its_value_not_only_to_a_share_of_it() {
    let truth = "group,kind,question,answer\nbig,k,q,123456789\nzero,k,q,0\n";
    let v = crate::verify::build("numeric", "n.csv", truth.as_bytes()).unwrap();
    let grade = |id: &str, output: &str| v.grade(v.find_task(id).unwrap(), output).correct;
    assert!(!grade("big:k", "123456900.5"), "off by 111.5");
    assert!(!grade("big:k", "123456789.9"));
    assert!(grade("big:k", "123456789.0000001"));
    assert!(!grade("zero:k", "0.0000001"));
    assert!(!grade("zero:k", "#### 1e-400"), "1e-400 is no value, not 0");
    // A truth below f64's normal range is refused, as one beyond it is.
    let error = refusal(
        "numeric",
        "n.csv",
        "group,kind,question,answer\na,k,q,1e-400\n",
    );
    assert!(
        error.starts_with("`n.csv` row 2: `answer` `1e-400` is below the smallest number"),
        "{error}"
    );
}
