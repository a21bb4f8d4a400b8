//! The task list and the holdout read before the scores files, into a
//! [`TaskIndex`]: the list's rows and the holdout's ids in step (`split` writes them in
//! one order), then the scores files joined alone, their tasks looked up as they come,
//! and the list's and the holdout's tasks no scores file named read again to be named.
//! When the index gives up (a task listed twice, a holdout id met twice, a collision
//! of fingerprints), the list and the manifest are read again and all the files are
//! joined side by side as before.

use std::io;
use std::sync::mpsc::sync_channel;

use super::engine::{self, Source, TaskSink, Tuning};
use super::index::{IndexBuilder, TaskIndex};
use super::presumed::Presumed;
use super::sources::{HoldSource, ListSource};
use super::unique::Fingerprints;
use super::{BASE, CAND, HOLD, HOLD_AHEAD, LIST, Reopen, SIDES};
use crate::admission::recorded::read_recorded;
use crate::base::sorter::RunStore;
use crate::error::InputError;
use crate::scores::{ScoreRow, TASK_ID_COLUMN};
use crate::table::column;
use crate::table::scan::RowScanner;

/// A file read again: its path as given and how to open it.
pub(super) type Again<'a> = Option<(&'a str, Reopen<'a>)>;

/// What a failure to keep sorted runs (or to start a thread) becomes.
pub(super) type Spill<'a> = &'a dyn Fn(io::Error) -> InputError;

/// The index of the list's rows (`list`, when it decides the tasks) and the holdout's
/// ids (`hold`), both read to their end; `None` when the index gives up.
pub(super) fn read_index(
    list: Option<&mut dyn Source>,
    hold: Option<&mut dyn Source>,
) -> Option<TaskIndex> {
    let mut builder = IndexBuilder::new();
    match (list, hold) {
        (Some(list), Some(hold)) => {
            let mut beside = true;
            while let Some(row) = list.next() {
                let held = match beside.then(|| hold.next()).flatten() {
                    Some(id) if id.task == row.task => true,
                    Some(id) => {
                        builder.held(&id.task);
                        false
                    }
                    None => {
                        beside = false;
                        false
                    }
                };
                builder.listed(&row.task, held);
            }
            while let Some(id) = beside.then(|| hold.next()).flatten() {
                builder.held(&id.task);
            }
        }
        (Some(list), None) => {
            while let Some(row) = list.next() {
                builder.listed(&row.task, false);
            }
        }
        (None, Some(hold)) => {
            while let Some(id) = hold.next() {
                builder.held(&id.task);
            }
        }
        (None, None) => {}
    }
    builder.finish()
}

/// The list's rows (`list`, when it decides the tasks) and the holdout's ids (`hold`),
/// both read to their end, counted and summed for the presumption that they name the
/// scores files' tasks.
pub(super) fn read_presumed<'s>(
    list: Option<&'s mut dyn Source>,
    hold: Option<&'s mut dyn Source>,
) -> Presumed {
    let mut presumed = Presumed::new();
    for (side, source) in [(LIST, list), (HOLD, hold)] {
        if let Some(source) = source {
            presumed.give(side);
            while let Some(row) = source.next() {
                presumed.read(side, &row.task);
            }
        }
    }
    presumed
}

