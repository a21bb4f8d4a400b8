//! The admission settings, checked once: a level in (0, 0.5), a margin in [0, 1), and
//! a test that the pairs can actually support (McNemar needs `correct` in both files).

use thiserror::Error;

use crate::alpha::{Alpha, AlphaError};

use super::holdout::HoldoutRecord;
use super::pairing::Pairs;
use crate::stats::signed_rank::ZeroMethod;

/// A setting that cannot be used (exit status 2).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ConfigError {
    /// The level is not in (0, 0.5).
    #[error(transparent)]
    Alpha(#[from] AlphaError),
    /// The margin is not in [0, 1).
    // `{:?}` writes 1e308 as `1e308`, not as 309 digits.
    #[error("--margin {0:?} is outside [0, 1): give the largest regression you accept, e.g. 0.05")]
    Margin(f64),
    /// The equivalence margin is not in (0, 1).
    #[error(
        "--equivalence {0:?} is outside (0, 1): give the largest difference either way that still counts as no change, e.g. 0.05"
    )]
    Equivalence(f64),
    /// McNemar was asked for but a file has no `correct` column.
    #[error(
        "--test mcnemar needs a `correct` column in both files, and `{0}` has none; use --test signed-rank or rescore with `evogate score`"
    )]
    NoCorrectColumn(String),
    /// `--test auto` found `correct` in one file only: silently falling back to scores
    /// would compare a different metric than the user's files suggest.
    #[error(
        "--test auto: `{0}` has no `correct` column but the other file has one, so the two files do not say the same thing; rescore `{0}` with `evogate score`, or give --test signed-rank to compare scores explicitly"
    )]
    CorrectInOneFile(String),
}

/// What a margin asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd)]
pub enum MarginQuestion {
    /// Non-inferiority (`--margin`): the candidate is worse by less than the margin.
    NonInferiority,
    /// Equivalence (`--equivalence`): the candidate differs by less than the margin
    /// either way.
    Equivalence,
}

/// A margin and what it asks: a non-inferiority margin, the largest regression
/// accepted, in [0, 1); or an equivalence margin, the largest difference either way
/// that still counts as no change, in (0, 1).
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Margin {
    value: f64,
    question: MarginQuestion,
}

impl Margin {
    /// Checks a non-inferiority margin.
    pub fn new(margin: f64) -> Result<Margin, ConfigError> {
        if (0.0..1.0).contains(&margin) {
            Ok(Margin {
                value: margin + 0.0,
                question: MarginQuestion::NonInferiority,
            })
        } else {
            Err(ConfigError::Margin(margin))
        }
    }

    /// Checks an equivalence margin (0 could never be shown: no difference is less
    /// than 0 either way).
    pub fn equivalence(margin: f64) -> Result<Margin, ConfigError> {
        if margin > 0.0 && margin < 1.0 {
            Ok(Margin {
                value: margin,
                question: MarginQuestion::Equivalence,
            })
        } else {
            Err(ConfigError::Equivalence(margin))
        }
    }

    /// The margin.
    pub fn get(self) -> f64 {
        self.value
    }

    /// What it asks.
    pub fn question(self) -> MarginQuestion {
        self.question
    }
}

/// `--test` as given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TestChoice {
    /// McNemar when both files carry `correct`, signed-rank when neither does; `correct`
    /// in one file only is a usage error.
    Auto,
    /// McNemar's exact test.
    #[value(name = "mcnemar")]
    McNemar,
    /// The Wilcoxon signed-rank test.
    SignedRank,
}

/// The test that will decide, resolved against the pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// McNemar's exact test on `correct`; only built when every pair has both outcomes.
    McNemar,
    /// The signed-rank test on `score`.
    SignedRank(ZeroMethod),
}

impl TestChoice {
    /// The test these pairs support. `baseline` and `candidate` name the files for the
    /// error when McNemar is asked for without `correct`.
    pub fn resolve(
        self,
        pairs: &Pairs,
        zero: ZeroMethod,
        baseline: &str,
        candidate: &str,
    ) -> Result<Test, ConfigError> {
        let columns = (
            pairs.both_correct,
            pairs.baseline_has_correct,
            pairs.candidate_has_correct,
        );
        self.resolve_columns(columns, zero, baseline, candidate)
    }

    /// [`TestChoice::resolve`] on what the pairs say about `correct`: whether every
    /// pair has it on both sides, and whether each file has the column.
    pub fn resolve_columns(
        self,
        (both_correct, baseline_has_correct, candidate_has_correct): (bool, bool, bool),
        zero: ZeroMethod,
        baseline: &str,
        candidate: &str,
    ) -> Result<Test, ConfigError> {
        match self {
            TestChoice::Auto if both_correct => Ok(Test::McNemar),
            TestChoice::Auto if baseline_has_correct != candidate_has_correct => {
                let lacking = if baseline_has_correct {
                    candidate
                } else {
                    baseline
                };
                Err(ConfigError::CorrectInOneFile(lacking.to_string()))
            }
            TestChoice::Auto | TestChoice::SignedRank => Ok(Test::SignedRank(zero)),
            TestChoice::McNemar if both_correct => Ok(Test::McNemar),
            TestChoice::McNemar => {
                let lacking = if baseline_has_correct {
                    candidate
                } else {
                    baseline
                };
                Err(ConfigError::NoCorrectColumn(lacking.to_string()))
            }
        }
    }
}

/// Everything `decide` needs besides the pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// The one-sided level of every test.
    pub alpha: Alpha,
    /// The resolved test.
    pub test: Test,
    /// The margin and what it asks (non-inferiority or equivalence); none for
    /// superiority.
    pub margin: Option<Margin>,
    /// The holdout recorded by `split`, when `--manifest` was given.
    pub holdout: Option<HoldoutRecord>,
    /// Whether the decision must also hold on clusters (`--cluster group`).
    pub cluster: bool,
    /// Unanswered tasks: whether they may be decided on, and what imports left out.
    pub answers: super::Answers,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_margin_is_named_in_a_few_characters_not_309_digits() {
        assert_eq!(
            Margin::new(1e308).unwrap_err().to_string(),
            "--margin 1e308 is outside [0, 1): give the largest regression you accept, e.g. 0.05"
        );
        assert!(
            Margin::new(-0.25)
                .unwrap_err()
                .to_string()
                .starts_with("--margin -0.25 is")
        );
        assert_eq!(Margin::new(0.05).unwrap().get(), 0.05);
    }
}
