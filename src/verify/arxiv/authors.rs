//! First authors in free text. A name is present when its surname occurs with a capital
//! initial and is preceded by a given name or its initial (`Kaiming He`, `K. He`,
//! `I. J. Goodfellow`, `T.-Y. Lin`), or is followed by `et al`, or when the surname
//! has at least four letters and occurs capitalised and not at the start of a sentence.
//! The surname is the last word with any particles before it (`van den Oord`);
//! particles may be left out or lowercased. So `He wrote it.` is not Kaiming He.

use std::sync::LazyLock;

use regex::Regex;

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

/// Words of text: hyphenated initials (`T.-Y.`), or letters with inner hyphens or
/// apostrophes, with an optional trailing dot.
static WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\p{Lu}\.(?:-?\p{Lu}\.)+|\p{L}+(?:['’-]\p{L}+)*\.?")
        .expect("the word pattern is valid")
});

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
        let folded = fold_marks(display);
        let words: Vec<&str> = folded.split_whitespace().collect();
        let core = words
            .last()
            .map_or_else(String::new, |w| w.trim_end_matches('.').to_string());
        let mut rest = &words[..words.len().saturating_sub(1)];
        let mut particles = Vec::new();
        while let Some((last, before)) = rest.split_last() {
            if !before.is_empty() && PARTICLES.contains(&last.to_lowercase().as_str()) {
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
            let first: String = name.chars().take(1).collect();
            for form in [letters, first] {
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
        (
            self.core.clone(),
            self.initials.first().cloned().unwrap_or_default(),
        )
    }

    fn is_given(&self, token: &Token) -> bool {
        let bare: String = token
            .text
            .chars()
            .filter(|c| *c != '.' && *c != '-')
            .collect();
        self.given
            .iter()
            .any(|g| g == token.text.trim_end_matches('.'))
            || (bare.chars().all(char::is_uppercase) && self.initials.contains(&bare))
    }

    /// Whether this name is present among `tokens`.
    fn present_in(&self, tokens: &[Token]) -> bool {
        if self.core.is_empty() {
            return false;
        }
        tokens.iter().enumerate().any(|(i, token)| {
            if token.text.trim_end_matches('.') != self.core {
                return false;
            }
            let mut before = i;
            let mut particles = self.particles.iter().rev();
            while before > 0
                && particles
                    .clone()
                    .next()
                    .is_some_and(|p| tokens[before - 1].text.eq_ignore_ascii_case(p))
            {
                particles.next();
                before -= 1;
            }
            let given_before = before > 0 && self.is_given(&tokens[before - 1]);
            let et_al = tokens.get(i + 1).is_some_and(|t| t.text == "et")
                && tokens
                    .get(i + 2)
                    .is_some_and(|t| t.text.trim_end_matches('.') == "al");
            let long_and_inside = self.core.chars().count() >= 4 && !token.sentence_start;
            given_before || et_al || long_and_inside
        })
    }
}

/// A word of an answer and whether it opens a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    text: String,
    sentence_start: bool,
}

/// The words of `answer`, marks folded, each marked when it opens a sentence (the
/// first word, or one after `.`, `!`, `?`, `:` or a line break that does not follow an
/// initial).
pub fn tokens(answer: &str) -> Vec<Token> {
    let folded = fold_marks(answer);
    let mut out: Vec<Token> = Vec::new();
    let mut last_end = 0;
    for m in WORD.find_iter(&folded) {
        let gap = &folded[last_end..m.start()];
        let sentence_start = match out.last() {
            None => true,
            Some(previous) => {
                let initial = previous.text.trim_end_matches('.').chars().count() == 1
                    || previous.text.contains(".-");
                gap.contains(['!', '?', ':', '\n'])
                    || ((gap.contains('.') || previous.text.ends_with('.')) && !initial)
            }
        };
        out.push(Token {
            text: m.as_str().to_string(),
            sentence_start,
        });
        last_end = m.end();
    }
    out
}

/// Which of `names` are present in the answer's `tokens`.
pub fn present(names: &[AuthorName], tokens: &[Token]) -> Vec<usize> {
    (0..names.len())
        .filter(|&i| names[i].present_in(tokens))
        .collect()
}

/// The first capitalised `Given Surname` pair in `tokens` that is not made of
/// excluded words (sentence openers, words of any known title, all-capital acronyms):
/// a name the answer presents that is not a known first author.
pub fn other_name(tokens: &[Token], excluded_words: &dyn Fn(&str) -> bool) -> Option<String> {
    let name_like = |token: &Token| {
        let bare = token.text.trim_end_matches('.');
        let mut chars = bare.chars();
        let capital = chars.next().is_some_and(char::is_uppercase);
        let acronym = bare.chars().count() > 1 && bare.chars().all(|c| !c.is_lowercase());
        capital && !acronym && !NOT_NAMES.contains(&bare) && !excluded_words(bare)
    };
    tokens.windows(2).find_map(|pair| {
        let (given, surname) = (&pair[0], &pair[1]);
        let surname_ok =
            surname.text.trim_end_matches('.').chars().count() >= 2 && !surname.sentence_start;
        (name_like(given) && name_like(surname) && surname_ok)
            .then(|| format!("{} {}", given.text, surname.text.trim_end_matches('.')))
    })
}

#[cfg(test)]
mod tests {
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
