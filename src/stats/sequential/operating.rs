//! What a sequential design costs, by simulation: the chance it admits, and the
//! expected and 90th-percentile tasks to a decision, for 0/1 `correct` pairs with a
//! given discordance and true shift. `evogate power --sequential` prints it beside the
//! fixed-n exact test's n. Monte-Carlo from a ChaCha20 stream with a fixed seed, drawn
//! through `base::random::Random::below` on its raw output, so the figures never change between runs.

use serde::Serialize;

use super::monitor::{Design, DesignError, Monitor, Standing};
use crate::base::random::Random;

/// The seed of every simulation (the figures are the same on every machine).
pub const SEED: u64 = 20_261_204;

/// A sequential design's operating characteristics at one shift.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Operating {
    /// Simulated runs.
    pub runs: u64,
    /// The share of runs admitted.
    pub power: f64,
    /// The mean number of tasks to a decision (admitted or refused).
    pub mean_tasks: f64,
    /// The median.
    pub median_tasks: u64,
    /// The 90th percentile.
    pub p90_tasks: u64,
}

/// Simulates `runs` monitored runs of `design` (0/1 `correct`; P(only the candidate
/// right) = (ψ + δ)/2, P(only the baseline right) = (ψ − δ)/2), each to its decision.
/// Time: O(runs · holdout · J).
pub fn operating(
    design: &Design,
    discordance: f64,
    shift: f64,
    runs: u64,
) -> Result<Operating, DesignError> {
    let mut rng = Random::expanded(SEED);
    let mut tasks = Vec::with_capacity(runs as usize);
    let mut admitted = 0u64;
    let win = (discordance + shift) / 2.0;
    for _ in 0..runs {
        let mut monitor = Monitor::new(design.clone())?;
        while monitor.status() == Standing::Continue {
            let u = rng.below(1 << 53) as f64 / (1_u64 << 53) as f64;
            let difference = if u < win {
                1.0
            } else if u < discordance {
                -1.0
            } else {
                0.0
            };
            monitor.push(difference, None);
        }
        admitted += u64::from(monitor.status() == Standing::Admitted);
        tasks.push(monitor.pairs());
    }
    tasks.sort_unstable();
    let at = |q: f64| tasks[((q * runs as f64).ceil() as usize).clamp(1, tasks.len()) - 1];
    Ok(Operating {
        runs,
        power: admitted as f64 / runs as f64,
        mean_tasks: tasks.iter().sum::<u64>() as f64 / runs as f64,
        median_tasks: at(0.5),
        p90_tasks: at(0.9),
    })
}
