//! Numbers as answers write them: integers, decimals, fractions `a/b`, percents,
//! scientific notation (`1.5e3`, `1.5 × 10^3`), thousands separators (`1,234,567`),
//! a leading `$` and a minus sign (`-` or `−`). [`scan`] finds every one in a text,
//! with where it stands; [`agree`] says whether two are the same answer.

/// A number's value as written (before any percent sign is applied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Value {
    /// The value.
    pub float: f64,
    /// The value, when it is an integer that fits an `i128`: integers compare exactly.
    pub integer: Option<i128>,
}

/// One number found in a text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Number {
    /// The value before any percent sign: `50` for `50%`.
    pub written: Value,
    /// Whether a `%`, `\%` or the word `percent` follows it.
    pub percent: bool,
    /// Where it starts in the text (its sign or `$`, if any).
    pub start: usize,
    /// Where it ends in the text.
    pub end: usize,
}

/// Two values agree when they differ by at most this share of the larger magnitude.
pub(crate) const RELATIVE_TOLERANCE: f64 = 1e-6;

/// An answer agrees with an integer truth only when it is also within this much of it:
/// `42.0000001` gives 42, `123456900.5` does not give 123456789 (though within 10^-6
/// of it).
pub(crate) const INTEGER_TOLERANCE: f64 = 1e-6;

impl Number {
    /// The value the number stands for: `0.5` for `50%`.
    pub(crate) fn value(&self) -> Value {
        if !self.percent {
            return self.written;
        }
        let integer = self
            .written
            .integer
            .filter(|i| i % 100 == 0)
            .map(|i| i / 100);
        Value {
            float: self.written.float / 100.0,
            integer,
        }
    }
}

/// Whether two values are equal: exactly when both are integers, else within
/// [`RELATIVE_TOLERANCE`]. A value beyond `f64` (`1e400`, a 400-digit integer) or
/// below its smallest normal magnitude (`1e-400`, read as not a number) equals
/// nothing: infinity is within any share of itself, and `1e-400` would be 0.
pub(crate) fn same(a: Value, b: Value) -> bool {
    if let (Some(x), Some(y)) = (a.integer, b.integer) {
        return x == y;
    }
    if !(a.float.is_finite() && b.float.is_finite()) {
        return false;
    }
    let scale = a.float.abs().max(b.float.abs());
    (a.float - b.float).abs() <= RELATIVE_TOLERANCE * scale
}

/// Whether the answer's value `answer` gives the truth's value `truth`: [`same`], and
/// for an integer truth also within [`INTEGER_TOLERANCE`] of it, so that the relative
/// tolerance of a large integer does not accept a decimal off by a hundred.
pub(crate) fn gives(answer: Value, truth: Value) -> bool {
    if !same(answer, truth) {
        return false;
    }
    match (truth.integer, answer.integer) {
        (Some(_), Some(_)) | (None, _) => true,
        (Some(_), None) => (answer.float - truth.float).abs() <= INTEGER_TOLERANCE,
    }
}

/// Whether `answer` gives the number `truth`: the same value (`1/2`, `0.5` and `50%`
/// agree), or one side is a percent and the other is its number (`50%` and `50`).
pub(crate) fn agree(answer: &Number, truth: &Number) -> bool {
    gives(answer.value(), truth.value())
        || (truth.percent && gives(answer.value(), truth.written))
        || (answer.percent && gives(answer.written, truth.value()))
}

fn digit_at(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_some_and(u8::is_ascii_digit)
}

fn digits_from(bytes: &[u8], mut at: usize) -> usize {
    while digit_at(bytes, at) {
        at += 1;
    }
    at
}

const MINUS: &str = "\u{2212}";

/// Every number in `text`, in order. A number does not start inside a word (`H2O`,
/// `v3`); a minus sign counts when it does not follow a letter or digit (`3-5` is two
/// numbers, a range); a period that no digit follows ends the sentence, not the number.
pub(crate) fn scan(text: &str) -> Vec<Number> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let starts = byte.is_ascii_digit() || (byte == b'.' && digit_at(bytes, at + 1));
        if !starts {
            at += 1;
            continue;
        }
        let inside_word =
            at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        if inside_word {
            while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'.') {
                at += 1;
            }
            continue;
        }
        let (number, end) = read_number(text, at);
        found.push(number);
        at = end;
    }
    found
}

