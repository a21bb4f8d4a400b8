//! The sufficient statistics added up one pair at a time, in any order: each stratum's
//! histogram of differences, sums and outcome counts, and each cluster's size and
//! difference sum. Every figure is an integer count or micro-unit sum, so the order
//! the pairs come in changes nothing. [`Statistics::of`](super::Statistics::of) adds
//! up held pairs this way, and `admit` adds up pairs as it reads them.

use super::{Cluster, Outcomes, Set, micros};
use crate::base::hash::FastMap;

/// Distinct differences a set counts in a short list before a hash map: graded scores
/// take a handful of values (quarters differ in nine ways), and looking through a few
/// numbers in one cache line costs less than hashing one.
const FEW: usize = 16;

/// One set being added up.
#[derive(Default)]
struct Builder {
    /// The first [`FEW`] distinct differences with their counts, then the rest.
    few: Vec<(i64, u64)>,
    histogram: FastMap<i64, u64>,
    baseline: i64,
    candidate: i64,
    outcomes: Outcomes,
}

impl Builder {
    fn add(&mut self, baseline: i64, candidate: i64, correct: Option<(bool, bool)>) {
        let difference = candidate - baseline;
        if let Some(at) = self.few.iter().position(|(d, _)| *d == difference) {
            self.few[at].1 += 1;
        } else if self.few.len() < FEW {
            self.few.push((difference, 1));
        } else {
            *self.histogram.entry(difference).or_default() += 1;
        }
        self.baseline += baseline;
        self.candidate += candidate;
        if let Some((b, c)) = correct {
            let o = &mut self.outcomes;
            match (b, c) {
                (true, true) => o.both_right += 1,
                (true, false) => o.baseline_only += 1,
                (false, true) => o.candidate_only += 1,
                (false, false) => o.both_wrong += 1,
            }
        }
    }

    fn finish(self, both_correct: bool) -> Set {
        Set::from_histogram(
            self.few.into_iter().chain(self.histogram),
            self.baseline,
            self.candidate,
            both_correct.then_some(self.outcomes),
        )
        .expect("the pairs counted stay below 2^64")
    }
}

/// Clusters by name, added up as runs: the pairs of one group come together in the
/// files `score` writes, so each run of pairs with one group is added to the last
/// entry, and a new run gets an entry of its own without a lookup. Entries that share a
/// name are merged by a sort now and then (when there are twice as many as after the
/// last merge) and at the end, which also puts them in name order. About 24 bytes an
/// entry besides its name.
#[derive(Default)]
struct Clusters {
    names: Vec<u8>,
    /// Each entry: where its name starts and ends in `names`, its pairs, its
    /// difference sum.
    entries: Vec<(u32, u32, u64, i64)>,
    /// Entries after the last merge.
    merged: usize,
}

/// Entries the first merge waits for.
const FIRST_MERGE: usize = 1 << 16;

impl Clusters {
    fn name(&self, entry: usize) -> &[u8] {
        let (start, end, _, _) = self.entries[entry];
        &self.names[start as usize..end as usize]
    }

    fn add(&mut self, name: &str, difference: i64) {
        let name = name.as_bytes();
        if self
            .entries
            .last()
            .is_none_or(|_| self.name(self.entries.len() - 1) != name)
        {
            if self.entries.len() >= (2 * self.merged).max(FIRST_MERGE) {
                self.merge();
            }
            let start = self.names.len() as u32;
            self.names.extend_from_slice(name);
            self.entries.push((start, self.names.len() as u32, 0, 0));
        }
        let entry = self.entries.last_mut().expect("an entry was just made");
        entry.2 += 1;
        entry.3 += difference;
    }

    /// Sorts the entries by name (on each name's first twelve bytes beside its number,
    /// then by whole names where those are equal) and merges those of one name.
    fn merge(&mut self) {
        let mut order: Vec<u128> = (0..self.entries.len())
            .map(|at| {
                let name = self.name(at);
                let mut key = [0_u8; 16];
                let head = &name[..name.len().min(12)];
                key[..head.len()].copy_from_slice(head);
                key[12..].copy_from_slice(&(at as u32).to_be_bytes());
                u128::from_be_bytes(key)
            })
            .collect();
        order.sort_unstable_by(|&x, &y| {
            (x >> 32).cmp(&(y >> 32)).then_with(|| {
                let (a, b) = (x as u32 as usize, y as u32 as usize);
                self.name(a).cmp(self.name(b))
            })
        });
        let mut names = Vec::with_capacity(self.names.len());
        let mut entries: Vec<(u32, u32, u64, i64)> = Vec::with_capacity(self.entries.len());
        for key in order {
            let at = key as u32 as usize;
            let (_, _, n, sum) = self.entries[at];
            let name = self.name(at);
            match entries.last_mut() {
                Some(last) if &names[last.0 as usize..last.1 as usize] == name => {
                    last.2 += n;
                    last.3 += sum;
                }
                _ => {
                    let start = names.len() as u32;
                    names.extend_from_slice(name);
                    entries.push((start, names.len() as u32, n, sum));
                }
            }
        }
        self.names = names;
        self.entries = entries;
        self.merged = self.entries.len();
    }

