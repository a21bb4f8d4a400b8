//! The terminal medium: everything a command prints passes through here. `main` hands
//! all of stdout to [`terminal`] and every error and note to [`message`]; both show a
//! character that [acts on a terminal](acts_on_terminal) as a visible `\\u{..}` escape,
//! so an escape sequence, an OSC 52 clipboard write or a right-to-left override in an
//! input file is printed, never run.

use std::borrow::Cow;

use crate::base::bidi::is_bidi_control;

/// Whether `ch` can act on a terminal instead of being shown: every control character
/// (C0, DEL and the C1 set, whose U+009B is a CSI on its own) and every bidirectional
/// control.
pub fn acts_on_terminal(ch: char) -> bool {
    ch.is_control() || is_bidi_control(ch)
}

/// Appends `ch` as a terminal will show it: itself, or a visible `\u{..}` escape when it
/// [acts on the terminal](acts_on_terminal).
pub fn push_shown(out: &mut String, ch: char) {
    if acts_on_terminal(ch) {
        out.push_str(&format!("\\u{{{:x}}}", u32::from(ch)));
    } else {
        out.push(ch);
    }
}

/// The terminal sanitiser: `text` with every character that [acts on a
/// terminal](acts_on_terminal) shown as a `\u{..}` escape, line breaks and tabs kept.
/// An escape sequence, an OSC 52 clipboard write or a right-to-left override in a cell
/// value is printed, never run. Text without such characters comes back borrowed.
pub fn terminal(text: &str) -> Cow<'_, str> {
    show(text, |ch| ch == '\n' || ch == '\t')
}

/// [`terminal`] with line breaks and tabs shown too, for one-line values such as the
/// identifiers of `pairs.csv`.
pub fn shown(text: &str) -> Cow<'_, str> {
    show(text, |_| false)
}

/// `text` with every character that acts on a terminal, other than the `kept` ones,
/// shown as a `\u{..}` escape.
fn show(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|ch| acts_on_terminal(ch) && !kept(ch)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for ch in text.chars() {
        if kept(ch) {
            out.push(ch);
        } else {
            push_shown(&mut out, ch);
        }
    }
    Cow::Owned(out)
}

/// Backticked values longer than this many characters are cut in messages.
const LONGEST_VALUE: usize = 120;

/// Backticked numbers longer than this many characters are cut (a 309-digit score is
/// unreadable long before it is 120 characters).
const LONGEST_NUMBER: usize = 24;

/// Whether a value is written as a number: ASCII digits, signs, points and exponents.
fn is_number_text(text: &str) -> bool {
    text.bytes().any(|b| b.is_ascii_digit())
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
}

/// Messages longer than this many characters are cut.
const LONGEST_MESSAGE: usize = 2_000;

/// A message made safe to print on a terminal, whatever the input files held.
///
/// Errors quote values from the inputs (task ids, fields, JSON), which are untrusted: a
/// control character or an ANSI escape sequence in one could rewrite the terminal, and
/// a 10 MB field would flood it. Control characters and bidirectional overrides are
/// shown as `\u{..}` escapes, a backticked number longer than 24 characters keeps its
/// first 20 digits, a backticked value longer than 120 characters keeps its
/// first 100 and says how many were cut, and the whole message stops at 2,000
/// characters.
pub fn message(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(LONGEST_MESSAGE + 64));
    for (index, piece) in text.split('`').enumerate() {
        if index > 0 {
            out.push('`');
        }
        let inside = index % 2 == 1;
        let length = piece.chars().count();
        if inside && length > LONGEST_NUMBER && is_number_text(piece) {
            out.push_str(&piece[..LONGEST_NUMBER - 4]);
            out.push_str(&format!(
                "… ({} more digits)",
                length - (LONGEST_NUMBER - 4)
            ));
        } else if inside && length > LONGEST_VALUE {
            push_visible(&mut out, piece.chars().take(100));
            out.push_str(&format!("… ({} more characters)", length - 100));
        } else {
            push_visible(&mut out, piece.chars());
        }
    }
    let length = out.chars().count();
    if length > LONGEST_MESSAGE {
        let mut cut: String = out.chars().take(LONGEST_MESSAGE).collect();
        cut.push_str(&format!(
            "… (message cut: {} more characters)",
            length - LONGEST_MESSAGE
        ));
        return cut;
    }
    out
}

/// [`push_shown`] for each character: a message is one line, so its line breaks are
/// escaped too.
fn push_visible(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars {
        push_shown(out, c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_sees_escape_sequences_osc_52_and_overrides_as_text() {
        let hostile = "a\u{1b}[2J\u{1b}]52;c;aGk=\u{7}b\u{202E}c\u{9b}d\nnext\tcell";
        assert_eq!(
            terminal(hostile),
            "a\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}b\\u{202e}c\\u{9b}d\nnext\tcell"
        );
        assert!(matches!(terminal("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_and_escape_sequences_are_shown_not_run() {
        let shown = message("task `a\u{1b}[2J\nb\u{202E}c` is bad");
        assert_eq!(shown, "task `a\\u{1b}[2J\\u{a}b\\u{202e}c` is bad");
    }

    #[test]
    fn a_ten_megabyte_value_is_cut_to_a_hundred_characters() {
        let value = "x".repeat(10_000_000);
        let shown = message(&format!("`b.csv` lacks `{value}`; fix it"));
        assert!(shown.len() < 300, "{}", shown.len());
        assert!(shown.starts_with("`b.csv` lacks `xxxx"), "{shown}");
        assert!(
            shown.ends_with("… (9999900 more characters)`; fix it"),
            "{shown}"
        );
    }

    #[test]
    fn a_309_digit_number_is_cut_to_twenty_digits() {
        let number = format!("1{}", "0".repeat(308));
        let shown = message(&format!("score `{number}` is outside [0, 1]"));
        assert_eq!(
            shown,
            "score `10000000000000000000… (289 more digits)` is outside [0, 1]"
        );
        let short = "score `99999999999999999999` is outside [0, 1]";
        assert_eq!(message(short), short);
    }

    #[test]
    fn a_long_message_without_backticks_stops_at_two_thousand_characters() {
        let shown = message(&"y".repeat(5_000));
        assert_eq!(shown.chars().filter(|&c| c == 'y').count(), 2_000);
        assert!(
            shown.ends_with("(message cut: 3000 more characters)"),
            "{shown}"
        );
    }

    #[test]
    fn ordinary_messages_pass_unchanged() {
        let text =
            "`b.csv` row 3: task `b`: score `1.4` is outside [0, 1]; give a number in [0, 1]";
        assert_eq!(message(text), text);
    }
}
