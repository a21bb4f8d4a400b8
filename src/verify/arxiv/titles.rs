//! Titles in free text. A title is present when its normalised form occurs in the
//! normalised answer as whole words; a hyphenated word of the title may appear
//! hyphenated, as two words, or joined (`Low-Rank`, `Low Rank`, `LowRank`). A title
//! found only inside a longer title that is also found does not count on its own.

use std::collections::{BTreeMap, BTreeSet};

use crate::verify::normalize::{contains_words, normalize};

/// Every paper's title in its searchable forms, indexed by first word.
#[derive(Debug, Clone)]
pub struct TitleIndex {
    /// For each paper (by index): the normalised variants of its title.
    variants: Vec<Vec<String>>,
    /// First word of any variant → papers having a variant starting with it.
    by_first_word: BTreeMap<String, BTreeSet<usize>>,
    /// For each paper: its distinct normalised words of three or more letters.
    content_words: Vec<Vec<String>>,
}

/// Variants of a title: each hyphen either a space or nothing (all 2^h choices for up
/// to 6 hyphens; beyond that, all spaced and all joined).
fn variants(title: &str) -> Vec<String> {
    let pieces: Vec<&str> = title.split('-').collect();
    let hyphens = pieces.len() - 1;
    let choices: Vec<u32> = if hyphens <= 6 {
        (0..1u32 << hyphens).collect()
    } else {
        vec![0, (1u32 << 6) - 1]
    };
    let mut out = Vec::new();
    for mask in choices {
        let mut joined = String::from(pieces[0]);
        for (index, piece) in pieces[1..].iter().enumerate() {
            joined.push_str(if mask >> index.min(31) & 1 == 1 {
                ""
            } else {
                " "
            });
            joined.push_str(piece);
        }
        let normalized = normalize(&joined);
        if !normalized.is_empty() && !out.contains(&normalized) {
            out.push(normalized);
        }
    }
    out
}

impl TitleIndex {
    /// Indexes `titles` (one per paper, in paper order).
    pub fn new<'a>(titles: impl Iterator<Item = &'a str>) -> TitleIndex {
        let mut index = TitleIndex {
            variants: Vec::new(),
            by_first_word: BTreeMap::new(),
            content_words: Vec::new(),
        };
        for (paper, title) in titles.enumerate() {
            let forms = variants(title);
            for form in &forms {
                let first = form.split(' ').next().unwrap_or_default().to_string();
                index.by_first_word.entry(first).or_default().insert(paper);
            }
            let mut words: Vec<String> = normalize(title)
                .split(' ')
                .filter(|w| w.chars().count() >= 3)
                .map(str::to_string)
                .collect();
            words.sort();
            words.dedup();
            index.content_words.push(words);
            index.variants.push(forms);
        }
        index
    }

    /// The papers whose title is present in `answer` (already normalised), ascending.
    pub fn present(&self, answer: &str) -> Vec<usize> {
        let mut candidates = BTreeSet::new();
        for word in answer.split(' ') {
            if let Some(papers) = self.by_first_word.get(word) {
                candidates.extend(papers.iter().copied());
            }
        }
        let found: Vec<usize> = candidates
            .into_iter()
            .filter(|&paper| {
                self.variants[paper]
                    .iter()
                    .any(|v| contains_words(answer, v))
            })
            .collect();
        // A title that is part of a longer title found in the same answer counts only
        // where it occurs outside that longer title.
        found
            .iter()
            .copied()
            .filter(|&short| {
                let longer: Vec<usize> = found
                    .iter()
                    .copied()
                    .filter(|&long| long != short && self.contains_title(long, short))
                    .collect();
                if longer.is_empty() {
                    return true;
                }
                let mut rest = answer.to_string();
                for long in longer {
                    for variant in &self.variants[long] {
                        rest = rest.replace(variant.as_str(), "~");
                    }
                }
                self.variants[short]
                    .iter()
                    .any(|v| contains_words(&rest, v))
            })
            .collect()
    }

    /// Whether some variant of `long`'s title contains one of `short`'s as words.
    fn contains_title(&self, long: usize, short: usize) -> bool {
        self.variants[short].iter().any(|s| {
            self.variants[long]
                .iter()
                .any(|l| l.len() > s.len() && contains_words(l, s))
        })
    }

    /// The share of `paper`'s words of three or more letters present as words of
    /// `answer` (normalised), with the counts, or `None` when it has no such words.
    pub fn word_share(&self, paper: usize, answer: &str) -> Option<(usize, usize)> {
        let words = &self.content_words[paper];
        if words.is_empty() {
            return None;
        }
        let answer_words: BTreeSet<&str> = answer.split(' ').collect();
        let present = words
            .iter()
            .filter(|w| answer_words.contains(w.as_str()))
            .count();
        Some((present, words.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index() -> TitleIndex {
        TitleIndex::new(
            [
                "Attention Is All You Need",
                "LoRA: Low-Rank Adaptation of Large Language Models",
                "Generative Adversarial Networks",
                "Conditional Generative Adversarial Networks",
            ]
            .into_iter(),
        )
    }

    #[test]
    fn a_title_is_found_only_at_word_boundaries() {
        let index = index();
        assert_eq!(
            index.present(&normalize("It is \"Attention Is All You Need\".")),
            [0]
        );
        assert!(
            index
                .present(&normalize("attention is all you needed"))
                .is_empty()
        );
    }

    #[test]
    fn hyphenated_words_may_be_hyphenated_spaced_or_joined() {
        let index = index();
        for text in [
            "LoRA: Low-Rank Adaptation of Large Language Models",
            "lora low rank adaptation of large language models",
            "LoRA: LowRank Adaptation of Large Language Models",
        ] {
            assert_eq!(index.present(&normalize(text)), [1], "{text}");
        }
    }

    #[test]
    fn a_title_inside_a_longer_found_title_does_not_count_twice() {
        let index = index();
        assert_eq!(
            index.present(&normalize("Conditional Generative Adversarial Networks")),
            [3]
        );
        assert_eq!(
            index.present(&normalize(
                "Generative Adversarial Networks, or Conditional Generative Adversarial Networks"
            )),
            [2, 3],
            "the shorter title also stands on its own here: a hedge between two titles"
        );
    }

    #[test]
    fn word_share_counts_words_of_three_or_more_letters() {
        let index = index();
        // attention, all, you, need (is has two letters).
        assert_eq!(
            index.word_share(0, &normalize("attention you need")),
            Some((3, 4))
        );
    }
}
