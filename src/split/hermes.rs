//! Exact reconstructions of the splits that the reference Python pipeline ("hermes")
//! built, so that a past run's holdout can be identified and audited. Both versions are
//! here: the current one, which partitions papers before sampling tasks, and the earlier
//! one, which sampled tasks directly and so could put one paper in every split.

use super::mt19937::CpythonRandom;

/// The task kinds in the reference pipeline's order, as (reference name, evogate name).
/// The order matters: it is the order in which each paper's tasks enter a pool.
pub(crate) const REFERENCE_KINDS: [(&str, &str); 4] = [
    ("arxiv-id", "id"),
    ("title", "title"),
    ("first-author", "first_author"),
    ("year", "year"),
];

/// The fewest cases either version accepts: one task per split.
pub(crate) const MIN_CASES: usize = 3;

/// Which version of the reference pipeline's split to rebuild (`split --compat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Compat {
    /// The current version: papers are partitioned first ([`hermes_split`]).
    Hermes,
    /// The earlier version, which leaked papers across splits ([`hermes_v1_split`]).
    HermesV1,
}

impl Compat {
    /// The name used on the command line and in manifests: `hermes` or `hermes-v1`.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Hermes => "hermes",
            Compat::HermesV1 => "hermes-v1",
        }
    }

    /// Rebuilds this version's split of `paper_ids` (in ground-truth file order).
    pub fn split(
        self,
        paper_ids: &[String],
        seed: u64,
        cases: usize,
    ) -> Result<HermesSplit, HermesError> {
        match self {
            Compat::Hermes => hermes_split(paper_ids, seed, cases),
            Compat::HermesV1 => hermes_v1_split(paper_ids, seed, cases),
        }
    }
}

/// A rebuilt split. Each task is (paper arXiv ID, evogate kind name), in the order the
/// reference pipeline listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HermesSplit {
    /// Training tasks.
    pub train: Vec<(String, String)>,
    /// Validation tasks.
    pub validation: Vec<(String, String)>,
    /// Holdout tasks.
    pub holdout: Vec<(String, String)>,
    /// Papers assigned to train: the group partition for [`Compat::Hermes`] (a paper can
    /// be here and give no task), the distinct papers of `train` in first-appearance
    /// order for [`Compat::HermesV1`].
    pub train_groups: Vec<String>,
    /// Papers assigned to validation, as for `train_groups`.
    pub validation_groups: Vec<String>,
    /// Papers assigned to the holdout, as for `train_groups`.
    pub holdout_groups: Vec<String>,
}

impl HermesSplit {
    /// Papers whose tasks appear in more than one split, sorted: empty for
    /// [`Compat::Hermes`], the leak for [`Compat::HermesV1`].
    pub fn shared_papers(&self) -> Vec<String> {
        let mut seen: std::collections::BTreeMap<&str, usize> = Default::default();
        for split in [&self.train, &self.validation, &self.holdout] {
            let mut papers: Vec<&str> = split.iter().map(|(paper, _)| paper.as_str()).collect();
            papers.sort_unstable();
            papers.dedup();
            for paper in papers {
                *seen.entry(paper).or_default() += 1;
            }
        }
        seen.into_iter()
            .filter(|&(_, splits)| splits > 1)
            .map(|(paper, _)| paper.to_string())
            .collect()
    }
}

/// Why a reference split cannot be rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HermesError {
    /// Fewer than [`MIN_CASES`] cases were asked for.
    #[error(
        "the reference split needs at least {MIN_CASES} cases (one per split), got {cases}; \
         ask for 3 or more (the reference pipeline's default was 24)"
    )]
    TooFewCases {
        /// The number asked for.
        cases: usize,
    },
    /// The ground truth has too few papers for this version.
    #[error(
        "the {compat} split needs at least {needed} papers, the ground truth has {papers}; \
         add papers to the ground truth"
    )]
    TooFewPapers {
        /// [`Compat::name`] of the version asked for.
        compat: &'static str,
        /// Papers in the ground truth.
        papers: usize,
        /// Papers the version needs.
        needed: usize,
    },
    /// A paper ID appears twice, which would make its tasks duplicates.
    #[error(
        "paper `{id}` appears more than once in the ground truth; \
         keep one row per paper and rebuild the split"
    )]
    DuplicatePaper {
        /// The repeated arXiv ID.
        id: String,
    },
}

