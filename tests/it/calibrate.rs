//! `evogate calibrate`: flip rates counted by hand, the gate's verdicts on every pair of
//! runs equal to `admit`'s on the same files, repeats within one file as runs, the exit
//! status (0 when no A/A pair is admitted), and the three report formats.

use std::path::Path;

use crate::util::{assert_input_error, run, write};

/// A scores file with `correct` and `kind` from (item, kind, correct) rows.
fn scores(rows: &[(&str, &str, u8)]) -> String {
    let mut text = "task_id,kind,correct,score\n".to_string();
    for (item, kind, correct) in rows {
        text.push_str(&format!("{item},{kind},{correct},{correct}\n"));
    }
    text
}

fn calibrate(dir: &Path, args: &[&str]) -> crate::util::Run {
    let mut all = vec!["calibrate"];
    all.extend_from_slice(args);
    run(dir, &all)
}

fn json(out: &crate::util::Run) -> serde_json::Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// Three runs of one skill on six items: x1 right in runs 1 and 2 only, x2 right in run
/// 3 only, the others the same in every run.
fn three_runs(dir: &Path) {
    let items = ["x1", "x2", "y1", "y2", "y3", "y4"];
    let kinds = ["x", "x", "y", "y", "y", "y"];
    let outcomes: [[u8; 6]; 3] = [[1, 0, 1, 1, 0, 0], [1, 0, 1, 1, 0, 0], [0, 1, 1, 1, 0, 0]];
    for (r, outcome) in outcomes.iter().enumerate() {
        let rows: Vec<(&str, &str, u8)> =
            (0..6).map(|i| (items[i], kinds[i], outcome[i])).collect();
        write(dir, &format!("run{}.csv", r + 1), &scores(&rows));
    }
}

