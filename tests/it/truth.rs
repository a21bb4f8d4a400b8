//! `evogate truth check`: the shipped truth is clean; every kind of problem is found
//! with its row.

use crate::util::{assert_input_error, papers, run, write};

#[test]
fn shipped_ground_truth_has_136_papers_and_no_problems() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), &["truth", "check", papers().to_str().unwrap()]);
    assert_eq!(result.code, 0, "{}{}", result.stdout, result.stderr);
    assert!(
        result.stdout.contains("136 papers, no problems"),
        "{}",
        result.stdout
    );
}

#[test]
fn reports_each_problem_with_its_row_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "bad.csv",
        "arxiv_id,title,first_author,year\n\
         1706.03762,Attention Is All You Need,Ashish Vaswani,2017\n\
         1706.03762,Another Title,Someone Else,2017\n\
         1810.04805,attention is all you need,Jacob Devlin,2018\n\
         1913.01234,A Bad Month,Ann Author,2019\n\
         2005.14165,Language Models are Few-Shot Learners,Tom B. Brown,2021\n\
         2106.09685,,Edward J. Hu,2021\n",
    );
    let result = run(dir.path(), &["truth", "check", &file]);
    assert_eq!(result.code, 1, "{}{}", result.stdout, result.stderr);
    for row in ["row 3", "row 4", "row 5", "row 6", "row 7"] {
        assert!(
            result.stdout.contains(&format!("`bad.csv` {row}: ")),
            "no problem on {row}:\n{}",
            result.stdout
        );
    }
}

#[test]
fn an_unreadable_truth_file_exits_2_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), &["truth", "check", "missing.csv"]);
    assert_input_error(&result, &["`missing.csv`", "cannot read"]);
    write(
        dir.path(),
        "cols.csv",
        "arxiv_id,title\n1706.03762,Attention Is All You Need\n",
    );
    let result = run(dir.path(), &["truth", "check", "cols.csv"]);
    assert_input_error(&result, &["`cols.csv`", "no column `first_author`"]);
}
