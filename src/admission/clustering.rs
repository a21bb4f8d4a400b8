//! The cluster view inside an admission: whenever the pairs carry a `group`, their
//! per-cluster mean differences are tested and the design effect reported; with
//! `--cluster group` that cluster test is an admission criterion, so the decision rests
//! on independent units (papers), not on their correlated tasks.

use serde::Serialize;

use super::sufficient::Statistics;
use super::{Check, Criterion, Finding, TestMethod};
use crate::alpha::Alpha;
use crate::stats::cluster::{DESIGN_EFFECT_WARNING, cluster_view_of_sums};
use crate::stats::power::min_detectable_shift;
use crate::stats::signed_rank::Method;
use crate::stats::tails::OneSided;

/// What the clusters show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterSummary {
    /// The column the clusters come from (`group`).
    pub column: String,
    /// Number of clusters.
    pub clusters: usize,
    /// Whether the admission decision rests on the clusters (`--cluster`).
    pub decides: bool,
    /// The exact signed-rank test on cluster mean differences: its one-sided p-values
    /// and their log10s, written as `p_improvement`, `p_regression`,
    /// `log10_p_improvement`, `log10_p_regression`.
    #[serde(flatten)]
    pub tails: OneSided,
    /// `exact` or `saddlepoint`.
    pub method: TestMethod,
    /// The design effect: the variance of the mean difference when tasks of one group
    /// move together (cluster-robust) over its variance if every task were independent
    /// (naive). Above 1 the task-level test overstates the evidence; absent when the
    /// differences do not vary.
    pub design_effect: Option<f64>,
    /// The smallest shift any result on this many clusters could show.
    pub min_detectable_shift: Option<f64>,
    /// Set when the design effect exceeds 1.5 and the decision is task-level.
    pub warning: Option<String>,
}

/// The cluster summary, when every pair has a group: from each cluster's size and
/// difference sum and the squares of all differences.
pub(crate) fn summarise(summary: &Statistics, decides: bool, alpha: f64) -> Option<ClusterSummary> {
    let clusters = summary.clusters.as_ref().filter(|c| !c.is_empty())?;
    let sums: Vec<(u64, i64)> = clusters
        .iter()
        .map(|c| (c.n, c.difference_micros))
        .collect();
    let view = cluster_view_of_sums(&sums, summary.overall.square_micros());
    let warning = view.design_effect.filter(|&d| d > DESIGN_EFFECT_WARNING && !decides).map(|d| {
        format!(
            "tasks of one group move together (design effect {d:.2} > {DESIGN_EFFECT_WARNING}): the task-level p-value overstates the evidence; rerun with --cluster group"
        )
    });
    Some(ClusterSummary {
        column: "group".to_string(),
        clusters: view.clusters,
        decides,
        tails: view.test.tails.one_sided(),
        method: match view.test.method {
            Method::Exact => TestMethod::Exact,
            Method::Saddlepoint => TestMethod::Saddlepoint,
        },
        design_effect: view.design_effect,
        min_detectable_shift: min_detectable_shift(view.clusters as u64, alpha),
        warning,
    })
}

/// The clustered-improvement criterion (only with `--cluster`).
pub(crate) fn evidence(
    summary: Option<&ClusterSummary>,
    mean_difference: f64,
    level: Alpha,
) -> Finding {
    let alpha = level.get();
    let Some(summary) = summary else {
        let proof =
            "no group on every pair: --cluster needs a `group` column in the scores".to_string();
        return Finding {
            criterion: Criterion::ClusteredImprovementSignificant,
            result: Check::Fail,
            sentence: proof.clone(),
            proof,
        };
    };
    let p = summary.tails.p_improvement;
    let significant = level.rejects(p);
    let pass = significant && mean_difference > 0.0;
    let proof = format!(
        "p_improvement {} {} alpha {} (signed-rank on {} cluster mean differences, {})",
        crate::base::numbers::p_value(p),
        if significant { "<" } else { "≥" },
        crate::base::numbers::level(alpha),
        summary.clusters,
        if summary.method == TestMethod::Exact {
            "exact"
        } else {
            "saddlepoint approximation"
        }
    );
    let sentence = if pass {
        format!("Clustered by group, the improvement holds: {proof}.")
    } else {
        format!("Clustered by group, the improvement is not significant: {proof}.")
    };
    Finding {
        criterion: Criterion::ClusteredImprovementSignificant,
        result: if pass { Check::Pass } else { Check::Fail },
        proof,
        sentence,
    }
}
