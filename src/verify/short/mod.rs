//! The `short` verifier, for SQuAD, HotpotQA and other short-answer QA: exact match
//! and token F1 after SQuAD v1.1's normalisation (lower case; ASCII punctuation
//! removed; the articles a, an, the removed; whitespace collapsed), against the truth's
//! `|`-separated aliases. The answer is read after the last `Answer:` or "the answer
//! is", else it is the output's first non-blank line, up to a reason (`because`). An
//! exact match is right; token F1 is partial credit; answers offered side by side
//! (`Paris or Lyon`, `Paris, Lyon`) are a hedge among them (`parts`); an answer too long
//! to be a short one, a list of more than ten, or a refusal is no answer.

mod parts;

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use self::parts::{Reading, read_parts};
use super::answer_marker;
use super::one_answer::{AnswerRule, OneAnswer};
use super::reading;
use super::{Grade, Outcome, shape, shown_briefly};

/// The `short` verifier.
pub(crate) type ShortVerifier = OneAnswer<Short>;

/// The rule of the `short` verifier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Short;

/// An answer of more words than this (or than twice the longest alias) is not a short
/// answer: a verbose answer earns nothing rather than a sliver of F1.
pub(crate) const SHORT_WORDS: usize = 20;

/// A line after the answer line of at most this many words (and not ending a sentence)
/// is a further answer. The same for every truth: a limit of twice the truth's longest
/// alias read a four-word line as a second answer for a two-word truth and as nothing
/// for a one-word truth, so a template could be paid for where the truth stood.
pub(crate) const FURTHER_WORDS: usize = 4;

/// Partial credit never reaches 1, so only an exact match is `correct` (the same words
/// in another order have F1 1).
pub(crate) const PARTIAL_MAX: f64 = 0.99;

/// Normalised answers that say no answer is given.
const REFUSALS: [&str; 12] = [
    "i dont know",
    "i do not know",
    "dont know",
    "not sure",
    "im not sure",
    "i am not sure",
    "no idea",
    "unknown",
    "i cannot",
    "i cant",
    "cannot answer",
    "unable to",
];

/// Normalised words that may come before a refusal's words (`Sorry, I don't know`,
/// `I'm afraid I cannot`), each as a whole word or run of words, any of them in a row;
/// the [`SOFTENERS`] as well.
const LEAD_INS: [&str; 6] = [
    "sorry",
    "im sorry",
    "i am sorry",
    "im afraid",
    "i am afraid",
    "but",
];

/// Normalised words that soften what follows them, a refusal (`Honestly, I don't
/// know`) or an answer (`Well, Paris`): lead-ins to both.
const SOFTENERS: [&str; 6] = [
    "unfortunately",
    "honestly",
    "to be honest",
    "frankly",
    "well",
    "hmm",
];

/// How many tokens `phrase`'s whole words take when `tokens` begin with them.
fn begins_with(tokens: &[String], phrase: &str) -> Option<usize> {
    let words: Vec<&str> = phrase.split(' ').collect();
    (tokens.len() >= words.len() && tokens.iter().zip(&words).all(|(t, w)| t == w))
        .then_some(words.len())
}

/// `tokens` after the phrases of `phrases` they begin with, any of them in a row.
fn without_leading<'a>(mut tokens: &'a [String], phrases: &[&[&str]]) -> &'a [String] {
    while let Some(n) = phrases
        .iter()
        .flat_map(|set| set.iter())
        .find_map(|phrase| begins_with(tokens, phrase))
    {
        tokens = &tokens[n..];
    }
    tokens
}

/// One task's accepted answers, in one string: a million tasks hold a million
/// strings, not two million.
#[derive(Debug, Clone)]
pub(crate) struct Aliases {
    /// The first alias as written, for feedback; then each alias's normalised tokens
    /// joined by spaces, the aliases joined by newlines (tokens hold no whitespace).
    text: Box<str>,
    /// Where the first alias as written ends in `text`.
    shown: u32,
    /// The most tokens an alias has.
    longest: u32,
}

