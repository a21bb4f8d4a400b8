//! How a decision reads in proofs and sentences: a p-value against the level (never
//! rounded onto the level it is compared with) and the power sentence every report
//! carries. The numbers themselves are written by [`crate::base::numbers`].

use super::EXACT_GUARD_LIMIT;
use super::guard::{Method, Spread};
use crate::alpha::Alpha;
use crate::base::numbers::{count, p_value, shift as shift_text, significant};

/// `name p < alpha a` or `name p >= alpha a`, with as many digits as it takes for the
/// printed p not to equal the printed level when the two differ.
pub(crate) fn compare(name: &str, p: f64, alpha: Alpha) -> String {
    let relation = if alpha.rejects(p) { "<" } else { ">=" };
    let alpha = alpha.get();
    let level = crate::base::numbers::level(alpha);
    let mut shown = p_value(p);
    let mut digits = 4;
    while shown == level && p != alpha && digits < 15 {
        digits += 1;
        shown = significant(p, digits);
    }
    format!("{name} {shown} {relation} alpha {level}")
}

/// What the test could detect, as [`power_sentence`] words it.
pub(super) struct PowerFacts {
    /// Pairs.
    pub n: usize,
    /// The level.
    pub alpha: f64,
    /// The fewest discordant pairs or non-zero differences, all one way, that reach alpha.
    pub min_discordant: u32,
    /// What the power depends on besides n (and which test ran).
    pub spread: Spread,
    /// McNemar's best-case shift, k/n.
    pub best_case: Option<f64>,
    /// The shift detected with 80% power, and how it was found.
    pub detectable: Option<(f64, Method)>,
    /// What each stratum's regression check would catch.
    pub strata: Vec<StratumGuard>,
}

/// One stratum's regression check at 80% power.
pub(super) struct StratumGuard {
    /// `kind=year`.
    pub label: String,
    /// Its pairs.
    pub n: usize,
    /// The regression it would catch with 80% power, and how that was found.
    pub catch: Option<(f64, Method)>,
}

/// A share of pairs or a power, as a percentage with one decimal (`16.7%`): not a
/// shift, so not in the shifts' unit.
fn percent(share: f64) -> String {
    let text = format!("{:.1}%", share * 100.0);
    if text == "-0.0%" {
        "0.0%".to_string()
    } else {
        text
    }
}

/// What each test could detect, in sentences a person can check: McNemar's best-case
/// floor k/n and the shift it detects with 80% power at the observed discordance;
/// signed-rank's floor, which is a count of non-zero differences and not a shift, and
/// the mean shift it detects with 80% power given the observed spread; then what each
/// stratum's regression check would catch with 80% power.
pub(super) fn power_sentence(facts: &PowerFacts) -> String {
    let PowerFacts { n, alpha, .. } = *facts;
    let k = facts.min_discordant;
    let level = crate::base::numbers::level(alpha);
    let pairs = count(n as u64, "pair");
    let mut text = match (facts.spread, facts.best_case) {
        (Spread::Discordance(_), Some(shift)) => format!(
            "With {pairs}, no shift smaller than {} could have been detected at alpha {level}, even in the best case (every disagreement one way); \"no significant regression\" says nothing about regressions smaller than that.",
            crate::base::numbers::shift(shift)
        ),
        (Spread::Discordance(_), None) => format!(
            "With {pairs} no result could be significant at alpha {level}: even with every disagreement one way it takes at least {k} pairs, so neither an improvement nor a regression could have been detected."
        ),
        (Spread::Differences { .. }, _) if (n as u64) < u64::from(k) => format!(
            "With {pairs} no result could be significant at alpha {level}: the signed-rank test needs at least {k} non-zero differences, all one way, so neither an improvement nor a regression could have been detected."
        ),
        (Spread::Differences { nonzero, .. }, _) => format!(
            "The signed-rank test can reach alpha {level} with as few as {k} non-zero differences all one way (0.5^{k} < {level}), however small they are: its floor is a number of pairs, not a size of shift. Here {nonzero} of the {} {} not zero.",
            count(n as u64, "difference"),
            if nonzero == 1 { "is" } else { "are" }
        ),
    };
    match (facts.spread, facts.detectable) {
        (Spread::Discordance(psi), Some((shift, method))) if shift <= psi => {
            text.push_str(&format!(
                " At the observed discordance ({} of pairs disagree), a shift of {} either way would be detected with 80% power ({}).",
                percent(psi),
                shift_text(shift),
                method.words()
            ));
        }
        (Spread::Discordance(psi), Some((shift, method))) => text.push_str(&format!(
            " A shift of {} either way would be detected with 80% power ({}, with at least that share of pairs disagreeing, since a shift needs them; {} disagree here).",
            shift_text(shift),
            method.words(),
            percent(psi)
        )),
        (Spread::Differences { sd: Some(sd), .. }, Some((shift, _))) => text.push_str(&format!(
            " Given the observed spread of the paired differences (standard deviation {}), a mean score shift of {} either way would be detected with 80% power ((z₁₋α + z₀.₈)·sd/√n, a normal approximation).",
            significant(sd, 3),
            shift_text(shift)
        )),
        (Spread::Differences { .. }, None) if n as u64 >= u64::from(k) => text.push_str(
            " The differences do not vary, so the shift detectable with 80% power cannot be estimated from their spread.",
        ),
        _ => {}
    }
    if !facts.strata.is_empty() {
        text.push(' ');
        text.push_str(&guard_sentence(facts));
    }
    text
}

