//! Repeats of one item in the scores: the rows `<item>#<r>` (r a whole number from 1,
//! written without a leading zero) whose `group` is `<item>`, as `import --repeats
//! all` writes them. When any paired row is a repeat, the pairs are collapsed to one
//! pair per item before anything is tested: each arm's item score is the mean of its
//! repeats, so every test, interval, stratum and power figure counts items, never
//! repeats as independent tasks (k copies of one answer are one piece of evidence).
//! A row that is not a repeat is an item run once.
//!
//! What the repeats themselves say is kept beside ([`RepeatCounts`]): per arm and
//! item, how many repeats ran and how many were right (`correct` 1, or a score of 1 in
//! a file without `correct`) and whether they disagree, from which
//! [`RepeatCounts::view`] gives pass@1, pass@k and pass^k with their intervals
//! ([`crate::stats::repeats`]), the flaky items and the warnings.
//!
//! A holdout lists items, not their repeats: [`rows_to_pair`] reads a task list of
//! items against the scores' repeats ([`listed`]).

mod listed;

use serde::Serialize;
use thiserror::Error;

pub(crate) use listed::{refuse_holdout_of_repeats, rows_to_pair};

use super::pairing::{Pair, Pairs, Side};
use crate::base::arena::Text;
use crate::stats::repeats::{Figure, ItemRepeats, arm_repeats};

/// How many flaky items a report names per arm.
pub(crate) const SHOWN_FLAKY: usize = 50;

/// Repeats that cannot be read as repeats.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum RepeatsError {
    /// An item's repeats name different strata.
    #[error(
        "the repeats of item `{item}` are in different strata (`{first}` and `{second}` in `{column}`): repeats of one item are one task; give them one {column}"
    )]
    Strata {
        /// The item.
        item: String,
        /// The strata column.
        column: String,
        /// One stratum.
        first: String,
        /// Another.
        second: String,
    },
    /// A task run once shares its id with the item of repeats.
    #[error(
        "task `{item}` is a row of its own and also the item of the repeats `{item}#…` (their group): an item is either run once or repeated; rename one"
    )]
    Mixed {
        /// The item.
        item: String,
    },
}

/// The (item, repeat) a task id names when it has a repeat's form `<item>#<r>` (r a
/// whole number from 1 without a leading zero), whatever its group; `None` otherwise.
pub(crate) fn repeat_form(task: &str) -> Option<(&str, u64)> {
    let (item, number) = task.rsplit_once('#')?;
    let plain = !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit())
        && !number.starts_with('0');
    let repeat: u64 = number.parse().ok().filter(|_| plain)?;
    Some((item, repeat))
}

/// The one reading of a repeat: a row whose task id is `<item>#<r>` (r a whole number
/// from 1, without a leading zero) and whose `group` is `<item>` is repeat r of item
/// `<item>`; `None` for any other row. `admit` collapses repeats to items; `calibrate`
/// makes each repeat a run.
pub(crate) fn repeat_in<'a>(task: &'a str, group: Option<&str>) -> Option<(&'a str, u64)> {
    repeat_form(task).filter(|(item, _)| group == Some(*item))
}

/// The repeat a paired row is, as (item, repeat), or `None` for a row that is not one.
fn repeat_of<'a>(pairs: &'a Pairs, pair: &Pair) -> Option<(&'a str, u64)> {
    repeat_in(pairs.task(pair), pairs.group(pair))
}

/// Whether any paired row is a repeat.
pub(crate) fn holds_repeats(pairs: &Pairs) -> bool {
    pairs.pairs.iter().any(|p| repeat_of(pairs, p).is_some())
}

/// One arm's repeats of one item, and whether they disagree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ArmItem {
    repeats: ItemRepeats,
    /// Some right and some not; in a file without `correct`, scores that differ.
    flaky: bool,
}

/// What the repeats of every item show, per arm, kept for the report.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RepeatCounts {
    /// Paired rows (repeats and items run once).
    pub rows: usize,
    /// Items.
    pub items: usize,
    /// The fewest repeats an item ran.
    pub k: u64,
    /// The most.
    pub k_max: u64,
    /// Whether right means `correct` 1 (else a score of 1).
    pub by_correct: bool,
    /// The baseline's items, then the candidate's, in item order.
    arms: [Vec<ArmItem>; 2],
    /// The first [`SHOWN_FLAKY`] flaky items of each arm, in item order.
    flaky_ids: [Vec<String>; 2],
    /// Warnings found elsewhere (the import records' identical copies).
    pub extra_warnings: Vec<String>,
}

/// The pairs collapsed to items, with what their repeats show.
#[derive(Debug, Clone)]
pub(crate) struct Collapsed {
    /// One pair per item, sorted by item.
    pub pairs: Pairs,
    /// The repeats' counts.
    pub counts: RepeatCounts,
}

