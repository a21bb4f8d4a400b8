//! Unit tests of the shared rules and the value maps.

use std::collections::BTreeSet;

use serde_json::json;

use super::*;

fn sample(task: &str, score: f64) -> Sample {
    Sample {
        task_id: task.to_string(),
        score,
        kind: None,
        doc_key: None,
        repeat: None,
        group: None,
        output_key: None,
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
    let imported = assemble(found, Rules::default()).unwrap();
    assert_eq!(
        render_csv(&imported),
        "task_id,correct,score\na,0,0\nb,1,1\n"
    );
    let found = Found {
        samples: vec![sample("a", 2.0 / 3.0)],
        ..Found::default()
    };
    let imported = assemble(found, Rules::default()).unwrap();
    assert_eq!(render_csv(&imported), "task_id,score\na,0.666667\n");
}

/// Assembles with `--on-missing intersect`, which must succeed.
fn assemble_intersecting(found: Found) -> Imported {
    assemble(
        found,
        Rules {
            on_missing: OnMissing::Intersect,
            ..Rules::default()
        },
    )
    .unwrap()
}

#[test]
fn intersect_leaves_out_every_copy_of_a_duplicated_task() {
    let found = Found {
        samples: vec![sample("a", 1.0), sample("a", 0.0), sample("b", 1.0)],
        ..Found::default()
    };
    assert!(assemble(found.clone(), Rules::default()).is_err());
    let imported = assemble_intersecting(found);
    assert_eq!(imported.rows.len(), 1);
    assert_eq!(imported.dropped.duplicated.count, 1);
}

#[test]
fn ids_admit_would_read_as_one_are_one_task_here_and_refused_as_duplicated() {
    // Regression: `x`, ` x` and `x<TAB>` were written as three ids that admit then
    // trims to one and refuses ("appears twice").
    let found = Found {
        samples: vec![
            sample("x", 1.0),
            sample(" x", 0.0),
            sample("x\t", 1.0),
            sample("y\r", 1.0),
        ],
        universe: ["x\u{a0}".to_string(), "y".to_string()].into(),
        ..Found::default()
    };
    let error = assemble(found.clone(), Rules::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("tasks 1 duplicated (first: `x`)"), "{error}");
    let imported = assemble_intersecting(found);
    assert_eq!(render_csv(&imported), "task_id,correct,score\ny,1,1\n");
    assert_eq!(imported.dropped.missing.count, 0);
}

#[test]
fn scale_parses_min_max_and_refuses_an_empty_range() {
    assert_eq!(Scale::parse("0:100").unwrap().apply(25.0), 0.25);
    assert_eq!(Scale::parse("-1:1").unwrap().apply(0.0), 0.5);
    // MIN > MAX maps a lower-is-better metric: 10 becomes 0, 0 becomes 1.
    assert_eq!(Scale::parse("10:0").unwrap().apply(2.5), 0.75);
    // Regression: a range wider than the largest float divides every score by infinity.
    assert!(Scale::parse("0:1e308").is_ok());
    for bad in [
        "1:1",
        "0-100",
        "a:b",
        "0:inf",
        "1e308:-1e308",
        "-1e308:1e308",
    ] {
        assert!(Scale::parse(bad).is_err(), "{bad}");
    }
}

/// The first 16 hex digits of SHA-256 of each text, from Python's
/// `hashlib.sha256(text).hexdigest()[:16]`.
const SHA256_H1: u64 = 0x33112ee14ee469c3;
const SHA256_H2: u64 = 0xf998fe06afa0cfbe;
const SHA256_X: u64 = 0x2d711642b726b044;
const SHA256_UPPER: u64 = 0x1a2e4e198da867e4;
const LOWER: &str = "8d52662ed683404d1c5f225090293bd707c942fb370cf956572bef5e4057b3a6";

#[test]
fn a_doc_key_is_the_first_16_hex_digits_of_a_sha256_and_hashes_any_other_text() {
    assert_eq!(record::doc_key(LOWER), 0x8d52662ed683404d);
    assert_eq!(record::doc_key(&LOWER.to_uppercase()), SHA256_UPPER);
    assert_eq!(record::doc_key("h1"), SHA256_H1);
    assert_eq!(record::doc_key("h2"), SHA256_H2);
    assert_eq!(record::doc_key(&LOWER[..63]), {
        use sha2::Digest;
        u64::from_be_bytes(sha2::Sha256::digest(&LOWER[..63])[..8].try_into().unwrap())
    });
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
        Ok(vec![(
            "b".to_string(),
            format!("{SHA256_H2:016x}"),
            format!("{SHA256_X:016x}")
        )])
    );
}

