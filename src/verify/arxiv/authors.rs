//! First authors in free text. A name is given when its surname occurs with a capital
//! initial and the name words just before it (capitalised words or initials, only spaces
//! between, in the same sentence) include one of its given names or initials (`Kaiming
//! He`, `K. He`, `I. J. Goodfellow`, `T.-Y. Lin`). Name words before the surname that
//! fit none of its given names make another person of that surname (`Xi Chen` is not
//! Xinlei Chen). With no name words before it, the bare surname names it when it is
//! followed by `et al`, or has at least four letters and does not open a sentence. The
//! surname is the last word with any particles before it (`van den Oord`); particles may
//! be left out or lowercased. So `He wrote it.` is not Kaiming He.

use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

use regex::Regex;

use crate::base::hash::{FastMap, FastSet, WordKey};
use crate::verify::flat::group_flat;
use crate::verify::normalize::fold_marks;

/// Lowercase particles that belong to a surname.
const PARTICLES: [&str; 16] = [
    "van", "den", "der", "de", "von", "di", "da", "le", "la", "du", "del", "della", "dos", "das",
    "ten", "ter",
];

/// Capitalised words that are not names when they stand before or in a name-shaped
/// pair (sentence openers, the prompt's own words, affiliations).
const NOT_NAMES: [&str; 89] = [
    "The",
    "A",
    "An",
    "It",
    "Its",
    "This",
    "That",
    "These",
    "Those",
    "In",
    "On",
    "Of",
    "And",
    "Or",
    "But",
    "Is",
    "Was",
    "Were",
    "Be",
    "By",
    "For",
    "From",
    "With",
    "As",
    "At",
    "To",
    "I",
    "We",
    "He",
    "She",
    "They",
    "You",
    "My",
    "Our",
    "Their",
    "His",
    "Her",
    "Paper",
    "Author",
    "Authors",
    "First",
    "Title",
    "Year",
    "Answer",
    "According",
    "Sure",
    "Yes",
    "No",
    "Not",
    "Great",
    "Question",
    "However",
    "Also",
    "Who",
    "Google",
    "Brain",
    "Research",
    "University",
    "Microsoft",
    "Meta",
    "Facebook",
    "Stanford",
    "Dr",
    "Prof",
    "Professor",
    "Mr",
    "Ms",
    "Mrs",
    "Either",
    "Neither",
    "Both",
    "Maybe",
    "Perhaps",
    "Probably",
    "Possibly",
    "Likely",
    "Definitely",
    "Certainly",
    "Actually",
    "Then",
    "So",
    "Well",
    "If",
    "When",
    "Which",
    "What",
    "Here",
    "There",
    "Thus",
];

/// [`NOT_NAMES`] as a set, looked up for every capitalised word of an answer that
/// names no known author.
static NOT_NAME_SET: LazyLock<FastSet<&'static str>> =
    LazyLock::new(|| NOT_NAMES.into_iter().collect());

/// Words of text (the general path; [`AsciiWords`] is the same for ASCII text):
/// hyphenated initials (`T.-Y.`), or letters with inner hyphens or
/// apostrophes, with an optional trailing dot.
static WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\p{Lu}\.(?:-?\p{Lu}\.)+|\p{L}+(?:['’-]\p{L}+)*\.?")
        .expect("the word pattern is valid")
});

/// Whether `word` lowercases to one of [`PARTICLES`]; an ASCII word is compared
/// without making its lowercase.
fn is_particle(word: &str) -> bool {
    if word.is_ascii() {
        PARTICLES
            .iter()
            .any(|particle| word.eq_ignore_ascii_case(particle))
    } else {
        PARTICLES.contains(&word.to_lowercase().as_str())
    }
}

