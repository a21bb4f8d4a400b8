//! What the repeats of items say about one arm: pass@1 (the chance one repeat is
//! right), pass@k (that at least one of k is) and pass^k (that all k are), each the
//! mean over items of an unbiased per-item estimate, with an interval whose unit is the
//! item, never the repeat.
//!
//! Item i ran n_i repeats, c_i of them right; k is the fewest repeats any item ran.
//! Per item, drawing k of its n_i repeats without replacement (Chen et al. 2021, the
//! estimator behind HumanEval's pass@k and Inspect's `pass_at_k`):
//!
//! - pass@1: c_i / n_i;
//! - pass@k: 1 − C(n_i − c_i, k) / C(n_i, k);
//! - pass^k: C(c_i, k) / C(n_i, k).
//!
//! Each is unbiased for the item's own p_i, 1 − (1 − p_i)^k and p_i^k when its repeats
//! are independent draws, so their mean over items is unbiased for the figure over the
//! population of items. With n_i = k for every item, pass@k and pass^k are the shares
//! of items with any, and with every, repeat right.
//!
//! The interval is Clopper and Pearson's at the effective number of items (Korn &
//! Graubard, 1998, for proportions from clustered samples): with p̂ the mean of the
//! per-item values v_i and v̂ = Σ (v_i − p̂)² / n² the variance of that mean with items
//! as the independent units, n_eff = p̂ (1 − p̂) / v̂, and the bounds are the beta
//! quantiles of Clopper–Pearson for x = p̂·n_eff successes of n_eff. For values that
//! are 0 or 1 (pass@k and pass^k at equal k), n_eff = n and this is the exact
//! Clopper–Pearson interval over items, whose coverage is at least its level for every
//! n and p; values in between can only raise n_eff (a value in [0, 1] varies at most p̂
//! (1 − p̂)), and it is capped at the number of repeats, the most the data could hold.
//! p̂ of 0 or 1 takes n_eff = n. Wilson's score interval, tried first, dips to 84% at
//! a nominal 90% (20 items, p 0.8) and 82% (200 items, p 0.999), as its exact coverage
//! does (Brown, Cai & DasGupta 2001); `benches/repeats_coverage.rs` measures both.

use super::interval::{Interval, critical_value};

/// One item's repeats in one arm: how many ran and how many were right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRepeats {
    /// Repeats run, at least 1.
    pub runs: u64,
    /// Repeats right, at most `runs`.
    pub right: u64,
}

/// C(n, k) / C(m, k) for k ≤ n ≤ m, as a product of k ratios (no overflow).
fn choose_ratio(n: u64, m: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).map(|j| (n - j) as f64 / (m - j) as f64).product()
}

impl ItemRepeats {
    /// The item's pass@1 estimate, c / n.
    pub fn pass_at_1(self) -> f64 {
        self.right as f64 / self.runs as f64
    }

    /// The item's pass@k estimate, 1 − C(n − c, k) / C(n, k); `k` at most `runs`.
    pub fn pass_at_k(self, k: u64) -> f64 {
        1.0 - choose_ratio(self.runs - self.right, self.runs, k)
    }

    /// The item's pass^k estimate, C(c, k) / C(n, k); `k` at most `runs`.
    pub fn pass_hat_k(self, k: u64) -> f64 {
        choose_ratio(self.right, self.runs, k)
    }

    /// Whether its repeats disagree: some right, some not.
    pub fn flaky(self) -> bool {
        self.right > 0 && self.right < self.runs
    }
}

/// A figure over items: the mean of the per-item values and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figure {
    /// The mean over items.
    pub estimate: f64,
    /// The interval (Clopper–Pearson at the effective number of items).
    pub interval: Interval,
    /// The effective number of items the interval used.
    pub effective_items: f64,
}

/// The mean of `values` (each in [0, 1], one per item) with Clopper and Pearson's
/// interval at the effective number of items, at most `cap`; `None` without values or
/// at a confidence outside (0, 1). Time: O(n).
pub fn item_figure(values: &[f64], cap: f64, confidence: f64) -> Option<Figure> {
    let (mean, effective) = effective_items(values, cap)?;
    if !(confidence > 0.0 && confidence < 1.0) {
        return None;
    }
    Some(Figure {
        estimate: mean,
        interval: clopper_pearson(mean * effective, effective, confidence),
        effective_items: effective,
    })
}

/// [`item_figure`] with Wilson's score interval at the effective number of items
/// instead, for comparison (`benches/repeats_coverage.rs`).
pub fn item_figure_wilson(values: &[f64], cap: f64, confidence: f64) -> Option<Figure> {
    let (mean, effective) = effective_items(values, cap)?;
    let z = critical_value(confidence)?;
    Some(Figure {
        estimate: mean,
        interval: wilson_real(mean, effective, z, confidence),
        effective_items: effective,
    })
}

/// The mean of `values` and the effective number of items, between n and `cap`.
fn effective_items(values: &[f64], cap: f64) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let spread = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n * n);
    let binomial = mean * (1.0 - mean);
    let effective = if binomial <= 0.0 {
        // All 0 or all 1: as n binary values.
        n
    } else if spread <= 0.0 {
        // An unvarying share: as many as the cap allows.
        cap.max(n)
    } else {
        (binomial / spread).clamp(n, cap.max(n))
    };
    Some((mean, effective))
}

