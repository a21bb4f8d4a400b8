//! Notes that explain a stratum row whose figures seem to disagree: an interval lying
//! wholly below zero next to `regressed: no`. The regression criterion is the one-sided
//! test, and the interval comes from another method, so a reader needs to be told why
//! the two can part ways, with the reason that holds for the test that ran.

use super::config::Test;
use super::{Stratum, TestName, TestedMetric};
use crate::alpha::Alpha;
use crate::base::numbers::{number, p_value, signed};

/// Why `stratum`'s interval lies wholly below zero although its one-sided test for
/// regression is not significant at `alpha`; `None` when the row reads plainly.
///
/// The level is never the reason: the interval is two-sided at 1 − 2·alpha, so its
/// upper bound is a one-sided 1 − alpha bound, the same level as the test. The two
/// differ in what they compute: McNemar's exact test is conditional on the discordant
/// pairs and conservative, while the Tango interval is an asymptotic score interval;
/// the signed-rank test ranks the paired differences, while the interval (unless it is
/// one inverted from the signed-rank test) is of their mean, which a few large losses
/// pull below zero while most pairs gain.
pub fn stratum_note(stratum: &Stratum, test: Test, alpha: Alpha) -> Option<String> {
    let high = stratum.delta.high?;
    if stratum.significant_regression || high >= 0.0 {
        return None;
    }
    let confidence = number(stratum.delta.confidence * 100.0);
    let one_sided = number((1.0 - alpha.get()) * 100.0);
    let level = crate::base::numbers::level(alpha.get());
    let name = match test {
        Test::McNemar => TestName::McNemar,
        Test::SignedRank(_) => TestName::SignedRank,
    };
    let (test_words, reason) = match name {
        TestName::McNemar => (
            "McNemar's exact test",
            "the exact test uses only the discordant pairs (b and c) and is conservative, while the Tango interval is an asymptotic score interval for the difference of proportions, so near the boundary the interval can exclude zero before the exact test rejects".to_string(),
        ),
        TestName::SignedRank if stratum.delta.interval.contains("mean") => (
            "the signed-rank test",
            format!(
                "the test ranks the paired differences while the interval ({}) is of their mean: a few large losses pull the mean below zero while the ranks of the many small gains and ties do not show a regression",
                stratum.delta.interval
            ),
        ),
        TestName::SignedRank => (
            "the signed-rank test",
            format!(
                "the interval ({}) is computed by another method than the test",
                stratum.delta.interval
            ),
        ),
    };
    Some(format!(
        "Its {confidence}% interval of the {} difference lies wholly below zero (upper bound {}), yet {test_words} gives p_regression {} >= alpha {level}, so the stratum does not count as regressed. The level is not the reason (the upper bound of a two-sided {confidence}% interval is a one-sided {one_sided}% bound, the level of the test); {reason}. Consider --margin, which asks an exact test in every stratum to rule out a loss of the margin.",
        TestedMetric::of(name).words(),
        signed(high),
        p_value(stratum.tails.p_regression)
    ))
}
