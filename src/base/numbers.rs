//! How evogate writes numbers, wherever they go (CSV cells, reports, sentences, the
//! terminal): fixed decimals with trailing zeros dropped, p-values to four significant
//! digits and never as 0, shifts as proportions (one unit in every command), and never
//! a negative zero. Shared by the core's wording and every writer, so it belongs to
//! neither.

/// A finite number in at most six decimals with trailing zeros removed (`0.75`, `1`,
/// `0.123457`), the same on every platform. Negative zero is written `0`.
pub fn number(value: f64) -> String {
    let mut text = String::with_capacity(8);
    push_number(&mut text, value);
    text
}

/// Appends [`number`]`(value)` to `out`.
pub fn push_number(out: &mut String, value: f64) {
    // The commonest scores, exactly (0 covers -0).
    if value == 0.0 || value == 1.0 {
        out.push(if value == 0.0 { '0' } else { '1' });
        return;
    }
    if push_unit_number(out, value) {
        return;
    }
    let text = format!("{value:.6}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    match text {
        "-0" | "" => out.push('0'),
        other => out.push_str(other),
    }
}

/// Appends [`number`]`(value)` for a value in [0, 1] whose millionths are not within
/// 10^-6 of a half, the scores' common case, without formatting a float: `value · 10^6`
/// is then within 2^-32 of the exact product, so rounding it to the nearest integer
/// gives the digits `{:.6}` writes. Appends nothing and returns `false` for every
/// other value.
fn push_unit_number(out: &mut String, value: f64) -> bool {
    if !(0.0..=1.0).contains(&value) {
        return false;
    }
    let scaled = value * 1e6;
    let floor = scaled.floor();
    let fraction = scaled - floor;
    if (fraction - 0.5).abs() <= 1e-6 {
        return false;
    }
    let micros = floor as u64 + u64::from(fraction > 0.5);
    let (whole, part) = (micros / 1_000_000, micros % 1_000_000);
    out.push(char::from(b'0' + whole as u8));
    if part > 0 {
        out.push('.');
        let mut rest = part;
        let mut scale = 100_000;
        while rest > 0 {
            out.push(char::from(b'0' + (rest / scale) as u8));
            rest %= scale;
            scale /= 10;
        }
    }
    true
}

/// A significance level as [`number`] writes it, or to four significant digits below
/// 0.0001, where six decimals would print a level such as `4.9e-324` as `0`.
pub fn level(alpha: f64) -> String {
    if alpha.abs() < 1e-4 {
        significant(alpha, 4)
    } else {
        number(alpha)
    }
}

/// A number the user gave, echoed in a message: as Rust writes it when short (`0.6`,
/// `1.5`), else in the shortest exponent form that reads back as the same number
/// (`1e308`, `5e-324`), never hundreds of digits.
pub fn echo(value: f64) -> String {
    let plain = value.to_string();
    if plain.len() <= 12 || !value.is_finite() {
        plain
    } else {
        format!("{value:e}")
    }
}

/// The smallest p-value written as a number. Below it (a p-value that underflowed to
/// 0, is subnormal, or lies within a few powers of ten of the `f64` range, where tails
/// lose their accuracy) reports write the bound `< 1e-300`; `admission.json` keeps the
/// exact size in its `log10_p_*` fields.
pub const SMALLEST_SHOWN_P: f64 = 1e-300;

/// A p-value as every report writes it: four significant digits, trailing zeros
/// dropped (`0.5`, `0.03125`, `0.003906`, `3.906e-5` below 0.0001, `1` exactly), and
/// `< 1e-300` below [`SMALLEST_SHOWN_P`], so no p-value ever prints as `0`. Every
/// p-value a command prints goes through here.
pub fn p_value(p: f64) -> String {
    if p < SMALLEST_SHOWN_P {
        "< 1e-300".to_string()
    } else {
        significant(p, 4)
    }
}

