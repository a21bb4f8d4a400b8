//! The sufficient statistics of an admission: everything [`decide`](mod@super::decide)
//! tests, small enough to come from another engine. McNemar needs each set's outcome
//! counts, the signed-rank test the histogram of paired differences, the intervals
//! the sums (and sums of squares) of the differences, the cluster view each cluster's
//! size and difference sum. Scores enter in whole micro-units (six decimals), so every
//! sum and every tie is exact and the same whether it was added up here from the
//! pairs ([`Statistics::of`]) or by DuckDB or Spark over sharded files
//! ([`document`], schema [`document::SCHEMA`]).
//!
//! A score with more than six decimals is rounded to the nearest micro-unit before it
//! enters a statistic (half away from zero), here and in the shipped SQL alike.

mod accumulate;
pub(crate) mod document;

pub(crate) use accumulate::{Accumulator, Sums};

use std::collections::BTreeMap;

use super::pairing::{Basis, Pairs};

/// Scores in whole micro-units: shared with the sequential monitor, which must sum as
/// `admit` sums.
pub(crate) use crate::base::numbers::{MICROS, micros};

/// McNemar's four outcome counts of one set of pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcomes {
    /// a: both right.
    pub both_right: u64,
    /// b: the baseline right, the candidate wrong.
    pub baseline_only: u64,
    /// c: the candidate right, the baseline wrong.
    pub candidate_only: u64,
    /// d: both wrong.
    pub both_wrong: u64,
}

impl Outcomes {
    /// The four counts added cell by cell, or the name of the first cell whose sum
    /// passes 2^64 − 1.
    fn checked_add(&self, other: &Outcomes) -> Result<Outcomes, &'static str> {
        let add = |a: u64, b: u64, name| a.checked_add(b).ok_or(name);
        Ok(Outcomes {
            both_right: add(self.both_right, other.both_right, "outcomes.both_right")?,
            baseline_only: add(
                self.baseline_only,
                other.baseline_only,
                "outcomes.baseline_only",
            )?,
            candidate_only: add(
                self.candidate_only,
                other.candidate_only,
                "outcomes.candidate_only",
            )?,
            both_wrong: add(self.both_wrong, other.both_wrong, "outcomes.both_wrong")?,
        })
    }

    /// a + b + c + d, in `u128` so that counts read from a document cannot wrap.
    pub fn total(&self) -> u128 {
        [
            self.both_right,
            self.baseline_only,
            self.candidate_only,
            self.both_wrong,
        ]
        .iter()
        .map(|&count| u128::from(count))
        .sum()
    }
}

/// One magnitude of the histogram of paired differences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tie {
    /// |candidate − baseline| in micro-units, above zero.
    pub magnitude: u64,
    /// Pairs with this magnitude where the candidate scored higher.
    pub positive: u64,
    /// Pairs with this magnitude where the baseline scored higher.
    pub negative: u64,
}

/// The statistics of one set of pairs: the whole holdout or one stratum.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Set {
    /// Pairs.
    pub n: u64,
    /// Σ baseline score, in micro-units.
    pub baseline_micros: i64,
    /// Σ candidate score, in micro-units.
    pub candidate_micros: i64,
    /// The outcome counts, when every pair has `correct` on both sides.
    pub outcomes: Option<Outcomes>,
    /// Pairs whose scores are equal.
    pub zeros: u64,
    /// The non-zero differences, in ascending order of magnitude.
    pub ties: Vec<Tie>,
}

