//! Confidence intervals for a proportion and for the paired difference of two
//! proportions, and the normal interval for a mean. The first two are score intervals:
//! they invert a test rather than add a standard error, so they stay inside [0, 1] (or
//! [−1, 1]) and do not collapse to a point when every observation agrees. The third,
//! the normal interval of a mean, is no longer what `admit` reports for score
//! differences: that is [`super::bounded_mean`], which holds its level at every n.

use super::{normal, valid_level};

/// A two-sided confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Confidence level, e.g. 0.95.
    pub confidence: f64,
}

/// The two-sided critical value z with P(|Z| > z) = 1 − confidence.
pub(crate) fn critical_value(confidence: f64) -> Option<f64> {
    if !valid_level(confidence) {
        return None;
    }
    normal::quantile(0.5 + 0.5 * confidence)
}

/// Wilson's score interval for a proportion (Wilson 1927; statsmodels
/// `proportion_confint(method="wilson")`).
///
/// `None` when n = 0, successes > n, or confidence is not in (0, 1). Time: O(1).
pub fn wilson(successes: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || successes > n {
        return None;
    }
    let z = critical_value(confidence)?;
    let (x, n_f) = (successes as f64, n as f64);
    let z2 = z * z;
    let centre = (x + 0.5 * z2) / (n_f + z2);
    let half = z * (x * (n_f - x) / n_f + 0.25 * z2).sqrt() / (n_f + z2);
    let low = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if successes == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Some(Interval {
        low,
        high,
        confidence,
    })
}

/// Tango's score statistic for H0: Δ = delta, where Δ = P(candidate only right) −
/// P(baseline only right), with the null variance at the constrained maximum-likelihood
/// estimate of P(baseline only right) (Tango 1998, eq. 3–4).
fn tango_statistic(b: f64, c: f64, n: f64, delta: f64) -> f64 {
    let w = -c - b + (2.0 * n - c + b) * delta;
    let root = (w * w + 8.0 * n * b * delta * (1.0 - delta))
        .max(0.0)
        .sqrt();
    let baseline_only = (root - w) / (4.0 * n);
    let variance = n * (2.0 * baseline_only + delta * (1.0 - delta));
    let numerator = c - b - n * delta;
    if variance > 0.0 {
        numerator / variance.sqrt()
    } else if numerator > 0.0 {
        f64::MAX
    } else if numerator < 0.0 {
        -f64::MAX
    } else {
        0.0
    }
}

/// The Δ in [from, to] where the decreasing statistic crosses `level`, by bisection
/// to the resolution of `f64`.
fn crossing(b: f64, c: f64, n: f64, level: f64, mut from: f64, mut to: f64) -> f64 {
    for _ in 0..200 {
        let mid = 0.5 * (from + to);
        if mid <= from || mid >= to {
            break;
        }
        if tango_statistic(b, c, n, mid) > level {
            from = mid;
        } else {
            to = mid;
        }
    }
    0.5 * (from + to)
}

/// Tango's asymptotic score interval for the paired difference of proportions
/// (T. Tango, "Equivalence test and confidence interval for the difference in
/// proportions for the paired-sample design", Stat Med 1998; 17:891–908).
///
/// The difference is candidate rate − baseline rate = (c − b)/n, with b pairs only the
/// baseline got right, c only the candidate, out of n pairs. It depends on the counts
/// only through b, c and n, and unlike the Wald interval it is not pinned to width 0
/// when b = c = 0 or bounded by the observed disagreement rate. The bounds are the two
/// roots of |Z(Δ)| = z, found by bisection (the statistic is monotone in Δ).
/// `None` when n = 0, b + c > n or confidence is not in (0, 1). Time: O(1) (about 130
/// bisection steps per bound).
pub fn paired_difference(b: u64, c: u64, n: u64, confidence: f64) -> Option<Interval> {
    if n == 0 || b.checked_add(c).is_none_or(|d| d > n) {
        return None;
    }
    let z = critical_value(confidence)?;
    let (b_f, c_f, n_f) = (b as f64, c as f64, n as f64);
    let estimate = (c_f - b_f) / n_f;
    let low = if b == n {
        -1.0
    } else {
        crossing(b_f, c_f, n_f, z, -1.0, estimate)
    };
    let high = if c == n {
        1.0
    } else {
        crossing(b_f, c_f, n_f, -z, estimate, 1.0)
    };
    Some(Interval {
        low,
        high,
        confidence,
    })
}

/// The normal (Wald) interval for the mean of `values`: mean ± z·s/√n, with s the sample
/// standard deviation (divisor n − 1) and z the two-sided critical value (scipy 1.17.1
/// `stats.norm.interval(confidence, loc=mean, scale=stats.sem(values))`).
///
/// At large n the percentile bootstrap of the mean converges to this interval: its
/// quantiles differ from the normal ones by about γ(z² − 1)/(6√n) standard errors (γ
/// the skewness; Hall, "The Bootstrap and Edgeworth Expansion", 1992, §3.5). `None` for
/// fewer than two values, a non-finite value or a confidence outside (0, 1).
/// Time: O(n).
pub fn normal_mean(values: &[f64], confidence: f64) -> Option<Interval> {
    if values.len() < 2 || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let z = critical_value(confidence)?;
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    let standard_error = (squares / (n - 1.0) / n).sqrt();
    Some(Interval {
        low: mean - z * standard_error,
        high: mean + z * standard_error,
        confidence,
    })
}
