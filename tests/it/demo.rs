//! `evogate demo`: the committed `reports/demo/` is byte for byte what a fresh run
//! writes, from the repository root or any other folder, and its verdicts carry the
//! p-values that counting gives for its discordant pairs.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::run;

const HINT: &str = "run `cargo run --release -- demo` and commit reports/demo";

fn repository() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `root`, by its path relative to `root`.
fn files_under(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}; {HINT}", dir.display()))
        {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(name, fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// Fails with the first difference and the fix.
fn assert_same_folder(committed: &Path, fresh: &Path) {
    let old = files_under(committed);
    let new = files_under(fresh);
    let old_names: Vec<&String> = old.keys().collect();
    let new_names: Vec<&String> = new.keys().collect();
    assert_eq!(
        old_names, new_names,
        "reports/demo holds other files than a fresh run writes; {HINT}"
    );
    for (name, bytes) in &old {
        if bytes == &new[name] {
            continue;
        }
        let old_text = String::from_utf8_lossy(bytes);
        let new_text = String::from_utf8_lossy(&new[name]);
        let line = old_text
            .lines()
            .zip(new_text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(old_text.lines().count().min(new_text.lines().count()));
        panic!(
            "reports/demo/{name} differs from a fresh run at line {}:\n  committed: {:?}\n  fresh:     {:?}\n{HINT}",
            line + 1,
            old_text.lines().nth(line).unwrap_or(""),
            new_text.lines().nth(line).unwrap_or("")
        );
    }
}

#[test]
fn the_committed_demo_equals_a_fresh_run_from_another_folder() {
    let dir = tempfile::tempdir().unwrap();
    // The temporary folder has no data/: the demo uses the repository it was built in.
    let out = run(dir.path(), &["demo", "--out", "fresh"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.ends_with("wrote the demo to fresh\n"),
        "{}",
        out.stdout
    );
    assert_same_folder(
        &repository().join("reports/demo"),
        &dir.path().join("fresh"),
    );
}

#[test]
fn the_demo_from_the_repository_root_admits_the_candidate_and_refuses_the_regression() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("demo");
    let out = run(&repository(), &["demo", "--out", target.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_same_folder(&repository().join("reports/demo"), &target);
    assert!(
        out.stdout.contains("candidate against baseline: admitted"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("regressing against baseline: refused"));
    // The benchmark verifiers' examples are graded in a section of their own that
    // writes nothing into the demo folder (compared whole above).
    assert!(out.stdout.contains(
        "verify: the benchmark verifiers on their examples in data/ (correct): numeric 15/30, choice 15/27, short 12/30"
    ));
    assert!(
        out.stdout
            .contains("regressed significantly on kind=first_author")
    );
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&fs::read(target.join(name)).unwrap()).unwrap()
    };
    let admitted = read("admission.json");
    assert_eq!(admitted["verdict"], "admitted");
    assert_eq!(admitted["n"], 136);
    assert_eq!(admitted["discordant"]["baseline_only"], 2);
    assert_eq!(admitted["discordant"]["candidate_only"], 25);
    // P(X >= 25 | n 27) = (C(27,25) + C(27,26) + C(27,27)) / 2^27 = 379 / 2^27.
    assert_eq!(admitted["p_improvement"], 2.82377004623e-6);
    // The holdout is 34 papers x 4 kinds; 0.5^5 < 0.05 <= 0.5^4 gives 5/136.
    assert_eq!(admitted["min_detectable_shift"], 0.0367647058824);
    // scipy 1.17.1 brentq on the exact power at discordance max(observed, shift), as in
    // stats/tests/power.rs: 0.0985983278619 for 136 pairs at 27/136, 0.189794152958 for
    // 34 pairs at 0 (first_author: the arms agree on all 34).
    let close = |value: &serde_json::Value, expected: f64| {
        (value.as_f64().unwrap() - expected).abs() < 1e-8
    };
    assert!(close(
        &admitted["min_detectable_shift_80_power"],
        0.09859832786186602
    ));
    assert_eq!(admitted["strata"][0]["value"], "first_author");
    assert!(close(
        &admitted["strata"][0]["regression_detectable_80_power"],
        0.18979415295811028
    ));
    assert!(admitted["tasks_needed"].is_null());
    assert!(
        admitted["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["result"] == "pass")
    );
    let refused = read("regressing/admission.json");
    assert_eq!(refused["verdict"], "refused");
    // b 16, c 25: the sum of C(41, k) for k >= 25 over 2^41 = 232022899306 / 2^41.
    assert_eq!(refused["p_improvement"], 0.105511798804);
    let author = refused["strata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["value"] == "first_author")
        .unwrap();
    // Sixteen losses and no wins on first authors: 2^-16.
    assert_eq!(author["p_regression"], 0.0000152587890625);
    assert_eq!(author["significant_regression"], true);
    let manifest = fs::read_to_string(target.join("split/manifest.json")).unwrap();
    assert!(
        manifest.contains("\"path\": \"data/arxiv/papers.csv\""),
        "{manifest}"
    );
}

#[test]
fn no_demo_file_holds_an_absolute_path() {
    let repo = repository();
    let root = repo.to_string_lossy();
    for (name, bytes) in files_under(&repo.join("reports/demo")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(root.as_ref()),
            "reports/demo/{name} names {root}"
        );
        assert!(
            !text.contains("/tmp/"),
            "reports/demo/{name} names a temporary folder"
        );
    }
}
