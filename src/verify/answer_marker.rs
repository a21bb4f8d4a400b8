//! Where the benchmark verifiers (`numeric`, `choice`, `short`) read an output's final
//! answer: after its last answer phrases (`Answer:`, "the answer is", `**Answer**:`,
//! or another language's `Respuesta:`, `答案：`, `정답:` ...), on the first non-blank
//! line there, up to the end of its first sentence. One place for the phrase pattern
//! and the cuts, so that the three read answers alike.

use regex::Regex;

/// At most this many answer phrases are tried, from the last back: the work stays
/// linear in the output on any input (a line of a million phrases).
pub(crate) const MOST_MARKERS: usize = 8;

/// The answer phrases of other languages, each followed by a colon: the 41 of
/// simple-evals' `MULTILINGUAL_ANSWER_REGEXES` (openai/simple-evals, `common.py`), which
/// its multilingual MMLU reads; written once each (its list repeats some, and its
/// full-width colons and the zero-width spaces after its second `Answer:` are folded
/// away before reading, `reading::fold`). Matched case-insensitively, not only at a word
/// start: Chinese and Japanese write no spaces between words.
const OTHER_LANGUAGES: &str = "Antwort|Respuesta|Risposta|R\u{e9}ponse|Resposta|Jawaban|Jibu|Idahun|\u{cc}d\u{e1}h\u{f9}n|Id\u{e1}h\u{f9}n|A\u{300}m\u{1ecd}\u{300}na\u{300}|\u{c0}d\u{e1}h\u{f9}n|A\u{300}nu\u{301}go\u{323}|\u{c0}\u{1e63}\u{e0}y\u{e0}n|\u{989}\u{9a4}\u{9cd}\u{9a4}\u{9b0}|\u{909}\u{924}\u{94d}\u{924}\u{930}|\u{b2f5}\u{bcc0}|\u{c815}\u{b2f5}|\u{b2f5}|\u{7b54}\u{6848}|\u{7b54}\u{590d}|\u{7b54}\u{66f0}|\u{7b54}\u{3048}|\u{56de}\u{7b54}|\u{89e3}\u{7b54}|\u{7b54}|\u{627}\u{644}\u{625}\u{62c}\u{627}\u{628}\u{629} \u{627}\u{644}\u{646}\u{647}\u{627}\u{626}\u{64a}\u{629}|\u{627}\u{644}\u{625}\u{62c}\u{627}\u{628}\u{629} \u{627}\u{644}\u{635}\u{62d}\u{64a}\u{62d}\u{629} \u{647}\u{64a}|\u{627}\u{644}\u{625}\u{62c}\u{627}\u{628}\u{629} \u{627}\u{644}\u{635}\u{62d}\u{64a}\u{62d}\u{629}|\u{627}\u{644}\u{625}\u{62c}\u{627}\u{628}\u{629} \u{647}\u{64a}|\u{627}\u{644}\u{62c}\u{648}\u{627}\u{628} \u{627}\u{644}\u{646}\u{647}\u{627}\u{626}\u{64a}|\u{627}\u{644}\u{625}\u{62c}\u{627}\u{628}\u{629}|\u{627}\u{644}\u{62c}\u{648}\u{627}\u{628}|\u{625}\u{62c}\u{627}\u{628}\u{629}";

/// The answer phrases on `nouns` (`answer`, or `answer|choice|option`), case-insensitive:
/// the noun, any Markdown emphasis closing it, then `is`, `:` or `=`, or with `modal`
/// also `would be`, `will be` and `should be`; `also` adds whole alternatives
/// (`I choose`). Every verifier also reads the phrases of [`OTHER_LANGUAGES`] and
/// Bengali's `উত্তরঃ` (whose visarga is its colon).
pub(crate) fn marker(nouns: &str, modal: bool, also: &str) -> Regex {
    let verbs = if modal {
        r"is\b|would be\b|will be\b|should be\b"
    } else {
        r"is\b"
    };
    let noun = if nouns.contains('|') {
        format!("(?:{nouns})")
    } else {
        nouns.to_string()
    };
    Regex::new(&format!(
        r"(?i)\b{noun}\b[*_]*\s*(?:{verbs}|[:=]){also}|(?:{OTHER_LANGUAGES})\s*:|\u{{989}}\u{{9a4}}\u{{9cd}}\u{{9a4}}\u{{9b0}}\u{{983}}"
    ))
        .expect("the marker pattern is valid")
}

/// Where the text after each of the last [`MOST_MARKERS`] answer phrases of `text`
/// starts, the last phrase first.
pub(crate) fn after_markers(marker: &Regex, text: &str) -> impl Iterator<Item = usize> {
    let ends: Vec<usize> = marker.find_iter(text).map(|m| m.end()).collect();
    ends.into_iter().rev().take(MOST_MARKERS)
}

/// The first non-blank line of `text`, its leading whitespace gone.
pub(crate) fn first_line(text: &str) -> &str {
    let text = text.trim_start();
    &text[..text.find('\n').unwrap_or(text.len())]
}

/// Where the first sentence of `line` ends: at a `!` or `?`, or at a `.` followed by a
/// space at byte `periods_from` or later (so that `B. Paris` can keep the letter's dot).
pub(crate) fn sentence_end(line: &str, periods_from: usize) -> Option<usize> {
    line.char_indices()
        .find(|&(i, c)| {
            matches!(c, '!' | '?')
                || (c == '.' && i >= periods_from && line[i + 1..].starts_with(' '))
        })
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_are_found_case_blind_through_markdown_and_the_last_comes_first() {
        let answer = marker("answer", true, "");
        let text = "My answer would be 3. **ANSWER**: 4. Answer = 5";
        let ends: Vec<usize> = after_markers(&answer, text).collect();
        let starts: Vec<&str> = ends.iter().map(|&at| text[at..].trim_start()).collect();
        assert_eq!(
            starts,
            ["5", "4. Answer = 5", "3. **ANSWER**: 4. Answer = 5"]
        );
        // Without `modal`, `would be` is no phrase; `also` adds one.
        assert_eq!(
            after_markers(&marker("answer", false, ""), "answer would be 3").count(),
            0
        );
        let choice = marker(
            "answer|choice|option",
            true,
            r"|\bI (?:choose|pick|select)\b",
        );
        assert_eq!(after_markers(&choice, "Option: B, and i pick C").count(), 2);
        assert_eq!(
            after_markers(&answer, &"answer: 1 ".repeat(100)).count(),
            MOST_MARKERS
        );
    }

    #[test]
    fn the_first_line_skips_blank_lines_and_the_sentence_ends_at_a_stop_and_space() {
        assert_eq!(first_line("  \n\n  B. Paris.\nmore"), "B. Paris.");
        assert_eq!(first_line(""), "");
        assert_eq!(sentence_end("B. Paris. Then", 2), Some(8));
        assert_eq!(sentence_end("B. Paris. Then", 0), Some(1));
        assert_eq!(sentence_end("3.5 is it? yes", 0), Some(9));
        assert_eq!(sentence_end("no end.", 0), None);
    }
}