/// One person's name, prepared for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AuthorName {
    /// The name as the truth gives it.
    pub display: String,
    /// The last word of the surname, marks folded (`Oord`).
    core: String,
    /// Particles before it, lowercase (`van`, `den`).
    particles: Vec<String>,
    /// Given names without dots (`Ian`, `J`), hyphenated ones whole (`Tsung-Yi`).
    given: Vec<String>,
    /// Initials forms: `I`, `J`, `TY`, `T`.
    initials: Vec<String>,
}

impl AuthorName {
    /// Parses `Given [Middle] [particles] Surname`.
    pub(crate) fn parse(display: &str) -> AuthorName {
        let folded: Cow<str> = if display.is_ascii() {
            Cow::Borrowed(display)
        } else {
            Cow::Owned(fold_marks(display))
        };
        let words: Vec<&str> = folded.split_whitespace().collect();
        let core = words
            .last()
            .map_or_else(String::new, |w| w.trim_end_matches('.').to_string());
        let mut rest = &words[..words.len().saturating_sub(1)];
        let mut particles = Vec::new();
        while let Some((last, before)) = rest.split_last() {
            if !before.is_empty() && is_particle(last) {
                particles.insert(0, last.to_lowercase());
                rest = before;
            } else {
                break;
            }
        }
        let given: Vec<String> = rest
            .iter()
            .map(|w| w.trim_end_matches('.').to_string())
            .collect();
        let mut initials = Vec::new();
        for name in &given {
            let letters: String = name
                .split('-')
                .filter_map(|part| part.chars().next())
                .collect();
            // Without a hyphen the first letter alone is `letters` again.
            let first: Option<String> = name.contains('-').then(|| name.chars().take(1).collect());
            for form in std::iter::once(letters).chain(first) {
                if !form.is_empty() && !initials.contains(&form) {
                    initials.push(form);
                }
            }
        }
        AuthorName {
            display: display.to_string(),
            core,
            particles,
            given,
            initials,
        }
    }

    /// A key under which two spellings of one person agree (`Diederik P. Kingma`
    /// and `Diederik P Kingma`): the surname and the first given name. An initial
    /// would join different people (`Ze Liu` and `Zhuang Liu`).
    #[cfg(test)]
    pub(crate) fn person_key(&self) -> (String, String) {
        let (core, given) = self.person();
        (core.to_string(), given.to_string())
    }

    /// [`AuthorName::person_key`], borrowed.
    pub(crate) fn person(&self) -> (&str, &str) {
        (&self.core, self.given.first().map_or("", String::as_str))
    }

    fn is_given(&self, text: &str) -> bool {
        let trimmed = text.trim_end_matches('.');
        if self.given.iter().any(|g| g == trimmed) {
            return true;
        }
        let bare = || text.chars().filter(|c| *c != '.' && *c != '-');
        bare().all(char::is_uppercase) && self.initials.iter().any(|i| i.chars().eq(bare()))
    }

