//! `evogate score`: grade a tasks file's outputs and write the scores CSV.

use super::{Outcome, Status, read_file, read_table};
use crate::atomic::{Output, write_all};
use crate::cli::ScoreArgs;
use crate::grading::{grade_tasks, scores_csv};
use crate::outputs::parse_outputs;
use crate::verify;

/// Runs `score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<Outcome> {
    let truth = read_table(&args.truth)?;
    let verifier = verify::build(&args.verifier, &truth)?;
    let tasks = read_table(&args.tasks)?;
    let outputs_source = args.outputs.display().to_string();
    let outputs = parse_outputs(&outputs_source, &read_file(&args.outputs)?)?;
    let sheet = grade_tasks(verifier.as_ref(), &tasks, &outputs_source, &outputs)?;
    let csv = scores_csv(&sheet);
    let mut notes = Vec::new();
    if !sheet.missing_outputs.is_empty() {
        let shown: Vec<&str> = sheet
            .missing_outputs
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        notes.push(format!(
            "{} of {} tasks had no output and were graded as empty answers (first: {})",
            sheet.missing_outputs.len(),
            sheet.rows.len(),
            shown.join(", ")
        ));
    }
    let stdout = match &args.out {
        Some(path) => {
            write_all(&[Output::new(path, csv)])?;
            let correct = sheet.rows.iter().filter(|r| r.grade.correct).count();
            format!(
                "scored {} tasks: {} correct; wrote {}\n",
                sheet.rows.len(),
                correct,
                path.display()
            )
        }
        None => csv,
    };
    Ok(Outcome {
        status: Status::Success,
        stdout,
        notes,
    })
}