impl Set {
    /// Builds a set from its histogram of signed differences (micro-units → pairs),
    /// its sums and its outcome counts. `n` is the histogram's total; a histogram whose
    /// total passes 2^64 − 1 is refused with the name of the count that overflows
    /// (`n`), so counts read from a document never wrap.
    pub fn from_histogram(
        histogram: impl IntoIterator<Item = (i64, u64)>,
        baseline_micros: i64,
        candidate_micros: i64,
        outcomes: Option<Outcomes>,
    ) -> Result<Set, &'static str> {
        let mut by_magnitude: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        let mut zeros: u64 = 0;
        let mut n: u64 = 0;
        for (difference, count) in histogram {
            // Every partial count is at most n, so checking n checks them all.
            n = n.checked_add(count).ok_or("n")?;
            let entry = by_magnitude.entry(difference.unsigned_abs()).or_default();
            match difference.signum() {
                1 => entry.0 += count,
                -1 => entry.1 += count,
                _ => zeros += count,
            }
        }
        let ties = by_magnitude
            .into_iter()
            .filter(|&(magnitude, (plus, minus))| magnitude > 0 && plus + minus > 0)
            .map(|(magnitude, (positive, negative))| Tie {
                magnitude,
                positive,
                negative,
            })
            .collect();
        Ok(Set {
            n,
            baseline_micros,
            candidate_micros,
            outcomes,
            zeros,
            ties,
        })
    }

    /// Σ (candidate − baseline), in micro-units.
    pub fn difference_micros(&self) -> i64 {
        self.candidate_micros - self.baseline_micros
    }

    /// Σ (candidate − baseline)², in micro-units squared.
    pub fn square_micros(&self) -> u128 {
        self.ties
            .iter()
            .map(|t| {
                let m = u128::from(t.magnitude);
                m * m * u128::from(t.positive + t.negative)
            })
            .sum()
    }

    /// The histogram as signed differences (micro-units) with their counts, from the
    /// most negative up, zeros included.
    pub fn histogram(&self) -> Vec<(i64, u64)> {
        let negative = self
            .ties
            .iter()
            .rev()
            .filter(|t| t.negative > 0)
            .map(|t| (-(t.magnitude as i64), t.negative));
        let zero = (self.zeros > 0).then_some((0, self.zeros));
        let positive = self
            .ties
            .iter()
            .filter(|t| t.positive > 0)
            .map(|t| (t.magnitude as i64, t.positive));
        negative.chain(zero).chain(positive).collect()
    }

    /// Adds `other`'s pairs to this set. A count or sum that would pass its type's
    /// range is refused with its field's name (`n`, `outcomes.both_right`,
    /// `baseline_sum_micros`, …) and the set is left as it was.
    pub(crate) fn merge(&mut self, other: &Set) -> Result<(), &'static str> {
        let mut histogram: BTreeMap<i64, u64> = self.histogram().into_iter().collect();
        for (d, count) in other.histogram() {
            let entry = histogram.entry(d).or_default();
            *entry = entry.checked_add(count).ok_or("n")?;
        }
        let outcomes = match (self.n, self.outcomes, other.outcomes) {
            (0, _, o) => o,
            (_, Some(a), Some(b)) => Some(a.checked_add(&b)?),
            _ => None,
        };
        let sum = |a: i64, b: i64, name| a.checked_add(b).ok_or(name);
        *self = Set::from_histogram(
            histogram,
            sum(
                self.baseline_micros,
                other.baseline_micros,
                "baseline_sum_micros",
            )?,
            sum(
                self.candidate_micros,
                other.candidate_micros,
                "candidate_sum_micros",
            )?,
            outcomes,
        )?;
        Ok(())
    }
}

/// One cluster (value of `group`): its pairs and their difference sum.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// The group; empty where only the clusters' order by name was kept (`admit` on
    /// scores files does not keep a million names to no end: no report shows them).
    pub name: String,
    /// Pairs in it.
    pub n: u64,
    /// Σ (candidate − baseline) over its pairs, in micro-units.
    pub difference_micros: i64,
}

/// The strata: the column and one set per value, sorted by value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strata {
    /// The strata column, e.g. `kind`.
    pub column: String,
    /// Each value with its set, sorted by value.
    pub sets: Vec<(String, Set)>,
}

/// What the pairing check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pairing {
    /// The pairs were matched here, from the files.
    Files(Basis),
    /// Another engine matched them and counted the rows: every task once in each arm.
    Counted {
        /// Rows of the baseline.
        baseline_rows: u64,
        /// Rows of the candidate.
        candidate_rows: u64,
    },
}

/// The sufficient statistics of one admission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statistics {
    /// The baseline as named (a file or a glob).
    pub baseline: String,
    /// The candidate as named.
    pub candidate: String,
    /// How the pairs were matched.
    pub pairing: Pairing,
    /// Whether the baseline has a `correct` column.
    pub baseline_has_correct: bool,
    /// Whether the candidate has a `correct` column.
    pub candidate_has_correct: bool,
    /// All pairs.
    pub overall: Set,
    /// The strata, when the pairs are stratified.
    pub strata: Option<Strata>,
    /// The clusters in name order, when every pair has a group.
    pub clusters: Option<Vec<Cluster>>,
    /// SHA-256 of the sorted task ids joined by newlines (the ledger's holdout
    /// identity), when the document carries it.
    pub holdout_sha256: Option<String>,
}

impl Statistics {
    /// Adds up the statistics of `pairs`. Time: O(n) with a hash lookup per pair
    /// (skipped while a run of pairs shares its stratum and group), plus sorting the
    /// distinct differences and clusters.
    pub fn of(pairs: &Pairs) -> Statistics {
        let stratified = pairs.strata_column.is_some();
        let mut sums = Accumulator::new(stratified);
        for (pair, group) in pairs.with_groups() {
            let correct = pair.baseline.correct.zip(pair.candidate.correct);
            let scores = (pair.baseline.score, pair.candidate.score);
            sums.add(pairs.stratum(pair), group, scores, correct);
        }
        let (overall, sets, clusters) = sums.finish(pairs.both_correct, true);
        let strata = pairs
            .strata_column
            .as_ref()
            .zip(sets)
            .map(|(column, sets)| Strata {
                column: column.clone(),
                sets,
            });
        Statistics {
            baseline: pairs.baseline.clone(),
            candidate: pairs.candidate.clone(),
            pairing: Pairing::Files(pairs.basis.clone()),
            baseline_has_correct: pairs.baseline_has_correct,
            candidate_has_correct: pairs.candidate_has_correct,
            overall,
            strata,
            clusters,
            holdout_sha256: None,
        }
    }

    /// Whether every pair has `correct` on both sides.
    pub fn both_correct(&self) -> bool {
        self.overall.outcomes.is_some()
    }
}

#[cfg(test)]
mod tests;
