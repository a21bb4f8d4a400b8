//! The README's commands work as printed: its first hour (from the demo to one's own
//! truth file, split, outputs, scores and an admission) runs in an empty folder with
//! `evogate` on PATH, and its CI workflow is the file `.ci/run` lints.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn readme() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The fenced block between `<!-- NAME:begin ...-->` and `<!-- NAME:end -->`.
fn block(text: &str, name: &str) -> String {
    let begin = text
        .find(&format!("<!-- {name}:begin"))
        .unwrap_or_else(|| panic!("README.md has no {name}:begin marker"));
    let end = text[begin..]
        .find(&format!("<!-- {name}:end -->"))
        .unwrap_or_else(|| panic!("README.md has no {name}:end marker"))
        + begin;
    let fenced = &text[begin..end];
    let body = &fenced[fenced.find("```").unwrap()..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.rfind("```").unwrap()].to_string()
}

#[test]
fn the_first_hour_runs_as_printed_and_admits_the_candidate() {
    let script = block(&readme(), "first-hour");
    let dir = tempfile::tempdir().unwrap();
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_evogate"));
    let path = std::env::join_paths(
        std::iter::once(binary.parent().unwrap().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    // Every command must succeed: -e stops at the first that does not.
    let output = Command::new("bash")
        .args(["-e", "-o", "pipefail", "-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("holdout     24 tasks from   12 groups"),
        "{stdout}"
    );
    assert!(stdout.contains("scored 24 tasks: 12 correct; wrote runs/baseline-scores.csv"));
    assert!(stdout.contains("scored 24 tasks: 24 correct; wrote runs/candidate-scores.csv"));
    let report: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.path().join("reports/pr-42/admission.json")).unwrap())
            .unwrap();
    assert_eq!(report["verdict"], "admitted");
    assert_eq!(report["discordant"]["candidate_only"], 12);
    assert_eq!(report["discordant"]["baseline_only"], 0);
    // McNemar exact, one-sided: 12 discordant pairs all won, 2^-12.
    assert_eq!(report["p_improvement"], 0.000244140625);
    assert!(dir.path().join("demo/admission.md").is_file());
    let truth = fs::read_to_string(dir.path().join("data/truth.csv")).unwrap();
    assert_eq!(truth.lines().count(), 41, "a header and 40 facts");
}

#[test]
fn the_readme_workflow_is_the_file_that_ci_lints() {
    let shown = block(&readme(), "workflow");
    let file = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/workflows/admit.yml"),
    )
    .unwrap();
    assert_eq!(
        shown, file,
        "README.md's workflow differs from examples/workflows/admit.yml"
    );
}
