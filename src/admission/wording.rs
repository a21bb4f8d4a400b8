//! How numbers read in proofs and sentences: p-values to four significant digits
//! (never rounded onto the level they are compared with), shifts as percentages, and
//! the power sentence every report carries.

use crate::csvout::number;

/// A probability to four significant digits, trailing zeros dropped: `0.5`,
/// `0.03125`, `0.003906`, `3.906e-5` below 0.0001, `0` and `1` exactly.
pub fn p_value(p: f64) -> String {
    significant(p, 4)
}

fn significant(x: f64, digits: usize) -> String {
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

/// `name p < alpha a` or `name p >= alpha a`, with as many digits as it takes for the
/// printed p not to equal the printed level when the two differ.
pub fn compare(name: &str, p: f64, alpha: f64) -> String {
    let level = number(alpha);
    let mut shown = p_value(p);
    let mut digits = 4;
    while shown == level && p != alpha && digits < 15 {
        digits += 1;
        shown = significant(p, digits);
    }
    let relation = if p < alpha { "<" } else { ">=" };
    format!("{name} {shown} {relation} alpha {level}")
}

/// A share as a percentage with one decimal: `0.8333` → `83.3%`.
pub fn percent(share: f64) -> String {
    let text = format!("{:.1}%", share * 100.0);
    if text == "-0.0%" {
        "0.0%".to_string()
    } else {
        text
    }
}

/// A signed difference in four decimals: `0.1875`, `-0.0312`, `0`.
pub fn signed(value: f64) -> String {
    let text = format!("{value:.4}");
    let text = trim(&text);
    if text == "-0" { "0".to_string() } else { text }
}

/// What the minimum detectable shift means for the non-regression claim.
///
/// `smallest` is the smallest stratum as (label, n, its shift), when the pairs are
/// stratified: the regression check runs there with fewer pairs.
pub fn power_sentence(
    n: usize,
    alpha: f64,
    min_discordant: u32,
    shift: Option<f64>,
    smallest: Option<(String, usize, Option<f64>)>,
) -> String {
    let level = number(alpha);
    let mut text = match shift {
        Some(shift) => format!(
            "With {n} pairs, no shift smaller than {} could have been detected at alpha {level}, even in the best case (every disagreement one way); \"no significant regression\" says nothing about regressions smaller than that.",
            percent(shift)
        ),
        None => format!(
            "With {n} pairs no result could be significant at alpha {level}: even with every disagreement one way it takes at least {min_discordant} pairs, so neither an improvement nor a regression could have been detected."
        ),
    };
    if let Some((label, size, stratum_shift)) = smallest {
        text.push(' ');
        text.push_str(&match stratum_shift {
            Some(s) => format!(
                "The regression check on the smallest stratum ({label}, {size} pairs) could not detect a regression smaller than {}.",
                percent(s)
            ),
            None => format!(
                "The smallest stratum ({label}, {size} pairs) is too small for its regression check to detect anything at alpha {level}."
            ),
        });
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_keep_four_significant_digits() {
        assert_eq!(p_value(0.5), "0.5");
        assert_eq!(p_value(0.03125), "0.03125");
        assert_eq!(p_value(0.00390625), "0.003906");
        assert_eq!(p_value(1.0), "1");
        assert_eq!(p_value(0.0), "0");
        assert_eq!(p_value(0.000_039_062_5), "3.906e-5");
        assert_eq!(p_value(1e-10), "1e-10");
        assert_eq!(p_value(0.099_996), "0.1");
    }

    #[test]
    fn a_p_value_just_below_alpha_is_never_printed_as_alpha() {
        assert_eq!(
            compare("p_improvement", 0.049_999_9, 0.05),
            "p_improvement 0.0499999 < alpha 0.05"
        );
        assert_eq!(
            compare("p_regression", 0.5, 0.05),
            "p_regression 0.5 >= alpha 0.05"
        );
        assert_eq!(compare("p", 0.05, 0.05), "p 0.05 >= alpha 0.05");
    }

    #[test]
    fn shifts_read_as_percentages_and_differences_in_four_decimals() {
        assert_eq!(percent(5.0 / 6.0), "83.3%");
        assert_eq!(percent(-0.0), "0.0%");
        assert_eq!(signed(-1.0 / 32.0), "-0.0312");
        assert_eq!(signed(-0.00001), "0");
        assert_eq!(signed(0.25), "0.25");
    }

    #[test]
    fn the_power_sentence_names_the_shift_and_the_smallest_stratum() {
        let text = power_sentence(
            136,
            0.05,
            5,
            Some(5.0 / 136.0),
            Some(("kind=id".into(), 34, Some(5.0 / 34.0))),
        );
        assert!(text.starts_with("With 136 pairs, no shift smaller than 3.7%"));
        assert!(
            text.contains("(kind=id, 34 pairs) could not detect a regression smaller than 14.7%")
        );
        let tiny = power_sentence(4, 0.05, 5, None, None);
        assert!(tiny.contains("at least 5 pairs"), "{tiny}");
    }
}
