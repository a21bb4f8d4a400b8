//! The streamed reading held to the reading that holds the files whole: on drawn scores
//! files, task lists and manifests (rows in any order, repeated tasks, tasks one file
//! lacks, bad values, broken rows, missing columns, disagreeing strata, a holdout that
//! differs or names a task twice), both give the same error, or the same report in
//! every format, the same `pairs.csv`, the same plots and the same holdout identity;
//! with rows let wait for their partner, and with every row sorted outside memory in
//! runs of a few records.

mod cases;

use std::io::{Cursor, Read};

use proptest::prelude::*;

use super::streams::{Stream, Streams, prepare_streamed};
use super::{AdmitSettings, Input, Prepared, prepare_streams, report_files};
use crate::admission::stream::Tuning;
use crate::admission::{StrataRequest, TestChoice};
use crate::alpha::Alpha;
use crate::base::sorter::Budget;
use crate::report::{json, markdown, pairs, text};
use crate::scores::ScoredOutcome;
use crate::stats::signed_rank::ZeroMethod;

/// One drawn row of a scores file: task number, kind, group, score in quarters,
/// answered, feedback number, and a fault (0 none, 1 bad score, 2 empty task, 3 a
/// ragged row, 4 bad correct, 5 bad outcome).
type Drawn = (u8, u8, u8, u8, bool, u8, u8);

/// Which optional columns a file has: kind, group, correct, feedback, answered (and
/// with it `outcome`).
type Columns = (bool, bool, bool, bool, bool);

