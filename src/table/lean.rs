//! One field of an ordinary line, found without copying the others: what a reader of
//! one column of a wide file needs (`admit --tasks` on a holdout that keeps every
//! column of the task file). An ordinary line is one that [`RowScanner`] would read
//! as one record with nothing to report and no byte to rewrite but the kept field's
//! quotes: all of it buffered and ending in `\n`, UTF-8, no `\r`, every quoted field
//! closing on the line right before a comma or the line end, the header's number of
//! fields, and the kept field without a doubled quote. Anything else is left to the
//! full reading, which gives the same rows and the errors with their rows and columns.
//!
//! [`RowScanner`]: super::scan::RowScanner

/// When `rest` starts with an ordinary line of `fields` fields: the length of the line
/// with its `\n`, and the text of field `kept` (its quotes dropped). `None` for any other line (a blank one too: the full reading skips it), and
/// when the line does not end in `rest`.
pub(super) fn kept_field(rest: &[u8], fields: usize, kept: usize) -> Option<(usize, &str)> {
    let mut at = 0;
    let mut found = 0..0;
    for field in 0..fields {
        let last = field + 1 == fields;
        let (text, end) = if rest.get(at) == Some(&b'"') {
            let close = at + 1 + memchr::memchr(b'"', &rest[at + 1..])?;
            let mut end = close;
            // Doubled quotes inside: passed over, but a kept field with one is left to
            // the full reading (its text is not a slice of the line).
            while rest.get(end + 1) == Some(&b'"') {
                if field == kept {
                    return None;
                }
                end = end + 2 + memchr::memchr(b'"', &rest[end + 2..])?;
            }
            if memchr::memchr2(b'\n', b'\r', &rest[at..end]).is_some() {
                return None;
            }
            (at + 1..close, end + 1)
        } else {
            let end = at + memchr::memchr3(b',', b'\n', b'\r', &rest[at..])?;
            (at..end, end)
        };
        if field == kept {
            found = text;
        }
        match (rest.get(end), last) {
            (Some(b','), false) => at = end + 1,
            (Some(b'\n'), true) => {
                let line = end + 1;
                // A record of one empty field is a blank line, which is skipped.
                if fields == 1 && found.is_empty() {
                    return None;
                }
                // The line split at ASCII bytes: its fields are UTF-8 when it is.
                let text = std::str::from_utf8(&rest[..line]).ok()?;
                return Some((line, &text[found]));
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(line: &str, fields: usize, kept: usize) -> Option<(usize, String)> {
        kept_field(line.as_bytes(), fields, kept).map(|(length, text)| (length, text.to_string()))
    }

    #[test]
    fn finds_the_kept_field_of_an_ordinary_line() {
        assert_eq!(kept("a,b,c\nx", 3, 0), Some((6, "a".into())));
        assert_eq!(kept("a,b,c\n", 3, 2), Some((6, "c".into())));
        assert_eq!(
            kept("\"a,1\",\"say \"\"hi\"\"\",\n", 3, 0),
            Some((20, "a,1".into()))
        );
        assert_eq!(kept(",,\n", 3, 1), Some((3, String::new())));
        assert_eq!(kept("a\"b,c\n", 2, 0), Some((6, "a\"b".into())));
        assert_eq!(kept("é,\"ü\"\n", 2, 1), Some((8, "ü".into())));
    }

    #[test]
    fn leaves_every_other_line_to_the_full_reading() {
        for (line, fields) in [
            ("a,b", 2),
            ("a,b\r\n", 2),
            ("a,b,c\n", 2),
            ("a\n", 2),
            ("\"a\"\"b\",c\n", 2),
            ("\"a\nb\",c\n", 2),
            ("\"a\"b,c\n", 2),
            ("\"a,c\n", 2),
            ("a,\"b\rc\"\n", 2),
            ("\n", 1),
            ("\"\"\n", 1),
        ] {
            assert_eq!(kept(line, fields, 0), None, "{line:?}");
        }
        // Bytes that are not UTF-8, in the kept field or another.
        assert_eq!(kept_field(b"a,\xff\n", 2, 0), None);
        assert_eq!(kept_field(b"\xc3,b\n", 2, 1), None);
    }
}
