//! The `numeric` verifier, for GSM8K, MATH and AIME: the truth's `answer` is a number
//! (integer, decimal, fraction, percent, scientific notation), and an output is right
//! when the final answer it offers ([`extract::final_answer`]) is that number. Two
//! different values offered as the final answer are a hedge; the numbers of the working
//! before it are not.

pub(crate) mod extract;
pub(crate) mod latex;
pub(crate) mod number;

use self::extract::{Final, MOST_HEDGED, final_answer};
use self::latex::plain;
use self::number::{Number, Value, agree, scan};
use super::one_answer::{AnswerRule, OneAnswer};
use super::{Grade, Outcome, shape, shown_briefly};

/// Feedback names at most this many of the numbers offered.
pub(crate) const SHOWN: usize = 10;

/// The `numeric` verifier.
pub(crate) type NumericVerifier = OneAnswer<Numeric>;

/// The rule of the `numeric` verifier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Numeric;

/// One task's expected number: its value and percent sign, without where it stood
/// in the truth's text (a number a task is held in 80 bytes, not 104).
#[derive(Debug, Clone)]
pub(crate) struct Expected {
    /// The value before any percent sign.
    written: Value,
    /// Whether a percent sign follows it.
    percent: bool,
    /// As the truth writes it, for feedback.
    shown: Box<str>,
}

impl Expected {
    /// The number, as [`agree`] compares it.
    fn number(&self) -> Number {
        Number {
            written: self.written,
            percent: self.percent,
            start: 0,
            end: 0,
        }
    }
}

impl AnswerRule for Numeric {
    type Truth = Expected;
    const OPTIONS: bool = false;

    fn parse(answer: &str, _: &str) -> Result<Expected, String> {
        let plain = plain(answer);
        let text = plain.trim().trim_end_matches('.');
        let numbers = scan(text);
        match numbers.as_slice() {
            [number] if number.start == 0 && number.end == text.len() => {
                let float = number.value().float;
                if float.is_nan() {
                    return Err(format!(
                        "`answer` `{answer}` is below the smallest number evogate grades (about 2.2e-308) and cannot be told from 0; check the value"
                    ));
                }
                if !float.is_finite() {
                    return Err(format!(
                        "`answer` `{answer}` is beyond the largest number evogate grades (about 1.8e308); check the value"
                    ));
                }
                Ok(Expected {
                    written: number.written,
                    percent: number.percent,
                    shown: answer.into(),
                })
            }
            _ => Err(format!(
                "`answer` `{answer}` is not one number; write an integer, decimal, fraction (3/4), percent (50%) or scientific notation (1.5e3)"
            )),
        }
    }

    fn prompt(question: &str, _: &str) -> String {
        question.to_string()
    }

    fn grade(truth: &Expected, output: &str) -> Grade {
        let expected = &truth.shown;
        let (outcome, feedback) = match final_answer(output) {
            Final::Nothing => match Outcome::nothing(output) {
                Outcome::Abstained => (
                    Outcome::Abstained,
                    format!("no answer given (a refusal); expected {expected}"),
                ),
                nothing => (nothing, format!("no number found; expected {expected}")),
            },
            Final::NotANumber(content) => (
                Outcome::Invalid,
                format!(
                    "expected {expected}, the final answer `{}` is not a number",
                    shown_briefly(&content)
                ),
            ),
            Final::Numbers(numbers, _) => {
                let right = numbers.iter().any(|(n, _)| agree(n, &truth.number()));
                let said: Vec<String> = numbers
                    .iter()
                    .take(SHOWN)
                    .map(|(_, shown)| shown_briefly(shown))
                    .collect();
                match (right, numbers.len()) {
                    (_, k) if k > MOST_HEDGED => (
                        Outcome::Invalid,
                        format!(
                            "listed more than {MOST_HEDGED} numbers ({}, ...), which is no answer; give one final answer; expected {expected}",
                            said.join(", ")
                        ),
                    ),
                    (true, 1) => (Outcome::Right, format!("correct number {expected}")),
                    (true, k) => (
                        Outcome::Hedged(k),
                        format!(
                            "hedged: {expected} among {}; give one final answer",
                            said.join(", ")
                        ),
                    ),
                    (false, _) => (
                        Outcome::Wrong,
                        format!("expected {expected}, response said {}", said.join(", ")),
                    ),
                }
            }
        };
        shape(outcome, output, feedback)
    }
}

#[cfg(test)]
mod tests;
