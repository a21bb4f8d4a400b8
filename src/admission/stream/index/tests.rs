//! The index held to what it was built from: every task found with the files it
//! was met in, no other taken for it, and the gaps left for the end.

use super::*;

fn index(listed: &[&str], held: &[&str]) -> Option<TaskIndex> {
    let mut builder = IndexBuilder::new();
    let mut held = held.iter().peekable();
    for task in listed {
        let same = held.next_if(|h| *h == task).is_some();
        builder.listed(task, same);
    }
    for task in held {
        builder.held(task);
    }
    builder.finish()
}

fn held(listed: bool, held: bool, scored: [bool; 2]) -> Held {
    Held {
        listed,
        held,
        scored,
    }
}

#[test]
fn finds_each_listed_and_held_task_and_no_other() {
    let listed: Vec<String> = (0..5000).map(|i| format!("t{}", i * 7 % 5000)).collect();
    let holdout: Vec<String> = (2500..6000).map(|i| format!("t{i}")).collect();
    let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
    let holdout: Vec<&str> = holdout.iter().map(String::as_str).collect();
    let index = index(&listed, &holdout).expect("no task twice");
    for task in &listed {
        let at = index.find(fingerprint(task), task).expect("listed");
        let number: usize = task[1..].parse().unwrap();
        let expected = held(true, number >= 2500, [false, false]);
        assert_eq!(index.held(at), expected, "{task}");
    }
    for task in ["t5000", "t5999"] {
        let at = index.find(fingerprint(task), task).expect("held");
        assert_eq!(index.held(at), held(false, true, [false, false]));
    }
    for task in ["t6000", "t-1", "", "t00"] {
        assert_eq!(index.find(fingerprint(task), task), None, "{task}");
    }
    assert_eq!(index.left(), (5000, 1000));
}

#[test]
fn gives_up_on_a_task_listed_twice_or_held_twice() {
    assert!(index(&["a", "b", "a"], &[]).is_none());
    assert!(index(&[], &["a", "b", "a"]).is_none());
    assert!(index(&["a", "b"], &["b", "a", "b"]).is_none());
    assert!(index(&["a", "b"], &["a", "a"]).is_none());
    assert!(index(&["a", "b"], &["b", "a"]).is_some());
    assert!(index(&[], &[]).is_some());
}

#[test]
fn an_id_whose_fingerprint_an_entry_shares_is_not_taken_for_it() {
    let index = index(&["a", "b"], &[]).unwrap();
    // "c" looked up under the fingerprint of "a": the keyed hash tells them apart.
    assert_eq!(index.find(fingerprint("a"), "c"), None);
    assert!(index.find(fingerprint("a"), "a").is_some());
}

#[test]
fn marks_each_scores_file_and_leaves_the_gaps_for_the_end() {
    let mut index = index(&["a", "b", "c"], &["a", "d"]).unwrap();
    let a = index.find(fingerprint("a"), "a").unwrap();
    let b = index.find(fingerprint("b"), "b").unwrap();
    let d = index.find(fingerprint("d"), "d").unwrap();
    assert!(!index.met(BASE, fingerprint("a")));
    assert!(!index.mark(a, BASE));
    assert!(index.mark(a, BASE));
    assert!(index.met(BASE, fingerprint("a")));
    // Listed, in the baseline only: left for its gap.
    assert_eq!(index.find_left("a"), Some(held(true, true, [true, false])));
    assert!(!index.mark(a, CAND));
    assert_eq!(index.find_left("a"), None);
    assert!(!index.mark(b, CAND));
    assert!(!index.mark(d, CAND));
    assert!(!index.met(BASE, fingerprint("b")));
    assert_eq!(index.find_left("b"), Some(held(true, false, [false, true])));
    assert_eq!(
        index.find_left("c"),
        Some(held(true, false, [false, false]))
    );
    // Only in the holdout and named by a scores file: handed over already.
    assert_eq!(index.find_left("d"), None);
    assert_eq!(index.left(), (2, 0));
}

#[test]
fn finds_every_task_of_a_large_index_from_its_guessed_place() {
    let tasks: Vec<String> = (0..200_000).map(|i| format!("2401.{i:06}:id")).collect();
    let mut builder = IndexBuilder::new();
    for task in &tasks {
        builder.listed(task, false);
    }
    let index = builder.finish().unwrap();
    for task in &tasks {
        assert!(index.find(fingerprint(task), task).is_some(), "{task}");
        let other = format!("{task}x");
        assert_eq!(index.find(fingerprint(&other), &other), None);
    }
}
