//! Finding the final answer of a worked solution the way the official scorers find
//! it, in this order: GSM8K's `#### N`, a `\boxed{...}`, "the answer is N" (or
//! `Answer: N`), else the last number. Each place gives the numbers offered as *the*
//! answer: the first number there and any that follow it joined only by connectors
//! (`or`, `and`, commas, `maybe`...), so `41 or 42` offers two; the numbers of the
//! working before it are never offered.

use std::sync::LazyLock;

use regex::Regex;

use super::number::{Number, same, scan};
use crate::verify::answer_marker::{self, MOST_MARKERS};

/// Where the final answer was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// After `####`.
    Hashes,
    /// Inside `\boxed{}`.
    Boxed,
    /// After "the answer is" or `Answer:`.
    Marker,
    /// The last number of the text.
    Last,
}

/// What an output offers as its final answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Final {
    /// The distinct numbers offered (one, or several: a hedge), as written, and where.
    Numbers(Vec<(Number, String)>, Place),
    /// A `\boxed{}` that holds no number (`\sqrt{2}`, `x+1`): its content.
    NotANumber(String),
    /// No number anywhere.
    Nothing,
}

/// Words and signs that may join the numbers of one offered answer.
const CONNECTORS: [&str; 8] = [
    "or", "and", "maybe", "perhaps", "possibly", "either", "nor", "vs",
];

static MARKER: LazyLock<Regex> = LazyLock::new(|| answer_marker::marker("answer", true, ""));

static FRAC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\\[dt]?frac\s*\{\s*(-?[0-9.,]+)\s*\}\s*\{\s*([0-9.,]+)\s*\}|\\[dt]?frac([0-9])([0-9])",
    )
    .expect("the fraction pattern is valid")
});

static BOX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\\(?:boxed|fbox)").expect("the box pattern is valid"));

static TEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\\(?:text|textbf|mathrm|mathbf|mbox)\s*\{([^{}]*)\}")
        .expect("the text pattern is valid")
});

/// LaTeX that spells numbers, made plain: `\frac{1}{2}` is `1/2`, `\%` is `%`, `1{,}000`
/// is `1,000`, `\text{ or }` is ` or `, spacing commands go.
pub(crate) fn plain(text: &str) -> String {
    if !text.contains('\\') && !text.contains('{') {
        return text.to_string();
    }
    let text = FRAC.replace_all(text, |c: &regex::Captures<'_>| {
        let (top, bottom) = match (c.get(1), c.get(2)) {
            (Some(top), Some(bottom)) => (top.as_str(), bottom.as_str()),
            _ => (&c[3], &c[4]),
        };
        format!("{top}/{bottom}")
    });
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
    ] {
        if text.contains(from) {
            text = text.replace(from, to);
        }
    }
    text
}

/// Whether the text between two numbers joins them into one offered answer.
fn joins(gap: &str) -> bool {
    gap.split(|c: char| c.is_whitespace() || ",;/|&$*()".contains(c))
        .filter(|word| !word.is_empty())
        .all(|word| CONNECTORS.iter().any(|c| word.eq_ignore_ascii_case(c)))
}

/// At most this many numbers make one offered answer: a longer list is a hedge all the
/// same, and the bound keeps the work on any input linear.
pub(crate) const MOST_OFFERED: usize = 1000;

/// The numbers offered from `first` on: it and each next one joined to it.
fn run_from(text: &str, numbers: &[Number], first: usize) -> Vec<Number> {
    let mut run = vec![numbers[first]];
    for pair in numbers[first..].windows(2).take(MOST_OFFERED - 1) {
        if !joins(&text[pair[0].end..pair[1].start]) {
            break;
        }
        run.push(pair[1]);
    }
    run
}

/// The numbers `text` offers from `from` on: the first number of the first non-blank
/// line there, before any end of sentence, and those joined to it, as written.
fn offered_from(text: &str, from: usize) -> Vec<(Number, String)> {
    let line = answer_marker::first_line(&text[from..]);
    let numbers = scan(line);
    let Some(first) = numbers.first() else {
        return Vec::new();
    };
    if answer_marker::sentence_end(&line[..first.start], 0).is_some() {
        return Vec::new();
    }
    written(line, run_from(line, &numbers, 0))
}

