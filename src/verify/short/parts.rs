//! A short answer read as the answers it offers side by side: its parts between the
//! separators of a list (` or `, `, `, `;`, `|`, ` / `, ` and `, ` & `, ` vs `), each
//! without the words that only lead into it (`but`, `maybe`, `it is`, `sorry`). A part
//! that a negation rejects (`not Paris`, `Lyon is wrong`) or that refuses (`not sure`)
//! offers nothing; an alias with other words beside it (`Paris London`) offers those
//! words as well, each as an answer, since a short answer's words cannot be told from
//! a list of one-word guesses. So listing never earns more than its share: an alias
//! among k answers offered earns 1/k.

use std::sync::LazyLock;

use regex::Regex;

use super::{Aliases, SOFTENERS, squad_tokens, without_leading};
use crate::verify::reading::MOST_HEDGED;

/// What a short answer offers.
///
/// A part that is only words leading into an answer (`Sorry`), or a lone `yes`/`no`,
/// names nothing; an answer that is nothing else is read whole.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reading {
    /// No part offers an answer: each was rejected, or (`refused`) one refused.
    Nothing {
        /// Whether a part refused (`not sure`), rather than every part being rejected.
        refused: bool,
    },
    /// More than [`MOST_HEDGED`] answers offered: a list, which is no answer.
    List(usize),
    /// One answer offered, an alias (written once or more).
    Right,
    /// An alias among this many answers offered, with the parts as written.
    Hedged(usize, Vec<String>),
    /// An alias with this many other words beside it, in one part or several.
    Padded(usize),
    /// No alias offered: the mean over the parts of each part's token F1.
    Partial(f64),
}

/// The separators of a list of answers.
static SEPARATORS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i),\s*(?:or|and)\s+|\s+(?:or|and|vs\.?|versus)\s+|\s*[;|&]\s*|\s+/\s+|\s*,\s+")
        .expect("the separator pattern is valid")
});

/// Words (SQuAD-normalised) that only lead into an answer; any of them, in a row, go
/// (and the [`SOFTENERS`]).
const LEADS: [&str; 22] = [
    "it is",
    "its",
    "it was",
    "this is",
    "that is",
    "thats",
    "i think",
    "i believe",
    "i guess",
    "probably",
    "perhaps",
    "maybe",
    "possibly",
    "likely",
    "either",
    "but",
    "or",
    "and",
    "so",
    "sorry",
    "im sorry",
    "im afraid",
];

/// Words (SQuAD-normalised) that, anywhere in a part outside the alias it holds, reject
/// what it names (`not Paris`, `definitely not Paris`, `Paris (not sure)`).
const NEGATORS: [&str; 6] = ["not", "never", "isnt", "wasnt", "neither", "nor"];

/// Words (SQuAD-normalised) that, alone in a part, name no answer (`No, it is Paris`).
const FILLERS: [&str; 4] = ["yes", "no", "ok", "okay"];

/// Words (SQuAD-normalised) that, anywhere in a part outside the alias it holds, refuse
/// to give what it names (`I won't say Paris`).
const REFUSING: [&str; 9] = [
    "wont", "cant", "cannot", "dont", "doesnt", "didnt", "wouldnt", "shouldnt", "couldnt",
];

/// Runs of words that, inside a part, say that what it names is not the answer.
const REJECTIONS: [&str; 9] = [
    "is wrong",
    "is incorrect",
    "is false",
    "is not right",
    "is not correct",
    "is not it",
    "isnt right",
    "isnt correct",
    "isnt it",
];

/// What a part does with what it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stance {
    /// It offers it.
    Offers,
    /// It rejects it (`not Paris`, `Lyon is wrong`).
    Rejects,
    /// It refuses to say it (`I won't say Paris`).
    Refuses,
}