    /// How the words at token `i` read for this name, when its surname is there:
    /// with one of its given names or initials among the name words just before
    /// (`Given`), with only other name words there (`Stranger`: another person of that
    /// surname), or bare and still naming it (after `et al`, or four or more letters
    /// inside a sentence). `name_word` says which words can be part of a name.
    pub(crate) fn reading_at(
        &self,
        tokens: &Tokens,
        i: usize,
        name_word: &dyn Fn(&str) -> bool,
    ) -> Option<Reading> {
        if self.core.is_empty() || tokens.text(i).trim_end_matches('.') != self.core {
            return None;
        }
        let mut before = i;
        let mut particles = self.particles.iter().rev();
        while before > 0
            && particles
                .clone()
                .next()
                .is_some_and(|p| tokens.text(before - 1).eq_ignore_ascii_case(p))
        {
            particles.next();
            before -= 1;
        }
        // The name words just before: only white space between (a wrapped line
        // too), none ending a sentence (`Tomas. Mikolov` is not a name).
        let (mut given, mut stranger) = (None, None);
        // The given words right before the surname, none of another name between: the
        // name's span when there are any, so that in a list written with spaces (`J.
        // Hu Jason Wei`) the span of Jason Wei does not swallow Edward J. Hu.
        let mut adjoining = None;
        let mut at = before;
        for _ in 0..NAME_WORDS_BEFORE {
            if at == 0 || !tokens.joined(at) {
                break;
            }
            let word = tokens.text(at - 1);
            if word.ends_with('.') && !is_initials(word) {
                break;
            }
            if is_particle(word) {
                // Particles belong to a surname, this one's or not (`Van Der`).
            } else if self.is_given(word) {
                // The same given name twice in a row (`Jason Wei Wei Liu`): the earlier
                // one is another name's surname, not a second given name of this one.
                if adjoining.is_some_and(|a| tokens.text(a) == word) {
                    break;
                }
                given = Some(at - 1);
                if stranger.is_none() {
                    adjoining = Some(at - 1);
                }
            } else if name_word(word) {
                stranger = stranger.or(Some(at - 1));
            } else {
                break;
            }
            at -= 1;
        }
        if let Some(start) = adjoining.or(given) {
            return Some(Reading::Given { start });
        }
        if let Some(start) = stranger {
            return Some(Reading::Stranger { start });
        }
        let et_al = i + 2 < tokens.len()
            && tokens.text(i + 1) == "et"
            && tokens.text(i + 2).trim_end_matches('.') == "al";
        let long_and_inside = self.core.chars().count() >= 4 && !tokens.opens_sentence(i);
        (et_al || long_and_inside).then_some(Reading::Bare)
    }
}

/// How many name words before a surname are read: enough for `Ian J.` or `Diederik
/// Pieter`, few enough that a run of capitalised words is not taken for a name.
const NAME_WORDS_BEFORE: usize = 3;

/// How the words at a surname read for one name with that surname.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// One of the name's given names or initials is among the name words before it.
    Given {
        /// The earliest such word.
        start: usize,
    },
    /// Name words are before it, none of them the name's: another person of the same
    /// surname.
    Stranger {
        /// The nearest of those words.
        start: usize,
    },
    /// The surname alone, in a place where it names someone.
    Bare,
}

/// Whether `word` could be part of a name before a surname: initials (`J.`, `T.-Y.`),
/// or a capitalised word that is not an acronym, a sentence opener or other word of
/// the built-in list of non-names, or an `excluded` word (words of known titles).
pub(crate) fn is_name_word(word: &str, excluded: &dyn Fn(&str) -> bool) -> bool {
    is_initials(word) || is_capitalised_name(word, excluded)
}

/// Whether `word` is initials: one to three capital letters, each followed by a dot,
/// joined by hyphens or nothing (`J.`, `T.-Y.`, `I.J.`).
fn is_initials(word: &str) -> bool {
    let letters = word.chars().filter(|c| *c != '.' && *c != '-');
    word.ends_with('.')
        && letters.clone().all(char::is_uppercase)
        && (1..=3).contains(&letters.count())
        && word.matches('.').count() == word.chars().filter(|c| c.is_uppercase()).count()
}

/// Whether `text` (a trailing dot dropped) is a capitalised word that can be a name:
/// not an acronym, not one of [`NOT_NAMES`], not `excluded`.
fn is_capitalised_name(text: &str, excluded: &dyn Fn(&str) -> bool) -> bool {
    let bare = text.trim_end_matches('.');
    // Most words are lowercase: the cheapest test first.
    if !bare.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    let acronym = bare.chars().count() > 1 && bare.chars().all(|c| !c.is_lowercase());
    !acronym && !NOT_NAME_SET.contains(bare) && !excluded(bare)
}

/// The words of an answer, marks folded, each marked when it opens a sentence (the
/// first word, or one after `.`, `!`, `?`, `:` or a line break that does not follow an
/// initial). Words are spans of the folded text, which is the answer itself when it is
/// ASCII, so tokenizing allocates one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tokens<'a> {
    folded: Cow<'a, str>,
    spans: Vec<Span>,
    /// The answer as given.
    answer: &'a str,
    /// When the folded text is not the answer: for each of its bytes, the byte of the
    /// answer where the character it came from starts; traced only to quote a name.
    origin: OnceLock<Vec<usize>>,
}

