//! The scoring use case: grade every task of a tasks file against its output, handing
//! the scores CSV to a sink in chunks of whole rows. The benchmark verifiers (`numeric`,
//! `choice`, `short`) grade a task from its own truth row, `facts` from its own row
//! and its kind's distinct answers, and `arxiv` from its own paper and the paper
//! corpus, so the three files are sorted by task id on disk and merged, holding nothing
//! that grows with the rows but the papers (`arxiv`; for `facts`, the distinct answers
//! up to a few MB, then a table of them on disk). A verifier without a streamed form
//! would be built from the whole truth and held
//! while the tasks and outputs stream.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::open_file;
use super::outcome::{CommandOutcome, Status, Write};
use crate::base::numbers::count;
use crate::base::sorter::run_store;
use crate::error::InputError;
use crate::grading::joined::{SORT_BUDGET, grade_joined, sort_truth};
use crate::grading::{Summary, grade_tasks};
use crate::outputs::OutputsReader;
use crate::progress::ProgressSink;
use crate::table::scan::RowScanner;
use crate::verify::{self, Rowwise, Verifier};

/// The inputs of one `score`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScoreFiles {
    /// The ground truth the tasks were built from.
    pub truth: PathBuf,
    /// The tasks file.
    pub tasks: PathBuf,
    /// The outputs, CSV or JSON Lines.
    pub outputs: PathBuf,
    /// The verifier's name.
    pub verifier: String,
    /// Score tasks without an answer as empty answers marked `answered` 0, instead of
    /// refusing the run.
    pub allow_missing: bool,
}

/// Where `score` hands the scores CSV: the path it will be moved to, and the sink
/// that writes it there as it is made.
pub(crate) type ScoresSink<'a> = (&'a Path, &'a mut dyn FnMut(&str));

/// Runs `score`: the scores CSV goes to `out`'s sink as it is made (the command
/// streams it into the file, moved into place by [`Write::Stream`]), or without `out`
/// into the report for stdout. The outputs' bytes read are counted into `progress`.
pub(crate) fn run(
    files: &ScoreFiles,
    out: Option<ScoresSink<'_>>,
    progress: &dyn ProgressSink,
) -> anyhow::Result<CommandOutcome> {
    let mut csv = String::new();
    let (scored, out) = match out {
        Some((path, sink)) => (score(files, sink, progress)?, Some(path)),
        None => (
            score(files, &mut |chunk| csv.push_str(chunk), progress)?,
            None,
        ),
    };
    let summary = &scored.summary;
    let notes: Vec<String> = check_answered(summary, files)?.into_iter().collect();
    let mut outcome = match out {
        Some(path) => {
            let mut outcome = CommandOutcome::new(
                Status::Success,
                format!(
                    "scored {}: {} correct; wrote {}\n",
                    count(summary.tasks as u64, "task"),
                    summary.correct,
                    path.display()
                ),
            );
            outcome.writes.push(Write::Stream(path.to_path_buf()));
            outcome
        }
        None => CommandOutcome::new(Status::Success, csv),
    };
    outcome.notes = notes;
    Ok(outcome.holding(scored.verifier))
}

/// A graded tasks file: the counts, and the verifier, which the caller holds until the
/// process exits (a big truth makes a verifier of millions of small allocations;
/// freeing them one at a time takes a visible share of the run).
pub(crate) struct Graded {
    /// What was graded.
    pub summary: Summary,
    /// The verifier built from the truth, where one was built.
    pub verifier: Option<Box<dyn Verifier>>,
}

/// Grades `files.outputs` against the truth, handing the scores CSV to `write` and
/// counting the outputs' bytes into `progress`.
pub(crate) fn score(
    files: &ScoreFiles,
    write: &mut dyn FnMut(&str),
    progress: &dyn ProgressSink,
) -> anyhow::Result<Graded> {
    score_tasks(files, || open_file(&files.tasks), write, progress)
}