/// An lm-eval import's rows (sorted by task id, as `assemble` leaves them).
fn keyed(rows: &[(&str, &str, u64)]) -> Imported {
    let mut rows: Vec<Sample> = rows
        .iter()
        .map(|&(kind, id, key)| Sample {
            task_id: format!("{kind}:{id}"),
            score: 1.0,
            kind: Some(kind.into()),
            doc_key: Some(key),
            repeat: None,
            group: None,
            output_key: None,
        })
        .collect();
    rows.sort_by(|a, b| a.task_id.cmp(&b.task_id));
    Imported {
        rows,
        outcomes: true,
        dropped: Dropped::default(),
        selectors: BTreeMap::new(),
        notes: Vec::new(),
        repeats: None,
        direction: Direction::default(),
        selected_on_these_scores: false,
        datasets: BTreeMap::new(),
        identical_repeats: None,
    }
}

/// The record of `imported` as JSON, and as `admit` reads it back.
fn written(imported: &Imported) -> (serde_json::Value, record::Documents) {
    let record =
        record::ImportRecord::new(Format::LmEval, imported, OnMissing::Fail, None, Vec::new());
    let text = record.to_json();
    (
        serde_json::from_str(&text).unwrap(),
        serde_json::from_str(&text).unwrap(),
    )
}

#[test]
fn the_record_keeps_integer_ids_as_ranges_and_other_ids_as_a_list() {
    let imported = keyed(&[
        ("gsm8k", "0", 0xa0),
        ("gsm8k", "1", 0xa1),
        ("gsm8k", "10", 0xa10),
        ("gsm8k", "2", 0xa2),
        ("gsm8k", "5", 0xa5),
        ("qa", "q7", 0xb7),
        ("qa", "07", 0xb0),
    ]);
    let (json, documents) = written(&imported);
    assert_eq!(json["schema"], "evogate/import/v3");
    let gsm8k = &json["documents"]["gsm8k"];
    assert_eq!(gsm8k["ranges"], "0-2,5,10");
    assert!(gsm8k.get("ids").is_none());
    let keys: Vec<String> = [0xa0, 0xa1, 0xa2, 0xa5, 0xa10]
        .iter()
        .map(|k| format!("{k:016x}"))
        .collect();
    assert_eq!(gsm8k["keys"], keys.concat());
    // `07` is not a plain integer: the task's ids are listed, in the rows' order.
    let qa = &json["documents"]["qa"];
    assert_eq!(qa["ids"], serde_json::json!(["07", "q7"]));
    assert_eq!(qa["keys"], format!("{:016x}{:016x}", 0xb0, 0xb7));
    // Read back, every task's key is its own.
    let mut other = keyed(&[
        ("gsm8k", "0", 0xa0),
        ("gsm8k", "1", 0xa1),
        ("gsm8k", "10", 0xa10),
        ("gsm8k", "2", 0xa2),
        ("gsm8k", "5", 0xf5),
        ("qa", "q7", 0xb7),
        ("qa", "07", 0xf0),
    ]);
    assert_eq!(
        record::different_documents(&documents, &documents),
        Ok(vec![])
    );
    let (_, changed) = written(&other);
    let hex = |k: u64| format!("{k:016x}");
    assert_eq!(
        record::different_documents(&documents, &changed),
        Ok(vec![
            ("gsm8k:5".to_string(), hex(0xa5), hex(0xf5)),
            ("qa:07".to_string(), hex(0xb0), hex(0xf0)),
        ])
    );
    // Tasks only one run holds are not compared.
    other
        .rows
        .retain(|r| r.task_id != "gsm8k:5" && r.task_id != "qa:07");
    let (_, fewer) = written(&other);
    assert_eq!(record::different_documents(&documents, &fewer), Ok(vec![]));
}