fn scores(rows: &[Drawn], columns: Columns, faults: bool) -> String {
    let (kind, group, correct, feedback, answered) = columns;
    let mut header = vec!["task_id"];
    header.extend(kind.then_some("kind"));
    header.extend(group.then_some("group"));
    header.extend(correct.then_some("correct"));
    header.push("score");
    header.extend(feedback.then_some("feedback"));
    header.extend(answered.then_some("answered"));
    header.extend(answered.then_some("outcome"));
    let mut text = header.join(",") + "\n";
    for &(task, k, g, quarters, was_answered, said, fault) in rows {
        let fault = if faults { fault % 8 } else { 0 };
        let mut cells = vec![if fault == 2 {
            " ".to_string()
        } else {
            format!("t{task}")
        }];
        cells.extend(kind.then(|| format!("k{}", k % 3)));
        cells.extend(group.then(|| format!("g{}", g % 4)));
        cells.extend(correct.then(|| {
            if fault == 4 {
                "2".to_string()
            } else {
                u8::from(quarters % 5 == 4).to_string()
            }
        }));
        cells.push(if fault == 1 {
            "1.5".to_string()
        } else {
            format!("{}", f64::from(quarters % 5) / 4.0)
        });
        cells.extend(feedback.then(|| format!("\"said, {said}\"")));
        cells.extend(answered.then(|| u8::from(was_answered).to_string()));
        cells.extend(answered.then(|| {
            if fault == 5 {
                "maybe".to_string()
            } else {
                let outcome = ScoredOutcome::ALL[usize::from(quarters.wrapping_add(said)) % 7];
                outcome.name().to_string()
            }
        }));
        if fault == 3 {
            cells.pop();
        }
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    text
}

fn list(tasks: &[u8], header: bool) -> String {
    let mut text = String::from(if header {
        "task_id,prompt\n"
    } else {
        "id,prompt\n"
    });
    for task in tasks {
        text.push_str(&format!("t{task},\"Q {task}?\"\n"));
    }
    text
}

fn manifest(tasks: &[u8], sha: &str, schema: bool) -> String {
    let ids: Vec<String> = tasks.iter().map(|t| format!("\"t{t}\"")).collect();
    format!(
        r#"{{"schema":"{}","verifier":"facts","truth":{{"path":"f.csv","sha256":"x"}},"seed":1,"ratios":[0,0,1],"cases":"all","algorithm":"evogate","splits":[{{"name":"train","file":{{"path":"train.csv","sha256":"a"}},"tasks":1,"groups":["g"],"task_ids":["t0"]}},{{"name":"holdout","file":{{"path":"holdout.csv","sha256":"{sha}"}},"tasks":{},"groups":[],"task_ids":[{}]}}],"holdout_power":{{"alpha":0.05,"n":1,"min_discordant":5,"min_detectable_shift":null}}}}"#,
        if schema {
            "evogate/manifest/v1"
        } else {
            "other"
        },
        tasks.len(),
        ids.join(",")
    )
}

/// Every output of one admission, or its error.
fn outputs(prepared: anyhow::Result<Prepared<'_>>, alpha: Alpha) -> Result<Vec<String>, String> {
    let mut prepared = prepared.map_err(|e| format!("{e:#}"))?;
    let identity = prepared.holdout_identity().unwrap_or_default();
    let admission = prepared.decide_at(alpha);
    let evaluation = prepared.evaluation(admission);
    let report = &evaluation.report;
    let mut all = vec![
        identity,
        text::render(report),
        json::render(report),
        markdown::render(report),
    ];
    for file in report_files(std::path::Path::new("r"), &evaluation) {
        all.push(String::from_utf8(file.bytes).expect("UTF-8"));
    }
    all.extend(
        evaluation
            .pairs
            .as_ref()
            .map(|p| String::from_utf8(pairs::render(p)).expect("UTF-8")),
    );
    Ok(all)
}

fn input(path: &str, text: String) -> Input {
    Input {
        path: path.to_string(),
        bytes: text.into_bytes(),
    }
}

/// Two tasks, `t1` right in both arms and `t2` won by the candidate: the scores the
/// manifest tests read.
fn two_tasks() -> [Input; 2] {
    [
        input(
            "b.csv",
            "task_id,correct,score\nt1,1,1\nt2,0,0\n".to_string(),
        ),
        input(
            "c.csv",
            "task_id,correct,score\nt1,1,1\nt2,1,1\n".to_string(),
        ),
    ]
}

/// The held reading's outputs and the streamed one's, with `tuning` (the same with
/// the list and the holdout presumed to be the scored tasks and without).
fn both(
    files: &[Input; 2],
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    settings: &AdmitSettings,
    tuning: Tuning,
) -> (Result<Vec<String>, String>, Result<Vec<String>, String>) {
    let unchecked = |_: &str, _: &str| Ok(());
    let held = {
        let scores = [&files[0], &files[1]].map(|i| (i.path.clone(), Cursor::new(i.bytes.clone())));
        outputs(
            prepare_streams(scores, tasks, manifest, true, &unchecked, settings),
            settings.alpha,
        )
    };
    let reopen = |input: &Input| {
        let bytes = input.bytes.clone();
        move || -> std::io::Result<Box<dyn Read + Send>> {
            Ok(Box::new(Cursor::new(bytes.clone())))
        }
    };
    let reopens: Vec<_> = [Some(&files[0]), Some(&files[1]), tasks, manifest]
        .into_iter()
        .map(|i| i.map(reopen))
        .collect();
    let stream = |input: &Input, at: usize| Stream {
        path: input.path.clone(),
        input: Box::new(Cursor::new(input.bytes.clone())),
        reopen: reopens[at].as_ref().expect("given"),
    };
    // With the list and the holdout presumed to be the scored tasks, and read into the
    // index at once: the two must agree.
    let [presumed, indexed] = [true, false].map(|presume| {
        let streams = Streams {
            scores: [stream(&files[0], 0), stream(&files[1], 1)],
            tasks: tasks.map(|t| stream(t, 2)),
            manifest: manifest.map(|m| stream(m, 3)),
            presume,
            digest_tasks: true,
            digest_manifest: true,
        };
        match prepare_streamed(streams, true, true, &unchecked, settings, tuning) {
            Ok(Err(_)) => held.clone(),
            Ok(Ok(prepared)) => outputs(Ok(prepared), settings.alpha),
            Err(error) => Err(format!("{error:#}")),
        }
    });
    let streamed = if presumed == indexed {
        presumed
    } else {
        Err(format!("presumed {presumed:?}\nindexed {indexed:?}"))
    };
    (held, streamed)
}

fn settings(test: u8, strata: u8, allow_missing: bool, cluster: bool) -> AdmitSettings {
    AdmitSettings {
        alpha: Alpha::new(0.05).expect("a level"),
        test: [
            TestChoice::Auto,
            TestChoice::McNemar,
            TestChoice::SignedRank,
        ][usize::from(test % 3)],
        zero: ZeroMethod::Wilcox,
        strata: match strata % 3 {
            0 => None,
            1 => StrataRequest::from_flag(None),
            _ => StrataRequest::from_flag(Some("kind")),
        },
        margin: cluster.then(|| crate::admission::Margin::new(0.1).expect("a margin")),
        cluster,
        allow_missing,
    }
}

/// Tunings: rows wait; rows wait a little, then everything is sorted in runs of a few.
fn tunings() -> [Tuning; 2] {
    [
        Tuning::default(),
        Tuning {
            pending_least: 2,
            pending_share: 1_000_000,
            sort: Budget {
                least: 64,
                per_record: 0,
            },
        },
    ]
}

/// `items` in the order of a seeded shuffle.
fn shuffled<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut keyed: Vec<(u64, T)> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            (
                (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
                    ^ seed.rotate_left(i as u32 % 64),
                item.clone(),
            )
        })
        .collect();
    keyed.sort_by_key(|(key, _)| *key);
    keyed.into_iter().map(|(_, item)| item).collect()
}

