//! What an answer offers beside the values a verifier knows. The `facts` verifier and
//! the arxiv verifier's titles and first authors know as candidates only the truth
//! file's values, so a list of the right value among made-up names (`Honmiren Torgrilo
//! Mercury`) would read as naming the right value alone. This reading finds the other
//! name-like or title-like answers an output offers, known or not, so that such a list
//! is a hedge among all it offers:
//!
//! - the output is cut into *items* at list punctuation (`,` `;` `|` `/` `?` `!` `=`,
//!   brackets, quotes, `*`, `$`, `#`, `:`, a line break, a sentence's end), at the words
//!   that join a list (`or`, `and`, `vs`, `nor`), start a reason (`because`, `since`),
//!   hedge (`maybe`, `perhaps`) or negate (`not`, `never`);
//! - in an item that holds a known value, every name-like word standing right beside
//!   it (only spaces between) is another answer offered (`Honmiren Mercury`), and the
//!   run of such words goes on until a word that is not name-like (`The planet is
//!   Mercury`: `is` stops it);
//! - an item that holds no known value offers an answer when, after the words that
//!   only lead into an answer (`maybe`, `the answer is`, `Other possibilities`), it is
//!   all name-like words (a few small words such as `of` may stand between them); a
//!   negated one offers its answer too (`not Torfa Tormidu`), as these verifiers read
//!   a known value after `not` as named;
//! - a word is name-like when it has two or more letters, is capitalised and is not an
//!   acronym, a number, a small word or another word that is never a name (`The`,
//!   `Answer`, `Sorry`); in an output without case (all lower or all upper case), when
//!   it is a word of two or more letters that is not one of those words.
//!
//! So `The planet is Mercury, the smallest one.` offers Mercury alone, and `Honmiren
//! Quohonhon ... Mercury ...` offers a hundred answers. The reasons are in
//! docs/grading.md.

mod words;

use super::normalize::fold_marks;
use words::{COPULAS, JOINERS, LIST_WORDS, LONGEST_ANSWER, NEVER_NAMES, SUBJECTS, SURE_WORDS};

/// One word of an answer: its byte range in the folded text, and its lowercase.
#[derive(Debug, Clone)]
struct Word {
    start: usize,
    end: usize,
    lower: String,
}

/// How one verifier reads what is offered.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    /// How many name-like words make one answer: 1 for facts and titles (each word
    /// beside the value is an answer, as in `short`), 2 for a person's name.
    pub unit: usize,
    /// Whether an item ending in `et al` names a person (the first-author task); for
    /// the others it is a citation (`(Yao et al., 2023)`) and offers nothing.
    pub et_al_names: bool,
    /// At least this many words make an item without a known value an answer (2 for
    /// titles, so that a bare surname or word is not a title offered).
    pub least_words: usize,
    /// Capitalised words that are not names for this verifier (for first authors, the
    /// words of known titles).
    pub excluded: &'a dyn Fn(&str) -> bool,
    /// What most words of an item of fewer than [`SURE_WORDS`] name-like words,
    /// without a known value, need to offer an answer (for titles, to be words of
    /// known titles, so that a person's name is not a title offered; for the others,
    /// nothing).
    pub short_needs: &'a dyn Fn(&str) -> bool,
    /// Whether numbers written in digits are answers offered too (for a facts task
    /// whose answer is a number: `1968 1969 1970` offers three).
    pub numbers: bool,
}

/// The words of an answer, with which of them belong to a known value.
#[derive(Debug, Clone)]
pub(crate) struct Offered {
    /// The answer with marks folded ([`fold_marks`]): the text the words index.
    text: String,
    words: Vec<Word>,
    /// Whether each word is part of a known value found in the answer.
    known: Vec<bool>,
    /// Whether the answer has no case: no lowercase letter, or no uppercase one.
    caseless: bool,
}

