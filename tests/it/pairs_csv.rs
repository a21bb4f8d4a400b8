//! The report folder under hostile identifiers: `pairs.csv` neutralises task ids, groups
//! and strata a spreadsheet would run and shows control characters as every other
//! report does; `strata.svg` carries no bidirectional control.

use std::path::Path;

use crate::util::{ADMIT_B_C, run, write};

/// Identifiers a spreadsheet would run, or a terminal act on, in every id column.
const HOSTILE: [&str; 6] = [
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\t=1+1",
    "x\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\u{9b}\u{202e}y",
];

fn hostile_files(dir: &Path) {
    let header = "task_id,group,kind,correct,score,feedback\n";
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (index, id) in HOSTILE.iter().enumerate() {
        for copy in 0..10 {
            let quoted = format!("\"{}\"", id.replace('"', "\"\""));
            let task = format!("\"{copy}{}\"", id.replace('"', "\"\""));
            let (b, c) = if copy < 8 { (0, 1) } else { (1, 1) };
            base.push_str(&format!("{task},{quoted},{quoted},{b},{b},fb{index}\n"));
            cand.push_str(&format!("{task},{quoted},{quoted},{c},{c},fb{index}\n"));
        }
    }
    write(dir, "b.csv", &base);
    write(dir, "c.csv", &cand);
}

#[test]
fn pairs_csv_neutralises_identifiers_and_shows_their_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    hostile_files(dir.path());
    let args = [&ADMIT_B_C[..], &["--report-dir", "rep"]].concat();
    let done = run(dir.path(), &args);
    assert!(done.code == 0 || done.code == 1, "{}", done.stderr);
    let text = std::fs::read_to_string(dir.path().join("rep/pairs.csv")).unwrap();
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| c != '\n' && (c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)))
        .collect();
    assert!(raw.is_empty(), "raw controls {raw:?} in pairs.csv");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let mut rows = 0;
    for record in reader.records() {
        let record = record.unwrap();
        for cell in record.iter().take(3) {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "live formula {cell:?} in {record:?}"
            );
        }
        rows += 1;
    }
    assert_eq!(rows, 60);
    // The trimmed group `=1+1` and the hostile stratum, as written.
    assert!(text.contains(",'=1+1,'=1+1,"), "{text}");
    assert!(text.contains("\\u{1b}[2J"), "{text}");
    let svg = std::fs::read_to_string(dir.path().join("rep/strata.svg")).unwrap();
    assert!(!svg.contains('\u{202e}'), "a raw U+202E in strata.svg");
}
