//! The decision: one-sided tests for improvement overall and for regression in every
//! stratum, each at alpha with no multiplicity correction (admission needs all of them
//! to hold, an intersection–union test, so the level is already controlled), the
//! optional margin, and the holdout check, each turned into evidence.

use std::collections::BTreeMap;

use super::analysis::analyse;
use super::clustering::ClusterSummary;
use super::config::{Config, Test};
use super::criteria::{
    improvement_evidence, label, margin_evidence, pairing_evidence, regression_evidence,
};
use super::pairing::{Pair, Pairs};
use super::wording::power_sentence;
use super::{Admission, ArmSummary, Check, Criterion, Stratum, TestInfo, TestName, Verdict};
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::stats::signed_rank::ZeroMethod;
use crate::texts::Text;

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
/// Admitted only when every criterion passes: the pairing is complete, both arms
/// answered every task (when a file says which were, unless allowed), the one-sided
/// test for improvement gives `p_improvement < alpha` (signed-rank: and the mean score
/// difference is positive, so ranks and mean agree), no stratum has `p_regression <
/// alpha`, every stratum's lower bound is above −margin (with a margin), and the tasks
/// are the recorded holdout (with a manifest). Time: the tests' cost, plus O(n log n)
/// for a signed-rank interval (its histogram) and O(k log n) for its k distinct values.
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
    let level = config.alpha;
    let alpha = level.get();
    let confidence = level.confidence();
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
            let mut stratum = Stratum {
                name: name.clone(),
                value: value.to_string(),
                n: a.n,
                baseline_mean: a.baseline_mean,
                candidate_mean: a.candidate_mean,
                baseline_correct: a.correct.map(|c| c.0),
                candidate_correct: a.correct.map(|c| c.1),
                margin_holds: config
                    .margin
                    .map(|m| a.delta.low.is_some_and(|low| low > -m.get())),
                delta: a.delta,
                discordant: a.discordant,
                p_improvement: a.p_improvement,
                p_regression: a.p_regression,
                log10_p_improvement: a.log10_p[0],
                log10_p_regression: a.log10_p[1],
                significant_regression: level.rejects(a.p_regression),
                min_detectable_shift: min_detectable_shift(a.n as u64, alpha),
                note: None,
            };
            stratum.note = super::stratum_note(&stratum, config.test, level);
            (stratum, a.detail)
        })
        .collect();
    let mut evidence = vec![pairing_evidence(pairs)];
    let answers = super::answers::answers_evidence(pairs, &config.answers);
    // Unanswered tasks decided on under --allow-missing stay in the reasons.
    let noted = answers.as_ref().is_some_and(|(_, noted)| *noted);
    evidence.extend(answers.map(|(finding, _)| finding));
    evidence.extend([
        improvement_evidence(&overall, config.test, level),
        regression_evidence(&overall, &strata, level),
    ]);
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
            level,
        ));
    }
    let admitted = evidence.iter().all(|e| e.result == Check::Pass);
    let reasons = evidence
        .iter()
        .filter(|e| e.criterion != Criterion::PairingComplete || e.result == Check::Fail)
        .filter(|e| {
            admitted
                || e.result == Check::Fail
                || (noted && e.criterion == Criterion::AnswersComplete)
        })
        .map(|e| e.sentence.clone())
        .collect();
    let k = min_discordant(alpha).expect("Alpha holds a level in (0, 0.5)");
    let shift = min_detectable_shift(overall.n as u64, alpha);
    let smallest = strata
        .iter()
        .map(|(s, _)| s)
        .min_by(|x, y| x.n.cmp(&y.n).then_with(|| x.value.cmp(&y.value)))
        .map(|s| (label(s), s.n, s.min_detectable_shift));
    let test_name = match config.test {
        Test::McNemar => TestName::McNemar,
        Test::SignedRank(_) => TestName::SignedRank,
    };
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
            name: test_name,
            metric: super::TestedMetric::of(test_name),
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
        log10_p_improvement: overall.log10_p[0],
        log10_p_regression: overall.log10_p[1],
        log10_p_two_sided: overall.log10_p[2],
        min_detectable_shift: match (&cluster, config.cluster) {
            (Some(c), true) => c.min_detectable_shift,
            _ => shift,
        },
        margin: config.margin.map(|m| m.get()),
        strata_column: column,
        strata: strata.into_iter().map(|(s, _)| s).collect(),
        evidence,
        losses: super::losses::largest_losses(pairs),
        cluster,
    }
}
