//! Typed errors of evogate's inputs. Every variant names the file as the user gave it,
//! and where it applies the 1-based row (the line of the file it starts on), the column
//! and the task, and its message ends with what to do about it.

use thiserror::Error;

/// Something wrong with an input file: the tool cannot do its job (exit status 2).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum InputError {
    /// The file could not be read at all.
    #[error("`{file}`: cannot read it: {message}")]
    Io {
        /// The file as given.
        file: String,
        /// The operating system's reason.
        message: String,
    },
    /// The file holds nothing, not even a header.
    #[error("`{file}` is empty: it needs a header row and at least one data row")]
    Empty {
        /// The file as given.
        file: String,
    },
    /// The file has a header and no data rows.
    #[error("`{file}` has a header but no data rows: add at least one row")]
    NoRows {
        /// The file as given.
        file: String,
    },
    /// The CSV itself could not be parsed.
    #[error(
        "`{file}` row {line}: not valid CSV ({message}); quote fields that hold commas, quotes or newlines"
    )]
    Csv {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// The parser's reason.
        message: String,
    },
    /// A field is not UTF-8.
    #[error("`{file}` row {line}, column {column}: not valid UTF-8; save the file as UTF-8")]
    Utf8 {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: usize,
    },
    /// A row has a different number of fields from the header.
    #[error(
        "`{file}` row {line}: {found} fields where the header has {expected}; quote fields that hold commas"
    )]
    Ragged {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// Fields in the row.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// A quoted field whose closing quote never comes: the rest of the file was read
    /// as that one field.
    #[error(
        "`{file}` row {line}: a quoted field opens here and is never closed; add its closing quote, and write a quote inside a quoted field as \"\""
    )]
    UnterminatedQuote {
        /// The file as given.
        file: String,
        /// 1-based line of the opening quote.
        line: u64,
    },
    /// A row (or a JSON line) longer than a reader holds: refused so that memory stays
    /// bounded on any input (`/dev/zero` included).
    #[error(
        "`{file}` row {line}: the row is longer than {limit_mib} MiB, more than evogate reads as one row; check that this is the right file"
    )]
    RowTooLong {
        /// The file as given.
        file: String,
        /// 1-based line the row starts on.
        line: u64,
        /// The limit, in MiB.
        limit_mib: u64,
    },
    /// A file read whole that is larger than the limit for files read whole.
    #[error(
        "`{file}`: larger than {limit_mib} MiB, more than evogate reads whole; check that this is the right file"
    )]
    TooLarge {
        /// The file as given.
        file: String,
        /// The limit, in MiB.
        limit_mib: u64,
    },
    /// The header names a column twice.
    #[error("`{file}`: column `{column}` appears twice in the header; rename or remove one")]
    DuplicateColumn {
        /// The file as given.
        file: String,
        /// The repeated name.
        column: String,
    },
    /// A required column is absent.
    #[error(
        "`{file}`: no column `{column}` (the header has: {found}); add it or pick the right file"
    )]
    MissingColumn {
        /// The file as given.
        file: String,
        /// The missing column.
        column: String,
        /// The header as found.
        found: String,
    },
    /// A field's value is unusable.
    #[error("`{file}` row {line}: {message}")]
    Invalid {
        /// The file as given.
        file: String,
        /// 1-based line (0 when the problem is not in one row).
        line: u64,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl InputError {
    /// Shorthand for [`InputError::Invalid`].
    pub fn invalid(file: &str, line: u64, message: impl Into<String>) -> InputError {
        InputError::Invalid {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
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
/// shown as `\u{..}` escapes, a backticked value longer than 120 characters keeps its
/// first 100 and says how many were cut, and the whole message stops at 2,000
/// characters.
pub fn for_terminal(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(LONGEST_MESSAGE + 64));
    for (index, piece) in message.split('`').enumerate() {
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

fn push_visible(out: &mut String, chars: impl Iterator<Item = char>) {
    for c in chars {
        let bidi = matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
        if c.is_control() || bidi {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_and_escape_sequences_are_shown_not_run() {
        let shown = for_terminal("task `a\u{1b}[2J\nb\u{202E}c` is bad");
        assert_eq!(shown, "task `a\\u{1b}[2J\\u{a}b\\u{202e}c` is bad");
    }

    #[test]
    fn a_ten_megabyte_value_is_cut_to_a_hundred_characters() {
        let value = "x".repeat(10_000_000);
        let shown = for_terminal(&format!("`b.csv` lacks `{value}`; fix it"));
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
        let shown = for_terminal(&format!("score `{number}` is outside [0, 1]"));
        assert_eq!(
            shown,
            "score `10000000000000000000… (289 more digits)` is outside [0, 1]"
        );
        let short = "score `99999999999999999999` is outside [0, 1]";
        assert_eq!(for_terminal(short), short);
    }

    #[test]
    fn a_long_message_without_backticks_stops_at_two_thousand_characters() {
        let shown = for_terminal(&"y".repeat(5_000));
        assert_eq!(shown.chars().filter(|&c| c == 'y').count(), 2_000);
        assert!(
            shown.ends_with("(message cut: 3000 more characters)"),
            "{shown}"
        );
    }

    #[test]
    fn ordinary_messages_pass_unchanged() {
        let message =
            "`b.csv` row 3: task `b`: score `1.4` is outside [0, 1]; give a number in [0, 1]";
        assert_eq!(for_terminal(message), message);
    }
}
