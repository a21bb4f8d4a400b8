//! Titles in free text. A title is present when its normalised form occurs in the
//! normalised answer as whole words; a hyphenated word of the title may appear
//! hyphenated, as two words, or joined (`Low-Rank`, `Low Rank`, `LowRank`). A title
//! found only inside a longer title that is also found does not count on its own.

use crate::base::hash::{FastMap, WordKey};
use crate::verify::flat::group_flat;
use crate::verify::normalize::{contains_words, normalize};

/// The id of an answer's word that is in no title.
const UNKNOWN: u32 = u32::MAX;

/// The trie's root: the empty word sequence.
const ROOT: u32 = 0;

/// Every paper's title in its searchable forms, in a trie of words so that finding
/// every title in an answer costs a few lookups per word of the answer, however many
/// papers there are.
///
/// Lists of lists are kept flat (one vector of items and one of where each list
/// starts), so a million titles take a few allocations rather than a few million.
#[derive(Debug, Clone)]
pub(crate) struct TitleIndex {
    /// Every paper's normalised title variants (the normalised title itself first), one
    /// after the other: variant `v` ends at `variant_ends[v]`, and paper `p`'s are
    /// variants `variant_start[p]..variant_start[p + 1]`. One string, not a `String`
    /// a variant in a `Vec` a paper: two allocations a paper fewer.
    variant_text: String,
    variant_ends: Vec<usize>,
    variant_start: Vec<usize>,
    /// The vocabulary ids of each paper's distinct normalised words of three or more
    /// letters: paper `p`'s are `content[content_start[p]..content_start[p + 1]]`.
    content: Vec<u32>,
    content_start: Vec<usize>,
    /// Every word of every variant → its id.
    vocabulary: FastMap<WordKey, u32>,
    /// For each vocabulary id: whether it is a word of some title's normalised form
    /// (and not only of a variant that joins a hyphen's two sides).
    title_word: Vec<bool>,
    /// Whether some title normalises to nothing, whose one word is then the empty one.
    empty_title: bool,
    /// For each vocabulary id: the node of that word alone, if some variant begins
    /// with it, else [`UNKNOWN`]. The root's children are kept apart from
    /// [`TitleIndex::children`] because every word of an answer is looked up there:
    /// an array indexed by the id the word already has costs no second hash.
    root_children: Vec<u32>,
    /// (node, word id) → the node after that word, for nodes other than the root; a
    /// node is a word sequence that begins some variant.
    children: FastMap<(u32, u32), u32>,
    /// The papers having a variant that is exactly node `n`'s sequence, ascending
    /// (none for most nodes): `ends[end_start[n]..end_start[n + 1]]`.
    ends: Vec<usize>,
    end_start: Vec<usize>,
}

