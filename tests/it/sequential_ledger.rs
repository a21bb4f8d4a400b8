//! `admit --sequential --manifest --ledger`: a run spends its attempt at its first look
//! (an `open` record), later looks of the same run continue that attempt and the
//! deciding look closes it, an abandoned run keeps what it spent, and any other look is
//! a new candidate at the next attempt; the holdout and its order are the manifest's,
//! shared with fixed-n `admit`; an order that is not the manifest's, or that is a scores
//! file, is refused (exit 2) before anything is recorded.

use std::fs;
use std::path::Path;

use crate::util::{
    ADMIT_SEQUENTIAL_B_C, Run, assert_contains, assert_input_error, run, write, write_manifest,
};

/// The holdout t000 … t{n-1} in `manifest.json`, and `holdout.csv` listing it.
fn holdout(dir: &Path, n: usize) -> Vec<String> {
    let ids: Vec<String> = (0..n).map(|i| format!("t{i:03}")).collect();
    write_manifest(dir, &ids);
    let rows: String = ids.iter().map(|id| format!("{id}\n")).collect();
    write(dir, "holdout.csv", &format!("task_id\n{rows}"));
    ids
}

/// Scores files `b.csv` and `{candidate}` for the first tasks: (baseline correct,
/// candidate correct) for each.
fn scores(dir: &Path, candidate: &str, outcomes: &[(u8, u8)]) {
    let header = "task_id,correct,score\n";
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (i, (b, c)) in outcomes.iter().enumerate() {
        base.push_str(&format!("t{i:03},{b},{b}\n"));
        cand.push_str(&format!("t{i:03},{c},{c}\n"));
    }
    write(dir, "b.csv", &base);
    write(dir, candidate, &cand);
}

/// `admit --sequential` of `candidate` on the manifest's holdout with the ledger.
fn look(dir: &Path, candidate: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "admit",
        "--sequential",
        "--baseline",
        "b.csv",
        "--candidate",
        candidate,
        "--manifest",
        "manifest.json",
        "--ledger",
        "ledger.jsonl",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    run(dir, &args)
}

/// The attempt, its alpha and whether nothing was recorded, from a look's report.
fn attempt_of(run: &Run) -> (u64, f64, bool) {
    let report: serde_json::Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stderr));
    let ledger = &report["ledger"];
    (
        ledger["attempt"].as_u64().unwrap(),
        ledger["alpha_this_attempt"].as_f64().unwrap(),
        ledger["repeated"].as_bool().unwrap(),
    )
}

