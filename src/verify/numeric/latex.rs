//! LaTeX as the `numeric` verifier reads it: the forms that spell a number made plain
//! (`\frac{1}{2}`, `\cfrac34`, `\frac3{3}`, `\text{42}`, `32,\! 349`, `\approx`), the
//! contents of `\boxed{}`, and whether a number stands inside an expression
//! (`\sqrt{17}`, `x^3`, `\frac{1+\sqrt{5}}{2}`), where it is not the answer's value.

use std::sync::LazyLock;

use regex::Regex;

static FRAC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\\[dtc]?frac\s*(?:\{\s*(-?[0-9.,]+)\s*\}|([0-9]))\s*(?:\{\s*([0-9.,]+)\s*\}|([0-9]))",
    )
    .expect("the fraction pattern is valid")
});

static BOX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\\(?:boxed|fbox)").expect("the box pattern is valid"));

static TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\\(?:text|textbf|textnormal|textit|textrm|mathrm|mathbf|mathit|mathsf|mbox)\s*\{([^{}]*)\}",
    )
    .expect("the text pattern is valid")
});

/// LaTeX's thin negative space inside a number with a thousands comma: `32,\! 349`.
static THIN_THOUSANDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"([0-9]),\\!\s*([0-9]{3})").expect("the thousands pattern is valid")
});

/// LaTeX that spells numbers, made plain: `\frac{1}{2}`, `\dfrac`, `\tfrac`, `\cfrac`,
/// `\frac12`, `\frac3{3}` are `a/b`, `\%` is `%`, `1{,}000` and `32,\! 349` are
/// `1,000` and `32,349`, `\text{ or }` is ` or `, `\approx` is `≈`, spacing commands go.
pub(crate) fn plain(text: &str) -> String {
    if !text.contains('\\') && !text.contains('{') {
        return text.to_string();
    }
    let text = FRAC.replace_all(text, |c: &regex::Captures<'_>| {
        let part = |braced: usize, bare: usize| {
            c.get(braced)
                .or_else(|| c.get(bare))
                .map_or("", |m| m.as_str())
                .to_string()
        };
        format!("{}/{}", part(1, 2), part(3, 4))
    });
    let text = THIN_THOUSANDS.replace_all(&text, "$1,$2");
    let mut text = TEXT.replace_all(&text, " $1 ").into_owned();
    for (from, to) in [
        ("{,}", ","),
        ("\\%", "%"),
        ("\\$", "$"),
        ("\\!", ""),
        ("\\,", ""),
        ("\\;", " "),
        ("\\ ", " "),
        ("\\left", ""),
        ("\\right", ""),
        ("^{\\circ}", ""),
        ("^\\circ", ""),
        ("\\displaystyle", ""),
        ("\\approx", " ≈ "),
    ] {
        if text.contains(from) {
            text = text.replace(from, to);
        }
    }
    text
}

/// How deep nested boxes are opened (`\boxed{\boxed{42}}`); a box nested deeper is
/// not a number. The bound keeps the work linear in the output.
const MOST_NESTED: usize = 8;

/// The contents of every `\boxed{...}` and `\fbox{...}` of `text`, braces balanced, as
/// slices of `text`; a box holding only a box is opened (up to [`MOST_NESTED`] deep).
pub(crate) fn boxes(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut from = 0;
    for command in BOX.find_iter(text) {
        if command.start() < from {
            continue;
        }
        let Some((content, close)) = box_content(text, command.end()) else {
            // An unclosed box runs to the end: no later box can close either.
            break;
        };
        found.push(unwrap_nested(content));
        from = close + 1;
    }
    found
}

/// The content of the box whose command ends at `after` in `text`, and where its
/// closing brace is; `None` when it has no brace or the brace never closes.
fn box_content(text: &str, after: usize) -> Option<(&str, usize)> {
    let rest = text[after..].trim_start_matches(' ');
    if !rest.starts_with('{') {
        return None;
    }
    let open = text.len() - rest.len();
    let mut depth = 0;
    for (i, byte) in text[open..].bytes().enumerate() {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&text[open + 1..open + i], open + i));
                }
            }
            _ => {}
        }
    }
    None
}

/// A box's content with any boxes it is made of opened: `\boxed{42}` inside a box is 42.
fn unwrap_nested(mut content: &str) -> &str {
    for _ in 0..MOST_NESTED {
        let trimmed = content.trim();
        let Some(command) = BOX.find(trimmed).filter(|m| m.start() == 0) else {
            return content;
        };
        match box_content(trimmed, command.end()) {
            Some((inner, close)) if trimmed[close + 1..].trim().is_empty() => content = inner,
            _ => return content,
        }
    }
    content
}

/// LaTeX commands that may stand before or after a number without making an expression
/// of it (boxes, spaces).
const NEUTRAL_COMMANDS: [&str; 5] = ["boxed", "fbox", "quad", "qquad", "displaystyle"];

