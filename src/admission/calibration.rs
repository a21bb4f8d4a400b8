//! Calibration: how much the gate's evidence moves when nothing changed. From the
//! pairs of every two runs of one skill on the same items (A/A), the per-item and
//! per-stratum flip rates and the share of items that flip, and the smallest shift the
//! gate can tell from that noise. The verdicts on the run pairs are [`super::decide`]'s,
//! taken by `calibrate` with the same code as `admit`; nothing here decides.

use std::collections::BTreeMap;

use serde::Serialize;

use super::guard::{Method, Spread, detectable_with};
use super::pairing::Pairs;
use crate::stats::TIE_TOLERANCE;
use crate::stats::power::min_detectable_shift;

/// The pairs of two runs: the first run's values as the baseline side, the second's as
/// the candidate side.
pub(crate) struct RunPairing<'a> {
    /// Index of the first run.
    pub(crate) first: usize,
    /// Index of the second run.
    pub(crate) second: usize,
    /// Their pairs, one per item.
    pub(crate) pairs: &'a Pairs,
}

/// One item across the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ItemFlips {
    /// The item (`task_id`).
    pub(crate) task_id: String,
    /// Its stratum, when the runs are stratified.
    pub(crate) stratum: Option<String>,
    /// The share of run pairs whose outcomes on it differ (`correct` on 0/1 outcomes,
    /// `score` otherwise): 0 for a stable item, up to about ½ for a coin flip.
    pub(crate) flip_rate: f64,
    /// Run pairs that differ on it.
    pub(crate) differing_pairs: u64,
    /// Runs that got it right (0/1 outcomes only).
    pub(crate) runs_correct: Option<u64>,
    /// Its mean score over the runs.
    pub(crate) mean_score: f64,
}

/// One stratum's flips.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct StratumFlips {
    /// The stratum's value.
    pub(crate) value: String,
    /// Items in it.
    pub(crate) items: u64,
    /// Items whose runs do not all agree.
    pub(crate) items_that_flip: u64,
    /// `items_that_flip / items`.
    pub(crate) share_that_flip: f64,
    /// The mean of its items' flip rates: the share of (item, run pair) cases that
    /// differ.
    pub(crate) flip_rate: f64,
}

/// The flips over all items.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Flips {
    /// Runs compared (A runs only).
    pub(crate) runs: u64,
    /// Unordered pairs of runs: runs·(runs − 1)/2.
    pub(crate) run_pairs: u64,
    /// Items in every run.
    pub(crate) items: u64,
    /// Items whose runs do not all agree.
    pub(crate) items_that_flip: u64,
    /// `items_that_flip / items`.
    pub(crate) share_that_flip: f64,
    /// The mean item flip rate: for 0/1 outcomes, the mean discordance of a run pair.
    pub(crate) flip_rate: f64,
    /// The strata column, when the runs are stratified.
    pub(crate) strata_column: Option<String>,
    /// One entry per stratum, sorted by value.
    pub(crate) strata: Vec<StratumFlips>,
    /// Every item, highest flip rate first, then by `task_id`.
    pub(crate) per_item: Vec<ItemFlips>,
}

/// What the runs carried about one item while the pairings are read.
#[derive(Default)]
struct Tally {
    stratum: Option<String>,
    differing: u64,
    /// Each run's (score, correct), by run index.
    values: BTreeMap<usize, (f64, Option<bool>)>,
}

/// The flips among `runs` runs from the pairs of every two of them (`pairings`, each
/// unordered pair once). `by_correct` compares `correct` (0/1 outcomes, McNemar's
/// data); otherwise scores, two scores within 1e-9 being the same.
/// Time: O(P·n log n) for P pairings of n items.
pub(crate) fn flips(runs: usize, pairings: &[RunPairing], by_correct: bool) -> Flips {
    let mut items: BTreeMap<String, Tally> = BTreeMap::new();
    for pairing in pairings {
        let pairs = pairing.pairs;
        for pair in &pairs.pairs {
            let tally = items.entry(pairs.task(pair).to_string()).or_default();
            if tally.stratum.is_none() {
                tally.stratum = pairs.stratum(pair).map(str::to_string);
            }
            let (one, other) = (&pair.baseline, &pair.candidate);
            let differ = if by_correct {
                one.correct != other.correct
            } else {
                (one.score - other.score).abs() > TIE_TOLERANCE
            };
            tally.differing += u64::from(differ);
            tally.values.insert(pairing.first, (one.score, one.correct));
            tally
                .values
                .insert(pairing.second, (other.score, other.correct));
        }
    }
    let run_pairs = pairings.len() as u64;
    let rate = |differing: u64| differing as f64 / run_pairs.max(1) as f64;
    let mut per_item: Vec<ItemFlips> = items
        .into_iter()
        .map(|(task_id, tally)| {
            let count = tally.values.len().max(1) as f64;
            ItemFlips {
                task_id,
                stratum: tally.stratum,
                flip_rate: rate(tally.differing),
                differing_pairs: tally.differing,
                runs_correct: by_correct
                    .then(|| tally.values.values().filter(|v| v.1 == Some(true)).count() as u64),
                mean_score: tally.values.values().map(|v| v.0).sum::<f64>() / count,
            }
        })
        .collect();
    let strata = strata_of(&per_item);
    per_item.sort_by(|x, y| {
        y.differing_pairs
            .cmp(&x.differing_pairs)
            .then_with(|| x.task_id.cmp(&y.task_id))
    });
    let (share, mean) = shares(&per_item);
    Flips {
        runs: runs as u64,
        run_pairs,
        items: per_item.len() as u64,
        items_that_flip: per_item.iter().filter(|i| i.differing_pairs > 0).count() as u64,
        share_that_flip: share,
        flip_rate: mean,
        strata_column: pairings.first().and_then(|p| p.pairs.strata_column.clone()),
        strata,
        per_item,
    }
}

