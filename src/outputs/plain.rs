//! The common outputs line read by hand: `{"task_id": "...", "output": "..."}` (keys in
//! either order, JSON whitespace anywhere between tokens, the simple escapes in the
//! strings), the shape nearly every line has. Anything else — another key, a `\u`
//! escape, a control character, trailing text — is declined and left to `serde_json`,
//! so a line this reads is read exactly as `serde_json` reads it, and every message
//! about a bad line is still `serde_json`'s.

use std::ops::Range;

/// The keys of an outputs line.
const TASK_ID: &[u8] = b"\"task_id\"";
const OUTPUT: &[u8] = b"\"output\"";

/// Reads `raw`, a line without its line end, into `scratch` (cleared first): both
/// strings unescaped, the first key's first. Returns the task id's and the output's
/// ranges in `scratch`, or `None` when the line is not of the plain shape.
pub(super) fn parse_plain_line(
    raw: &str,
    scratch: &mut String,
) -> Option<(Range<usize>, Range<usize>)> {
    scratch.clear();
    let bytes = raw.as_bytes();
    let mut at = skip_space(bytes, 0);
    at = expect(bytes, at, b'{')?;
    at = skip_space(bytes, at);
    let (first_is_id, after_key) = key(bytes, at)?;
    at = skip_space(bytes, after_key);
    at = expect(bytes, at, b':')?;
    at = skip_space(bytes, at);
    at = string(raw, at, scratch)?;
    let split = scratch.len();
    at = skip_space(bytes, at);
    at = expect(bytes, at, b',')?;
    at = skip_space(bytes, at);
    // Each key once: a repeated key is an error `serde_json` names.
    let (second_is_id, after_key) = key(bytes, at)?;
    if second_is_id == first_is_id {
        return None;
    }
    at = skip_space(bytes, after_key);
    at = expect(bytes, at, b':')?;
    at = skip_space(bytes, at);
    at = string(raw, at, scratch)?;
    at = skip_space(bytes, at);
    at = expect(bytes, at, b'}')?;
    if skip_space(bytes, at) != bytes.len() {
        return None;
    }
    let (first, second) = (0..split, split..scratch.len());
    Some(if first_is_id {
        (first, second)
    } else {
        (second, first)
    })
}

