//! `admit --cluster group` and `admit --ledger`: the two ways a correct test misleads.

use crate::util::{evidence, run, write};

/// Five papers of four tasks each; the candidate wins every task of four papers and
/// loses every task of the fifth, so the tasks of a paper move together.
fn clustered(dir: &std::path::Path) {
    let mut base = String::from("task_id,group,kind,correct,score\n");
    let mut cand = base.clone();
    for paper in 0..5 {
        for kind in ["id", "title", "first_author", "year"] {
            let won = paper < 4;
            let (b, c) = if won { (0, 1) } else { (1, 0) };
            base.push_str(&format!("p{paper}:{kind},p{paper},{kind},{b},{b}\n"));
            cand.push_str(&format!("p{paper}:{kind},p{paper},{kind},{c},{c}\n"));
        }
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

/// Runs `admit` on the clustered fixture, strata off, with `extra` arguments.
fn admit(dir: &std::path::Path, extra: &[&str]) -> crate::util::Run {
    let mut args = vec![
        "admit",
        "--baseline",
        "b.csv",
        "--candidate",
        "c.csv",
        "--strata",
        "none",
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

#[test]
fn task_level_admits_what_the_cluster_test_refuses_and_warns_of_the_design_effect() {
    let dir = tempfile::tempdir().unwrap();
    clustered(dir.path());
    // Task level: b 4, c 16, P(X ≥ 16 | 20) = 6196/2^20 = 0.005909.
    let tasks = admit(dir.path(), &["--format", "json"]);
    assert_eq!(tasks.code, 0, "{}", tasks.stderr);
    let json: serde_json::Value = serde_json::from_str(&tasks.stdout).unwrap();
    assert!(
        (json["p_improvement"].as_f64().unwrap() / (6196.0 / 1048576.0) - 1.0).abs() < 1e-11,
        "the report keeps 12 significant digits"
    );
    // Residuals +0.4 (16 tasks) and -1.6 (4): naive 12.8, cluster-robust 51.2, ratio 4.
    assert!((json["cluster"]["design_effect"].as_f64().unwrap() - 4.0).abs() < 1e-12);
    assert!(
        tasks.stderr.contains("design effect 4.00 > 1.5"),
        "{}",
        tasks.stderr
    );
    // Clusters: four means +1 and one -1, all tied: P(at most one negative) = 6/32.
    let clusters = admit(dir.path(), &["--cluster", "group", "--format", "json"]);
    assert_eq!(clusters.code, 1, "{}", clusters.stderr);
    let json: serde_json::Value = serde_json::from_str(&clusters.stdout).unwrap();
    assert_eq!(json["cluster"]["p_improvement"].as_f64(), Some(0.1875));
    assert_eq!(json["verdict"], "refused");
    let criterion = evidence(&json, "clustered-improvement-significant").unwrap();
    assert_eq!(criterion["result"], "fail");
    // The minimum detectable shift is the clusters': 5 clusters at k = 5 gives 1.
    assert_eq!(json["min_detectable_shift"].as_f64(), Some(1.0));
}

#[test]
fn the_ledger_spends_alpha_across_attempts_on_one_holdout() {
    let dir = tempfile::tempdir().unwrap();
    clustered(dir.path());
    let mut alphas = Vec::new();
    crate::util::write_manifest(
        dir.path(),
        &crate::util::first_column(&dir.path().join("b.csv")),
    );
    let candidate = std::fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let (header, rows) = candidate.split_once('\n').unwrap();
    for attempt in 1..=3u64 {
        // Each attempt a new candidate file (the same rows in another order): the same
        // file again would repeat attempt 1 and spend nothing.
        let mut lines: Vec<&str> = rows.lines().collect();
        lines.rotate_left(attempt as usize);
        write(
            dir.path(),
            "c.csv",
            &format!("{header}\n{}\n", lines.join("\n")),
        );
        let result = admit(
            dir.path(),
            &[
                &crate::util::LEDGER_WITH_MANIFEST[..],
                &["--format", "json"],
            ]
            .concat(),
        );
        let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
        assert_eq!(json["ledger"]["attempt"].as_u64(), Some(attempt));
        let alpha = json["ledger"]["alpha_this_attempt"].as_f64().unwrap();
        // alpha_k = 0.05 · 6 / (π² k²).
        let expected = 0.05 * 6.0 / (std::f64::consts::PI.powi(2) * (attempt * attempt) as f64);
        assert!(
            (alpha / expected - 1.0).abs() < 1e-11,
            "{alpha} vs {expected}"
        );
        assert_eq!(
            json["alpha"].as_f64(),
            Some(alpha),
            "the decision is made at the attempt's alpha"
        );
        alphas.push(alpha);
        // p 0.005909 is below alpha_1 = 0.0304 and alpha_2 = 0.0076 but not alpha_3 = 0.0034.
        assert_eq!(
            result.code,
            if attempt < 3 { 0 } else { 1 },
            "attempt {attempt}: {}",
            result.stderr
        );
    }
    let lines = std::fs::read_to_string(dir.path().join("ledger.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 3);
    assert!(alphas.iter().sum::<f64>() < 0.05);
    let show = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_eq!(show.code, 0);
    assert!(
        show.stdout.contains("3 attempts, 2 admitted"),
        "{}",
        show.stdout
    );
}
