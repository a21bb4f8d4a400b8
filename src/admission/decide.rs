//! The decision: one-sided tests for improvement overall and for regression in every
//! stratum, each at alpha with no multiplicity correction (admission needs all of them
//! to hold, an intersection–union test, so the level is already controlled), the
//! optional margin, and the holdout check, each turned into evidence.

use std::collections::BTreeMap;

use super::clustering::ClusterSummary;
use super::config::{Config, Test};
use super::criteria::{
    improvement_evidence, label, margin_evidence, pairing_evidence, regression_evidence,
};
use super::pairing::{Pair, Pairs};
use super::wording::power_sentence;
use super::{
    Admission, ArmSummary, Check, Criterion, Delta, Discordant, Stratum, TestInfo, TestMethod,
    TestName, Verdict,
};
use crate::csvout::number;
use crate::stats::bootstrap::mean_difference_interval;
use crate::stats::interval::{normal_mean, paired_difference};
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::stats::signed_rank::{Method, ZeroMethod, signed_rank};
use crate::texts::Text;

/// The seed of the bootstrap stream behind signed-rank intervals (the same 13 as
/// `split`'s default), fixed so a report never changes between runs.
pub const BOOTSTRAP_SEED: u64 = 13;

/// Resamples per bootstrap interval: the interval's bounds move by well under 0.01
/// between seeds at this count on a few hundred pairs.
pub const BOOTSTRAP_RESAMPLES: u32 = 10_000;

/// Above this many pairs a signed-rank interval is the normal interval of the mean
/// difference instead of the percentile bootstrap. The two differ by about
/// 0.28·γ/√n standard errors at alpha 0.05 (γ the skewness of the differences), under
/// 0.006·γ here, while the 10,000-resample percentile bounds themselves wander by about
/// 0.02 standard errors between seeds: past this n the bootstrap's 10,000·n draws buy
/// nothing the normal interval does not give (at 10^6 pairs they were 10^10 draws).
pub const BOOTSTRAP_LIMIT: usize = 2_500;

/// One set of pairs tested: the whole holdout or one stratum.
pub(super) struct Analysis {
    pub(super) n: usize,
    pub(super) baseline_mean: f64,
    pub(super) candidate_mean: f64,
    pub(super) correct: Option<(u64, u64)>,
    pub(super) delta: Delta,
    pub(super) discordant: Option<Discordant>,
    pub(super) p_improvement: f64,
    pub(super) p_regression: f64,
    pub(super) p_two_sided: f64,
    pub(super) method: TestMethod,
    pub(super) mean_difference: f64,
    /// The test's own figures, e.g. `McNemar exact, b 0, c 8`.
    pub(super) detail: String,
}

/// What one walk over the pairs adds up: the sums of baseline scores, candidate scores
/// and differences (each in pair order, from −0 as `Iterator::sum` does, so the means
/// are those of three separate sums), and over the pairs with `correct` on both sides
/// the discordant counts (baseline only, candidate only) and each arm's count right.
struct Totals {
    baseline: f64,
    candidate: f64,
    difference: f64,
    discordant: (u64, u64),
    correct: (u64, u64),
}

impl Totals {
    fn of(pairs: &[&Pair]) -> Totals {
        let mut totals = Totals {
            baseline: -0.0,
            candidate: -0.0,
            difference: -0.0,
            discordant: (0, 0),
            correct: (0, 0),
        };
        for pair in pairs {
            totals.baseline += pair.baseline.score;
            totals.candidate += pair.candidate.score;
            totals.difference += pair.difference();
            if let (Some(b), Some(c)) = (pair.baseline.correct, pair.candidate.correct) {
                totals.discordant.0 += u64::from(b && !c);
                totals.discordant.1 += u64::from(c && !b);
                totals.correct.0 += u64::from(b);
                totals.correct.1 += u64::from(c);
            }
        }
        totals
    }
}

