//! The sufficient statistics: added up by hand on small cases, held to the pairs they
//! come from, written and read back, and refused when a document does not add up.

use super::super::tests::pair_texts;
use super::document::{SCHEMA, read, render};
use super::*;
use crate::admission::{Admission, Config, StrataRequest, TestChoice, decide, decide_summary};
use crate::alpha::Alpha;
use crate::base::random::Random;
use crate::stats::cluster::{cluster_view, cluster_view_of_sums};
use crate::stats::signed_rank::{ZeroMethod, signed_rank, signed_rank_of_ties};

fn kind() -> StrataRequest {
    StrataRequest {
        column: "kind".into(),
        required: false,
    }
}

fn pairs(base: &str, cand: &str) -> Pairs {
    pair_texts(base, cand, None, Some(&kind())).unwrap()
}

#[test]
fn the_statistics_of_six_pairs_are_the_ones_counted_by_hand() {
    let base = "task_id,kind,group,correct,score\n\
                a,x,p,1,1\nb,x,p,0,0.25\nc,y,q,1,0.5\nd,y,q,0,0\ne,y,r,1,0.75\nf,x,r,1,1\n";
    let cand = "task_id,kind,group,correct,score\n\
                a,x,p,0,0.5\nb,x,p,1,1\nc,y,q,1,0.5\nd,y,q,1,0.25\ne,y,r,0,0.5\nf,x,r,1,1\n";
    let summary = Statistics::of(&pairs(base, cand));
    // Differences: a −0.5, b +0.75, c 0, d +0.25, e −0.25, f 0.
    let overall = &summary.overall;
    assert_eq!(overall.n, 6);
    assert_eq!(overall.baseline_micros, 3_500_000);
    assert_eq!(overall.candidate_micros, 3_750_000);
    assert_eq!(overall.zeros, 2);
    let tie = |magnitude, positive, negative| Tie {
        magnitude,
        positive,
        negative,
    };
    assert_eq!(
        overall.ties,
        [tie(250_000, 1, 1), tie(500_000, 0, 1), tie(750_000, 1, 0)]
    );
    assert_eq!(
        overall.outcomes,
        Some(Outcomes {
            both_right: 2,
            baseline_only: 2,
            candidate_only: 2,
            both_wrong: 0
        })
    );
    assert_eq!(
        overall.histogram(),
        [
            (-500_000, 1),
            (-250_000, 1),
            (0, 2),
            (250_000, 1),
            (750_000, 1)
        ]
    );
    assert_eq!(
        overall.square_micros(),
        2 * 62_500_000_000 + 250_000_000_000 + 562_500_000_000
    );
    let strata = summary.strata.as_ref().unwrap();
    assert_eq!(strata.column, "kind");
    let values: Vec<(&str, u64, i64)> = strata
        .sets
        .iter()
        .map(|(v, s)| (v.as_str(), s.n, s.difference_micros()))
        .collect();
    assert_eq!(values, [("x", 3, 250_000), ("y", 3, 0)]);
    let clusters: Vec<(&str, u64, i64)> = summary
        .clusters
        .as_ref()
        .unwrap()
        .iter()
        .map(|c| (c.name.as_str(), c.n, c.difference_micros))
        .collect();
    assert_eq!(
        clusters,
        [("p", 2, 250_000), ("q", 2, 250_000), ("r", 2, -250_000)]
    );
}

#[test]
fn a_score_with_more_than_six_decimals_enters_the_statistics_rounded_to_six() {
    assert_eq!(micros(0.123_456_4), 123_456);
    assert_eq!(micros(0.123_456_6), 123_457);
    assert_eq!(micros(1.0 / 3.0), 333_333);
    assert_eq!(micros(0.1 + 0.2), 300_000);
    let summary = Statistics::of(&pairs(
        "task_id,score\na,0.3333333333\nb,0\n",
        "task_id,score\na,0.6666666667\nb,0.0000004\n",
    ));
    assert_eq!(summary.overall.histogram(), [(0, 1), (333_334, 1)]);
}