/// Collapses `pairs` (at least one row a repeat) to one pair per item: each side's
/// score the mean of its repeats, its `correct` kept only when every item ran once, its
/// row and feedback those of the item's first repeat, unanswered when any repeat was.
/// Time: O(n log n) for the sort by item; memory: one entry per row while sorting.
pub(crate) fn collapse(pairs: Pairs) -> Result<Collapsed, RepeatsError> {
    // (item, repeat, pair): a row that is not a repeat is repeat 0 of its own task.
    let mut rows: Vec<(Text, &str, u64, u32)> = pairs
        .pairs
        .iter()
        .enumerate()
        .map(|(at, pair)| match (repeat_of(&pairs, pair), pair.group) {
            (Some((item, repeat)), Some(group)) => (group, item, repeat, at as u32),
            _ => (pair.task, pairs.task(pair), 0, at as u32),
        })
        .collect();
    rows.sort_unstable_by(|a, b| a.1.cmp(b.1).then(a.2.cmp(&b.2)));
    let mut runs: Vec<&[(Text, &str, u64, u32)]> = rows.chunk_by(|a, b| a.1 == b.1).collect();
    runs.shrink_to_fit();
    let k = runs.iter().map(|r| r.len() as u64).min().unwrap_or(1);
    let k_max = runs.iter().map(|r| r.len() as u64).max().unwrap_or(1);
    let by_correct = pairs.both_correct;
    let mut counts = RepeatCounts {
        rows: pairs.pairs.len(),
        items: runs.len(),
        k,
        k_max,
        by_correct,
        arms: [
            Vec::with_capacity(runs.len()),
            Vec::with_capacity(runs.len()),
        ],
        flaky_ids: [Vec::new(), Vec::new()],
        extra_warnings: Vec::new(),
    };
    let mut items = Vec::with_capacity(runs.len());
    let right = |side: &Side| match side.correct {
        Some(correct) => correct,
        None => side.score == 1.0,
    };
    for run in &runs {
        let item = run[0].1;
        if run.len() > 1 && run[0].2 == 0 {
            return Err(RepeatsError::Mixed {
                item: item.to_string(),
            });
        }
        let members: Vec<&Pair> = run.iter().map(|r| &pairs.pairs[r.3 as usize]).collect();
        let first = members[0];
        if let Some(other) = members.iter().find(|p| p.stratum != first.stratum)
            && pairs.stratum(other) != pairs.stratum(first)
        {
            return Err(RepeatsError::Strata {
                item: item.to_string(),
                column: pairs.strata_column.clone().unwrap_or_default(),
                first: pairs.stratum(first).unwrap_or("").to_string(),
                second: pairs.stratum(other).unwrap_or("").to_string(),
            });
        }
        let side = |pick: fn(&Pair) -> &Side, arm: usize, counts: &mut RepeatCounts| -> Side {
            let sides: Vec<&Side> = members.iter().map(|p| pick(p)).collect();
            let runs = sides.len() as u64;
            let hits = sides.iter().filter(|s| right(s)).count() as u64;
            let flaky = if by_correct {
                hits > 0 && hits < runs
            } else {
                sides.iter().any(|s| s.score != sides[0].score)
            };
            counts.arms[arm].push(ArmItem {
                repeats: ItemRepeats { runs, right: hits },
                flaky,
            });
            if flaky && counts.flaky_ids[arm].len() < SHOWN_FLAKY {
                counts.flaky_ids[arm].push(item.to_string());
            }
            Side {
                line: sides[0].line,
                score: sides.iter().map(|s| s.score).sum::<f64>() / runs as f64,
                correct: if k_max == 1 { sides[0].correct } else { None },
                answered: sides.iter().all(|s| s.answered),
                feedback: sides.iter().find_map(|s| s.feedback),
                // An item's outcome is one run's: with repeats there is no one outcome.
                outcome: if k_max == 1 { sides[0].outcome } else { None },
            }
        };
        let baseline = side(|p| &p.baseline, 0, &mut counts);
        let candidate = side(|p| &p.candidate, 1, &mut counts);
        items.push(Pair {
            task: run[0].0,
            stratum: first.stratum,
            group: None,
            baseline,
            candidate,
        });
    }
    drop(runs);
    drop(rows);
    let one_each = k_max == 1;
    let collapsed = Pairs {
        pairs: items,
        both_correct: one_each && pairs.both_correct,
        baseline_has_correct: one_each && pairs.baseline_has_correct,
        candidate_has_correct: one_each && pairs.candidate_has_correct,
        baseline_has_outcome: one_each && pairs.baseline_has_outcome,
        candidate_has_outcome: one_each && pairs.candidate_has_outcome,
        ..pairs
    };
    Ok(Collapsed {
        pairs: collapsed,
        counts,
    })
}

