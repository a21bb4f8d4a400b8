//! The scoring use case: build the verifier from the ground truth, then grade every
//! task of a tasks file against its output, streaming the scores CSV to `write` in
//! chunks of whole rows. Only the tasks' rows and the current output are held.

use std::path::PathBuf;

use super::open_file;
use crate::error::InputError;
use crate::grading::{Summary, grade_tasks};
use crate::outputs::OutputsReader;
use crate::table::scan::RowScanner;
use crate::verify;

/// The inputs of one `score`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreFiles {
    /// The ground truth the tasks were built from.
    pub truth: PathBuf,
    /// The tasks file.
    pub tasks: PathBuf,
    /// The outputs, CSV or JSON Lines.
    pub outputs: PathBuf,
    /// The verifier's name.
    pub verifier: String,
}

/// Grades `files.outputs` against the truth, handing the scores CSV to `write`.
pub fn score(files: &ScoreFiles, write: &mut dyn FnMut(&str)) -> anyhow::Result<Summary> {
    let truth_file: Box<dyn std::io::Read> = Box::new(open_file(&files.truth)?);
    let truth = RowScanner::new(&files.truth.display().to_string(), truth_file)?;
    let verifier = verify::build_from_rows(&files.verifier, truth)?;
    let tasks_source = files.tasks.display().to_string();
    let tasks = RowScanner::new(&tasks_source, open_file(&files.tasks)?)?;
    // An error reading the outputs is reported only after the whole tasks file is
    // known to parse, as it was when both were read whole; each output is read when
    // its task's row asks for it.
    let outputs_source = files.outputs.display().to_string();
    let outputs = match std::fs::File::open(&files.outputs) {
        Ok(file) => OutputsReader::new(&outputs_source, file),
        Err(error) => Err(InputError::Io {
            file: outputs_source,
            message: error.to_string(),
        }),
    };
    let summary = grade_tasks(verifier.as_ref(), tasks, outputs, write)?;
    // A big truth makes a verifier of millions of small allocations; freeing them one
    // at a time takes a visible share of the run, and the process ends soon after
    // this returns.
    std::mem::forget(verifier);
    Ok(summary)
}

/// The note for tasks that had no output, when some had none.
pub fn missing_note(summary: &Summary) -> Option<String> {
    (summary.missing > 0).then(|| {
        format!(
            "{} of {} tasks had no output and were graded as empty answers (first: {})",
            summary.missing,
            summary.tasks,
            summary.first_missing.join(", ")
        )
    })
}
