//! McNemar's exact test for paired pass/fail outcomes, for any number of pairs.
//!
//! Only discordant pairs carry information: under the null each is equally likely to
//! favour either arm, so the count favouring the candidate is Binomial(b + c, ½).

use super::binomial;

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
    /// P(X ≥ c), X ~ Binomial(b + c, ½): evidence that the candidate is better.
    pub p_improvement: f64,
    /// P(X ≥ b): evidence that the candidate is worse.
    pub p_regression: f64,
    /// min(1, 2 · P(X ≤ min(b, c))).
    pub p_two_sided: f64,
    /// log10 of `p_improvement`, computed in log space: finite and exact where the
    /// p-value itself underflows (−331.133 for b 0, c 1,100).
    pub log10_p_improvement: f64,
    /// log10 of `p_regression`, likewise.
    pub log10_p_regression: f64,
    /// log10 of `p_two_sided`, likewise.
    pub log10_p_two_sided: f64,
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
            p_improvement: 1.0,
            p_regression: 1.0,
            p_two_sided: 1.0,
            log10_p_improvement: 0.0,
            log10_p_regression: 0.0,
            log10_p_two_sided: 0.0,
            mid_p: one,
            odds_ratio,
        };
    }
    let point = |k: u64| binomial::pmf(k, n, 0.5);
    let p_improvement = binomial::upper_tail(c, n, 0.5);
    let p_regression = binomial::upper_tail(b, n, 0.5);
    let smaller = b.min(c);
    let p_two_sided = (2.0 * binomial::lower_tail(smaller, n, 0.5)).min(1.0);
    let log10 = std::f64::consts::LOG10_E;
    let log10_p_two_sided =
        (std::f64::consts::LOG10_2 + log10 * binomial::ln_lower_tail(smaller, n, 0.5)).min(0.0);
    let mid_p = MidP {
        p_improvement: p_improvement - 0.5 * point(c),
        p_regression: p_regression - 0.5 * point(b),
        p_two_sided: p_two_sided - point(smaller),
    };
    McNemar {
        b,
        c,
        p_improvement,
        p_regression,
        p_two_sided,
        log10_p_improvement: log10 * binomial::ln_upper_tail(c, n, 0.5),
        log10_p_regression: log10 * binomial::ln_upper_tail(b, n, 0.5),
        log10_p_two_sided,
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
