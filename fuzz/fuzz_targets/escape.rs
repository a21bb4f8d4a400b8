//! Escapes arbitrary text as `report::escape` and `base::csv` do, and checks what their
//! doc comments promise.
//!
//! - `plain`: one line, no control characters, no bidirectional overrides, isolates
//!   or marks, no leading, trailing or doubled whitespace.
//! - `markdown`: all that, and every character Markdown or HTML could act on is behind a
//!   backslash; no `-`, `+`, `=` or `<digits>.` at the start; every `@` is followed by a
//!   zero-width joiner; no `#<digit>`, `://` or `www.` survives; with the backslashes
//!   and joiners taken out, the reader sees the flattened original.
//! - `markdown_clipped`: at most `limit` characters of the flattened text, then `…`.
//! - CSV: a neutralised cell never starts with `=`, `+`, `-`, `@`, tab or CR, and a row
//!   reads back, cell for cell, as the neutralised text.
//! - Identifiers written as trusted cells (task ids, groups, kinds) read back unchanged,
//!   whatever they start with: the formula guard is for free text only.
//! - `number`: finite values read back within half a millionth, never as `-0`.
//! - `report::terminal`: `terminal` leaves no character that acts on a terminal but
//!   line breaks and tabs; `message` leaves none at all (one line), keeps at most 2,000
//!   characters (and its cut notice), and cuts every backticked number to 20 digits.
//!
//! Input: the first byte is the clipping limit, the rest the text (lossily decoded);
//! its first eight bytes, when there are eight, are also read as an `f64`.

#![no_main]

use evogate::base::csv::{Cell, CsvWriter, neutralise};
use evogate::base::numbers::number;
use evogate::report::escape::{markdown, markdown_clipped, plain};
use evogate::report::terminal::{acts_on_terminal, message, terminal};
use libfuzzer_sys::fuzz_target;

const JOINER: char = '\u{200D}';
const ESCAPED: &[char] = &[
    '\\', '`', '*', '_', '[', ']', '(', ')', '<', '>', '#', '!', '~', '|', '&', '$',
];

fn is_bidi_control(ch: char) -> bool {
    matches!(ch, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

fn check_plain(flat: &str, text: &str) {
    assert!(
        !flat.chars().any(|c| c.is_control() || is_bidi_control(c)),
        "control or bidi character left in {flat:?} from {text:?}"
    );
    assert!(
        !flat.chars().any(|c| c.is_whitespace() && c != ' '),
        "whitespace other than a space in {flat:?}"
    );
    assert_eq!(flat, flat.trim(), "untrimmed {flat:?}");
    assert!(!flat.contains("  "), "doubled space in {flat:?}");
    assert_eq!(plain(flat), flat, "plain is not idempotent on {text:?}");
}

/// What a Markdown reader sees: backslash escapes consumed, joiners invisible.
fn rendered(escaped: &str) -> String {
    let mut out = String::new();
    let mut chars = escaped.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => out.push(chars.next().expect("a backslash escapes something")),
            JOINER => {}
            other => out.push(other),
        }
    }
    out
}

fn check_markdown(escaped: &str, text: &str) {
    assert!(
        !escaped
            .chars()
            .any(|c| c.is_control() || is_bidi_control(c)),
        "control or bidi character in {escaped:?}"
    );
    let chars: Vec<char> = escaped.chars().collect();
    let mut index = 0;
    while index < chars.len() {
        let ch = chars[index];
        if ch == '\\' {
            assert!(
                chars
                    .get(index + 1)
                    .is_some_and(|next| ESCAPED.contains(next)
                        || (index == 0 && matches!(next, '-' | '+' | '='))
                        || *next == '.'),
                "backslash escapes nothing special in {escaped:?}"
            );
            index += 2;
            continue;
        }
        assert!(
            !ESCAPED.contains(&ch),
            "unescaped {ch:?} at {index} in {escaped:?} from {text:?}"
        );
        if ch == '@' {
            assert_eq!(chars.get(index + 1), Some(&JOINER), "bare @ in {escaped:?}");
        }
        index += 1;
    }
    assert!(
        !escaped.starts_with(['-', '+', '=']),
        "block marker opens {escaped:?}"
    );
    let digits = escaped.chars().take_while(char::is_ascii_digit).count();
    assert!(
        digits == 0 || !escaped[digits..].starts_with(['.', ')']),
        "ordered list marker opens {escaped:?}"
    );
    let lower = escaped.to_lowercase();
    assert!(!lower.contains("://"), "bare URL in {escaped:?}");
    assert!(!lower.contains("www."), "bare www. in {escaped:?}");
    assert!(
        !escaped
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'#' && w[1].is_ascii_digit()),
        "issue link in {escaped:?}"
    );
    let invisible = |s: &str| s.replace(JOINER, "");
    assert_eq!(
        invisible(&rendered(escaped)),
        invisible(&plain(text)),
        "the reader does not see the original of {text:?}"
    );
}

