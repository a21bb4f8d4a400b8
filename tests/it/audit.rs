//! `evogate audit`: each kind of evidence, each verdict, and bad claims files.

use std::fs;

use crate::util::{assert_input_error, run, write};

/// A file under the repository's `data/`.
fn shipped(path: &str) -> String {
    format!("{}/data/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_kind_of_evidence_gets_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(
        dir.path(),
        &[
            "audit",
            "--claims",
            &shipped("demo/claims.csv"),
            "--format",
            "json",
            "--report-dir",
            "r",
        ],
    );
    assert_eq!(
        result.code, 1,
        "not every claim is supported: {}",
        result.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    let judged = json["judgements"].as_array().unwrap();
    assert_eq!(
        verdicts(&json),
        [
            "not-supported",
            "supported",
            "unsupportable",
            "supported",
            "unverifiable"
        ]
    );
    // One win and five ties: P(X ≥ 1 | n = 1) = 1/2. Five wins: 2^-5.
    assert_eq!(judged[0]["p_improvement"].as_f64(), Some(0.5));
    assert_eq!(judged[1]["p_improvement"].as_f64(), Some(1.0 / 32.0));
    // The admission's discordant counts reach the audit.
    assert_eq!(
        (judged[0]["b"].as_u64(), judged[0]["c"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(
        (judged[1]["b"].as_u64(), judged[1]["c"].as_u64()),
        (Some(0), Some(5))
    );
    // b = 2, c = 14: sum_{k=14}^{16} C(16, k) / 2^16 = 137/65536, written to 12 digits.
    assert!((judged[3]["p_improvement"].as_f64().unwrap() - 137.0 / 65536.0).abs() < 1e-14);
    // 240 -> 260 of 400: best case 2^-20, worst case b 140, c 160.
    // JSON numbers carry 12 significant digits.
    let best = judged[4]["p_best_case"].as_f64().unwrap();
    assert!((best / 0.5f64.powi(20) - 1.0).abs() < 1e-11, "{best}");
    assert_eq!(judged[4]["worst_case_b"].as_u64(), Some(140));
    assert!(judged[2]["reason"].as_str().unwrap().starts_with(
        "6 tasks: even the best case, every disagreement won, gives p 0.5 ≥ alpha 0.05"
    ));
    let md = fs::read_to_string(dir.path().join("r/audit.md")).unwrap();
    assert!(md.starts_with("# Audit: 2 of 5 claims supported"), "{md}");
    assert!(dir.path().join("r/audit.json").exists());
}

/// The six published claims of `data/claims/published.csv` against the hand
/// computation in the shared reference's README.
#[test]
fn the_published_claims_get_the_verdicts_worked_out_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let claims = shipped("claims/published.csv");
    let result = run(
        dir.path(),
        &["audit", "--claims", &claims, "--format", "json"],
    );
    assert_eq!(result.code, 1, "{}", result.stderr);
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    assert_eq!(
        verdicts(&json),
        [
            "unsupportable",
            "unverifiable",
            "not-supported",
            "not-supported",
            "unverifiable",
            "supported"
        ]
    );
    let judged = json["judgements"].as_array().unwrap();
    for j in judged {
        for key in ["p_best_case", "effective_n", "alpha", "source"] {
            assert!(!j[key].is_null(), "{key} in {j}");
        }
        assert!(j.as_object().unwrap().contains_key("p_worst_case"));
    }
    // Two examples: even two wins give 1/4.
    assert_eq!(judged[0]["p_best_case"].as_f64(), Some(0.25));
    // A mean on 5 examples: five wins give 1/32.
    assert_eq!(judged[1]["p_best_case"].as_f64(), Some(1.0 / 32.0));
    assert_eq!(judged[1]["metric"], "mean");
    // scipy 1.17.1: binomtest(9, 16, 0.5, alternative="greater").pvalue
    let close = |value: &serde_json::Value, expected: f64| {
        (value.as_f64().unwrap() - expected).abs() <= 1e-9 * expected
    };
    assert!(close(&judged[2]["p_improvement"], 0.4018096923828125));
    // The per-task files give b 4, c 11;
    // scipy 1.17.1: binomtest(11, 15, 0.5, alternative="greater").pvalue
    assert_eq!(
        (judged[3]["b"].as_u64(), judged[3]["c"].as_u64()),
        (Some(4), Some(11))
    );
    assert!(close(&judged[3]["p_improvement"], 0.05923461914062499));
    assert_eq!(judged[3]["selected_on_scored_set"], true);
    // 259 -> 310 of 350, worst pairing b 40, c 91;
    // scipy 1.17.1: binomtest(91, 131, 0.5, alternative="greater").pvalue
    assert!(close(&judged[5]["p_worst_case"], 4.89786457540767e-06));
    let text = run(dir.path(), &["audit", "--claims", &claims]);
    assert!(
        text.stdout
            .contains("dspy-math-miprov2-tutorial: supported (rates, binary, inferred)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("p best case 0.25, worst case –"),
        "{}",
        text.stdout
    );
    let md = run(
        dir.path(),
        &["audit", "--claims", &claims, "--format", "markdown"],
    );
    assert!(md.stdout.contains("| dspy-math-miprov2-tutorial | **supported** | rates, binary, inferred | 4.441e-16 | 4.898e-6 | worst 40, 91 | 350 | 0.05 | 0.0143, 0.0191 |"), "{}", md.stdout);
}

/// Six clusters of two tasks, cluster mean differences 0.3, 0.1, 0.4, −0.05, 0.2, 0.5.
fn clustered_scores(dir: &std::path::Path, clusters: usize) {
    let candidate = [
        (0.7, 0.9),
        (0.6, 0.6),
        (1.0, 0.8),
        (0.4, 0.5),
        (0.7, 0.7),
        (1.0, 1.0),
    ];
    let (mut base, mut cand) = (
        "task_id,group,score\n".to_string(),
        "task_id,group,score\n".to_string(),
    );
    for (g, (first, second)) in candidate.iter().enumerate().take(clusters) {
        for (t, score) in [first, second].into_iter().enumerate() {
            base.push_str(&format!("g{g}-t{t},g{g},0.5\n"));
            cand.push_str(&format!("g{g}-t{t},g{g},{score}\n"));
        }
    }
    write(dir, "base.csv", &base);
    write(dir, "cand.csv", &cand);
}

#[test]
fn score_files_with_a_group_column_are_tested_on_their_clusters() {
    let dir = tempfile::tempdir().unwrap();
    clustered_scores(dir.path(), 6);
    let header = "claim_id,baseline_scores,candidate_scores,clusters\n";
    write(
        dir.path(),
        "claims.csv",
        &format!("{header}six,base.csv,cand.csv,6\n"),
    );
    let result = run(
        dir.path(),
        &["audit", "--claims", "claims.csv", "--format", "json"],
    );
    assert_eq!(result.code, 0, "{}{}", result.stdout, result.stderr);
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    let judged = &json["judgements"][0];
    // scipy 1.17.1: wilcoxon([0.3, 0.1, 0.4, -0.05, 0.2, 0.5], alternative="greater",
    // method="exact").pvalue = 0.03125
    assert_eq!(judged["p_improvement"].as_f64(), Some(0.03125));
    assert_eq!(
        (judged["effective_n"].as_u64(), judged["clusters"].as_u64()),
        (Some(6), Some(6))
    );
    assert_eq!(judged["p_best_case"].as_f64(), Some(1.0 / 64.0));
    // Four clusters: even all four improved give 1/16.
    clustered_scores(dir.path(), 4);
    write(
        dir.path(),
        "claims.csv",
        &format!("{header}four,base.csv,cand.csv,\n"),
    );
    let result = run(
        dir.path(),
        &["audit", "--claims", "claims.csv", "--format", "json"],
    );
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    assert_eq!(verdicts(&json), ["unsupportable"]);
    assert_eq!(json["judgements"][0]["p_best_case"].as_f64(), Some(0.0625));
    // A clusters count the groups contradict is refused.
    write(
        dir.path(),
        "claims.csv",
        &format!("{header}four,base.csv,cand.csv,5\n"),
    );
    assert_input_error(
        &run(dir.path(), &["audit", "--claims", "claims.csv"]),
        &["row 2", "4 groups", "make them agree"],
    );
}

fn verdicts(json: &serde_json::Value) -> Vec<&str> {
    json["judgements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["verdict"].as_str().unwrap())
        .collect()
}

#[test]
fn all_supported_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "claims.csv",
        "claim_id,description,b,c\nok,counts,2,14\n",
    );
    let result = run(dir.path(), &["audit", "--claims", "claims.csv"]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    assert!(result.stdout.contains("1 of 1 claim supported"));
}

#[test]
fn bad_claims_exit_2_naming_the_row_and_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 5] = [
        (
            "claim_id,b,c\nx,-2,3\n",
            &["row 2", "`b` is `-2`", "non-negative whole number"],
        ),
        ("claim_id,b,c\nx,2.5,3\n", &["row 2", "`b` is `2.5`"]),
        (
            "claim_id,description\nx,nothing\n",
            &["row 2", "no evidence"],
        ),
        (
            "claim_id,baseline_scores,candidate_scores\nx,missing.csv,other.csv\n",
            &["row 2", "cannot read score file"],
        ),
        (
            "claim_id,baseline_scores,candidate_scores\nx,../outside.csv,b.csv\n",
            &["row 2", "outside the claims file's folder"],
        ),
    ];
    for (text, needles) in cases {
        write(dir.path(), "claims.csv", text);
        assert_input_error(
            &run(dir.path(), &["audit", "--claims", "claims.csv"]),
            needles,
        );
    }
    write(dir.path(), "claims.csv", "claim_id,b,c\nx,2,14\n");
    assert_input_error(
        &run(
            dir.path(),
            &["audit", "--claims", "claims.csv", "--alpha", "2"],
        ),
        &["alpha"],
    );
}

/// Found by `cargo fuzz run claims`: b + c past 2^64 saturated to a count the binomial
/// tail never finishes summing, so `audit` hung.
#[test]
fn refuses_discordant_counts_too_large_to_test_instead_of_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = include_bytes!("../fuzz-regressions/claims-huge-discordant.csv");
    std::fs::write(dir.path().join("claims.csv"), bytes).unwrap();
    assert_input_error(
        &run(dir.path(), &["audit", "--claims", "claims.csv"]),
        &[
            "row 2",
            "`b` + `c` is 27670116110564327422",
            "no holdout has more than 1099511627776 discordant pairs",
        ],
    );
}

/// Regression: `audit --report-dir r` with a claim whose score file
/// is `r/audit.md` exited 0 and wrote the report over that score file, since only the
/// claims file was guarded. The score files a claim names are inputs now: exit 2
/// naming both, and the file keeps its bytes.
#[test]
fn audit_refuses_to_write_its_report_over_a_score_file_a_claim_names() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("r")).unwrap();
    let rows = |correct: u8| -> String {
        (0..8).fold("task_id,correct,score\n".to_string(), |text, i| {
            text + &format!("p{i}:id,{correct},{correct}\n")
        })
    };
    write(dir.path(), "r/audit.md", &rows(0));
    write(dir.path(), "c.csv", &rows(1));
    write(
        dir.path(),
        "claims.csv",
        "claim_id,baseline_scores,candidate_scores\nx,r/audit.md,c.csv\n",
    );
    let before = fs::read(dir.path().join("r/audit.md")).unwrap();
    assert_input_error(
        &run(
            dir.path(),
            &["audit", "--claims", "claims.csv", "--report-dir", "r"],
        ),
        &[
            "would be written over the input",
            "audit.md",
            "a score file --claims names",
        ],
    );
    assert_eq!(fs::read(dir.path().join("r/audit.md")).unwrap(), before);
    assert!(!dir.path().join("r/audit.json").exists());
}