/// The first position from `at` that is not JSON whitespace.
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while matches!(bytes.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// The position after `byte`, if it is at `at`.
fn expect(bytes: &[u8], at: usize, byte: u8) -> Option<usize> {
    (bytes.get(at) == Some(&byte)).then_some(at + 1)
}

/// Which key is at `at` (`true` for the task id) and the position after it.
fn key(bytes: &[u8], at: usize) -> Option<(bool, usize)> {
    let rest = bytes.get(at..)?;
    if rest.starts_with(TASK_ID) {
        Some((true, at + TASK_ID.len()))
    } else if rest.starts_with(OUTPUT) {
        Some((false, at + OUTPUT.len()))
    } else {
        None
    }
}

/// Appends the value of the string at `at` to `out`, and returns the position after
/// its closing quote; `None` unless it is a string with no control character and only
/// the escapes of one character after the backslash.
fn string(raw: &str, at: usize, out: &mut String) -> Option<usize> {
    let bytes = raw.as_bytes();
    let mut at = expect(bytes, at, b'"')?;
    // The start of the run of plain bytes not yet copied; the bytes that end a run are
    // ASCII, so every run is whole characters.
    let mut run = at;
    loop {
        at += plain_run(&bytes[at..]);
        match *bytes.get(at)? {
            b'"' => {
                out.push_str(&raw[run..at]);
                return Some(at + 1);
            }
            b'\\' => {
                out.push_str(&raw[run..at]);
                out.push(match bytes.get(at + 1)? {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    _ => return None,
                });
                at += 2;
                run = at;
            }
            _ => return None,
        }
    }
}

/// The length of the run of bytes at the start of `bytes` that are neither a quote, a
/// backslash nor a control character, eight bytes at a time.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let quote = word ^ (ONES * u64::from(b'"'));
        let slash = word ^ (ONES * u64::from(b'\\'));
        // (x - 0x01…) & !x & 0x80… is non-zero exactly when some byte of x is zero,
        // and (x - 0x20…) & !x & 0x80… exactly when some byte of x is below 0x20.
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        let below = word.wrapping_sub(ONES * 0x20) & !word;
        if (zero(quote) | zero(slash) | below) & HIGHS != 0 {
            break;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(bytes.len() - at)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What `serde_json` reads from a line, as the plain reader returns it.
    fn by_serde(raw: &str) -> Option<(String, String)> {
        let line: super::super::Line = serde_json::from_str(raw).ok()?;
        Some((line.task_id.into_owned(), line.output.into_owned()))
    }

    fn by_hand(raw: &str) -> Option<(String, String)> {
        let mut scratch = String::new();
        let (id, output) = parse_plain_line(raw, &mut scratch)?;
        Some((scratch[id].to_string(), scratch[output].to_string()))
    }

    #[test]
    fn reads_the_plain_shape_in_either_order_with_escapes() {
        assert_eq!(
            by_hand(r#"{"task_id":"p:id","output":"a \"b\" \\ \/ \n\t"}"#),
            Some(("p:id".to_string(), "a \"b\" \\ / \n\t".to_string()))
        );
        assert_eq!(
            by_hand(" \t{ \"output\" : \"x\" ,\r\"task_id\" :\"é\" } "),
            Some(("é".to_string(), "x".to_string()))
        );
    }

    #[test]
    fn a_plain_run_ends_at_the_first_quote_backslash_or_control_character() {
        let text = "abcdefghijklmnopqrstuvwxyzé0123456789";
        for stop in ['"', '\\', '\u{0}', '\u{1f}', '\n'] {
            for at in 0..text.len() {
                if !text.is_char_boundary(at) {
                    continue;
                }
                let line = format!("{}{stop}{}", &text[..at], &text[at..]);
                assert_eq!(plain_run(line.as_bytes()), at, "{line:?}");
            }
        }
        assert_eq!(plain_run(text.as_bytes()), text.len());
        assert_eq!(plain_run(b"\x7f\x80 ~"), 4);
    }

    #[test]
    fn declines_every_other_shape() {
        for raw in [
            r#"{"task_id":"p:id","output":"\u00e9"}"#,
            r#"{"task_id":"p:id","output":"x","extra":1}"#,
            r#"{"task_id":"p:id","task_id":"x"}"#,
            r#"{"task_id":"p:id","output":3}"#,
            r#"{"task_id":"p:id"}"#,
            r#"{"task_id":"p:id","output":"x"} x"#,
            "{\"task_id\":\"p:id\",\"output\":\"tab\there\"}",
            "\u{a0}{\"task_id\":\"p:id\",\"output\":\"x\"}",
            r#"{"task\u005fid":"p:id","output":"x"}"#,
            r#"["p:id","x"]"#,
            r#"{"task_id":"p:id","output":"x\q"}"#,
            r#"{"task_id":"p:id","output":"x"#,
        ] {
            assert_eq!(by_hand(raw), None, "{raw}");
        }
    }

    /// Pieces of JSON lines, valid and not.
    const PIECES: [&str; 24] = [
        "{",
        "}",
        "\"task_id\"",
        "\"output\"",
        ":",
        ",",
        " ",
        "\t",
        "\r",
        "\"",
        "\\\"",
        "\\\\",
        "\\n",
        "\\u0041",
        "\\x",
        "a",
        "é",
        "\u{1}",
        "\"x\"",
        "\"p:id\"",
        "3",
        "null",
        "[",
        "\u{a0}",
    ];

    proptest! {
        #[test]
        fn whatever_it_reads_serde_json_reads_the_same(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..16),
            template in 0usize..4,
        ) {
            let middle: String = picks.iter().map(|&p| PIECES[p]).collect();
            // Around the pieces, lines that are often nearly plain.
            let raw = match template {
                0 => format!("{{\"task_id\":\"{middle}\",\"output\":\"o\"}}"),
                1 => format!("{{\"output\":\"{middle}\", \"task_id\":\"t\"}}"),
                2 => format!("{{\"task_id\":\"t\"{middle}\"output\":\"o\"}}"),
                _ => middle,
            };
            if let Some(read) = by_hand(&raw) {
                prop_assert_eq!(Some(read), by_serde(&raw), "{:?}", raw);
            }
        }

        #[test]
        fn every_plain_line_of_any_strings_is_read(
            id in "\\PC{0,12}",
            output in "\\PC{0,40}",
            id_first in proptest::bool::ANY,
        ) {
            let (id_json, output_json) = (
                serde_json::to_string(&id).unwrap(),
                serde_json::to_string(&output).unwrap(),
            );
            let raw = if id_first {
                format!("{{\"task_id\": {id_json}, \"output\": {output_json}}}")
            } else {
                format!("{{\"output\":{output_json},\"task_id\":{id_json}}}")
            };
            let read = by_hand(&raw);
            if !id_json.contains("\\u") && !output_json.contains("\\u") {
                prop_assert_eq!(read.clone(), Some((id.clone(), output.clone())));
            }
            if read.is_some() {
                prop_assert_eq!(read, by_serde(&raw));
            }
        }
    }
}
