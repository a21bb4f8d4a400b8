//! Finding the final answer of a worked solution the way the official scorers find
//! it, in this order: GSM8K's `#### N`, a `\boxed{...}` (unless a Minerva-style "Final
//! Answer: The final answer is N" comes after the last box), "the answer is N" (or
//! `Answer: N`, or another language's answer phrase), else the last number. Each place
//! gives the numbers offered as *the* answer, read as a person reads them:
//!
//! - a number a negation rejects is not offered (`not 42, it is 43` offers 43; `42 is
//!   wrong` offers nothing);
//! - after an answer phrase or `####`, the answer is the result of the working shown
//!   there: the number after its last `=`, `≈`, `so`, `thus`, `rounded up to`...
//!   (`96 - 24 = 72` offers 72), up to the end of the sentence or a reason (`because`);
//! - a number inside an expression (`\sqrt{17}`, `x^3`) is not a value: the final
//!   answer is then not a number;
//! - the first number there and any that follow it joined only by connectors (`or`,
//!   `and`, commas, `maybe`...) are offered together, so `41 or 42` offers two; the
//!   numbers of the working before it are never offered.

use std::sync::LazyLock;

use regex::Regex;

use super::latex::{boxes, expression_around, in_expression, plain};
use super::number::{Number, same, scan};
use crate::verify::answer_marker::{self, MOST_MARKERS};
use crate::verify::reading;

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
    /// The distinct numbers offered, as written, and where: one, several (a hedge), or
    /// more than [`MOST_HEDGED`] (a list, cut at one more than that).
    Numbers(Vec<(Number, String)>, Place),
    /// A final answer that is not a number (`\sqrt{2}`, `x^3`, `x+1`): the expression.
    NotANumber(String),
    /// No number anywhere that is not rejected.
    Nothing,
}

pub(crate) use crate::verify::reading::MOST_HEDGED;

/// Words and signs that may join the numbers of one offered answer.
const CONNECTORS: [&str; 8] = [
    "or", "and", "maybe", "perhaps", "possibly", "either", "nor", "vs",
];

static MARKER: LazyLock<Regex> = LazyLock::new(|| answer_marker::marker("answer", true, ""));

/// A Minerva-style closing line's phrase, which outranks the boxes before it.
static FINAL_MARKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bfinal\s+answer\b[*_]*\s*(?:is\b|[:=])").expect("the final pattern is valid")
});

/// What leads from working to its result inside an answer: `=`, `≈`, `so`, `thus`,
/// `rounded up to`.
static RESULT_LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)=>|→|=|≈|\b(?:so|thus|hence|therefore|giving|gives|rounded(?:\s+(?:up|down))?\s+to|rounds?(?:\s+(?:up|down))?\s+to)\b",
    )
    .expect("the result pattern is valid")
});

/// An operator right after a number: it is an operand of the working, not a result.
static OPERATOR_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[×*+÷/=−-]|\\times|\\cdot|\\div)").expect("the operator pattern is valid")
});

/// Whether the text between two numbers joins them into one offered answer: only
/// connectors, commas and the like, and an opening bracket only after one of them
/// (`41, (42)`; not `42 (2 checks)`).
fn joins(gap: &str) -> bool {
    let words = |text: &str| {
        text.split(|c: char| c.is_whitespace() || ",;/|&$*()".contains(c))
            .filter(|word| !word.is_empty())
            .map(|word| CONNECTORS.iter().any(|c| word.eq_ignore_ascii_case(c)))
            .collect::<Vec<bool>>()
    };
    if !words(gap).into_iter().all(|connector| connector) {
        return false;
    }
    match gap.find('(') {
        Some(open) => {
            let lead = &gap[..open];
            lead.contains([',', ';', '/', '|', '&']) || words(lead).contains(&true)
        }
        None => true,
    }
}

/// The numbers of a text, and which of them a negation rejects.
struct Reading<'a> {
    text: &'a str,
    numbers: Vec<Number>,
    rejected: Vec<bool>,
    /// For each number, the first number from it on that is not rejected (the count of
    /// numbers when none is): finding one is then a lookup, whatever runs of rejected
    /// numbers a text holds.
    next_kept: Vec<usize>,
}