/// Variants of a title: each hyphen either a space or nothing (all 2^h choices for up
/// to 6 hyphens; beyond that, all spaced and all joined). `normalized` is the title's
/// [`normalize`]d form, which is the title's only variant when it has no hyphen.
///
/// The first variant (every hyphen a space) is `normalized` itself, since a hyphen and
/// a space both separate words; there is none when it is empty, since the variants
/// hold the same letters and digits.
pub(crate) fn variants(title: &str, normalized: String) -> Vec<String> {
    if !title.contains('-') {
        return if normalized.is_empty() {
            Vec::new()
        } else {
            vec![normalized]
        };
    }
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
    #[cfg(test)]
    pub(crate) fn new<'a>(titles: impl Iterator<Item = &'a str>) -> TitleIndex {
        let titles: Vec<(&str, String)> = titles.map(|title| (title, normalize(title))).collect();
        TitleIndex::with_normalized(titles.into_iter())
    }

    /// [`TitleIndex::new`] of titles given with their [`normalize`]d forms, made once
    /// for every use.
    pub(crate) fn with_normalized<'a>(
        titles: impl ExactSizeIterator<Item = (&'a str, String)>,
    ) -> TitleIndex {
        // Most titles end in a word of their own, so each adds about a word and a node.
        let papers = titles.len();
        let mut index = TitleIndex {
            variant_text: String::new(),
            variant_ends: Vec::with_capacity(papers),
            variant_start: Vec::with_capacity(papers + 1),
            content: Vec::with_capacity(4 * papers),
            content_start: Vec::with_capacity(papers + 1),
            vocabulary: FastMap::with_capacity_and_hasher(papers, Default::default()),
            title_word: Vec::with_capacity(papers),
            empty_title: false,
            root_children: Vec::with_capacity(papers),
            children: FastMap::with_capacity_and_hasher(papers, Default::default()),
            ends: Vec::new(),
            end_start: Vec::new(),
        };
        // The last paper ending at each node, and every (node, paper) end in paper
        // order, laid out flat once every node is known.
        let mut last_end: Vec<usize> = vec![usize::MAX];
        let mut ends: Vec<(u32, usize)> = Vec::with_capacity(papers);
        let mut ids: Vec<u32> = Vec::new();
        for (paper, (title, normalized)) in titles.enumerate() {
            index.empty_title |= normalized.is_empty();
            let forms = variants(title, normalized);
            // The first variant is the normalised title: its words are the title words,
            // and those of three or more letters the content words.
            ids.clear();
            for (number, form) in forms.iter().enumerate() {
                let mut node = ROOT;
                for word in form.split(' ') {
                    let id = index.word_id(word);
                    if number == 0 {
                        index.title_word[id as usize] = true;
                        if word.chars().count() >= 3 {
                            ids.push(id);
                        }
                    }
                    let mut new_node = || {
                        last_end.push(usize::MAX);
                        (last_end.len() - 1) as u32
                    };
                    node = if node == ROOT {
                        let child = &mut index.root_children[id as usize];
                        if *child == UNKNOWN {
                            *child = new_node();
                        }
                        *child
                    } else {
                        *index.children.entry((node, id)).or_insert_with(new_node)
                    };
                }
                if last_end[node as usize] != paper {
                    last_end[node as usize] = paper;
                    ends.push((node, paper));
                }
            }
            index.content_start.push(index.content.len());
            ids.sort_unstable();
            ids.dedup();
            index.content.extend_from_slice(&ids);
            index.variant_start.push(index.variant_ends.len());
            for form in &forms {
                index.variant_text.push_str(form);
                index.variant_ends.push(index.variant_text.len());
            }
        }
        index.variant_start.push(index.variant_ends.len());
        index.variant_text.shrink_to_fit();
        index.variant_ends.shrink_to_fit();
        index.content_start.push(index.content.len());
        // Each node's papers stay ascending, as they came.
        let (start, papers) = group_flat(last_end.len(), &ends);
        index.ends = papers;
        index.end_start = start;
        index
    }

    /// The id of a title word, added to the vocabulary if new.
    fn word_id(&mut self, word: &str) -> u32 {
        if let Some(&id) = self.vocabulary.get(word.as_bytes()) {
            return id;
        }
        let id = self.vocabulary.len() as u32;
        self.vocabulary.insert(WordKey::new(word), id);
        self.title_word.push(false);
        self.root_children.push(UNKNOWN);
        id
    }

    /// Whether `word` (normalised) is a word of some title's normalised form.
    pub(crate) fn is_title_word(&self, word: &str) -> bool {
        match self.vocabulary.get(word.as_bytes()) {
            Some(&id) => self.title_word[id as usize],
            None => word.is_empty() && self.empty_title,
        }
    }

    /// The normalised forms of `paper`'s title: the title itself, then its hyphen
    /// variants.
    pub(crate) fn variants(&self, paper: usize) -> impl Iterator<Item = &str> {
        (self.variant_start[paper]..self.variant_start[paper + 1]).map(move |variant| {
            let start = variant
                .checked_sub(1)
                .map_or(0, |before| self.variant_ends[before]);
            &self.variant_text[start..self.variant_ends[variant]]
        })
    }

    /// The node after `node` and the word of vocabulary id `word`, if some variant
    /// begins with that sequence.
    fn child(&self, node: u32, word: u32) -> Option<u32> {
        if node == ROOT {
            let child = self.root_children[word as usize];
            (child != UNKNOWN).then_some(child)
        } else {
            self.children.get(&(node, word)).copied()
        }
    }

    /// The papers having a variant that is exactly `node`'s sequence, ascending.
    fn ends(&self, node: u32) -> &[usize] {
        let node = node as usize;
        &self.ends[self.end_start[node]..self.end_start[node + 1]]
    }

    /// The words of `answer` (already normalised) as vocabulary ids, `u32::MAX` for a
    /// word of no title: computed once, then used to find titles and to count words.
    pub(crate) fn words(&self, answer: &str) -> Vec<u32> {
        // Split as bytes: a space is never inside a character, and the vocabulary is
        // keyed by bytes, so the words need not be checked as text again. Sized first:
        // grown from nothing, the vector of a long answer moved twice or more.
        let bytes = answer.as_bytes();
        let mut words = Vec::with_capacity(1 + bytes.iter().filter(|&&b| b == b' ').count());
        words.extend(
            bytes
                .split(|&byte| byte == b' ')
                .map(|word| self.vocabulary.get(word).copied().unwrap_or(UNKNOWN)),
        );
        words
    }

    /// The papers whose title is present in `answer` (already normalised), ascending.
    #[cfg(test)]
    pub(crate) fn present(&self, answer: &str) -> Vec<usize> {
        self.present_words(answer, &self.words(answer))
    }

    /// [`TitleIndex::present`] with the answer's [`TitleIndex::words`] already known.
    pub(crate) fn present_words(&self, answer: &str, words: &[u32]) -> Vec<usize> {
        // A variant occurs as whole words exactly when its word sequence is a run of the
        // answer's words: walk the trie from every word of the answer.
        let mut found: Vec<usize> = Vec::new();
        for start in 0..words.len() {
            let mut node = ROOT;
            for &word in &words[start..] {
                if word == UNKNOWN {
                    break;
                }
                let Some(next) = self.child(node, word) else {
                    break;
                };
                node = next;
                found.extend_from_slice(self.ends(node));
            }
        }
        found.sort_unstable();
        found.dedup();
        if found.len() < 2 {
            return found;
        }
        outside_longer(answer, found, &|paper| {
            self.variants(paper).map(str::to_string).collect()
        })
    }

    /// The share of `paper`'s words of three or more letters present as words of
    /// `answer` (normalised), with the counts, or `None` when it has no such words.
    #[cfg(test)]
    pub(crate) fn word_share(&self, paper: usize, answer: &str) -> Option<(usize, usize)> {
        self.word_share_words(paper, &self.words(answer))
    }

    /// [`TitleIndex::word_share`] with the answer's [`TitleIndex::words`] already known.
    pub(crate) fn word_share_words(&self, paper: usize, words: &[u32]) -> Option<(usize, usize)> {
        let ids = &self.content[self.content_start[paper]..self.content_start[paper + 1]];
        if ids.is_empty() {
            return None;
        }
        let present = ids.iter().filter(|id| words.contains(id)).count();
        Some((present, ids.len()))
    }
}