fn records(dir: &Path) -> Vec<serde_json::Value> {
    fs::read_to_string(dir.join("ledger.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// (attempt, verdict, n) of each record.
fn summary(dir: &Path) -> Vec<(u64, String, u64)> {
    records(dir)
        .iter()
        .map(|r| {
            (
                r["attempt"].as_u64().unwrap(),
                r["verdict"].as_str().unwrap().to_string(),
                r["n"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Null pairs: the candidate differs from the baseline on every third task, one way
/// then the other, so no e-process gets far.
fn null_pairs(k: usize, seed: usize) -> Vec<(u8, u8)> {
    (0..k)
        .map(|i| match (i + seed) % 6 {
            0 => (0, 1),
            3 => (1, 0),
            j => ((j % 2) as u8, (j % 2) as u8),
        })
        .collect()
}

const FIRST: f64 = 0.030396355092701331;
const SECOND: f64 = 0.007599088773175333;

#[test]
fn an_undecided_first_look_spends_its_attempt_and_the_next_candidate_takes_the_next() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 136);
    scores(dir.path(), "c1.csv", &null_pairs(40, 0));
    let first = look(dir.path(), "c1.csv", &[]);
    assert_eq!(first.code, 3, "{}", first.stderr);
    let (attempt, alpha, _) = attempt_of(&first);
    assert_eq!(attempt, 1);
    assert!((alpha - FIRST).abs() < 1e-12, "{alpha}");
    assert_eq!(summary(dir.path()), [(1, "open".to_string(), 40)]);
    // The first candidate is abandoned; the next one is attempt 2 at its smaller alpha.
    scores(dir.path(), "c2.csv", &null_pairs(40, 1));
    let second = look(dir.path(), "c2.csv", &[]);
    assert_eq!(second.code, 3, "{}", second.stderr);
    let (attempt, alpha, _) = attempt_of(&second);
    assert_eq!(attempt, 2);
    assert!((alpha - SECOND).abs() < 1e-12, "{alpha}");
    // `ledger show` counts both and names the open ones, which stay spent.
    let shown = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert_contains(&shown.stdout, ": 2 attempts (2 open), 0 admitted;");
    assert_contains(
        &shown.stdout,
        "  open: attempt 1 at alpha 0.0304 after 40 pairs",
    );
    assert_contains(&shown.stdout, "next: attempt 3 at alpha 0.00338");
}

#[test]
fn an_attempt_open_after_one_pair_is_shown_as_one_pair() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 100);
    scores(dir.path(), "c.csv", &null_pairs(1, 0));
    assert_eq!(look(dir.path(), "c.csv", &[]).code, 3);
    let shown = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert_contains(
        &shown.stdout,
        "  open: attempt 1 at alpha 0.0304 after 1 pair (undecided",
    );
}

#[test]
fn later_looks_of_one_run_continue_its_attempt_and_the_deciding_look_closes_it() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 100);
    let wins = |k: usize| vec![(0, 1); k];
    scores(dir.path(), "c.csv", &wins(5));
    assert_eq!(look(dir.path(), "c.csv", &[]).code, 3);
    // The same pairs again: nothing new to record.
    let again = look(dir.path(), "c.csv", &[]);
    assert_eq!((again.code, attempt_of(&again).0), (3, 1));
    assert_eq!(summary(dir.path()).len(), 1);
    // A growing file continues attempt 1 at its alpha, and the deciding look (8: the
    // e-value 57.7 passes 1/0.0304) closes it.
    scores(dir.path(), "c.csv", &wins(6));
    let grown = look(dir.path(), "c.csv", &[]);
    assert_eq!((grown.code, attempt_of(&grown).0), (3, 1));
    scores(dir.path(), "c.csv", &wins(12));
    let decided = look(dir.path(), "c.csv", &[]);
    assert_eq!(decided.code, 0, "{}", decided.stderr);
    let (attempt, alpha, repeated) = attempt_of(&decided);
    assert_eq!((attempt, repeated), (1, false));
    assert!((alpha - FIRST).abs() < 1e-12);
    assert_eq!(
        summary(dir.path()),
        [
            (1, "open".to_string(), 5),
            (1, "open".to_string(), 6),
            (1, "admitted".to_string(), 8)
        ]
    );
    // More pairs decide at look 8 again: a repeat, nothing spent.
    scores(dir.path(), "c.csv", &wins(20));
    let more = look(dir.path(), "c.csv", &[]);
    assert_eq!((more.code, attempt_of(&more)), (0, (1, alpha, true)));
    assert_eq!(summary(dir.path()).len(), 3);
    let shown = run(dir.path(), &["ledger", "show", "ledger.jsonl"]);
    assert_contains(&shown.stdout, ": 1 attempt, 1 admitted;");
}

#[test]
fn a_look_that_departs_from_the_runs_latest_look_is_a_new_candidate() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 136);
    let run_r = null_pairs(20, 0);
    scores(dir.path(), "r.csv", &run_r);
    assert_eq!(attempt_of(&look(dir.path(), "r.csv", &[])).0, 1);
    // The same first 10 pairs, then others: another candidate.
    let mut departs = run_r[..10].to_vec();
    departs.extend(null_pairs(10, 3));
    assert_ne!(departs, run_r);
    scores(dir.path(), "s.csv", &departs);
    assert_eq!(attempt_of(&look(dir.path(), "s.csv", &[])).0, 2);
    // R's 20 pairs and 5 more continue R.
    let mut extends = run_r.clone();
    extends.extend(null_pairs(5, 2));
    scores(dir.path(), "t.csv", &extends);
    assert_eq!(attempt_of(&look(dir.path(), "t.csv", &[])).0, 1);
    // R's first 10 pairs alone cannot be told from another candidate's: a new one.
    scores(dir.path(), "u.csv", &run_r[..10]);
    assert_eq!(attempt_of(&look(dir.path(), "u.csv", &[])).0, 3);
    // Another test on R's pairs is another run too.
    scores(dir.path(), "t.csv", &extends);
    let signed = look(dir.path(), "t.csv", &["--test", "signed-rank"]);
    assert_eq!(attempt_of(&signed).0, 4);
}