/// One word: its byte range in the folded text and whether it opens a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
    sentence_start: bool,
}

impl Tokens<'_> {
    /// How many words.
    pub(crate) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The `i`-th word.
    pub(crate) fn text(&self, i: usize) -> &str {
        let span = self.spans[i];
        &self.folded[span.start..span.end]
    }

    /// Whether the `i`-th word opens a sentence.
    pub(crate) fn opens_sentence(&self, i: usize) -> bool {
        self.spans[i].sentence_start
    }

    /// Whether only white space separates the `i`-th word from the one before (no
    /// punctuation, as between the words of one name).
    pub(crate) fn joined(&self, i: usize) -> bool {
        i > 0
            && self.folded[self.spans[i - 1].end..self.spans[i].start]
                .chars()
                .all(char::is_whitespace)
    }

    /// The bytes of the folded answer that words `first..=last` span: the text
    /// [`crate::verify::offered::Offered`] reads, as both fold marks alike.
    pub(crate) fn bytes(&self, first: usize, last: usize) -> (usize, usize) {
        (self.spans[first].start, self.spans[last].end)
    }

    /// Words `first..=last` as the answer wrote them (accents and all), one space
    /// between them, without a trailing dot: a name as the answer gave it.
    pub(crate) fn quote(&self, first: usize, last: usize) -> String {
        let mut quote = String::new();
        for i in first..=last {
            if i > first {
                quote.push(' ');
            }
            let Span { start, end, .. } = self.spans[i];
            quote.push_str(if matches!(self.folded, Cow::Borrowed(_)) {
                &self.answer[start..end]
            } else {
                let origin = self.origin.get_or_init(|| fold_marks_traced(self.answer).1);
                let end = origin.get(end).copied().unwrap_or(self.answer.len());
                self.answer[origin[start]..end].trim_end()
            });
        }
        quote.truncate(quote.trim_end_matches('.').len());
        quote
    }
}

/// The words of ASCII text by hand, exactly as [`WORD`] finds them there (where
/// `\p{L}` is `[A-Za-z]`, `\p{Lu}` is `[A-Z]` and `’` cannot occur), without the
/// regular expression's search machinery: byte ranges, leftmost-first.
struct AsciiWords<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl AsciiWords<'_> {
    fn letter(&self, at: usize) -> bool {
        self.bytes.get(at).is_some_and(u8::is_ascii_alphabetic)
    }

    fn capital_dot(&self, at: usize) -> bool {
        self.bytes.get(at).is_some_and(u8::is_ascii_uppercase)
            && self.bytes.get(at + 1) == Some(&b'.')
    }

    /// The end of `\p{Lu}\.(?:-?\p{Lu}\.)+` from `start`, if it matches.
    fn initials_end(&self, start: usize) -> Option<usize> {
        if !self.capital_dot(start) {
            return None;
        }
        let mut end = start + 2;
        let mut repeats = 0;
        loop {
            let next = if self.bytes.get(end) == Some(&b'-') {
                end + 1
            } else {
                end
            };
            if !self.capital_dot(next) {
                break;
            }
            end = next + 2;
            repeats += 1;
        }
        (repeats > 0).then_some(end)
    }

    /// The end of `\p{L}+(?:['’-]\p{L}+)*\.?` from `start`, a letter.
    fn word_end(&self, start: usize) -> usize {
        let mut end = start;
        while self.letter(end) {
            end += 1;
        }
        while matches!(self.bytes.get(end), Some(b'\'' | b'-')) && self.letter(end + 1) {
            end += 1;
            while self.letter(end) {
                end += 1;
            }
        }
        if self.bytes.get(end) == Some(&b'.') {
            end += 1;
        }
        end
    }
}