impl<'a> Reading<'a> {
    fn new(text: &'a str) -> Reading<'a> {
        let numbers = scan(text);
        let spans: Vec<(usize, usize)> = numbers.iter().map(|n| (n.start, n.end)).collect();
        let rejected = reading::rejected(text, &spans, joins);
        let mut next_kept = vec![numbers.len(); numbers.len() + 1];
        for i in (0..numbers.len()).rev() {
            next_kept[i] = if rejected[i] { next_kept[i + 1] } else { i };
        }
        Reading {
            text,
            numbers,
            rejected,
            next_kept,
        }
    }

    /// The first number starting at or after byte `at`.
    fn first_from(&self, at: usize) -> usize {
        self.numbers.partition_point(|n| n.start < at)
    }

    /// The first number not rejected in `from..to`.
    fn first_kept(&self, from: usize, to: usize) -> Option<usize> {
        let kept = self.next_kept[self.first_from(from)];
        (kept < self.numbers.len() && self.numbers[kept].end <= to).then_some(kept)
    }

    /// The numbers offered from number `first` on: it and each next one joined to it,
    /// up to byte `to`, rejected ones left out, until one more than [`MOST_HEDGED`]
    /// different values are found.
    fn run_from(&self, first: usize, to: usize) -> Vec<(Number, String)> {
        let mut run = vec![first];
        let mut values = vec![self.numbers[first]];
        let mut at = first;
        while values.len() <= MOST_HEDGED
            && at + 1 < self.numbers.len()
            && self.numbers[at + 1].end <= to
            && joins(&self.text[self.numbers[at].end..self.numbers[at + 1].start])
        {
            at += 1;
            if self.rejected[at] {
                continue;
            }
            let number = self.numbers[at];
            if !values.iter().any(|kept| alike(kept, &number)) {
                values.push(number);
                run.push(at);
            }
        }
        self.written(&run)
    }

    fn written(&self, indices: &[usize]) -> Vec<(Number, String)> {
        indices
            .iter()
            .map(|&i| {
                let n = self.numbers[i];
                (n, self.text[n.start..n.end].to_string())
            })
            .collect()
    }

    /// What the answer after byte `from` offers: on the first non-blank line there, up
    /// to the end of its first sentence or a reason, the result of any working shown
    /// (after the last `=`, `so`, ... that a number not rejected and not an operand
    /// follows), else its first number not rejected; `None` when none is there.
    fn answer_after(&self, from: usize) -> Option<Final> {
        let rest = &self.text[from..];
        let start = from + (rest.len() - rest.trim_start().len());
        let line = answer_marker::first_line(rest);
        let mut end = start + line.len();
        let segment = &self.text[start..end];
        let first = self.first_kept(start, end)?;
        let first_at = self.numbers[first].start - start;
        // The answer is in the first sentence: text before it is not an answer here.
        if answer_marker::sentence_end(&segment[..first_at], 0).is_some() {
            return None;
        }
        if let Some(stop) = answer_marker::sentence_end(segment, first_at) {
            end = end.min(start + stop);
        }
        if let Some(reason) = reading::reason_start(&self.text[start..end]) {
            end = end.min(start + reason);
        }
        let result = RESULT_LINK
            .find_iter(&self.text[start..end])
            .filter_map(|link| self.first_kept(start + link.end(), end))
            .filter(|&i| !OPERATOR_AFTER.is_match(&self.text[self.numbers[i].end..end]))
            .last();
        let first = result.or_else(|| self.first_kept(start, end))?;
        let number = self.numbers[first];
        if in_expression(self.text, number.start, number.end) {
            let shown = expression_around(self.text, number.start).to_string();
            return Some(Final::NotANumber(shown));
        }
        Some(Final::Numbers(self.run_from(first, end), Place::Marker))
    }

    /// What a box's content offers: the numbers after its last `=` or `≈`, or `None`
    /// when that is not a number (`x + 1`, `\sqrt{2}`).
    fn boxed(&self, content: &str) -> Option<Vec<(Number, String)>> {
        let offset = content.as_ptr() as usize - self.text.as_ptr() as usize;
        let value_at = content.rfind(['=', '≈']).map_or(0, |at| {
            at + content[at..].chars().next().map_or(1, char::len_utf8)
        });
        let value = &content[value_at..];
        if value.contains('\\') {
            return None;
        }
        let (from, to) = (offset + value_at, offset + content.len());
        let first = self.first_kept(from, to)?;
        let number = self.numbers[first];
        let lead = &self.text[from..number.start];
        if !lead.trim_matches(['$', '(', ' ']).is_empty()
            || in_expression(self.text, number.start, number.end)
        {
            return None;
        }
        Some(self.run_from(first, to))
    }
}

/// Whether two offered numbers are one answer: the same value, both percents or not.
fn alike(a: &Number, b: &Number) -> bool {
    same(a.value(), b.value()) && a.percent == b.percent
}

/// Keeps the first of numbers of the same value, up to one more than [`MOST_HEDGED`].
fn distinct(numbers: Vec<(Number, String)>) -> Vec<(Number, String)> {
    let mut kept: Vec<(Number, String)> = Vec::new();
    for (number, shown) in numbers {
        if kept.len() > MOST_HEDGED {
            break;
        }
        if !kept.iter().any(|(k, _)| alike(k, &number)) {
            kept.push((number, shown));
        }
    }
    kept
}

/// The final answer of `output`.
pub(crate) fn final_answer(output: &str) -> Final {
    let folded = reading::fold(output);
    let text = plain(&folded);
    let reading = Reading::new(&text);
    // `####`: every occurrence offers its numbers (the last MOST_MARKERS of them, so a
    // line of a million `####` costs linear work, as the answer phrases do).
    let mut offered = Vec::new();
    let hashes: Vec<usize> = text.match_indices("####").map(|(at, _)| at).collect();
    for &at in hashes.iter().rev().take(MOST_MARKERS).rev() {
        let after = text[at..].trim_start_matches('#');
        match reading.answer_after(text.len() - after.len()) {
            Some(Final::Numbers(numbers, _)) => offered.extend(numbers),
            Some(other) if hashes.len() == 1 => return other,
            _ => {}
        }
    }
    if !offered.is_empty() {
        return Final::Numbers(distinct(offered), Place::Hashes);
    }
    // `\boxed{}`: every box offers its numbers; one that holds no number is an answer
    // that is not a number. A closing "final answer is" after the last box outranks it.
    let boxed = boxes(&text);
    if let Some(last) = boxed.last() {
        let after_boxes = last.as_ptr() as usize - text.as_ptr() as usize + last.len();
        let closing = FINAL_MARKER
            .find_iter(&text[after_boxes..])
            .last()
            .and_then(|m| reading.answer_after(after_boxes + m.end()));
        if let Some(found @ Final::Numbers(..)) = closing {
            return found;
        }
        let mut offered = Vec::new();
        for content in &boxed {
            match reading.boxed(content) {
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
    for after in answer_marker::after_markers(&MARKER, &text) {
        if let Some(found) = reading.answer_after(after) {
            return found;
        }
    }
    // The last number not rejected, and those joined to it before it.
    let Some(last) = (0..reading.numbers.len()).rfind(|&i| !reading.rejected[i]) else {
        return Final::Nothing;
    };
    let number = reading.numbers[last];
    if in_expression(&text, number.start, number.end) {
        return Final::NotANumber(expression_around(&text, number.start).to_string());
    }
    let mut run = vec![last];
    let mut values = vec![number];
    let mut first = last;
    while first > 0
        && values.len() <= MOST_HEDGED
        && joins(&text[reading.numbers[first - 1].end..reading.numbers[first].start])
    {
        first -= 1;
        let earlier = reading.numbers[first];
        if !reading.rejected[first] && !values.iter().any(|kept| alike(kept, &earlier)) {
            values.push(earlier);
            run.push(first);
        }
    }
    run.reverse();
    Final::Numbers(distinct(reading.written(&run)), Place::Last)
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
        assert_eq!((offered.len(), place), (MOST_HEDGED + 1, Some(Place::Last)));
        let boxes = "\\boxed \\fbox x".repeat(100_000);
        assert_eq!(final_answer(&boxes), Final::Nothing);
        let phrases = "the answer is: ".repeat(100_000) + "7";
        says(&phrases, &["7"], Place::Marker);
        // Only the last MOST_MARKERS `####` are read: the answer after them is found.
        let hashes = "#### ".repeat(100_000) + "7";
        says(&hashes, &["7"], Place::Hashes);
        // A line of a hundred thousand results each rejected: one lookup each.
        let rejected = "Answer: ".to_string() + &"= not 1 ".repeat(100_000) + "= 7";
        says(&rejected, &["7"], Place::Marker);
        let repeated = "#### ".to_string() + &"1 ".repeat(200_000) + "2";
        says(&repeated, &["1", "2"], Place::Hashes);
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