#[test]
fn a_fixed_n_attempt_then_a_sequential_one_on_the_same_holdout_is_attempt_2() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 40);
    scores(dir.path(), "full.csv", &null_pairs(40, 0));
    let fixed = run(
        dir.path(),
        &[
            "admit",
            "--baseline",
            "b.csv",
            "--candidate",
            "full.csv",
            "--manifest",
            "manifest.json",
            "--ledger",
            "ledger.jsonl",
        ],
    );
    assert_eq!(fixed.code, 1, "{}{}", fixed.stdout, fixed.stderr);
    scores(dir.path(), "c.csv", &null_pairs(10, 1));
    let sequential = look(dir.path(), "c.csv", &[]);
    let (attempt, alpha, _) = attempt_of(&sequential);
    assert_eq!(attempt, 2);
    assert!((alpha - SECOND).abs() < 1e-12);
    let both = records(dir.path());
    assert_eq!(both[0]["holdout_sha256"], both[1]["holdout_sha256"]);
    assert_eq!(both[0]["test"], "mcnemar");
    assert_eq!(both[1]["test"], "sequential-mcnemar");
}

/// An order that is not the manifest's holdout in its order (a
/// subset, renamed ids, a shuffle) or that is the candidate's own scores file is
/// refused with exit 2, and the ledger is not touched.
#[test]
fn an_order_other_than_the_manifests_is_refused_before_anything_is_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let ids = holdout(dir.path(), 200);
    scores(dir.path(), "c.csv", &null_pairs(200, 0));
    assert_eq!(look(dir.path(), "c.csv", &[]).code, 1);
    let before = fs::read(dir.path().join("ledger.jsonl")).unwrap();
    let list = |ids: &[String]| -> String {
        let rows: String = ids.iter().map(|id| format!("{id}\n")).collect();
        format!("task_id\n{rows}")
    };
    write(dir.path(), "first60.csv", &list(&ids[..60]));
    let renamed: Vec<String> = ids.iter().map(|id| format!("x{id}")).collect();
    write(dir.path(), "renamed.csv", &list(&renamed));
    let mut shuffled = ids.clone();
    shuffled.swap(0, 7);
    write(dir.path(), "shuffled.csv", &list(&shuffled));
    scores(dir.path(), "c60.csv", &null_pairs(60, 2));
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "first60.csv",
            "c60.csv",
            &["it lists 60 tasks, the manifest's holdout 200"],
        ),
        (
            "renamed.csv",
            "c60.csv",
            &["its position 1 is `xt000`", "has `t000`"],
        ),
        ("shuffled.csv", "c60.csv", &["its position 1 is `t007`"]),
        (
            "c60.csv",
            "c60.csv",
            &["(--order) is the same file as `c60.csv` (--candidate)"],
        ),
    ];
    for (order, candidate, needles) in cases {
        let refused = look(dir.path(), candidate, &["--order", order]);
        assert_input_error(&refused, needles);
        assert_eq!(
            fs::read(dir.path().join("ledger.jsonl")).unwrap(),
            before,
            "{order}"
        );
    }
    // The holdout's own file is the manifest's order: accepted, counted on it.
    let same = look(dir.path(), "c60.csv", &["--order", "holdout.csv"]);
    assert_eq!(attempt_of(&same).0, 2);
}

