//! The exact final look for 0/1 `correct`: when every holdout task is scored and the
//! e-process has not reached 1/alpha, an exact binomial test on the discordant pairs
//! at the alpha the e-process left over. Under no change each discordant pair is a fair
//! coin, and the e-process is a function of the wins and losses, so the chance that it
//! crossed 1/alpha within d coins is computed exactly by dynamic programming over the
//! paths that have not crossed; the final critical count k is the smallest with
//! P(crossed) + P(not crossed and wins ≥ k) ≤ alpha. The whole procedure (stop early
//! when the e-process crosses, else admit at the last look when wins ≥ k) then has
//! level alpha given d, so for every d, so unconditionally.

use super::track::log_capital_of_counts;
use crate::stats::bounded_mean::log_mean_exp;

/// Probability below which the lowest win counts of the dynamic program are dropped
/// (their mass is added to the crossed mass, so dropping can only make the final test
/// stricter): keeps the work O(d·√d) instead of O(d²).
const NEGLIGIBLE: f64 = 1e-40;

/// The final look's test on `discordant` fair coins.
#[derive(Clone, Debug, PartialEq)]
pub struct FinalLook {
    /// The number of discordant pairs.
    pub discordant: u64,
    /// P(the e-process reached 1/alpha within them), plus the mass dropped as
    /// negligible.
    pub crossed: f64,
    /// alpha − `crossed`: what the final test may spend.
    pub alpha_left: f64,
    /// The fewest candidate wins that admit at the final look. When it is the e-process
    /// boundary itself, only paths that already crossed reach it: the final look then
    /// admits nothing more.
    pub critical: u64,
    /// P(not crossed and wins ≥ `critical`): the final test's size, at most
    /// `alpha_left`.
    pub size: f64,
    /// The smallest win count the dynamic program kept.
    low: u64,
    /// P(not crossed and w wins) for w = `low`, `low` + 1, … up to the boundary.
    mass: Vec<f64>,
}

impl FinalLook {
    /// The procedure's p-value for `wins` candidate wins at the last look: P(crossed) +
    /// P(not crossed and at least `wins` wins) under no change, the smallest alpha at
    /// which the whole procedure (early stops included) would have admitted. Admitted
    /// at the last look exactly when this is at most alpha.
    pub fn p_value(&self, wins: u64) -> f64 {
        let skip = wins.saturating_sub(self.low) as usize;
        let tail: f64 = self.mass.iter().skip(skip).sum();
        (self.crossed + tail).min(1.0)
    }
}

/// ln of the improvement e-value after `wins` and `losses` discordant pairs (ties add
/// nothing at m = 0), exactly as [`super::track::Track`] computes it.
pub fn log_e_value_of_coins(bets: &[f64], wins: u64, losses: u64) -> f64 {
    let logs: Vec<f64> = bets
        .iter()
        .map(|&c| log_capital_of_counts(c, 0.0, [losses, 0, wins]))
        .collect();
    log_mean_exp(&logs)
}

/// The exact final look at level `alpha` after `discordant` fair coins, for the
/// improvement e-process with bet fractions `bets` and threshold 1/alpha.
/// Time: O(d·√d) capital evaluations of O(J) each, about 0.1 s at d = 10^5.
pub fn final_look(bets: &[f64], alpha: f64, discordant: u64) -> FinalLook {
    let threshold = -alpha.ln();
    let crosses = |wins: u64, total: u64| {
        wins <= total && log_e_value_of_coins(bets, wins, total - wins) >= threshold
    };
    // `mass[w - low]` = P(w wins after s coins and never crossed), for low ≤ w < boundary.
    let mut mass: Vec<f64> = vec![1.0];
    let mut low: u64 = 0;
    let mut boundary: u64 = 1; // the fewest wins that cross after s = 0 coins: none
    let mut crossed = 0.0;
    for s in 0..discordant {
        let next = s + 1;
        // The boundary never falls (a loss lowers every bettor) and rises by at most
        // one a coin (a win raises every bettor).
        let next_boundary = if crosses(boundary, next) {
            boundary
        } else {
            boundary + 1
        };
        let mut grown = vec![0.0; mass.len() + 1];
        for (i, &p) in mass.iter().enumerate() {
            grown[i] += 0.5 * p;
            grown[i + 1] += 0.5 * p;
        }
        // Counts low..low + grown.len(); those at or above the new boundary cross.
        while low + grown.len() as u64 > next_boundary {
            crossed += grown.pop().unwrap_or(0.0);
        }
        while grown.len() > 1 && grown[0] < NEGLIGIBLE {
            crossed += grown.remove(0);
            low += 1;
        }
        mass = grown;
        boundary = next_boundary;
    }
    let alpha_left = alpha - crossed;
    // The smallest k whose tail among the uncrossed paths fits in what is left.
    let mut critical = low + mass.len() as u64;
    let mut size = 0.0;
    let mut tail = 0.0;
    for (i, &p) in mass.iter().enumerate().rev() {
        if tail + p > alpha_left {
            break;
        }
        tail += p;
        critical = low + i as u64;
        size = tail;
    }
    FinalLook {
        discordant,
        crossed,
        alpha_left,
        critical,
        size,
        low,
        mass,
    }
}