static ARTICLES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(a|an|the)\b").expect("the article pattern is valid"));

static MARKER: LazyLock<Regex> = LazyLock::new(|| answer_marker::marker("answer", false, ""));

/// SQuAD v1.1's `normalize_answer`, split into tokens.
pub(crate) fn squad_tokens(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let unpunctuated: String = lower
        .chars()
        .filter(|c| !c.is_ascii_punctuation())
        .collect();
    ARTICLES
        .replace_all(&unpunctuated, " ")
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// SQuAD v1.1's token F1 of a prediction against one gold answer.
pub(crate) fn token_f1<P: AsRef<str>, G: AsRef<str>>(prediction: &[P], gold: &[G]) -> f64 {
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for token in gold {
        *counts.entry(token.as_ref()).or_default() += 1;
    }
    let mut common = 0;
    for token in prediction {
        if let Some(count) = counts.get_mut(token.as_ref()).filter(|c| **c > 0) {
            *count -= 1;
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let precision = f64::from(common) / prediction.len() as f64;
    let recall = f64::from(common) / gold.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

/// The answer line of an output: the first non-blank line after its last marker,
/// else its first non-blank line.
pub(crate) fn answer_line(output: &str) -> &str {
    let from = answer_marker::after_markers(&MARKER, output)
        .next()
        .unwrap_or(0);
    answer_marker::first_line(&output[from..]).trim()
}

/// The answer an output gives: its answer line up to a reason (`Paris because ...` is
/// `Paris`).
pub(crate) fn answer_of(output: &str) -> &str {
    let line = answer_line(output);
    line[..reading::reason_start(line).unwrap_or(line.len())].trim()
}

/// The lines after the answer line (`line`, a slice of `output`) that are further
/// answers rather than an explanation: the next non-blank lines, while each holds at
/// most [`FURTHER_WORDS`] words and does not end a sentence (`.`, `!`, `?`, `:`), at
/// most one more than [`reading::MOST_HEDGED`]. So `Paris\nLondon` offers two answers,
/// and `Paris\n\nIt is the capital.` one. What is read depends on the output alone.
fn further_lines<'a>(output: &'a str, line: &str) -> Vec<&'a str> {
    let end = line.as_ptr() as usize - output.as_ptr() as usize + line.len();
    output[end..]
        .lines()
        .map(str::trim)
        .filter(|next| !next.is_empty())
        .take_while(|next| {
            let words = squad_tokens(next).len();
            (1..=FURTHER_WORDS).contains(&words) && !next.ends_with(['.', '!', '?', ':'])
        })
        .take(reading::MOST_HEDGED + 1)
        .collect()
}

impl Aliases {
    /// The first alias as written.
    fn shown(&self) -> &str {
        &self.text[..self.shown as usize]
    }

    pub(super) fn aliases(&self) -> impl Iterator<Item = Vec<&str>> {
        self.text[self.shown as usize..]
            .split('\n')
            .map(|alias| alias.split(' ').collect())
    }

    pub(super) fn exact(&self, tokens: &[String]) -> bool {
        self.aliases().any(|alias| alias == tokens)
    }

    /// Whether `tokens` are a refusal: after any lead-ins (`sorry`, `honestly`, ...)
    /// they begin with a refusal's whole words (`unknowns` does not begin with
    /// `unknown`) and hold no alias as a run of words (`Unknown Pleasures (1979)` and
    /// `not sure, but Paris` answer).
    pub(super) fn refused(&self, tokens: &[String]) -> bool {
        let rest = without_leading(tokens, &[&LEAD_INS, &SOFTENERS]);
        let begins = REFUSALS
            .iter()
            .any(|refusal| begins_with(rest, refusal).is_some());
        begins
            && !self
                .aliases()
                .any(|alias| tokens.windows(alias.len()).any(|run| run == alias))
    }

    pub(super) fn f1(&self, tokens: &[String]) -> f64 {
        self.aliases()
            .map(|alias| token_f1(tokens, &alias))
            .fold(0.0, f64::max)
    }
}

impl AnswerRule for Short {
    type Truth = Aliases;
    const OPTIONS: bool = false;

    fn parse(answer: &str, _: &str) -> Result<Aliases, String> {
        let tokens: Vec<Vec<String>> = answer
            .split('|')
            .map(squad_tokens)
            .filter(|t| !t.is_empty())
            .collect();
        if tokens.is_empty() {
            return Err(format!(
                "`answer` `{answer}` has no words once normalised; give at least one alias"
            ));
        }
        let shown = answer.split('|').next().unwrap_or_default().trim();
        let joined = tokens
            .iter()
            .map(|alias| alias.join(" "))
            .collect::<Vec<_>>()
            .join("\n");
        let Ok(shown_len) = u32::try_from(shown.len()) else {
            return Err("`answer` is longer than 4 GB; give a short answer".to_string());
        };
        Ok(Aliases {
            text: format!("{shown}{joined}").into_boxed_str(),
            shown: shown_len,
            longest: tokens.iter().map(Vec::len).max().unwrap_or(0) as u32,
        })
    }

    fn prompt(question: &str, _: &str) -> String {
        question.to_string()
    }

    fn grade(aliases: &Aliases, output: &str) -> Grade {
        let expected = aliases.shown();
        let text = reading::fold(output);
        let line = answer_line(&text);
        let answer = answer_of(&text);
        let more = further_lines(&text, line);
        let tokens = squad_tokens(answer);
        let longest = aliases.longest as usize;
        let said = shown_briefly(answer);
        // A line too long to be a short answer is not one, whatever reason it gives.
        let words = squad_tokens(line).len();
        let (outcome, feedback) = if more.is_empty() && aliases.exact(&tokens) {
            (Outcome::Right, format!("exact match {expected}"))
        } else if tokens.is_empty() {
            (
                Outcome::nothing(output),
                format!("no answer found; expected {expected}"),
            )
        } else if words > SHORT_WORDS.max(2 * longest) {
            (
                Outcome::Invalid,
                format!(
                    "no short answer found ({words} words); expected {expected}; give the answer alone or after \"Answer:\""
                ),
            )
        } else if aliases.refused(&tokens) {
            (
                Outcome::Abstained,
                format!("no answer given (\"{said}\"); expected {expected}"),
            )
        } else {
            match read_parts(aliases, answer, &more) {
                Reading::Nothing { refused: true } => (
                    Outcome::Abstained,
                    format!("no answer given (\"{said}\"); expected {expected}"),
                ),
                Reading::Nothing { refused: false } if tokens.is_empty() => (
                    Outcome::nothing(output),
                    format!("no answer found; expected {expected}"),
                ),
                Reading::Nothing { refused: false } => (
                    Outcome::Invalid,
                    format!(
                        "no answer found: \"{said}\" names only what it rejects; expected {expected}"
                    ),
                ),
                Reading::List(k) => (
                    Outcome::Invalid,
                    format!(
                        "listed {k} answers, which is no answer; give one; expected {expected}"
                    ),
                ),
                Reading::Right => (Outcome::Right, format!("exact match {expected}")),
                Reading::Hedged(k, shown) => (
                    Outcome::Hedged(k),
                    format!(
                        "hedged: {expected} among {}; give one answer",
                        shown.join(", ")
                    ),
                ),
                Reading::Padded(others) => (
                    Outcome::Partial(1.0 / (1 + others) as f64),
                    format!(
                        "partial: {expected} with {others} other word{}; give the answer alone; response said {said}",
                        if others == 1 { "" } else { "s" }
                    ),
                ),
                Reading::Partial(f1) if f1 > 0.0 => (
                    Outcome::Partial(f1.min(PARTIAL_MAX)),
                    format!("partial: token F1 {f1:.2} against {expected}; response said {said}"),
                ),
                Reading::Partial(_) => (
                    Outcome::Wrong,
                    format!("expected {expected}, response said {said}"),
                ),
            }
        };
        shape(outcome, output, feedback)
    }
}

#[cfg(test)]
mod tests;