/// The share of `items` that flip and their mean flip rate (0 and 0 with no items).
fn shares(items: &[ItemFlips]) -> (f64, f64) {
    let n = items.len().max(1) as f64;
    let flipping = items.iter().filter(|i| i.differing_pairs > 0).count() as f64;
    (
        flipping / n,
        items.iter().map(|i| i.flip_rate).sum::<f64>() / n,
    )
}

fn strata_of(items: &[ItemFlips]) -> Vec<StratumFlips> {
    let mut by_value: BTreeMap<&str, Vec<ItemFlips>> = BTreeMap::new();
    for item in items {
        if let Some(value) = &item.stratum {
            by_value.entry(value).or_default().push(item.clone());
        }
    }
    by_value
        .into_iter()
        .map(|(value, members)| {
            let (share, mean) = shares(&members);
            StratumFlips {
                value: value.to_string(),
                items: members.len() as u64,
                items_that_flip: members.iter().filter(|i| i.differing_pairs > 0).count() as u64,
                share_that_flip: share,
                flip_rate: mean,
            }
        })
        .collect()
}

/// What the A/A noise lets the gate see.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Noise {
    /// 0/1 outcomes: the mean share of items on which two runs disagree (ψ, McNemar's
    /// discordance under no change).
    pub(crate) discordance: Option<f64>,
    /// Scores: the standard deviation of one item's score difference between two runs,
    /// pooled over the run pairs (the root of their mean sample variance).
    pub(crate) sd: Option<f64>,
    /// 0/1 outcomes: the smallest shift any result on these items could show at alpha
    /// (every disagreement one way), k/n.
    pub(crate) min_detectable_shift: Option<f64>,
    /// The smallest shift the gate tells from this noise with probability `power` at
    /// alpha, on the 0–1 scale: McNemar's exact power at the discordance up to 500
    /// items, the normal approximation beyond and for scores.
    pub(crate) detectable_shift: Option<f64>,
    /// `exact` or `normal`.
    pub(crate) method: Option<String>,
}

/// The noise of the A/A pairings on `n` items and the shift the gate tells from it
/// with `power` at `alpha`.
pub(crate) fn noise(
    n: usize,
    pairings: &[RunPairing],
    by_correct: bool,
    alpha: f64,
    power: f64,
) -> Noise {
    let count = pairings.len().max(1) as f64;
    let spread = if by_correct {
        let psi = pairings
            .iter()
            .map(|p| {
                let differ = p
                    .pairs
                    .pairs
                    .iter()
                    .filter(|x| x.baseline.correct != x.candidate.correct);
                differ.count() as f64 / p.pairs.pairs.len().max(1) as f64
            })
            .sum::<f64>()
            / count;
        Spread::Discordance(psi)
    } else {
        let variance = pairings
            .iter()
            .map(|p| sample_variance(p.pairs.pairs.iter().map(|x| x.difference())))
            .sum::<f64>()
            / count;
        Spread::Differences {
            sd: (n >= 2).then(|| variance.sqrt()),
            nonzero: 0,
        }
    };
    let found = detectable_with(n, spread, alpha, power);
    let (discordance, sd) = match spread {
        Spread::Discordance(psi) => (Some(psi), None),
        Spread::Differences { sd, .. } => (None, sd),
    };
    Noise {
        discordance,
        sd,
        min_detectable_shift: by_correct
            .then(|| min_detectable_shift(n as u64, alpha))
            .flatten(),
        detectable_shift: found.map(|f| f.0),
        method: found.map(|f| {
            match f.1 {
                Method::Exact => "exact",
                Method::Normal => "normal",
            }
            .to_string()
        }),
    }
}

/// The sample variance (divisor n − 1) of `values`; 0 below two values.
fn sample_variance(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let (count, sum) = values.clone().fold((0u64, 0.0), |(c, s), v| (c + 1, s + v));
    if count < 2 {
        return 0.0;
    }
    let mean = sum / count as f64;
    values.map(|v| (v - mean) * (v - mean)).sum::<f64>() / (count - 1) as f64
}