/// Rebuilds the current reference split (hermes-split.md, steps 1–7).
///
/// With P papers: `Random(seed)` shuffles the paper IDs; train takes the first
/// max(1, ⌊P/2⌋) papers, validation the next max(1, ⌊P/4⌋), the holdout the rest. Each
/// group's (paper, kind) pool, papers in shuffled order and kinds in
/// [`REFERENCE_KINDS`] order, is shuffled by the same generator. Of total = min(cases,
/// 4P) tasks, train takes max(1, ⌊total/2⌋), validation max(1, ⌊total/4⌋), holdout the
/// rest, each capped at its pool, shortfalls handed out round-robin; each split is the
/// head of its pool.
///
/// Refuses fewer than 3 cases, fewer than 3 papers (the reference would silently leave
/// a split without papers) and repeated paper IDs. Time: O(P).
pub(crate) fn hermes_split(
    paper_ids: &[String],
    seed: u64,
    cases: usize,
) -> Result<HermesSplit, HermesError> {
    check_request(Compat::Hermes, paper_ids, cases, 3)?;
    let mut rng = CpythonRandom::new(seed);
    let mut papers = paper_ids.to_vec();
    rng.shuffle(&mut papers);
    let n_papers = papers.len();
    let holdout_groups = papers.split_off((n_papers / 2).max(1) + (n_papers / 4).max(1));
    let validation_groups = papers.split_off((n_papers / 2).max(1));
    let train_groups = papers;

    // The pools are shuffled in this order from one stream, so the order is part of
    // the algorithm.
    let mut pools = Vec::with_capacity(3);
    for groups in [&train_groups, &validation_groups, &holdout_groups] {
        let mut pool = tasks_of(groups.iter());
        rng.shuffle(&mut pool);
        pools.push(pool);
    }

    let total = cases.min(n_papers.saturating_mul(REFERENCE_KINDS.len()));
    let train_target = (total / 2).max(1);
    let validation_target = (total / 4).max(1);
    let targets = [
        train_target,
        validation_target,
        total.saturating_sub(train_target + validation_target),
    ];
    let mut counts: Vec<usize> = targets
        .iter()
        .zip(&pools)
        .map(|(&target, pool)| target.min(pool.len()))
        .collect();
    let mut assigned: usize = counts.iter().sum();
    while assigned < total {
        let mut grew = false;
        for (count, pool) in counts.iter_mut().zip(&pools) {
            if assigned < total && *count < pool.len() {
                *count += 1;
                assigned += 1;
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    for (pool, &count) in pools.iter_mut().zip(&counts) {
        pool.truncate(count);
    }
    let [train, validation, holdout]: [Vec<(String, String)>; 3] = pools
        .try_into()
        .expect("exactly three pools were pushed above");
    Ok(HermesSplit {
        train,
        validation,
        holdout,
        train_groups,
        validation_groups,
        holdout_groups,
    })
}

/// Rebuilds the earlier, leaking reference split.
///
/// `Random(seed)` shuffles all 4P tasks (papers in file order, kinds in
/// [`REFERENCE_KINDS`] order); the first n = min(cases, 4P) are kept and cut into
/// train max(1, ⌊n/2⌋), validation max(1, ⌊n/4⌋) and holdout the rest, with no regard
/// for papers. The `*_groups` fields list each split's distinct papers in
/// first-appearance order.
///
/// Refuses fewer than 3 cases, an empty ground truth and repeated paper IDs. Time: O(P).
pub(crate) fn hermes_v1_split(
    paper_ids: &[String],
    seed: u64,
    cases: usize,
) -> Result<HermesSplit, HermesError> {
    check_request(Compat::HermesV1, paper_ids, cases, 1)?;
    let mut rng = CpythonRandom::new(seed);
    let mut tasks = tasks_of(paper_ids.iter());
    rng.shuffle(&mut tasks);
    tasks.truncate(cases);
    let n = tasks.len();
    let holdout = tasks.split_off((n / 2).max(1) + (n / 4).max(1));
    let validation = tasks.split_off((n / 2).max(1));
    let train = tasks;
    Ok(HermesSplit {
        train_groups: papers_in(&train),
        validation_groups: papers_in(&validation),
        holdout_groups: papers_in(&holdout),
        train,
        validation,
        holdout,
    })
}

/// Refuses what neither version can rebuild. With at least one paper and 3 cases,
/// n ≥ 3 tasks, so every split cut below is in range and non-empty.
fn check_request(
    compat: Compat,
    paper_ids: &[String],
    cases: usize,
    needed: usize,
) -> Result<(), HermesError> {
    if cases < MIN_CASES {
        return Err(HermesError::TooFewCases { cases });
    }
    if paper_ids.len() < needed {
        return Err(HermesError::TooFewPapers {
            compat: compat.name(),
            papers: paper_ids.len(),
            needed,
        });
    }
    let mut sorted: Vec<&String> = paper_ids.iter().collect();
    sorted.sort_unstable();
    if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
        return Err(HermesError::DuplicatePaper {
            id: pair[0].clone(),
        });
    }
    Ok(())
}

/// Every (paper, kind) of `papers`, paper-major, kinds in reference order.
fn tasks_of<'a>(papers: impl Iterator<Item = &'a String>) -> Vec<(String, String)> {
    papers
        .flat_map(|paper| {
            REFERENCE_KINDS
                .iter()
                .map(move |(_, kind)| (paper.clone(), (*kind).to_string()))
        })
        .collect()
}

/// The distinct papers of `tasks` in first-appearance order.
fn papers_in(tasks: &[(String, String)]) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    tasks
        .iter()
        .filter(|(paper, _)| seen.insert(paper.as_str()))
        .map(|(paper, _)| paper.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// The 17 arXiv IDs of ../shared/reference/papers-17.csv, in file order.
    const PAPERS_17: [&str; 17] = [
        "1301.3781",
        "1406.2661",
        "1412.6980",
        "1503.02531",
        "1512.03385",
        "1706.03762",
        "1810.04805",
        "2005.14165",
        "2006.11239",
        "2010.11929",
        "2103.00020",
        "2106.09685",
        "2201.11903",
        "2203.02155",
        "2310.03714",
        "2402.03300",
        "2507.19457",
    ];

    fn papers(count: usize) -> Vec<String> {
        PAPERS_17[..count].iter().map(|id| id.to_string()).collect()
    }

    fn task_names(tasks: &[(String, String)]) -> Vec<String> {
        tasks
            .iter()
            .map(|(paper, kind)| format!("{paper}:{kind}"))
            .collect()
    }

    fn names(expected: &[&str]) -> Vec<String> {
        expected.iter().map(|name| name.to_string()).collect()
    }

    /// SHA-256 of lines `<split> <paper>:<kind>\n`, train then validation then holdout,
    /// in split order: the same listing the Python reimplementation hashed.
    fn listing_sha256(split: &HermesSplit) -> String {
        let mut hasher = Sha256::new();
        for (name, tasks) in [
            ("train", &split.train),
            ("validation", &split.validation),
            ("holdout", &split.holdout),
        ] {
            for (paper, kind) in tasks {
                hasher.update(format!("{name} {paper}:{kind}\n").as_bytes());
            }
        }
        format!("{:x}", hasher.finalize())
    }

    fn sizes(split: &HermesSplit) -> [usize; 3] {
        [
            split.train.len(),
            split.validation.len(),
            split.holdout.len(),
        ]
    }

    fn ends(split: &HermesSplit) -> Vec<String> {
        let mut out = Vec::new();
        for tasks in [&split.train, &split.validation, &split.holdout] {
            let listed = task_names(tasks);
            out.push(listed.first().cloned().unwrap_or_default());
            out.push(listed.last().cloned().unwrap_or_default());
        }
        out
    }

    #[test]
    fn rebuilds_the_reference_test_vector_at_seed_13_with_24_cases() {
        // The test vector of ../shared/reference/hermes-split.md, kinds renamed to
        // evogate's (`first author` is `first_author`).
        let split = hermes_split(&papers(17), 13, 24).expect("24 cases of 17 papers");
        assert_eq!(
            split.train_groups,
            names(&[
                "2005.14165",
                "2507.19457",
                "1301.3781",
                "1512.03385",
                "1406.2661",
                "1810.04805",
                "1706.03762",
                "2402.03300",
            ])
        );
        assert_eq!(
            split.validation_groups,
            names(&["2106.09685", "1503.02531", "2203.02155", "1412.6980"])
        );
        assert_eq!(
            split.holdout_groups,
            names(&[
                "2201.11903",
                "2310.03714",
                "2103.00020",
                "2010.11929",
                "2006.11239"
            ])
        );
        assert_eq!(
            task_names(&split.train),
            names(&[
                "1406.2661:title",
                "2005.14165:title",
                "1706.03762:title",
                "1512.03385:id",
                "1706.03762:id",
                "1706.03762:year",
                "1512.03385:year",
                "1301.3781:first_author",
                "2507.19457:title",
                "2507.19457:first_author",
                "1301.3781:title",
                "1406.2661:id",
            ])
        );
        assert_eq!(
            task_names(&split.validation),
            names(&[
                "2106.09685:id",
                "2106.09685:year",
                "1503.02531:id",
                "1503.02531:first_author",
                "1503.02531:title",
                "2106.09685:title",
            ])
        );
        assert_eq!(
            task_names(&split.holdout),
            names(&[
                "2201.11903:first_author",
                "2010.11929:title",
                "2310.03714:first_author",
                "2010.11929:year",
                "2006.11239:id",
                "2201.11903:id",
            ])
        );
        assert!(split.shared_papers().is_empty());
    }

    #[test]
    fn v1_at_seed_13_with_24_cases_puts_1810_04805_in_all_three_splits() {
        let split = hermes_v1_split(&papers(17), 13, 24).expect("24 cases of 17 papers");
        let paper = "1810.04805".to_string();
        assert!(split.train_groups.contains(&paper));
        assert!(split.validation_groups.contains(&paper));
        assert!(split.holdout_groups.contains(&paper));
        assert!(split.shared_papers().contains(&paper));
        // Python 3.11.7, a reimplementation of hermes-split.md's earlier version on
        // CPython's random.Random (script in /tmp, not part of the project):
        // v1(papers-17 ids, seed=13, cases=24), each split and its groups.
        let expected_tasks: [&[&str]; 3] = [
            &[
                "1810.04805:first_author",
                "2201.11903:first_author",
                "2106.09685:title",
                "2203.02155:title",
                "1406.2661:first_author",
                "2203.02155:id",
                "1503.02531:id",
                "1406.2661:year",
                "2507.19457:id",
                "2507.19457:first_author",
                "1503.02531:year",
                "2006.11239:id",
            ],
            &[
                "1301.3781:first_author",
                "2402.03300:first_author",
                "2201.11903:year",
                "2103.00020:first_author",
                "1810.04805:id",
                "1706.03762:title",
            ],
            &[
                "2310.03714:id",
                "1810.04805:title",
                "2106.09685:id",
                "2006.11239:year",
                "2010.11929:id",
                "2310.03714:year",
            ],
        ];
        let expected_groups: [&[&str]; 3] = [
            &[
                "1810.04805",
                "2201.11903",
                "2106.09685",
                "2203.02155",
                "1406.2661",
                "1503.02531",
                "2507.19457",
                "2006.11239",
            ],
            &[
                "1301.3781",
                "2402.03300",
                "2201.11903",
                "2103.00020",
                "1810.04805",
                "1706.03762",
            ],
            &[
                "2310.03714",
                "1810.04805",
                "2106.09685",
                "2006.11239",
                "2010.11929",
            ],
        ];
        assert_eq!(task_names(&split.train), names(expected_tasks[0]));
        assert_eq!(task_names(&split.validation), names(expected_tasks[1]));
        assert_eq!(task_names(&split.holdout), names(expected_tasks[2]));
        assert_eq!(split.train_groups, names(expected_groups[0]));
        assert_eq!(split.validation_groups, names(expected_groups[1]));
        assert_eq!(split.holdout_groups, names(expected_groups[2]));
    }

    type Fingerprint17 = (u64, usize, [usize; 3], [&'static str; 6], &'static str);

    // Python 3.11.7 (CPython's real random.Random), running a reimplementation of
    // hermes-split.md written for this table (a /tmp script, not part of the project):
    // for seed in [1, 7, 99, 2026], cases in [3, 12, 40, 68, 100], on the 17 papers:
    // (seed, cases, split sizes, first and last task of train, validation, holdout,
    //  sha256 of the listing described at `listing_sha256`).
    #[rustfmt::skip]
    const HERMES_FINGERPRINTS_17: [Fingerprint17; 20] = [
        (1, 3, [1, 1, 1], ["2010.11929:id", "2010.11929:id", "2201.11903:first_author", "2201.11903:first_author", "1406.2661:title", "1406.2661:title"], "064ac23a7a146a2aadd3b4f6e2f413392131f0a0f1783d85393de14089b2285d"),
        (1, 12, [6, 3, 3], ["2010.11929:id", "2103.00020:title", "2201.11903:first_author", "2201.11903:id", "1406.2661:title", "2005.14165:title"], "6342fe3177ebf3d6eafa87ba1ab1bd395cdb3d02c57876b60da4294f9b44525f"),
        (1, 40, [20, 10, 10], ["2010.11929:id", "2010.11929:title", "2201.11903:first_author", "1810.04805:id", "1406.2661:title", "1406.2661:first_author"], "99e573670a37a0a6674f587744929885a2b177f6d28c0f1c8d45762bd4540a99"),
        (1, 68, [32, 16, 20], ["2010.11929:id", "2203.02155:id", "2201.11903:first_author", "2201.11903:title", "1406.2661:title", "2507.19457:title"], "345752926edd25711b4d5ccd4d01e655910e9ec3039c1354fba43b29f937d790"),
        (1, 100, [32, 16, 20], ["2010.11929:id", "2203.02155:id", "2201.11903:first_author", "2201.11903:title", "1406.2661:title", "2507.19457:title"], "345752926edd25711b4d5ccd4d01e655910e9ec3039c1354fba43b29f937d790"),
        (7, 3, [1, 1, 1], ["2402.03300:id", "2402.03300:id", "2006.11239:first_author", "2006.11239:first_author", "1301.3781:first_author", "1301.3781:first_author"], "d5018acff2166536c6b88ccb4b0289dac4e51e4a578fae0a198b1a67659244ff"),
        (7, 12, [6, 3, 3], ["2402.03300:id", "2203.02155:title", "2006.11239:first_author", "1406.2661:id", "1301.3781:first_author", "2507.19457:first_author"], "e73a2b575ebee4b329699b75de5388bd47867b082dbb525e7f7ee06c65d63bac"),
        (7, 40, [20, 10, 10], ["2402.03300:id", "2402.03300:first_author", "2006.11239:first_author", "1706.03762:id", "1301.3781:first_author", "2103.00020:id"], "8bff6d314bf3a9cdb07cee895b5329917d8480c40f4bc1fc74721d515f2297c9"),
        (7, 68, [32, 16, 20], ["2402.03300:id", "1412.6980:id", "2006.11239:first_author", "2006.11239:year", "1301.3781:first_author", "1810.04805:year"], "9d7d9e36ffc1d972c26440fd948b9e756d35ec6ae0019c1c57ba8477e075dad3"),
        (7, 100, [32, 16, 20], ["2402.03300:id", "1412.6980:id", "2006.11239:first_author", "2006.11239:year", "1301.3781:first_author", "1810.04805:year"], "9d7d9e36ffc1d972c26440fd948b9e756d35ec6ae0019c1c57ba8477e075dad3"),
        (99, 3, [1, 1, 1], ["1512.03385:first_author", "1512.03385:first_author", "2402.03300:id", "2402.03300:id", "1503.02531:year", "1503.02531:year"], "25c4d05c6be3d13993a88b6eb9e1094f6a1d511eab0611c62e5790947e4598da"),
        (99, 12, [6, 3, 3], ["1512.03385:first_author", "1301.3781:year", "2402.03300:id", "2106.09685:year", "1503.02531:year", "2201.11903:id"], "9c12faee5806de6d8752b14c79b7ee5c70118aa5d660a0be4b3dcbf994447f13"),
        (99, 40, [20, 10, 10], ["1512.03385:first_author", "1301.3781:first_author", "2402.03300:id", "2402.03300:year", "1503.02531:year", "1503.02531:id"], "2bcf54b65691fb8ed2da93d1e3cedbeb43988405761420c60467ac820e197cb4"),
        (99, 68, [32, 16, 20], ["1512.03385:first_author", "1301.3781:id", "2402.03300:id", "2310.03714:first_author", "1503.02531:year", "1412.6980:first_author"], "e2e99957065dc111003d0089edce934aa2511d44031d8b6e16aee4b39c1553fc"),
        (99, 100, [32, 16, 20], ["1512.03385:first_author", "1301.3781:id", "2402.03300:id", "2310.03714:first_author", "1503.02531:year", "1412.6980:first_author"], "e2e99957065dc111003d0089edce934aa2511d44031d8b6e16aee4b39c1553fc"),
        (2026, 3, [1, 1, 1], ["2005.14165:title", "2005.14165:title", "2203.02155:first_author", "2203.02155:first_author", "2006.11239:year", "2006.11239:year"], "3e362dc3792135e1b1a3210b92a5eb1775c7490d36e68f6e12ac37b5f24a8740"),
        (2026, 12, [6, 3, 3], ["2005.14165:title", "2201.11903:title", "2203.02155:first_author", "1406.2661:first_author", "2006.11239:year", "2402.03300:first_author"], "334b212af87699d95ac0d8868c0b414768288f6f5321f1dab4af6415b2d89488"),
        (2026, 40, [20, 10, 10], ["2005.14165:title", "2106.09685:first_author", "2203.02155:first_author", "2010.11929:year", "2006.11239:year", "2006.11239:first_author"], "60312ecdf37b805db7fe63dae230320070058a2d0760a89b5cbd4f8225eb5da3"),
        (2026, 68, [32, 16, 20], ["2005.14165:title", "2201.11903:year", "2203.02155:first_author", "2507.19457:title", "2006.11239:year", "1503.02531:id"], "1b90d461534bc194a7d42d88e17b58abc3ab1d17b7b8ee4a28fed3f389398c3f"),
        (2026, 100, [32, 16, 20], ["2005.14165:title", "2201.11903:year", "2203.02155:first_author", "2507.19457:title", "2006.11239:year", "1503.02531:id"], "1b90d461534bc194a7d42d88e17b58abc3ab1d17b7b8ee4a28fed3f389398c3f"),
    ];

    // As HERMES_FINGERPRINTS_17, for the earlier version.
    #[rustfmt::skip]
    const V1_FINGERPRINTS_17: [Fingerprint17; 20] = [
        (1, 3, [1, 1, 1], ["1512.03385:year", "1512.03385:year", "1512.03385:first_author", "1512.03385:first_author", "1706.03762:year", "1706.03762:year"], "ad57ffc3bb54450cfda563eb6ff3dba0827cf34eb7e9a58b0f881fa962add105"),
        (1, 12, [6, 3, 3], ["1512.03385:year", "2310.03714:year", "1301.3781:first_author", "2103.00020:first_author", "2507.19457:first_author", "2507.19457:title"], "50bb5b26625d3fd98a6eab945f02078ca6f47dbf4fead241b9c26eca2ba3ae0e"),
        (1, 40, [20, 10, 10], ["1512.03385:year", "2010.11929:id", "1412.6980:title", "2203.02155:first_author", "2006.11239:year", "2103.00020:id"], "66c48aa831589549c71ea1b00a4bcd7ebf056a438c3cd8f008dc34a79290f67f"),
        (1, 68, [34, 17, 17], ["1512.03385:year", "2201.11903:year", "2310.03714:id", "2010.11929:first_author", "1810.04805:year", "1512.03385:title"], "827e016cb35423639e787c682b0a0e088ca95650895488f8fac9d1d2989fecc8"),
        (1, 100, [34, 17, 17], ["1512.03385:year", "2201.11903:year", "2310.03714:id", "2010.11929:first_author", "1810.04805:year", "1512.03385:title"], "827e016cb35423639e787c682b0a0e088ca95650895488f8fac9d1d2989fecc8"),
        (7, 3, [1, 1, 1], ["1412.6980:first_author", "1412.6980:first_author", "2005.14165:first_author", "2005.14165:first_author", "1301.3781:title", "1301.3781:title"], "a102e79273439a61ff970ea44f0242cae41dfda21c518d1e521f228da05ef431"),
        (7, 12, [6, 3, 3], ["1412.6980:first_author", "2005.14165:title", "1810.04805:id", "2507.19457:first_author", "2310.03714:id", "1512.03385:id"], "c0e38c6ed15950bf75cb88bd739a5fedaf4ac85ce010078dc477d9d2b580e8a2"),
        (7, 40, [20, 10, 10], ["1412.6980:first_author", "1706.03762:id", "2201.11903:year", "2507.19457:title", "2203.02155:year", "2310.03714:first_author"], "5f38d019c5d4df8390a043980dcefe418be40336f5addcec4d38241650f9c780"),
        (7, 68, [34, 17, 17], ["1412.6980:first_author", "2203.02155:first_author", "2103.00020:first_author", "1406.2661:id", "1810.04805:first_author", "2103.00020:title"], "f5ede02c688145260e998302bb82361cd67a4e335e2d82a06f4385c95aa062e5"),
        (7, 100, [34, 17, 17], ["1412.6980:first_author", "2203.02155:first_author", "2103.00020:first_author", "1406.2661:id", "1810.04805:first_author", "2103.00020:title"], "f5ede02c688145260e998302bb82361cd67a4e335e2d82a06f4385c95aa062e5"),
        (99, 3, [1, 1, 1], ["1406.2661:id", "1406.2661:id", "2106.09685:title", "2106.09685:title", "2010.11929:first_author", "2010.11929:first_author"], "f66dca4b27e68f9afb705d59b633b2fcb8d383d365ef812ec71375d1eecf96da"),
        (99, 12, [6, 3, 3], ["1406.2661:id", "2006.11239:year", "2507.19457:title", "2201.11903:title", "1406.2661:year", "2507.19457:id"], "e2be92a2f787e864b14eaff31f4e385ef1bbb377448cffb4439e2462bf4630e5"),
        (99, 40, [20, 10, 10], ["1406.2661:id", "1503.02531:first_author", "1301.3781:first_author", "2402.03300:id", "1412.6980:first_author", "1412.6980:title"], "bd47e426d368946963adafbb24c4d58c9ac163f55231087177b0a87fccf98b0e"),
        (99, 68, [34, 17, 17], ["1406.2661:id", "2203.02155:year", "2507.19457:year", "2010.11929:year", "2310.03714:year", "2201.11903:year"], "36f22ec92065d1e6ab18c5eaa20eda7e33100a1ca64b868924aa11e8b8ffd26d"),
        (99, 100, [34, 17, 17], ["1406.2661:id", "2203.02155:year", "2507.19457:year", "2010.11929:year", "2310.03714:year", "2201.11903:year"], "36f22ec92065d1e6ab18c5eaa20eda7e33100a1ca64b868924aa11e8b8ffd26d"),
        (2026, 3, [1, 1, 1], ["2201.11903:year", "2201.11903:year", "2203.02155:first_author", "2203.02155:first_author", "2310.03714:first_author", "2310.03714:first_author"], "6a85f984c979fc5e2a5d10f8494cfbcbfaa2a15d0cbe589d1fed66f727f55c4b"),
        (2026, 12, [6, 3, 3], ["2201.11903:year", "1810.04805:year", "1301.3781:year", "2507.19457:first_author", "2103.00020:first_author", "2103.00020:year"], "ac8882cbcde3ea457f26024a27657fe37eccfb204ff9d51b5699441b2e874732"),
        (2026, 40, [20, 10, 10], ["2201.11903:year", "1412.6980:title", "1706.03762:title", "1503.02531:id", "2006.11239:first_author", "2106.09685:year"], "32d4ade26efc7d5d312de68664b390fa844abc51c397d4b2e770dd06dc8ae0b9"),
        (2026, 68, [34, 17, 17], ["2201.11903:year", "1512.03385:id", "1810.04805:title", "2005.14165:year", "2203.02155:id", "1503.02531:year"], "bf7ae031ff73e059eb1ed336a03757302f995245e6f63dd5b92b60a48c25b153"),
        (2026, 100, [34, 17, 17], ["2201.11903:year", "1512.03385:id", "1810.04805:title", "2005.14165:year", "2203.02155:id", "1503.02531:year"], "bf7ae031ff73e059eb1ed336a03757302f995245e6f63dd5b92b60a48c25b153"),
    ];

    fn check_fingerprints_17(compat: Compat, table: &[Fingerprint17]) {
        for &(seed, cases, want_sizes, want_ends, want_sha) in table {
            let split = compat
                .split(&papers(17), seed, cases)
                .expect("valid request");
            let at = format!("{} seed {seed} cases {cases}", compat.name());
            assert_eq!(sizes(&split), want_sizes, "{at}");
            assert_eq!(ends(&split), names(&want_ends), "{at}");
            assert_eq!(listing_sha256(&split), want_sha, "{at}");
        }
    }

    #[test]
    fn hermes_matches_the_cpython_reimplementation_on_17_papers() {
        check_fingerprints_17(Compat::Hermes, &HERMES_FINGERPRINTS_17);
    }

    #[test]
    fn v1_matches_the_cpython_reimplementation_on_17_papers() {
        check_fingerprints_17(Compat::HermesV1, &V1_FINGERPRINTS_17);
    }

    type FingerprintSubset = (usize, u64, usize, [usize; 3], [usize; 3], &'static str);

    // Python 3.11.7, the same reimplementation, on the first P papers of papers-17.csv:
    // for P in [3, 5, 10], seed in [1, 2026], cases in [3, 7, 100], then at seed 13
    // P 6 with cases 20 and 24 and P 7 with cases 20 and 26, where a split's pool runs
    // short and the round-robin order decides who gets the rest:
    // (P, seed, cases, split sizes, group counts, sha256 of the listing).
    #[rustfmt::skip]
    const HERMES_FINGERPRINTS_SUBSETS: [FingerprintSubset; 22] = [
        (3, 1, 3, [1, 1, 1], [1, 1, 1], "9f96718c23b9cc53392c0b9d681217c1a6356e8ce3665e3ba3838bd002026775"),
        (3, 1, 7, [3, 1, 3], [1, 1, 1], "0f99d42428a44b8faecf449ecb54fc442a0ed16283ddef83b17a84beeca0b1f8"),
        (3, 1, 100, [4, 4, 4], [1, 1, 1], "10eb00caecde86aa1e250c400ab57532ca3552a38f151782d028faa466b61da2"),
        (3, 2026, 3, [1, 1, 1], [1, 1, 1], "2eb13607d7e06dbd40d2f8d0c83368aa5a24060f72c10cdb23e5f5089266b94b"),
        (3, 2026, 7, [3, 1, 3], [1, 1, 1], "042de012445a80cd9d22fa0432a0a7c0e61bf591566077fc32f86d0be9c9cd2a"),
        (3, 2026, 100, [4, 4, 4], [1, 1, 1], "abc20e8af23e95b769536da03547c18ae7e216549d3963ee544118c9647bf6d5"),
        (5, 1, 3, [1, 1, 1], [2, 1, 2], "d6f1f66071ce7a3e49e289f42066ae361f9d7aee1dd28d44deca8be8c7d52d14"),
        (5, 1, 7, [3, 1, 3], [2, 1, 2], "054c15beab604b0009966b3a78a591120d6d7a5b5c25f7e27244f0c34f8f649e"),
        (5, 1, 100, [8, 4, 8], [2, 1, 2], "7f9b4e904c7b84791333cabb68418a23f296b23843a766711f4c20ceb52c5359"),
        (5, 2026, 3, [1, 1, 1], [2, 1, 2], "22e8e5999aab20887885e54a6a9e67c7d41e36f3416d579be74da956bab74881"),
        (5, 2026, 7, [3, 1, 3], [2, 1, 2], "a90c471fb5662ff13b13bedbb31e51889a96ef74fa5fc0dd45e7773dfc607fbe"),
        (5, 2026, 100, [8, 4, 8], [2, 1, 2], "612965b65168adea497a94acdb6aac6c123c9a71e3ce4255dd40c667bdb38bb3"),
        (10, 1, 3, [1, 1, 1], [5, 2, 3], "d41d133c1099d5e4d6d359cb5a03dfc6711c4dd645cb984737835a6af7e6b7ae"),
        (10, 1, 7, [3, 1, 3], [5, 2, 3], "a5be3b86c53699c7da96b9d1c43e0603014ef3ebac576faea174215fcd600880"),
        (10, 1, 100, [20, 8, 12], [5, 2, 3], "d4dd6a539674f417a671f2ffa39cf9d2d638b79bd7c342634ebd1a34d024c3c0"),
        (10, 2026, 3, [1, 1, 1], [5, 2, 3], "64cfc2cb338b75de815bb84177ab7bf5be587fa901946340ee5af70fb52dc7ee"),
        (10, 2026, 7, [3, 1, 3], [5, 2, 3], "e9679ec799198f19ff117de157f3c7356baba878ecc238ad148292b82969961c"),
        (10, 2026, 100, [20, 8, 12], [5, 2, 3], "c4da2811b3f478ce42d14a57bf0fd682f5f464dd319fe46774757640f914ed8a"),
        (6, 13, 20, [11, 4, 5], [3, 1, 2], "95a291c1d063559678fddffb293a4bbc66a5690563d7995cf7129495a72fb971"),
        (6, 13, 24, [12, 4, 8], [3, 1, 2], "fc61882d085f57b4a8aa75c9ddcb8d9dd95f0715ffad8977f762ad075a27d413"),
        (7, 13, 20, [11, 4, 5], [3, 1, 3], "72553bd38fb394f92e084a8f1ddb2171ae06d3b0d501485021c70e8e6b71df3c"),
        (7, 13, 26, [12, 4, 10], [3, 1, 3], "921c4942387e938fcf4db07a94093e713528d7043514a71cdf0760ef55fadd29"),
    ];

    // As HERMES_FINGERPRINTS_SUBSETS, for the earlier version.
    #[rustfmt::skip]
    const V1_FINGERPRINTS_SUBSETS: [FingerprintSubset; 22] = [
        (3, 1, 3, [1, 1, 1], [1, 1, 1], "0db17adc3040cc95dc0e5d18a544085826e25521fca2ab4b2e8d78d14093c9c5"),
        (3, 1, 7, [3, 1, 3], [3, 1, 2], "09c1bc5487c34644af5d34464a5a16dfa290b68f0fce6dde2893ce85ad1d59b1"),
        (3, 1, 100, [6, 3, 3], [3, 3, 2], "06829be6436ffa75318efcdb1745cf19dd7d0c23098faf7b44785f800033a8bc"),
        (3, 2026, 3, [1, 1, 1], [1, 1, 1], "b4e1fe81c5dac1497b7188138e70a1720ae3da9f8fc692c5620bc56903e23e5f"),
        (3, 2026, 7, [3, 1, 3], [2, 1, 2], "96193be491f254f273bcf1e16ec2b077abeb21302a2a6ceb39b2e9968375f7f2"),
        (3, 2026, 100, [6, 3, 3], [3, 2, 3], "5d874edecf1abbfb704a08a54a683ed19b6fecf21855ad81a12a94feebd40207"),
        (5, 1, 3, [1, 1, 1], [1, 1, 1], "1b218145c6d0d0ad23b6376ad23a054f44f41aee8db7957d1658eab1fea59c50"),
        (5, 1, 7, [3, 1, 3], [3, 1, 3], "5f69ebf4dc6c6a3e9f263a42f7ebe1af792466d8369cd5bfd93fdae97268c09e"),
        (5, 1, 100, [10, 5, 5], [5, 3, 4], "2aca0a0b49b9ffe5e85f7a08dd8542f696f27b73b5f839f14eb18203dcd1cf68"),
        (5, 2026, 3, [1, 1, 1], [1, 1, 1], "ddcf2adae02f4a671fe201625df7e6a37b6f6aaa21df1e0e29ee4cc8fcfbf282"),
        (5, 2026, 7, [3, 1, 3], [2, 1, 3], "74d91a0e90b1c1364268cd23c9197d641d644eba687002cbd03f329106efadaf"),
        (5, 2026, 100, [10, 5, 5], [5, 2, 3], "b9eaddc4fe15af88ddf992bbc9f390f9d10e803f1f9ba3aef290aaf2f25a85c1"),
        (10, 1, 3, [1, 1, 1], [1, 1, 1], "b2e88890c8128c03d43ebad85011cf44b682627471fd56a22bc5567b64ccd6f8"),
        (10, 1, 7, [3, 1, 3], [3, 1, 3], "23dbb7730baf290a993fbc37b316ea7eca0f89e79c3241cdf8b6fb8f91fe2ae6"),
        (10, 1, 100, [20, 10, 10], [9, 6, 6], "578c47d9691a1b8b0b8971ea0414d582f501a6c571abe5462e5e546e5355cc1c"),
        (10, 2026, 3, [1, 1, 1], [1, 1, 1], "7cefa9db86f3a648efd0dbe4306a1974a04078809def946e71012ec148b38c6c"),
        (10, 2026, 7, [3, 1, 3], [3, 1, 3], "121d12b7afdc651b91974d811f8997447203165c28248003f1dd8a3dcf2e297f"),
        (10, 2026, 100, [20, 10, 10], [10, 7, 7], "6611f21f95d408970be6ce2c16b1600941cf1a3a3be8c13cb6e3cb86c98ba759"),
        (6, 13, 20, [10, 5, 5], [6, 4, 3], "8b07a43bcfa3085006c73e4afc08309f9cfa689a5f13f460b92ee552495d8de0"),
        (6, 13, 24, [12, 6, 6], [6, 3, 3], "c16d0575bfb1a29025239d36546dc51516e7122ca4ea2a36b2c0fe5a8b87cd91"),
        (7, 13, 20, [10, 5, 5], [5, 4, 4], "3faf24ec7c6d929e1ef8ccfd9261d982080264ba0bb26058cf315d717fd1ff79"),
        (7, 13, 26, [13, 6, 7], [5, 5, 3], "dee9c87835e1b3458219b69f426887f5f5e1bda9833fedfc2fc824996ee22c50"),
    ];

    fn check_fingerprints_subsets(compat: Compat, table: &[FingerprintSubset]) {
        for &(count, seed, cases, want_sizes, want_groups, want_sha) in table {
            let split = compat
                .split(&papers(count), seed, cases)
                .expect("valid request");
            let at = format!("{} P {count} seed {seed} cases {cases}", compat.name());
            assert_eq!(sizes(&split), want_sizes, "{at}");
            let groups = [
                split.train_groups.len(),
                split.validation_groups.len(),
                split.holdout_groups.len(),
            ];
            assert_eq!(groups, want_groups, "{at}");
            assert_eq!(listing_sha256(&split), want_sha, "{at}");
        }
    }

    #[test]
    fn hermes_generalises_to_other_paper_counts_as_the_reimplementation_does() {
        check_fingerprints_subsets(Compat::Hermes, &HERMES_FINGERPRINTS_SUBSETS);
    }

    #[test]
    fn v1_generalises_to_other_paper_counts_as_the_reimplementation_does() {
        check_fingerprints_subsets(Compat::HermesV1, &V1_FINGERPRINTS_SUBSETS);
    }

    // Python 3.11.7, the same reimplementation: the holdout, in order, on the 17 papers.
    #[rustfmt::skip]
    const HOLDOUTS: [(Compat, u64, usize, &[&str]); 6] = [
        (Compat::Hermes, 7, 12, &["1301.3781:first_author", "1512.03385:first_author", "2507.19457:first_author"]),
        (Compat::Hermes, 2026, 40, &["2006.11239:year", "2310.03714:title", "2402.03300:first_author", "2310.03714:id", "1503.02531:title", "2402.03300:title", "2103.00020:first_author", "2402.03300:year", "2402.03300:id", "2006.11239:first_author"]),
        (Compat::Hermes, 99, 3, &["1503.02531:year"]),
        (Compat::HermesV1, 7, 12, &["2310.03714:id", "2103.00020:year", "1512.03385:id"]),
        (Compat::HermesV1, 2026, 40, &["2006.11239:first_author", "2006.11239:id", "1706.03762:first_author", "1512.03385:id", "1810.04805:title", "2507.19457:title", "1706.03762:id", "2402.03300:first_author", "2106.09685:title", "2106.09685:year"]),
        (Compat::HermesV1, 99, 3, &["2010.11929:first_author"]),
    ];

    #[test]
    fn holdouts_match_the_reimplementation_task_for_task() {
        for (compat, seed, cases, expected) in HOLDOUTS {
            let split = compat
                .split(&papers(17), seed, cases)
                .expect("valid request");
            assert_eq!(
                task_names(&split.holdout),
                names(expected),
                "{} seed {seed} cases {cases}",
                compat.name()
            );
        }
    }

    #[test]
    fn refuses_fewer_than_three_cases_and_says_three_would_work() {
        for compat in [Compat::Hermes, Compat::HermesV1] {
            for cases in [0, 1, 2] {
                let err = compat.split(&papers(17), 13, cases).unwrap_err();
                assert_eq!(err, HermesError::TooFewCases { cases });
                assert!(err.to_string().contains("at least 3 cases"), "{err}");
            }
            assert!(compat.split(&papers(17), 13, 3).is_ok());
        }
    }

    #[test]
    fn hermes_refuses_fewer_than_three_papers() {
        let err = hermes_split(&papers(2), 13, 24).unwrap_err();
        assert_eq!(
            err,
            HermesError::TooFewPapers {
                compat: "hermes",
                papers: 2,
                needed: 3
            }
        );
        assert!(err.to_string().contains("at least 3 papers"), "{err}");
    }

    #[test]
    fn v1_refuses_an_empty_ground_truth_but_splits_a_single_paper() {
        let err = hermes_v1_split(&[], 13, 24).unwrap_err();
        assert!(matches!(err, HermesError::TooFewPapers { papers: 0, .. }));
        let split = hermes_v1_split(&papers(1), 13, 24).expect("one paper gives 4 tasks");
        assert_eq!(sizes(&split), [2, 1, 1]);
        assert_eq!(split.shared_papers(), names(&["1301.3781"]));
    }

    #[test]
    fn refuses_a_repeated_paper_and_names_it() {
        let mut ids = papers(5);
        ids.push("1412.6980".to_string());
        for compat in [Compat::Hermes, Compat::HermesV1] {
            let err = compat.split(&ids, 13, 24).unwrap_err();
            assert_eq!(
                err,
                HermesError::DuplicatePaper {
                    id: "1412.6980".to_string()
                }
            );
            assert!(err.to_string().contains("`1412.6980`"), "{err}");
        }
    }

    #[test]
    fn compat_names_are_the_command_line_spellings() {
        assert_eq!(Compat::Hermes.name(), "hermes");
        assert_eq!(Compat::HermesV1.name(), "hermes-v1");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn hermes_partitions_papers_and_meets_the_total(
            seed in proptest::prelude::any::<u64>(),
            count in 3usize..=17,
            cases in 3usize..=80,
        ) {
            let split = hermes_split(&papers(count), seed, cases).expect("valid request");
            let total = split.train.len() + split.validation.len() + split.holdout.len();
            proptest::prop_assert_eq!(total, cases.min(4 * count));
            proptest::prop_assert!(split.shared_papers().is_empty());
            let mut groups: Vec<&String> = split
                .train_groups
                .iter()
                .chain(&split.validation_groups)
                .chain(&split.holdout_groups)
                .collect();
            groups.sort();
            let mut all: Vec<String> = papers(count);
            all.sort();
            proptest::prop_assert_eq!(groups, all.iter().collect::<Vec<_>>());
            for (tasks, groups) in [
                (&split.train, &split.train_groups),
                (&split.validation, &split.validation_groups),
                (&split.holdout, &split.holdout_groups),
            ] {
                proptest::prop_assert!(!tasks.is_empty());
                proptest::prop_assert!(tasks.iter().all(|(paper, _)| groups.contains(paper)));
            }
        }
    }
}
