//! How strong each check of an admission is, at 80% power: the shift the test for
//! improvement would detect, the regression each stratum's check would catch, and, for a
//! candidate that leans better without a significant result, whether the holdout could
//! have shown its observed shift at all and how many tasks would.
//!
//! McNemar's figures are exact powers ([`crate::stats::power`]) up to
//! [`EXACT_GUARD_LIMIT`] pairs and normal approximations beyond; the signed-rank test's
//! are always normal approximations from the observed spread of the differences
//! ([`crate::stats::normal_power`]), and every sentence that quotes one says which.

use crate::stats::TIE_TOLERANCE;
use crate::stats::normal_power::{connor_required_n, required_n_for_mean, z_sum};
use crate::stats::power::{
    EXACT_POWER_LIMIT, detectable_shift_at_observed, mcnemar_power, min_discordant,
    required_n_for_power,
};

/// The power every strength figure is stated at.
pub const TARGET_POWER: f64 = 0.8;

/// Up to this many pairs McNemar's strength figures are exact powers; beyond, the
/// normal approximation. An exact detectable shift is a bisection of some 35 exact
/// powers, about 30 ms at 500 pairs, 75 ms at 1,000 and 1.7 s at 10,000 (release build),
/// once for the whole holdout and once per stratum (`admit` on 4 kinds of 500 pairs:
/// 0.13 s against 0.01 s without these figures); at 500 pairs Connor's approximation is
/// within 4% of the exact shift (his table in `stats/tests/power.rs`).
pub const EXACT_GUARD_LIMIT: u64 = 500;

/// What the power of a set of pairs depends on besides their number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Spread {
    /// McNemar: the share of pairs on which the arms disagree.
    Discordance(f64),
    /// Signed-rank: the sample standard deviation of the differences (absent below two
    /// pairs) and how many differences are not zero.
    Differences { sd: Option<f64>, nonzero: usize },
}

/// How a strength figure was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    /// The exact power of McNemar's exact test.
    Exact,
    /// The normal approximation (z₁₋α + z₀.₈)·σ/√n.
    Normal,
}

impl Method {
    /// How a sentence names it.
    pub(super) fn words(self) -> &'static str {
        match self {
            Method::Exact => "exact power of McNemar's test",
            Method::Normal => "normal approximation",
        }
    }
}

/// The fewest discordant pairs (or non-zero differences), all one way, that reach
/// `alpha`.
fn floor(alpha: f64) -> u64 {
    u64::from(min_discordant(alpha).expect("Alpha holds a level in (0, 0.5)"))
}

/// The shift that n pairs detect with 80% power in one direction: McNemar, the
/// difference of proportions at the observed discordance (or at the shift itself when
/// it is larger: a shift needs that many disagreements); signed-rank, the mean score
/// difference given the observed spread. `None` when n is below the fewest pairs that
/// can reach alpha, or the differences do not vary (signed-rank: no spread to scale by).
pub(super) fn detectable(n: usize, spread: Spread, alpha: f64) -> Option<(f64, Method)> {
    detectable_with(n, spread, alpha, TARGET_POWER)
}

/// [`detectable`] at any `power` in (0, 1) (`calibrate --power`).
pub(super) fn detectable_with(
    n: usize,
    spread: Spread,
    alpha: f64,
    power: f64,
) -> Option<(f64, Method)> {
    let n = n as u64;
    if n < floor(alpha) {
        return None;
    }
    let z = z_sum(alpha, power)?;
    match spread {
        Spread::Discordance(psi) if n <= EXACT_GUARD_LIMIT => {
            detectable_shift_at_observed(n, psi, alpha, power).map(|s| (s, Method::Exact))
        }
        Spread::Discordance(psi) => {
            // z·√ψ/√n while that is within ψ, else ψ = δ and δ = z²/n.
            let at_observed = z * psi.sqrt() / (n as f64).sqrt();
            let shift = if at_observed <= psi {
                at_observed
            } else {
                z * z / n as f64
            };
            Some((shift.min(1.0), Method::Normal))
        }
        Spread::Differences { sd, .. } => {
            // Ten differences of +0.01 read from a CSV have a standard deviation near
            // 1e-18, not 0: rounding, not spread.
            let sd = sd.filter(|&s| s > TIE_TOLERANCE)?;
            Some((z * sd / (n as f64).sqrt(), Method::Normal))
        }
    }
}