/// What each stratum's regression check would catch with 80% power.
fn guard_sentence(facts: &PowerFacts) -> String {
    let level = crate::base::numbers::level(facts.alpha);
    let parts: Vec<String> = facts
        .strata
        .iter()
        .map(
            |StratumGuard {
                 label,
                 n: size,
                 catch,
             }| match catch {
                Some((shift, _)) => format!(
                    "{} on {label} ({})",
                    shift_text(*shift),
                    count(*size as u64, "pair")
                ),
                None if (*size as u64) < u64::from(facts.min_discordant) => format!(
                    "nothing on {label} ({}: too few to reach alpha {level})",
                    count(*size as u64, "pair")
                ),
                None => format!(
                    "an unknown size on {label} ({} whose differences do not vary)",
                    count(*size as u64, "pair")
                ),
            },
        )
        .collect();
    let methods: Vec<Method> = facts
        .strata
        .iter()
        .filter_map(|s| s.catch.map(|c| c.1))
        .collect();
    let method = if methods.is_empty() {
        String::new()
    } else if methods.iter().all(|&m| m == Method::Exact) {
        " (exact power of McNemar's test at each stratum's observed discordance)".to_string()
    } else if methods.iter().all(|&m| m == Method::Normal) {
        match facts.spread {
            Spread::Discordance(_) => {
                " (normal approximation at each stratum's observed discordance)".to_string()
            }
            Spread::Differences { .. } => {
                " (normal approximation from each stratum's spread)".to_string()
            }
        }
    } else {
        format!(
            " (exact power of McNemar's test up to {EXACT_GUARD_LIMIT} pairs, normal approximation beyond)"
        )
    };
    format!(
        "With 80% power the regression checks would catch a regression of {}{method}; smaller regressions can pass them unseen.",
        parts.join(", ")
    )
}

/// The reason added for a stratum whose estimate is a regression that its check did not
/// flag, when no margin was asked for: how large a regression the check would catch,
/// and the `--margin` that would rule one out.
pub(super) fn unflagged_regression(
    label: &str,
    size: usize,
    estimate: f64,
    catch: Option<f64>,
) -> String {
    let caught = match catch {
        Some(shift) => format!(
            "its check would catch only a regression of {} or more with 80% power ({})",
            shift_text(shift),
            count(size as u64, "pair")
        ),
        None => format!(
            "its check cannot catch a regression of any size with {}",
            count(size as u64, "pair")
        ),
    };
    format!(
        "{label} leans worse (difference {}) without a significant regression, and {caught}: a regression this size can pass unseen. Rerun with --margin (for example --margin 0.05) to require an exact test in every stratum to rule out a loss of the margin or more.",
        shift_text(estimate)
    )
}

