//! The decision: one-sided tests for improvement overall and for regression in every
//! stratum, each at alpha with no multiplicity correction (admission needs all of them
//! to hold, an intersection–union test, so the level is already controlled), the
//! optional margin (which turns the question into non-inferiority or equivalence,
//! [`super::margin`]), and the holdout check, each turned into evidence.

use super::analysis::analyse;
use super::config::{Config, Test};
use super::criteria::{improvement_evidence, label, pairing_evidence, regression_evidence};
use super::guard::{Reach, Spread, detectable, reach};
use super::margin::{Question, claim_evidence, shortfall, strata_evidence, test_set};
use super::pairing::Pairs;
use super::sufficient::Statistics;
use super::wording::{
    PowerFacts, StratumGuard, inconclusive_sentence, power_sentence, unflagged_regression,
};
use super::{
    Admission, ArmSummary, Check, Criterion, Finding, Stratum, TestInfo, TestName, Verdict,
};
use crate::alpha::Alpha;
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::stats::signed_rank::ZeroMethod;

/// Decides admission for complete `pairs` under `config`: adds up their sufficient
/// statistics ([`Statistics::of`]) and decides on those, as [`decide_summary`] does on
/// a summary document, then lists the largest losses, which need the pairs.
///
/// Admitted only when every criterion passes: the pairing is complete, both arms
/// answered every task (when a file says which were, unless allowed), the claim is
/// shown, and the tasks are the recorded holdout (with a manifest). Without a margin
/// the claim is superiority: the one-sided test for improvement gives `p_improvement <
/// alpha` (signed-rank: and the mean score difference is positive, so ranks and mean
/// agree) and no stratum has `p_regression < alpha`. With a margin it is
/// non-inferiority (or equivalence): the exact test against the margin rejects on the
/// whole set (both one-sided tests for equivalence) and in every stratum
/// (`admission::margin`). Time: the tests' cost, plus O(n log n)
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
    let (baseline, candidate) = super::outcomes::count(pairs);
    admission.baseline.outcomes = baseline;
    admission.candidate.outcomes = candidate;
    admission
}

/// Decides admission on the sufficient statistics alone (`admit --summary`): the same
/// decision as [`decide`] on the pairs they were added up from, except what needs the
/// pairs themselves: the losses (none are listed), the holdout check (with a holdout
/// in `config`, the document's `holdout_sha256` must be the recorded holdout's
/// identity, since no task ids are at hand) and the answers-complete check (a summary
/// has no `answered` column; the shipped SQL refuses unanswered rows).
pub fn decide_summary(summary: &Statistics, config: &Config) -> Admission {
    let holdout = config
        .holdout
        .as_ref()
        .map(|holdout| holdout.check_digest(summary.holdout_sha256.as_deref()));
    let rows = RowFindings {
        answers: None,
        holdout,
    };
    decide_with(summary, config, rows)
}