/// Whether the holdout could have shown an observed shift in the candidate's favour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Reach {
    /// The observed shift is zero or favours the baseline: no number of tasks would
    /// show an improvement that is not there.
    NoLean,
    /// The holdout had at least 80% power for the observed shift.
    Powered,
    /// It had less: `tasks_needed` would give 80% power for the observed shift.
    Underpowered {
        /// McNemar only (exact up to the exact-power limit): the power the holdout had.
        power: Option<f64>,
        /// Tasks that would give 80% power for the observed shift.
        tasks_needed: u64,
        /// How `tasks_needed` was found.
        method: Method,
    },
}

/// Whether n pairs with the observed `shift` (McNemar: (c − b)/n; signed-rank: the mean
/// difference) could have detected it with 80% power, and if not, how many would.
///
/// McNemar: the exact power at n at the observed discordance; the tasks needed are the
/// first n at which exact power reaches 80% in [`required_n_for_power`]'s search (the
/// saw-tooth of exact power in n means a few n above may fall short again; `evogate
/// power --shift --discordance` names the n from which it stays), and Connor's normal
/// approximation when that would exceed [`EXACT_GUARD_LIMIT`] pairs. Signed-rank: the
/// larger of ⌈((z₁₋α + z₀.₈)·sd/mean)²⌉ and the pairs that hold, at the observed share
/// of non-zero differences, the fewest non-zero differences that can reach alpha.
pub(super) fn reach(n: usize, shift: f64, spread: Spread, alpha: f64) -> Reach {
    if shift.is_nan() || shift <= 0.0 {
        return Reach::NoLean;
    }
    let n = n as u64;
    match spread {
        Spread::Discordance(psi) => mcnemar_reach(n, shift, psi, alpha),
        Spread::Differences { sd, nonzero } => {
            let by_spread = required_n_for_mean(shift, sd.unwrap_or(0.0), alpha, TARGET_POWER);
            // mean > 0 means some difference is positive, so nonzero ≥ 1.
            let by_floor = (floor(alpha) * n).div_ceil(nonzero.max(1) as u64);
            match by_spread {
                Some(needed) if needed.max(by_floor) <= n => Reach::Powered,
                needed => Reach::Underpowered {
                    power: None,
                    tasks_needed: needed.unwrap_or(u64::MAX).max(by_floor),
                    method: Method::Normal,
                },
            }
        }
    }
}

fn mcnemar_reach(n: u64, shift: f64, psi: f64, alpha: f64) -> Reach {
    let connor = connor_required_n(shift, psi, alpha, TARGET_POWER).unwrap_or(u64::MAX);
    let power = mcnemar_power(n, psi, shift, alpha);
    let powered = match power {
        Some(p) => p >= TARGET_POWER,
        None => connor <= n,
    };
    if powered {
        return Reach::Powered;
    }
    let exact = (connor <= EXACT_GUARD_LIMIT)
        .then(|| required_n_for_power(shift, psi, alpha, TARGET_POWER))
        .flatten()
        .map(|crossing| first_reaching_above(n, crossing, shift, psi, alpha));
    match exact {
        Some(tasks_needed) => Reach::Underpowered {
            power,
            tasks_needed,
            method: Method::Exact,
        },
        None => Reach::Underpowered {
            power,
            tasks_needed: connor.max(n + 1),
            method: Method::Normal,
        },
    }
}