/// What the part `tokens` does with what it names, judged on its words outside the
/// aliases it holds (all of them when it holds none) and on any rejection. The same
/// words decide whatever the truth: judging an alias's part only on the words before
/// the alias read `Paris (not sure)` as offering Paris and `London (not sure)` as
/// rejecting London, so a list of guesses each followed by `(not sure)` was paid as a
/// hedge when the truth was among them and cost nothing when it was not.
fn stance(aliases: &Aliases, tokens: &[String]) -> Stance {
    let outside = outside_aliases(aliases, tokens);
    let said = |words: &[&str]| {
        outside
            .iter()
            .any(|&at| words.contains(&tokens[at].as_str()))
    };
    if said(&REFUSING)
        || outside.windows(2).any(|w| {
            w[1] == w[0] + 1
                && tokens[w[1]] == "not"
                && ["will", "do", "does", "did", "can"].contains(&tokens[w[0]].as_str())
        })
    {
        return Stance::Refuses;
    }
    let rejected = REJECTIONS.iter().any(|rejection| {
        let words: Vec<&str> = rejection.split(' ').collect();
        tokens
            .windows(words.len())
            .any(|run| run == words.as_slice())
    });
    if said(&NEGATORS) || rejected {
        Stance::Rejects
    } else {
        Stance::Offers
    }
}

/// The places of `tokens` that no alias covers, aliases matched from the left, the
/// longest at each place (as [`uncovered`] counts them).
fn outside_aliases(aliases: &Aliases, tokens: &[String]) -> Vec<usize> {
    let mut at = 0;
    let mut outside = Vec::new();
    while at < tokens.len() {
        let matched = aliases
            .aliases()
            .filter(|alias| tokens[at..].starts_with_words(alias))
            .map(|alias| alias.len())
            .max();
        match matched {
            Some(length) => at += length,
            None => {
                outside.push(at);
                at += 1;
            }
        }
    }
    outside
}

/// `tokens` without the lead-in words at their start.
fn without_leads(tokens: &[String]) -> &[String] {
    without_leading(tokens, &[&LEADS, &SOFTENERS])
}

/// How many of `tokens` no alias covers, aliases matched from the left, the longest
/// at each place; and how many of those are no alias's word at all (`London` beside
/// `Paris`, not `William` beside `Shakespeare`).
fn uncovered(aliases: &Aliases, tokens: &[String]) -> (usize, usize) {
    let outside = outside_aliases(aliases, tokens);
    let foreign = outside
        .iter()
        .filter(|&&at| {
            let word = tokens[at].as_str();
            !aliases.aliases().any(|alias| alias.contains(&word))
        })
        .count();
    (outside.len(), foreign)
}

/// Whether a run of tokens begins with the given words.
trait StartsWithWords {
    fn starts_with_words(&self, words: &[&str]) -> bool;
}

impl StartsWithWords for [String] {
    fn starts_with_words(&self, words: &[&str]) -> bool {
        self.len() >= words.len() && self.iter().zip(words).all(|(t, w)| t == w)
    }
}

