//! arXiv identifiers in free text. New style `YYMM.NNNN` (to 1412) or `YYMM.NNNNN`
//! (from 1501), month 01–12, optionally prefixed `arXiv:` or inside an
//! `arxiv.org/abs/` or `/pdf/` address, with any `vN` version dropped; old style
//! `archive(.XX)/YYMMNNN` such as `hep-th/9901001`. Shapes that are not IDs
//! (`9913.12345`, `3.14159`) are not candidates, and every ID-shaped substring is
//! removed before years are looked for, so `2005.14165` is not the year 2005.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Digits-dot-digits shaped like a new-style ID, whether or not it is valid.
static NEW_SHAPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(\d+)\.(\d+)(v\d+)?").expect("the new-style ID pattern is valid")
});

/// `archive(.XX)/YYMMNNN`, the pre-2007 scheme.
static OLD_SHAPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b([a-z]+(?:-[a-z]+)*(?:\.[a-z]{2})?)/(\d{7})(v\d+)?\b")
        .expect("the old-style ID pattern is valid")
});

/// Four-digit numbers that could be years.
static YEAR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\d+").expect("the year pattern is valid"));

/// Whether `id` is a well-formed arXiv identifier (without version).
pub(crate) fn is_valid_id(id: &str) -> bool {
    // Without a slash, only a new-style ID can be the whole text: digits, a dot,
    // digits, valid together (the general check below agrees; a test holds it).
    if id.is_ascii()
        && !id.contains('/')
        && let Some((yymm, number)) = id.split_once('.')
    {
        let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
        return digits(yymm) && digits(number) && valid_new(yymm, number);
    }
    let ids = find_ids(id);
    ids.len() == 1 && ids[0] == id && !id.contains(char::is_whitespace)
}

fn valid_new(yymm: &str, number: &str) -> bool {
    if yymm.len() != 4 {
        return false;
    }
    let Ok(value) = yymm.parse::<u32>() else {
        return false;
    };
    let month = value % 100;
    if !(1..=12).contains(&month) {
        return false;
    }
    let expected_digits = if value >= 1501 { 5 } else { 4 };
    number.len() == expected_digits
}

/// A substring shaped like a new-style ID: its byte range, and the ranges of the digits
/// before and after the dot.
struct Shape {
    start: usize,
    end: usize,
    yymm: (usize, usize),
    number: (usize, usize),
}

/// Every match of [`NEW_SHAPE`] in `text`, leftmost first, handed to `each`. ASCII
/// text is scanned by hand: there `\d` is `[0-9]`, a match starts at the first digit
/// of a run followed by a dot and a digit, and ends after the second run and any `v`
/// with digits.
fn each_new_shape(text: &str, mut each: impl FnMut(Shape)) {
    if !text.is_ascii() {
        for caps in NEW_SHAPE.captures_iter(text) {
            let whole = caps.get(0).expect("group 0 always matches");
            let (yymm, number) = (caps.get(1).expect("group 1"), caps.get(2).expect("group 2"));
            each(Shape {
                start: whole.start(),
                end: whole.end(),
                yymm: (yymm.start(), yymm.end()),
                number: (number.start(), number.end()),
            });
        }
        return;
    }
    let bytes = text.as_bytes();
    let digit = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_digit);
    let run_end = |mut at: usize| {
        while digit(at) {
            at += 1;
        }
        at
    };
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(u8::is_ascii_digit) {
        let start = at + offset;
        let dot = run_end(start);
        if bytes.get(dot) != Some(&b'.') || !digit(dot + 1) {
            at = dot;
            continue;
        }
        let after = run_end(dot + 1);
        let end = if matches!(bytes.get(after), Some(b'v' | b'V')) && digit(after + 1) {
            run_end(after + 1)
        } else {
            after
        };
        each(Shape {
            start,
            end,
            yymm: (start, dot),
            number: (dot + 1, after),
        });
        at = end;
    }
}