pub(crate) fn significant(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return "0".to_string();
    }
    let scientific = format!("{:.*e}", digits - 1, x);
    let Some((mantissa, exponent)) = scientific.split_once('e') else {
        return scientific;
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent >= -4 {
        let decimals = (digits as i32 - 1 - exponent).max(0) as usize;
        trim(&format!("{x:.decimals$}"))
    } else {
        format!("{}e{exponent}", trim(mantissa))
    }
}

fn trim(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

/// A shift (a detectable shift, a margin, a possible regression) in the one unit every
/// command uses for shifts: a proportion on the 0–1 scale of the scores, as `--shift`
/// and `--margin` take it, in four decimals (`0.0368`, `0.1471`, `1`), or four
/// significant digits when four decimals would print a positive shift as zero
/// (`2.711e-19`). 0.05 is five percentage points.
pub fn shift(value: f64) -> String {
    if value.abs() >= 0.000_05 || value == 0.0 || !value.is_finite() {
        signed(value)
    } else {
        significant(value, 4)
    }
}

/// How a report names the unit of [`shift`], said once where shifts first appear.
pub const SHIFT_UNIT: &str =
    "Shifts are proportions on the 0–1 scale: 0.05 is 5 percentage points.";

/// A signed difference in four decimals: `0.1875`, `-0.0312`, `0`.
pub fn signed(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = trim(&text);
    if text == "-0" { "0".to_string() } else { text }
}

/// Micro-units in a score of 1: scores enter every sum in whole micro-units (six
/// decimals), so sums and ties are exact (`admit` and `admit --sequential` alike).
pub(crate) const MICROS: i64 = 1_000_000;

/// A score (or a difference of scores) in whole micro-units: rounded to six decimals,
/// half away from zero.
pub(crate) fn micros(score: f64) -> i64 {
    (score * MICROS as f64).round() as i64
}

/// A count and its noun in agreement: `1 task`, `0 tasks`, `2 tasks` (the plural is
/// the noun and `s`).
pub fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The ending of a regular noun counted `n` times: `""` for 1, else `"s"`, for
/// aligned columns where [`count`] cannot keep the widths (`{:>5} task{}`).
pub fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// [`count`] for a noun whose plural is not the noun and `s`: `1 stratum`, `3 strata`.
pub fn count_of(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_agrees_with_its_noun() {
        assert_eq!(count(1, "task"), "1 task");
        assert_eq!(count(0, "task"), "0 tasks");
        assert_eq!(count(2, "pair"), "2 pairs");
        assert_eq!(count_of(1, "stratum", "strata"), "1 stratum");
        assert_eq!(count_of(3, "criterion", "criteria"), "3 criteria");
    }

    #[test]
    fn p_values_keep_four_significant_digits() {
        assert_eq!(p_value(0.5), "0.5");
        assert_eq!(p_value(0.03125), "0.03125");
        assert_eq!(p_value(0.00390625), "0.003906");
        assert_eq!(p_value(1.0), "1");
        assert_eq!(p_value(1e-300), "1e-300");
        assert_eq!(p_value(0.000_039_062_5), "3.906e-5");
        assert_eq!(p_value(1e-10), "1e-10");
        assert_eq!(p_value(0.099_996), "0.1");
    }

    #[test]
    fn no_p_value_prints_as_zero_below_the_double_range() {
        // Underflowed to 0, subnormal, and just under the bound.
        for p in [0.0, 4.9e-324, 1e-310, 9.99e-301] {
            assert_eq!(p_value(p), "< 1e-300", "{p:e}");
        }
    }

    #[test]
    fn shifts_read_as_proportions_and_differences_in_four_decimals() {
        assert_eq!(shift(5.0 / 136.0), "0.0368");
        assert_eq!(shift(5.0 / 34.0), "0.1471");
        assert_eq!(shift(1.0), "1");
        assert_eq!(shift(-0.0), "0");
        assert_eq!(shift(5.0 / 18_446_744_073_709_551_615.0), "2.711e-19");
        assert_eq!(signed(-1.0 / 32.0), "-0.0312");
        assert_eq!(signed(-0.00001), "0");
        assert_eq!(signed(0.25), "0.25");
    }
}
