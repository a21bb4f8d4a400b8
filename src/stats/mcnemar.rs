//! McNemar's exact test for paired pass/fail outcomes, for any number of pairs.
//!
//! Only discordant pairs carry information: under the null each is equally likely to
//! favour either arm, so the count favouring the candidate is Binomial(b + c, ½).

use super::binomial;
use super::tails::Tails;

/// Mid-p versions of the three p-values: the probability of the observed count itself
/// is counted half (one-sided) or removed once (two-sided), as in the reference table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MidP {
    /// P(X > c) + ½ P(X = c).
    pub p_improvement: f64,
    /// P(X > b) + ½ P(X = b).
    pub p_regression: f64,
    /// The exact two-sided p-value minus P(X = min(b, c)); 1 with no discordant pairs.
    pub p_two_sided: f64,
}

/// The result of [`mcnemar_exact`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McNemar {
    /// Pairs the baseline got right and the candidate wrong.
    pub b: u64,
    /// Pairs the candidate got right and the baseline wrong.
    pub c: u64,
    /// The p-values, X ~ Binomial(b + c, ½): improvement P(X ≥ c), regression
    /// P(X ≥ b), two-sided min(1, 2 · P(X ≤ min(b, c))); each with its log10 from the
    /// log-space tail.
    pub tails: Tails,
    /// The mid-p variants.
    pub mid_p: MidP,
    /// The conditional odds ratio c / b; `None` when b = 0 (it would be infinite or
    /// undefined).
    pub odds_ratio: Option<f64>,
}

/// McNemar's exact test on b (baseline-only) and c (candidate-only) discordant pairs.
///
/// Concordant pairs do not enter, so they are not an argument. With no discordant pairs
/// every p-value is 1. Exact for any b + c up to 2^53 (see [`binomial::upper_tail`]);
/// larger counts must not be passed: the tail sums would not end.
/// Time: O(√(b + c)) in the worst case, about a millisecond at b + c = 10^9.
pub fn mcnemar_exact(b: u64, c: u64) -> McNemar {
    let odds_ratio = (b > 0).then(|| c as f64 / b as f64);
    // Callers keep b + c within 2^53 (audit refuses more than 2^40; admit holds its pairs
    // in memory): past it the tail walk stops advancing in f64 and would not end.
    let n = b.saturating_add(c);
    if n == 0 {
        let one = MidP {
            p_improvement: 1.0,
            p_regression: 1.0,
            p_two_sided: 1.0,
        };
        return McNemar {
            b,
            c,
            tails: Tails::none(),
            mid_p: one,
            odds_ratio,
        };
    }
    let point = |k: u64| binomial::pmf(k, n, 0.5);
    let p_improvement = binomial::upper_tail(c, n, 0.5);
    let p_regression = binomial::upper_tail(b, n, 0.5);
    let smaller = b.min(c);
    let tails = Tails::from_ln(
        (p_improvement, binomial::ln_upper_tail(c, n, 0.5)),
        (p_regression, binomial::ln_upper_tail(b, n, 0.5)),
        (
            binomial::lower_tail(smaller, n, 0.5),
            binomial::ln_lower_tail(smaller, n, 0.5),
        ),
    );
    let mid_p = MidP {
        p_improvement: p_improvement - 0.5 * point(c),
        p_regression: p_regression - 0.5 * point(b),
        p_two_sided: tails.p_two_sided - point(smaller),
    };
    McNemar {
        b,
        c,
        tails,
        mid_p,
        odds_ratio,
    }
}

/// Counts (b, c) from paired outcomes `(baseline correct, candidate correct)`:
/// concordant pairs are passed over, which is why they cannot change the test.
pub fn discordant_counts<I: IntoIterator<Item = (bool, bool)>>(pairs: I) -> (u64, u64) {
    pairs.into_iter().fold((0, 0), |(b, c), pair| match pair {
        (true, false) => (b + 1, c),
        (false, true) => (b, c + 1),
        _ => (b, c),
    })
}
