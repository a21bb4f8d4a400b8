//! The one-sided significance level every command takes (`--alpha`), checked by one
//! rule, and the one place where a p-value is compared with it.
//!
//! `admit`, `audit`, `power` and `split` all build an [`Alpha`] from their `--alpha`,
//! so a level that one command refuses, every command refuses with the same words.

pub(crate) mod spending;

use thiserror::Error;

/// A level outside (0, 0.5) (exit status 2).
#[derive(Debug, Error, Clone, Copy, PartialEq)]
#[error(
    "--alpha {} is outside (0, 0.5): a one-sided level such as 0.05 is needed (its 1 - 2*alpha interval must exist)",
    shown(.0)
)]
pub struct AlphaError(pub f64);

/// The refused level as the message shows it: never hundreds of digits.
fn shown(alpha: &f64) -> String {
    crate::base::numbers::echo(*alpha)
}

/// How a level is shared among several attempts on one set of tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// Bonferroni: each of k candidates tried on the set is tested at alpha / k.
    Bonferroni,
    /// The ledger's alpha spending: attempt k on a holdout gets alpha · 6 / (π² k²),
    /// so all attempts together never spend more than alpha
    /// (`spending`).
    Spending,
}

/// A one-sided significance level, strictly between 0 and 0.5. The upper bound is where
/// the two-sided 1 − 2·alpha interval that reports pair with it stops existing.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Alpha(f64);

impl Alpha {
    /// Checks the level (NaN is refused: it is not in the range).
    pub fn new(alpha: f64) -> Result<Alpha, AlphaError> {
        if alpha > 0.0 && alpha < 0.5 {
            Ok(Alpha(alpha))
        } else {
            Err(AlphaError(alpha))
        }
    }

    /// The level.
    pub fn get(self) -> f64 {
        self.0
    }

    /// Whether a one-sided p-value is significant at this level: `p < alpha`, strictly.
    /// Every decision in the crate goes through here, so the strictness cannot differ
    /// between commands.
    pub fn rejects(self, p_value: f64) -> bool {
        p_value < self.0
    }

    /// The level of attempt `k` (1-based; 0 reads as 1) when the level is shared by
    /// `sharing`: alpha / k for Bonferroni, the spending rule's share for the ledger.
    /// It lies in (0, alpha], so it is a level too.
    pub fn per_attempt(self, k: u64, sharing: Sharing) -> Alpha {
        let k = k.max(1);
        Alpha(match sharing {
            Sharing::Bonferroni => self.0 / k as f64,
            Sharing::Spending => spending::attempt_alpha(self.0, k),
        })
    }

    /// The two-sided confidence level whose lower bound is the one-sided (1 − alpha)
    /// bound: 1 − 2·alpha.
    pub fn confidence(self) -> f64 {
        1.0 - 2.0 * self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_attempt_divides_by_k_or_spends_six_over_pi_squared_k_squared() {
        let alpha = Alpha::new(0.05).unwrap();
        assert_eq!(alpha.per_attempt(4, Sharing::Bonferroni).get(), 0.0125);
        assert_eq!(alpha.per_attempt(0, Sharing::Bonferroni).get(), 0.05);
        // 0.05 · 6 / π² / 9, by hand: 0.05 · 0.6079271018540267 / 9.
        let third = alpha.per_attempt(3, Sharing::Spending).get();
        assert!((third - 0.003_377_372_788_077_926).abs() < 1e-17, "{third}");
        assert!(alpha.per_attempt(3, Sharing::Bonferroni).rejects(0.0166));
        assert!(!alpha.per_attempt(3, Sharing::Bonferroni).rejects(0.0167));
    }

    #[test]
    fn levels_in_the_open_interval_to_one_half_are_accepted() {
        assert_eq!(Alpha::new(0.05).map(Alpha::get), Ok(0.05));
        assert_eq!(Alpha::new(0.499).map(Alpha::get), Ok(0.499));
    }

    #[test]
    fn zero_one_half_above_it_and_nan_are_refused() {
        for bad in [0.0, -0.1, 0.5, 0.6, 1.5, f64::NAN] {
            assert!(Alpha::new(bad).is_err(), "{bad}");
        }
        assert!(
            AlphaError(0.6)
                .to_string()
                .starts_with("--alpha 0.6 is outside (0, 0.5)")
        );
    }

    #[test]
    fn a_refused_level_is_echoed_at_a_readable_length() {
        let message = AlphaError(1e308).to_string();
        assert!(message.starts_with("--alpha 1e308 is outside"), "{message}");
        let message = AlphaError(-4.9e-324).to_string();
        assert!(
            message.starts_with("--alpha -5e-324 is outside"),
            "{message}"
        );
        assert_eq!(crate::base::numbers::level(4.9e-324), "4.941e-324");
        assert_eq!(crate::base::numbers::level(0.05), "0.05");
    }

    #[test]
    fn a_p_value_equal_to_the_level_is_not_significant() {
        let alpha = Alpha::new(0.05).unwrap();
        assert!(alpha.rejects(0.049_999));
        assert!(!alpha.rejects(0.05));
        assert!(!alpha.rejects(0.2));
    }
}