    /// The clusters in name order; their names are left empty unless `named`.
    fn finish(mut self, named: bool) -> Vec<Cluster> {
        self.merge();
        (0..self.entries.len())
            .map(|at| {
                let (_, _, n, difference_micros) = self.entries[at];
                Cluster {
                    name: if named {
                        String::from_utf8_lossy(self.name(at)).into_owned()
                    } else {
                        String::new()
                    },
                    n,
                    difference_micros,
                }
            })
            .collect()
    }
}

/// What [`Accumulator::finish`] gives: the overall set, each stratum's set by value,
/// the clusters in name order.
pub(crate) type Sums = (Set, Option<Vec<(String, Set)>>, Option<Vec<Cluster>>);

/// The sufficient statistics being added up.
pub(crate) struct Accumulator {
    stratified: bool,
    /// Each stratum met, in the order met, with its set.
    strata: Vec<(String, Builder)>,
    by_value: FastMap<String, usize>,
    /// The stratum of the pair before.
    last: usize,
    /// `None` once a pair came without a group.
    clusters: Option<Clusters>,
    pairs: u64,
}

impl Accumulator {
    /// Nothing added yet; with `stratified` each stratum gets its own set.
    pub(crate) fn new(stratified: bool) -> Accumulator {
        Accumulator {
            stratified,
            strata: Vec::new(),
            by_value: FastMap::default(),
            last: 0,
            clusters: Some(Clusters::default()),
            pairs: 0,
        }
    }

    /// Adds one pair: its stratum (read when stratified; absent counts as empty), its
    /// group, both scores and both outcomes when known.
    pub(crate) fn add(
        &mut self,
        stratum: Option<&str>,
        group: Option<&str>,
        scores: (f64, f64),
        correct: Option<(bool, bool)>,
    ) {
        let value = if self.stratified {
            stratum.unwrap_or("")
        } else {
            ""
        };
        let at = match self.strata.get(self.last) {
            Some((known, _)) if known == value => self.last,
            _ => match self.by_value.get(value) {
                Some(&at) => at,
                None => {
                    self.strata.push((value.to_string(), Builder::default()));
                    self.by_value
                        .insert(value.to_string(), self.strata.len() - 1);
                    self.strata.len() - 1
                }
            },
        };
        self.last = at;
        let (b, c) = (micros(scores.0), micros(scores.1));
        self.strata[at].1.add(b, c, correct);
        match (group, &mut self.clusters) {
            (Some(name), Some(clusters)) => clusters.add(name, c - b),
            (None, _) => self.clusters = None,
            (Some(_), None) => {}
        }
        self.pairs += 1;
    }

    /// The overall set, each stratum's set by value (when stratified), and the
    /// clusters in name order (when every pair had a group; named when `named`).
    pub(crate) fn finish(self, both_correct: bool, named: bool) -> Sums {
        let mut sets: Vec<(String, Set)> = self
            .strata
            .into_iter()
            .map(|(value, builder)| (value, builder.finish(both_correct)))
            .collect();
        let mut overall = Set::default();
        for (_, set) in &sets {
            overall
                .merge(set)
                .expect("the pairs counted stay below 2^63");
        }
        sets.sort_by(|x, y| x.0.cmp(&y.0));
        let strata = self.stratified.then_some(sets);
        let clusters = self
            .clusters
            .filter(|_| self.pairs > 0)
            .map(|clusters| clusters.finish(named));
        (overall, strata, clusters)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn clusters_met_in_many_runs_merge_into_one_entry_each_in_name_order() {
        // 200,000 pairs over 3,000 groups in runs of one to three, so entries are
        // merged several times on the way; a map by name is the oracle.
        let mut clusters = Clusters::default();
        let mut oracle: BTreeMap<String, (u64, i64)> = BTreeMap::new();
        let mut state = 7_u64;
        let mut pair = 0;
        while pair < 200_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let name = format!("paper-{:04}", (state >> 33) % 3_000);
            for _ in 0..=(state >> 20) % 3 {
                let difference = (state >> 40) as i64 % 7 - 3;
                clusters.add(&name, difference);
                let entry = oracle.entry(name.clone()).or_default();
                entry.0 += 1;
                entry.1 += difference;
                pair += 1;
            }
        }
        let expected: Vec<Cluster> = oracle
            .into_iter()
            .map(|(name, (n, difference_micros))| Cluster {
                name,
                n,
                difference_micros,
            })
            .collect();
        assert_eq!(clusters.finish(true), expected);
    }
}
