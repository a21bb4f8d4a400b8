//! One betting e-process: the capital of a mixture of constant-bet bettors against
//! "the mean difference is at most m" (or, for a regression or a futility check, the
//! same on the negated differences). The bet fractions are fixed before the first pair,
//! so the capital after every pair is a non-negative supermartingale under the null and
//! Ville's inequality bounds the chance it ever reaches 1/alpha by alpha.

use crate::stats::bounded_mean::{log_factor, log_mean_exp};

/// Which way a track bets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BetOn {
    /// On the candidate: rejects "the mean difference is at most m".
    Candidate,
    /// On the baseline: rejects "the mean difference is at least −m" (the differences
    /// negated).
    Baseline,
}

/// How the pairs are summed. 0/1 `correct` differences take only the values −1, 0 and
/// 1, so their capital is a function of three counts: computing it from the counts
/// makes the monitor and the exact final look ([`super::final_look`]) evaluate the very
/// same expression. Scores are summed pair by pair.
#[derive(Clone, Debug, PartialEq)]
enum Sums {
    /// Pairs with difference −1, 0 and 1.
    Counts([u64; 3]),
    /// Σ_i ln(1 + c_j·(x_i − m)/(1 + m)) for each bet fraction c_j.
    Logs(Vec<f64>),
}

/// The state of one e-process.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    side: BetOn,
    /// The null's bound on the mean (after negation for [`BetOn::Baseline`]).
    m: f64,
    sums: Sums,
    pairs: u64,
}

impl Track {
    /// A track before any pair. `binary`: every difference will be −1, 0 or 1.
    /// `m` must be in (−1, 1).
    pub fn new(side: BetOn, m: f64, bets: &[f64], binary: bool) -> Track {
        let sums = if binary {
            Sums::Counts([0; 3])
        } else {
            Sums::Logs(vec![0.0; bets.len()])
        };
        Track {
            side,
            m,
            sums,
            pairs: 0,
        }
    }

    /// Adds one pair's difference (candidate − baseline, in [−1, 1]; for a binary track
    /// exactly −1, 0 or 1). Time: O(J) for J bets.
    pub fn push(&mut self, difference: f64, bets: &[f64]) {
        self.pairs += 1;
        let x = self.oriented(difference);
        match &mut self.sums {
            Sums::Counts(counts) => counts[(x.round() + 1.0).clamp(0.0, 2.0) as usize] += 1,
            Sums::Logs(logs) => {
                for (log, &c) in logs.iter_mut().zip(bets) {
                    *log += log_factor(c, x, self.m);
                }
            }
        }
    }

    fn oriented(&self, difference: f64) -> f64 {
        match self.side {
            BetOn::Candidate => difference,
            BetOn::Baseline => -difference,
        }
    }

    /// The pairs pushed.
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// ln of each bettor's capital.
    pub fn log_components(&self, bets: &[f64]) -> Vec<f64> {
        match &self.sums {
            Sums::Counts(counts) => bets
                .iter()
                .map(|&c| log_capital_of_counts(c, self.m, *counts))
                .collect(),
            Sums::Logs(logs) => logs.clone(),
        }
    }

    /// ln of the e-value: the mixture's capital, the mean of the bettors'.
    pub fn log_e_value(&self, bets: &[f64]) -> f64 {
        log_mean_exp(&self.log_components(bets))
    }
}

/// ln of one bettor's capital after `counts` pairs with oriented difference −1, 0 and 1.
pub(crate) fn log_capital_of_counts(c: f64, m: f64, counts: [u64; 3]) -> f64 {
    let mut total = 0.0;
    for (count, x) in counts.into_iter().zip([-1.0, 0.0, 1.0]) {
        if count > 0 {
            total += count as f64 * log_factor(c, x, m);
        }
    }
    total
}
