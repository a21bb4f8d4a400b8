//! The `choice` verifier, for MMLU, ARC and GPQA: the truth gives the options' texts
//! (`options`, `|`-separated in letter order, two to ten) and the right letter
//! (`answer`). The option an output chooses is read after its last answer marker
//! (`Answer: B`, `the answer is (B)`, `I choose B`), else from the whole output: a
//! letter alone (`B`, `(B)`, `B.`), a letter in a form that cannot be a word (`(B)`,
//! `option B`, `B)` opening a line), or an option's text (`read`). A verdict (`B is
//! correct`) later than every answer phrase decides instead. Two options chosen are a
//! hedge among them; more than half of them is no choice at all.

mod read;

use std::sync::LazyLock;

use regex::Regex;

use super::answer_marker;
use super::normalize::normalize;
use super::one_answer::{AnswerRule, OneAnswer};
use super::reading;
use super::{Grade, Outcome, shape, shown_briefly};

/// The `choice` verifier.
pub(crate) type ChoiceVerifier = OneAnswer<Choice>;

/// The rule of the `choice` verifier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Choice;

/// The letters options may have, in order.
pub(crate) const LETTERS: &str = "ABCDEFGHIJ";

/// Without a marker, bare letters count only in outputs of at most this many words
/// (`It's B.`); in longer text `A`, `I` and `vitamin B` are words.
const BARE_LETTER_WORDS: usize = 10;

/// One task's options and right option.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// The option texts as the truth gives them, trimmed, joined by `|` (one string:
    /// a million tasks hold a million strings, not eight million).
    texts: String,
    /// Their normalised forms, joined by `|` (which normalising never leaves).
    normalized: String,
    /// How many options there are.
    count: usize,
    answer: usize,
}

static MARKER: LazyLock<Regex> = LazyLock::new(|| {
    answer_marker::marker(
        "answer|choice|option",
        true,
        r"|\bI (?:choose|pick|select)\b|\bI(?:'d| would|'ll| will)? go with\b|\b(?:therefore|thus|hence|so)\s*,",
    )
});

impl Options {
    fn letter(index: usize) -> char {
        char::from(LETTERS.as_bytes()[index])
    }

    fn describe(&self, index: usize) -> String {
        format!(
            "{} ({})",
            Options::letter(index),
            shown_briefly(self.texts.split('|').nth(index).unwrap_or_default())
        )
    }
}

/// A verdict on an option: `B is correct`, `(C) is the right answer`; what comes
/// before it in its clause names the option.
static VERDICT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:is|are)\s+(?:also\s+)?(?:the\s+)?(?:correct|right|best)\b")
        .expect("the verdict pattern is valid")
});

/// Where a clause ends before a verdict: its subject starts after the last of these.
const CLAUSE_ENDS: [char; 6] = ['.', '!', '?', ';', ':', '\n'];

/// The answer after a phrase: the first non-blank line of `text`, up to the end of its
/// first sentence or a reason (`because ...`), with the letters Arabic and Bengali
/// multiple-choice questions use for A to D read as A to D (as simple-evals reads them).
fn answer_segment(text: &str) -> std::borrow::Cow<'_, str> {
    let line = answer_marker::first_line(text);
    // A dot at byte 0 or 1 is a letter's (`B. Paris`), not a sentence's.
    let mut end = answer_marker::sentence_end(line, 2).unwrap_or(line.len());
    if let Some(reason) = reading::reason_start(&line[..end]) {
        end = reason;
    }
    script_letters(&line[..end])
}

/// The Arabic (أ ب ج د) and Bengali (অ ব ড ঢ) letters for A to D, standing alone, as
/// A to D.
fn script_letters(text: &str) -> std::borrow::Cow<'_, str> {
    const LETTERS_OF: [(char, char); 8] = [
        ('أ', 'A'),
        ('ب', 'B'),
        ('ج', 'C'),
        ('د', 'D'),
        ('অ', 'A'),
        ('ব', 'B'),
        ('ড', 'C'),
        ('ঢ', 'D'),
    ];
    if text.is_ascii() {
        return std::borrow::Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let letter = |at: Option<&char>| at.is_some_and(|c| c.is_alphanumeric());
    let read: String = chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let alone =
                !letter(i.checked_sub(1).and_then(|j| chars.get(j))) && !letter(chars.get(i + 1));
            match LETTERS_OF.iter().find(|(from, _)| from == c) {
                Some((_, to)) if alone => *to,
                _ => *c,
            }
        })
        .collect();
    std::borrow::Cow::Owned(read)
}

/// Where an output states its choice, latest first: the text after an answer phrase,
/// or the subject of a verdict.
enum Statement {
    /// An answer phrase ends here.
    Phrase(usize),
    /// A verdict's subject spans these bytes.
    Verdict(usize, usize),
}