/// Random pairs with strata, groups, and `correct` or scores in steps of 1/8 (so the
/// f64 path of the old code and the micro-units agree exactly on ties).
fn random_files(stream: &mut Random, n: usize, with_correct: bool) -> (String, String) {
    let kinds: &[&str] = if n > 2_500 {
        // One stratum: above the exact limit, strata would be slow to test exactly.
        &["id"]
    } else {
        &["id", "year", "title"]
    };
    let header = if with_correct {
        "task_id,kind,group,correct,score\n"
    } else {
        "task_id,kind,group,score\n"
    };
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for index in 0..n {
        let kind = kinds[stream.below(kinds.len() as u64) as usize];
        let group = format!("g{:03}", index / 4);
        let (b, c) = if with_correct {
            let b = stream.below(2);
            // The candidate is right a little more often.
            let c = u64::from(stream.below(10) < 6);
            (b as f64, c as f64)
        } else {
            (
                stream.below(9) as f64 / 8.0,
                (stream.below(9) as f64 / 8.0 + 0.125).min(1.0),
            )
        };
        let id = format!("t{index:05}");
        if with_correct {
            base.push_str(&format!("{id},{kind},{group},{b},{b}\n"));
            cand.push_str(&format!("{id},{kind},{group},{c},{c}\n"));
        } else {
            base.push_str(&format!("{id},{kind},{group},{b}\n"));
            cand.push_str(&format!("{id},{kind},{group},{c}\n"));
        }
    }
    (base, cand)
}

/// Everything two admissions decide, the losses and the pairing proof aside.
fn decided(admission: &Admission) -> String {
    let mut admission = admission.clone();
    admission.losses.clear();
    admission.evidence.remove(0);
    serde_json::to_string(&admission).unwrap()
}

#[test]
fn a_decision_on_the_summary_written_and_read_back_is_the_decision_on_the_pairs() {
    let mut stream = Random::keyed(22);
    for (n, with_correct) in [
        (12, true),
        (40, false),
        (300, true),
        (200, false),
        (3_200, false),
    ] {
        let (base, cand) = random_files(&mut stream, n, with_correct);
        let pairs = pairs(&base, &cand);
        for cluster in [false, true] {
            let config = Config {
                alpha: Alpha::new(0.05).unwrap(),
                test: TestChoice::Auto
                    .resolve(&pairs, ZeroMethod::Wilcox, "b.csv", "c.csv")
                    .unwrap(),
                margin: Some(crate::admission::Margin::new(0.1).unwrap()),
                holdout: None,
                cluster,
                answers: Default::default(),
            };
            let raw = decide(&pairs, &config);
            let document = render(&Statistics::of(&pairs));
            let summary = read("summary.json", document.as_bytes()).unwrap();
            let from_summary = decide_summary(&summary, &config);
            assert_eq!(decided(&from_summary), decided(&raw), "n {n}");
            assert!(from_summary.losses.is_empty());
            assert!(raw.cluster.is_some());
            assert_eq!(
                from_summary.evidence[0].proof,
                format!(
                    "{n} tasks in both b.csv and c.csv, each once, paired by task_id (summary: {n} baseline and {n} candidate rows, 0 duplicates, 0 tasks in one arm only, 0 strata disagreements)"
                )
            );
        }
    }
}

#[test]
fn the_signed_rank_test_on_ties_is_the_test_on_the_differences_they_group() {
    let mut stream = Random::keyed(7);
    // Below and above the exact limit, with zeros, for both zero methods.
    for n in [1usize, 9, 60, 300, 3_000, 20_000] {
        let differences: Vec<f64> = (0..n)
            .map(|_| (stream.below(13) as f64 - 6.0) / 8.0)
            .collect();
        let mut histogram: BTreeMap<i64, u64> = BTreeMap::new();
        for d in &differences {
            *histogram.entry(micros(*d)).or_default() += 1;
        }
        let set = Set::from_histogram(histogram, 0, 0, None).unwrap();
        let ties: Vec<(u64, u64)> = set.ties.iter().map(|t| (t.positive, t.negative)).collect();
        for zero in [ZeroMethod::Wilcox, ZeroMethod::Pratt] {
            let expected = signed_rank(&differences, zero);
            let got = signed_rank_of_ties(&ties, set.zeros, zero);
            assert_eq!(
                (got.n_nonzero, got.n_zero, got.w_plus, got.method),
                (
                    expected.n_nonzero,
                    expected.n_zero,
                    expected.w_plus,
                    expected.method
                )
            );
            for (g, e) in [
                (got.tails.p_improvement, expected.tails.p_improvement),
                (got.tails.p_regression, expected.tails.p_regression),
            ] {
                assert!(
                    (g - e).abs() <= 1e-12 * e.max(1e-300),
                    "n {n} {zero:?}: {g} vs {e}"
                );
            }
        }
    }
}

