//! The `choice` verifier, for MMLU, ARC and GPQA: the truth gives the options' texts
//! (`options`, `|`-separated in letter order, two to ten) and the right letter
//! (`answer`). The option an output chooses is read after its last answer marker
//! (`Answer: B`, `the answer is (B)`, `I choose B`), else from the whole output: a
//! letter alone (`B`, `(B)`, `B.`), a letter in a form that cannot be a word (`(B)`,
//! `option B`, `B)` opening a line), or an option's text. Two options chosen are a
//! hedge; more than half of them is no choice at all.

use std::sync::LazyLock;

use regex::Regex;

use super::answer_marker;
use super::normalize::{contains_words, normalize};
use super::one_answer::{AnswerRule, OneAnswer};
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
        r"|\bI (?:choose|pick|select)\b",
    )
});

/// A letter in a form no word takes: `(B)`, `[B]`, `option B`, `choice B`, or opening
/// a line as `B)`, `B.` or `B:`.
static FORMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)[(\[]([A-J])[)\]]|(?i:\b(?:option|choice)\s+)([A-J])\b|^[\s*#>-]*([A-J])[.):](?:\s|$)")
        .expect("the letter pattern is valid")
});

/// Words that join two letters (`A or B`), so an `A` or `I` before them is a letter.
const JOINING: [&str; 5] = ["or", "and", "nor", "vs", "then"];

/// The letters standing alone in `text`: a capital between characters that are not
/// letters, digits or apostrophes, except `A` and `I` before a lower-case word (the
/// article and the pronoun).
fn bare_letters(text: &str) -> impl Iterator<Item = char> + '_ {
    let bytes = text.as_bytes();
    let word = |at: Option<&u8>| {
        at.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'\'' || *b >= 0x80)
    };
    (0..bytes.len()).filter_map(move |at| {
        let letter = bytes[at];
        if !(b'A'..=b'J').contains(&letter) {
            return None;
        }
        let alone = (at == 0 || !word(bytes.get(at - 1))) && !word(bytes.get(at + 1));
        let next_word: String = text[at + 1..]
            .strip_prefix(' ')
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_lowercase)
            .collect();
        let before_word = !next_word.is_empty() && !JOINING.contains(&next_word.as_str());
        let pronoun_or_article = (letter == b'A' || letter == b'I') && before_word;
        (alone && !pronoun_or_article).then_some(char::from(letter))
    })
}

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

    /// The options `text` chooses, in letter order: by letter (every form when
    /// `bare`, else only [`FORMED`] ones) and by text.
    fn chosen(&self, text: &str, bare: bool) -> Vec<usize> {
        let mut chosen = vec![false; self.count];
        let mut mark = |letter: char| {
            if let Some(i) = LETTERS.find(letter).filter(|&i| i < chosen.len()) {
                chosen[i] = true;
            }
        };
        for found in FORMED.captures_iter(text) {
            if let Some(letter) = found.iter().skip(1).flatten().next() {
                letter.as_str().chars().for_each(&mut mark);
            }
        }
        if bare {
            bare_letters(text).for_each(&mut mark);
        }
        let normalized = normalize(text);
        let options: Vec<&str> = self.normalized.split('|').collect();
        let by_text: Vec<usize> = (0..self.count)
            .filter(|&i| contains_words(&normalized, options[i]))
            .collect();
        for &i in &by_text {
            // An option found only inside a longer option also found is not chosen.
            let inside_other = by_text.iter().any(|&j| {
                j != i
                    && options[j].len() > options[i].len()
                    && contains_words(options[j], options[i])
            });
            if !inside_other {
                chosen[i] = true;
            }
        }
        (0..chosen.len()).filter(|&i| chosen[i]).collect()
    }
}

/// The text after `at` up to the end of its first non-blank line or sentence.
fn answer_segment(text: &str) -> &str {
    let line = answer_marker::first_line(text);
    // A dot at byte 0 or 1 is a letter's (`B. Paris`), not a sentence's.
    &line[..answer_marker::sentence_end(line, 2).unwrap_or(line.len())]
}

/// The options an output chooses.
fn choices(options: &Options, output: &str) -> Vec<usize> {
    for after in answer_marker::after_markers(&MARKER, output) {
        let segment = answer_segment(&output[after..]);
        let chosen = options.chosen(segment, true);
        if !chosen.is_empty() {
            return chosen;
        }
    }
    let short = output.split_whitespace().count() <= BARE_LETTER_WORDS;
    options.chosen(output, short)
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

    fn prompt(question: &str, options: &Options) -> String {
        let mut prompt = question.to_string();
        for (i, text) in options.texts.split('|').enumerate() {
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
            0 => (
                Outcome::Absent,
                format!("no option chosen; expected {expected}"),
            ),
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
                Outcome::Absent,
                format!(
                    "named {k} of the {} options, which is no choice; choose one; expected {expected}",
                    options.count
                ),
            ),
            _ if right => (
                Outcome::Hedged,
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
mod tests {
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
}
