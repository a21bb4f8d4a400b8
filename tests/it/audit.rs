//! `evogate audit`: each kind of evidence, each verdict, and bad claims files.

use std::fs;

use crate::util::{assert_input_error, run, write};

fn shipped_claims() -> String {
    format!("{}/data/demo/claims.csv", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_kind_of_evidence_gets_its_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(
        dir.path(),
        &[
            "audit",
            "--claims",
            &shipped_claims(),
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
    let verdicts: Vec<&str> = judged
        .iter()
        .map(|j| j["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(
        verdicts,
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
    // b = 2, c = 14: sum_{k=14}^{16} C(16, k) / 2^16 = 137/65536.
    assert!((judged[3]["p_improvement"].as_f64().unwrap() - 137.0 / 65536.0).abs() < 1e-15);
    // 400 tasks at +5%: 20 tasks, best case 2^-20.
    assert_eq!(judged[4]["p_improvement"].as_f64(), Some(0.5f64.powi(20)));
    assert!(
        judged[2]["reason"]
            .as_str()
            .unwrap()
            .starts_with("6 tasks: even 1 win and no losses could not reach p < 0.05")
    );
    let md = fs::read_to_string(dir.path().join("r/audit.md")).unwrap();
    assert!(md.starts_with("# Audit: 2 of 5 claims supported"), "{md}");
    assert!(dir.path().join("r/audit.json").exists());
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
    assert!(result.stdout.contains("1 of 1 claims supported"));
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
