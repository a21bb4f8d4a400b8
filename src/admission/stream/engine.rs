//! Joining the rows of two to four files by task as they are read, holding only what
//! waits: the baseline's and the candidate's scores, and (when given) the task list
//! and the holdout a manifest recorded. Every file is read a row at a time, side by
//! side. When the current rows of all of them name one task (files in one order, as
//! `split` writes the holdout and `score` writes scores from it) the task is complete
//! at once and nothing is held; otherwise each row waits, filed under its task, until
//! the rows of the other files for that task arrive. When more rows wait than
//! [`Tuning`] allows (files in different orders), every waiting row and every row still
//! to come goes to an external sort of its file instead, and the sorted files are
//! merged by task once all are read. Tasks some file never named are handed over at the
//! end ([`TaskSink::task`] with the rows found).
//!
//! With an index of the task list and the holdout
//! ([`TaskIndex`](super::index::TaskIndex)), only the two scores
//! files are read here, and every task handed over takes its list and holdout rows
//! from the index.
//!
//! Repeated tasks are not looked for here: every task handed over leaves an 8-byte
//! fingerprint with the files it was in ([`Fingerprints`], or the index's entry for
//! it), and a row that meets a waiting row of its own file with its task is dropped
//! and marked (see [`super::unique`]); the holdout's repeats are dropped, as a set of
//! task ids has none.

mod sorted;

use std::io;

use self::sorted::{encode, merge};
use super::unique::Fingerprints;
use super::{BASE, CAND, HOLD, LIST, SIDES};
use crate::base::hash::{FastMap, fingerprint};
use crate::base::sorter::{Budget, RunStore, Sorter};
use crate::scores::ScoreRow;

/// How long rows may wait for the other files' rows of their task, and how many bytes
/// of sorted rows wait in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// Rows may wait while there are at most this many ...
    pub pending_least: usize,
    /// ... or one for every this many rows read, whichever is more.
    pub pending_share: usize,
    /// The external sorts' memory.
    pub sort: Budget,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            pending_least: 1 << 14,
            pending_share: 16,
            sort: Budget {
                least: 4 << 20,
                per_record: 8,
            },
        }
    }
}

/// A file read a row at a time: `None` once it has ended (or failed).
pub(super) trait Source {
    /// The next row.
    fn next(&mut self) -> Option<&ScoreRow>;

    /// The task of the row `k` rows after the next, when it is read already (a hint
    /// only: `None` says nothing).
    fn upcoming(&self, k: usize) -> Option<&str> {
        let _ = k;
        None
    }
}

/// How many tasks ahead of the scores files the index's entries are fetched: the
/// baseline's next tasks are looked up together, their misses of the cache overlapping,
/// instead of one miss a task.
const FETCH_AHEAD: usize = 32;

/// Where the tasks go.
pub(super) trait TaskSink {
    /// A task with its row in each file that has it (index [`BASE`], [`CAND`],
    /// [`LIST`], [`HOLD`]). Complete tasks come as they are found, the others at the
    /// end; each task once, in no particular order.
    fn task(&mut self, rows: [Option<&ScoreRow>; SIDES]) -> io::Result<()>;
}

