//! `admit` on scores files without holding them: both scores files are read side by
//! side and joined by task as they come ([`engine`]), the task list's and the
//! manifest's holdout's tasks (when given) read first, presumed to be the scores
//! files' tasks ([`presumed`]) and, when they are not, read again into a compact index
//! ([`index`], [`listed`]); of each task only what the decision and the report need is
//! kept ([`collect`]): the sufficient statistics, a few named tasks, and, for a report
//! folder, the pairs sorted outside memory. Repeated tasks are found from fingerprints
//! and named by reading the file again ([`unique`]).
//!
//! What this gives, [`Baseline`](super::Baseline), [`Joined::pair`](super::Joined::pair)
//! and [`decide`](super::decide) give for the same files: the same decision, the same
//! report, the same errors in the same order (a test holds the two to that).

mod collect;
mod decision;
mod engine;
mod index;
mod listed;
mod presumed;
mod sources;
mod unique;

use std::sync::mpsc::sync_channel;

pub(crate) use crate::table::Reopen;
pub(crate) use decision::{HoldoutFacts, Streamed};
pub(crate) use engine::Tuning;

use self::collect::{Collector, First, Plan};
use self::engine::Source;
use self::presumed::Presumed;
use self::sources::{HoldSource, ListSource};
use self::unique::Fingerprints;
use super::losses::Loss;
use super::outcomes::OutcomeCounts;
use super::pairing::{StrataChoice, StrataRequest};
use super::recorded::{Recorded, read_recorded};
use super::rows::{PairSorter, SortedPairs};
use crate::base::sorter::RunStore;
use crate::error::InputError;
use crate::scores::{Repeat, ScoreStream, Shape};
use crate::table::ahead::RowsAhead;

/// The baseline's scores.
const BASE: usize = 0;
/// The candidate's scores.
const CAND: usize = 1;
/// The task list (`--tasks`).
const LIST: usize = 2;
/// The holdout the manifest recorded (`--manifest`).
const HOLD: usize = 3;
/// How many files a task can be in.
const SIDES: usize = 4;

/// Batches of holdout ids the manifest's reader may have ready.
const HOLD_AHEAD: usize = 4;

/// A scores file being read.
pub(crate) struct ScoresFile<'a> {
    /// Its path as given.
    pub source: &'a str,
    /// Its rows, read ahead.
    pub rows: &'a mut RowsAhead,
    /// It again, from its start, to name a repeated task.
    pub reopen: Reopen<'a>,
}

/// The task list (`--tasks`) being read.
pub(crate) struct ListFile<'a> {
    /// Its path as given.
    pub source: &'a str,
    /// Its rows, or the error its header met.
    pub rows: Result<&'a mut RowsAhead, InputError>,
    /// It again, to name a task listed twice.
    pub reopen: Reopen<'a>,
}

/// The manifest (`--manifest`) to read.
pub(crate) struct ManifestFile<'a> {
    /// Its path as given.
    pub source: &'a str,
    /// It from its start (read once, or twice when the fast reading gives up).
    pub reopen: Reopen<'a>,
    /// Whether the holdout's identity is wanted (a ledger).
    pub identity: bool,
    /// Whether the manifest's own SHA-256 is wanted (an output records it).
    pub digest: bool,
}

/// How to read.
#[derive(Clone, Copy)]
pub(crate) struct StreamRequest<'a> {
    /// `--strata`.
    pub strata: Option<&'a StrataRequest>,
    /// Whether every pair is kept for `pairs.csv` (and the baseline's feedback read).
    pub keep_rows: bool,
    /// Where sorted runs wait.
    pub store: &'static dyn RunStore,
    /// How long rows wait, and how much of a sort waits in memory.
    pub tuning: Tuning,
    /// Whether the task list and the holdout are first presumed to name the scores
    /// files' tasks ([`presumed`]); without, they are read into an index.
    pub presume: bool,
}

/// Every file read and joined: each scores file's own verdict, and what the join kept.
pub(crate) struct StreamJoined {
    /// The baseline's and the candidate's shape, or their error.
    pub files: [Result<Shape, InputError>; 2],
    /// The task list's path and its rows, or its error.
    pub list: Option<(String, Result<usize, InputError>)>,
    /// What the manifest recorded, or its error.
    pub recorded: Option<Result<Recorded, InputError>>,
    /// Whether the holdout names a task twice: its check is then made on the files
    /// held whole.
    pub holdout_repeats: bool,
    sources: [String; 2],
    has_stratum: [bool; 2],
    has_correct: [bool; 2],
    has_answered: [bool; 2],
    has_outcome: [bool; 2],
    /// Whether a scores file holds a repeat of an item (`<item>#<r>` in group
    /// `<item>`): the pairs are then collapsed to items, on the files held whole.
    pub repeats: bool,
    kept: Kept,
}

