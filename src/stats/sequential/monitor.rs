//! The sequential admission rule, look by look: push the pairs in their fixed order and
//! the monitor says after each one whether the candidate is admitted, refused or not yet
//! decided, and on the last holdout pair applies the final look. Pure: no I/O.

use std::collections::BTreeMap;

use super::final_look::{FinalLook, final_look};
use super::track::{BetOn, Track};
use crate::alpha::Alpha;
use crate::base::numbers::{MICROS, micros};
use crate::stats::bounded_mean::{Histogram, bet_fractions, lower_bound_with};
use crate::stats::interval::Interval;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::signed_rank::{ZeroMethod, signed_rank};

/// For scores, the share of alpha the e-process spends; the exact signed-rank test at
/// the last look spends the rest (Bonferroni). Chosen by measurement
/// (`examples/sequential_simulation.rs`, docs/statistics.md).
pub(crate) const SCORES_SEQUENTIAL_SHARE: f64 = 0.25;

/// What is fixed before the first pair is seen.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// The level: the chance of admitting a candidate that is not better.
    pub alpha: Alpha,
    /// Refuse early once the upper bound on the improvement is at or below this (0 by
    /// default: the candidate cannot be better). In [0, 1).
    pub margin: f64,
    /// The number of holdout tasks: the last look is at this many pairs, and the bets
    /// are fixed by it.
    pub holdout: u64,
    /// Whether the differences are 0/1 `correct` differences (−1, 0, 1).
    pub binary: bool,
    /// The signed-rank test's zero method at the last look (scores only).
    pub zero: ZeroMethod,
    /// For scores, the share of alpha the e-process spends (`SCORES_SEQUENTIAL_SHARE`
    /// unless a simulation compares others); in (0, 1].
    pub scores_share: f64,
}

impl Design {
    /// A design with the default share of alpha for scores.
    pub fn new(alpha: Alpha, margin: f64, holdout: u64, binary: bool, zero: ZeroMethod) -> Design {
        Design {
            alpha,
            margin,
            holdout,
            binary,
            zero,
            scores_share: SCORES_SEQUENTIAL_SHARE,
        }
    }
}

/// A design that cannot be monitored.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DesignError {
    /// margin outside [0, 1).
    #[error("margin {0} is not in [0, 1)")]
    Margin(f64),
    /// A share of alpha outside (0, 1].
    #[error("the e-process's share of alpha {0} is not in (0, 1]")]
    Share(f64),
    /// An empty holdout.
    #[error("the holdout has no tasks")]
    EmptyHoldout,
}

/// Where the monitoring stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// The improvement was shown.
    Admitted,
    /// The candidate cannot be better, or a stratum regressed, or the last look did not
    /// show an improvement.
    Refused,
    /// Not decided: score more tasks.
    Continue,
}

/// Why the monitoring stopped.
#[derive(Clone, Debug, PartialEq)]
pub enum Reason {
    /// The improvement e-value reached its threshold.
    ImprovementShown,
    /// The upper bound on the improvement fell to the margin or below.
    CannotBeBetter,
    /// A stratum's regression e-value reached 1/alpha.
    StratumRegressed(String),
    /// At the last look the improvement was shown, but a stratum's exact one-sided
    /// regression test (as `admit` runs it) was significant at alpha.
    StratumRegressedAtLastLook(String),
    /// Every holdout task was scored; the final exact test at the alpha left over
    /// decided (admitted when it rejected).
    FinalLook {
        /// Whether the final test showed an improvement.
        shown: bool,
    },
}

/// One look: the e-values after a pair.
#[derive(Clone, Debug, PartialEq)]
pub struct Look {
    /// ln of the improvement e-value.
    pub log_e_improvement: f64,
    /// ln of the futility e-value (against "the improvement is at least the margin").
    pub log_e_futility: f64,
    /// ln of the largest stratum regression e-value, if there are strata.
    pub log_e_regression: Option<f64>,
}