#[test]
fn a_v1_record_of_full_hashes_pairs_with_a_v2_record_of_keys() {
    let (_, v2) = written(&keyed(&[
        ("gsm8k", "0", 0x8d52662ed683404d),
        ("gsm8k", "1", SHA256_H1),
    ]));
    let v1: record::Documents = serde_json::from_value(serde_json::json!({
        "schema": "evogate/import/v1",
        "doc_hashes": {"gsm8k:0": LOWER, "gsm8k:1": "h2"}
    }))
    .unwrap();
    assert_eq!(
        record::different_documents(&v1, &v2),
        Ok(vec![(
            "gsm8k:1".to_string(),
            format!("{SHA256_H2:016x}"),
            format!("{SHA256_H1:016x}")
        )])
    );
}

#[test]
fn a_record_whose_ids_and_keys_disagree_is_refused_naming_the_task() {
    let good: record::Documents = serde_json::from_value(serde_json::json!({
        "documents": {"t": {"ranges": "0-1", "keys": "00000000000000010000000000000002"}}
    }))
    .unwrap();
    for (documents, wanted) in [
        (
            serde_json::json!({"t": {"ranges": "0-2", "keys": "0000000000000001"}}),
            "task `t`: `0-2` in `ranges`",
        ),
        (
            serde_json::json!({"t": {"ranges": "0-18446744073709551615", "keys": ""}}),
            "task `t`: `0-18446744073709551615` in `ranges`",
        ),
        (
            serde_json::json!({"t": {"ids": ["a", "b"], "keys": "0000000000000001"}}),
            "task `t`: 2 ids but 16 bytes of keys",
        ),
        (
            serde_json::json!({"t": {"ranges": "01", "keys": "0000000000000001"}}),
            "task `t`: `01` in `ranges`",
        ),
        (
            serde_json::json!({"t": {"ranges": "0", "keys": "000000000000000g"}}),
            "task `t`: the key of `0` is not 16 hex digits",
        ),
    ] {
        let bad: record::Documents =
            serde_json::from_value(serde_json::json!({ "documents": documents })).unwrap();
        let (which, message) = record::different_documents(&good, &bad).unwrap_err();
        assert_eq!(which, 1);
        assert!(message.starts_with(wanted), "{message}");
        assert_eq!(record::different_documents(&bad, &good).unwrap_err().0, 0);
    }
}

/// One lm-eval line of doc `id`, outcome `id % 2`, padded to cross 64-byte chunk ends.
fn lm_line(id: usize) -> String {
    format!(
        "{{\"doc_id\": {id}, \"doc\": {{\"question\": \"{}\"}}, \"filter\": \"none\", \"metrics\": [\"acc\"], \"doc_hash\": \"h{id}\", \"acc\": {}}}",
        "q".repeat(id % 97),
        id % 2
    )
}

/// Samples as (task id, score, document key).
type Keyed = Vec<(String, f64, Option<u64>)>;

/// What a reader reading in `chunk`-byte chunks on `workers` threads finds in `text`:
/// the samples (task, score, key) and the SHA-256, or the error.
fn read_in_chunks(text: &[u8], chunk: usize, workers: usize) -> Result<(Keyed, String), String> {
    let mut reader = lm_eval::Reader::with_chunks(chunk, workers);
    let sha256 = reader
        .add("samples_t_2025.jsonl", "t", text)
        .map_err(|e| e.to_string())?;
    let found = reader.finish(&[], None).map_err(|e| e.to_string())?;
    let samples = found
        .samples
        .into_iter()
        .map(|s| (s.task_id, s.score, s.doc_key))
        .collect();
    Ok((samples, sha256))
}