/// [`score`] with the tasks file's bytes from `tasks` (opened once the verifier is
/// built, so a bad truth is reported first).
pub(crate) fn score_tasks<R: Read>(
    files: &ScoreFiles,
    tasks: impl FnOnce() -> anyhow::Result<R>,
    write: &mut dyn FnMut(&str),
    progress: &dyn ProgressSink,
) -> anyhow::Result<Graded> {
    let truth_source = files.truth.display().to_string();
    if let Some(rowwise) = verify::rowwise(&files.verifier) {
        return score_joined(files, rowwise.as_ref(), tasks, write, progress);
    }
    let verifier = verify::build(&files.verifier, &truth_source, open_file(&files.truth)?)?;
    let tasks_source = files.tasks.display().to_string();
    let tasks = RowScanner::new(&tasks_source, tasks()?)?;
    // An error reading the outputs is reported only after the whole tasks file is
    // known to parse, as it was when both were read whole; each output is read when
    // its task's row asks for it.
    let outputs = open_outputs(files, progress);
    let summary = grade_tasks(
        verifier.as_ref(),
        tasks,
        outputs,
        write,
        files.allow_missing,
    )?;
    progress.end();
    Ok(Graded {
        summary,
        verifier: Some(verifier),
    })
}

/// The outputs file opened for reading, its bytes counted into `progress`.
fn open_outputs<'a>(
    files: &ScoreFiles,
    progress: &'a dyn ProgressSink,
) -> Result<OutputsReader<impl Read + 'a>, InputError> {
    let outputs_source = files.outputs.display().to_string();
    let size = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
    progress.begin(size(&files.outputs));
    crate::table::open_input(&files.outputs)
        .and_then(|file| OutputsReader::new(&outputs_source, progress.reader(file)))
}

/// [`score_tasks`] for a verifier that grades each task against its own truth row
/// (`numeric`, `choice`, `short`; `facts` with its kind's distinct answers): the three
/// files are sorted by task id on disk and merged ([`crate::grading::joined`]), so
/// nothing grows with the rows.
fn score_joined<R: Read>(
    files: &ScoreFiles,
    rowwise: &dyn Rowwise,
    tasks: impl FnOnce() -> anyhow::Result<R>,
    write: &mut dyn FnMut(&str),
    progress: &dyn ProgressSink,
) -> anyhow::Result<Graded> {
    let truth_source = files.truth.display().to_string();
    let store = run_store();
    let truth = open_file(&files.truth)?;
    let truth = sort_truth(&truth_source, store, SORT_BUDGET, |each| {
        verify::read_rowwise(&files.verifier, rowwise, &truth_source, truth, each)
    })?;
    let tasks_source = files.tasks.display().to_string();
    let tasks = RowScanner::new(&tasks_source, tasks()?)?;
    let outputs = open_outputs(files, progress);
    let summary = grade_joined(
        rowwise,
        &truth,
        tasks,
        outputs,
        (store, SORT_BUDGET),
        write,
        files.allow_missing,
    )?;
    progress.end();
    Ok(Graded {
        summary,
        verifier: None,
    })
}

/// Checks that every task was answered. A crashed or cut-short run must not be scored
/// as a skill's wrong answers: without `allow_missing` unanswered tasks are an error
/// naming how many and the first ids; with it they are a note.
pub(crate) fn check_answered(
    summary: &Summary,
    files: &ScoreFiles,
) -> anyhow::Result<Option<String>> {
    if summary.missing == 0 {
        return Ok(None);
    }
    let unanswered = format!(
        "{} of {} {} no answer in `{}` (first: {}){}",
        summary.missing,
        count(summary.tasks as u64, "task"),
        if summary.missing == 1 { "has" } else { "have" },
        files.outputs.display(),
        summary.first_missing.join(", "),
        match (summary.errored, summary.missing) {
            (0, _) => String::new(),
            (1, 1) => "; it carries an error instead of an answer".to_string(),
            (1, _) => "; 1 of them carries an error instead of an answer".to_string(),
            (n, _) => format!("; {n} of them carry an error instead of an answer"),
        }
    );
    if !files.allow_missing {
        anyhow::bail!(
            "{unanswered}; {}",
            if summary.missing == 1 {
                "rerun it, or pass --allow-missing to score it as an empty answer marked `answered` 0"
            } else {
                "rerun them, or pass --allow-missing to score them as empty answers marked `answered` 0"
            }
        );
    }
    Ok(Some(format!(
        "{unanswered}; scored as empty answers, marked `answered` 0"
    )))
}
