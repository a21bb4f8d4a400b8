//! `--alpha`: one rule for the level in every command that takes one.

use crate::util::{papers, run, write};

#[test]
fn every_command_refuses_a_level_of_0_6_with_the_same_words() {
    let dir = tempfile::tempdir().unwrap();
    let scores = "task_id,score\na,0\nb,1\n";
    write(dir.path(), "b.csv", scores);
    write(dir.path(), "c.csv", scores);
    write(
        dir.path(),
        "claims.csv",
        "claim_id,description,b,c\nc1,x,1,5\n",
    );
    let truth = papers().display().to_string();
    let commands: [&[&str]; 4] = [
        &["power", "--n", "24", "--alpha", "0.6"],
        &[
            "admit",
            "--baseline",
            "b.csv",
            "--candidate",
            "c.csv",
            "--alpha",
            "0.6",
        ],
        &["audit", "--claims", "claims.csv", "--alpha", "0.6"],
        &["split", "--truth", &truth, "--out", "s", "--alpha", "0.6"],
    ];
    let expected = "error: --alpha 0.6 is outside (0, 0.5): a one-sided level such as 0.05 is needed (its 1 - 2*alpha interval must exist)\n";
    for args in commands {
        let result = run(dir.path(), args);
        assert_eq!(result.code, 2, "{args:?}: {}", result.stderr);
        assert_eq!(result.stderr, expected, "{args:?}");
        assert_eq!(result.stdout, "", "{args:?}");
    }
    assert!(!dir.path().join("s").exists(), "split wrote nothing");
}
