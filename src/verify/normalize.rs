//! Text normalisation shared by the graders: Unicode compatibility decomposition with
//! combining marks removed, lowercase, every non-alphanumeric character a space, runs
//! of spaces collapsed. Presence is tested on whole words of the normalised text.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// `text` folded for comparison: `"Déjà-vu, Now!"` becomes `"deja vu now"`.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() {
        return normalize_ascii(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.nfkd() {
        if is_combining_mark(c) {
            continue;
        }
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.extend(c.to_lowercase());
        } else {
            pending_space = true;
        }
    }
    out
}

/// Each byte's lowercase if it is an ASCII letter or digit, else 0.
static ASCII_FOLD: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        if b.is_ascii_alphanumeric() {
            table[byte] = b.to_ascii_lowercase();
        }
        byte += 1;
    }
    table
};

/// [`normalize`] for ASCII text, where decomposition changes nothing: the fast path
/// for the common case, a table lookup per byte.
fn normalize_ascii(text: &str) -> String {
    // Never longer than the text: a space is written only for a run of other bytes
    // after a letter or digit. Writing at an index into a buffer of that length costs
    // less a byte than `push`.
    let mut out = vec![0u8; text.len()];
    let mut len = 0;
    let mut pending_space = false;
    for &byte in text.as_bytes() {
        let folded = ASCII_FOLD[usize::from(byte)];
        if folded == 0 {
            pending_space = len > 0;
            continue;
        }
        if pending_space {
            out[len] = b' ';
            len += 1;
            pending_space = false;
        }
        out[len] = folded;
        len += 1;
    }
    out.truncate(len);
    String::from_utf8(out).expect("ASCII letters, digits and spaces are UTF-8")
}

/// `text` with compatibility decomposition and marks removed, case and punctuation
/// kept: `"Schölkopf"` becomes `"Scholkopf"`. Names are matched on this form.
pub fn fold_marks(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    text.nfkd().filter(|c| !is_combining_mark(*c)).collect()
}

/// Whether `needle` (normalised, non-empty) occurs in `haystack` (normalised) as whole
/// words: `"all you need"` is in `"is all you need"` but not in `"all you needed"`.
pub fn contains_words(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let bytes = haystack.as_bytes();
    let mut start = 0;
    while let Some(offset) = haystack[start..].find(needle) {
        let at = start + offset;
        let end = at + needle.len();
        let left = at == 0 || bytes[at - 1] == b' ';
        let right = end == bytes.len() || bytes[end] == b' ';
        if left && right {
            return true;
        }
        start = at + 1;
        while !haystack.is_char_boundary(start) {
            start += 1;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NFKD, lowercase, alphanumeric runs joined by one space: the general path
    /// written out plainly.
    fn general_path(text: &str) -> String {
        let mut out = String::new();
        let mut pending = false;
        for c in text.nfkd() {
            if c.is_alphanumeric() {
                if pending && !out.is_empty() {
                    out.push(' ');
                }
                pending = false;
                out.extend(c.to_lowercase());
            } else {
                pending = true;
            }
        }
        out
    }

    #[test]
    fn folds_case_marks_punctuation_and_spaces() {
        assert_eq!(normalize("  Déjà-vu,  Now! "), "deja vu now");
        assert_eq!(normalize("ﬁne Ａ"), "fine a");
        assert_eq!(normalize("BERT: Pre-training"), "bert pre training");
        assert_eq!(normalize("!!!"), "");
    }

    #[test]
    fn whole_words_only() {
        assert!(contains_words(
            "it is attention is all you need",
            "attention is all you need"
        ));
        assert!(!contains_words(
            "attention is all you needed",
            "attention is all you need"
        ));
        assert!(!contains_words(
            "xattention is all you need",
            "attention is all you need"
        ));
        assert!(contains_words("a b a bc", "a bc"));
        assert!(!contains_words("abc", ""));
    }

    #[test]
    fn the_ascii_fast_path_agrees_with_the_general_one() {
        for text in [
            "  Hello, World!  ",
            "a--b__c",
            "LoRA: Low-Rank",
            "",
            "x1.2y",
            "TAB\there",
        ] {
            let general = general_path(text);
            assert_eq!(normalize(text), general, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_ascii_fast_path_agrees_with_the_general_one_on_any_ascii(
            text in "[\\x00-\\x7f]{0,40}",
        ) {
            let general = general_path(&text);
            proptest::prop_assert_eq!(normalize(&text), general);
        }
    }

    #[test]
    fn keeps_case_when_folding_marks_for_names() {
        assert_eq!(fold_marks("Bernhard Schölkopf"), "Bernhard Scholkopf");
    }
}