/// Of the papers `found` in `answer` (normalised; ascending), those whose title does
/// not count only as part of a longer title found in the same answer: a title inside a
/// longer one counts only where it occurs outside it. `variants` gives a paper's
/// normalised title forms.
pub(crate) fn outside_longer(
    answer: &str,
    found: Vec<usize>,
    variants: &dyn Fn(usize) -> Vec<String>,
) -> Vec<usize> {
    if found.len() < 2 {
        return found;
    }
    let forms: Vec<Vec<String>> = found.iter().map(|&paper| variants(paper)).collect();
    // Whether some variant of `long`'s title contains one of `short`'s as words.
    let contains_title = |long: usize, short: usize| {
        forms[short].iter().any(|s| {
            forms[long]
                .iter()
                .any(|l| l.len() > s.len() && contains_words(l, s))
        })
    };
    (0..found.len())
        .filter(|&short| {
            let longer: Vec<usize> = (0..found.len())
                .filter(|&long| long != short && contains_title(long, short))
                .collect();
            if longer.is_empty() {
                return true;
            }
            let mut rest = answer.to_string();
            for long in longer {
                for variant in &forms[long] {
                    rest = rest.replace(variant.as_str(), "~");
                }
            }
            forms[short].iter().any(|v| contains_words(&rest, v))
        })
        .map(|at| found[at])
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

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

    proptest! {
        #[test]
        fn the_trie_finds_the_titles_a_search_of_every_variant_finds(
            picks in proptest::collection::vec(0usize..16, 0..14),
        ) {
            let titles = [
                "Attention Is All You Need",
                "LoRA: Low-Rank Adaptation of Large Language Models",
                "Generative Adversarial Networks",
                "Conditional Generative Adversarial Networks",
                "All You Need",
            ];
            let index = TitleIndex::new(titles.into_iter());
            let pieces = ["attention", "is", "all", "you", "need", "lora", "low", "rank",
                "lowrank", "adaptation", "of", "large", "language", "models", "generative",
                "adversarial networks"];
            let extra = ["conditional", "needed", "x"];
            let answer: String = picks
                .iter()
                .map(|&p| if p % 7 == 6 { extra[p % 3] } else { pieces[p] })
                .collect::<Vec<_>>()
                .join(" ");
            let answer = normalize(&answer);
            let reference: Vec<usize> = (0..titles.len())
                .filter(|&paper| index.variants(paper).any(|v| contains_words(&answer, v)))
                .collect();
            let words = index.words(&answer);
            let mut found = Vec::new();
            for (paper, title) in titles.iter().enumerate() {
                let alone = TitleIndex::new(std::iter::once(*title));
                if !alone.present(&answer).is_empty() {
                    found.push(paper);
                }
            }
            prop_assert_eq!(&found, &reference, "each title alone");
            let all = index.present_words(&answer, &words);
            prop_assert!(all.iter().all(|p| reference.contains(p)), "{:?} {:?}", all, reference);
            for (paper, title) in titles.iter().enumerate() {
                let share = index.word_share(paper, &answer);
                let answer_words: std::collections::BTreeSet<&str> = answer.split(' ').collect();
                let title = normalize(title);
                let long: std::collections::BTreeSet<&str> = title
                    .split(' ')
                    .filter(|w| w.len() >= 3)
                    .collect::<std::collections::BTreeSet<_>>();
                let present = long.iter().filter(|w| answer_words.contains(*w)).count();
                prop_assert_eq!(share, Some((present, long.len())));
            }
        }
    }

    proptest! {
        #[test]
        fn title_words_are_the_words_of_the_normalised_titles(
            picks in proptest::collection::vec(0usize..12, 1..6),
            probe in "[a-z-]{0,12}",
        ) {
            let pieces = ["Low-Rank", "Adaptation", "of", "BERT:", "Pre-training", "!!!",
                "x-y-z", "Déjà", "vu", "-", "Attention", "e-mail"];
            let titles: Vec<String> = picks
                .chunks(2)
                .map(|chunk| chunk.iter().map(|&p| pieces[p]).collect::<Vec<_>>().join(" "))
                .collect();
            let index = TitleIndex::new(titles.iter().map(String::as_str));
            // The set the arxiv verifier kept before the index answered for it.
            let words: std::collections::BTreeSet<String> = titles
                .iter()
                .flat_map(|t| normalize(t).split(' ').map(str::to_string).collect::<Vec<_>>())
                .collect();
            for word in words.iter().map(String::as_str).chain([probe.as_str(), "", "lowrank", "xyz"]) {
                prop_assert_eq!(index.is_title_word(word), words.contains(word), "{:?}", word);
            }
        }
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
