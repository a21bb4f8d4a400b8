//! The evidence for each admission criterion: the proof (the numbers that decided it)
//! and the sentence a person reads, built from the analyses `decide` ran. A criterion
//! passes only on its own evidence; nothing here assumes another one held.

use super::analysis::Analysis;
use super::config::Test;
use super::pairing::Basis;
use super::sufficient::{Pairing, Statistics};
use super::wording::compare;
use super::{Check, Criterion, Finding, Stratum};
use crate::alpha::Alpha;
use crate::base::numbers::{count, p_value, plural, signed};

/// `kind=year`.
pub(super) fn label(stratum: &Stratum) -> String {
    format!("{}={}", stratum.name, stratum.value)
}

fn evidence(criterion: Criterion, pass: bool, proof: String, sentence: String) -> Finding {
    Finding {
        criterion,
        result: if pass { Check::Pass } else { Check::Fail },
        proof,
        sentence,
    }
}

pub(super) fn pairing_evidence(summary: &Statistics) -> Finding {
    let n = summary.overall.n;
    let (baseline, candidate) = (&summary.baseline, &summary.candidate);
    let proof = match &summary.pairing {
        Pairing::Files(Basis::SameTasks) => {
            format!(
                "{} in both {baseline} and {candidate}, each once, paired by task_id",
                count(n, "task")
            )
        }
        Pairing::Files(Basis::TaskList {
            source,
            ignored_baseline,
            ignored_candidate,
        }) => format!(
            "the {} of {source}, each once in both files, paired by task_id ({} and {} left out)",
            count(n, "task"),
            rows(*ignored_baseline, "baseline"),
            rows(*ignored_candidate, "candidate")
        ),
        Pairing::Counted {
            baseline_rows,
            candidate_rows,
        } => format!(
            "{} in both {baseline} and {candidate}, each once, paired by task_id (summary: {baseline_rows} baseline and {} candidate row{}, 0 duplicates, 0 tasks in one arm only, 0 strata disagreements)",
            count(n, "task"),
            candidate_rows,
            plural(*candidate_rows)
        ),
    };
    let sentence = if n == 1 {
        "The one task is paired.".to_string()
    } else {
        format!("All {n} tasks are paired.")
    };
    evidence(Criterion::PairingComplete, true, proof, sentence)
}

/// `1 other baseline row`, `3 other candidate rows`.
fn rows(count: usize, arm: &str) -> String {
    let noun = if count == 1 { "row" } else { "rows" };
    format!("{count} other {arm} {noun}")
}

pub(super) fn improvement_evidence(overall: &Analysis, test: Test, alpha: Alpha) -> Finding {
    let significant = alpha.rejects(overall.tails.p_improvement);
    let p = compare("p_improvement", overall.tails.p_improvement, alpha);
    let level = crate::base::numbers::level(alpha.get());
    let (pass, proof, sentence) = match (test, overall.discordant) {
        (Test::McNemar, Some(d)) => {
            let (b, c) = (d.baseline_only, d.candidate_only);
            let tally = format!(
                "was right on {c} task{} the baseline missed and wrong on {b} the baseline got right",
                if c == 1 { "" } else { "s" }
            );
            let sentence = if significant {
                format!(
                    "The candidate is significantly better: it {tally} (McNemar exact, p_improvement {} < alpha {level}).",
                    p_value(overall.tails.p_improvement)
                )
            } else if b + c == 0 {
                format!(
                    "The improvement is not significant: baseline and candidate agree on {}, so there is no evidence either way (p_improvement 1).",
                    if overall.n == 1 {
                        "the one task".to_string()
                    } else {
                        format!("all {} tasks", overall.n)
                    }
                )
            } else {
                format!(
                    "The improvement is not significant: the candidate {tally}, and p_improvement {} is not below alpha {level} (McNemar exact).",
                    p_value(overall.tails.p_improvement)
                )
            };
            (significant, format!("{p} ({})", overall.detail), sentence)
        }
        _ => {
            let agrees = overall.mean_difference > 0.0;
            let difference = signed(overall.mean_difference);
            let proof = format!(
                "{p} and mean difference {difference} {} 0 ({})",
                if agrees { ">" } else { "<=" },
                overall.detail
            );
            let sentence = match (significant, agrees) {
                (true, true) => format!(
                    "The candidate is significantly better: its mean score is higher by {difference} and the signed ranks agree (p_improvement {} < alpha {level}).",
                    p_value(overall.tails.p_improvement)
                ),
                (true, false) => format!(
                    "The ranks and the mean disagree: the signed ranks favour the candidate (p_improvement {} < alpha {level}) but the mean score difference is {difference}, so the improvement is not established.",
                    p_value(overall.tails.p_improvement)
                ),
                (false, _) => format!(
                    "The improvement is not significant: p_improvement {} is not below alpha {level} (Wilcoxon signed-rank, mean score difference {difference}).",
                    p_value(overall.tails.p_improvement)
                ),
            };
            (significant && agrees, proof, sentence)
        }
    };
    evidence(Criterion::ImprovementSignificant, pass, proof, sentence)
}