/// Every distinct arXiv ID in `text`, versions dropped, in order of first appearance;
/// a new-style ID is borrowed from `text`.
pub(crate) fn find_ids(text: &str) -> Vec<Cow<'_, str>> {
    let mut found: Vec<(usize, Cow<str>)> = Vec::new();
    let bytes = text.as_bytes();
    each_new_shape(text, |shape| {
        let (start, end) = (shape.start, shape.end);
        // A longer run of digits or dots around the match is not an ID (e.g. 1.2.3).
        let before_ok = start == 0 || !matches!(bytes[start - 1], b'.' | b'0'..=b'9');
        let after_ok = end == bytes.len()
            || !(bytes[end].is_ascii_alphanumeric()
                || (bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)));
        let yymm = &text[shape.yymm.0..shape.yymm.1];
        let number = &text[shape.number.0..shape.number.1];
        if before_ok && after_ok && valid_new(yymm, number) {
            // The ID is the match without its version: `yymm.number`, one slice.
            found.push((start, Cow::Borrowed(&text[shape.yymm.0..shape.number.1])));
        }
    });
    // Old-style IDs need a slash; most answers have none.
    if text.contains('/') {
        for caps in OLD_SHAPE.captures_iter(text) {
            let digits = &caps[2];
            let month: u32 = digits[2..4].parse().unwrap_or(0);
            if (1..=12).contains(&month) {
                let whole = caps.get(0).expect("group 0 always matches");
                let archive = caps[1].to_string();
                let archive = match archive.split_once('.') {
                    Some((main, sub)) => {
                        format!("{}.{}", main.to_lowercase(), sub.to_uppercase())
                    }
                    None => archive.to_lowercase(),
                };
                found.push((whole.start(), Cow::Owned(format!("{archive}/{digits}"))));
            }
        }
    }
    found.sort();
    // The first of each ID kept, in place.
    let mut kept = 0;
    for at in 0..found.len() {
        if !found[..kept].iter().any(|(_, id)| *id == found[at].1) {
            found.swap(kept, at);
            kept += 1;
        }
    }
    found.truncate(kept);
    found.into_iter().map(|(_, id)| id).collect()
}

