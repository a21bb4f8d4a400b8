//! Cell values printed to a terminal: an escape sequence, an OSC 52 clipboard write or a
//! bidirectional override in an input file is shown as text, never run, whichever
//! command prints it.

use crate::util::{Run, run, write};

/// Clears the screen, writes "hi" to the clipboard (OSC 52, ended by BEL), reverses the
/// text that follows, and opens a C1 control sequence.
const HOSTILE: &str = "x\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\u{202E}y\u{9b}31m";

/// Runs `args` in `dir`, and asserts it found a problem (exit 1), that nothing it
/// printed can act on a terminal, and that the hostile value is shown.
fn assert_inert(dir: &std::path::Path, args: &[&str]) {
    let result: Run = run(dir, args);
    assert_eq!(result.code, 1, "{}", result.stderr);
    for printed in [&result.stdout, &result.stderr] {
        let active: Vec<char> = printed
            .chars()
            .filter(|&c| (c.is_control() && c != '\n') || c == '\u{202E}')
            .collect();
        assert!(active.is_empty(), "{active:?} in {printed}");
    }
    assert!(
        result
            .stdout
            .contains("x\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}\\u{202e}y\\u{9b}31m"),
        "{}",
        result.stdout
    );
}

#[test]
fn truth_check_shows_a_hostile_id_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let truth = format!("arxiv_id,title,first_author,year\n{HOSTILE},A title,An Author,2017\n");
    write(dir.path(), "papers.csv", &truth);
    assert_inert(dir.path(), &["truth", "check", "papers.csv"]);
}

#[test]
fn split_check_shows_a_hostile_group_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let row = format!("{HOSTILE}:year,{HOSTILE},year,When?\n");
    for name in ["train", "val", "holdout"] {
        let rows = if name == "val" {
            String::new()
        } else {
            row.clone()
        };
        write(
            dir.path(),
            &format!("{name}.csv"),
            &format!("task_id,group,kind,prompt\n{rows}"),
        );
    }
    assert_inert(dir.path(), &["split", "--check", "."]);
}

#[test]
fn audit_shows_a_hostile_claim_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let claims = format!("claim_id,description,b,c\n{HOSTILE},{HOSTILE},1,5\n");
    write(dir.path(), "claims.csv", &claims);
    assert_inert(dir.path(), &["audit", "--claims", "claims.csv"]);
}