/// The candidate's own scores file as the order (so the order is read
/// after the outputs) flipped continue into admitted. Refused without a manifest too,
/// by identity (another name for the file) and by content (a copy carries scores).
#[test]
fn a_scores_file_as_the_order_is_refused_with_or_without_a_manifest() {
    let dir = tempfile::tempdir().unwrap();
    scores(dir.path(), "c.csv", &null_pairs(40, 0));
    fs::copy(dir.path().join("c.csv"), dir.path().join("copy.csv")).unwrap();
    let admit = |order: &str| {
        run(
            dir.path(),
            &[&ADMIT_SEQUENTIAL_B_C[..], &["--order", order]].concat(),
        )
    };
    assert_input_error(
        &admit("c.csv"),
        &["is the same file as `c.csv` (--candidate)"],
    );
    assert_input_error(
        &admit("b.csv"),
        &["is the same file as `b.csv` (--baseline)"],
    );
    assert_input_error(&admit("copy.csv"), &["`copy.csv` has a `score` column"]);
    #[cfg(unix)]
    {
        fs::hard_link(dir.path().join("c.csv"), dir.path().join("link.csv")).unwrap();
        assert_input_error(
            &admit("link.csv"),
            &["`link.csv` (--order) is the same file"],
        );
    }
    // With --ledger the manifest is required.
    let ledger = run(
        dir.path(),
        &[
            &ADMIT_SEQUENTIAL_B_C[..],
            &["--order", "copy.csv", "--ledger", "ledger.jsonl"],
        ]
        .concat(),
    );
    assert_eq!(ledger.code, 2);
    assert!(ledger.stderr.contains("--manifest"), "{}", ledger.stderr);
    assert!(!dir.path().join("ledger.jsonl").exists());
}

/// Looks of different candidates taken at once by two processes each get their own
/// attempt: every look is read, placed and appended under the ledger's lock.
#[test]
fn looks_taken_at_once_by_two_processes_take_distinct_attempts() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 136);
    // Twenty candidates: the same 12 null pairs, then k's five bits as the candidate's
    // answers on five more tasks, so no two sequences extend each other.
    for k in 0..20 {
        let mut pairs = null_pairs(12, 0);
        pairs.extend((0..5).map(|bit| (0, ((k >> bit) & 1) as u8)));
        scores(dir.path(), &format!("c{k}.csv"), &pairs);
    }
    let threads: Vec<_> = (0..2)
        .map(|side| {
            let dir = dir.path().to_path_buf();
            std::thread::spawn(move || {
                for k in (side..20).step_by(2) {
                    let run = look(&dir, &format!("c{k}.csv"), &[]);
                    assert!([1, 3].contains(&run.code), "{}", run.stderr);
                }
            })
        })
        .collect();
    threads.into_iter().for_each(|t| t.join().unwrap());
    let mut attempts: Vec<u64> = summary(dir.path()).iter().map(|r| r.0).collect();
    attempts.sort_unstable();
    assert_eq!(attempts, (1..=20).collect::<Vec<u64>>());
}

/// The declared alpha is the holdout's on every path: a later look of an open run under
/// another --alpha is refused, not decided at the attempt's alpha in silence.
#[test]
fn a_later_look_under_another_alpha_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    holdout(dir.path(), 100);
    scores(dir.path(), "c.csv", &null_pairs(10, 0));
    assert_eq!(look(dir.path(), "c.csv", &[]).code, 3);
    scores(dir.path(), "c.csv", &null_pairs(20, 0));
    let other = look(dir.path(), "c.csv", &["--alpha", "0.1"]);
    assert_input_error(
        &other,
        &["changing the declared alpha midway", "use --alpha 0.05"],
    );
    assert_eq!(summary(dir.path()).len(), 1);
}