/// `crossing` when it is above n; otherwise (the search met a saw-tooth peak below n,
/// where n itself falls short) the first n' > n whose exact power reaches 80%.
fn first_reaching_above(n: u64, crossing: u64, shift: f64, psi: f64, alpha: f64) -> u64 {
    if crossing > n {
        return crossing;
    }
    (n + 1..=EXACT_POWER_LIMIT)
        .find(|&m| mcnemar_power(m, psi, shift, alpha).is_some_and(|p| p >= TARGET_POWER))
        .unwrap_or(n + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_win_and_five_ties_needs_the_first_n_whose_exact_power_reaches_80_percent() {
        // psi = delta = 1/6: every disagreement favours the candidate, so power at n is
        // P(D >= 5) for D ~ Binomial(n, 1/6). scipy 1.17.1: binom.sf(4, n, 1/6) is
        // 0.78219 at n = 38 and 0.80148 at n = 39; at n = 6 it is 0.000664437585733882.
        let reach = reach(6, 1.0 / 6.0, Spread::Discordance(1.0 / 6.0), 0.05);
        let Reach::Underpowered {
            power: Some(power),
            tasks_needed,
            method,
        } = reach
        else {
            panic!("{reach:?}");
        };
        assert_eq!(tasks_needed, 39);
        assert_eq!(method, Method::Exact);
        assert!(
            (power - 0.000_664_437_585_733_881_8).abs() < 1e-12,
            "{power}"
        );
    }

    #[test]
    fn a_shift_that_is_not_positive_needs_no_tasks() {
        for shift in [0.0, -0.1] {
            assert_eq!(
                reach(100, shift, Spread::Discordance(0.2), 0.05),
                Reach::NoLean
            );
            let spread = Spread::Differences {
                sd: Some(0.3),
                nonzero: 50,
            };
            assert_eq!(reach(100, shift, spread, 0.05), Reach::NoLean);
        }
    }

    #[test]
    fn signed_rank_needs_the_normal_n_or_enough_non_zero_differences() {
        // ((1.6448536269514722 + 0.8416212335729143) * 0.3 / 0.1)^2 = 55.64 -> 56.
        let spread = Spread::Differences {
            sd: Some(0.3),
            nonzero: 20,
        };
        assert_eq!(
            reach(20, 0.1, spread, 0.05),
            Reach::Underpowered {
                power: None,
                tasks_needed: 56,
                method: Method::Normal
            }
        );
        assert_eq!(reach(56, 0.1, spread, 0.05), Reach::Powered);
        // Four differences of +0.01: no spread, but four non-zero differences cannot
        // reach 0.05 (2^-4 = 0.0625); five pairs at the same share can.
        let flat = Spread::Differences {
            sd: Some(0.0),
            nonzero: 4,
        };
        assert_eq!(
            reach(4, 0.01, flat, 0.05),
            Reach::Underpowered {
                power: None,
                tasks_needed: 5,
                method: Method::Normal
            }
        );
        // One non-zero difference in ten pairs: 50 pairs hold five at that share.
        let sparse = Spread::Differences {
            sd: Some(0.0),
            nonzero: 1,
        };
        let Reach::Underpowered { tasks_needed, .. } = reach(10, 0.001, sparse, 0.05) else {
            panic!("underpowered");
        };
        assert_eq!(tasks_needed, 50);
    }

    #[test]
    fn the_detectable_shift_needs_enough_pairs_and_some_spread() {
        assert_eq!(detectable(4, Spread::Discordance(0.5), 0.05), None);
        let flat = Spread::Differences {
            sd: Some(0.0),
            nonzero: 10,
        };
        assert_eq!(detectable(10, flat, 0.05), None);
        let spread = Spread::Differences {
            sd: Some(0.2),
            nonzero: 10,
        };
        // (1.6448536269514722 + 0.8416212335729143) * 0.2 / sqrt(100).
        let (shift, method) = detectable(100, spread, 0.05).unwrap();
        assert!((shift - 0.049_729_497_210_487_73).abs() < 1e-12, "{shift}");
        assert_eq!(method, Method::Normal);
    }
}