#[test]
fn the_cluster_view_from_sums_is_the_view_from_the_pairs() {
    let mut stream = Random::keyed(3);
    for clusters in [1usize, 2, 7, 40] {
        let names: Vec<String> = (0..clusters).map(|c| format!("c{c:02}")).collect();
        let mut pairs: Vec<(&str, f64)> = Vec::new();
        for name in &names {
            for _ in 0..=stream.below(5) {
                pairs.push((name, (stream.below(9) as f64 - 4.0) / 4.0));
            }
        }
        let expected = cluster_view(pairs.iter().copied());
        let sums: Vec<(u64, i64)> = names
            .iter()
            .map(|name| {
                let members = pairs.iter().filter(|p| p.0 == name);
                let n = members.clone().count() as u64;
                (n, members.map(|p| micros(p.1)).sum())
            })
            .collect();
        let squares: u128 = pairs
            .iter()
            .map(|p| (micros(p.1) as i128 * micros(p.1) as i128) as u128)
            .sum();
        let got = cluster_view_of_sums(&sums, squares);
        assert_eq!(got.clusters, expected.clusters);
        assert_eq!(got.test, expected.test);
        match (got.design_effect, expected.design_effect) {
            (Some(g), Some(e)) => assert!((g - e).abs() < 1e-12 * e.max(1.0), "{g} vs {e}"),
            (g, e) => assert_eq!(g, e),
        }
    }
}

/// The document of a small stratified, clustered summary, as JSON to edit.
fn document() -> serde_json::Value {
    let base = "task_id,kind,group,correct,score\na,x,p,1,1\nb,y,p,0,0\nc,y,q,1,1\n";
    let cand = "task_id,kind,group,correct,score\na,x,p,1,1\nb,y,p,1,1\nc,y,q,0,0\n";
    serde_json::from_str(&render(&Statistics::of(&pairs(base, cand)))).unwrap()
}

fn refusal(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value = document();
    edit(&mut value);
    read("s.json", value.to_string().as_bytes())
        .unwrap_err()
        .to_string()
}

#[test]
fn a_document_is_read_back_into_the_summary_it_was_written_from() {
    let summary = read("s.json", document().to_string().as_bytes()).unwrap();
    assert_eq!(summary.overall.n, 3);
    assert_eq!(summary.strata.as_ref().unwrap().sets.len(), 2);
    assert_eq!(summary.clusters.as_ref().unwrap().len(), 2);
    assert_eq!(
        summary.pairing,
        Pairing::Counted {
            baseline_rows: 3,
            candidate_rows: 3
        }
    );
    assert_eq!(document()["schema"], SCHEMA);
}

#[test]
fn another_schema_version_is_refused_by_name() {
    let message = refusal(|v| v["schema"] = "evogate/summary/v2".into());
    assert!(
        message.contains("schema `evogate/summary/v2` is not `evogate/summary/v1`"),
        "{message}"
    );
    let message = refusal(|v| {
        v.as_object_mut().unwrap().remove("schema");
    });
    assert!(message.contains("no `schema` field"), "{message}");
}

#[test]
fn a_missing_or_unknown_field_is_refused_naming_it() {
    let message = refusal(|v| {
        v["overall"].as_object_mut().unwrap().remove("differences");
    });
    assert!(message.contains("missing field `differences`"), "{message}");
    let message = refusal(|v| v["overall"]["mean"] = 0.5.into());
    assert!(message.contains("unknown field `mean`"), "{message}");
}

#[test]
fn a_document_whose_arms_do_not_pair_is_refused_as_unpaired_files_are() {
    let message = refusal(|v| {
        v["pairing"]["candidate_only"] = 2.into();
        v["pairing"]["baseline_duplicates"] = 1.into();
    });
    assert!(
        message.contains("the two arms do not pair: 1 task more than once in `b.csv`, and `b.csv` lacks 2 tasks that `c.csv` has"),
        "{message}"
    );
    let message = refusal(|v| v["pairing"]["stratum_disagreements"] = 1.into());
    assert!(
        message.contains("1 task whose two rows name different strata"),
        "{message}"
    );
}