/// The exact test at the last look, when it was reached undecided.
#[derive(Clone, Debug, PartialEq)]
pub enum FinalTest {
    /// 0/1 `correct`: the exact binomial test on the discordant pairs at the alpha the
    /// e-process left over.
    Binomial {
        /// The exact computation.
        look: FinalLook,
        /// Candidate-only wins.
        wins: u64,
    },
    /// Scores: the exact signed-rank test at the other share of alpha.
    SignedRank {
        /// Its one-sided p-value for improvement.
        p_improvement: f64,
        /// The level it was tested at: none when the e-process spent the whole of
        /// alpha (a share of 1), and then nothing can be shown.
        alpha: Option<Alpha>,
        /// The mean difference (must be positive to admit).
        mean: f64,
    },
}

impl FinalTest {
    /// The p-value for improvement: the binomial procedure's (early stops included),
    /// or the signed-rank test's one-sided one.
    pub fn p_value(&self) -> f64 {
        match self {
            FinalTest::Binomial { look, wins } => look.p_value(*wins),
            FinalTest::SignedRank { p_improvement, .. } => *p_improvement,
        }
    }

    /// The one-look exact p-value of the same pairs, what `admit` reports for them:
    /// McNemar's exact one-sided p for the wins among the discordant pairs (never above
    /// [`FinalTest::p_value`], which also counts the early looks), or the same
    /// signed-rank p.
    pub fn fixed_n_p_value(&self) -> f64 {
        match self {
            FinalTest::Binomial { look, wins } => {
                mcnemar_exact(look.discordant - wins, *wins)
                    .tails
                    .p_improvement
            }
            FinalTest::SignedRank { p_improvement, .. } => *p_improvement,
        }
    }

    /// Whether it showed the improvement: at least the critical count of wins, or a
    /// signed-rank p-value below its alpha with a positive mean (with the whole of
    /// alpha spent by the e-process nothing is left to test).
    pub fn shown(&self) -> bool {
        match self {
            FinalTest::Binomial { look, wins } => *wins >= look.critical,
            FinalTest::SignedRank {
                p_improvement,
                alpha,
                mean,
            } => alpha.is_some_and(|alpha| alpha.rejects(*p_improvement)) && *mean > 0.0,
        }
    }
}

/// One stratum after the pairs used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StratumLook {
    /// ln of its regression e-value.
    pub log_e_regression: f64,
    /// Its pairs among those used.
    pub pairs: u64,
}

/// The monitor: push pairs, read the status.
#[derive(Clone, Debug)]
pub struct Monitor {
    design: Design,
    bets: Vec<f64>,
    improvement: Track,
    futility: Track,
    strata: BTreeMap<String, Stratum>,
    /// How many strata have a negative sum of differences: the hold, kept as the pairs
    /// come so that checking it costs nothing.
    strata_behind: usize,
    differences: Vec<f64>,
    /// The sum of the differences in whole micro-units: the mean's sign is `admit`'s.
    sum_micros: i64,
    looks: Vec<Look>,
    decided: Option<(Standing, Reason, u64)>,
    final_test: Option<FinalTest>,
}

/// One stratum's regression e-process and what the hold and the last look read.
#[derive(Clone, Debug)]
struct Stratum {
    track: Track,
    /// ln of the regression e-value, computed once a pair.
    log_e: f64,
    /// The differences, in order, for the exact test of the last look.
    differences: Vec<f64>,
    /// Their sum in whole micro-units ([`micros`]): exact, so a stratum whose
    /// differences cancel is not behind by float noise.
    sum_micros: i64,
}

impl Stratum {
    fn new(bets: &[f64], binary: bool) -> Stratum {
        Stratum {
            track: Track::new(BetOn::Baseline, 0.0, bets, binary),
            log_e: 0.0,
            differences: Vec::new(),
            sum_micros: 0,
        }
    }

    fn push(&mut self, difference: f64, bets: &[f64]) {
        self.track.push(difference, bets);
        self.log_e = self.track.log_e_value(bets);
        self.differences.push(difference);
        self.sum_micros += micros(difference);
    }

    /// Whether its mean difference so far is negative, in exact micro-unit sums.
    fn behind(&self) -> bool {
        self.sum_micros < 0
    }
}

