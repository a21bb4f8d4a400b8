//! Which options a piece of text names, and where: letters standing alone (`B`, `(B)`,
//! `**B**`), letters in forms no word takes (`option B`, `B)` opening a line), and
//! option texts as whole words. A letter inside a named option's own text (`Vitamin D`)
//! is part of that text, not a second choice; an option found only inside a longer one
//! named there (`Paris` in `Paris Texas`) is not named; a mention a negation rejects
//! (`not B`, `C is not right`) is not a choice.

use std::sync::LazyLock;

use regex::Regex;

use super::{LETTERS, Options};
use crate::verify::normalize::normalize;
use crate::verify::reading;

/// A letter in a form no word takes: `(B)`, `[B]`, `option B`, `choice B`, or opening
/// a line as `B)`, `B.` or `B:`.
static FORMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)[(\[]([A-J])[)\]]|(?i:\b(?:option|choice)\s+)([A-J])\b|^[\s*#>-]*([A-J])[.):](?:\s|$)")
        .expect("the letter pattern is valid")
});

/// Words that join two letters (`A or B`), so an `A` or `I` before them is a letter.
const JOINING: [&str; 5] = ["or", "and", "nor", "vs", "then"];

/// The letters standing alone in `text`, with where each is: a capital between
/// characters that are not letters, digits or apostrophes, except `A` and `I` before a
/// lower-case word (the article and the pronoun).
fn bare_letters(text: &str) -> impl Iterator<Item = (char, usize)> + '_ {
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
        if !alone {
            return None;
        }
        let next_word: String = text[at + 1..]
            .strip_prefix(' ')
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_lowercase)
            .collect();
        let before_word = !next_word.is_empty() && !JOINING.contains(&next_word.as_str());
        let pronoun_or_article = (letter == b'A' || letter == b'I') && before_word;
        (!pronoun_or_article).then_some((char::from(letter), at))
    })
}

/// The words of a text once normalised, each with where it stands in the text.
struct Words {
    /// The normalised words, separated by single spaces.
    normalized: String,
    /// For each word: where it starts in `normalized`, and the span in the text of the
    /// run of letters and digits it came from.
    at: Vec<(usize, usize, usize)>,
}

impl Words {
    /// Splits `text` into runs of letters and digits and normalises each (ASCII runs
    /// by lower-casing, others as [`normalize`] does).
    fn of(text: &str) -> Words {
        let mut words = Words {
            normalized: String::with_capacity(text.len()),
            at: Vec::new(),
        };
        let mut start = None;
        for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
            match (c.is_alphanumeric() && i < text.len(), start) {
                (true, None) => start = Some(i),
                (false, Some(from)) => {
                    words.push_run(&text[from..i], from, i);
                    start = None;
                }
                _ => {}
            }
        }
        words
    }

    fn push_run(&mut self, run: &str, from: usize, to: usize) {
        let mut add = |word: &str| {
            if !self.normalized.is_empty() {
                self.normalized.push(' ');
            }
            self.at.push((self.normalized.len(), from, to));
            self.normalized.push_str(word);
        };
        if run.is_ascii() {
            add(&run.to_ascii_lowercase());
        } else {
            for word in normalize(run).split(' ').filter(|w| !w.is_empty()) {
                add(word);
            }
        }
    }

    /// The spans in the text of every occurrence of `needle` (normalised words) as
    /// whole words.
    fn find(&self, needle: &str) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        if needle.is_empty() {
            return found;
        }
        let haystack = self.normalized.as_str();
        let bytes = haystack.as_bytes();
        let mut from = 0;
        while let Some(offset) = haystack[from..].find(needle) {
            let at = from + offset;
            let end = at + needle.len();
            let left = at == 0 || bytes[at - 1] == b' ';
            let right = end == bytes.len() || bytes[end] == b' ';
            if left && right {
                let first = self.at.partition_point(|w| w.0 < at);
                let last = self.at.partition_point(|w| w.0 < end) - 1;
                found.push((self.at[first].1, self.at[last].2));
            }
            from = at + 1;
            while !haystack.is_char_boundary(from) {
                from += 1;
            }
        }
        found
    }
}

