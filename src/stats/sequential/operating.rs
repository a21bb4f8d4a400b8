//! What a sequential design costs, by simulation: the chance it admits, and the
//! expected and 90th-percentile tasks to a decision, for 0/1 `correct` pairs with a
//! given discordance and true shift. `evogate power --sequential` prints it beside the
//! fixed-n exact test's n. Monte-Carlo from a ChaCha20 stream with a fixed seed, drawn
//! through `base::random::Random::below` on its raw output, so the figures never change between runs.

use serde::Serialize;

use super::monitor::{Design, DesignError, Monitor, Standing};
use crate::base::random::Random;

/// The seed of every simulation (the figures are the same on every machine).
pub(crate) const SEED: u64 = 20_261_204;

/// The largest holdout a simulation runs to. Each run may go to the last look, so the
/// work is O(runs · holdout · J) and a run holds its pairs: 2,000 runs to 20,000 tasks,
/// the worst case (a shift so small every run reaches the last look), took 131 s on
/// the shared 2-core machine (`evogate power --sequential --shift 0.001
/// --discordance 1 --holdout 20000`, 2026-12-04).
pub const SIMULATED_HOLDOUT_LIMIT: u64 = 20_000;

/// A simulation that cannot be run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum OperatingError {
    /// The design cannot be monitored.
    #[error(transparent)]
    Design(#[from] DesignError),
    /// No runs asked for: no share or percentile exists.
    #[error("no simulated runs: give at least one")]
    NoRuns,
    /// A holdout past [`SIMULATED_HOLDOUT_LIMIT`].
    #[error(
        "a holdout of {0} tasks is more than the {SIMULATED_HOLDOUT_LIMIT} a simulation runs to; give a smaller holdout"
    )]
    Holdout(u64),
}

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
/// Time: O(runs · holdout · J); refused for no runs or a holdout past
/// [`SIMULATED_HOLDOUT_LIMIT`].
pub fn operating(
    design: &Design,
    discordance: f64,
    shift: f64,
    runs: u64,
) -> Result<Operating, OperatingError> {
    if runs == 0 {
        return Err(OperatingError::NoRuns);
    }
    if design.holdout > SIMULATED_HOLDOUT_LIMIT {
        return Err(OperatingError::Holdout(design.holdout));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alpha::Alpha;
    use crate::stats::signed_rank::ZeroMethod;

    #[test]
    fn no_runs_or_a_holdout_past_the_limit_is_an_error_not_a_panic() {
        let design = Design::new(
            Alpha::new(0.05).unwrap(),
            0.0,
            100,
            true,
            ZeroMethod::Wilcox,
        );
        assert_eq!(operating(&design, 0.3, 0.1, 0), Err(OperatingError::NoRuns));
        let past = Design::new(
            Alpha::new(0.05).unwrap(),
            0.0,
            SIMULATED_HOLDOUT_LIMIT + 1,
            true,
            ZeroMethod::Wilcox,
        );
        assert_eq!(
            operating(&past, 0.3, 0.1, 1),
            Err(OperatingError::Holdout(SIMULATED_HOLDOUT_LIMIT + 1))
        );
    }
}