/// A figure with its interval, as the report writes it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FigureView {
    /// The mean over items of the per-item estimates.
    pub estimate: f64,
    /// The interval's lower bound.
    pub low: f64,
    /// Its upper bound.
    pub high: f64,
    /// The effective number of items the interval was computed at.
    pub effective_items: f64,
}

impl From<Figure> for FigureView {
    fn from(figure: Figure) -> FigureView {
        FigureView {
            estimate: figure.estimate,
            low: figure.interval.low,
            high: figure.interval.high,
            effective_items: figure.effective_items,
        }
    }
}

/// One arm's repeats in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArmRepeatsView {
    /// The repeats the figures are at: the fewest an item ran.
    pub k: u64,
    /// The chance that one repeat is right.
    pub pass_at_1: FigureView,
    /// The chance that at least one of k repeats is right.
    pub pass_at_k: FigureView,
    /// The chance that all k repeats are right.
    pub pass_hat_k: FigureView,
    /// Items whose repeats disagree (some right, some not; in a file without
    /// `correct`, scores that differ).
    pub flaky_items: usize,
    /// The first [`SHOWN_FLAKY`] of them, by item.
    pub flaky_ids: Vec<String>,
}

/// The repeats block of `admission.json` (only when the scores hold repeats).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RepeatsView {
    /// Paired rows read.
    pub rows: usize,
    /// The items they are repeats of: the units every test counted.
    pub items: usize,
    /// The fewest repeats an item ran, at which every figure is given.
    pub k: u64,
    /// The most repeats an item ran.
    pub k_max: u64,
    /// What the tests ran on, in words.
    pub tested_on: String,
    /// What a right repeat is: `correct = 1`, or `score = 1` in files without `correct`.
    pub right: &'static str,
    /// The intervals' two-sided level, 1 − 2·alpha like every interval of the report.
    pub confidence: f64,
    /// How the intervals were computed.
    pub interval: &'static str,
    /// The baseline's repeats.
    pub baseline: ArmRepeatsView,
    /// The candidate's repeats.
    pub candidate: ArmRepeatsView,
    /// Unequal repeats across items, said, else null.
    pub note: Option<String>,
    /// Repeats that add no evidence: byte-identical copies, or right counts that are
    /// all 0 or k on an arm.
    pub warnings: Vec<String>,
}

/// The interval's name in the report.
pub(crate) const INTERVAL: &str =
    "Wilson score interval at the effective number of items (items are the independent units)";

impl RepeatCounts {
    /// The report's repeats block at `confidence`.
    pub(crate) fn view(&self, confidence: f64) -> Option<RepeatsView> {
        let arm = |at: usize| -> Option<ArmRepeatsView> {
            let items: Vec<ItemRepeats> = self.arms[at].iter().map(|i| i.repeats).collect();
            let figures = arm_repeats(&items, confidence)?;
            Some(ArmRepeatsView {
                k: self.k,
                pass_at_1: figures.pass_at_1.into(),
                pass_at_k: figures.pass_at_k.into(),
                pass_hat_k: figures.pass_hat_k.into(),
                flaky_items: self.arms[at].iter().filter(|i| i.flaky).count(),
                flaky_ids: self.flaky_ids[at].clone(),
            })
        };
        let (baseline, candidate) = (arm(0)?, arm(1)?);
        let mut warnings = Vec::new();
        for (name, view) in [("baseline", &baseline), ("candidate", &candidate)] {
            if self.k_max > 1 && view.flaky_items == 0 {
                warnings.push(format!(
                    "the {name}'s repeats agree on every item ({}): copies of one answer, as a cache or a deterministic model gives, so its {} rows carry the evidence of {} items; the effective number of items is {}",
                    if self.by_correct {
                        "each item's right count is 0 or all of its repeats, a multiple of k"
                    } else {
                        "each item's repeats have one score"
                    },
                    self.rows,
                    self.items,
                    self.items
                ));
            }
        }
        warnings.extend(self.extra_warnings.iter().cloned());
        Some(RepeatsView {
            rows: self.rows,
            items: self.items,
            k: self.k,
            k_max: self.k_max,
            tested_on: format!(
                "{} rows are repeats of {} items: every test ran on the {} items, each arm's item score the mean of its repeats, never on the rows as independent tasks",
                self.rows, self.items, self.items
            ),
            right: if self.by_correct {
                "correct = 1"
            } else {
                "score = 1 (the files have no correct column)"
            },
            confidence,
            interval: INTERVAL,
            baseline,
            candidate,
            note: (self.k != self.k_max).then(|| {
                format!(
                    "items ran {} to {} repeats: pass@k and pass^k are at k = {}, each item's estimate from all of its repeats (unbiased, drawing k without replacement), every item weighing the same",
                    self.k, self.k_max, self.k
                )
            }),
            warnings,
        })
    }
}