/// Reads `answer` (as the output wrote it) and the further answers on the lines after
/// it (`more`) into the answers they offer.
pub(crate) fn read_parts(aliases: &Aliases, answer: &str, more: &[&str]) -> Reading {
    let mut alias = false;
    let mut shown: Vec<String> = Vec::new();
    let mut others: Vec<Vec<String>> = Vec::new();
    let mut credits: Vec<f64> = Vec::new();
    let mut padding = 0;
    let mut refused = false;
    // Whether some part rejected or refused what it names, rather than naming nothing.
    let mut declined = false;
    let parts = std::iter::once(answer)
        .chain(more.iter().copied())
        .flat_map(|line| SEPARATORS.split(line));
    for part in parts {
        let all = squad_tokens(part);
        let tokens = without_leads(&all);
        let filler = tokens.len() == 1 && FILLERS.contains(&tokens[0].as_str());
        if tokens.is_empty() || (filler && !aliases.exact(tokens)) {
            continue;
        }
        if aliases.exact(tokens) {
            if !alias {
                shown.push(part.trim().to_string());
            }
            alias = true;
            continue;
        }
        if aliases.refused(tokens) {
            (refused, declined) = (true, true);
            continue;
        }
        match stance(aliases, tokens) {
            Stance::Offers => {}
            Stance::Rejects => {
                declined = true;
                continue;
            }
            Stance::Refuses => {
                (refused, declined) = (true, true);
                continue;
            }
        }
        let (left, foreign) = uncovered(aliases, tokens);
        // An alias beside words of other answers offers those as well; beside only
        // words of the aliases (`Shakespeare William`), the part is graded whole.
        if left < tokens.len() && (foreign > 0 || left == 0) {
            if !alias {
                shown.push(part.trim().to_string());
            }
            alias = true;
            padding += foreign;
        } else if !others.iter().any(|other| other.as_slice() == tokens) {
            others.push(tokens.to_vec());
            credits.push(aliases.f1(tokens));
            shown.push(part.trim().to_string());
        }
    }
    let offered = usize::from(alias) + others.len() + padding;
    match offered {
        0 if declined => Reading::Nothing { refused },
        // Only words that lead into an answer (`Sorry`): the whole is the answer.
        0 => Reading::Partial(aliases.f1(&squad_tokens(answer))),
        k if k > MOST_HEDGED => Reading::List(k),
        1 if alias => Reading::Right,
        _ if alias && others.is_empty() => Reading::Padded(padding),
        k if alias => Reading::Hedged(k, shown),
        _ => Reading::Partial(credits.iter().sum::<f64>() / credits.len() as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::one_answer::AnswerRule;
    use crate::verify::short::Short;

    fn read(truth: &str, answer: &str) -> Reading {
        read_parts(&Short::parse(truth, "").unwrap(), answer, &[])
    }

    #[test]
    fn parts_side_by_side_are_each_an_answer() {
        assert_eq!(read("Paris", "Paris"), Reading::Right);
        assert_eq!(
            read("Paris", "U.S. or Paris or paris"),
            Reading::Hedged(2, vec!["U.S.".into(), "Paris".into()])
        );
        assert_eq!(
            read("Paris", "Paris, London"),
            Reading::Hedged(2, vec!["Paris".into(), "London".into()])
        );
        assert_eq!(read("Paris", "Paris London"), Reading::Padded(1));
        assert_eq!(read("Paris", "paris paris paris"), Reading::Right);
        assert_eq!(read("1,000", "1,000"), Reading::Right);
        let years: Vec<String> = (1960..1980).map(|y| y.to_string()).collect();
        assert_eq!(read("1969", &years.join(" ")), Reading::List(20));
        assert_eq!(
            read("Marie Curie", "Curie, Marie"),
            Reading::Partial(2.0 / 3.0)
        );
    }

    #[test]
    fn a_rejected_or_refusing_part_offers_nothing() {
        assert_eq!(read("Paris", "Paris, not London"), Reading::Right);
        assert_eq!(read("Paris", "London is wrong; Paris"), Reading::Right);
        assert_eq!(
            read("Paris", "Not Paris"),
            Reading::Nothing { refused: false }
        );
        assert_eq!(read("Paris", "Not sure, but Paris"), Reading::Right);
        assert_eq!(
            read("Paris", "Not sure"),
            Reading::Nothing { refused: true }
        );
        assert_eq!(
            read("Paris", "I won't say Paris"),
            Reading::Nothing { refused: true }
        );
        assert_eq!(
            read("Paris", "definitely not Paris"),
            Reading::Nothing { refused: false }
        );
        // A negator rejects wherever it stands outside the alias, as it does in a part
        // that holds no alias (`London (not sure)`).
        assert_eq!(
            read("Paris", "Paris is not London"),
            Reading::Nothing { refused: false }
        );
        assert_eq!(
            read("Paris", "Paris (not sure)"),
            Reading::Nothing { refused: false }
        );
        assert_eq!(
            read("Paris", "London (not sure)"),
            Reading::Nothing { refused: false }
        );
        // A truth that is itself a negator's word is matched before any rejection.
        assert_eq!(read("No", "No"), Reading::Right);
    }
}
