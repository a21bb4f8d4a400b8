//! `admit` on scores files read as streams (see
//! [`crate::admission::stream`]): both scores files, the task list and the manifest are
//! read side by side and joined by task, each file digested on the way, and nothing of
//! them is held but what the decision and the report need. The checks and their
//! errors come in the order [`super::prepare_streams`] gives them for the same files,
//! which stays the way for inputs that cannot be read twice (a pipe) and for the rare
//! holdout that names a task twice.

use std::io::Read;
use std::sync::Arc;

use super::{AdmitSettings, Prepared, Source};
use crate::admission::HoldoutRecord;
use crate::admission::recorded::Recorded;
use crate::admission::stream::{
    ListFile, ManifestFile, Reopen, ScoresFile, StreamRequest, Streamed, Tuning, read_streams,
};
use crate::base::sorter::run_store;
use crate::error::InputError;
use crate::report::InputFile;
use crate::scores::{
    ANSWERED_COLUMN, CORRECT_COLUMN, FEEDBACK_COLUMN, GROUP_COLUMN, OUTCOME_COLUMN, SCORE_COLUMN,
    TASK_ID_COLUMN,
};
use crate::table::ahead::RowsAhead;
use crate::table::{MAX_WHOLE_BYTES, read_capped};

/// An input as a stream: its path as given, a reader from its start, and how to read
/// it again.
pub(crate) struct Stream<'a> {
    /// The path as given.
    pub path: String,
    /// Its bytes, from the start.
    pub input: Box<dyn Read + Send + 'static>,
    /// It again, from its start.
    pub reopen: Reopen<'a>,
}

/// What a streamed admission decides on besides the statistics: the holdout's facts.
pub(crate) struct StreamedSource {
    /// The pairs, paired.
    pub streamed: Streamed,
    /// The manifest as given and what it recorded.
    pub recorded: Option<(String, Recorded)>,
    /// The task list as given and its SHA-256.
    pub tasks_file: Option<(String, String)>,
}

/// Why the streamed reading hands back to the reading that holds the files whole.
pub(crate) enum Fallback {
    /// The candidate's header could not be read: its error must wait for the
    /// baseline's, which that reading gives.
    CandidateHeader,
    /// The holdout names a task twice.
    HoldoutRepeats,
    /// Some pair is a repeat of an item: the pairs are collapsed to items, which the
    /// reading that holds the files does.
    Repeats,
}

/// The inputs of one streamed admission.
pub(crate) struct Streams<'a> {
    /// The baseline's and the candidate's scores.
    pub scores: [Stream<'a>; 2],
    /// The task list.
    pub tasks: Option<Stream<'a>>,
    /// The manifest.
    pub manifest: Option<Stream<'a>>,
    /// Whether the task list and the holdout are first presumed to name the scores
    /// files' tasks (read again with an index when they do not). `admit` presumes
    /// without a report folder only: the memory the first reading's sort of the pairs
    /// leaves with the allocator, beside the index's, would pass the bound on memory a
    /// pair.
    pub presume: bool,
    /// Whether the task list's SHA-256 is wanted: an output records it (see
    /// [`AdmitFiles::digests_shown`](super::AdmitFiles::digests_shown)), or the
    /// manifest's check compares it.
    pub digest_tasks: bool,
    /// Whether the manifest's own SHA-256 is wanted: an output records it.
    pub digest_manifest: bool,
}