#[test]
fn lines_across_chunk_ends_read_as_they_do_in_one_chunk() {
    // CRLF and LF lines, blank lines, a line far longer than a chunk, and a last line
    // without its newline.
    let mut text = String::new();
    for id in 0..200 {
        text.push_str(&lm_line(id));
        text.push_str(if id % 3 == 0 { "\r\n" } else { "\n" });
        if id % 17 == 0 {
            text.push_str("\n  \n");
        }
    }
    text.push_str(&lm_line(200).replace(
        "\"question\": \"",
        &format!("\"question\": \"{}", "x".repeat(1000)),
    ));
    let (whole, sha256) = read_in_chunks(text.as_bytes(), 1 << 20, 1).unwrap();
    assert_eq!(whole.len(), 201);
    for (i, (task, score, key)) in whole.iter().enumerate() {
        assert_eq!(task, &format!("t:{i}"));
        assert_eq!(*score, (i % 2) as f64);
        assert_eq!(*key, Some(record::doc_key(&format!("h{i}"))));
    }
    assert_eq!(sha256, crate::digest::sha256_hex(text.as_bytes()));
    for (chunk, workers) in [(64, 2), (1, 3), (100, 1), (333, 4)] {
        let read = read_in_chunks(text.as_bytes(), chunk, workers).unwrap();
        assert_eq!(
            read,
            (whole.clone(), sha256.clone()),
            "chunk {chunk}, workers {workers}"
        );
    }
}

#[test]
fn a_refused_line_in_a_later_chunk_is_named_by_its_line_in_the_file() {
    let mut lines: Vec<String> = (0..120).map(lm_line).collect();
    lines[36] = "{\"doc_id\": 36, \"filter\": \"none\"}".to_string();
    lines[90] = "not json".to_string();
    let text = lines.join("\n");
    let one = read_in_chunks(text.as_bytes(), 1 << 20, 1).unwrap_err();
    assert!(
        one.starts_with("`samples_t_2025.jsonl` row 37: no `metrics` list or object"),
        "{one}"
    );
    for (chunk, workers) in [(64, 2), (200, 3), (4096, 2)] {
        assert_eq!(
            read_in_chunks(text.as_bytes(), chunk, workers).unwrap_err(),
            one
        );
    }
    // The first bad line wins even when a later chunk's is parsed first.
    lines[36] = lm_line(36);
    let text = lines.join("\n");
    let later = read_in_chunks(text.as_bytes(), 64, 2).unwrap_err();
    assert!(
        later.starts_with("`samples_t_2025.jsonl` row 91: not a JSON object"),
        "{later}"
    );
}

/// A file that fails after its first `good` bytes.
struct Failing {
    text: Vec<u8>,
    at: usize,
    good: usize,
}