/// Every distinct year from 1991 to 2099 standing alone in `text` once every
/// ID-shaped substring is removed, in order of first appearance.
pub(crate) fn find_years(text: &str) -> Vec<u16> {
    let without_new: Cow<str> = if text.is_ascii() {
        // Copied only once some ID-shaped substring is found.
        let mut rest: Option<String> = None;
        let mut last = 0;
        each_new_shape(text, |shape| {
            let rest = rest.get_or_insert_with(|| String::with_capacity(text.len()));
            rest.push_str(&text[last..shape.start]);
            rest.push(' ');
            last = shape.end;
        });
        match rest {
            None => Cow::Borrowed(text),
            Some(mut rest) => {
                rest.push_str(&text[last..]);
                Cow::Owned(rest)
            }
        }
    } else {
        NEW_SHAPE.replace_all(text, " ")
    };
    let without_ids = if without_new.contains('/') {
        Cow::Owned(OLD_SHAPE.replace_all(&without_new, " ").into_owned())
    } else {
        without_new
    };
    let bytes = without_ids.as_bytes();
    let mut years = Vec::new();
    let mut consider = |start: usize, end: usize| {
        let alone_before = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let alone_after = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
        if end - start != 4 || !alone_before || !alone_after {
            return;
        }
        if let Ok(year) = without_ids[start..end].parse::<u16>()
            && (1991..=2099).contains(&year)
            && !years.contains(&year)
        {
            years.push(year);
        }
    };
    if without_ids.is_ascii() {
        // `\d+` on ASCII text: the maximal runs of `[0-9]`.
        let mut at = 0;
        while let Some(offset) = bytes[at..].iter().position(u8::is_ascii_digit) {
            let start = at + offset;
            at = start;
            while bytes.get(at).is_some_and(u8::is_ascii_digit) {
                at += 1;
            }
            consider(start, at);
        }
    } else {
        for found in YEAR.find_iter(&without_ids) {
            consider(found.start(), found.end());
        }
    }
    years
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// [`find_ids`] as it was before the hand scan: the reference.
    fn find_ids_by_pattern(text: &str) -> Vec<String> {
        let mut found: Vec<(usize, String)> = Vec::new();
        let bytes = text.as_bytes();
        for caps in NEW_SHAPE.captures_iter(text) {
            let whole = caps.get(0).unwrap();
            let (start, end) = (whole.start(), whole.end());
            let before_ok = start == 0 || !matches!(bytes[start - 1], b'.' | b'0'..=b'9');
            let after_ok = end == bytes.len()
                || !(bytes[end].is_ascii_alphanumeric()
                    || (bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)));
            let (yymm, number) = (&caps[1], &caps[2]);
            if before_ok && after_ok && valid_new(yymm, number) {
                found.push((start, format!("{yymm}.{number}")));
            }
        }
        for caps in OLD_SHAPE.captures_iter(text) {
            let digits = &caps[2];
            let month: u32 = digits[2..4].parse().unwrap_or(0);
            if (1..=12).contains(&month) {
                let whole = caps.get(0).unwrap();
                let archive = caps[1].to_string();
                let archive = match archive.split_once('.') {
                    Some((main, sub)) => format!("{}.{}", main.to_lowercase(), sub.to_uppercase()),
                    None => archive.to_lowercase(),
                };
                found.push((whole.start(), format!("{archive}/{digits}")));
            }
        }
        found.sort();
        let mut distinct = Vec::new();
        for (_, id) in found {
            if !distinct.contains(&id) {
                distinct.push(id);
            }
        }
        distinct
    }

    /// [`find_years`] as it was before the hand scan: the reference.
    fn find_years_by_pattern(text: &str) -> Vec<u16> {
        let without_new = NEW_SHAPE.replace_all(text, " ");
        let without_ids = OLD_SHAPE.replace_all(&without_new, " ");
        let bytes = without_ids.as_bytes();
        let mut years = Vec::new();
        for m in YEAR.find_iter(&without_ids) {
            let alone_before = m.start() == 0 || !bytes[m.start() - 1].is_ascii_alphanumeric();
            let alone_after = m.end() == bytes.len() || !bytes[m.end()].is_ascii_alphanumeric();
            if m.as_str().len() != 4 || !alone_before || !alone_after {
                continue;
            }
            if let Ok(year) = m.as_str().parse::<u16>()
                && (1991..=2099).contains(&year)
                && !years.contains(&year)
            {
                years.push(year);
            }
        }
        years
    }

    /// Text made of the pieces IDs and years are built from.
    fn id_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("1706"),
                Just("03762"),
                Just("2017"),
                Just("1501"),
                Just("0001"),
                Just("9"),
                Just("."),
                Just("v"),
                Just("V2"),
                Just(" "),
                Just("/"),
                Just("hep-th"),
                Just("9901001"),
                Just("math.GT"),
                Just("arXiv:"),
                Just("x"),
                Just("٣"),
                Just("é"),
                Just("-"),
                Just("1991"),
                Just("2100"),
                Just("1706.03762"),
                Just("2005.14165"),
                Just("1412.6980"),
                Just("v7"),
                Just("cs/0112017"),
            ],
            0..12,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn a_whole_id_is_valid_exactly_when_the_pattern_finds_only_it(text in id_text()) {
            let ids = find_ids_by_pattern(&text);
            let by_pattern = ids.len() == 1 && ids[0] == text && !text.contains(char::is_whitespace);
            prop_assert_eq!(is_valid_id(&text), by_pattern);
        }

        #[test]
        fn the_hand_scans_find_what_the_patterns_find(text in id_text()) {
            prop_assert_eq!(find_ids(&text), find_ids_by_pattern(&text));
            prop_assert_eq!(find_years(&text), find_years_by_pattern(&text));
        }
    }

    #[test]
    fn finds_plain_prefixed_versioned_and_addressed_ids() {
        assert_eq!(find_ids("The paper is arXiv 1706.03762."), ["1706.03762"]);
        assert_eq!(find_ids("arXiv:1706.03762"), ["1706.03762"]);
        assert_eq!(find_ids("see 1706.03762v7 for details"), ["1706.03762"]);
        assert_eq!(
            find_ids("https://arxiv.org/abs/1706.03762v5"),
            ["1706.03762"]
        );
        assert_eq!(
            find_ids("https://arxiv.org/pdf/2005.14165.pdf"),
            ["2005.14165"]
        );
        assert_eq!(
            find_ids("1706.03762 or 1810.04805, not 1706.03762v2"),
            ["1706.03762", "1810.04805"]
        );
    }

    #[test]
    fn finds_old_style_ids() {
        assert_eq!(find_ids("It is hep-th/9901001."), ["hep-th/9901001"]);
        assert_eq!(
            find_ids("cs/0112017v2 and math.GT/0309136"),
            ["cs/0112017", "math.GT/0309136"]
        );
        assert!(
            find_ids("cs/0113017").is_empty(),
            "month 13 is not an old-style ID"
        );
    }

    #[test]
    fn rejects_numbers_that_are_not_ids() {
        assert!(find_ids("9913.12345").is_empty(), "month 13");
        assert!(find_ids("3.14159").is_empty());
        assert!(find_ids("1706.037625").is_empty(), "six digits");
        assert!(find_ids("1412.69801").is_empty(), "five digits before 1501");
        assert!(find_ids("1501.0001").is_empty(), "four digits from 1501 on");
        assert_eq!(
            find_ids("1412.6980 and 1501.00001"),
            ["1412.6980", "1501.00001"]
        );
        assert!(find_ids("1.1706.03762").is_empty());
        assert!(find_ids("11706.03762").is_empty());
    }

    #[test]
    fn years_ignore_id_shaped_substrings() {
        assert!(
            find_years("2005.14165").is_empty(),
            "2005.14165 is not the year 2005"
        );
        assert_eq!(find_years("Submitted in 2020 as 2005.14165."), [2020]);
        assert_eq!(find_years("1990, 1991, 2099, 2100, 20171"), [1991, 2099]);
        assert_eq!(find_years("either 2016 or 2017 (2017)"), [2016, 2017]);
        assert!(find_years("hep-th/9901001").is_empty());
    }

    #[test]
    fn validity_of_a_whole_id() {
        assert!(is_valid_id("1706.03762"));
        assert!(is_valid_id("hep-th/9901001"));
        assert!(!is_valid_id("1706.3762"));
        assert!(!is_valid_id("1706.03762v2"));
        assert!(!is_valid_id("x1706.03762"));
    }
}
