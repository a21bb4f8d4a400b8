//! Who an answer names as first author, from the words at each known surname. A
//! surname with a given name or initial names the known first authors it fits
//! (`Yang Song` is Yang Song, not Jiaming Song), or another person when it fits none
//! (`Xi Chen` where only Xinlei Chen is known). A bare surname names every known first
//! author of that surname, unless the answer also gives a full name with it (`Yang
//! Song ... Song et al.` names one person). Each candidate keeps the answer's own
//! words, so feedback quotes only what the answer said.

use std::borrow::{Borrow, Cow};

use super::authors::{AuthorName, Reading, Tokens, is_name_word};

/// What the answer says at one known surname.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mention {
    /// The known first authors (positions, ascending) the words fit; none for another
    /// person of that surname.
    pub names: Vec<usize>,
    /// The answer's words: given names, particles and surname, or the surname alone.
    pub quote: String,
    /// The surname's last word.
    pub core: String,
    /// Whether given names or initials came with the surname.
    pub full: bool,
    /// The answer's words it spans: its first word and its surname.
    pub words: (usize, usize),
}

/// The mentions at the surnames of `tokens`, in answer order, examining only the
/// names `named` gives under each word of the answer (those of a
/// [`SurnameIndex`](super::authors::SurnameIndex),
/// ascending); `name` gives the name at a position and `excluded` the words that
/// cannot be names (words of known titles).
pub(crate) fn mentions<'i, N: Borrow<AuthorName>>(
    named: &dyn Fn(&str) -> Cow<'i, [u32]>,
    name: impl Fn(usize) -> N,
    tokens: &Tokens,
    excluded: &dyn Fn(&str) -> bool,
) -> Vec<Mention> {
    let name_word = |word: &str| is_name_word(word, excluded);
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let core = tokens.text(i).trim_end_matches('.');
        let named = named(core);
        if named.is_empty() {
            continue;
        }
        let readings = named.iter().filter_map(|&position| {
            let position = position as usize;
            let reading = name(position).borrow().reading_at(tokens, i, &name_word)?;
            Some((position, reading))
        });
        if let Some(mention) = at_surname(readings, tokens, i) {
            found.push(mention);
        }
    }
    without_given_names(found)
}

/// [`mentions`] examining every name at every word: the reference for the index.
#[cfg(test)]
pub(crate) fn mentions_examining_all(
    names: &[AuthorName],
    tokens: &Tokens,
    excluded: &dyn Fn(&str) -> bool,
) -> Vec<Mention> {
    let name_word = |word: &str| is_name_word(word, excluded);
    let found = (0..tokens.len())
        .filter_map(|i| {
            let readings = names.iter().enumerate().filter_map(|(position, name)| {
                Some((position, name.reading_at(tokens, i, &name_word)?))
            });
            at_surname(readings, tokens, i)
        })
        .collect();
    without_given_names(found)
}

/// The mention at surname token `i` from each name's reading there: the names a given
/// name fits, else another person when name words fit none, else the bare surname's
/// names.
fn at_surname(
    readings: impl Iterator<Item = (usize, Reading)>,
    tokens: &Tokens,
    i: usize,
) -> Option<Mention> {
    let (mut given, mut bare) = (Vec::new(), Vec::new());
    let (mut given_start, mut stranger_start) = (None, None);
    for (position, reading) in readings {
        match reading {
            // The names whose given words stand nearest the surname: in `W. Rae Zhuang
            // Liu`, Zhuang Liu (`Zhuang`), not Wei Liu (`W.`, three words off), so the
            // words before `Zhuang` stay free to name another person (Jack W. Rae).
            Reading::Given { start } if given_start.is_none_or(|s| start > s) => {
                given = vec![position];
                given_start = Some(start);
            }
            Reading::Given { start } if given_start == Some(start) => given.push(position),
            Reading::Given { .. } => {}
            Reading::Stranger { start } => {
                stranger_start = Some(stranger_start.map_or(start, |s: usize| s.max(start)));
            }
            Reading::Bare => bare.push(position),
        }
    }
    let core = tokens.text(i).trim_end_matches('.').to_string();
    let (names, start, full) = if let Some(given_start) = given_start {
        (given, given_start, true)
    } else if let Some(start) = stranger_start {
        (Vec::new(), start, true)
    } else if !bare.is_empty() {
        (bare, i, false)
    } else {
        return None;
    };
    Some(Mention {
        names,
        quote: tokens.quote(start, i),
        core,
        full,
        words: (start, i),
    })
}