impl std::io::Read for Failing {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.at >= self.good {
            return Err(std::io::Error::other("disk gone"));
        }
        let n = buffer.len().min(self.good - self.at);
        buffer[..n].copy_from_slice(&self.text[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_file_that_cannot_be_read_to_its_end_is_refused_not_cut_short() {
    let text: Vec<u8> = (0..100)
        .map(|i| lm_line(i) + "\n")
        .collect::<String>()
        .into();
    let mut reader = lm_eval::Reader::with_chunks(64, 2);
    let failing = Failing {
        good: text.len() / 2,
        text,
        at: 0,
    };
    let error = reader
        .add("samples_t_2025.jsonl", "t", failing)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`samples_t_2025.jsonl`: cannot read it: disk gone"
    );
}

#[test]
fn repeats_reduce_by_their_definitions() {
    // Mode: the most frequent value, ties to the one seen first; majority: more than half.
    assert_eq!(Repeats::Mode.reduce(&[0.0, 1.0, 1.0, 0.0, 0.5]), Some(0.0));
    assert_eq!(Repeats::Mode.reduce(&[0.5, 1.0, 1.0]), Some(1.0));
    // The tie goes to the value seen first even when it is the larger one (not the
    // first in the order of the values' bits).
    assert_eq!(Repeats::Mode.reduce(&[1.0, 0.0, 0.0, 1.0]), Some(1.0));
    assert_eq!(Repeats::Majority.reduce(&[1.0, 0.0, 1.0]), Some(1.0));
    assert_eq!(Repeats::Majority.reduce(&[1.0, 0.0, 1.0, 0.0]), None);
    assert_eq!(Repeats::Majority.reduce(&[-0.0, 0.0, 1.0]), Some(0.0));
    // Inspect's pass_at_2 over I,C,I,I: 1 - C(3,2)/C(4,2) = 0.5.
    assert_eq!(Repeats::PassAt(2).reduce(&[0.0, 1.0, 0.0, 0.0]), Some(0.5));
    // Fewer repeats than k: no estimate (it scored 1 for an item never right).
    assert_eq!(Repeats::PassAt(5).reduce(&[0.0, 0.0, 0.0]), None);
}

fn repeat(task: &str, repeat: u64, output: Option<u64>) -> Sample {
    Sample {
        kind: Some(Arc::from("t")),
        repeat: Some(repeat),
        output_key: output,
        ..sample(task, 1.0)
    }
}

#[test]
fn an_item_run_once_of_three_declared_epochs_lacks_two_named_repeats() {
    let found = Found {
        samples: vec![
            repeat("t:1", 1, Some(1)),
            repeat("t:1", 2, Some(2)),
            repeat("t:1", 3, Some(3)),
            repeat("t:2", 1, Some(4)),
        ],
        declared_repeats: [("t".to_string(), 3)].into(),
        ..Found::default()
    };
    let error = assemble(found.clone(), Rules::default())
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("2 repeats missing (first: `t:2#2`, `t:2#3`) in 1 item, which would be averaged over fewer repeats than the others; fix the log"),
        "{error}"
    );
    // Under intersect the item is left out whole and counted as missing.
    let imported = assemble(
        found,
        Rules {
            on_missing: OnMissing::Intersect,
            repeats: Some(Repeats::Mean),
            ..Rules::default()
        },
    )
    .unwrap();
    assert_eq!(imported.dropped.missing.first, ["t:2"]);
    assert_eq!(imported.rows.len(), 1);
    assert_eq!(imported.identical_repeats, None);
}

#[test]
fn without_a_declared_count_the_most_repeats_of_the_kind_is_expected() {
    // Epochs 1 and 3 of one item: epoch 2 is missing although no count is declared;
    // the other item has all three.
    let found = Found {
        samples: vec![
            repeat("t:1", 1, None),
            repeat("t:1", 3, None),
            repeat("t:2", 1, None),
            repeat("t:2", 2, None),
            repeat("t:2", 3, None),
        ],
        ..Found::default()
    };
    let error = assemble(found, Rules::default()).unwrap_err().to_string();
    assert!(
        error.starts_with("1 repeat missing (first: `t:1#2`) in 1 item"),
        "{error}"
    );
}

#[test]
fn repeats_with_one_output_text_are_counted_as_identical_copies() {
    let found = Found {
        samples: vec![
            repeat("t:1", 1, Some(7)),
            repeat("t:1", 2, Some(7)),
            repeat("t:2", 1, Some(7)),
            repeat("t:2", 2, Some(8)),
            repeat("t:3", 1, Some(9)),
            repeat("t:3", 2, None),
        ],
        ..Found::default()
    };
    let rules = Rules {
        repeats: Some(Repeats::Mean),
        ..Rules::default()
    };
    let imported = assemble(found, rules).unwrap();
    let copies = imported.identical_repeats.unwrap();
    assert_eq!((copies.count, copies.first), (1, vec!["t:1".to_string()]));
    // t:3 lacks one output, so it cannot be told either way: 2 items are compared.
    assert!(
        imported.notes.iter().any(|n| n.starts_with(
            "the repeats of 1 of the 2 items whose outputs the log carries are byte-identical"
        )),
        "{:?}",
        imported.notes
    );
}
