//! `evogate power`: the best-case detectable shift, the n a shift needs, and bad input.

use crate::util::{assert_input_error, run};

fn power(args: &[&str]) -> crate::util::Run {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["power"];
    all.extend_from_slice(args);
    run(dir.path(), &all)
}

#[test]
fn minimum_detectable_shift_is_k_over_n() {
    // k = 5 at alpha 0.05 (0.5^5 = 0.03125 < 0.05 ≤ 0.5^4) and at 1/16 (0.5^4 is not below it).
    for (args, expected) in [
        (vec!["--n", "6"], "n 6: minimum detectable shift 0.8333\n"),
        (vec!["--n", "10"], "n 10: minimum detectable shift 0.5\n"),
        (vec!["--n", "100"], "n 100: minimum detectable shift 0.05\n"),
        (
            vec!["--n", "8", "--alpha", "0.0625"],
            "n 8: minimum detectable shift 0.625\n",
        ),
        (
            vec!["--shift", "0.05"],
            "shift 0.05: smallest n whose best case detects it 100",
        ),
        (
            vec!["--n", "4"],
            "n 4: minimum detectable shift none (needs n ≥ 5)",
        ),
    ] {
        let result = power(&args);
        assert_eq!(result.code, 0, "{}", result.stderr);
        assert!(
            result.stdout.contains(expected),
            "{args:?}: {}",
            result.stdout
        );
    }
}

#[test]
fn a_table_of_n_in_json_has_exact_values() {
    let result = power(&["--n", "6,24,100,400", "--format", "json"]);
    assert_eq!(result.code, 0, "{}", result.stderr);
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    let shifts: Vec<f64> = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["min_detectable_shift"].as_f64().unwrap())
        .collect();
    assert_eq!(shifts, [5.0 / 6.0, 5.0 / 24.0, 0.05, 5.0 / 400.0]);
    assert_eq!(json["min_discordant"], 5);
}

#[test]
fn with_discordance_the_power_figures_follow_the_exact_test() {
    // At n = 400 with 20% discordance the exact one-sided test detects a shift with 80%
    // power somewhere between the best case (0.0125) and the whole discordance (0.2).
    let result = power(&["--n", "400", "--discordance", "0.2", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&result.stdout).unwrap();
    let shift = json["rows"][0]["shift_for_power"].as_f64().unwrap();
    assert!(shift > 0.0125 && shift < 0.2, "{shift}");
}

#[test]
fn bad_levels_and_counts_exit_2_saying_what_works() {
    assert_input_error(
        &power(&["--n", "6", "--alpha", "1.5"]),
        &["--alpha 1.5 is outside (0, 0.5)"],
    );
    assert_input_error(
        &power(&["--n", "6,-2"]),
        &["--n `-2`", "positive whole numbers"],
    );
    assert_input_error(&power(&["--shift", "0"]), &["--shift 0 is outside (0, 1]"]);
    assert_input_error(
        &power(&["--n", "6", "--discordance", "2"]),
        &["--discordance 2 is outside (0, 1]"],
    );
}

/// Regression: the search for the n that a 0.0001 shift needs at 80% power ran for
/// hours; it now stops at the exact-power limit and says so.
#[test]
fn a_shift_too_small_for_any_computable_holdout_says_so() {
    let out = power(&["--shift", "0.0001", "--discordance", "0.2"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("shift 0.0001: smallest n whose best case detects it 50000; with 20% of pairs disagreeing, 80% power: not within 1000000 pairs"),
        "{}",
        out.stdout
    );
}

/// Exact power saw-tooths in n: for ψ = 1, δ = 0.16, α = 0.05 it first reaches 80% at
/// n = 245 and stays there from 258 on (scipy 1.17.1 `binom.sf` sums, see
/// `stats::tests::power`); both are named, in text and in JSON.
#[test]
fn power_names_the_smallest_n_and_the_n_from_which_it_stays_above_target() {
    let text = power(&["--shift", "0.16", "--discordance", "1", "--alpha", "0.05"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout
            .contains("80% power: smallest n 245, and every n from 258 on"),
        "{}",
        text.stdout
    );
    let json = power(&[
        "--shift",
        "0.16",
        "--discordance",
        "1",
        "--alpha",
        "0.05",
        "--format",
        "json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(json["rows"][0]["smallest_n_for_power"], 245);
    assert_eq!(json["rows"][0]["n_from_which_power_stays"], 258);
}

#[test]
fn a_flag_given_without_its_mode_says_what_is_missing_not_every_flag() {
    for (args, needles) in [
        (
            vec!["--holdout", "18"],
            vec![
                "--holdout 18 is the last look of a sequential design, so it needs --sequential with --shift and --discordance",
                "give --n 18",
            ],
        ),
        (
            vec!["--sequential", "--shift", "0.1"],
            vec![
                "power --sequential needs --discordance R (the share of pairs expected to disagree)",
            ],
        ),
        (
            vec!["--sequential"],
            vec!["needs --shift D (the shift to detect) and --discordance R"],
        ),
        (vec![], vec!["power needs --n N[,N...]", "or --shift D"]),
    ] {
        let result = power(&args);
        let mut wanted = needles.clone();
        wanted.push("e.g. evogate power");
        assert_input_error(&result, &wanted);
        // One line, not clap's list of every flag of every mode as required.
        assert_eq!(
            result.stderr.lines().count(),
            1,
            "{args:?}: {}",
            result.stderr
        );
        assert!(
            !result.stderr.contains("required arguments"),
            "{}",
            result.stderr
        );
    }
}