/// Reads and pairs the files as streams, resolves the test and reads the manifest;
/// `check_digests` sees the two scores files' SHA-256 before they are paired.
pub(crate) fn prepare_streamed<'a>(
    streams: Streams<'_>,
    keep_rows: bool,
    identity: bool,
    check_digests: &dyn Fn(&str, &str) -> anyhow::Result<()>,
    settings: &'a AdmitSettings,
    tuning: Tuning,
) -> anyhow::Result<Result<Prepared<'a>, Fallback>> {
    let Streams {
        scores: [baseline, candidate],
        tasks,
        manifest,
        presume,
        digest_tasks,
        digest_manifest,
    } = streams;
    // Only the columns read are handed on from the reading threads: not the baseline's
    // feedback without a report folder, nor any column a scores file has besides.
    let strata = settings.strata.as_ref().map(|s| s.column.as_str());
    let read = |feedback: bool| {
        move |column: &str| {
            [
                TASK_ID_COLUMN,
                SCORE_COLUMN,
                CORRECT_COLUMN,
                GROUP_COLUMN,
                ANSWERED_COLUMN,
                OUTCOME_COLUMN,
            ]
            .contains(&column)
                || Some(column) == strata
                || (feedback && column == FEEDBACK_COLUMN)
        }
    };
    let tasks_path = tasks.as_ref().map(|t| t.path.clone());
    let tasks_reopen = tasks.as_ref().map(|t| t.reopen);
    let manifest_path = manifest.as_ref().map(|m| m.path.clone());
    let manifest_reopen = manifest.as_ref().map(|m| m.reopen);
    let mut inputs = Some((baseline.input, candidate.input, tasks.map(|t| t.input)));
    // First with the list and the holdout presumed to name the scores files' tasks
    // (when asked); when they do not, every file again from its start, with the index.
    let mut presume = presume;
    let (joined, base_rows, cand_rows, list_rows) = loop {
        let (base_input, cand_input, tasks_input) = match inputs.take() {
            Some(inputs) => inputs,
            None => (
                again(&baseline.path, baseline.reopen)?,
                again(&candidate.path, candidate.reopen)?,
                tasks_path
                    .as_deref()
                    .zip(tasks_reopen)
                    .map(|(path, reopen)| again(path, reopen))
                    .transpose()?,
            ),
        };
        let mut base_rows = RowsAhead::spawn_keeping(&baseline.path, base_input, &read(keep_rows))?;
        let Ok(mut cand_rows) = RowsAhead::spawn_keeping(&candidate.path, cand_input, &read(true))
        else {
            return Ok(Err(Fallback::CandidateHeader));
        };
        let mut list_rows = tasks_input.zip(tasks_path.as_deref()).map(|(input, path)| {
            let id = |column: &str| column == TASK_ID_COLUMN;
            if digest_tasks {
                RowsAhead::spawn_keeping(path, input, &id)
            } else {
                RowsAhead::spawn_undigested(path, input, &id)
            }
        });
        let list = match (&mut list_rows, tasks_path.as_deref(), tasks_reopen) {
            (Some(rows), Some(source), Some(reopen)) => Some(ListFile {
                source,
                rows: rows.as_mut().map_err(|e| e.clone()),
                reopen,
            }),
            _ => None,
        };
        let manifest_file = manifest_reopen.map(|reopen| ManifestFile {
            source: manifest_path.as_deref().unwrap_or_default(),
            reopen,
            identity,
            digest: digest_manifest,
        });
        let request = StreamRequest {
            strata: settings.strata.as_ref(),
            keep_rows,
            store: run_store(),
            tuning,
            presume,
        };
        let joined = read_streams(
            [
                ScoresFile {
                    source: &baseline.path,
                    rows: &mut base_rows,
                    reopen: baseline.reopen,
                },
                ScoresFile {
                    source: &candidate.path,
                    rows: &mut cand_rows,
                    reopen: candidate.reopen,
                },
            ],
            list,
            manifest_file,
            request,
        )?;
        match joined {
            Some(joined) => break (joined, base_rows, cand_rows, list_rows),
            None => presume = false,
        }
    };
    let [base_shape, cand_shape] = &joined.files;
    base_shape.clone()?;
    let base_digest = digest("baseline", &baseline.path, base_rows)?;
    cand_shape.clone()?;
    let cand_digest = digest("candidate", &candidate.path, cand_rows)?;
    check_digests(&base_digest.sha256, &cand_digest.sha256)?;
    let mut inputs = vec![base_digest, cand_digest];
    let listed = match &joined.list {
        Some((_, rows)) => Some(rows.clone()?),
        None => None,
    };
    let tasks_file = match (list_rows, tasks_path) {
        (Some(rows), Some(path)) => {
            let rows = rows.map_err(anyhow::Error::from)?;
            match rows.finish()? {
                Some(sha) => {
                    inputs.push(InputFile {
                        role: "tasks".to_string(),
                        path: path.clone(),
                        sha256: sha.clone(),
                    });
                    Some((path, sha))
                }
                None => None,
            }
        }
        _ => None,
    };
    if joined.holdout_repeats {
        return Ok(Err(Fallback::HoldoutRepeats));
    }
    if joined.repeats {
        return Ok(Err(Fallback::Repeats));
    }
    let recorded = joined.recorded.clone();
    let streamed = joined.pair(settings.strata.as_ref(), listed)?;
    let test = settings.test.resolve_columns(
        (
            streamed.both_correct,
            streamed.statistics.baseline_has_correct,
            streamed.statistics.candidate_has_correct,
        ),
        settings.zero,
        &streamed.statistics.baseline,
        &streamed.statistics.candidate,
    )?;
    let recorded = match (recorded, manifest_path, manifest_reopen) {
        (Some(result), Some(path), Some(reopen)) => {
            let recorded = result.map_err(|streamed| held_error(&path, reopen, streamed))?;
            if let Some(digest) = &recorded.digest {
                inputs.push(InputFile {
                    role: "manifest".to_string(),
                    path: path.clone(),
                    sha256: digest.clone(),
                });
            }
            Some((path, recorded))
        }
        _ => None,
    };
    let config = settings.config(test, None);
    Ok(Ok(Prepared {
        source: Source::Streamed(Box::new(StreamedSource {
            streamed,
            recorded,
            tasks_file,
        })),
        repeats: None,
        inputs,
        config,
        settings,
    }))
}

/// The error of a manifest that did not read as a stream, worded as the reading that
/// holds it whole words it (serde's reader of a stream places some errors a column
/// further on).
fn held_error(path: &str, reopen: Reopen<'_>, streamed: InputError) -> InputError {
    let whole = reopen()
        .map_err(|e| InputError::Io {
            file: path.to_string(),
            message: e.to_string(),
        })
        .and_then(|input| read_capped(path, input, MAX_WHOLE_BYTES));
    match whole {
        Ok(bytes) => HoldoutRecord::from_manifest(path, &bytes, None)
            .err()
            .unwrap_or(streamed),
        Err(error) => error,
    }
}

/// A file (`path`) from its start again.
fn again(path: &str, reopen: Reopen<'_>) -> Result<Box<dyn Read + Send>, InputError> {
    reopen().map_err(|error| InputError::Io {
        file: path.to_string(),
        message: format!("reading it again: {error}"),
    })
}

/// The SHA-256 of a file read through `rows`, with its role.
fn digest(role: &str, path: &str, rows: RowsAhead) -> Result<InputFile, InputError> {
    Ok(InputFile {
        role: role.to_string(),
        path: path.to_string(),
        sha256: rows.digest()?,
    })
}

/// The pairs of a streamed admission for a report folder, when kept.
pub(crate) fn rows_of(source: &mut StreamedSource) -> Option<crate::admission::rows::PairRows> {
    source
        .streamed
        .rows
        .take()
        .map(|rows| crate::admission::rows::PairRows::Sorted(Arc::new(rows)))
}
