//! Making untrusted text (task ids, strata values, file names, a model's words quoted in
//! feedback) inert before it reaches a report. In Markdown nothing it holds may become
//! markup, HTML, a table cell break, a mention, an issue link or a live URL; in plain
//! text nothing may move the terminal's cursor or reorder what is shown.
//!
//! One sanitiser per medium: [`super::terminal`] for everything a command prints,
//! [`markdown`] for Markdown, [`json_fragment`] for JSON; CSV cells go through
//! [`crate::base::csv`] and SVG text through the plot writer's XML escaping.

use std::borrow::Cow;

use crate::base::bidi::is_bidi_control;

/// U+200D ZERO WIDTH JOINER: invisible, but it stops GitHub's autolinkers, which run on
/// the rendered text where a backslash escape has already been consumed.
const JOINER: char = '\u{200D}';

/// Flattens text to one line: every control character (newlines, tabs, ESC) becomes a
/// space, bidirectional overrides and isolates are removed, runs of whitespace become
/// one space, and the ends are trimmed.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for ch in text.chars() {
        if is_bidi_control(ch) {
            continue;
        }
        if ch.is_whitespace() || ch.is_control() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(ch);
    }
    out
}

/// The JSON sanitiser, for a run of string characters that serde_json leaves unescaped
/// (it escapes the C0 controls, `"` and `\\` itself): DEL, the C1 controls and the
/// bidirectional controls are written as `\\uXXXX` escapes, so the document means the
/// same and no raw control character reaches a terminal that shows it.
pub fn json_fragment(fragment: &str) -> Cow<'_, str> {
    if !fragment.chars().any(super::terminal::acts_on_terminal) {
        return Cow::Borrowed(fragment);
    }
    let mut out = String::with_capacity(fragment.len() + 16);
    for ch in fragment.chars() {
        if super::terminal::acts_on_terminal(ch) {
            // Every such character is in the Basic Multilingual Plane.
            out.push_str(&format!("\\u{:04x}", u32::from(ch)));
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// Escapes `text` for a Markdown paragraph, list item or table cell (GitHub Flavored
/// Markdown).
///
/// The text is flattened with [`plain`], then every character that Markdown or HTML
/// could act on inside a line gets a backslash (`` \ ` * _ [ ] ( ) < > # ! ~ | & $ ``;
/// `|` so a cell cannot be split, `$` for math), a leading `-`, `+`, `=`, `1.` or `1)` cannot
/// start a block, and a joiner goes after `@` (mentions,
/// e-mail links), after `#` before a digit (issue links) and inside `://` and `www.`
/// (bare URLs). What a reader sees is the original text.
pub fn markdown(text: &str) -> String {
    let flat = plain(text);
    let chars: Vec<char> = flat.chars().collect();
    let mut out = String::with_capacity(flat.len() + 8);
    let mut leading_digits = true;
    for (index, &ch) in chars.iter().enumerate() {
        let next = chars.get(index + 1).copied();
        match ch {
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '<' | '>' | '#' | '!' | '~' | '|'
            | '&' | '$' => {
                out.push('\\');
                out.push(ch);
            }
            // Only at the start can these open a list, a heading underline or a quote.
            '-' | '+' | '=' if index == 0 => {
                out.push('\\');
                out.push(ch);
            }
            '.' if leading_digits && index > 0 => {
                out.push('\\');
                out.push(ch);
            }
            _ => out.push(ch),
        }
        match ch {
            '@' => out.push(JOINER),
            '#' if next.is_some_and(|c| c.is_ascii_digit()) => out.push(JOINER),
            ':' if chars.get(index + 1..index + 3) == Some(&['/', '/']) => out.push(JOINER),
            'w' | 'W'
                if index >= 2
                    && next == Some('.')
                    && chars[index - 2..index]
                        .iter()
                        .all(|c| c.eq_ignore_ascii_case(&'w')) =>
            {
                out.push(JOINER)
            }
            _ => {}
        }
        leading_digits = leading_digits && ch.is_ascii_digit();
    }
    out
}

/// [`markdown`] of at most `limit` characters of the flattened text, with `…` when cut.
pub fn markdown_clipped(text: &str, limit: usize) -> String {
    let flat = plain(text);
    if flat.chars().count() <= limit {
        return markdown(&flat);
    }
    let cut: String = flat.chars().take(limit).collect();
    format!("{}…", markdown(&cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_cannot_split_a_table_cell() {
        assert_eq!(markdown("a | b"), "a \\| b");
    }

    #[test]
    fn backticks_and_emphasis_stay_literal() {
        assert_eq!(
            markdown("`code` *b* _i_ ~s~"),
            "\\`code\\` \\*b\\* \\_i\\_ \\~s\\~"
        );
    }

    #[test]
    fn html_cannot_open_a_tag_or_an_entity() {
        assert_eq!(
            markdown("<script>alert(1)</script> &lt;"),
            "\\<script\\>alert\\(1\\)\\</script\\> \\&lt;"
        );
    }

    #[test]
    fn links_and_images_cannot_form() {
        assert_eq!(markdown("![x](y)"), "\\!\\[x\\]\\(y\\)");
        assert_eq!(markdown("[a]: b"), "\\[a\\]: b");
    }

    #[test]
    fn mentions_get_a_joiner_so_nobody_is_pinged() {
        assert_eq!(markdown("ask @someone"), "ask @\u{200D}someone");
        assert_eq!(markdown("me@example.com"), "me@\u{200D}example.com");
    }

    #[test]
    fn issue_references_get_a_joiner_and_headings_cannot_start() {
        assert_eq!(markdown("fixes #12"), "fixes \\#\u{200D}12");
        assert_eq!(markdown("# title"), "\\# title");
    }

    #[test]
    fn bare_urls_are_not_linked() {
        assert_eq!(
            markdown("see https://x.test and www.x.test"),
            "see https:\u{200D}//x.test and www\u{200D}.x.test"
        );
    }

    #[test]
    fn newlines_flatten_to_spaces_and_list_markers_cannot_start() {
        assert_eq!(
            markdown("line one\n\n- two\r\n\tthree"),
            "line one - two three"
        );
        assert_eq!(markdown("- item"), "\\- item");
        assert_eq!(markdown("12. item"), "12\\. item");
        assert_eq!(markdown("3) item"), "3\\) item");
        assert_eq!(markdown("1706.03762:id"), "1706\\.03762:id");
        assert_eq!(markdown("a 1. b"), "a 1. b");
        assert_eq!(markdown("=SUM(A1)"), "\\=SUM\\(A1\\)");
        assert_eq!(markdown("kind=year -0.5 $x$"), "kind=year -0.5 \\$x\\$");
    }

    #[test]
    fn plain_text_drops_terminal_escapes_and_bidi_overrides() {
        assert_eq!(plain("a\u{1b}[31mred\u{202E}x\ny"), "a [31mredx y");
        assert_eq!(plain("  spaced \t out  "), "spaced out");
        // Every directional mark goes, the Arabic letter mark included.
        assert_eq!(plain("a\u{200E}b\u{200F}c\u{061C}d\u{2067}e"), "abcde");
    }

    #[test]
    fn json_strings_keep_their_meaning_with_controls_escaped() {
        let shown = json_fragment("x\u{7f}y\u{202E}z\u{85}");
        assert_eq!(shown, "x\\u007fy\\u202ez\\u0085");
        let parsed: String = serde_json::from_str(&format!("\"{shown}\"")).unwrap();
        assert_eq!(parsed, "x\u{7f}y\u{202E}z\u{85}");
    }

    #[test]
    fn clipping_counts_characters_and_marks_the_cut() {
        assert_eq!(markdown_clipped("abcdef", 3), "abc…");
        assert_eq!(markdown_clipped("é|", 5), "é\\|");
    }
}