/// The start of a number whose digits start at `digits`: back over a `$` and a minus
/// sign (either order), and whether it is negative.
fn sign_before(text: &str, digits: usize) -> (usize, bool) {
    let bytes = text.as_bytes();
    let mut start = digits;
    if start > 0 && bytes[start - 1] == b'$' {
        start -= 1;
    }
    let minus = if start > 0 && bytes[start - 1] == b'-' {
        Some(start - 1)
    } else if text[..start].ends_with(MINUS) {
        Some(start - MINUS.len())
    } else {
        None
    };
    if let Some(sign) = minus {
        let after_word = sign > 0 && bytes[sign - 1].is_ascii_alphanumeric();
        if !after_word {
            start = sign;
            if start > 0 && bytes[start - 1] == b'$' {
                start -= 1;
            }
            return (start, true);
        }
    }
    (start, false)
}

/// Reads the number whose digits (or decimal point) start at `at`.
fn read_number(text: &str, at: usize) -> (Number, usize) {
    let bytes = text.as_bytes();
    let (start, negative) = sign_before(text, at);
    let mut whole = String::new();
    let mut end = digits_from(bytes, at);
    whole.push_str(&text[at..end]);
    // Thousands separators: groups of exactly three digits after one to three.
    if (1..=3).contains(&(end - at)) {
        while bytes.get(end) == Some(&b',')
            && (1..=3).all(|k| digit_at(bytes, end + k))
            && !digit_at(bytes, end + 4)
        {
            whole.push_str(&text[end + 1..end + 4]);
            end += 4;
        }
    }
    let mut fraction = "";
    if bytes.get(end) == Some(&b'.') && digit_at(bytes, end + 1) {
        let stop = digits_from(bytes, end + 1);
        fraction = &text[end + 1..stop];
        end = stop;
    }
    let mut exponent: i64 = 0;
    if let Some((power, stop)) = exponent_at(text, end) {
        exponent = power;
        end = stop;
    }
    let mut value = decimal_value(&whole, fraction, exponent);
    let mut ratio = false;
    if fraction.is_empty()
        && exponent == 0
        && bytes.get(end) == Some(&b'/')
        && digit_at(bytes, end + 1)
    {
        let stop = digits_from(bytes, end + 1);
        if let Some(quotient) = ratio_value(&whole, &text[end + 1..stop]) {
            value = quotient;
            end = stop;
            ratio = true;
        }
    }
    if exponent == 0
        && !ratio
        && bytes.get(end) == Some(&b'^')
        && let Some((power, stop)) = power_at(text, end + 1)
    {
        value = raised(value, power);
        end = stop;
    }
    let (percent, stop) = percent_at(text, end);
    if negative {
        value.float = -value.float;
        value.integer = value.integer.map(|i| -i);
    }
    let end = stop.max(end);
    let number = Number {
        written: value,
        percent,
        start,
        end,
    };
    (number, end)
}

/// An exponent at `at`: `e3`, `E-4`, or `× 10^3`, `x 10^{-3}`, `\times 10^{3}`,
/// `\cdot 10^3`, `* 10^3`, `· 10^3`; the power and where it ends.
fn exponent_at(text: &str, at: usize) -> Option<(i64, usize)> {
    let bytes = text.as_bytes();
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        let mut digits = at + 1;
        if matches!(bytes.get(digits), Some(b'+' | b'-')) {
            digits += 1;
        }
        let stop = digits_from(bytes, digits);
        let letter_follows = bytes.get(stop).is_some_and(u8::is_ascii_alphabetic);
        if stop > digits && !letter_follows {
            return Some((power_of(&text[at + 1..stop]), stop));
        }
        return None;
    }
    let rest = &text[at..];
    let trimmed = rest.trim_start_matches(' ');
    let times = ["\\times", "\\cdot", "×", "·", "x", "*"]
        .iter()
        .find(|t| trimmed.starts_with(**t))?;
    let after = trimmed[times.len()..].trim_start_matches(' ');
    let power = after.strip_prefix("10^")?;
    let (braced, power) = match power.strip_prefix('{') {
        Some(inner) => (true, inner),
        None => (false, power),
    };
    let sign = usize::from(power.starts_with('-') || power.starts_with('+'));
    let length = sign + power[sign..].bytes().take_while(u8::is_ascii_digit).count();
    if length == sign {
        return None;
    }
    let value = power_of(&power[..length]);
    let mut stop = text.len() - power.len() + length;
    if braced {
        if bytes.get(stop) != Some(&b'}') {
            return None;
        }
        stop += 1;
    }
    Some((value, stop))
}