/// A change to a document.
type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;

#[test]
fn counts_that_do_not_add_up_are_refused() {
    let cases: Vec<(Edit, &str)> = vec![
        (
            Box::new(|v| v["overall"]["n"] = 4.into()),
            "`overall.differences` counts 3 pairs but `overall.n` is 4",
        ),
        (
            Box::new(|v| v["overall"]["candidate_sum_micros"] = 1_000_000.into()),
            "`overall.differences` add up to 0 micro-units but the sums differ by -1000000",
        ),
        (
            Box::new(|v| v["overall"]["outcomes"]["both_wrong"] = 5.into()),
            "`overall.outcomes` add up to 8 pairs but `overall.n` is 3",
        ),
        (
            Box::new(|v| v["strata"]["values"][0]["outcomes"]["both_right"] = 0.into()),
            "`strata[x].outcomes` add up to 0 pairs",
        ),
        (
            Box::new(|v| v["clusters"][0]["n"] = 1.into()),
            "the clusters hold 2 pairs differing by 0 micro-units, but `overall` has 3 pairs",
        ),
        (
            Box::new(|v| v["pairing"]["baseline_rows"] = 2.into()),
            "`pairing` counts 2 baseline and 3 candidate rows but `overall.n` is 3",
        ),
        (
            Box::new(|v| v["correct"]["candidate"] = false.into()),
            "`overall.outcomes` is given but `correct` is baseline true, candidate false",
        ),
    ];
    for (edit, expected) in cases {
        let message = refusal(edit);
        assert!(
            message.contains(expected),
            "{message}\nexpected: {expected}"
        );
    }
    // Strata that do not add up to the whole.
    let message = refusal(|v| {
        let strata = v["strata"]["values"].as_array_mut().unwrap();
        strata.remove(0);
    });
    assert!(
        message.contains("the strata do not add up to `overall` (2 pairs in the strata, 3 overall"),
        "{message}"
    );
}

#[test]
fn outcomes_whose_sum_wraps_past_two_to_the_64_are_refused_naming_the_field() {
    // u64::MAX + 1 + 1 + 2 wraps to 3 = n: an unchecked sum "adds up".
    let mut value = document();
    value["strata"] = serde_json::Value::Null;
    value["clusters"] = serde_json::Value::Null;
    value["overall"]["outcomes"]["both_right"] = u64::MAX.into();
    value["overall"]["outcomes"]["both_wrong"] = 2.into();
    let message = read("s.json", value.to_string().as_bytes())
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("`overall.outcomes` add up to 18446744073709551619 pairs"),
        "{message}"
    );
}

#[test]
fn strata_whose_counts_wrap_past_two_to_the_64_are_refused_naming_the_field() {
    // Two strata of 2^63 tied pairs each: 2 * 2^63 wraps to 0, so unchecked sums make
    // the strata "add up" to overall.
    let half = 1u64 << 63;
    let message = refusal(|v| {
        let strata = v["strata"]["values"].as_array_mut().unwrap();
        for name in ["w1", "w2"] {
            strata.push(serde_json::json!({
                "value": name, "n": half, "baseline_sum_micros": 0,
                "candidate_sum_micros": 0,
                "outcomes": {"both_right": 0, "baseline_only": 0, "candidate_only": 0,
                             "both_wrong": half},
                "differences": [[0, half]],
            }));
        }
    });
    assert!(
        message.contains("the strata's `n` add up past 18446744073709551615"),
        "{message}"
    );
}

#[test]
fn a_missing_nullable_key_is_refused_by_name_while_null_opts_out() {
    for key in ["strata", "clusters", "holdout_sha256"] {
        let message = refusal(|v| {
            v.as_object_mut().unwrap().remove(key);
        });
        assert!(
            message.contains(&format!("missing field `{key}`")),
            "{message}"
        );
        let mut value = document();
        value[key] = serde_json::Value::Null;
        assert!(
            read("s.json", value.to_string().as_bytes()).is_ok(),
            "{key}"
        );
    }
    let message = refusal(|v| {
        v["overall"].as_object_mut().unwrap().remove("outcomes");
    });
    assert!(message.contains("missing field `outcomes`"), "{message}");
}