/// What the collector kept, without its borrows.
struct Kept {
    plan: Plan,
    statistics: super::sufficient::Sums,
    n: u64,
    both_correct: bool,
    losses: Vec<Loss>,
    outcomes: [OutcomeCounts; 2],
    unanswered: [First<String>; 2],
    disagreement: Option<collect::Disagreeing>,
    lacking: [First<(String, u64)>; 2],
    not_scored: [First<(String, u64)>; 2],
    missing: First<String>,
    extra: First<String>,
    recorded: u64,
    rows: Option<SortedPairs>,
}

/// Reads every file and joins them; `None` when `request.presume` was not borne out
/// (the files are then to be read again without it). Errors here are failures to read
/// a file again or to keep sorted runs; each file's own errors wait in
/// [`StreamJoined`].
pub(crate) fn read_streams(
    [base, cand]: [ScoresFile<'_>; 2],
    list: Option<ListFile<'_>>,
    manifest: Option<ManifestFile<'_>>,
    request: StreamRequest<'_>,
) -> Result<Option<StreamJoined>, InputError> {
    let column = request.strata.map(|s| s.column.as_str());
    let mut b_stream = ScoreStream::new(base.source, base.rows, column, request.keep_rows);
    let mut c_stream = ScoreStream::new(cand.source, cand.rows, column, true);
    let (b_has, c_has) = (b_stream.has(), c_stream.has());
    let has_outcome = [b_stream.has_outcome(), c_stream.has_outcome()];
    let present = (b_has.1 || c_has.1).then_some(()).and(column);
    let stratified = matches!(
        StrataRequest::choose(request.strata, present),
        StrataChoice::By(_)
    );
    let list_source = list.as_ref().map(|l| l.source.to_string());
    let mut list_stream = list.map(|l| (ListSource::new(l.source, l.rows), l.reopen));
    let plan = Plan {
        stratified,
        baseline_has_stratum: b_has.1,
        candidate_has_stratum: c_has.1,
        listed: list_stream.as_ref().is_some_and(|(l, _)| l.usable()),
        recorded: manifest.is_some(),
    };
    let store = request.store;
    let rows = request
        .keep_rows
        .then(|| PairSorter::new(store, request.tuning.sort));
    let mut collector = Collector::new(plan, rows);
    let mut prints = Fingerprints::default();
    let manifest_source = manifest
        .as_ref()
        .map_or_else(String::new, |m| m.source.to_string());
    let spill = |error: std::io::Error| InputError::Io {
        file: base.source.to_string(),
        message: format!("sorting the pairs outside memory: {error}"),
    };
    let list_again = list_stream
        .as_ref()
        .filter(|_| plan.listed)
        .zip(list_source.as_deref())
        .map(|((_, reopen), source)| (source, *reopen));
    let manifest_again = manifest
        .as_ref()
        .map(|m| (manifest_source.as_str(), m.reopen));
    let (joined, recorded) = std::thread::scope(|scope| {
        let (send, batches) = sync_channel(HOLD_AHEAD);
        let reading = manifest.map(|m| {
            let identity = m.identity.then_some(store);
            let (source, reopen, digest) = (manifest_source.clone(), m.reopen, m.digest);
            std::thread::Builder::new()
                .name("manifest".to_string())
                .spawn_scoped(scope, move || {
                    read_recorded(&source, reopen, send, identity, digest)
                })
        });
        let mut hold = reading.as_ref().map(|_| HoldSource::new(batches));
        let mut list_rows = list_stream
            .as_mut()
            .filter(|_| plan.listed)
            .map(|(l, _)| l as &mut dyn Source);
        // The scores files are the join's sources on every path: the list and the
        // holdout are read before it (into the presumption or the index), not joined.
        let sources = [
            Some(&mut b_stream as &mut dyn Source),
            Some(&mut c_stream),
            None,
            None,
        ];
        let joined = if list_rows.is_none() && hold.is_none() {
            engine::join(sources, &mut collector, &mut prints, store, request.tuning)
                .map(|()| true)
                .map_err(spill)
        } else if request.presume {
            prints.presumed = Some(listed::read_presumed(
                list_rows.take(),
                hold.as_mut().map(|h| h as &mut dyn Source),
            ));
            match engine::join(sources, &mut collector, &mut prints, store, request.tuning) {
                Err(error) if presumed::unfounded(&error) => Ok(false),
                joined => joined.map(|()| true).map_err(spill),
            }
        } else if let Some(index) = listed::read_index(
            list_rows.take(),
            hold.as_mut().map(|h| h as &mut dyn Source),
        ) {
            prints.index = Some(index);
            engine::join(sources, &mut collector, &mut prints, store, request.tuning)
                .map_err(spill)
                .and_then(|()| {
                    listed::hand_unmatched(
                        &prints,
                        &mut collector,
                        list_again,
                        manifest_again,
                        &spill,
                    )
                })
                .map(|()| true)
        } else {
            listed::join_side_by_side(
                [&mut b_stream, &mut c_stream],
                list_again,
                manifest_again,
                (&mut collector, &mut prints),
                (store, request.tuning),
                &spill,
            )
            .map(|()| true)
        };
        drop(hold);
        let recorded = reading.map(|thread| match thread {
            Ok(thread) => thread
                .join()
                .unwrap_or_else(|_| Err(stopped(&manifest_source))),
            Err(error) => Err(InputError::Io {
                file: manifest_source.clone(),
                message: error.to_string(),
            }),
        });
        (joined, recorded)
    });
    let borne = joined?;
    prints.settle();
    let unfounded = |p: &Presumed| prints.suspects_any() || !p.holds();
    if !borne || prints.presumed.as_ref().is_some_and(unfounded) {
        return Ok(None);
    }
    let mut rescan = None;
    let b_result = b_stream.finish(|failed| {
        repeat_of(
            &prints,
            (BASE, base.source, base.reopen),
            failed,
            &mut rescan,
        )
    });
    let c_result = c_stream.finish(|failed| {
        repeat_of(
            &prints,
            (CAND, cand.source, cand.reopen),
            failed,
            &mut rescan,
        )
    });
    let list = list_stream.map(|(l, reopen)| {
        let source = list_source.clone().unwrap_or_default();
        let rows = l.finish().and_then(|rows| {
            match prints.earliest_repeat(LIST, &source, None, reopen)? {
                None => Ok(rows),
                Some(Repeat { line, first, task }) => Err(InputError::invalid(
                    &source,
                    line,
                    format!(
                        "task `{task}` is listed twice (first on row {first}); remove the repeat"
                    ),
                )),
            }
        });
        (source, rows)
    });
    if let Some(error) = rescan {
        return Err(error);
    }
    let Collector {
        plan,
        sums,
        n,
        both_correct,
        losses,
        outcomes,
        repeats,
        unanswered,
        disagreement,
        lacking,
        not_scored,
        missing,
        extra,
        recorded: recorded_count,
        rows,
    } = collector;
    let kept = Kept {
        plan,
        statistics: sums.finish(both_correct && n > 0, false),
        n,
        both_correct,
        losses: losses.into_iter().map(|(_, loss)| loss).collect(),
        outcomes,
        unanswered,
        disagreement,
        lacking,
        not_scored,
        missing,
        extra,
        recorded: recorded_count,
        rows: rows.map(PairSorter::finish),
    };
    Ok(Some(StreamJoined {
        files: [b_result, c_result],
        list,
        recorded,
        holdout_repeats: prints.holdout_repeats(),
        sources: [base.source.to_string(), cand.source.to_string()],
        has_stratum: [b_has.1, c_has.1],
        has_correct: [b_has.0, c_has.0],
        has_answered: [b_has.2, c_has.2],
        has_outcome,
        repeats,
        kept,
    }))
}

/// The earliest repeat of a file (`side`, its source, how to read it again), given its
/// first failed row; a failure to read it again is kept in `rescan`.
fn repeat_of(
    prints: &Fingerprints,
    (side, source, reopen): (usize, &str, Reopen<'_>),
    failed: Option<(u64, Option<&str>)>,
    rescan: &mut Option<InputError>,
) -> Option<Repeat> {
    prints
        .earliest_repeat(side, source, failed, reopen)
        .unwrap_or_else(|error| {
            rescan.get_or_insert(error);
            None
        })
}

fn stopped(source: &str) -> InputError {
    InputError::Io {
        file: source.to_string(),
        message: "the reading thread stopped".to_string(),
    }
}