/// Reads every source to its end, joining their rows by task into `sink`. `sources`
/// holds the baseline and the candidate, then the task list and the holdout when
/// given (and not in `prints`' index). A task is complete once every given source has
/// named it.
pub(super) fn join(
    sources: [Option<&mut dyn Source>; SIDES],
    sink: &mut dyn TaskSink,
    prints: &mut Fingerprints,
    store: &dyn RunStore,
    tuning: Tuning,
) -> io::Result<()> {
    let given: [bool; SIDES] = std::array::from_fn(|side| sources[side].is_some());
    let mut sources = sources;
    let mut engine = Engine {
        given,
        waiting: FastMap::default(),
        sorters: None,
        store,
        tuning,
        read: 0,
        record: Vec::new(),
        attached: Default::default(),
    };
    let mut live = given;
    let mut handed = 0_usize;
    loop {
        if let (Some(index), Some(base)) = (prints.index.as_ref(), sources[BASE].as_ref()) {
            if handed.is_multiple_of(FETCH_AHEAD) {
                let mut ahead = [0_u64; FETCH_AHEAD];
                let mut count = 0;
                while let Some(task) = base.upcoming(count).filter(|_| count < FETCH_AHEAD) {
                    ahead[count] = fingerprint(task);
                    count += 1;
                }
                index.fetch(&ahead, count);
            }
            handed += 1;
        }
        let mut rows: [Option<&ScoreRow>; SIDES] = [None; SIDES];
        for (side, source) in sources.iter_mut().enumerate() {
            if live[side] {
                rows[side] = source.as_mut().and_then(|s| s.next());
                live[side] = rows[side].is_some();
            }
        }
        if rows.iter().all(Option::is_none) {
            break;
        }
        engine.read += rows.iter().flatten().count() as u64;
        let task = rows.iter().flatten().next().map(|r| r.task.as_str());
        // The first row's own file is not compared with itself.
        let together = engine.sorters.is_none()
            && (0..SIDES).all(|s| {
                !given[s]
                    || rows[s].is_some_and(|r| {
                        std::ptr::eq(r.task.as_str(), task.unwrap_or_default())
                            || Some(r.task.as_str()) == task
                    })
            });
        if together {
            hand(
                task.unwrap_or_default(),
                rows,
                sink,
                prints,
                &mut engine.attached,
            )?;
            continue;
        }
        for (side, row) in rows.into_iter().enumerate() {
            if let Some(row) = row {
                engine.place(side, row, sink, prints)?;
            }
        }
    }
    engine.finish(sink, prints)
}

/// Which files a task's rows are from, one bit each.
fn mask(rows: &[Option<&ScoreRow>; SIDES]) -> u8 {
    (0..SIDES).fold(0, |bits, side| {
        bits | u8::from(rows[side].is_some()) << side
    })
}

/// Hands a task over with its rows, keeping its fingerprint. With an index of the
/// list and the holdout, the task's rows there are `attached` from its entry, and the
/// entry keeps the fingerprint (a scores file that meets it twice makes it a suspect).
fn hand<'r>(
    task: &str,
    mut rows: [Option<&'r ScoreRow>; SIDES],
    sink: &mut dyn TaskSink,
    prints: &mut Fingerprints,
    attached: &'r mut [ScoreRow; 2],
) -> io::Result<()> {
    let print = fingerprint(task);
    if let Some(presumed) = prints.presumed.as_mut() {
        presumed.hand(task, &rows)?;
        let (listed, held) = (presumed.listed(), presumed.held());
        prints.task(print, mask(&rows));
        let [list_row, holdout] = attached;
        if listed {
            list_row.line = 0;
            list_row.task.clear();
            list_row.task.push_str(task);
            rows[LIST] = Some(list_row);
        }
        if held {
            holdout.task.clear();
            holdout.task.push_str(task);
            rows[HOLD] = Some(holdout);
        }
        return sink.task(rows);
    }
    let Some((index, at)) = prints
        .index
        .as_mut()
        .and_then(|index| index.find(print, task).map(|at| (index, at)))
    else {
        prints.task(print, mask(&rows));
        return sink.task(rows);
    };
    let again = [BASE, CAND].map(|side| rows[side].is_some() && index.mark(at, side));
    let held = index.held(at);
    for side in [BASE, CAND] {
        if again[side] {
            prints.suspect(side, print);
        }
    }
    let [listed, holdout] = attached;
    // A listed task both files have is used (the list's row is not shown); one a file
    // lacks is handed over again at the end with the list's row, for its gap.
    if held.listed && held.scored == [true, true] {
        listed.line = 0;
        listed.task.clear();
        listed.task.push_str(task);
        rows[LIST] = Some(listed);
    }
    if held.held {
        holdout.task.clear();
        holdout.task.push_str(task);
        rows[HOLD] = Some(holdout);
    }
    sink.task(rows)
}

/// A task waiting for the rows of other files.
type Waiting = [Option<ScoreRow>; SIDES];

