//! The word lists of [`super::Offered`]'s reading: which words are never an answer
//! offered, which join a list, which negate, which may stand inside a name or title.
//! Each is a judgement, written out in docs/grading.md with its reason.

/// Words that are never a name or a title offered as an answer: function words, the
/// words that lead into or follow an answer, hedges, markers of several languages,
/// months and LaTeX commands. Lowercase, sorted (looked up by binary search).
#[rustfmt::skip]
pub(super) const NEVER_NAMES: &[&str] = &[
    "a", "about", "above", "according", "actually", "after", "again", "al", "all", "also",
    "alternatively", "alternatives", "although", "am", "an", "and", "another", "answer",
    "answers", "antwort", "any", "april", "are", "aren", "around", "as", "at", "august",
    "author", "authors", "be", "because", "been", "before", "being", "believe", "best",
    "between", "both", "boxed", "brain", "but", "by", "called", "can", "candidate",
    "candidates", "cannot", "certain", "certainly", "check", "checked", "choice", "choose",
    "clearly", "correct", "could", "couldn", "d", "da", "das", "de", "december", "deepmind",
    "definitely", "del", "della", "den", "der", "di", "did", "didn", "do", "does", "doesn",
    "don", "done", "dos", "dr", "du", "due", "each", "either", "else", "emph", "et",
    "every", "facebook", "false", "february", "final", "finally", "first", "for", "frac",
    "from", "good", "google", "great", "guess", "had", "has", "have", "he", "hello",
    "hence", "her", "here", "hers", "hi", "him", "his", "hmm", "hope", "how", "however",
    "i", "idea", "if", "in", "indeed", "institute", "is", "isn", "it", "its", "january",
    "jawaban", "july", "june", "just", "know", "la", "lab", "labs", "last", "le", "least",
    "let", "lets", "like", "likely", "ll", "m", "march", "mathbf", "mathrm", "may", "maybe",
    "me", "meta", "microsoft", "might", "mine", "more", "most", "mr", "mrs", "ms", "must",
    "my", "name", "named", "neither", "never", "next", "no", "none", "nor", "not", "note",
    "nothing", "november", "now", "october", "of", "ok", "okay", "on", "one", "openai",
    "option", "options", "or", "other", "others", "otherwise", "our", "paper", "perhaps",
    "please", "possibilities", "possibility", "possible", "possibly", "probably", "prof",
    "professor", "question", "rather", "re", "really", "reponse", "research", "response",
    "resposta", "respuesta", "result", "right", "risposta", "s", "said", "say", "second",
    "september", "she", "should", "shouldn", "since", "so", "solution", "some", "sorry",
    "stanford", "still", "sure", "surely", "t", "ten", "ter", "text", "textbf", "than",
    "thank", "thanks", "that", "the", "their", "them", "then", "there", "therefore",
    "these", "they", "think", "this", "those", "though", "thus", "title", "titled", "to",
    "too", "true", "uh", "um", "university", "unknown", "unsure", "up", "us", "van", "ve",
    "very", "via", "von", "vs", "was", "wasn", "we", "well", "were", "weren", "what",
    "when", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "won",
    "would", "wouldn", "wrong", "year", "yes", "yet", "you", "your",
];

/// Words that end one item and start the next, as list punctuation does: the words
/// that join a list, start a reason, hedge (`maybe X perhaps Y`) or negate (`not X not
/// Y`: these verifiers read a known value after `not` as named, so a made-up one is
/// read alike), and `paper` (`the paper X the paper Y`).
pub(super) const LIST_WORDS: &[&str] = &[
    "and", "as", "because", "either", "likely", "maybe", "neither", "never", "no", "nor", "not",
    "or", "paper", "perhaps", "possibly", "probably", "since", "versus", "vs",
];

/// The verbs that make the words before an answer a statement.
pub(super) const COPULAS: &[&str] = &["are", "be", "is", "was", "were"];

/// What a statement that leads into the answer is about.
pub(super) const SUBJECTS: &[&str] = &[
    "answer", "author", "best", "called", "choice", "correct", "final", "it", "name", "named",
    "option", "right", "that", "this", "title", "titled",
];

/// Small words that may stand between the name-like words of one offered answer
/// (`Tree of Thoughts`, `Aaron van den Oord`).
pub(super) const JOINERS: &[&str] = &[
    "a", "an", "da", "de", "del", "della", "den", "der", "di", "du", "for", "in", "la", "le", "of",
    "on", "the", "to", "van", "von", "with",
];

/// From this many name-like words on, an item offers an answer whatever
/// [`super::Reader::short_needs`] says: four capitalised words in a row are a title or a list.
pub(super) const SURE_WORDS: usize = 4;

/// An item of more words than this is no one answer: where the output names a known
/// value it is a run of answers, as beside that value; where it names none it is prose
/// or a list, and no answer (a paragraph of lower-case words is not a made-up title).
pub(super) const LONGEST_ANSWER: usize = 30;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_lists_are_sorted_for_binary_search() {
        for list in [NEVER_NAMES, LIST_WORDS, JOINERS, COPULAS, SUBJECTS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{:?}", list);
        }
    }
}