fn analyse(pairs: &[&Pair], test: Test, confidence: f64) -> Analysis {
    let n = pairs.len();
    let totals = Totals::of(pairs);
    let baseline_mean = totals.baseline / n as f64;
    let candidate_mean = totals.candidate / n as f64;
    let mean_difference = totals.difference / n as f64;
    match test {
        Test::McNemar => {
            let (b, c) = totals.discordant;
            let result = mcnemar_exact(b, c);
            let interval = paired_difference(b, c, n as u64, confidence);
            Analysis {
                n,
                baseline_mean,
                candidate_mean,
                correct: Some(totals.correct),
                delta: Delta {
                    estimate: (c as f64 - b as f64) / n as f64,
                    low: interval.map(|i| i.low),
                    high: interval.map(|i| i.high),
                    confidence,
                    interval: "Tango score interval for the paired difference of proportions"
                        .to_string(),
                },
                discordant: Some(Discordant {
                    baseline_only: b,
                    candidate_only: c,
                }),
                p_improvement: result.p_improvement,
                p_regression: result.p_regression,
                p_two_sided: result.p_two_sided,
                method: TestMethod::Exact,
                mean_difference,
                detail: format!("McNemar exact, b {b}, c {c}"),
            }
        }
        Test::SignedRank(zero) => {
            let differences: Vec<f64> = pairs.iter().map(|p| p.difference()).collect();
            let result = signed_rank(&differences, zero);
            let (interval, interval_name) = if differences.len() <= BOOTSTRAP_LIMIT {
                (
                    mean_difference_interval(
                        &differences,
                        confidence,
                        BOOTSTRAP_RESAMPLES,
                        BOOTSTRAP_SEED,
                    ),
                    format!(
                        "percentile bootstrap of the mean difference, {BOOTSTRAP_RESAMPLES} resamples, ChaCha20 seed {BOOTSTRAP_SEED}"
                    ),
                )
            } else {
                (
                    normal_mean(&differences, confidence),
                    format!(
                        "normal interval of the mean difference, mean ± z·s/√n (more than {BOOTSTRAP_LIMIT} pairs)"
                    ),
                )
            };
            let method = match result.method {
                Method::Exact => TestMethod::Exact,
                Method::NormalApproximation => TestMethod::NormalApproximation,
            };
            let method_word = match method {
                TestMethod::Exact => "exact",
                TestMethod::NormalApproximation => "normal approximation",
            };
            Analysis {
                n,
                baseline_mean,
                candidate_mean,
                correct: None,
                delta: Delta {
                    estimate: mean_difference,
                    low: interval.map(|i| i.low),
                    high: interval.map(|i| i.high),
                    confidence,
                    interval: interval_name,
                },
                discordant: None,
                p_improvement: result.p_improvement,
                p_regression: result.p_regression,
                p_two_sided: result.p_two_sided,
                method,
                mean_difference,
                detail: format!(
                    "Wilcoxon signed-rank {method_word}, {} non-zero of {n}, W+ {}",
                    result.n_nonzero,
                    number(result.w_plus)
                ),
            }
        }
    }
}

/// The pairs of each stratum, by value (a pair without one in ""). A value stored
/// more than once is one stratum; each stored value is read once, not once per pair.
fn strata_of(pairs: &Pairs) -> BTreeMap<&str, Vec<&Pair>> {
    let mut members: Vec<Vec<&Pair>> = Vec::new();
    let mut by_value: BTreeMap<&str, usize> = BTreeMap::new();
    // The members of the last few stored values met.
    let mut recent: Vec<(Option<Text>, usize)> = Vec::new();
    for pair in &pairs.pairs {
        let at = match recent.iter().find(|(text, _)| *text == pair.stratum) {
            Some(&(_, at)) => at,
            None => {
                let value = pairs.stratum(pair).unwrap_or("");
                let at = *by_value.entry(value).or_insert_with(|| {
                    members.push(Vec::new());
                    members.len() - 1
                });
                if recent.len() == RECENT_STRATA {
                    recent.remove(0);
                }
                recent.push((pair.stratum, at));
                at
            }
        };
        members[at].push(pair);
    }
    by_value
        .into_iter()
        .map(|(value, at)| (value, std::mem::take(&mut members[at])))
        .collect()
}

/// How many stored strata values [`strata_of`] keeps at hand.
const RECENT_STRATA: usize = 8;

/// Decides admission for complete `pairs` under `config`.
///
/// Admitted only when every criterion passes: the pairing is complete, the one-sided
/// test for improvement gives `p_improvement < alpha` (signed-rank: and the mean score
/// difference is positive, so ranks and mean agree), no stratum has `p_regression <
/// alpha`, every stratum's lower bound is above −margin (with a margin), and the tasks
/// are the recorded holdout (with a manifest). Time: the tests' cost, plus
/// [`BOOTSTRAP_RESAMPLES`] · n for signed-rank intervals on up to [`BOOTSTRAP_LIMIT`]
/// pairs and O(n) beyond.
pub fn decide(pairs: &Pairs, config: &Config) -> Admission {
    let alpha = config.alpha.get();
    // The cluster summary needs nothing the rest computes: on many pairs it runs on a
    // second thread (or here, when none can be started).
    let summarise = || super::clustering::summarise(pairs, config.cluster, alpha);
    std::thread::scope(|scope| {
        let cluster = (pairs.pairs.len() >= PARALLEL_FROM)
            .then(|| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, summarise)
                    .ok()
            })
            .flatten();
        decide_with(pairs, config, || match cluster {
            Some(thread) => thread.join().expect("the cluster summary does not panic"),
            None => summarise(),
        })
    })
}