/// The power a signed run of digits writes; one past `i64` saturates, so that
/// `1e99999999999999999999` is too large a number rather than `1` and `e...` after it.
fn power_of(digits: &str) -> i64 {
    digits.parse().unwrap_or(if digits.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    })
}

/// A power after `^` at `at`: `2`, `{10}`, `{-3}` (at most four digits); the power and
/// where it ends.
fn power_at(text: &str, at: usize) -> Option<(i32, usize)> {
    let bytes = text.as_bytes();
    let braced = bytes.get(at) == Some(&b'{');
    let mut digits = at + usize::from(braced);
    let negative = braced && bytes.get(digits) == Some(&b'-');
    digits += usize::from(negative);
    let stop = digits_from(bytes, digits);
    if stop == digits || stop - digits > 4 {
        return None;
    }
    let mut power: i32 = text[digits..stop].parse().ok()?;
    if negative {
        power = -power;
    }
    let end = if braced {
        (bytes.get(stop) == Some(&b'}')).then_some(stop + 1)?
    } else {
        stop
    };
    Some((power, end))
}

/// `base` raised to `power`: exact for an integer base and a power from 0 on while it
/// fits an `i128`, else in floating point (infinite past `f64`, and then equal to
/// nothing).
fn raised(base: Value, power: i32) -> Value {
    let exact = base
        .integer
        .zip(u32::try_from(power).ok())
        .and_then(|(b, p)| b.checked_pow(p));
    Value {
        float: base.float.powi(power),
        integer: exact,
    }
}

/// Whether a percent sign follows at `at` (`%`, `\%`, ` percent`), and where it ends.
fn percent_at(text: &str, at: usize) -> (bool, usize) {
    let rest = &text[at..];
    for sign in ["%", "\\%", " %", " percent"] {
        if let Some(after) = rest.strip_prefix(sign) {
            let word_goes_on = after
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric());
            if !word_goes_on || sign.ends_with('%') {
                return (true, at + sign.len());
            }
        }
    }
    (false, at)
}

fn decimal_value(whole: &str, fraction: &str, exponent: i64) -> Value {
    // Most numbers are short integers: read them without building strings.
    if fraction.is_empty()
        && exponent == 0
        && whole.len() <= 18
        && let Ok(integer) = whole.parse::<i64>()
    {
        return Value {
            float: integer as f64,
            integer: Some(i128::from(integer)),
        };
    }
    let float = format!("{whole}.{fraction}0e{exponent}")
        .parse()
        .unwrap_or(f64::NAN);
    let mantissa = format!("{whole}{fraction}");
    let shift = exponent.saturating_sub(fraction.len() as i64);
    let integer = if shift >= 0 {
        let digits = format!("{mantissa}{}", "0".repeat(shift.min(40) as usize));
        digits.parse::<i128>().ok()
    } else {
        let cut = mantissa.len().saturating_sub(shift.unsigned_abs() as usize);
        let dropped_zero = mantissa[cut..].bytes().all(|b| b == b'0');
        let kept = if cut == 0 { "0" } else { &mantissa[..cut] };
        let long_enough = mantissa.len() as i64 + shift >= 0;
        (dropped_zero && long_enough)
            .then(|| kept.parse::<i128>().ok())
            .flatten()
    };
    // A magnitude below f64's smallest normal one (`1e-400`) cannot be told from 0:
    // not a number, as one beyond the largest is infinite.
    let nonzero = mantissa.bytes().any(|b| b != b'0');
    if nonzero && float.abs() < f64::MIN_POSITIVE {
        return Value {
            float: f64::NAN,
            integer: None,
        };
    }
    Value { float, integer }
}