/// The first reason of an inconclusive verdict: the observed shift, the power the
/// holdout had for it, and the tasks that would give 80% power.
pub(super) fn inconclusive_sentence(
    n: usize,
    shift: f64,
    spread: Spread,
    power: Option<f64>,
    tasks_needed: u64,
    method: Method,
) -> String {
    let had = match power {
        Some(p) => format!("had {} power to detect it", percent(p)),
        None => "had less than 80% power to detect it".to_string(),
    };
    let shift = match spread {
        Spread::Discordance(_) => format!("a shift of {} in the share correct", shift_text(shift)),
        Spread::Differences { .. } => format!("a mean score shift of {}", shift_text(shift)),
    };
    format!(
        "Inconclusive: the candidate leans better ({shift}) but the {} {had}; about {} would give 80% power for a shift this size ({}).",
        count(n as u64, "pair"),
        count(tasks_needed, "task"),
        method.words()
    )
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
    fn the_mcnemar_power_sentence_names_the_best_case_the_80_percent_shift_and_each_stratum() {
        let facts = PowerFacts {
            n: 136,
            alpha: 0.05,
            min_discordant: 5,
            spread: Spread::Discordance(0.2),
            best_case: Some(5.0 / 136.0),
            detectable: Some((0.1, Method::Exact)),
            strata: vec![
                StratumGuard {
                    label: "kind=id".into(),
                    n: 34,
                    catch: Some((5.0 / 34.0, Method::Exact)),
                },
                StratumGuard {
                    label: "kind=year".into(),
                    n: 3,
                    catch: None,
                },
            ],
        };
        let text = power_sentence(&facts);
        assert!(
            text.starts_with("With 136 pairs, no shift smaller than 0.0368 "),
            "{text}"
        );
        assert!(text.contains("(20.0% of pairs disagree), a shift of 0.1 either way would be detected with 80% power (exact power of McNemar's test)."), "{text}");
        assert!(text.contains("a regression of 0.1471 on kind=id (34 pairs), nothing on kind=year (3 pairs: too few to reach alpha 0.05) (exact power"), "{text}");
        let beyond = power_sentence(&PowerFacts {
            n: 6,
            spread: Spread::Discordance(1.0 / 6.0),
            best_case: Some(5.0 / 6.0),
            detectable: Some((0.86, Method::Exact)),
            strata: Vec::new(),
            ..facts
        });
        assert!(beyond.contains("A shift of 0.86 either way would be detected with 80% power (exact power of McNemar's test, with at least that share of pairs disagreeing, since a shift needs them; 16.7% disagree here)."), "{beyond}");
        let tiny = power_sentence(&PowerFacts {
            n: 4,
            best_case: None,
            detectable: None,
            strata: Vec::new(),
            ..facts
        });
        assert!(tiny.contains("at least 5 pairs"), "{tiny}");
    }

    #[test]
    fn the_signed_rank_power_sentence_claims_no_floor_on_the_size_of_a_shift() {
        let facts = PowerFacts {
            n: 10,
            alpha: 0.05,
            min_discordant: 5,
            spread: Spread::Differences {
                sd: Some(0.0),
                nonzero: 10,
            },
            best_case: None,
            detectable: None,
            strata: Vec::new(),
        };
        let text = power_sentence(&facts);
        assert!(!text.contains("no shift smaller than"), "{text}");
        assert!(
            text.contains("as few as 5 non-zero differences all one way"),
            "{text}"
        );
        assert!(
            text.contains("Here 10 of the 10 differences are not zero."),
            "{text}"
        );
        assert!(text.contains("do not vary"), "{text}");
        let spread = power_sentence(&PowerFacts {
            n: 100,
            spread: Spread::Differences {
                sd: Some(0.2),
                nonzero: 80,
            },
            detectable: Some((0.0497, Method::Normal)),
            ..facts
        });
        assert!(spread.contains("(standard deviation 0.2), a mean score shift of 0.0497 either way would be detected with 80% power"), "{spread}");
        assert!(spread.contains("a normal approximation"), "{spread}");
    }
}
