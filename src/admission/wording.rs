//! How a decision reads in proofs and sentences: a p-value against the level (never
//! rounded onto the level it is compared with) and the power sentence every report
//! carries. The numbers themselves are written by [`crate::figures`].

use crate::alpha::Alpha;
use crate::figures::{p_value, significant};

/// `name p < alpha a` or `name p >= alpha a`, with as many digits as it takes for the
/// printed p not to equal the printed level when the two differ.
pub fn compare(name: &str, p: f64, alpha: Alpha) -> String {
    let relation = if alpha.rejects(p) { "<" } else { ">=" };
    let alpha = alpha.get();
    let level = crate::figures::level(alpha);
    let mut shown = p_value(p);
    let mut digits = 4;
    while shown == level && p != alpha && digits < 15 {
        digits += 1;
        shown = significant(p, digits);
    }
    format!("{name} {shown} {relation} alpha {level}")
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
    let level = crate::figures::level(alpha);
    let mut text = match shift {
        Some(shift) => format!(
            "With {n} pairs, no shift smaller than {} could have been detected at alpha {level}, even in the best case (every disagreement one way); \"no significant regression\" says nothing about regressions smaller than that.",
            crate::figures::shift(shift)
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
                crate::figures::shift(s)
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
    fn a_p_value_just_below_alpha_is_never_printed_as_alpha() {
        let level = Alpha::new(0.05).unwrap();
        assert_eq!(
            compare("p_improvement", 0.049_999_9, level),
            "p_improvement 0.0499999 < alpha 0.05"
        );
        assert_eq!(
            compare("p_regression", 0.5, level),
            "p_regression 0.5 >= alpha 0.05"
        );
        assert_eq!(compare("p", 0.05, level), "p 0.05 >= alpha 0.05");
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
        assert!(text.starts_with("With 136 pairs, no shift smaller than 0.0368 "));
        assert!(
            text.contains("(kind=id, 34 pairs) could not detect a regression smaller than 0.1471.")
        );
        let tiny = power_sentence(4, 0.05, 5, None, None);
        assert!(tiny.contains("at least 5 pairs"), "{tiny}");
    }
}
