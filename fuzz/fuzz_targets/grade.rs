//! Grades arbitrary text with the arxiv verifier (over the shipped papers) and with a
//! facts verifier (over a small inline truth), and checks what every grade promises:
//! correctness, composite and score finite and in [0, 1], score 0 whenever correctness
//! is 0, `correct` exactly when correctness is 1, and feedback on one line.
//!
//! Input: the first byte picks the verifier (even arxiv, odd facts), the next two
//! (big-endian) the task, the rest is the answer (as UTF-8 when valid, else lossily decoded).

#![no_main]

use std::sync::OnceLock;

use evogate::table::Table;
use evogate::verify::arxiv::truth::load_papers;
use evogate::verify::arxiv::ArxivVerifier;
use evogate::verify::facts::FactsVerifier;
use evogate::verify::{Grade, Verifier};
use libfuzzer_sys::fuzz_target;

/// Aliases with punctuation, accents, digits and a shared word, so that hedges and
/// wrong answers of the same kind are reachable.
const FACTS: &str = "group,kind,question,answer\n\
    fr,capital,Capital of France?,Paris\n\
    de,capital,Capital of Germany?,Berlin\n\
    us,capital,Capital of the USA?,Washington D.C.|Washington|DC\n\
    ci,capital,Capital of Côte d'Ivoire?,Yamoussoukro|Yamusukro\n\
    pi,number,First digits of pi?,3.14159|3.14\n\
    e,number,First digits of e?,2.71828\n\
    h2o,formula,Formula of water?,H₂O|H2O|water\n\
    au,formula,Symbol of gold?,Au|gold\n";

fn verifiers() -> &'static (ArxivVerifier, FactsVerifier) {
    static VERIFIERS: OnceLock<(ArxivVerifier, FactsVerifier)> = OnceLock::new();
    VERIFIERS.get_or_init(|| {
        let papers = include_bytes!("../../data/arxiv/papers.csv");
        let arxiv = ArxivVerifier::new(
            load_papers("papers.csv", &papers[..]).expect("the shipped truth is clean"),
        );
        let facts = Table::parse("facts.csv", FACTS.as_bytes()).expect("the inline truth parses");
        let facts = FactsVerifier::from_table(&facts).expect("the inline truth is clean");
        (arxiv, facts)
    })
}

fn check(grade: &Grade, answer: &str) {
    for (name, value) in [
        ("correctness", grade.correctness),
        ("composite", grade.composite),
        ("score", grade.score),
    ] {
        assert!(
            value.is_finite() && (0.0..=1.0).contains(&value),
            "{name} {value} outside [0, 1] for {answer:?}"
        );
    }
    if grade.correctness == 0.0 {
        assert_eq!(grade.score, 0.0, "a wrong answer scored for {answer:?}");
    }
    assert_eq!(grade.correct, grade.correctness == 1.0, "{grade:?}");
    assert!(
        !grade.feedback.contains(['\n', '\r']),
        "feedback is not one line: {:?}",
        grade.feedback
    );
    assert!(!grade.feedback.is_empty(), "empty feedback for {answer:?}");
}

fuzz_target!(|data: &[u8]| {
    let [which, high, low, answer @ ..] = data else {
        return;
    };
    let (arxiv, facts) = verifiers();
    let verifier: &dyn Verifier = if which & 1 == 0 { arxiv } else { facts };
    let task = usize::from(u16::from_be_bytes([*high, *low])) % verifier.task_count();
    let answer = match std::str::from_utf8(answer) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(answer),
    };
    let grade = verifier.grade(task, &answer);
    check(&grade, &answer);
    assert_eq!(grade, verifier.grade(task, &answer), "grading is not pure");
});
