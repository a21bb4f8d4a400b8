//! The cluster view of paired differences. Tasks of one group (the four facts of one
//! paper) are answered from the same memory and are not independent; this module
//! collapses them to one mean difference per cluster, tests those with the exact
//! signed-rank test (exact conditional on ties, so for ±1/0 cluster means it is the
//! exact sign test on clusters), and measures how much clustering inflates the
//! variance of the task-level mean difference (the design effect).

use super::signed_rank::{SignedRank, ZeroMethod, signed_rank};

/// The cluster-level result.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ClusterView {
    /// Number of clusters.
    pub clusters: usize,
    /// Each cluster's mean difference, in cluster-name order.
    pub cluster_means: Vec<f64>,
    /// The signed-rank test on the cluster means (Wilcox zeros).
    pub test: SignedRank,
    /// Cluster-robust variance of the mean difference over the naive one, absent when
    /// the differences do not vary.
    pub design_effect: Option<f64>,
}

/// A design effect above this makes the task-level p-value untrustworthy (warned).
pub(crate) const DESIGN_EFFECT_WARNING: f64 = 1.5;

/// Collapses `(cluster, difference)` pairs to clusters and tests them.
///
/// Design effect = Σ_g (Σ_{i∈g} e_i)² / Σ_i e_i², e_i = d_i − d̄: the ratio of the
/// cluster-robust (CR0, Liang–Zeger 1986) variance of the mean to the variance that
/// treats every task as independent, both without small-sample factors. It is 1 for
/// clusters of one and up to the cluster size when a cluster's tasks move together.
/// Pairs that are not finite are left out. Time: O(n) when each cluster's pairs come
/// together and the clusters in name order (pairs sorted by a task id that starts
/// with its cluster), O(n log n) otherwise, plus the signed-rank test on the clusters;
/// memory: 12 bytes per pair.
#[cfg(test)]
pub(crate) fn cluster_view<'a>(pairs: impl Iterator<Item = (&'a str, f64)>) -> ClusterView {
    let mut differences = Vec::with_capacity(pairs.size_hint().0);
    let finite = pairs.filter(|(_, d)| d.is_finite()).map(|(cluster, d)| {
        differences.push(d);
        cluster
    });
    let (names, runs, sorted) = clusters_of(finite);
    // Sums run in pair order within each cluster, as they always have.
    let mut sums = vec![(0.0_f64, 0_usize); names.len()];
    for (at, run) in each_run(&runs, &differences) {
        for &difference in run {
            sums[at].0 += difference;
        }
        sums[at].1 += run.len();
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    // Clusters met in name order (pairs sorted by task) are in order already.
    if !sorted {
        order.sort_unstable_by_key(|&at| names[at]);
    }
    let cluster_means: Vec<f64> = order
        .iter()
        .map(|&at| sums[at].0 / sums[at].1 as f64)
        .collect();
    let test = signed_rank(&cluster_means, ZeroMethod::Wilcox);
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n.max(1.0);
    let naive: f64 = differences.iter().map(|d| (d - mean).powi(2)).sum();
    let mut residual_sums = vec![0.0_f64; names.len()];
    for (at, run) in each_run(&runs, &differences) {
        for &difference in run {
            residual_sums[at] += difference - mean;
        }
    }
    let robust: f64 = order
        .iter()
        .map(|&at| residual_sums[at] * residual_sums[at])
        .sum();
    let design_effect = (naive > 1e-12)
        .then(|| robust / naive)
        .filter(|d| d.is_finite());
    ClusterView {
        clusters: names.len(),
        cluster_means,
        test,
        design_effect,
    }
}

/// The cluster view from sufficient statistics: each cluster's (pairs, Σd) with d in
/// micro-units (10^-6 of a score), in cluster-name order, and Σd² over all pairs.
///
/// The same view as [`cluster_view`] on those pairs, computed from sums: the cluster
/// means are Σd/n; with D = Σd and N pairs, the naive squares are (N·Σd² − D²)/N and
/// the robust ones Σ_g (N·S_g − n_g·D)²/N², each bracket summed exactly in whole
/// numbers. Time: O(clusters) plus the signed-rank test on them.
pub(crate) fn cluster_view_of_sums(clusters: &[(u64, i64)], square_micros: u128) -> ClusterView {
    let scale = 1e6;
    let cluster_means: Vec<f64> = clusters
        .iter()
        .map(|&(n, sum)| sum as f64 / (n as f64 * scale))
        .collect();
    let test = signed_rank(&cluster_means, ZeroMethod::Wilcox);
    let pairs: i128 = clusters.iter().map(|&(n, _)| i128::from(n)).sum();
    let total: i128 = clusters.iter().map(|&(_, sum)| i128::from(sum)).sum();
    let count = pairs.max(1) as f64;
    let deviations = (pairs * square_micros as i128 - total * total).max(0);
    let naive = deviations as f64 / count / (scale * scale);
    let robust: f64 = clusters
        .iter()
        .map(|&(n, sum)| {
            let bracket = (pairs * i128::from(sum) - i128::from(n) * total) as f64;
            bracket * bracket
        })
        .sum::<f64>()
        / (count * count)
        / (scale * scale);
    let design_effect = (naive > 1e-12)
        .then(|| robust / naive)
        .filter(|d| d.is_finite());
    ClusterView {
        clusters: clusters.len(),
        cluster_means,
        test,
        design_effect,
    }
}

/// Each run of [`clusters_of`] as its cluster and its differences, in pair order.
#[cfg(test)]
fn each_run<'a>(
    runs: &'a [(u32, u32)],
    differences: &'a [f64],
) -> impl Iterator<Item = (usize, &'a [f64])> {
    let mut from = 0;
    runs.iter().map(move |&(at, length)| {
        let run = &differences[from..from + length as usize];
        from += length as usize;
        (at as usize, run)
    })
}