/// Clopper and Pearson's interval for `x` successes of `m` (both real, 0 ≤ x ≤ m): the
/// α/2 quantile of Beta(x, m − x + 1) and the 1 − α/2 quantile of Beta(x + 1, m − x),
/// with the ends at 0 and 1 exact.
fn clopper_pearson(x: f64, m: f64, confidence: f64) -> Interval {
    let tail = 0.5 * (1.0 - confidence);
    let low = if x <= 0.0 {
        0.0
    } else {
        beta::quantile(tail, x, m - x + 1.0)
    };
    let high = if x >= m {
        1.0
    } else {
        beta::quantile(1.0 - tail, x + 1.0, m - x)
    };
    Interval {
        low,
        high,
        confidence,
    }
}

/// Wilson's interval for a share `p` of `m` (real) observations at critical value z:
/// the same formula as [`super::interval::wilson`], with its ends at 0 and 1 exact when
/// the share is.
fn wilson_real(p: f64, m: f64, z: f64, confidence: f64) -> Interval {
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * m)) / (1.0 + z2 / m);
    let half = z * (p * (1.0 - p) / m + z2 / (4.0 * m * m)).sqrt() / (1.0 + z2 / m);
    Interval {
        low: if p <= 0.0 {
            0.0
        } else {
            (centre - half).max(0.0)
        },
        high: if p >= 1.0 {
            1.0
        } else {
            (centre + half).min(1.0)
        },
        confidence,
    }
}

/// The beta distribution's CDF (the regularized incomplete beta function) and its
/// quantile, for real shape parameters above 0.
pub(crate) mod beta {
    /// ln Γ(x) for x > 0: Lanczos (g = 7, nine coefficients, relative error near
    /// 1e-15), with the reflection formula below 1/2.
    pub(crate) fn ln_gamma(x: f64) -> f64 {
        const G: f64 = 7.0;
        const C: [f64; 9] = [
            0.999_999_999_999_809_9,
            676.520_368_121_885_1,
            -1_259.139_216_722_402_8,
            771.323_428_777_653_1,
            -176.615_029_162_140_6,
            12.507_343_278_686_905,
            -0.138_571_095_265_720_12,
            9.984_369_578_019_572e-6,
            1.505_632_735_149_311_6e-7,
        ];
        if x < 0.5 {
            let pi = std::f64::consts::PI;
            return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
        }
        let x = x - 1.0;
        let mut sum = C[0];
        for (i, c) in C.iter().enumerate().skip(1) {
            sum += c / (x + i as f64);
        }
        let t = x + G + 0.5;
        0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
    }

    /// The continued fraction of the incomplete beta function, by Lentz's method.
    fn fraction(x: f64, a: f64, b: f64) -> f64 {
        const TINY: f64 = 1e-300;
        let mut c = 1.0;
        let mut d = 1.0 - (a + b) * x / (a + 1.0);
        if d.abs() < TINY {
            d = TINY;
        }
        d = 1.0 / d;
        let mut h = d;
        for m in 1..=1_000 {
            let m = f64::from(m);
            let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
            for numerator in [
                even,
                -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)),
            ] {
                d = 1.0 + numerator * d;
                if d.abs() < TINY {
                    d = TINY;
                }
                c = 1.0 + numerator / c;
                if c.abs() < TINY {
                    c = TINY;
                }
                d = 1.0 / d;
                h *= d * c;
            }
            if (d * c - 1.0).abs() < 1e-16 {
                break;
            }
        }
        h
    }

    /// P(X ≤ x) for X ~ Beta(a, b): I_x(a, b).
    pub(crate) fn cdf(x: f64, a: f64, b: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        let front =
            (a * x.ln() + b * (1.0 - x).ln() - (ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b))).exp();
        // The fraction converges fast where x is below the mean; else by symmetry.
        if x < (a + 1.0) / (a + b + 2.0) {
            front * fraction(x, a, b) / a
        } else {
            1.0 - front * fraction(1.0 - x, b, a) / b
        }
    }

    /// The x with I_x(a, b) = p, by bisection to 1e-15.
    pub(crate) fn quantile(p: f64, a: f64, b: f64) -> f64 {
        let (mut low, mut high) = (0.0_f64, 1.0_f64);
        while high - low > 1e-15 {
            let middle = 0.5 * (low + high);
            if middle <= low || middle >= high {
                break;
            }
            if cdf(middle, a, b) < p {
                low = middle;
            } else {
                high = middle;
            }
        }
        0.5 * (low + high)
    }
}

/// The three figures of one arm's items at `k` (the fewest repeats any item ran).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmRepeats {
    /// pass@1.
    pub pass_at_1: Figure,
    /// pass@k.
    pub pass_at_k: Figure,
    /// pass^k.
    pub pass_hat_k: Figure,
}

/// pass@1, pass@k and pass^k over `items` at the smallest `runs` among them, each with
/// its interval at `confidence`; `None` without items.
pub fn arm_repeats(items: &[ItemRepeats], confidence: f64) -> Option<ArmRepeats> {
    let k = items.iter().map(|i| i.runs).min()?;
    let rows = items.iter().map(|i| i.runs as f64).sum::<f64>();
    let figure = |value: &dyn Fn(ItemRepeats) -> f64| {
        let values: Vec<f64> = items.iter().map(|&i| value(i)).collect();
        item_figure(&values, rows, confidence)
    };
    Some(ArmRepeats {
        pass_at_1: figure(&|i| i.pass_at_1())?,
        pass_at_k: figure(&|i| i.pass_at_k(k))?,
        pass_hat_k: figure(&|i| i.pass_hat_k(k))?,
    })
}
