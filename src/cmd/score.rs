//! `evogate score`: grade a tasks file's outputs ([`crate::pipeline::score`]) and write
//! the scores CSV to `--out` (atomically, streamed) or to stdout.

use super::{Printout, Status};
use crate::atomic::{Streamed, refuse_overwriting_inputs};
use crate::cli::ScoreArgs;
use crate::pipeline::score::{ScoreFiles, check_answered, score};

/// Runs `score`.
pub fn run(args: ScoreArgs) -> anyhow::Result<Printout> {
    let files = ScoreFiles {
        truth: args.truth.clone(),
        tasks: args.tasks.clone(),
        outputs: args.outputs.clone(),
        verifier: args.verifier.clone(),
        allow_missing: args.allow_missing,
    };
    if let Some(out) = &args.out {
        refuse_overwriting_inputs(
            [out.as_path()],
            &[
                ("--truth", &args.truth),
                ("--tasks", &args.tasks),
                ("--outputs", &args.outputs),
            ],
        )?;
    }
    // The scores go straight to a temporary file beside --out, moved into place only
    // once every input proved good; without --out they are gathered for stdout.
    let mut file = args.out.as_ref().map(Streamed::new);
    let mut csv = String::new();
    let summary = score(&files, &mut |chunk| match &mut file {
        Some(file) => file.write(chunk.as_bytes()),
        None => csv.push_str(chunk),
    })?;
    let notes: Vec<String> = check_answered(&summary, &files)?.into_iter().collect();
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
    Ok(Printout {
        status: Status::Success,
        stdout,
        notes,
    })
}
