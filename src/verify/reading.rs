//! How the benchmark verifiers read an answer as a person would, in one place so that
//! `numeric`, `choice` and `short` read alike: the text is folded first (full-width
//! letters and digits to ASCII, invisible characters gone, curly apostrophes straight);
//! a candidate that a negation rejects (`not 42`, `I won't say B`, `C is wrong`) is no
//! answer; a reason (`because ...`) ends the answer; and an output that says it will
//! not or cannot answer is a refusal. The word lists are judgements, written out in
//! docs/grading.md with their reasons.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// `text` as the verifiers read it: full-width forms (U+FF01–U+FF5E: `Ｂ`, `４２`, `：`)
/// as their ASCII letters, digits and signs, the ideographic space as a space, the
/// invisible zero-width characters (U+200B–U+200D, U+2060, U+FEFF) removed, and curly
/// apostrophes (U+2018, U+2019) straight. Nothing else changes: superscripts
/// (`10²`) and other scripts' digits stay as written.
pub(crate) fn fold(text: &str) -> Cow<'_, str> {
    let changes = |c: char| matches!(c, '\u{FF01}'..='\u{FF5E}' | '\u{3000}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' | '\u{2018}' | '\u{2019}');
    if text.is_ascii() || !text.chars().any(changes) {
        return Cow::Borrowed(text);
    }
    let mut folded = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{FF01}'..='\u{FF5E}' => {
                folded.push(char::from_u32(u32::from(c) - 0xFEE0).unwrap_or(c));
            }
            '\u{3000}' => folded.push(' '),
            '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}' => {}
            '\u{2018}' | '\u{2019}' => folded.push('\''),
            _ => folded.push(c),
        }
    }
    Cow::Owned(folded)
}

/// Words that reject the candidate after them in their clause: `not 42`, `never B`,
/// `I won't say 42`, `rather than 41`, `neither A nor C`.
static NEGATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:not|never|neither|nor|isn'?t|aren'?t|wasn'?t|weren'?t|won'?t|wouldn'?t|can'?t|cannot|don'?t|doesn'?t|didn'?t|shouldn'?t|couldn'?t|rather\s+than|instead\s+of|other\s+than|except|excluding|rule\s+out|ruled\s+out|eliminate)\b",
    )
    .expect("the negator pattern is valid")
});

/// What ends a clause, so that a negation before it reaches no further: punctuation
/// (`not 42, it is 43`) and the words that turn to another statement (`not 41 but 42`).
static CLAUSE_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)[,;:!?\n]|\.\s|\b(?:but|rather|instead|so|then|because|since|though|although|however|it'?s|it\s+is|it\s+was)\b",
    )
    .expect("the clause pattern is valid")
});

/// What, right after a candidate, says it is not the answer: `42 is wrong`, `C is not
/// right`, `B isn't correct`, `A can be ruled out`.
static REJECTED_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^[\s)\]*_$%]*(?:(?:is|was|are|were|would\s+be|seems?|looks?)\s+(?:(?:definitely|clearly|obviously|also|simply|just|certainly)\s+)?(?:wrong|incorrect|false|invalid|impossible|a\s+mistake|an\s+error|ruled\s+out|eliminated|out|not\s+(?:right|correct|true|valid|possible|it|the\s+(?:right\s+|correct\s+|final\s+)?answer))|(?:isn'?t|wasn'?t|aren'?t)\s+(?:right|correct|true|valid|it|the\s+(?:right\s+|correct\s+|final\s+)?answer)|(?:can|could)\s+be\s+(?:ruled\s+out|eliminated))\b",
    )
    .expect("the rejection pattern is valid")
});

/// Where a reason starts: the answer before it is the answer, the candidates after it
/// are the reason's (`B because C is not right`).
static REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:because|since|as\s+(?:it|this|that|the)|due\s+to|given\s+that)\b")
        .expect("the reason pattern is valid")
});

/// An output that says it will not or cannot answer.
static REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:do\s+not|don'?t|does\s+not|doesn'?t)\s+know\b|\bnot\s+(?:sure|certain)\b|\bno\s+idea\b|\bunsure\b|\bcannot\s+be\s+determined\b|\b(?:cannot|can'?t|can\s+not|unable\s+to|won'?t|will\s+not|refuse\s+to|decline\s+to|would\s+rather\s+not|i'?d\s+rather\s+not)\s+(?:\w+\s+){0,2}?(?:say|answer|solve|determine|tell|choose|pick|select|give|help|provide|commit|decide|guess|know)\b|\b(?:need|needs|needed|require|requires)\s+more\s+(?:information|context|details|data)\b|\b(?:not\s+enough|insufficient)\s+(?:information|context|details|data)\b",
    )
    .expect("the refusal pattern is valid")
});

/// At most this many different answers offered side by side are a hedge among them;
/// more are a list, which is no answer (`numeric` and `short`; `choice` has its own
/// bound, half the options). Ten is also how many numbers feedback names.
pub(crate) const MOST_HEDGED: usize = 10;

/// At most this many bytes after a candidate are read for a rejection (`is wrong`).
const AFTER_BYTES: usize = 80;

/// Whether `output` refuses to answer: `I don't know`, `not sure`, `no idea`, `I
/// cannot answer`, `I won't say`, `I would need more information`.
pub(crate) fn refuses(output: &str) -> bool {
    REFUSAL.is_match(&fold(output))
}

/// Where the first reason in `text` starts (`because`, `since`, `due to`).
pub(crate) fn reason_start(text: &str) -> Option<usize> {
    REASON.find(text).map(|m| m.start())
}

/// Whether a clause ends between two places of one text (`gap` is the text between).
pub(crate) fn clause_breaks(gap: &str) -> bool {
    CLAUSE_BREAK.is_match(gap)
}

