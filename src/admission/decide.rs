//! The decision: one-sided tests for improvement overall and for regression in every
//! stratum, each at alpha with no multiplicity correction (admission needs all of them
//! to hold, an intersection–union test, so the level is already controlled), the
//! optional margin, and the holdout check, each turned into evidence.

use super::analysis::analyse;
use super::config::{Config, Test};
use super::criteria::{
    improvement_evidence, label, margin_evidence, pairing_evidence, regression_evidence,
};
use super::pairing::Pairs;
use super::summary::Statistics;
use super::wording::power_sentence;
use super::{
    Admission, ArmSummary, Check, Criterion, Finding, Stratum, TestInfo, TestName, Verdict,
};
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::stats::signed_rank::ZeroMethod;

/// Decides admission for complete `pairs` under `config`: adds up their sufficient
/// statistics ([`Statistics::of`]) and decides on those, as [`decide_summary`] does on
/// a summary document, then lists the largest losses, which need the pairs.
///
/// Admitted only when every criterion passes: the pairing is complete, both arms
/// answered every task (when a file says which were, unless allowed), the one-sided
/// test for improvement gives `p_improvement < alpha` (signed-rank: and the mean score
/// difference is positive, so ranks and mean agree), no stratum has `p_regression <
/// alpha`, every stratum's lower bound is above −margin (with a margin), and the tasks
/// are the recorded holdout (with a manifest). Time: the tests' cost, plus O(n log n)
/// for a signed-rank interval (its histogram) and O(k log n) for its k distinct values.
pub fn decide(pairs: &Pairs, config: &Config) -> Admission {
    let summary = Statistics::of(pairs);
    let rows = RowFindings {
        answers: super::answers::answers_evidence(pairs, &config.answers),
        holdout: config.holdout.as_ref().map(|holdout| {
            let used: Vec<&str> = pairs.tasks().collect();
            holdout.check(&used)
        }),
    };
    let mut admission = decide_with(&summary, config, rows);
    admission.losses = super::losses::largest_losses(pairs);
    admission
}

/// Decides admission on the sufficient statistics alone (`admit --summary`): the same
/// decision as [`decide`] on the pairs they were added up from, except what needs the
/// pairs themselves: the losses (none are listed), the holdout check (with a holdout
/// in `config` it fails, since no task ids are at hand) and the answers-complete check
/// (a summary has no `answered` column; the shipped SQL refuses unanswered rows).
pub fn decide_summary(summary: &Statistics, config: &Config) -> Admission {
    let holdout = config.holdout.as_ref().map(|holdout| Finding {
        criterion: Criterion::HoldoutIntact,
        result: Check::Fail,
        proof: format!(
            "the tasks cannot be compared with {}: a summary carries no task ids",
            holdout.manifest
        ),
        sentence: "The holdout cannot be checked from a summary: run admit on the score files with --manifest.".to_string(),
    });
    let rows = RowFindings {
        answers: None,
        holdout,
    };
    decide_with(summary, config, rows)
}

/// The findings that need the rows' task ids, found before the one decision.
struct RowFindings {
    /// The answers-complete finding, and whether it stays in the reasons.
    answers: Option<(Finding, bool)>,
    /// The holdout-intact finding, with a holdout.
    holdout: Option<Finding>,
}

/// The one decision, on `summary`, with the findings that need the rows.
fn decide_with(summary: &Statistics, config: &Config, rows: RowFindings) -> Admission {
    let level = config.alpha;
    let alpha = level.get();
    let confidence = level.confidence();
    let overall = analyse(&summary.overall, config.test, confidence);
    let column = summary.strata.as_ref().map(|s| s.column.clone());
    let no_strata = Vec::new();
    let groups = summary.strata.as_ref().map_or(&no_strata, |s| &s.sets);
    let name = column.clone().unwrap_or_default();
    let strata: Vec<(Stratum, String)> = groups
        .iter()
        .map(|(value, set)| {
            let a = analyse(set, config.test, confidence);
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
    let mut evidence = vec![pairing_evidence(summary)];
    // Unanswered tasks decided on under --allow-missing stay in the reasons.
    let noted = rows.answers.as_ref().is_some_and(|(_, noted)| *noted);
    evidence.extend(rows.answers.map(|(finding, _)| finding));
    evidence.extend([
        improvement_evidence(&overall, config.test, level),
        regression_evidence(&overall, &strata, level),
    ]);
    if let Some(margin) = config.margin {
        evidence.push(margin_evidence(&overall, &strata, margin.get()));
    }
    evidence.extend(rows.holdout);
    let cluster = super::clustering::summarise(summary, config.cluster, alpha);
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
        losses: Vec::new(),
        cluster,
    }
}