/// The clusters, as indexes into the cluster names (numbered in order of first
/// appearance; the names are put in name order afterwards, so no hash order reaches a
/// result), one for each run of pairs of one cluster, with the run's length, and
/// whether the names came in name order. While every new cluster sorts after the one
/// before, no name is looked up.
#[cfg(test)]
fn clusters_of<'a>(
    clusters: impl Iterator<Item = &'a str>,
) -> (Vec<&'a str>, Vec<(u32, u32)>, bool) {
    let mut names: Vec<&str> = Vec::new();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    let mut index: Option<crate::base::hash::FastMap<&str, u32>> = None;
    for cluster in clusters {
        // The run goes on while the cluster is the run's own (the same `&str`, or equal).
        let same = |name: &str| std::ptr::eq(name, cluster) || name == cluster;
        if let Some(run) = runs.last_mut()
            && run.1 < u32::MAX
            && same(names[run.0 as usize])
        {
            run.1 += 1;
            continue;
        }
        let in_order = index.is_none() && names.last().is_none_or(|&n| n < cluster);
        let at = if in_order {
            names.push(cluster);
            (names.len() - 1) as u32
        } else {
            // The names so far are distinct: each sorted after the one before.
            let index = index.get_or_insert_with(|| {
                names
                    .iter()
                    .enumerate()
                    .map(|(at, &name)| (name, at as u32))
                    .collect()
            });
            *index.entry(cluster).or_insert_with(|| {
                names.push(cluster);
                (names.len() - 1) as u32
            })
        };
        runs.push((at, 1));
    }
    let sorted = index.is_none();
    (names, runs, sorted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alpha::Alpha;
    use crate::base::random::Random;
    use crate::stats::mcnemar::mcnemar_exact;

    /// P(W+ ≥ observed) by enumerating all 2^G sign assignments of |means| with
    /// midranks (the exact conditional null, written naively).
    fn enumerate_improvement(means: &[f64]) -> f64 {
        let nonzero: Vec<f64> = means.iter().copied().filter(|m| m.abs() > 1e-9).collect();
        let g = nonzero.len();
        let mut order: Vec<usize> = (0..g).collect();
        order.sort_by(|&a, &b| nonzero[a].abs().total_cmp(&nonzero[b].abs()));
        let mut ranks = vec![0.0; g];
        let mut i = 0;
        while i < g {
            let mut j = i;
            while j + 1 < g && (nonzero[order[j + 1]].abs() - nonzero[order[i]].abs()) <= 1e-9 {
                j += 1;
            }
            for k in i..=j {
                ranks[order[k]] = (i + j) as f64 / 2.0 + 1.0;
            }
            i = j + 1;
        }
        let observed: f64 = (0..g).filter(|&k| nonzero[k] > 0.0).map(|k| ranks[k]).sum();
        let hits = (0u32..1 << g)
            .filter(|mask| {
                (0..g)
                    .filter(|&k| mask >> k & 1 == 1)
                    .map(|k| ranks[k])
                    .sum::<f64>()
                    >= observed - 1e-9
            })
            .count();
        hits as f64 / f64::from(1u32 << g)
    }

    #[test]
    fn the_cluster_test_matches_full_enumeration_up_to_16_clusters() {
        let mut stream = Random::keyed(8);
        for clusters in 1..=16usize {
            for _ in 0..4 {
                let mut pairs = Vec::new();
                let names: Vec<String> = (0..clusters).map(|c| format!("p{c:02}")).collect();
                for name in &names {
                    for _ in 0..4 {
                        let d = [-1.0, 0.0, 0.0, 1.0, 0.5][stream.below(5) as usize];
                        pairs.push((name.as_str(), d));
                    }
                }
                let view = cluster_view(pairs.iter().copied());
                assert_eq!(view.clusters, clusters);
                let expected = enumerate_improvement(&view.cluster_means);
                assert!(
                    (view.test.tails.p_improvement - expected).abs() < 1e-12,
                    "{clusters} clusters: {} vs {expected}",
                    view.test.tails.p_improvement
                );
            }
        }
    }

    #[test]
    fn clusters_give_one_view_whether_they_come_sorted_together_or_scattered() {
        // Quarter-valued differences with mean 0.25, so every sum is exact in any order.
        let sorted: Vec<(&str, f64)> = vec![
            ("a", 0.25),
            ("a", -0.5),
            ("b", 1.0),
            ("c", 0.0),
            ("c", 0.75),
            ("d", 0.0),
        ];
        let scattered = [5, 2, 0, 3, 1, 4].map(|i| sorted[i]);
        let interleaved = [0, 2, 1, 3, 5, 4].map(|i| sorted[i]);
        let expected = cluster_view(sorted.iter().copied());
        assert_eq!(expected.clusters, 4);
        assert_eq!(expected.cluster_means, [-0.125, 1.0, 0.375, 0.0]);
        for other in [&scattered[..], &interleaved[..]] {
            assert_eq!(cluster_view(other.iter().copied()), expected);
        }
        let (names, runs, in_order) = clusters_of(interleaved.iter().map(|p| p.0));
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(runs, [(0, 1), (1, 1), (0, 1), (2, 1), (3, 1), (2, 1)]);
        assert!(!in_order);
        let (names, runs, in_order) = clusters_of(scattered.iter().map(|p| p.0));
        assert_eq!(names, ["d", "b", "a", "c"]);
        assert_eq!(runs, [(0, 1), (1, 1), (2, 1), (3, 1), (2, 1), (3, 1)]);
        assert!(!in_order);
        let (names, runs, in_order) = clusters_of(sorted.iter().map(|p| p.0));
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(runs, [(0, 2), (1, 1), (2, 2), (3, 1)]);
        assert!(in_order);
    }

    #[test]
    fn design_effect_is_one_for_singletons_and_the_cluster_size_for_identical_tasks() {
        let singles = [("a", 1.0), ("b", 0.0), ("c", -1.0), ("d", 1.0)];
        assert!((cluster_view(singles.iter().copied()).design_effect.unwrap() - 1.0).abs() < 1e-12);
        let moved_together: Vec<(&str, f64)> = ["a", "b", "c", "d"]
            .iter()
            .zip([1.0, -1.0, 1.0, 0.0])
            .flat_map(|(c, d)| std::iter::repeat_n((*c, d), 4))
            .collect();
        assert!(
            (cluster_view(moved_together.iter().copied())
                .design_effect
                .unwrap()
                - 4.0)
                .abs()
                < 1e-12
        );
        assert_eq!(
            cluster_view([("a", 0.5), ("b", 0.5)].into_iter()).design_effect,
            None
        );
    }

    /// Under the null, papers whose four tasks share one coin flip: the task-level
    /// McNemar test admits far more often than alpha, the cluster test does not.
    #[test]
    fn under_clustered_null_task_level_over_admits_and_cluster_level_holds_alpha() {
        let (runs, papers, alpha) = (1_000, 34, 0.05);
        let level = Alpha::new(alpha).unwrap();
        let mut stream = Random::keyed(2026);
        let (mut task_level, mut cluster_level) = (0, 0);
        for _ in 0..runs {
            let mut pairs = Vec::new();
            let names: Vec<String> = (0..papers).map(|p| format!("p{p}")).collect();
            let (mut b, mut c) = (0, 0);
            for name in &names {
                // With probability 1/2 the paper is discordant; a fair coin picks the
                // side, for all four of its tasks at once.
                let d = match stream.below(4) {
                    0 => -1.0,
                    1 => 1.0,
                    _ => 0.0,
                };
                for _ in 0..4 {
                    pairs.push((name.as_str(), d));
                    if d > 0.0 {
                        c += 1;
                    } else if d < 0.0 {
                        b += 1;
                    }
                }
            }
            task_level += usize::from(level.rejects(mcnemar_exact(b, c).tails.p_improvement));
            cluster_level += usize::from(
                level.rejects(cluster_view(pairs.iter().copied()).test.tails.p_improvement),
            );
        }
        let (task_rate, cluster_rate) = (
            task_level as f64 / runs as f64,
            cluster_level as f64 / runs as f64,
        );
        assert!(
            task_rate > 2.0 * alpha,
            "task-level false admissions {task_rate}"
        );
        assert!(
            cluster_rate <= alpha,
            "cluster-level false admissions {cluster_rate}"
        );
    }
}
