//! The `short` verifier, for SQuAD, HotpotQA and other short-answer QA: exact match
//! and token F1 after SQuAD v1.1's normalisation (lower case; ASCII punctuation
//! removed; the articles a, an, the removed; whitespace collapsed), against the truth's
//! `|`-separated aliases. The answer is read after the last `Answer:` or "the answer
//! is", else it is the output's first non-blank line. An exact match is right; token F1
//! is partial credit; two answers offered (`Paris or Lyon`) are a hedge; an answer too
//! long to be a short one, or a refusal, is no answer.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::answer_marker;
use super::one_answer::{AnswerRule, OneAnswer};
use super::{Grade, Outcome, shape, shown_briefly};

/// The `short` verifier.
pub(crate) type ShortVerifier = OneAnswer<Short>;

/// The rule of the `short` verifier.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Short;

/// An answer of more words than this (or than twice the longest alias) is not a short
/// answer: a verbose answer earns nothing rather than a sliver of F1.
pub(crate) const SHORT_WORDS: usize = 20;

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
/// `I'm afraid I cannot`), each as a whole word or run of words, any of them in a row.
const LEAD_INS: [&str; 12] = [
    "sorry",
    "im sorry",
    "i am sorry",
    "im afraid",
    "i am afraid",
    "unfortunately",
    "honestly",
    "to be honest",
    "frankly",
    "well",
    "hmm",
    "but",
];

/// How many tokens `phrase`'s whole words take when `tokens` begin with them.
fn begins_with(tokens: &[String], phrase: &str) -> Option<usize> {
    let words: Vec<&str> = phrase.split(' ').collect();
    (tokens.len() >= words.len() && tokens.iter().zip(&words).all(|(t, w)| t == w))
        .then_some(words.len())
}

/// One task's accepted answers.
#[derive(Debug, Clone)]
pub(crate) struct Aliases {
    /// The first alias as written, for feedback.
    shown: String,
    /// Each alias's normalised tokens joined by spaces, the aliases joined by newlines
    /// (one string a task; tokens hold no whitespace).
    joined: String,
    /// The most tokens an alias has.
    longest: usize,
}

static ARTICLES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(a|an|the)\b").expect("the article pattern is valid"));

static MARKER: LazyLock<Regex> = LazyLock::new(|| answer_marker::marker("answer", false, ""));

static ALTERNATIVES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s+or\s+|\s*[;|]\s*|\s+/\s+|,\s*or\s+")
        .expect("the separator pattern is valid")
});

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

/// The answer an output gives: after its last marker, else its first non-blank line.
pub(crate) fn answer_of(output: &str) -> &str {
    let from = answer_marker::after_markers(&MARKER, output)
        .next()
        .unwrap_or(0);
    answer_marker::first_line(&output[from..]).trim()
}

impl Aliases {
    fn aliases(&self) -> impl Iterator<Item = Vec<&str>> {
        self.joined
            .split('\n')
            .map(|alias| alias.split(' ').collect())
    }

    fn exact(&self, tokens: &[String]) -> bool {
        self.aliases().any(|alias| alias == tokens)
    }

    /// Whether `tokens` are a refusal: after any lead-ins (`sorry`, `honestly`, ...)
    /// they begin with a refusal's whole words (`unknowns` does not begin with
    /// `unknown`) and hold no alias as a run of words (`Unknown Pleasures (1979)` and
    /// `not sure, but Paris` answer).
    fn refused(&self, tokens: &[String]) -> bool {
        let mut rest = tokens;
        while let Some(n) = LEAD_INS
            .iter()
            .find_map(|lead_in| begins_with(rest, lead_in))
        {
            rest = &rest[n..];
        }
        let begins = REFUSALS
            .iter()
            .any(|refusal| begins_with(rest, refusal).is_some());
        begins
            && !self
                .aliases()
                .any(|alias| tokens.windows(alias.len()).any(|run| run == alias))
    }

    fn f1(&self, tokens: &[String]) -> f64 {
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
        Ok(Aliases {
            shown: answer
                .split('|')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string(),
            longest: tokens.iter().map(Vec::len).max().unwrap_or(0),
            joined: tokens
                .iter()
                .map(|alias| alias.join(" "))
                .collect::<Vec<_>>()
                .join("\n"),
        })
    }

    fn prompt(question: &str, _: &Aliases) -> String {
        question.to_string()
    }

    fn grade(aliases: &Aliases, output: &str) -> Grade {
        let expected = &aliases.shown;
        let answer = answer_of(output);
        let tokens = squad_tokens(answer);
        let longest = aliases.longest;
        let said = shown_briefly(answer);
        let (outcome, feedback) = if aliases.exact(&tokens) {
            (Outcome::Right, format!("exact match {expected}"))
        } else if tokens.is_empty() {
            (
                Outcome::Absent,
                format!("no answer found; expected {expected}"),
            )
        } else if tokens.len() > SHORT_WORDS.max(2 * longest) {
            (
                Outcome::Absent,
                format!(
                    "no short answer found ({} words); expected {expected}; give the answer alone or after \"Answer:\"",
                    tokens.len()
                ),
            )
        } else if aliases.refused(&tokens) {
            (
                Outcome::Absent,
                format!("no answer given (\"{said}\"); expected {expected}"),
            )
        } else {
            let parts: Vec<&str> = ALTERNATIVES
                .split(answer)
                .filter(|p| !squad_tokens(p).is_empty())
                .collect();
            let hedged = parts.len() > 1 && parts.iter().any(|p| aliases.exact(&squad_tokens(p)));
            let f1 = aliases.f1(&tokens);
            if hedged {
                let shown: Vec<String> = parts.iter().map(|p| shown_briefly(p)).collect();
                (
                    Outcome::Hedged,
                    format!(
                        "hedged: {expected} among {}; give one answer",
                        shown.join(", ")
                    ),
                )
            } else if f1 > 0.0 {
                (
                    Outcome::Partial(f1.min(PARTIAL_MAX)),
                    format!("partial: token F1 {f1:.2} against {expected}; response said {said}"),
                )
            } else {
                (
                    Outcome::Wrong,
                    format!("expected {expected}, response said {said}"),
                )
            }
        };
        shape(outcome, output, feedback)
    }
}

#[cfg(test)]
mod tests {
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
        // A lead-in, refusal words and an alias: graded as an answer.
        let g = grade("fr:capital", "Honestly, not sure, but Paris");
        assert!(
            g.feedback.starts_with("partial: token F1"),
            "{}",
            g.feedback
        );
        let g = grade("album:music", "Sorry, Unknown Pleasures");
        assert!(g.correctness > 0.0, "{}", g.feedback);
    }

    #[test]
    fn an_answer_that_begins_with_refusal_words_but_gives_an_alias_is_graded() {
        let g = grade("album:music", "Unknown Pleasures (1979)");
        assert_eq!((g.correct, g.correctness), (false, 0.8), "{}", g.feedback);
        let g = grade("fr:capital", "Not sure, but Paris");
        assert!(g.correctness > 0.0, "{}", g.feedback);
        assert!(
            g.feedback.starts_with("partial: token F1"),
            "{}",
            g.feedback
        );
        // Words of the question after a refusal are still a refusal.
        let g = grade("dday:date", "I don't know which day in June");
        assert_eq!((g.correctness, g.composite), (0.0, 0.0), "{}", g.feedback);
    }
}
