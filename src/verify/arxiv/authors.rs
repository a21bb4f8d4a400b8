//! First authors in free text. A name is present when its surname occurs with a capital
//! initial and is preceded by a given name or its initial (`Kaiming He`, `K. He`,
//! `I. J. Goodfellow`, `T.-Y. Lin`), or is followed by `et al`, or when the surname
//! has at least four letters and occurs capitalised and not at the start of a sentence.
//! The surname is the last word with any particles before it (`van den Oord`);
//! particles may be left out or lowercased. So `He wrote it.` is not Kaiming He.

use std::borrow::{Borrow, Cow};
use std::sync::LazyLock;

use regex::Regex;

use crate::verify::fasthash::{FastMap, FastSet, WordKey};
use crate::verify::flat::group_flat;
use crate::verify::normalize::fold_marks;

/// Lowercase particles that belong to a surname.
const PARTICLES: [&str; 16] = [
    "van", "den", "der", "de", "von", "di", "da", "le", "la", "du", "del", "della", "dos", "das",
    "ten", "ter",
];

/// Capitalised words that are not names when they stand before or in a name-shaped
/// pair (sentence openers, the prompt's own words, affiliations).
const NOT_NAMES: [&str; 64] = [
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
pub struct AuthorName {
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
    pub fn parse(display: &str) -> AuthorName {
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
    /// and `Diederik P Kingma`): the surname and the first initial.
    pub fn person_key(&self) -> (String, String) {
        let (core, initial) = self.person();
        (core.to_string(), initial.to_string())
    }

    /// [`AuthorName::person_key`], borrowed.
    pub fn person(&self) -> (&str, &str) {
        (&self.core, self.initials.first().map_or("", String::as_str))
    }

    fn is_given(&self, text: &str) -> bool {
        let trimmed = text.trim_end_matches('.');
        if self.given.iter().any(|g| g == trimmed) {
            return true;
        }
        let bare = || text.chars().filter(|c| *c != '.' && *c != '-');
        bare().all(char::is_uppercase) && self.initials.iter().any(|i| i.chars().eq(bare()))
    }

    /// Whether this name is present among `tokens`.
    fn present_in(&self, tokens: &Tokens) -> bool {
        !self.core.is_empty() && (0..tokens.len()).any(|i| self.present_at(tokens, i))
    }

    /// Whether this name is present with its surname at token `i`.
    fn present_at(&self, tokens: &Tokens, i: usize) -> bool {
        if tokens.text(i).trim_end_matches('.') != self.core {
            return false;
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
        let given_before = before > 0 && self.is_given(tokens.text(before - 1));
        let et_al = i + 2 < tokens.len()
            && tokens.text(i + 1) == "et"
            && tokens.text(i + 2).trim_end_matches('.') == "al";
        let long_and_inside = self.core.chars().count() >= 4 && !tokens.opens_sentence(i);
        given_before || et_al || long_and_inside
    }
}

/// The words of an answer, marks folded, each marked when it opens a sentence (the
/// first word, or one after `.`, `!`, `?`, `:` or a line break that does not follow an
/// initial). Words are spans of the folded text, which is the answer itself when it is
/// ASCII, so tokenizing allocates one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tokens<'a> {
    folded: Cow<'a, str>,
    spans: Vec<Span>,
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
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are no words.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The `i`-th word.
    pub fn text(&self, i: usize) -> &str {
        let span = self.spans[i];
        &self.folded[span.start..span.end]
    }

    /// Whether the `i`-th word opens a sentence.
    pub fn opens_sentence(&self, i: usize) -> bool {
        self.spans[i].sentence_start
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

/// The words of `answer`, marks folded, each marked when it opens a sentence.
pub fn tokens(answer: &str) -> Tokens<'_> {
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
    Tokens { folded, spans }
}

/// Which of `names` are present in the answer's `tokens`, examining every name: the
/// reference for [`SurnameIndex::present`].
pub fn present(names: &[AuthorName], tokens: &Tokens) -> Vec<usize> {
    (0..names.len())
        .filter(|&i| names[i].present_in(tokens))
        .collect()
}

/// The last word of `display`'s surname, marks folded: the core that
/// [`AuthorName::parse`] finds, without the rest of the parse.
pub fn surname_core(display: &str) -> Cow<'_, str> {
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
pub struct SurnameIndex {
    /// Each surname's list: its names are `names[start[list]..start[list + 1]]`.
    by_core: FastMap<WordKey, u32>,
    /// Name positions, grouped by surname, ascending within each.
    names: Vec<u32>,
    start: Vec<usize>,
}

impl SurnameIndex {
    /// Indexes `names` by position.
    pub fn new(names: &[AuthorName]) -> SurnameIndex {
        SurnameIndex::from_cores(names.iter().map(|name| Cow::Borrowed(name.core.as_str())))
    }

    /// Indexes names by position, given the [`surname_core`] of each.
    pub fn from_cores<'a>(cores: impl ExactSizeIterator<Item = Cow<'a, str>>) -> SurnameIndex {
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
    fn named(&self, core: &str) -> &[u32] {
        match self.by_core.get(core.as_bytes()) {
            Some(&list) => {
                let list = list as usize;
                &self.names[self.start[list]..self.start[list + 1]]
            }
            None => &[],
        }
    }

    /// Which of `names` (the ones indexed) are present in `tokens`, ascending: the same
    /// as [`present`].
    pub fn present(&self, names: &[AuthorName], tokens: &Tokens) -> Vec<usize> {
        self.present_with(|name| &names[name], tokens)
    }

    /// [`SurnameIndex::present`], with the name at a position given by `name` when it
    /// is examined: a verifier parses only the names whose surname is in the answer.
    pub fn present_with<N: Borrow<AuthorName>>(
        &self,
        name: impl Fn(usize) -> N,
        tokens: &Tokens,
    ) -> Vec<usize> {
        let mut found = Vec::new();
        for i in 0..tokens.len() {
            let surname = tokens.text(i).trim_end_matches('.');
            for &candidate in self.named(surname) {
                let candidate = candidate as usize;
                if name(candidate).borrow().present_at(tokens, i) {
                    found.push(candidate);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// The first capitalised `Given Surname` pair in `tokens` that is not made of
/// excluded words (sentence openers, words of any known title, all-capital acronyms):
/// a name the answer presents that is not a known first author.
pub fn other_name(tokens: &Tokens, excluded_words: &dyn Fn(&str) -> bool) -> Option<String> {
    let name_like = |text: &str| {
        let bare = text.trim_end_matches('.');
        // Most words are lowercase: the cheapest test first.
        if !bare.chars().next().is_some_and(char::is_uppercase) {
            return false;
        }
        let acronym = bare.chars().count() > 1 && bare.chars().all(|c| !c.is_lowercase());
        !acronym && !NOT_NAME_SET.contains(bare) && !excluded_words(bare)
    };
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
        given_like.then(|| {
            let mut name = String::with_capacity(given.len() + 1 + surname.len());
            name.push_str(given);
            name.push(' ');
            name.push_str(surname);
            name
        })
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn found(name: &str, answer: &str) -> bool {
        !present(&[AuthorName::parse(name)], &tokens(answer)).is_empty()
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

        #[test]
        fn the_surname_index_finds_what_examining_every_name_finds(
            picks in proptest::collection::vec((0usize..8, 0usize..6), 0..8),
        ) {
            let names: Vec<AuthorName> = [
                "Kaiming He", "Ian J. Goodfellow", "Tsung-Yi Lin", "Aaron van den Oord",
                "Ashish Vaswani", "Diederik P. Kingma", "Diederik P Kingma", "Bernhard Schölkopf",
            ]
            .iter()
            .map(|n| AuthorName::parse(n))
            .collect();
            let pieces = ["He", "K.", "et al.", "Lin", "T.-Y.", "van den Oord", "Vaswani",
                "Kingma", "Schölkopf", "Ian", ". ", " ", "wrote it", "Oord"];
            let answer: String = picks
                .iter()
                .map(|&(a, b)| format!("{} {}", pieces[a + b], pieces[(a * 3 + b) % pieces.len()]))
                .collect::<Vec<_>>()
                .join(" ");
            let tokens = tokens(&answer);
            prop_assert_eq!(
                SurnameIndex::new(&names).present(&names, &tokens),
                present(&names, &tokens)
            );
        }
    }

    proptest! {
        #[test]
        fn the_surname_core_is_the_core_a_whole_parse_finds(
            name in "[A-Za-z .\\-éöÅ\u{2126}\u{fb01}\t]{0,16}",
        ) {
            let (core, parsed) = (surname_core(&name), AuthorName::parse(&name));
            prop_assert_eq!(core.as_ref(), parsed.core.as_str());
        }
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