/// `found` without the mentions whose surname is a given name of a later one (`Wei`
/// in `Wei Liu`, where Wei is also a known surname). Only a kept mention's words
/// count: in `Patrick Esser Wei Liu` the reading of `Patrick Esser Wei` as one
/// stranger falls (its `Wei` is Wei Liu's), and with it its claim on `Esser`, so
/// Patrick Esser stays named. Read from the last mention back, as each depends only
/// on the ones after it.
fn without_given_names(found: Vec<Mention>) -> Vec<Mention> {
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut kept: Vec<Mention> = Vec::with_capacity(found.len());
    for mention in found.into_iter().rev() {
        let at = mention.words.1;
        if spans
            .iter()
            .any(|&(first, surname)| first <= at && at < surname)
        {
            continue;
        }
        if mention.full {
            spans.push(mention.words);
        }
        kept.push(mention);
    }
    kept.reverse();
    kept
}

/// One person (or one set of people, for words that fit several) the answer names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Candidate {
    /// The known first authors it may be, one a person; none for a stranger.
    pub names: Vec<usize>,
    /// The answer's words for it.
    pub quote: String,
}

/// The distinct candidates of `mentions`, in answer order. `same_person` says whether
/// two known names are one person (two spellings of one name). A bare surname adds no
/// candidate when a full name with that surname is given; words that fit several
/// people add none when one of those people is named alone.
pub(crate) fn candidates(
    mentions: Vec<Mention>,
    same_person: impl Fn(usize, usize) -> bool,
) -> Vec<Candidate> {
    let full_cores: Vec<&str> = mentions
        .iter()
        .filter(|m| m.full)
        .map(|m| m.core.as_str())
        .collect();
    let mut found: Vec<Candidate> = Vec::new();
    for mention in &mentions {
        if !mention.full && full_cores.contains(&mention.core.as_str()) {
            continue;
        }
        // One name a person: later spellings of a person already listed are dropped.
        let mut people: Vec<usize> = Vec::new();
        for &name in &mention.names {
            if !people.iter().any(|&p| same_person(p, name)) {
                people.push(name);
            }
        }
        let same = |candidate: &Candidate| {
            if people.is_empty() {
                return candidate.names.is_empty() && candidate.quote == mention.quote;
            }
            candidate.names.len() == people.len()
                && people
                    .iter()
                    .all(|&p| candidate.names.iter().any(|&n| same_person(n, p)))
        };
        if !found.iter().any(same) {
            found.push(Candidate {
                names: people,
                quote: mention.quote.clone(),
            });
        }
    }
    let alone: Vec<usize> = found
        .iter()
        .filter(|c| c.names.len() == 1)
        .map(|c| c.names[0])
        .collect();
    found.retain(|candidate| {
        candidate.names.len() < 2
            || !candidate
                .names
                .iter()
                .any(|&name| alone.iter().any(|&a| same_person(a, name)))
    });
    found
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::verify::arxiv::authors::SurnameIndex;
    use crate::verify::arxiv::authors::tokens;

    const NAMES: [&str; 14] = [
        "Kaiming He",
        "Ian J. Goodfellow",
        "Xi Chen",
        "Xinlei Chen",
        "Aaron van den Oord",
        "Jiaming Song",
        "Yang Song",
        "Diederik P. Kingma",
        "Diederik P Kingma",
        "Tsung-Yi Lin",
        "Bernhard Schölkopf",
        "Ashish Vaswani",
        "Jason Wei",
        "Wei Liu",
    ];

    fn names() -> Vec<AuthorName> {
        NAMES.iter().map(|n| AuthorName::parse(n)).collect()
    }

    fn said(answer: &str) -> Vec<(Vec<usize>, String)> {
        let names = names();
        let index = SurnameIndex::new(&names);
        let no_titles = |_: &str| false;
        let found = mentions(
            &|core| Cow::Borrowed(index.named(core)),
            |i| &names[i],
            &tokens(answer),
            &no_titles,
        );
        let same = |a: usize, b: usize| names[a].person() == names[b].person();
        candidates(found, same)
            .into_iter()
            .map(|c| (c.names, c.quote))
            .collect()
    }

    fn one(names: &[usize], quote: &str) -> Vec<(Vec<usize>, String)> {
        vec![(names.to_vec(), quote.to_string())]
    }

    #[test]
    fn a_given_name_picks_the_person_among_namesakes() {
        assert_eq!(
            said("The first author is Yang Song."),
            one(&[6], "Yang Song")
        );
        assert_eq!(said("It was led by Xi Chen."), one(&[2], "Xi Chen"));
        assert_eq!(
            said("Xinlei Chen is listed first."),
            one(&[3], "Xinlei Chen")
        );
        assert_eq!(said("I. J. Goodfellow"), one(&[1], "I. J. Goodfellow"));
        assert_eq!(
            said("Diederik Pieter Kingma"),
            one(&[7], "Diederik Pieter Kingma")
        );
    }

    #[test]
    fn a_given_name_that_fits_no_namesake_is_another_person() {
        assert_eq!(said("It was Ting Chen."), one(&[], "Ting Chen"));
        assert_eq!(
            said("It was Ashok van den Oord."),
            one(&[], "Ashok van den Oord")
        );
    }

    #[test]
    fn a_bare_surname_names_every_namesake_unless_a_full_name_is_given() {
        assert_eq!(said("The first author is Chen."), one(&[2, 3], "Chen"));
        assert_eq!(said("Song et al. (2020)"), one(&[5, 6], "Song"));
        assert_eq!(said("Yang Song; see Song et al."), one(&[6], "Yang Song"));
        assert_eq!(said("It was Goodfellow."), one(&[1], "Goodfellow"));
        assert_eq!(
            said("X. Chen, that is Xinlei Chen"),
            one(&[3], "Xinlei Chen")
        );
    }

    #[test]
    fn several_people_are_several_candidates_and_spellings_of_one_are_one() {
        assert_eq!(
            said("Either J. Song or Y. Song."),
            vec![
                (vec![5], "J. Song".to_string()),
                (vec![6], "Y. Song".to_string())
            ]
        );
        assert_eq!(
            said("Diederik P. Kingma (Diederik Kingma)"),
            one(&[7], "Diederik P. Kingma")
        );
        assert_eq!(said("X. Chen"), one(&[2, 3], "X. Chen"));
    }

    #[test]
    fn a_known_surname_used_as_a_given_name_is_not_a_mention() {
        // `Song` is a known surname; in `Song Chen` it is Chen's given name.
        assert_eq!(said("It was Song Chen."), one(&[], "Song Chen"));
        assert_eq!(
            said("Either Yang Song or Xi Chen."),
            vec![
                (vec![6], "Yang Song".to_string()),
                (vec![2], "Xi Chen".to_string())
            ]
        );
    }

    #[test]
    fn a_reading_that_falls_claims_no_words_of_the_names_before_it() {
        // `Song` could end a stranger `Ashish Vaswani Song`, but it is Chen's given
        // name; Ashish Vaswani is still named (the listing `... Patrick Esser Wei Liu`).
        assert_eq!(
            said("Ashish Vaswani Song Chen"),
            vec![
                (vec![11], "Ashish Vaswani".to_string()),
                (vec![], "Song Chen".to_string())
            ]
        );
        // `Wei` twice: Jason Wei's surname, then Wei Liu's given name.
        assert_eq!(
            said("Jason Wei Wei Liu"),
            vec![
                (vec![12], "Jason Wei".to_string()),
                (vec![13], "Wei Liu".to_string())
            ]
        );
        assert_eq!(
            said("Tsung-Yi Lin\nSong Chen\nKaiming He"),
            vec![
                (vec![9], "Tsung-Yi Lin".to_string()),
                (vec![], "Song Chen".to_string()),
                (vec![0], "Kaiming He".to_string())
            ]
        );
    }

    #[test]
    fn punctuation_or_a_sentence_end_parts_a_given_name_from_a_surname() {
        // `Xi, Chen` and `Xi. Chen` are not the name Xi Chen: the bare surname stands.
        assert_eq!(said("They cite Xi, Chen and others."), one(&[2, 3], "Chen"));
        assert_eq!(said("They cite Xi. Then Chen."), one(&[2, 3], "Chen"));
        assert_eq!(said("It is Xi\nChen, wrapped."), one(&[2], "Xi Chen"));
        assert_eq!(said("He wrote it."), vec![]);
        assert_eq!(said("The pronoun He et al. is a name."), one(&[0], "He"));
    }

    proptest! {
        #[test]
        fn the_surname_index_finds_what_examining_every_name_finds(
            picks in proptest::collection::vec((0usize..11, 0usize..11), 0..8),
        ) {
            let names = names();
            let pieces = ["He", "K.", "et al.", "Chen", "Xi", "van den Oord", "Song",
                "Kingma", "Y.", "Ian", ". ", " ", "wrote it", "Oord", "Jiaming", ", ",
                "T.-Y.", "Lin", "Schölkopf", "Vaswani", "Ashok", "X."];
            let answer: String = picks
                .iter()
                .map(|&(a, b)| format!("{} {}", pieces[a + b], pieces[(a * 3 + b) % pieces.len()]))
                .collect::<Vec<_>>()
                .join(" ");
            let tokens = tokens(&answer);
            let no_titles = |_: &str| false;
            let surnames = SurnameIndex::new(&names);
            prop_assert_eq!(
                mentions(&|core| Cow::Borrowed(surnames.named(core)), |i| &names[i], &tokens, &no_titles),
                mentions_examining_all(&names, &tokens, &no_titles)
            );
        }
    }
}