/// The contents of every `\boxed{...}` and `\fbox{...}`, braces balanced.
fn boxes(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut from = 0;
    for command in BOX.find_iter(text) {
        if command.start() < from {
            continue;
        }
        let after = text[command.end()..].trim_start_matches(' ');
        if !after.starts_with('{') {
            continue;
        }
        let open = text.len() - after.len();
        let mut depth = 0;
        let mut close = None;
        for (i, byte) in text[open..].bytes().enumerate() {
            match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(open + i);
                        break;
                    }
                }
                _ => {}
            }
        }
        // An unclosed box runs to the end: no later box can close either.
        let Some(close) = close else { break };
        found.push(&text[open + 1..close]);
        from = close + 1;
    }
    found
}

/// The numbers a box's content offers, or `None` when it is not a number.
fn boxed_numbers(content: &str) -> Option<Vec<(Number, String)>> {
    let content = plain(content);
    let value = content.rsplit('=').next().unwrap_or_default().trim();
    let value = value.trim_start_matches(['$', '(', ' ']);
    if value.contains('\\') {
        return None;
    }
    let numbers = scan(value);
    let first = numbers.first()?;
    let lead = &value[..first.start];
    if !lead.trim().is_empty() {
        return None;
    }
    Some(written(value, run_from(value, &numbers, 0)))
}

fn written(text: &str, numbers: Vec<Number>) -> Vec<(Number, String)> {
    numbers
        .into_iter()
        .map(|n| (n, text[n.start..n.end].to_string()))
        .collect()
}

/// Keeps the first of numbers of the same value.
fn distinct(numbers: Vec<(Number, String)>) -> Vec<(Number, String)> {
    let mut kept: Vec<(Number, String)> = Vec::new();
    for (number, shown) in numbers {
        if !kept
            .iter()
            .any(|(k, _)| same(k.value(), number.value()) && k.percent == number.percent)
        {
            kept.push((number, shown));
        }
    }
    kept
}