fn check_csv(text: &str) {
    let cells: Vec<&str> = text.split(';').collect();
    for cell in &cells {
        let neutral = neutralise(cell);
        assert!(
            !neutral.starts_with(['=', '+', '-', '@', '\t', '\r']),
            "formula cell {neutral:?}"
        );
        assert!(
            neutral.starts_with('\'')
                || !neutral.trim_start_matches(' ').starts_with(['=', '\u{ff1d}']),
            "formula cell after spaces {neutral:?}"
        );
    }
    if cells == [""] {
        // One empty cell is an empty line, which CSV readers skip.
        return;
    }
    let mut writer = CsvWriter::new();
    let row: Vec<Cell> = cells.iter().map(|c| Cell::Text(c)).collect();
    writer.row(&row);
    let document = writer.finish();
    let read = read_back(&document);
    let expected: Vec<String> = cells.iter().map(|c| neutralise(c).into_owned()).collect();
    assert_eq!(read, expected, "{document:?} reads back differently");
    let mut writer = CsvWriter::new();
    let row: Vec<Cell> = cells.iter().map(|c| Cell::Trusted(c)).collect();
    writer.row(&row);
    let document = writer.finish();
    let read = read_back(&document);
    assert_eq!(read, cells, "identifiers changed in {document:?}");
}

fn check_terminal(text: &str) {
    let shown = terminal(text);
    assert!(
        !shown
            .chars()
            .any(|c| acts_on_terminal(c) && c != '\n' && c != '\t'),
        "{shown:?} acts on a terminal"
    );
    let line = message(text);
    assert!(!line.chars().any(acts_on_terminal), "{line:?} acts on a terminal");
    let (kept, cut) = match line.split_once("… (message cut: ") {
        Some((kept, notice)) => (kept, Some(notice)),
        None => (line.as_str(), None),
    };
    assert!(kept.chars().count() <= 2_000, "{} characters kept", kept.chars().count());
    if cut.is_none() {
        for (index, piece) in kept.split('`').enumerate() {
            let number = piece.bytes().any(|b| b.is_ascii_digit())
                && piece
                    .bytes()
                    .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
            assert!(
                index % 2 == 0 || !number || piece.len() <= 24,
                "backticked number {piece:?} left whole in {line:?}"
            );
        }
    }
}

fn check_number(value: f64) {
    if !value.is_finite() {
        return;
    }
    let text = number(value);
    assert_ne!(text, "-0");
    let back: f64 = text.parse().expect("number writes a number");
    assert!(
        (back - value).abs() <= 5e-7 * value.abs().max(1.0),
        "{value} written as {text}"
    );
}

fuzz_target!(|data: &[u8]| {
    let [limit, rest @ ..] = data else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let flat = plain(&text);
    check_plain(&flat, &text);
    let escaped = markdown(&text);
    check_markdown(&escaped, &text);
    let limit = usize::from(*limit);
    let clipped = markdown_clipped(&text, limit);
    if flat.chars().count() <= limit {
        assert_eq!(clipped, escaped);
    } else {
        let kept = clipped.strip_suffix('…').expect("a cut is marked");
        check_markdown(kept, &flat.chars().take(limit).collect::<String>());
    }
    check_csv(&text);
    check_terminal(&text);
    if let Some(bytes) = rest.get(..8) {
        check_number(f64::from_le_bytes(bytes.try_into().expect("eight bytes")));
    }
});

/// The one row of `document` as the csv crate reads it.
fn read_back(document: &str) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(document.as_bytes());
    let records: Vec<csv::StringRecord> = reader
        .records()
        .collect::<Result<_, _>>()
        .expect("the written row reads back");
    assert_eq!(records.len(), 1, "{document:?} is not one row");
    records[0].iter().map(str::to_string).collect()
}