fn ratio_value(numerator: &str, denominator: &str) -> Option<Value> {
    let (top, bottom): (i128, i128) = (numerator.parse().ok()?, denominator.parse().ok()?);
    if bottom == 0 {
        return None;
    }
    Some(Value {
        float: top as f64 / bottom as f64,
        integer: (top % bottom == 0).then_some(top / bottom),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str) -> Vec<(f64, Option<i128>, bool)> {
        scan(text)
            .iter()
            .map(|n| (n.written.float, n.written.integer, n.percent))
            .collect()
    }

    #[test]
    fn reads_every_written_form_of_a_number() {
        assert_eq!(values("1,234,567"), [(1_234_567.0, Some(1_234_567), false)]);
        assert_eq!(values("$57,500."), [(57_500.0, Some(57_500), false)]);
        assert_eq!(
            values("-$5 and −3"),
            [(-5.0, Some(-5), false), (-3.0, Some(-3), false)]
        );
        assert_eq!(values("3.50"), [(3.5, None, false)]);
        assert_eq!(values("7.00"), [(7.0, Some(7), false)]);
        assert_eq!(values(".5"), [(0.5, None, false)]);
        assert_eq!(values("3/4"), [(0.75, None, false)]);
        assert_eq!(values("84/12"), [(7.0, Some(7), false)]);
        assert_eq!(values("50%"), [(50.0, Some(50), true)]);
        assert_eq!(values("12.5 percent"), [(12.5, None, true)]);
        assert_eq!(values("1.5e3"), [(1500.0, Some(1500), false)]);
        assert_eq!(values("2.5 × 10^{-3}"), [(0.0025, None, false)]);
        assert_eq!(
            values("6.02 \\times 10^{23}"),
            [(6.02e23, Some(602 * 10i128.pow(21)), false)]
        );
        assert_eq!(values("1e-2"), [(0.01, None, false)]);
    }

    #[test]
    fn numbers_inside_words_ranges_and_lists_are_told_apart() {
        assert_eq!(values("H2O and v3"), []);
        assert_eq!(values("COVID-19"), [(19.0, Some(19), false)]);
        assert_eq!(
            values("3-5"),
            [(3.0, Some(3), false), (5.0, Some(5), false)]
        );
        assert_eq!(
            values("1,2,3"),
            [
                (1.0, Some(1), false),
                (2.0, Some(2), false),
                (3.0, Some(3), false)
            ]
        );
        assert_eq!(
            values("1,2345"),
            [(1.0, Some(1), false), (2345.0, Some(2345), false)]
        );
        assert_eq!(values("5 eggs"), [(5.0, Some(5), false)]);
        assert_eq!(values("3e"), [(3.0, Some(3), false)]);
        // Below f64's smallest normal magnitude a number is not a number (NaN).
        let tiny = values("3e-99999999999999999999 1e-400");
        assert!(
            tiny.iter().all(|(f, i, _)| f.is_nan() && i.is_none()),
            "{tiny:?}"
        );
        assert_eq!(values("0e-400"), [(0.0, None, false)]);
    }

    #[test]
    fn values_agree_as_the_truth_allows() {
        let one = |text: &str| scan(text)[0];
        assert!(agree(&one("0.5"), &one("1/2")));
        assert!(agree(&one("50%"), &one("1/2")));
        assert!(agree(&one("50"), &one("50%")));
        assert!(agree(&one("50%"), &one("50")));
        assert!(agree(&one("0.3333333"), &one("1/3")));
        assert!(!agree(&one("0.333"), &one("1/3")));
        assert!(!agree(&one("1000001"), &one("1000000")));
        assert!(agree(&one("1,000,000"), &one("1e6")));
        // Past f64's range a value is infinite, and agrees with nothing; so does a
        // power past i64.
        let huge = format!("7{}", "0".repeat(400));
        for beyond in [
            "1e400",
            "-1e999",
            huge.as_str(),
            "1e99999999999999999999",
            "1 × 10^{99999999999999999999}",
        ] {
            assert!(!agree(&one(beyond), &one("7")), "{beyond}");
            assert!(!agree(&one("7"), &one(beyond)), "{beyond}");
            assert!(!agree(&one(beyond), &one(beyond)), "{beyond}");
        }
    }
}