impl Iterator for AsciiWords<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        let start = self.at
            + self.bytes[self.at..]
                .iter()
                .position(u8::is_ascii_alphabetic)?;
        let end = self
            .initials_end(start)
            .unwrap_or_else(|| self.word_end(start));
        self.at = end;
        Some((start, end))
    }
}

/// Marks each word of `folded` (byte ranges in order) that opens a sentence.
fn mark_sentences(folded: &str, words: impl Iterator<Item = (usize, usize)>) -> Vec<Span> {
    // Room for words of five bytes with their gaps, so most answers never regrow it.
    let mut out: Vec<Span> = Vec::with_capacity(folded.len() / 6 + 4);
    let mut last_end = 0;
    for (start, end) in words {
        let gap = &folded[last_end..start];
        let sentence_start = match out.last() {
            None => true,
            Some(previous) => {
                let previous = &folded[previous.start..previous.end];
                let initial = || {
                    previous.trim_end_matches('.').chars().count() == 1 || previous.contains(".-")
                };
                gap.contains(['!', '?', ':', '\n'])
                    || ((gap.contains('.') || previous.ends_with('.')) && !initial())
            }
        };
        out.push(Span {
            start,
            end,
            sentence_start,
        });
        last_end = end;
    }
    out
}

/// [`fold_marks`] of `answer`, with the byte of `answer` each byte of it came from
/// (the start of its character). Marks are dropped, so decomposing each character
/// alone gives what decomposing the whole text gives (which only reorders marks).
fn fold_marks_traced(answer: &str) -> (String, Vec<usize>) {
    let mut folded = String::with_capacity(answer.len());
    let mut origin = Vec::with_capacity(answer.len());
    for (at, c) in answer.char_indices() {
        unicode_normalization::char::decompose_compatible(c, |part| {
            if !unicode_normalization::char::is_combining_mark(part) {
                folded.push(part);
                origin.resize(folded.len(), at);
            }
        });
    }
    (folded, origin)
}

/// The words of `answer`, marks folded, each marked when it opens a sentence.
pub(crate) fn tokens(answer: &str) -> Tokens<'_> {
    let folded: Cow<str> = if answer.is_ascii() {
        Cow::Borrowed(answer)
    } else {
        Cow::Owned(fold_marks(answer))
    };
    let spans = if folded.is_ascii() {
        let words = AsciiWords {
            bytes: folded.as_bytes(),
            at: 0,
        };
        mark_sentences(&folded, words)
    } else {
        let words = WORD.find_iter(&folded).map(|m| (m.start(), m.end()));
        mark_sentences(&folded, words)
    };
    Tokens {
        folded,
        spans,
        answer,
        origin: OnceLock::new(),
    }
}

/// The last word of `display`'s surname, marks folded: the core that
/// [`AuthorName::parse`] finds, without the rest of the parse.
pub(crate) fn surname_core(display: &str) -> Cow<'_, str> {
    let last = |text: &str| -> (usize, usize) {
        text.split_whitespace().last().map_or((0, 0), |word| {
            let start = word.as_ptr() as usize - text.as_ptr() as usize;
            (start, start + word.trim_end_matches('.').len())
        })
    };
    if display.is_ascii() {
        let (start, end) = last(display);
        Cow::Borrowed(&display[start..end])
    } else {
        let folded = fold_marks(display);
        let (start, end) = last(&folded);
        Cow::Owned(folded[start..end].to_string())
    }
}

/// Names by the last word of their surname, so that only the names whose surname is a
/// word of the answer are examined. The names of each surname are kept flat (one
/// vector of names and one of where each surname's start), so a million names take
/// a few allocations rather than a million.
#[derive(Debug, Clone, Default)]
pub(crate) struct SurnameIndex {
    /// Each surname's list: its names are `names[start[list]..start[list + 1]]`.
    by_core: FastMap<WordKey, u32>,
    /// Name positions, grouped by surname, ascending within each.
    names: Vec<u32>,
    start: Vec<usize>,
}