/// The options an output chooses: after the latest answer phrase or verdict that names
/// one (the last [`answer_marker::MOST_MARKERS`] of each tried), else in the whole
/// output (letters standing alone only in short outputs).
fn choices(options: &Options, output: &str) -> Vec<usize> {
    let text = reading::fold(output);
    let text = text.as_ref();
    let mut statements: Vec<(usize, Statement)> = answer_marker::after_markers(&MARKER, text)
        .map(|at| (at, Statement::Phrase(at)))
        .collect();
    let verdicts: Vec<(usize, usize)> = VERDICT
        .find_iter(text)
        .map(|m| (m.start(), m.end()))
        .collect();
    for &(start, _) in verdicts.iter().rev().take(answer_marker::MOST_MARKERS) {
        let subject = text[..start].rfind(CLAUSE_ENDS).map_or(0, |at| at + 1);
        statements.push((start, Statement::Verdict(subject, start)));
    }
    statements.sort_by_key(|(at, _)| std::cmp::Reverse(*at));
    for (_, statement) in statements {
        let chosen = match statement {
            Statement::Phrase(at) => options.chosen(&answer_segment(&text[at..]), true),
            Statement::Verdict(from, to) => options.chosen(&text[from..to], true),
        };
        if !chosen.is_empty() {
            return chosen;
        }
    }
    let short = text.split_whitespace().count() <= BARE_LETTER_WORDS;
    options.chosen(text, short)
}

impl AnswerRule for Choice {
    type Truth = Options;
    const OPTIONS: bool = true;

    fn parse(answer: &str, options: &str) -> Result<Options, String> {
        let texts: Vec<String> = options.split('|').map(|t| t.trim().to_string()).collect();
        if !(2..=LETTERS.len()).contains(&texts.len()) || texts.iter().any(String::is_empty) {
            return Err(format!(
                "`options` must hold 2 to {} non-empty option texts separated by `|`; found {}",
                LETTERS.len(),
                texts.iter().filter(|t| !t.is_empty()).count()
            ));
        }
        let normalized: Vec<String> = texts.iter().map(|t| normalize(t)).collect();
        for (i, text) in normalized.iter().enumerate() {
            if text.is_empty() || normalized[..i].contains(text) {
                return Err(format!(
                    "option {} `{}` is empty or repeats another once normalised; give distinct texts",
                    Options::letter(i),
                    texts[i]
                ));
            }
        }
        let answer = LETTERS
            .find(answer)
            .filter(|&i| answer.len() == 1 && i < texts.len())
            .ok_or_else(|| {
                format!(
                    "`answer` `{answer}` is not one of the letters A to {}; give the right option's letter",
                    Options::letter(texts.len() - 1)
                )
            })?;
        Ok(Options {
            count: texts.len(),
            texts: texts.join("|"),
            normalized: normalized.join("|"),
            answer,
        })
    }

    fn prompt(question: &str, options: &str) -> String {
        let mut prompt = question.to_string();
        for (i, text) in options.split('|').map(str::trim).enumerate() {
            prompt.push_str(&format!("\n{}. {text}", Options::letter(i)));
        }
        prompt
    }

    fn grade(options: &Options, output: &str) -> Grade {
        let chosen = choices(options, output);
        let expected = options.describe(options.answer);
        let right = chosen.contains(&options.answer);
        let letters = || {
            chosen
                .iter()
                .map(|&i| Options::letter(i).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let (outcome, feedback) = match chosen.len() {
            0 => match Outcome::nothing(output) {
                Outcome::Abstained => (
                    Outcome::Abstained,
                    format!("no answer given (a refusal); expected {expected}"),
                ),
                nothing => (nothing, format!("no option chosen; expected {expected}")),
            },
            1 if right => (
                Outcome::Right,
                format!("correct option {}", Options::letter(options.answer)),
            ),
            1 => (
                Outcome::Wrong,
                format!(
                    "expected {expected}, response chose {}",
                    options.describe(chosen[0])
                ),
            ),
            k if 2 * k > options.count => (
                Outcome::Invalid,
                format!(
                    "named {k} of the {} options, which is no choice; choose one; expected {expected}",
                    options.count
                ),
            ),
            k if right => (
                Outcome::Hedged(k),
                format!(
                    "hedged: {} among {}; choose one option",
                    Options::letter(options.answer),
                    letters()
                ),
            ),
            _ => (
                Outcome::Wrong,
                format!("expected {expected}, response chose {}", letters()),
            ),
        };
        shape(outcome, output, feedback)
    }
}

#[cfg(test)]
mod tests;
