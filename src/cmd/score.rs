//! `evogate score`: grade a tasks file's outputs and write the scores CSV.

use super::{Outcome, Status, open_file};
use crate::atomic::Streamed;
use crate::cli::ScoreArgs;
use crate::error::InputError;
use crate::grading::grade_tasks;
use crate::outputs::OutputsReader;
use crate::table::scan::RowScanner;
use crate::verify;

/// Runs `score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<Outcome> {
    let truth_file: Box<dyn std::io::Read> = Box::new(open_file(&args.truth)?);
    let truth = RowScanner::new(&args.truth.display().to_string(), truth_file)?;
    let verifier = verify::build_from_rows(&args.verifier, truth)?;
    let tasks_source = args.tasks.display().to_string();
    let tasks = RowScanner::new(&tasks_source, open_file(&args.tasks)?)?;
    // An error reading the outputs is reported only after the whole tasks file is
    // known to parse, as it was when both were read whole; each output is read when
    // its task's row asks for it.
    let outputs_source = args.outputs.display().to_string();
    let outputs = match std::fs::File::open(&args.outputs) {
        Ok(file) => OutputsReader::new(&outputs_source, file),
        Err(error) => Err(InputError::Io {
            file: outputs_source.clone(),
            message: error.to_string(),
        }),
    };
    // The scores go straight to a temporary file beside --out, moved into place only
    // once every input proved good; without --out they are gathered for stdout.
    let mut file = args.out.as_ref().map(Streamed::new);
    let mut csv = String::new();
    let summary = grade_tasks(
        verifier.as_ref(),
        tasks,
        outputs,
        &mut |chunk| match &mut file {
            Some(file) => file.write(chunk.as_bytes()),
            None => csv.push_str(chunk),
        },
        args.allow_missing,
    )?;
    let mut notes = Vec::new();
    if summary.missing > 0 {
        let unanswered = format!(
            "{} of {} tasks have no answer in `{outputs_source}` (first: {}){}",
            summary.missing,
            summary.tasks,
            summary.first_missing.join(", "),
            match summary.errored {
                0 => String::new(),
                n => format!("; {n} of them carry an error instead of an answer"),
            }
        );
        // A crashed or cut-short run must not be scored as a skill's wrong answers.
        if !args.allow_missing {
            anyhow::bail!(
                "{unanswered}; rerun them, or pass --allow-missing to score them as empty answers marked `answered` 0"
            );
        }
        notes.push(format!(
            "{unanswered}; scored as empty answers, marked `answered` 0"
        ));
    }
    let stdout = match file {
        Some(file) => {
            let wrote = format!(
                "scored {} tasks: {} correct; wrote {}\n",
                summary.tasks,
                summary.correct,
                file.path().display()
            );
            file.commit()?;
            wrote
        }
        None => csv,
    };
    // A big truth makes a verifier of millions of small allocations; freeing them one
    // at a time takes a visible share of the run, and the process ends right after
    // this returns.
    std::mem::forget(verifier);
    Ok(Outcome {
        status: Status::Success,
        stdout,
        notes,
    })
}