impl SurnameIndex {
    /// Indexes `names` by position.
    #[cfg(test)]
    pub(crate) fn new(names: &[AuthorName]) -> SurnameIndex {
        SurnameIndex::from_cores(names.iter().map(|name| Cow::Borrowed(name.core.as_str())))
    }

    /// Indexes names by position, given the [`surname_core`] of each.
    pub(crate) fn from_cores<'a>(
        cores: impl ExactSizeIterator<Item = Cow<'a, str>>,
    ) -> SurnameIndex {
        let count = cores.len();
        let mut by_core: FastMap<WordKey, u32> =
            FastMap::with_capacity_and_hasher(count, Default::default());
        // (surname, name) for every name with a surname, in name order.
        let mut members: Vec<(u32, u32)> = Vec::with_capacity(count);
        for (name, core) in cores.enumerate() {
            if core.is_empty() {
                continue;
            }
            let next = by_core.len() as u32;
            let list = *by_core.entry(WordKey::new(&core)).or_insert(next);
            members.push((list, name as u32));
        }
        let (start, names) = group_flat(by_core.len(), &members);
        SurnameIndex {
            by_core,
            names,
            start,
        }
    }

    /// The names whose surname's last word is `core`, ascending.
    pub(crate) fn named(&self, core: &str) -> &[u32] {
        match self.by_core.get(core.as_bytes()) {
            Some(&list) => {
                let list = list as usize;
                &self.names[self.start[list]..self.start[list + 1]]
            }
            None => &[],
        }
    }
}