/// Hands `sink` what is left of the tasks in `prints`' index (see
/// [`Held::left`](super::index::Held::left)), with the list's rows: the list (`list`)
/// is read again for the listed tasks some scores file lacks (each handed over with
/// its rows of those files again, the holdout's row only when no scores file named
/// it: the rest was counted when the task was handed over), the manifest (`manifest`)
/// for the holdout's tasks no scores file named; each only when there are any.
pub(super) fn hand_unmatched(
    prints: &Fingerprints,
    sink: &mut dyn TaskSink,
    list: Again<'_>,
    manifest: Again<'_>,
    spill: Spill<'_>,
) -> Result<(), InputError> {
    let Some(index) = prints.index.as_ref() else {
        return Ok(());
    };
    let (mut listed, held) = index.left();
    let mut rows: [ScoreRow; SIDES] = Default::default();
    if let (true, Some((source, reopen))) = (listed > 0, list) {
        let mut scanner = RowScanner::new(source, reopen().map_err(again(source))?)?;
        let id = column(scanner.headers(), TASK_ID_COLUMN).unwrap_or_default();
        while listed > 0
            && let Ok(Some(row)) = scanner.next_row()
        {
            let task = row.field(id).trim();
            let Some(found) = index.find_left(task).filter(|f| f.listed) else {
                continue;
            };
            listed -= 1;
            for row in &mut rows {
                row.task.clear();
                row.task.push_str(task);
            }
            rows[LIST].line = row.line;
            let present = [
                found.scored[0],
                found.scored[1],
                true,
                found.held && found.scored == [false, false],
            ];
            let task_rows: [Option<&ScoreRow>; SIDES] =
                std::array::from_fn(|side| present[side].then_some(&rows[side]));
            sink.task(task_rows).map_err(spill)?;
        }
    }
    if let (true, Some((source, reopen))) = (held > 0, manifest) {
        holdout_again(source, reopen, &mut |task| {
            if index.find_left(task).is_some_and(|f| !f.listed) {
                let mut task_rows: [Option<&ScoreRow>; SIDES] = [None; SIDES];
                rows[HOLD].task.clear();
                rows[HOLD].task.push_str(task);
                task_rows[HOLD] = Some(&rows[HOLD]);
                sink.task(task_rows)?;
            }
            Ok(())
        })
        .map_err(spill)?;
    }
    Ok(())
}

/// The holdout's ids, read again from the manifest on a thread of its own, each to
/// `each`.
fn holdout_again(
    source: &str,
    reopen: Reopen<'_>,
    each: &mut dyn FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    std::thread::scope(|scope| {
        let (send, batches) = sync_channel(HOLD_AHEAD);
        let reading = std::thread::Builder::new()
            .name("manifest".to_string())
            .spawn_scoped(scope, move || {
                let _ = read_recorded(source, reopen, send, None, false);
            })?;
        let mut hold = HoldSource::new(batches);
        let mut result = Ok(());
        while let Some(id) = hold.next() {
            result = each(&id.task);
            if result.is_err() {
                break;
            }
        }
        drop(hold);
        let _ = reading.join();
        result
    })
}

/// The join as it was before the index: the list and the manifest read again, every
/// file side by side.
pub(super) fn join_side_by_side(
    [base, cand]: [&mut dyn Source; 2],
    list: Again<'_>,
    manifest: Again<'_>,
    (sink, prints): (&mut dyn TaskSink, &mut Fingerprints),
    (store, tuning): (&dyn RunStore, Tuning),
    spill: Spill<'_>,
) -> Result<(), InputError> {
    let mut scanner = match list {
        Some((source, reopen)) => Some(RowScanner::new(source, reopen().map_err(again(source))?)?),
        None => None,
    };
    let mut list_rows = list
        .zip(scanner.as_mut())
        .map(|((source, _), scanner)| ListSource::new(source, Ok(scanner)));
    std::thread::scope(|scope| {
        let (send, batches) = sync_channel(HOLD_AHEAD);
        let reading = manifest
            .map(|(source, reopen)| {
                std::thread::Builder::new()
                    .name("manifest".to_string())
                    .spawn_scoped(scope, move || {
                        let _ = read_recorded(source, reopen, send, None, false);
                    })
            })
            .transpose()
            .map_err(spill)?;
        let mut hold = reading.as_ref().map(|_| HoldSource::new(batches));
        let mut sources: [Option<&mut dyn Source>; SIDES] = [None, None, None, None];
        sources[BASE] = Some(base);
        sources[CAND] = Some(cand);
        sources[LIST] = list_rows.as_mut().map(|l| l as &mut dyn Source);
        sources[HOLD] = hold.as_mut().map(|h| h as &mut dyn Source);
        let joined = engine::join(sources, sink, prints, store, tuning);
        drop(hold);
        if let Some(reading) = reading {
            let _ = reading.join();
        }
        joined.map_err(spill)
    })
}