fn in_list(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

impl Offered {
    /// The words of `output`: runs of letters and digits, as [`super::normalize::normalize`]
    /// splits them, so a normalised value's words are a run of these words.
    pub(crate) fn new(output: &str) -> Offered {
        let text = fold_marks(output);
        let mut words = Vec::new();
        let mut start = None;
        for (at, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            match (c.is_alphanumeric(), start) {
                (true, None) => start = Some(at),
                (false, Some(from)) => {
                    words.push(Word {
                        start: from,
                        end: at,
                        lower: text[from..at].to_lowercase(),
                    });
                    start = None;
                }
                _ => {}
            }
        }
        let has = |f: fn(&char) -> bool| text.chars().any(|c| f(&c));
        let caseless = !has(|c| c.is_lowercase()) || !has(|c| c.is_uppercase());
        Offered {
            known: vec![false; words.len()],
            text,
            words,
            caseless,
        }
    }

    /// Marks every occurrence of `value` (normalised: lowercase words separated by
    /// single spaces) as a known value; true when there is one.
    pub(crate) fn mark(&mut self, value: &str) -> bool {
        let parts: Vec<&str> = value.split(' ').filter(|w| !w.is_empty()).collect();
        if parts.is_empty() || parts.len() > self.words.len() {
            return false;
        }
        let mut found = false;
        for first in 0..=self.words.len() - parts.len() {
            if parts
                .iter()
                .enumerate()
                .all(|(i, part)| self.words[first + i].lower == *part)
            {
                found = true;
                for known in &mut self.known[first..first + parts.len()] {
                    *known = true;
                }
            }
        }
        found
    }

    /// Marks the words within bytes `start..end` of [`Offered::text`] as a known value.
    pub(crate) fn mark_bytes(&mut self, start: usize, end: usize) {
        for (word, known) in self.words.iter().zip(&mut self.known) {
            if word.start < end && start < word.end {
                *known = true;
            }
        }
    }

    /// Whether word `i` could be part of a name or title offered as an answer.
    fn name_like(&self, i: usize, reader: &Reader) -> bool {
        let word = &self.words[i];
        let text = &self.text[word.start..word.end];
        if reader.numbers && text.chars().all(|c| c.is_ascii_digit()) {
            return true;
        }
        if in_list(NEVER_NAMES, &word.lower)
            || !text.chars().all(char::is_alphabetic)
            || self.text[..word.start].ends_with('\\')
            || (reader.excluded)(text)
        {
            return false;
        }
        // A letter alone is an initial or an option, never an answer offered.
        if text.chars().nth(1).is_none() {
            return false;
        }
        if self.caseless {
            return true;
        }
        let capital = text.chars().next().is_some_and(char::is_uppercase);
        let acronym = !text.chars().any(char::is_lowercase);
        capital && !acronym
    }

    /// Whether word `i` is a number written in digits.
    fn digits(&self, i: usize) -> bool {
        self.words[i].lower.bytes().all(|b| b.is_ascii_digit())
    }

    /// Whether the text between words `i - 1` and `i` ends one item: a line break, or
    /// anything but spaces, invisible characters, a hyphen or an apostrophe, and a dot
    /// only after a word that is not an initial.
    fn breaks(&self, i: usize) -> bool {
        let gap = &self.text[self.words[i - 1].end..self.words[i].start];
        let initial = self.words[i - 1].end - self.words[i - 1].start == 1;
        gap.chars().any(|c| {
            matches!(c, '\n' | '\r')
                || !(c.is_whitespace()
                    || matches!(
                        c,
                        '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '-' | '\'' | '\u{2019}'
                    )
                    || (c == '.' && initial))
        })
    }

    /// The answers `output` offers beside its known values, each as the output wrote
    /// it (a run of name-like words beside a value is cut into runs of `unit` words).
    pub(crate) fn others(&mut self, reader: &Reader) -> Vec<String> {
        // Known values written in lower case (`honmiren mercury`) say the output writes
        // its answers so: case cannot tell names there either.
        let lower_case = {
            let mut known_words = self.known_words().peekable();
            known_words.peek().is_some()
                && known_words.all(|word| !word.chars().any(char::is_uppercase))
        };
        self.caseless |= lower_case;
        let mut items: Vec<(usize, usize)> = Vec::new();
        let mut start = 0;
        for i in 0..=self.words.len() {
            let ends = i == self.words.len()
                || (i > 0 && self.breaks(i))
                || in_list(LIST_WORDS, &self.words[i].lower);
            if ends {
                if start < i {
                    items.push((start, i));
                }
                // A list word belongs to no item.
                start = if i < self.words.len() && in_list(LIST_WORDS, &self.words[i].lower) {
                    i + 1
                } else {
                    i
                };
            }
        }
        let any_known = self.known.iter().any(|&k| k);
        let mut seen = std::collections::BTreeSet::new();
        let mut offered = Vec::new();
        for (first, end) in items {
            if self.known[first..end].iter().any(|&k| k) {
                self.beside(first, end, reader, &mut offered);
            } else if let Some((from, to)) = self.bare(first, end, reader) {
                if to - from <= LONGEST_ANSWER {
                    // One answer, or for facts one a word (`Kalo Mika` offers two, as
                    // beside a value): made-up words cannot be told from made-up names.
                    if reader.unit == 1 {
                        self.runs(from, to, reader, &mut offered);
                    } else {
                        offered.push(self.quote(from, to));
                    }
                } else if any_known {
                    // Too long for one answer: a run of them, as beside a value.
                    self.runs(from, to, reader, &mut offered);
                }
            }
        }
        // An answer offered twice is one answer.
        offered.retain(|quote| seen.insert(quote.to_lowercase()));
        offered
    }

    /// The known words written with letters, as the output wrote them.
    fn known_words(&self) -> impl Iterator<Item = &str> + '_ {
        self.words
            .iter()
            .zip(&self.known)
            .filter(|&(word, &known)| known && word.lower.chars().any(char::is_alphabetic))
            .map(|(word, _)| &self.text[word.start..word.end])
    }

    /// Words `from..to` cut into answers of `unit` words, each as the output wrote it.
    fn runs(&self, from: usize, to: usize, reader: &Reader, offered: &mut Vec<String>) {
        let mut at = from;
        while at < to {
            let next = (at + reader.unit.max(1)).min(to);
            offered.push(self.quote(at, next));
            at = next;
        }
    }

    /// The words `first..end` as the output wrote them, one space between.
    fn quote(&self, first: usize, end: usize) -> String {
        (first..end)
            .map(|i| &self.text[self.words[i].start..self.words[i].end])
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The name-like words right beside the known values of item `first..end`, each
    /// run cut into answers of `unit` words.
    fn beside(&self, first: usize, end: usize, reader: &Reader, offered: &mut Vec<String>) {
        let mut counted = vec![false; end - first];
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for i in first..end {
            if !self.known[i] {
                continue;
            }
            // Outward from the value on each side, while the words are name-like.
            let mut left = i;
            while left > first
                && !self.known[left - 1]
                && !counted[left - 1 - first]
                && self.name_like(left - 1, reader)
            {
                left -= 1;
                counted[left - first] = true;
            }
            if left < i {
                runs.push((left, i));
            }
            let mut right = i + 1;
            while right < end
                && !self.known[right]
                && !counted[right - first]
                && self.name_like(right, reader)
            {
                counted[right - first] = true;
                right += 1;
            }
            if right > i + 1 {
                runs.push((i + 1, right));
            }
        }
        runs.sort_unstable();
        for (from, to) in runs {
            self.runs(from, to, reader, offered);
        }
    }

    /// The answer item `first..end` offers when it holds no known value: its words
    /// after the lead-in words, all name-like (small joining words between them).
    fn bare(&self, first: usize, end: usize, reader: &Reader) -> Option<(usize, usize)> {
        let lower = |i: usize| self.words[i].lower.as_str();
        let mut from = first;
        while from < end
            && !self.name_like(from, reader)
            && (in_list(NEVER_NAMES, lower(from)) || self.digits(from))
        {
            from += 1;
        }
        // A statement about something else is prose, not an answer offered (`the
        // second is Alexis Conneau`); one about the answer leads into it (`the answer
        // is`, `it is`, `the title is`).
        let lead = first..from;
        if lead.clone().any(|i| in_list(COPULAS, lower(i)))
            && !lead.clone().any(|i| in_list(SUBJECTS, lower(i)))
        {
            return None;
        }
        // A noun phrase after an article describes rather than names (`the smallest
        // planet`), which matters where the output has no case to tell names by.
        if from > first && matches!(lower(from - 1), "the" | "a" | "an") {
            return None;
        }
        let mut to = end;
        // A number after the answer is the next one's (`1: X 2: Y`), not part of it;
        // before a colon it is always a label, where numbers are answers too.
        let labelled = self.text[self.words[end - 1].end..]
            .trim_start()
            .starts_with(':');
        if labelled && to > from + 1 && self.digits(to - 1) {
            to -= 1;
        }
        while to > from && self.digits(to - 1) && !self.name_like(to - 1, reader) {
            to -= 1;
        }
        // The words before a colon are a label (`Other possibilities:`, `Respuesta:`).
        if labelled && to == end {
            return None;
        }
        let mut least = reader.least_words.max(1);
        if to >= from + 2 && lower(to - 2) == "et" && lower(to - 1) == "al" {
            if !reader.et_al_names {
                return None;
            }
            to -= 2;
            // `Tormidu et al.` names one person by the surname alone.
            least = 1;
        }
        // A verb after the answer says something of it (`Y are not right`, the rest cut
        // off at `not`): these verifiers read a known value so followed as named, and
        // a made-up one alike. An article there starts the next (`X the paper Y`).
        while to > from
            && (in_list(COPULAS, lower(to - 1)) || matches!(lower(to - 1), "the" | "a" | "an"))
        {
            to -= 1;
        }
        // A clause of small words after it is about it (`X I hope it is correct`).
        if let Some(clause) = (from + 1..to).find(|&i| {
            matches!(lower(i), "i" | "it" | "we" | "this" | "that")
                && (i..to).all(|j| in_list(NEVER_NAMES, lower(j)))
        }) {
            to = clause;
        }
        // Words joined by a hyphen are one (`Tsung-Yi`).
        let count = (from..to)
            .filter(|&i| i == from || !self.text[..self.words[i].start].ends_with('-'))
            .count();
        if to <= from || count < least {
            return None;
        }
        let initial = |i: usize| {
            let text = &self.text[self.words[i].start..self.words[i].end];
            text.chars().count() == 1 && text.chars().all(char::is_uppercase)
        };
        let joined = (from..to)
            .all(|i| self.name_like(i, reader) || in_list(JOINERS, lower(i)) || initial(i));
        let names = (from..to).filter(|&i| self.name_like(i, reader)).count();
        let passing = (from..to)
            .filter(|&i| (reader.short_needs)(&self.text[self.words[i].start..self.words[i].end]))
            .count();
        let needed = names >= SURE_WORDS || 2 * passing > names;
        (joined && needed && self.name_like(from, reader) && self.name_like(to - 1, reader))
            .then_some((from, to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader() -> Reader<'static> {
        Reader {
            unit: 1,
            et_al_names: false,
            least_words: 1,
            excluded: &|_| false,
            short_needs: &|_| true,
            numbers: false,
        }
    }

    fn others(output: &str, known: &str) -> Vec<String> {
        let mut offered = Offered::new(output);
        offered.mark(known);
        offered.others(&reader())
    }

    #[test]
    fn a_committed_answer_in_prose_offers_nothing_else() {
        for output in [
            "The planet is Mercury, the smallest one.",
            "Mercury",
            "Answer: Mercury",
            "Respuesta: Mercury",
            "Final Answer: The final answer is Mercury. I hope it is correct.",
            "Sorry, I cannot answer that with certainty.\nMercury",
            "It is Mercury (the planet closest to the Sun).",
            "I think it is Mercury, but I am not sure.",
            "**Mercury**",
            "\\boxed{Mercury}",
            "THE ANSWER IS MERCURY.",
            "the answer is mercury, the smallest planet.",
        ] {
            assert_eq!(others(output, "mercury"), Vec::<String>::new(), "{output}");
        }
    }

    #[test]
    fn made_up_names_beside_or_apart_from_the_value_are_offered() {
        assert_eq!(
            others("Honmiren Quohonhon Mercury Torgrilo", "mercury"),
            ["Honmiren", "Quohonhon", "Torgrilo"]
        );
        assert_eq!(
            others(
                "Mercury\n\nOther possibilities: Honmiren, Torgrilo",
                "mercury"
            ),
            ["Honmiren", "Torgrilo"]
        );
        assert_eq!(
            others(
                "Answer: not Honmiren\n答案：Torgrilo\nAnswer: Mercury",
                "mercury"
            ),
            ["Honmiren", "Torgrilo"]
        );
        assert_eq!(
            others("honmiren or mercury or maybe torgrilo", "mercury"),
            ["honmiren", "torgrilo"]
        );
        assert_eq!(others("Honmiren", "mercury"), ["Honmiren"]);
        assert_eq!(
            others("1: Honmiren 2: Mercury 3: Torgrilo Veldu", "mercury"),
            ["Honmiren", "Torgrilo", "Veldu"]
        );
        assert_eq!(
            others("not Honmiren not Mercury not Torgrilo", "mercury"),
            ["Honmiren", "Torgrilo"]
        );
        assert_eq!(
            others(
                "maybe Honmiren perhaps Mercury probably Torgrilo",
                "mercury"
            ),
            ["Honmiren", "Torgrilo"]
        );
    }
}