impl Monitor {
    /// A monitor before any pair.
    pub fn new(design: Design) -> Result<Monitor, DesignError> {
        if !(0.0..1.0).contains(&design.margin) {
            return Err(DesignError::Margin(design.margin));
        }
        if !(design.scores_share > 0.0 && design.scores_share <= 1.0) {
            return Err(DesignError::Share(design.scores_share));
        }
        if design.holdout == 0 {
            return Err(DesignError::EmptyHoldout);
        }
        let bets = bet_fractions(design.holdout);
        Ok(Monitor {
            improvement: Track::new(BetOn::Candidate, 0.0, &bets, design.binary),
            futility: Track::new(BetOn::Baseline, -design.margin, &bets, design.binary),
            strata: BTreeMap::new(),
            strata_behind: 0,
            differences: Vec::new(),
            sum_micros: 0,
            looks: Vec::new(),
            decided: None,
            final_test: None,
            bets,
            design,
        })
    }

    /// The design.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// The bet fractions of every e-process, fixed by the holdout size.
    pub fn bets(&self) -> &[f64] {
        &self.bets
    }

    /// The improvement e-value's threshold: 1/alpha for 0/1 `correct`, 1/(alpha ·
    /// the design's share) for scores.
    pub fn threshold(&self) -> f64 {
        1.0 / self.sequential_alpha()
    }

    fn sequential_alpha(&self) -> f64 {
        if self.design.binary {
            self.design.alpha.get()
        } else {
            self.design.alpha.get() * self.design.scores_share
        }
    }

    /// Adds the next pair in the fixed order and looks. After a decision, further pairs
    /// are not used (a user who looked after every pair would have stopped).
    /// `difference` is candidate − baseline in [−1, 1] (−1, 0 or 1 for a binary design).
    pub fn push(&mut self, difference: f64, stratum: Option<&str>) -> Standing {
        if let Some((status, _, _)) = &self.decided {
            return *status;
        }
        self.improvement.push(difference, &self.bets);
        self.futility.push(difference, &self.bets);
        if let Some(name) = stratum {
            let (binary, bets) = (self.design.binary, &self.bets);
            let stratum = self
                .strata
                .entry(name.to_string())
                .or_insert_with(|| Stratum::new(bets, binary));
            let was_behind = stratum.behind();
            stratum.push(difference, bets);
            match (was_behind, stratum.behind()) {
                (false, true) => self.strata_behind += 1,
                (true, false) => self.strata_behind -= 1,
                _ => {}
            }
        }
        self.differences.push(difference);
        self.sum_micros += micros(difference);
        let alpha_log = -self.design.alpha.get().ln();
        // Each stratum's e-value was computed when its last pair came; the first (by
        // name) at 1/alpha refuses.
        let mut log_e_regression: Option<f64> = None;
        let mut regressed = None;
        for (name, stratum) in &self.strata {
            log_e_regression =
                Some(log_e_regression.map_or(stratum.log_e, |top| top.max(stratum.log_e)));
            if regressed.is_none() && stratum.log_e >= alpha_log {
                regressed = Some(name);
            }
        }
        let look = Look {
            log_e_improvement: self.improvement.log_e_value(&self.bets),
            log_e_futility: self.futility.log_e_value(&self.bets),
            log_e_regression,
        };
        let t = self.differences.len() as u64;
        self.decided = if let Some(name) = regressed {
            Some((Standing::Refused, Reason::StratumRegressed(name.clone()), t))
        } else if look.log_e_improvement >= -self.sequential_alpha().ln() && !self.held() {
            Some((Standing::Admitted, Reason::ImprovementShown, t))
        } else if look.log_e_futility >= alpha_log {
            Some((Standing::Refused, Reason::CannotBeBetter, t))
        } else if t >= self.design.holdout {
            let shown = self.final_exact_test();
            match self.regressed_at_last_look() {
                Some(name) if shown => Some((
                    Standing::Refused,
                    Reason::StratumRegressedAtLastLook(name),
                    t,
                )),
                _ if shown => Some((Standing::Admitted, Reason::FinalLook { shown }, t)),
                _ => Some((Standing::Refused, Reason::FinalLook { shown }, t)),
            }
        } else {
            None
        };
        self.looks.push(look);
        self.status()
    }