/// Whether the text right after a candidate rejects it (`is wrong`, `is not right`).
pub(crate) fn rejected_after(after: &str) -> bool {
    // Every rejection starts with one of these letters after the closing marks: most
    // candidates are followed by something else, and need no pattern run.
    let first = after
        .bytes()
        .find(|b| !(b.is_ascii_whitespace() || b")]*_$%".contains(b)));
    if !first.is_some_and(|b| b"iIwWaAsSlLcC".contains(&b)) {
        return false;
    }
    let mut cut = after.len().min(AFTER_BYTES);
    while !after.is_char_boundary(cut) {
        cut -= 1;
    }
    REJECTED_AFTER.is_match(&after[..cut])
}

/// Which of the candidates of `text` (their byte spans, in order, not overlapping) a
/// negation rejects: the first candidate after a negator in the same clause, with the
/// candidates `joined` to it (`not 41 or 43`), and a candidate followed by a rejection
/// (`42 is wrong`), with those joined to it before it (`41 or 42 are wrong`). `joined`
/// says whether the text between two candidates joins them into one list. Time:
/// O(text + candidates · log candidates).
pub(crate) fn rejected(
    text: &str,
    spans: &[(usize, usize)],
    joined: impl Fn(&str) -> bool,
) -> Vec<bool> {
    let mut rejected = vec![false; spans.len()];
    if spans.is_empty() {
        return rejected;
    }
    // Overlapping candidates (two options' texts sharing words) have no text between.
    let joined_at = |i: usize| joined(text.get(spans[i - 1].1..spans[i].0).unwrap_or(""));
    for negator in NEGATOR.find_iter(text) {
        let first = spans.partition_point(|&(start, _)| start < negator.end());
        if first == spans.len()
            || rejected[first]
            || clause_breaks(&text[negator.end()..spans[first].0])
        {
            continue;
        }
        rejected[first] = true;
        let mut next = first + 1;
        while next < spans.len() && joined_at(next) {
            rejected[next] = true;
            next += 1;
        }
    }
    for i in 0..spans.len() {
        if !rejected[i] && rejected_after(&text[spans[i].1..]) {
            rejected[i] = true;
            let mut before = i;
            while before > 0 && joined_at(before) {
                before -= 1;
                rejected[before] = true;
            }
        }
    }
    rejected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_reads_full_width_forms_and_drops_invisible_characters() {
        assert_eq!(fold("Answer: Ｂ"), "Answer: B");
        assert_eq!(fold("答案：４２"), "答案:42");
        assert_eq!(fold("Paris\u{200b}"), "Paris");
        assert_eq!(fold("I won\u{2019}t say"), "I won't say");
        assert_eq!(fold("a\u{3000}b"), "a b");
        // Superscripts and other scripts' digits are not folded: `10²` is not 102.
        assert_eq!(fold("10² ٤٢ 𝟒𝟐"), "10² ٤٢ 𝟒𝟐");
        assert!(matches!(fold("plain ascii"), Cow::Borrowed(_)));
        assert!(matches!(fold("déjà vu"), Cow::Borrowed(_)));
    }

    /// The spans of the digit runs of `text`, and which of them a negation rejects,
    /// runs joined by ` or `.
    fn rejected_numbers(text: &str) -> Vec<(&str, bool)> {
        let mut spans = Vec::new();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at].is_ascii_digit() {
                let start = at;
                while at < bytes.len() && bytes[at].is_ascii_digit() {
                    at += 1;
                }
                spans.push((start, at));
            } else {
                at += 1;
            }
        }
        let flags = rejected(text, &spans, |gap| gap.trim() == "or");
        spans
            .iter()
            .zip(flags)
            .map(|(&(s, e), flag)| (&text[s..e], flag))
            .collect()
    }

    #[test]
    fn a_negation_rejects_the_first_candidate_after_it_in_its_clause() {
        assert_eq!(
            rejected_numbers("not 42, it is 43"),
            [("42", true), ("43", false)]
        );
        assert_eq!(
            rejected_numbers("It is not 41 but 42"),
            [("41", true), ("42", false)]
        );
        assert_eq!(
            rejected_numbers("not 41 or 43; 42"),
            [("41", true), ("43", true), ("42", false)]
        );
        assert_eq!(rejected_numbers("I won't say 42."), [("42", true)]);
        assert_eq!(rejected_numbers("I'm not sure, but 42"), [("42", false)]);
        assert_eq!(
            rejected_numbers("42 is wrong; the correct value is 43"),
            [("42", true), ("43", false)]
        );
        assert_eq!(
            rejected_numbers("41 or 42 are wrong, 43"),
            [("41", true), ("42", true), ("43", false)]
        );
        assert_eq!(rejected_numbers("Nothing 42"), [("42", false)]);
        assert_eq!(rejected_numbers("knot 42"), [("42", false)]);
    }

    #[test]
    fn refusals_are_told_from_answers() {
        for refusal in [
            "I don't know.",
            "I do not know the answer",
            "Not sure.",
            "No idea",
            "I cannot answer that.",
            "I won't say 42.",
            "I won\u{2019}t choose B.",
            "I would need more information to solve this problem.",
            "There is not enough information.",
        ] {
            assert!(refuses(refusal), "{refusal}");
        }
        for answer in ["42", "The answer is B.", "It cannot be negative, so 7.", ""] {
            assert!(!refuses(answer), "{answer}");
        }
    }

    #[test]
    fn a_reason_starts_at_because_and_its_kin() {
        assert_eq!(reason_start("B because C is not right"), Some(2));
        assert_eq!(reason_start("42 since 6 × 7 = 42"), Some(3));
        assert_eq!(reason_start("Becausewhy"), None);
    }
}