fn again(source: &str) -> impl Fn(io::Error) -> InputError + '_ {
    move |error| InputError::Io {
        file: source.to_string(),
        message: format!("reading it again: {error}"),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

    use super::super::{ListFile, ManifestFile, ScoresFile, StreamRequest, read_streams};
    use super::*;
    use crate::base::sorter::{Budget, Run};
    use crate::table::ahead::RowsAhead;

    /// A store that refuses every run: a join that sorts fails.
    struct Refusing;

    impl RunStore for Refusing {
        fn create(&self) -> io::Result<Box<dyn Run>> {
            Err(io::Error::other("no sorting here"))
        }
    }

    static REFUSING: Refusing = Refusing;

    #[test]
    fn a_task_list_and_a_holdout_in_another_order_than_the_scores_need_no_sort() {
        let tasks: Vec<String> = (0..500).map(|i| format!("t{i:03}")).collect();
        let scores = |shift: f64| {
            let rows: String = tasks
                .iter()
                .enumerate()
                .map(|(i, t)| format!("{t},{}\n", (i % 3) as f64 / 4.0 + shift))
                .collect();
            format!("task_id,score\n{rows}")
        };
        // The list and the holdout in reverse order, one task of the list left out.
        let reversed: Vec<&String> = tasks.iter().rev().collect();
        let list: String = reversed[1..].iter().map(|t| format!("{t}\n")).collect();
        let list = format!("task_id\n{list}");
        let ids: Vec<String> = reversed.iter().map(|t| format!("\"{t}\"")).collect();
        let manifest = format!(
            r#"{{"schema":"evogate/manifest/v1","verifier":"facts","truth":{{"path":"f.csv","sha256":"x"}},"seed":1,"ratios":[0,0,1],"cases":"all","algorithm":"evogate","splits":[{{"name":"holdout","file":{{"path":"holdout.csv","sha256":"y"}},"tasks":{},"groups":[],"task_ids":[{}]}}],"holdout_power":{{"alpha":0.05,"n":1,"min_discordant":5,"min_detectable_shift":null}}}}"#,
            ids.len(),
            ids.join(",")
        );
        let texts = [scores(0.0), scores(0.25), list, manifest];
        let opens: Vec<_> = texts
            .iter()
            .map(|text| {
                let bytes = text.clone().into_bytes();
                move || -> io::Result<Box<dyn Read + Send>> {
                    Ok(Box::new(Cursor::new(bytes.clone())))
                }
            })
            .collect();
        let ahead = |at: usize| {
            RowsAhead::spawn("f.csv", Cursor::new(texts[at].clone().into_bytes())).unwrap()
        };
        let (mut base, mut cand, mut listed) = (ahead(0), ahead(1), ahead(2));
        let request = StreamRequest {
            strata: None,
            keep_rows: false,
            store: &REFUSING,
            tuning: Tuning {
                pending_least: 2,
                pending_share: 1_000_000,
                sort: Budget {
                    least: 64,
                    per_record: 0,
                },
            },
            presume: false,
        };
        let joined = read_streams(
            [
                ScoresFile {
                    source: "b.csv",
                    rows: &mut base,
                    reopen: &opens[0],
                },
                ScoresFile {
                    source: "c.csv",
                    rows: &mut cand,
                    reopen: &opens[1],
                },
            ],
            Some(ListFile {
                source: "tasks.csv",
                rows: Ok(&mut listed),
                reopen: &opens[2],
            }),
            Some(ManifestFile {
                source: "manifest.json",
                reopen: &opens[3],
                identity: false,
                digest: true,
            }),
            request,
        )
        .expect("no sort was needed")
        .expect("no presumption to fail");
        let streamed = joined
            .pair(None, Some(499))
            .expect("the list's tasks are in both files");
        let overall = &streamed.statistics.overall;
        assert_eq!(overall.n, 499);
        assert_eq!(
            overall.candidate_micros - overall.baseline_micros,
            499 * 250_000
        );
    }
}
