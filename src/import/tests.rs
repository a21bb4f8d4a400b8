//! Unit tests of the shared rules and the value maps.

use std::collections::BTreeSet;

use serde_json::json;

use super::*;

fn sample(task: &str, score: f64) -> Sample {
    Sample {
        task_id: task.to_string(),
        score,
        kind: None,
        doc_hash: None,
    }
}

#[test]
fn inspect_values_map_as_inspect_maps_them_and_unknown_text_is_refused() {
    for (value, wanted) in [
        (json!("C"), Some(1.0)),
        (json!("P"), Some(0.5)),
        (json!("I"), Some(0.0)),
        (json!("N"), Some(0.0)),
        (json!(true), Some(1.0)),
        (json!(false), Some(0.0)),
        (json!(0.25), Some(0.25)),
        (json!("7"), Some(7.0)),
        (json!("Yes"), Some(1.0)),
        (json!("false"), Some(0.0)),
        (json!("maybe"), None),
        (json!({"a": 1}), None),
    ] {
        assert_eq!(inspect::value_to_float(&value), wanted, "{value}");
    }
}

#[test]
fn the_task_comes_from_lm_evals_file_name() {
    assert_eq!(
        lm_eval::task_from_file_name("x/samples_arc_easy_2025-09-09T13-42-42.857006.jsonl"),
        Some("arc_easy".to_string())
    );
    assert_eq!(lm_eval::task_from_file_name("results_2025.json"), None);
    assert_eq!(lm_eval::task_from_file_name("samples_gsm8k.jsonl"), None);
}

#[test]
fn choose_takes_the_only_value_or_the_given_one_and_lists_the_rest() {
    let one: BTreeSet<String> = ["a".to_string()].into();
    assert_eq!(choose("--x", None, &one, ""), Ok("a".to_string()));
    let two: BTreeSet<String> = ["a".to_string(), "b".to_string()].into();
    assert_eq!(choose("--x", Some("b"), &two, ""), Ok("b".to_string()));
    let error = choose("--x", None, &two, "").unwrap_err().to_string();
    assert_eq!(
        error,
        "--x is needed; the log has: `a`, `b`; give one with --x"
    );
}

#[test]
fn assemble_sorts_by_task_and_writes_correct_only_for_outcomes() {
    let found = Found {
        samples: vec![sample("b", 1.0), sample("a", 0.0)],
        universe: ["a".to_string(), "b".to_string()].into(),
        ..Found::default()
    };
    let imported = assemble(found, OnMissing::Fail, None).unwrap();
    assert_eq!(
        render_csv(&imported),
        "task_id,correct,score\na,0,0\nb,1,1\n"
    );
    let found = Found {
        samples: vec![sample("a", 2.0 / 3.0)],
        ..Found::default()
    };
    let imported = assemble(found, OnMissing::Fail, None).unwrap();
    assert_eq!(render_csv(&imported), "task_id,score\na,0.666667\n");
}

#[test]
fn intersect_leaves_out_every_copy_of_a_duplicated_task() {
    let found = Found {
        samples: vec![sample("a", 1.0), sample("a", 0.0), sample("b", 1.0)],
        ..Found::default()
    };
    assert!(assemble(found.clone(), OnMissing::Fail, None).is_err());
    let imported = assemble(found, OnMissing::Intersect, None).unwrap();
    assert_eq!(imported.rows.len(), 1);
    assert_eq!(imported.dropped.duplicated.count, 1);
}

#[test]
fn scale_parses_min_max_and_refuses_an_empty_range() {
    assert_eq!(Scale::parse("0:100").unwrap().apply(25.0), 0.25);
    assert_eq!(Scale::parse("-1:1").unwrap().apply(0.0), 0.5);
    for bad in ["1:1", "5:0", "0-100", "a:b", "0:inf"] {
        assert!(Scale::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn documents_differ_only_on_shared_tasks_with_other_hashes() {
    let base = record::Documents {
        doc_hashes: [("a".into(), "h1".into()), ("b".into(), "h2".into())].into(),
        ..Default::default()
    };
    let cand = record::Documents {
        doc_hashes: [
            ("a".into(), "h1".into()),
            ("b".into(), "x".into()),
            ("c".into(), "h3".into()),
        ]
        .into(),
        ..Default::default()
    };
    assert_eq!(
        record::different_documents(&base, &cand),
        vec![("b".to_string(), "h2".to_string(), "x".to_string())]
    );
}