/// The order of one file's tasks: as drawn, reversed, rotated or shuffled.
fn ordered<T: Clone>(items: &[T], order: u8, seed: u64) -> Vec<T> {
    match order % 4 {
        0 => items.to_vec(),
        1 => items.iter().rev().cloned().collect(),
        2 => {
            let mut items = items.to_vec();
            if !items.is_empty() {
                let by = seed as usize % items.len();
                items.rotate_left(by);
            }
            items
        }
        _ => shuffled(items, seed),
    }
}

/// A change to a list of tasks: none, one dropped, one repeated, one added.
fn changed(tasks: &[u8], change: (u8, u8)) -> Vec<u8> {
    let mut tasks = tasks.to_vec();
    let at = usize::from(change.1) % tasks.len().max(1);
    match change.0 % 16 {
        0 if !tasks.is_empty() => {
            tasks.remove(at);
        }
        1 if !tasks.is_empty() => tasks.insert(at, tasks[at]),
        2 => tasks.insert(at.min(tasks.len()), 200 + change.1 % 8),
        _ => {}
    }
    tasks
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_streamed_reading_gives_what_the_held_reading_gives(
        n in 1u8..40,
        values in prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>(), any::<bool>(), any::<bool>(), 0u8..3), 40),
        orders in any::<[(u8, u64); 4]>(),
        changes in any::<[(u8, u8); 4]>(),
        columns in (any::<(bool, bool, bool, bool, bool)>(), any::<(bool, bool, bool, bool, bool)>(), 0u8..8),
        fault in prop::option::weighted(0.2, (any::<bool>(), any::<u8>(), 1u8..6)),
        listed in prop::option::of(any::<bool>()),
        recorded in prop::option::of((any::<bool>(), any::<bool>())),
        how in (0u8..3, 0u8..3, any::<bool>(), any::<bool>()),
    ) {
        let tasks: Vec<u8> = (0..n).collect();
        // Each arm's rows: the tasks in its own order, perhaps one dropped, repeated
        // or added; each task's values fixed, the candidate's score moved.
        let rows = |candidate: bool, change: (u8, u8), order: (u8, u64)| -> Vec<Drawn> {
            let mine = ordered(&changed(&tasks, change), order.0, order.1);
            mine.iter()
                .map(|&task| {
                    let (kind, group, score, moved, answered, other, said) = values[usize::from(task) % 40];
                    let score = score % 5;
                    let quarters = match (candidate, other, moved % 4) {
                        (true, true, 0) => score.saturating_sub(1),
                        (true, true, _) => (score + 1).min(4),
                        _ => score,
                    };
                    let stratum = if candidate && other && moved % 11 == 0 { kind.wrapping_add(1) } else { kind };
                    (task, stratum, group, quarters, answered || !candidate, said, 0)
                })
                .collect()
        };
        let mut drawn = [rows(false, changes[0], orders[0]), rows(true, changes[1], orders[1])];
        if let Some((candidate, row, kind)) = fault {
            let file = &mut drawn[usize::from(candidate)];
            let at = usize::from(row) % file.len().max(1);
            if let Some(row) = file.get_mut(at) {
                row.6 = kind;
            }
        }
        // Mostly the same columns in both files.
        let columns = [columns.0, if columns.2 == 0 { columns.1 } else { columns.0 }];
        let files = [
            input("b.csv", scores(&drawn[0], columns[0], true)),
            input("c.csv", scores(&drawn[1], columns[1], true)),
        ];
        let tasks_file = listed.map(|header| {
            input("tasks.csv", list(&ordered(&changed(&tasks, changes[2]), orders[2].0, orders[2].1), header || changes[2].0 % 5 != 4))
        });
        let sha = tasks_file.as_ref().map_or_else(String::new, |t| crate::digest::sha256_hex(&t.bytes));
        let manifest_file = recorded.map(|(schema, same_sha)| {
            let sha = if same_sha { sha.clone() } else { "0".repeat(64) };
            let ids = ordered(&changed(&tasks, changes[3]), orders[3].0, orders[3].1);
            input("manifest.json", manifest(&ids, &sha, schema || changes[3].1 % 5 != 0))
        });
        let settings = settings(how.0, how.1 % 2 + u8::from(how.1 == 2 && columns[0].0), how.2, how.3);
        for tuning in tunings() {
            let (held, streamed) = both(&files, tasks_file.as_ref(), manifest_file.as_ref(), &settings, tuning);
            prop_assert_eq!(&held, &streamed, "{:?}\n{}\n{}", tuning, String::from_utf8_lossy(&files[0].bytes), String::from_utf8_lossy(&files[1].bytes));
        }
    }
}