/// The first capitalised `Given Surname` pair in `tokens` that is not made of
/// excluded words (sentence openers, words of any known title, all-capital acronyms):
/// a name the answer presents that is not a known first author.
pub(crate) fn other_name(tokens: &Tokens, excluded_words: &dyn Fn(&str) -> bool) -> Option<String> {
    let name_like = |text: &str| is_capitalised_name(text, excluded_words);
    // Whether the word that was the surname of the pair before is name-like, if that
    // was asked: it is the given name of the next pair.
    let mut last_surname: Option<(usize, bool)> = None;
    (1..tokens.len()).find_map(|j| {
        let (given, surname) = (tokens.text(j - 1), tokens.text(j));
        let surname = surname.trim_end_matches('.');
        let surname_ok = surname.chars().count() >= 2 && !tokens.opens_sentence(j);
        if !surname_ok {
            return None;
        }
        let surname_like = name_like(surname);
        let given_like = surname_like
            && match last_surname {
                Some((word, like)) if word == j - 1 => like,
                _ => name_like(given),
            };
        last_surname = Some((j, surname_like));
        given_like.then(|| tokens.quote(j - 1, j))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Whether `answer` names `name`: with a given name or initial, or bare.
    fn found(name: &str, answer: &str) -> bool {
        let (name, tokens) = (AuthorName::parse(name), tokens(answer));
        let name_word = |word: &str| is_name_word(word, &|_| false);
        (0..tokens.len()).any(|i| {
            matches!(
                name.reading_at(&tokens, i, &name_word),
                Some(Reading::Given { .. } | Reading::Bare)
            )
        })
    }

    #[test]
    fn surname_after_a_given_name_or_initial() {
        assert!(found("Kaiming He", "It was Kaiming He."));
        assert!(found("Kaiming He", "K. He and colleagues"));
        assert!(found("Ian J. Goodfellow", "Ian Goodfellow"));
        assert!(found("Ian J. Goodfellow", "by I. J. Goodfellow"));
        assert!(found("Tsung-Yi Lin", "T.-Y. Lin"));
        assert!(found("Tsung-Yi Lin", "T. Lin"));
        assert!(found("Tsung-Yi Lin", "Tsung-Yi Lin"));
    }

    #[test]
    fn the_pronoun_he_is_not_kaiming_he() {
        assert!(!found("Kaiming He", "He wrote it."));
        assert!(!found("Kaiming He", "I think he did. He wrote it."));
    }

    #[test]
    fn et_al_and_long_surnames_inside_a_sentence() {
        assert!(found("Kaiming He", "He et al. (2015)"));
        assert!(found("Ashish Vaswani", "The first author is Vaswani."));
        assert!(
            !found("Ashish Vaswani", "Vaswani wrote it."),
            "sentence-initial bare surname"
        );
        assert!(
            !found("Ashish Vaswani", "the first author is vaswani"),
            "needs a capital"
        );
    }

    #[test]
    fn particles_may_be_left_out_or_lowercased() {
        assert!(found("Aaron van den Oord", "Aaron van den Oord"));
        assert!(found("Aaron van den Oord", "A. Van Den Oord"));
        assert!(found("Aaron van den Oord", "Aaron Oord"));
        assert!(found(
            "Aaron van den Oord",
            "written by van den Oord et al."
        ));
    }

    #[test]
    fn spellings_of_one_person_share_a_key() {
        assert_eq!(
            AuthorName::parse("Diederik P. Kingma").person_key(),
            AuthorName::parse("Diederik P Kingma").person_key()
        );
    }

    /// Text from the characters the word pattern cares about.
    fn ascii_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("A"),
                Just("b"),
                Just("T."),
                Just("-"),
                Just("'"),
                Just("."),
                Just(" "),
                Just("\n"),
                Just("!"),
                Just(":"),
                Just("Y."),
                Just("et al."),
                Just("Lin"),
                Just("x-y"),
                Just("0"),
                Just(","),
                Just("I.-J."),
            ],
            0..24,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn the_ascii_tokenizer_finds_the_words_the_pattern_finds(text in ascii_text()) {
            let by_hand: Vec<(usize, usize)> =
                AsciiWords { bytes: text.as_bytes(), at: 0 }.collect();
            let by_pattern: Vec<(usize, usize)> =
                WORD.find_iter(&text).map(|m| (m.start(), m.end())).collect();
            prop_assert_eq!(by_hand, by_pattern);
        }
    }

    proptest! {
        #[test]
        fn folding_each_character_alone_folds_as_the_whole_text_does(text in "\\PC{0,40}") {
            let (folded, origin) = fold_marks_traced(&text);
            prop_assert_eq!(&folded, &fold_marks(&text));
            prop_assert_eq!(origin.len(), folded.len());
            prop_assert!(origin.iter().all(|&at| text.is_char_boundary(at)));
        }

        #[test]
        fn the_surname_core_is_the_core_a_whole_parse_finds(
            name in "[A-Za-z .\\-éöÅ\u{2126}\u{fb01}\t]{0,16}",
        ) {
            let (core, parsed) = (surname_core(&name), AuthorName::parse(&name));
            prop_assert_eq!(core.as_ref(), parsed.core.as_str());
        }
    }

    #[test]
    fn a_quote_is_the_answers_own_words() {
        let accented = tokens("Le premier auteur est Jürgen  Schmidhüber.");
        assert_eq!(accented.quote(4, 5), "Jürgen Schmidhüber");
        let decomposed = tokens("by Ju\u{308}rgen\nSchmidhu\u{308}ber et al.");
        assert_eq!(decomposed.quote(1, 2), "Ju\u{308}rgen Schmidhu\u{308}ber");
        assert_eq!(tokens("It is T.-Y. Lin.").quote(2, 3), "T.-Y. Lin");
    }

    #[test]
    fn finds_an_unknown_name_presented_as_the_answer() {
        let no_titles = |_: &str| false;
        assert_eq!(
            other_name(&tokens("The first author is Noam Shazeer."), &no_titles),
            Some("Noam Shazeer".into())
        );
        assert_eq!(
            other_name(&tokens("Great question! I am not sure."), &no_titles),
            None
        );
        assert_eq!(other_name(&tokens("It is BERT Large."), &no_titles), None);
    }
}