    /// Whether an early admission is held back: some stratum's mean difference so far
    /// is negative. A stratum that looks worse has not been seen long enough for its
    /// regression e-value to speak; holding only removes admissions, so the level is
    /// untouched, and an undecided run meets the exact per-stratum tests of the last
    /// look (measured in `reports/bench.md`, "The strata guard"). Time: O(1), from the
    /// count kept as the pairs come.
    fn held(&self) -> bool {
        self.strata_behind > 0
    }

    /// The first stratum (by name) whose one-sided exact regression test, McNemar's on
    /// its discordant pairs or the signed-rank test on its scores, is significant at
    /// alpha: the check `admit` makes on the whole holdout.
    fn regressed_at_last_look(&self) -> Option<String> {
        let alpha = self.design.alpha;
        self.strata
            .iter()
            .find(|(_, stratum)| {
                let d = &stratum.differences;
                let p = if self.design.binary {
                    let losses = d.iter().filter(|&&x| x < -0.5).count() as u64;
                    let wins = d.iter().filter(|&&x| x > 0.5).count() as u64;
                    mcnemar_exact(losses, wins).tails.p_regression
                } else {
                    signed_rank(d, self.design.zero).tails.p_regression
                };
                alpha.rejects(p)
            })
            .map(|(name, _)| name.clone())
    }

    /// Runs the exact test of the last look, keeps it, and says whether it rejected.
    fn final_exact_test(&mut self) -> bool {
        let test = if self.design.binary {
            let wins = self.differences.iter().filter(|&&d| d > 0.5).count() as u64;
            let losses = self.differences.iter().filter(|&&d| d < -0.5).count() as u64;
            let look = final_look(&self.bets, self.design.alpha.get(), wins + losses);
            FinalTest::Binomial { look, wins }
        } else {
            let test = signed_rank(&self.differences, self.design.zero);
            FinalTest::SignedRank {
                p_improvement: test.tails.p_improvement,
                // What the e-process left: nothing with a share of 1.
                alpha: Alpha::new(self.design.alpha.get() - self.sequential_alpha()).ok(),
                mean: self.mean_difference().unwrap_or(0.0),
            }
        };
        self.final_test.insert(test).shown()
    }

    /// The status now.
    pub fn status(&self) -> Standing {
        self.decided.as_ref().map_or(Standing::Continue, |d| d.0)
    }

    /// Why it stopped, and at which look (1-based pair count), once decided.
    pub fn decision(&self) -> Option<(&Reason, u64)> {
        self.decided
            .as_ref()
            .map(|(_, reason, look)| (reason, *look))
    }

    /// The exact test of the last look, when the last look was reached undecided.
    pub fn final_test(&self) -> Option<&FinalTest> {
        self.final_test.as_ref()
    }

    /// Every look so far, the first pair's first.
    pub fn looks(&self) -> &[Look] {
        &self.looks
    }

    /// The pairs used (up to the decision).
    pub fn pairs(&self) -> u64 {
        self.differences.len() as u64
    }

    /// The mean of the differences used, from their sum in whole micro-units (each
    /// difference rounded to six decimals, as `admit` rounds scores), so its sign is
    /// exact: differences that cancel give 0, whatever float addition would give.
    /// `None` before the first pair.
    pub fn mean_difference(&self) -> Option<f64> {
        (!self.differences.is_empty())
            .then(|| self.sum_micros as f64 / (self.differences.len() as f64 * MICROS as f64))
    }

    /// Each stratum's regression e-value and pairs, by stratum name.
    pub fn strata(&self) -> BTreeMap<String, StratumLook> {
        self.strata
            .iter()
            .map(|(name, stratum)| {
                let look = StratumLook {
                    log_e_regression: stratum.log_e,
                    pairs: stratum.track.pairs(),
                };
                (name.clone(), look)
            })
            .collect()
    }