pub(super) fn regression_evidence(
    overall: &Analysis,
    strata: &[(Stratum, String)],
    alpha: Alpha,
) -> Finding {
    let level = crate::base::numbers::level(alpha.get());
    if strata.is_empty() {
        let pass = !alpha.rejects(overall.tails.p_regression);
        let proof = format!(
            "{} overall, not stratified ({})",
            compare("p_regression", overall.tails.p_regression, alpha),
            overall.detail
        );
        let sentence = if pass {
            format!(
                "No significant regression overall (p_regression {}); the pairs are not stratified.",
                p_value(overall.tails.p_regression)
            )
        } else {
            format!(
                "The candidate regressed significantly overall: p_regression {} < alpha {level}.",
                p_value(overall.tails.p_regression)
            )
        };
        return evidence(Criterion::NoStratumRegressed, pass, proof, sentence);
    }
    let failing: Vec<&(Stratum, String)> = strata
        .iter()
        .filter(|(s, _)| s.significant_regression)
        .collect();
    if failing.is_empty() {
        let (weakest, detail) = strata
            .iter()
            .min_by(|x, y| x.0.tails.p_regression.total_cmp(&y.0.tails.p_regression))
            .expect("strata is not empty here");
        let proof = format!(
            "smallest {} on {} ({detail}), across {} {} of {}",
            compare("p_regression", weakest.tails.p_regression, alpha),
            label(weakest),
            strata.len(),
            if strata.len() == 1 {
                "stratum"
            } else {
                "strata"
            },
            weakest.name
        );
        let sentence = format!(
            "No {} regressed significantly: the smallest p_regression is {} ({}).",
            weakest.name,
            p_value(weakest.tails.p_regression),
            label(weakest)
        );
        return evidence(Criterion::NoStratumRegressed, true, proof, sentence);
    }
    let proof = failing
        .iter()
        .map(|(s, detail)| {
            format!(
                "{} on {} ({detail})",
                compare("p_regression", s.tails.p_regression, alpha),
                label(s)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let sentence = failing
        .iter()
        .map(|(s, _)| {
            format!(
                "The candidate regressed significantly on {}: p_regression {} < alpha {level} ({}).",
                label(s),
                p_value(s.tails.p_regression),
                in_metric(s)
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    evidence(Criterion::NoStratumRegressed, false, proof, sentence)
}

/// A stratum's arms in the metric of the test that ran: `proportion correct 0.5882
/// against the baseline's 0.8235: right on 20 of 34 against 28` (McNemar), or `mean
/// score 0.61 against the baseline's 0.7` (signed-rank).
fn in_metric(stratum: &Stratum) -> String {
    match (stratum.baseline_correct, stratum.candidate_correct) {
        (Some(b), Some(c)) if stratum.n > 0 => {
            let n = stratum.n as f64;
            format!(
                "proportion correct {} against the baseline's {}: right on {c} of {} against {b}",
                signed(c as f64 / n),
                signed(b as f64 / n),
                stratum.n
            )
        }
        _ => format!(
            "mean score {} against the baseline's {}",
            signed(stratum.candidate_mean),
            signed(stratum.baseline_mean)
        ),
    }
}