/// The rows waiting, and the sorts once rows wait too long.
struct Engine<'s> {
    given: [bool; SIDES],
    waiting: FastMap<String, Waiting>,
    /// Each file's external sort, once the rows are sorted.
    sorters: Option<Vec<Sorter<'s>>>,
    store: &'s dyn RunStore,
    tuning: Tuning,
    /// Rows read from all files.
    read: u64,
    /// A row being encoded.
    record: Vec<u8>,
    /// The list's and the holdout's rows taken from an index.
    attached: [ScoreRow; 2],
}

impl Engine<'_> {
    /// A row whose task the other files' current rows do not all name.
    fn place(
        &mut self,
        side: usize,
        row: &ScoreRow,
        sink: &mut dyn TaskSink,
        prints: &mut Fingerprints,
    ) -> io::Result<()> {
        if let Some(sorters) = &mut self.sorters {
            self.record.clear();
            encode(&mut self.record, row);
            return sorters[side].push(row.task.as_bytes(), &self.record);
        }
        let complete = match self.waiting.get_mut(row.task.as_str()) {
            Some(waiting) if waiting[side].is_some() => {
                // A repeat within one file: the holdout's is dropped, another file is
                // refused.
                if side != HOLD {
                    prints.suspect(side, fingerprint(&row.task));
                }
                return Ok(());
            }
            Some(waiting) => {
                waiting[side] = Some(row.clone());
                (0..SIDES).all(|s| !self.given[s] || waiting[s].is_some())
            }
            None => {
                let mut waiting: Waiting = Default::default();
                waiting[side] = Some(row.clone());
                self.waiting.insert(row.task.clone(), waiting);
                false
            }
        };
        if complete {
            let rows = self
                .waiting
                .remove(row.task.as_str())
                .expect("the task was waiting");
            let rows: [Option<&ScoreRow>; SIDES] = std::array::from_fn(|s| rows[s].as_ref());
            return hand(&row.task, rows, sink, prints, &mut self.attached);
        }
        let allowed = (usize::try_from(self.read).unwrap_or(usize::MAX)
            / self.tuning.pending_share.max(1))
        .max(self.tuning.pending_least);
        if self.waiting.len() > allowed {
            self.sort_from_now()?;
        }
        Ok(())
    }

    /// Sends every waiting row, and every row to come, to its file's external sort.
    fn sort_from_now(&mut self) -> io::Result<()> {
        let mut sorters: Vec<Sorter<'_>> = (0..SIDES)
            .map(|_| Sorter::new(self.store, self.tuning.sort))
            .collect();
        let mut waiting: Vec<(String, Waiting)> =
            std::mem::take(&mut self.waiting).into_iter().collect();
        // Each file's rows in file order, so that a repeat still to come sorts after them.
        for side in 0..SIDES {
            let mut rows: Vec<&ScoreRow> = waiting
                .iter()
                .filter_map(|(_, w)| w[side].as_ref())
                .collect();
            rows.sort_by_key(|row| row.line);
            for row in rows {
                self.record.clear();
                encode(&mut self.record, row);
                sorters[side].push(row.task.as_bytes(), &self.record)?;
            }
        }
        waiting.clear();
        self.sorters = Some(sorters);
        Ok(())
    }

    /// Once every file is read: the tasks still waiting go to `sink` as they are, or
    /// the sorted files are merged by task.
    fn finish(self, sink: &mut dyn TaskSink, prints: &mut Fingerprints) -> io::Result<()> {
        let Engine {
            waiting,
            sorters,
            mut attached,
            ..
        } = self;
        let Some(sorters) = sorters else {
            let mut waiting: Vec<(String, Waiting)> = waiting.into_iter().collect();
            waiting.sort_by(|x, y| x.0.cmp(&y.0));
            for (task, rows) in waiting {
                let rows: [Option<&ScoreRow>; SIDES] = std::array::from_fn(|s| rows[s].as_ref());
                hand(&task, rows, sink, prints, &mut attached)?;
            }
            return Ok(());
        };
        let sorted: Vec<_> = sorters.into_iter().map(Sorter::finish).collect();
        let mut merges = sorted
            .iter()
            .map(|s| s.merge())
            .collect::<io::Result<Vec<_>>>()?;
        merge(&mut merges, sink, prints, &mut attached)
    }
}