/// Decides on the sufficient statistics with the findings that need the rows found
/// while they were read (`admit` on scores files read as streams): the answers-complete
/// finding (and whether it stays in the reasons) and the holdout-intact one. The
/// losses are the caller's to add.
pub(crate) fn decide_on(
    summary: &Statistics,
    config: &Config,
    answers: Option<(Finding, bool)>,
    holdout: Option<Finding>,
) -> Admission {
    decide_with(summary, config, RowFindings { answers, holdout })
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
    let strata: Vec<(Stratum, String, Spread)> = groups
        .iter()
        .map(|(value, set)| {
            let a = analyse(set, config.test, confidence);
            let best_case = match a.spread {
                Spread::Discordance(_) => min_detectable_shift(a.n as u64, alpha),
                Spread::Differences { .. } => None,
            };
            let noninferiority = config
                .margin
                .map(|m| test_set(set, config.test, m.get()).p_noninferiority);
            let mut stratum = Stratum {
                name: name.clone(),
                value: value.to_string(),
                n: a.n,
                baseline_mean: a.baseline_mean,
                candidate_mean: a.candidate_mean,
                baseline_correct: a.correct.map(|c| c.0),
                candidate_correct: a.correct.map(|c| c.1),
                p_noninferiority: noninferiority,
                margin_holds: noninferiority.map(|p| level.rejects(p)),
                delta: a.delta,
                discordant: a.discordant,
                tails: a.tails.one_sided(),
                significant_regression: level.rejects(a.tails.p_regression),
                min_detectable_shift: best_case,
                regression_detectable_80_power: detectable(a.n, a.spread, alpha).map(|d| d.0),
                note: None,
            };
            stratum.note = super::stratum_note(&stratum, config.test, level);
            (stratum, a.detail, a.spread)
        })
        .collect();
    let guard_facts: Vec<StratumGuard> = strata
        .iter()
        .map(|(s, _, spread)| StratumGuard {
            label: label(s),
            n: s.n,
            catch: detectable(s.n, *spread, alpha),
        })
        .collect();
    let unflagged: Vec<String> = strata
        .iter()
        .zip(&guard_facts)
        .filter(|((s, _, _), _)| {
            config.margin.is_none() && s.delta.estimate < 0.0 && !s.significant_regression
        })
        .map(|((s, _, _), guard)| {
            let catch = guard.catch.map(|c| c.0);
            unflagged_regression(&guard.label, guard.n, s.delta.estimate, catch)
        })
        .collect();
    let spreads: Vec<Spread> = strata.iter().map(|(_, _, spread)| *spread).collect();
    let strata: Vec<(Stratum, String)> = strata.into_iter().map(|(s, d, _)| (s, d)).collect();
    let mut evidence = vec![pairing_evidence(summary)];
    // Unanswered tasks decided on under --allow-missing stay in the reasons.
    let noted = rows.answers.as_ref().is_some_and(|(_, noted)| *noted);
    evidence.extend(rows.answers.map(|(finding, _)| finding));
    evidence.extend(super::answers::selection_evidence(&config.answers));
    let metric = super::TestedMetric::of(test_name(config.test)).words();
    let margin_tests = config
        .margin
        .map(|m| test_set(&summary.overall, config.test, m.get()));
    match (config.margin, &margin_tests) {
        (Some(margin), Some(tests)) => {
            // A claim with a margin: its own test on the whole set, and each stratum
            // shown non-inferior by its own; no test for improvement or regression.
            evidence.push(claim_evidence(margin, tests, &overall, metric, level));
            if !strata.is_empty() {
                let rows: Vec<&Stratum> = strata.iter().map(|(s, _)| s).collect();
                evidence.push(strata_evidence(&rows, margin.get(), metric, level));
            }
        }
        _ => evidence.extend([
            improvement_evidence(&overall, config.test, level),
            regression_evidence(&overall, &strata, level),
        ]),
    }
    evidence.extend(rows.holdout);
    let cluster = super::clustering::summarise(summary, config.cluster, alpha);
    // The cluster test shows improvement, which only superiority asks.
    if config.cluster && config.margin.is_none() {
        evidence.push(super::clustering::evidence(
            cluster.as_ref(),
            overall.mean_difference,
            level,
        ));
    }
    let admitted = evidence.iter().all(|e| e.result == Check::Pass);
    let shortfall = (!admitted)
        .then(|| match config.margin {
            Some(margin) => {
                let rows: Vec<(&Stratum, Spread)> = strata
                    .iter()
                    .map(|(s, _)| s)
                    .zip(spreads.iter().copied())
                    .collect();
                shortfall(margin, &evidence, &overall, &rows, level)
            }
            None => inconclusive(&evidence, &overall, level),
        })
        .flatten();
    let verdict = match (admitted, &shortfall) {
        (true, _) => Verdict::Admitted,
        (false, Some(_)) => Verdict::Inconclusive,
        (false, None) => Verdict::Refused,
    };
    let tasks_needed = shortfall.as_ref().map(|s| s.0);
    let mut reasons: Vec<String> = shortfall.map(|s| s.1).into_iter().collect();
    reasons.extend(
        evidence
            .iter()
            .filter(|e| e.criterion != Criterion::PairingComplete || e.result == Check::Fail)
            .filter(|e| {
                admitted
                    || e.result == Check::Fail
                    || (noted && e.criterion == Criterion::AnswersComplete)
            })
            .map(|e| e.sentence.clone()),
    );
    reasons.extend(unflagged);
    let k = min_discordant(alpha).expect("Alpha holds a level in (0, 0.5)");
    let shift = match overall.spread {
        Spread::Discordance(_) => min_detectable_shift(overall.n as u64, alpha),
        Spread::Differences { .. } => None,
    };
    let detectable_overall = detectable(overall.n, overall.spread, alpha);
    let power = power_sentence(&PowerFacts {
        n: overall.n,
        alpha,
        min_discordant: k,
        spread: overall.spread,
        best_case: shift,
        detectable: detectable_overall,
        strata: guard_facts,
    });
    let test_name = test_name(config.test);
    let zero_method = match config.test {
        Test::McNemar => None,
        Test::SignedRank(ZeroMethod::Wilcox) => Some("wilcox".to_string()),
        Test::SignedRank(ZeroMethod::Pratt) => Some("pratt".to_string()),
    };
    Admission {
        verdict,
        question: Question::of(config.margin),
        tasks_needed,
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
            outcomes: None,
        },
        candidate: ArmSummary {
            mean: overall.candidate_mean,
            correct: overall.correct.map(|c| c.1),
            outcomes: None,
        },
        min_discordant: k,
        min_detectable_shift_80_power: detectable_overall.map(|d| d.0),
        power,
        delta: overall.delta,
        discordant: overall.discordant,
        tails: overall.tails,
        min_detectable_shift: match (&cluster, config.cluster) {
            (Some(c), true) => c.min_detectable_shift,
            _ => shift,
        },
        margin: config.margin.map(|m| m.get()),
        margin_tests,
        strata_column: column,
        strata: strata.into_iter().map(|(s, _)| s).collect(),
        evidence,
        losses: Vec::new(),
        cluster,
        repeats: None,
    }
}