#[test]
fn flip_rates_are_the_share_of_run_pairs_that_differ_on_each_item_and_stratum() {
    let dir = tempfile::tempdir().unwrap();
    three_runs(dir.path());
    let out = calibrate(
        dir.path(),
        &[
            "--runs", "run1.csv", "run2.csv", "run3.csv", "--format", "json",
        ],
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let report = json(&out);
    assert_eq!(report["schema"], "evogate/calibrate/v1");
    assert_eq!(report["verdict"], "quiet");
    let flips = &report["flips"];
    assert_eq!(flips["runs"], 3);
    assert_eq!(flips["run_pairs"], 3);
    assert_eq!(flips["items"], 6);
    // x1 and x2 each differ in 2 of the 3 run pairs (1-3 and 2-3); nothing else moves.
    assert_eq!(flips["items_that_flip"], 2);
    assert!((flips["share_that_flip"].as_f64().unwrap() - 2.0 / 6.0).abs() < 1e-12);
    assert!((flips["flip_rate"].as_f64().unwrap() - (4.0 / 3.0) / 6.0).abs() < 1e-12);
    let first = &flips["per_item"][0];
    assert_eq!(first["task_id"], "x1");
    assert_eq!(first["differing_pairs"], 2);
    assert_eq!(first["runs_correct"], 2);
    assert!((first["flip_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(flips["per_item"][1]["task_id"], "x2");
    assert_eq!(flips["per_item"][1]["runs_correct"], 1);
    assert_eq!(flips["strata"][0]["value"], "x");
    assert_eq!(flips["strata"][0]["items_that_flip"], 2);
    assert!((flips["strata"][0]["flip_rate"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(flips["strata"][1]["value"], "y");
    assert_eq!(flips["strata"][1]["flip_rate"], 0.0);
    // Six ordered pairs of three runs, none admitted on six items.
    assert_eq!(report["pairs"].as_array().unwrap().len(), 6);
    assert_eq!(report["aa"]["admitted"], 0);
    // The A/A discordance is the mean share of items two runs disagree on: 0, 2/6, 2/6.
    let psi = report["noise"]["discordance"].as_f64().unwrap();
    assert!((psi - (4.0 / 6.0) / 3.0).abs() < 1e-12, "{psi}");
}

#[test]
fn each_pair_is_decided_exactly_as_admit_decides_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut base = Vec::new();
    let mut better = Vec::new();
    let names: Vec<String> = (0..30).map(|i| format!("t{i:02}")).collect();
    for (i, name) in names.iter().enumerate() {
        base.push((name.as_str(), "k", u8::from(i % 3 == 0)));
        better.push((name.as_str(), "k", u8::from(i % 3 == 0 || i < 12)));
    }
    write(dir.path(), "a.csv", &scores(&base));
    write(dir.path(), "b.csv", &scores(&better));
    let out = calibrate(
        dir.path(),
        &["--runs", "a.csv", "b.csv", "--format", "json"],
    );
    // An A/B pair given as runs: the gate admits b over a, so calibrate exits 1.
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let report = json(&out);
    assert_eq!(report["verdict"], "noisy");
    assert_eq!(report["aa"]["admitted"], 1);
    for pair in report["pairs"].as_array().unwrap() {
        let admit = run(
            dir.path(),
            &[
                "admit",
                "--baseline",
                pair["baseline"].as_str().unwrap(),
                "--candidate",
                pair["candidate"].as_str().unwrap(),
                "--format",
                "json",
            ],
        );
        let decided: serde_json::Value = serde_json::from_str(&admit.stdout).unwrap();
        assert_eq!(pair["verdict"], decided["verdict"]);
        assert_eq!(pair["p_improvement"], decided["p_improvement"]);
        assert_eq!(pair["p_regression"], decided["p_regression"]);
        assert_eq!(pair["difference"], decided["delta"]["estimate"]);
    }
}

#[test]
fn repeats_within_one_file_are_runs_read_as_admit_reads_repeats() {
    let dir = tempfile::tempdir().unwrap();
    three_runs(dir.path());
    let separate = json(&calibrate(
        dir.path(),
        &[
            "--runs", "run1.csv", "run2.csv", "run3.csv", "--format", "json",
        ],
    ));
    // `import --repeats all`: `<item>#<r>` with the item as `group`, rows in any order.
    let mut hashed = "task_id,group,kind,correct,score\n".to_string();
    for r in [3, 1, 2] {
        let file = std::fs::read_to_string(dir.path().join(format!("run{r}.csv"))).unwrap();
        for line in file.lines().skip(1) {
            let (item, rest) = line.split_once(',').unwrap();
            hashed.push_str(&format!("{item}#{r},{item},{rest}\n"));
        }
    }
    write(dir.path(), "hashed.csv", &hashed);
    let out = calibrate(dir.path(), &["--runs", "hashed.csv", "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    let names: Vec<&str> = report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hashed.csv#1", "hashed.csv#2", "hashed.csv#3"]);
    assert_eq!(report["flips"], separate["flips"]);
    assert_eq!(report["noise"], separate["noise"]);
    // An item twice in one repeat is named with both rows; so is a row run once
    // beside repeats.
    write(
        dir.path(),
        "twice.csv",
        "task_id,group,correct,score\na#1,a,1,1\nb#1,b,0,0\na#2,a,1,1\na#1,a,0,0\nb#2,b,0,0\n",
    );
    assert_input_error(
        &calibrate(dir.path(), &["--runs", "twice.csv"]),
        &["`twice.csv` row 5: item `a` has repeat 1 twice (also row 2)"],
    );
    write(
        dir.path(),
        "mixed.csv",
        "task_id,group,correct,score\na#1,a,1,1\nb,b,0,0\na#2,a,1,1\n",
    );
    assert_input_error(
        &calibrate(dir.path(), &["--runs", "mixed.csv"]),
        &["`mixed.csv` row 3: task `b` is not a repeat"],
    );
}

#[test]
fn one_run_is_not_enough_and_a_missing_item_is_named() {
    let dir = tempfile::tempdir().unwrap();
    three_runs(dir.path());
    assert_input_error(
        &calibrate(dir.path(), &["--runs", "run1.csv"]),
        &["calibrate needs two or more runs of the same skill, and 1 run was given"],
    );
    write(
        dir.path(),
        "short.csv",
        &scores(&[("x1", "x", 1), ("x2", "x", 0), ("y1", "y", 1)]),
    );
    let out = calibrate(dir.path(), &["--runs", "run1.csv", "short.csv"]);
    assert_input_error(&out, &["short.csv"]);
    let out = calibrate(
        dir.path(),
        &["--runs", "run1.csv", "run2.csv", "--power", "1"],
    );
    assert_input_error(&out, &["--power 1 is outside (0, 1)"]);
}

#[test]
fn placebo_pairs_are_decided_both_ways_and_do_not_set_the_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    three_runs(dir.path());
    let items = ["x1", "x2", "y1", "y2", "y3", "y4"];
    let rows: Vec<(&str, &str, u8)> = items
        .iter()
        .enumerate()
        .map(|(i, item)| (*item, if i < 2 { "x" } else { "y" }, 1))
        .collect();
    write(dir.path(), "placebo.csv", &scores(&rows));
    let out = calibrate(
        dir.path(),
        &[
            "--runs",
            "run1.csv",
            "run2.csv",
            "--placebo",
            "placebo.csv",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    let arms: Vec<&str> = report["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["arms"].as_str().unwrap())
        .collect();
    assert_eq!(
        arms,
        [
            "A/A",
            "A/A",
            "A/placebo",
            "placebo/A",
            "A/placebo",
            "placebo/A"
        ]
    );
    let placebo = &report["placebo"];
    let total = placebo["admitted"].as_u64().unwrap()
        + placebo["refused"].as_u64().unwrap()
        + placebo["inconclusive"].as_u64().unwrap();
    assert_eq!(total, 4);
    assert_eq!(report["flips"]["runs"], 2);
    assert_eq!(report["inputs"][2]["role"], "placebo");
}

#[test]
fn text_and_markdown_say_the_same_and_the_report_folder_holds_both_files() {
    let dir = tempfile::tempdir().unwrap();
    three_runs(dir.path());
    let args = ["--runs", "run1.csv", "run2.csv", "run3.csv"];
    let text = calibrate(dir.path(), &args);
    assert_eq!(text.code, 0);
    assert!(
        text.stdout
            .starts_with("quiet: the gate admitted 0 of 6 A/A pairs at alpha 0.05\n"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains(
            "flips:      2 of 6 items flip across 3 runs (33.3%); mean flip rate 0.2222\n"
        ),
        "{}",
        text.stdout
    );
    // The flipping items by name, as in the Markdown's table.
    assert!(
        text.stdout.contains(
            "items:      the items that flip, highest flip rate first\n  x1                       flip rate 0.6667, right in 2 of 3 runs\n  x2                       flip rate 0.6667, right in 1 of 3 runs\nnoise:"
        ),
        "{}",
        text.stdout
    );
    let mut with_dir = args.to_vec();
    with_dir.extend(["--format", "markdown", "--report-dir", "cal"]);
    let md = calibrate(dir.path(), &with_dir);
    assert!(
        md.stdout.starts_with("## evogate calibrate: quiet\n"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("| x1 | x | 0.6667 | 2 of 3 | 0.6667 |"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("### Verdicts on every pair of runs"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("cal/calibrate.md")).unwrap(),
        md.stdout
    );
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("cal/calibrate.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(written["schema"], "evogate/calibrate/v1");
    // Same input, same bytes.
    let again = calibrate(dir.path(), &with_dir);
    assert_eq!(again.stdout, md.stdout);
}

#[test]
fn scores_flip_when_they_differ_and_their_noise_is_the_spread_of_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "s1.csv",
        "task_id,score\na,1\nb,0.5\nc,0\nd,1\n",
    );
    write(
        dir.path(),
        "s2.csv",
        "task_id,score\na,1\nb,0\nc,0\nd,0.5\n",
    );
    let out = calibrate(
        dir.path(),
        &["--runs", "s1.csv", "s2.csv", "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report = json(&out);
    assert_eq!(report["test"]["name"], "signed-rank");
    assert_eq!(report["flips"]["items_that_flip"], 2);
    assert_eq!(report["flips"]["flip_rate"], 0.5);
    // The flipping items first (by id), each with its mean score over the runs.
    let items = report["flips"]["per_item"].as_array().unwrap();
    let listed: Vec<(&str, f64)> = items
        .iter()
        .map(|i| {
            (
                i["task_id"].as_str().unwrap(),
                i["mean_score"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(listed, [("b", 0.25), ("d", 0.75), ("a", 1.0), ("c", 0.0)]);
    assert_eq!(items[0]["runs_correct"], serde_json::Value::Null);
    // Differences 0, -0.5, 0, -0.5: sample variance 0.25/3, sd 0.288675134595.
    let sd = report["noise"]["sd"].as_f64().unwrap();
    assert!((sd - (0.25_f64 / 3.0).sqrt()).abs() < 1e-12, "{sd}");
    assert_eq!(report["noise"]["discordance"], serde_json::Value::Null);
    assert_eq!(
        report["noise"]["min_detectable_shift"],
        serde_json::Value::Null
    );
}

/// C(n, k) as f64 (exact for the small n used here).
fn choose(n: u64, k: u64) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The one-sided exact McNemar test's power on `n` pairs at discordance `psi` and shift
/// `delta`, by enumerating every (b, c): a pair is won with probability (ψ + δ)/2, lost
/// with (ψ − δ)/2, and the test rejects when P(Binomial(b + c, ½) ≥ c) < alpha.
fn mcnemar_power_by_enumeration(n: u64, psi: f64, delta: f64, alpha: f64) -> f64 {
    let (won, lost, same) = ((psi + delta) / 2.0, (psi - delta) / 2.0, 1.0 - psi);
    let mut power = 0.0;
    for d in 0..=n {
        for c in 0..=d {
            let p_value: f64 = (c..=d).map(|x| choose(d, x)).sum::<f64>() / 2f64.powi(d as i32);
            if p_value < alpha {
                power += choose(n, d)
                    * choose(d, c)
                    * won.powi(c as i32)
                    * lost.powi((d - c) as i32)
                    * same.powi((n - d) as i32);
            }
        }
    }
    power
}

#[test]
fn the_detectable_shift_on_0_1_outcomes_is_where_mcnemars_exact_power_reaches_the_target() {
    // 40 items; the two runs disagree on 8 of them, 4 each way: ψ = 0.2.
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..40).map(|i| format!("t{i:02}")).collect();
    let one: Vec<(&str, &str, u8)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), "k", u8::from(i < 4 || (8..20).contains(&i))))
        .collect();
    let two: Vec<(&str, &str, u8)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), "k", u8::from((4..20).contains(&i))))
        .collect();
    write(dir.path(), "r1.csv", &scores(&one));
    write(dir.path(), "r2.csv", &scores(&two));
    let out = calibrate(
        dir.path(),
        &["--runs", "r1.csv", "r2.csv", "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let noise = &json(&out)["noise"];
    assert_eq!(noise["discordance"], 0.2);
    assert_eq!(noise["method"], "exact");
    // k/n: 5 discordant pairs all won reach p = 1/32 < 0.05, 4 cannot.
    assert_eq!(noise["min_detectable_shift"], 5.0 / 40.0);
    let shift = noise["detectable_shift"].as_f64().unwrap();
    let at = mcnemar_power_by_enumeration(40, 0.2, shift, 0.05);
    let below = mcnemar_power_by_enumeration(40, 0.2, shift - 1e-6, 0.05);
    assert!(at >= 0.8 - 1e-12 && below < 0.8, "{shift}: {below} .. {at}");
}

#[test]
fn the_detectable_shift_on_scores_is_the_normal_shift_at_the_spread_of_the_differences() {
    let dir = tempfile::tempdir().unwrap();
    let one = [0.2, 0.4, 0.9, 1.0, 0.0, 0.5, 0.7, 0.3, 0.6, 0.8];
    let two = [0.3, 0.4, 0.6, 1.0, 0.1, 0.5, 0.9, 0.3, 0.2, 0.8];
    for (name, values) in [("s1.csv", one), ("s2.csv", two)] {
        let mut text = "task_id,score\n".to_string();
        for (i, v) in values.iter().enumerate() {
            text.push_str(&format!("t{i},{v}\n"));
        }
        write(dir.path(), name, &text);
    }
    let out = calibrate(
        dir.path(),
        &["--runs", "s1.csv", "s2.csv", "--format", "json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let noise = &json(&out)["noise"];
    let d: Vec<f64> = one.iter().zip(two).map(|(a, b)| b - a).collect();
    let mean = d.iter().sum::<f64>() / 10.0;
    let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 9.0).sqrt();
    // scipy.stats.norm.ppf(0.95) + scipy.stats.norm.ppf(0.8).
    let z = 1.6448536269514722 + 0.8416212335729143;
    let expected = z * sd / 10f64.sqrt();
    let shift = noise["detectable_shift"].as_f64().unwrap();
    assert!((noise["sd"].as_f64().unwrap() - sd).abs() < 1e-12);
    assert!((shift - expected).abs() < 1e-9, "{shift} vs {expected}");
    assert_eq!(noise["method"], "normal");
}