/// The final answer of `output`.
pub(crate) fn final_answer(output: &str) -> Final {
    let text = plain(output);
    let text = text.as_str();
    // `####`: every occurrence offers its numbers (the last MOST_MARKERS of them, so a
    // line of a million `####` costs linear work, as the answer phrases do).
    let mut offered = Vec::new();
    let hashes: Vec<usize> = text.match_indices("####").map(|(at, _)| at).collect();
    for &at in hashes.iter().rev().take(MOST_MARKERS).rev() {
        let after = text[at..].trim_start_matches('#');
        offered.extend(offered_from(text, text.len() - after.len()));
    }
    if !offered.is_empty() {
        return Final::Numbers(distinct(offered), Place::Hashes);
    }
    // `\boxed{}`: every box offers its numbers; one that holds no number is an answer
    // that is not a number.
    let boxed = boxes(output);
    if !boxed.is_empty() {
        let mut offered = Vec::new();
        for content in &boxed {
            match boxed_numbers(content) {
                Some(numbers) => offered.extend(numbers),
                None if boxed.len() == 1 => return Final::NotANumber(content.trim().to_string()),
                None => {}
            }
        }
        if !offered.is_empty() {
            return Final::Numbers(distinct(offered), Place::Boxed);
        }
    }
    // "The answer is": the last marker that a number follows.
    for after in answer_marker::after_markers(&MARKER, text) {
        let numbers = offered_from(text, after);
        if !numbers.is_empty() {
            return Final::Numbers(distinct(numbers), Place::Marker);
        }
    }
    // The last number, and those joined to it before it.
    let numbers = scan(text);
    let Some(last) = numbers.len().checked_sub(1) else {
        return Final::Nothing;
    };
    let mut first = last;
    while first > 0
        && last - first < MOST_OFFERED - 1
        && joins(&text[numbers[first - 1].end..numbers[first].start])
    {
        first -= 1;
    }
    Final::Numbers(
        distinct(written(text, numbers[first..].to_vec())),
        Place::Last,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offered(output: &str) -> (Vec<String>, Option<Place>) {
        match final_answer(output) {
            Final::Numbers(numbers, place) => {
                (numbers.into_iter().map(|(_, s)| s).collect(), Some(place))
            }
            Final::NotANumber(content) => (vec![format!("not a number: {content}")], None),
            Final::Nothing => (Vec::new(), None),
        }
    }

    fn says(output: &str, expected: &[&str], place: Place) {
        assert_eq!(
            offered(output),
            (
                expected.iter().map(|s| s.to_string()).collect(),
                Some(place)
            ),
            "{output:?}"
        );
    }

    #[test]
    fn finds_the_final_answer_in_the_official_order() {
        says("3*7 = 21 eggs\n#### 21", &["21"], Place::Hashes);
        says("#### $57,500", &["$57,500"], Place::Hashes);
        says(
            "So \\boxed{12} is it. The answer is 13",
            &["12"],
            Place::Boxed,
        );
        says("$\\boxed{\\frac{3}{4}}$", &["3/4"], Place::Boxed);
        says("\\boxed{x = -5}", &["-5"], Place::Boxed);
        says("\\boxed{1{,}000\\text{ cm}}", &["1,000"], Place::Boxed);
        says("2+3=5, so the answer is 5 apples.", &["5"], Place::Marker);
        says("**Answer:** 42", &["42"], Place::Marker);
        says("Final answer:\n\n  17", &["17"], Place::Marker);
        says("We get 4 + 5 = 9.", &["9"], Place::Last);
        says("It costs $1,234.50.", &["$1,234.50"], Place::Last);
    }

    #[test]
    fn two_values_offered_as_the_answer_are_both_found() {
        says("#### 41 42", &["41", "42"], Place::Hashes);
        says("#### 41\n#### 42", &["41", "42"], Place::Hashes);
        says("\\boxed{41} or \\boxed{42}", &["41", "42"], Place::Boxed);
        says("The answer is 41 or 42.", &["41", "42"], Place::Marker);
        says("Either 41, or maybe 42", &["41", "42"], Place::Last);
        says("1, 2, 3, 4, 5", &["1", "2", "3", "4", "5"], Place::Last);
        says("#### 7\n#### 7.0", &["7"], Place::Hashes);
    }

    #[test]
    fn the_numbers_of_the_working_are_not_offered() {
        says(
            "She has 3 + 4 = 7 apples and eats 2, so 5 are left.\n#### 5",
            &["5"],
            Place::Hashes,
        );
        says("2 and 3 make 5; the answer is 5", &["5"], Place::Marker);
        says(
            "The answer is 5 because 2 + 3 = 5 and not 6.",
            &["5"],
            Place::Marker,
        );
        says(
            "Step 1: 12 / 4 = 3. Step 2: 3 * 5 = 15",
            &["15"],
            Place::Last,
        );
    }

    #[test]
    fn long_lists_and_many_phrases_take_linear_work() {
        let list: Vec<String> = (0..200_000).map(|i| i.to_string()).collect();
        let (offered, place) = offered(&list.join(", "));
        assert_eq!((offered.len(), place), (MOST_OFFERED, Some(Place::Last)));
        let boxes = "\\boxed \\fbox x".repeat(100_000);
        assert_eq!(final_answer(&boxes), Final::Nothing);
        let phrases = "the answer is: ".repeat(100_000) + "7";
        says(&phrases, &["7"], Place::Marker);
        // Only the last MOST_MARKERS `####` are read: the answer after them is found.
        let hashes = "#### ".repeat(100_000) + "7";
        says(&hashes, &["7"], Place::Hashes);
    }

    #[test]
    fn an_exponent_at_the_edge_of_i64_is_a_number_not_an_overflow() {
        // `exponent - fraction digits` overflowed (a panic in debug builds).
        let (offered, _) = offered("The answer is 1.5e-9223372036854775808");
        assert_eq!(offered.len(), 1, "{offered:?}");
    }

    #[test]
    fn a_box_without_a_number_and_a_text_without_one_are_told_apart() {
        assert_eq!(offered("\\boxed{\\sqrt{2}}").0, ["not a number: \\sqrt{2}"]);
        assert_eq!(offered("I cannot say."), (Vec::new(), None));
        says(
            "The answer is unclear. I got 8 earlier",
            &["8"],
            Place::Last,
        );
    }
}