/// The test that `test` names in reports.
fn test_name(test: Test) -> TestName {
    match test {
        Test::McNemar => TestName::McNemar,
        Test::SignedRank(_) => TestName::SignedRank,
    }
}

/// The tasks needed and the first reason, when the verdict is inconclusive: the only
/// failed criteria are the improvement ones (the pair-level one among them), the
/// observed shift favours the candidate and the ranks do not significantly favour the
/// baseline, and the holdout had less than 80% power for that shift. `None` means
/// refused.
fn inconclusive(
    evidence: &[super::Finding],
    overall: &super::analysis::Analysis,
    level: Alpha,
) -> Option<(u64, String)> {
    let failed = |c: Criterion| {
        evidence
            .iter()
            .any(|e| e.criterion == c && e.result == Check::Fail)
    };
    let only_improvement = evidence.iter().all(|e| {
        e.result == Check::Pass
            || matches!(
                e.criterion,
                Criterion::ImprovementSignificant | Criterion::ClusteredImprovementSignificant
            )
    });
    if !(only_improvement && failed(Criterion::ImprovementSignificant))
        || level.rejects(overall.tails.p_regression)
    {
        return None;
    }
    let shift = match overall.spread {
        Spread::Discordance(_) => overall.delta.estimate,
        Spread::Differences { .. } => overall.mean_difference,
    };
    match reach(overall.n, shift, overall.spread, level.get()) {
        Reach::Underpowered {
            power,
            tasks_needed,
            method,
        } => Some((
            tasks_needed,
            inconclusive_sentence(
                overall.n,
                shift,
                overall.spread,
                power,
                tasks_needed,
                method,
            ),
        )),
        Reach::NoLean | Reach::Powered => None,
    }
}