    /// The anytime-valid interval for the mean difference after the pairs used: each
    /// bound at one-sided level alpha, valid at every look at once (the bets are fixed
    /// before the first pair, so each bound inverts a test supermartingale). `None`
    /// before the first pair. Time: about ten root-finding steps a side over the
    /// differences' histogram.
    pub fn interval(&self) -> Option<Interval> {
        let histogram = Histogram::of(&self.differences)?;
        let alpha = self.design.alpha;
        Some(Interval {
            low: lower_bound_with(&histogram, alpha.get(), Some(&self.bets)),
            high: -lower_bound_with(&histogram.negated(), alpha.get(), Some(&self.bets)),
            confidence: alpha.confidence(),
        })
    }

    /// An estimate of the further pairs the improvement e-value needs, if the pairs to
    /// come look like those so far: each constant bettor's log-capital grows about
    /// linearly in the pairs, so the bettor j with ln K_j(t) > 0 reaches J/threshold
    /// (where the mixture is sure to be past its threshold) after about
    /// t·ln(J·threshold)/ln K_j(t) pairs; the smallest over the bettors, less the t
    /// pairs used. `None` when no bettor is ahead (no improvement is in sight) or
    /// nothing was scored. Not a promise: a plug-in estimate.
    pub fn tasks_needed(&self) -> Option<u64> {
        let t = self.pairs() as f64;
        let goal = (self.bets.len() as f64 * self.threshold()).ln();
        self.improvement
            .log_components(&self.bets)
            .into_iter()
            .filter(|&log| log > 0.0 && log.is_finite())
            .map(|log| ((t * goal / log).ceil() - t).max(1.0))
            .reduce(f64::min)
            .map(|n| n.min(u64::MAX as f64 / 2.0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The hold as its definition reads: some stratum's differences so far sum below 0
    /// in micro-units, summed afresh at every look (O(n) a look).
    fn naive_held(monitor: &Monitor) -> bool {
        monitor
            .strata
            .values()
            .any(|s| s.differences.iter().map(|&d| micros(d)).sum::<i64>() < 0)
    }

    /// Each stratum's regression e-value computed afresh from its differences.
    fn naive_strata(monitor: &Monitor) -> BTreeMap<String, f64> {
        let (bets, binary) = (monitor.bets(), monitor.design().binary);
        monitor
            .strata
            .iter()
            .map(|(name, s)| {
                let mut track = Track::new(BetOn::Baseline, 0.0, bets, binary);
                s.differences.iter().for_each(|&d| track.push(d, bets));
                (name.clone(), track.log_e_value(bets))
            })
            .collect()
    }

    proptest! {
        #[test]
        fn the_hold_and_strata_e_values_kept_as_pairs_come_match_a_fresh_computation(
            binary in any::<bool>(),
            pairs in prop::collection::vec((0usize..5, -4i32..=4), 1..200),
        ) {
            let design = Design::new(Alpha::new(0.01).unwrap(), 0.0, 400, binary, ZeroMethod::Wilcox);
            let mut monitor = Monitor::new(design).unwrap();
            let mut counts: BTreeMap<String, u64> = BTreeMap::new();
            for (stratum, step) in pairs {
                // Binary: −1, 0, 1; scores: quarters in [−1, 1].
                let difference = if binary { f64::from(step.signum()) } else { f64::from(step) / 4.0 };
                // Stratum 4 is no stratum at all.
                let name = ["a", "b", "c", "d"].get(stratum).copied();
                // A pair after the decision is not used.
                let used = monitor.status() == Standing::Continue;
                monitor.push(difference, name);
                if let Some(name) = name.filter(|_| used) {
                    *counts.entry(name.to_string()).or_default() += 1;
                }
                prop_assert_eq!(monitor.held(), naive_held(&monitor));
                let strata = monitor.strata();
                let log_e: BTreeMap<String, f64> =
                    strata.iter().map(|(name, s)| (name.clone(), s.log_e_regression)).collect();
                let pairs: BTreeMap<String, u64> =
                    strata.into_iter().map(|(name, s)| (name, s.pairs)).collect();
                prop_assert_eq!(log_e, naive_strata(&monitor));
                prop_assert_eq!(&pairs, &counts);
                let top = naive_strata(&monitor).into_values().reduce(f64::max);
                prop_assert_eq!(monitor.looks().last().unwrap().log_e_regression, top);
            }
        }
    }
}