/// From this many pairs up, [`decide`] summarises clusters on a second thread.
const PARALLEL_FROM: usize = 10_000;

/// [`decide`], with the cluster summary from `cluster`.
fn decide_with(
    pairs: &Pairs,
    config: &Config,
    cluster: impl FnOnce() -> Option<ClusterSummary>,
) -> Admission {
    let alpha = config.alpha.get();
    let confidence = config.alpha.confidence();
    let all: Vec<&Pair> = pairs.pairs.iter().collect();
    let overall = analyse(&all, config.test, confidence);
    let column = pairs.strata_column.clone();
    let groups = if column.is_some() {
        strata_of(pairs)
    } else {
        BTreeMap::new()
    };
    let name = column.clone().unwrap_or_default();
    let strata: Vec<(Stratum, String)> = groups
        .iter()
        .map(|(value, members)| {
            let a = analyse(members, config.test, confidence);
            let stratum = Stratum {
                name: name.clone(),
                value: value.to_string(),
                n: a.n,
                baseline_mean: a.baseline_mean,
                candidate_mean: a.candidate_mean,
                delta: a.delta,
                discordant: a.discordant,
                p_improvement: a.p_improvement,
                p_regression: a.p_regression,
                significant_regression: a.p_regression < alpha,
                min_detectable_shift: min_detectable_shift(a.n as u64, alpha),
            };
            (stratum, a.detail)
        })
        .collect();
    let mut evidence = vec![
        pairing_evidence(pairs),
        improvement_evidence(&overall, config.test, alpha),
        regression_evidence(&overall, &strata, alpha),
    ];
    if let Some(margin) = config.margin {
        evidence.push(margin_evidence(&overall, &strata, margin.get()));
    }
    if let Some(holdout) = &config.holdout {
        let used: Vec<&str> = pairs.tasks().collect();
        evidence.push(holdout.check(&used));
    }
    let cluster = cluster();
    if config.cluster {
        evidence.push(super::clustering::evidence(
            cluster.as_ref(),
            overall.mean_difference,
            alpha,
        ));
    }
    let admitted = evidence.iter().all(|e| e.result == Check::Pass);
    let reasons = evidence
        .iter()
        .filter(|e| e.criterion != Criterion::PairingComplete || e.result == Check::Fail)
        .filter(|e| admitted || e.result == Check::Fail)
        .map(|e| e.sentence.clone())
        .collect();
    let k = min_discordant(alpha).expect("Alpha holds a level in (0, 0.5)");
    let shift = min_detectable_shift(overall.n as u64, alpha);
    let smallest = strata
        .iter()
        .map(|(s, _)| s)
        .min_by(|x, y| x.n.cmp(&y.n).then_with(|| x.value.cmp(&y.value)))
        .map(|s| (label(s), s.n, s.min_detectable_shift));
    let zero_method = match config.test {
        Test::McNemar => None,
        Test::SignedRank(ZeroMethod::Wilcox) => Some("wilcox".to_string()),
        Test::SignedRank(ZeroMethod::Pratt) => Some("pratt".to_string()),
    };
    Admission {
        verdict: if admitted {
            Verdict::Admitted
        } else {
            Verdict::Refused
        },
        reasons,
        test: TestInfo {
            name: match config.test {
                Test::McNemar => TestName::McNemar,
                Test::SignedRank(_) => TestName::SignedRank,
            },
            method: overall.method,
            zero_method,
        },
        alpha,
        n: overall.n,
        baseline: ArmSummary {
            mean: overall.baseline_mean,
            correct: overall.correct.map(|c| c.0),
        },
        candidate: ArmSummary {
            mean: overall.candidate_mean,
            correct: overall.correct.map(|c| c.1),
        },
        min_discordant: k,
        power: power_sentence(overall.n, alpha, k, shift, smallest),
        delta: overall.delta,
        discordant: overall.discordant,
        p_improvement: overall.p_improvement,
        p_regression: overall.p_regression,
        p_two_sided: overall.p_two_sided,
        min_detectable_shift: match (&cluster, config.cluster) {
            (Some(c), true) => c.min_detectable_shift,
            _ => shift,
        },
        margin: config.margin.map(|m| m.get()),
        strata_column: column,
        strata: strata.into_iter().map(|(s, _)| s).collect(),
        evidence,
        cluster,
    }
}