/// The LaTeX command `text` ends with (`\sqrt` in `... \sqrt`), if any.
fn command_at_end(text: &str) -> Option<&str> {
    let letters = text.len()
        - text
            .trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .len();
    let name = &text[text.len() - letters..];
    (letters > 0 && text[..text.len() - letters].ends_with('\\')).then_some(name)
}

/// Whether the number at `start..end` of `text` stands inside an expression, so is not
/// a value offered on its own: an exponent or index (`x^3`, `a_2`), the argument of a
/// command (`\sqrt{17}`, `\sqrt 5`, `\frac{1+\sqrt{5}}{2}`), or a number a command or a
/// variable power follows (`2\pi`, `2^x`).
pub(crate) fn in_expression(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].trim_end_matches([' ', '{', '$']);
    if before.ends_with(['^', '_']) {
        return true;
    }
    if before.ends_with('}') && text[..start].trim_end_matches(' ').ends_with('{') {
        // The second braced argument of a command: `\frac{...}{2}`.
        return true;
    }
    if let Some(command) = command_at_end(before)
        && !NEUTRAL_COMMANDS.contains(&command)
    {
        return true;
    }
    let after = text[end..].trim_start_matches(' ');
    if let Some(rest) = after.strip_prefix('\\') {
        let name: &str = &rest[..rest
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(rest.len())];
        if !name.is_empty() && !NEUTRAL_COMMANDS.contains(&name) {
            return true;
        }
    }
    after
        .strip_prefix('^')
        .is_some_and(|power| power.starts_with(|c: char| c.is_ascii_alphabetic() || c == '\\'))
}

/// The expression around `start` as feedback shows it: the `$...$` span holding it on
/// its line, else the run of non-blank text around it.
pub(crate) fn expression_around(text: &str, start: usize) -> &str {
    let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |at| start + at);
    let open = text[line_start..start].rfind('$').map(|at| line_start + at);
    let close = text[start..line_end].find('$').map(|at| start + at);
    if let (Some(open), Some(close)) = (open, close) {
        return text[open + 1..close].trim();
    }
    let from = text[line_start..start]
        .rfind(char::is_whitespace)
        .map_or(line_start, |at| line_start + at + 1);
    let to = text[start..line_end]
        .find(char::is_whitespace)
        .map_or(line_end, |at| start + at);
    &text[from..to]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_latex_spelling_of_a_number_is_made_plain() {
        for (latex, plain_text) in [
            ("\\frac{1}{2}", "1/2"),
            ("\\dfrac34", "3/4"),
            ("\\cfrac{3}{4}", "3/4"),
            ("\\frac3{3}", "3/3"),
            ("\\frac{3}3", "3/3"),
            ("1{,}000", "1,000"),
            ("32,\\! 349", "32,349"),
            ("\\$5", "$5"),
            ("50\\%", "50%"),
        ] {
            assert_eq!(plain(latex), plain_text, "{latex}");
        }
        assert_eq!(plain("\\textnormal{42}").trim(), "42");
        assert_eq!(
            plain("x \\approx 11")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["x", "≈", "11"]
        );
    }

    #[test]
    fn boxes_are_read_with_their_braces_and_a_box_in_a_box_is_opened() {
        assert_eq!(boxes("a \\boxed{x^{2}} b \\fbox{7}"), ["x^{2}", "7"]);
        assert_eq!(boxes("\\boxed{\\boxed{42}}"), ["42"]);
        assert_eq!(boxes("\\boxed{ \\boxed{\\boxed{42}} }"), ["42"]);
        assert_eq!(
            boxes("\\boxed{\\boxed{4} + \\boxed{2}}"),
            ["\\boxed{4} + \\boxed{2}"]
        );
        assert_eq!(boxes("\\boxed{7"), Vec::<&str>::new());
        // Nine levels: opened eight deep, the rest is left as it is.
        let deep = format!("{}42{}", "\\boxed{".repeat(10), "}".repeat(10));
        assert_eq!(boxes(&deep), ["\\boxed{42}"]);
    }

    #[test]
    fn a_number_inside_an_expression_is_told_from_one_standing_alone() {
        let inside = |text: &str, number: &str| {
            let start = text.find(number).unwrap();
            in_expression(text, start, start + number.len())
        };
        assert!(inside("$x^3$", "3"));
        assert!(inside("a_2", "2"));
        assert!(inside("$\\sqrt{17}$", "17"));
        assert!(inside("\\sqrt 5", "5"));
        assert!(inside("\\frac{1+\\sqrt{5}}{2}", "2"));
        assert!(inside("\\frac{1+\\sqrt{5}}{2}", "1"));
        assert!(inside("2\\pi", "2"));
        assert!(inside("2^x", "2"));
        assert!(!inside("\\boxed{42}", "42"));
        assert!(!inside("$42$ apples", "42"));
        assert!(!inside("x = 5", "5"));
        assert!(!inside("\\quad 5", "5"));
        assert_eq!(expression_around("so $x^3$ it is", 7), "x^3");
        assert_eq!(expression_around("so x^3 it is", 5), "x^3");
    }
}