/// One option named in a text, and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Mention {
    start: usize,
    end: usize,
    option: usize,
}

/// Whether the text between two mentions joins them into one list that a negation
/// before the first also covers (`not A or B`, `neither A nor C`).
fn joined(gap: &str) -> bool {
    gap.split(|c: char| c.is_whitespace() || "/&()*".contains(c))
        .filter(|word| !word.is_empty())
        .all(|word| {
            ["or", "nor", "and"]
                .iter()
                .any(|j| word.eq_ignore_ascii_case(j))
        })
}

impl Options {
    /// The options `text` names, in letter order: by letter (every form when `bare`,
    /// else only [`FORMED`] ones) and by text, less letters inside a named option's
    /// text, options found only inside a longer option named there, and mentions a
    /// negation rejects.
    pub(super) fn chosen(&self, text: &str, bare: bool) -> Vec<usize> {
        let words = Words::of(text);
        let mut by_text: Vec<Mention> = Vec::new();
        for (option, needle) in self.normalized.split('|').enumerate() {
            for (start, end) in words.find(needle) {
                by_text.push(Mention { start, end, option });
            }
        }
        // An option found only inside a longer option named there is not named: in
        // start order, longer first at one start, a mention lies inside an earlier one
        // when an earlier one ends at or after it (two options never share a text, so
        // never a span). Time: O(m log m) for m mentions.
        by_text.sort_unstable_by_key(|m| (m.start, std::cmp::Reverse(m.end)));
        let mut mentions: Vec<Mention> = Vec::with_capacity(by_text.len());
        let mut reach = 0;
        // For each mention by text, the furthest end of it and those before it: a
        // letter at `at` lies inside an option's text when the mentions starting at or
        // before it reach past it.
        let mut reaches = Vec::with_capacity(by_text.len());
        for (i, m) in by_text.iter().enumerate() {
            if i == 0 || reach < m.end {
                mentions.push(*m);
            }
            reach = reach.max(m.end);
            reaches.push(reach);
        }
        let within_text = |at: usize| {
            let before = by_text.partition_point(|m| m.start <= at);
            before > 0 && reaches[before - 1] > at
        };
        let mut letter = |letter: char, at: usize| {
            if let Some(option) = LETTERS.find(letter).filter(|&i| i < self.count)
                && !within_text(at)
            {
                mentions.push(Mention {
                    start: at,
                    end: at + 1,
                    option,
                });
            }
        };
        for found in FORMED.captures_iter(text) {
            if let Some(found) = found.iter().skip(1).flatten().next() {
                let c = found.as_str().chars().next().unwrap_or('-');
                letter(c, found.start());
            }
        }
        if bare {
            bare_letters(text).for_each(|(c, at)| letter(c, at));
        }
        mentions.sort_unstable();
        mentions.dedup_by(|a, b| a.start == b.start && a.option == b.option);
        let spans: Vec<(usize, usize)> = mentions.iter().map(|m| (m.start, m.end)).collect();
        let rejected = reading::rejected(text, &spans, joined);
        let mut chosen = vec![false; self.count];
        for (mention, rejected) in mentions.iter().zip(rejected) {
            if !rejected {
                chosen[mention.option] = true;
            }
        }
        (0..self.count).filter(|&i| chosen[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_keep_where_they_stand_in_the_text() {
        let words = Words::of("Vitamin D, (Plan-B) Déjà");
        assert_eq!(words.normalized, "vitamin d plan b deja");
        assert_eq!(words.find("vitamin d"), [(0, 9)]);
        assert_eq!(words.find("plan b"), [(12, 18)]);
        assert_eq!(words.find("deja"), [(20, 26)]);
        assert_eq!(words.find("min d"), Vec::<(usize, usize)>::new());
    }

    #[test]
    fn a_letter_is_alone_unless_it_is_the_article_or_the_pronoun() {
        let letters = |text: &str| bare_letters(text).map(|(c, _)| c).collect::<String>();
        assert_eq!(letters("A or B"), "AB");
        assert_eq!(letters("A lead apron"), "");
        assert_eq!(letters("I think C"), "C");
        assert_eq!(letters("B's"), "");
        assert_eq!(letters("A"), "A");
    }
}
