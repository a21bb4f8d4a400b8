//! `evogate score`: grade a tasks file's outputs ([`crate::pipeline::score`]) and write
//! the scores CSV to `--out` (atomically, streamed) or to stdout.

use super::Printout;
use super::execute::Effects;
use crate::cli::ScoreArgs;
use crate::pipeline::score::{self, ScoreFiles};
use crate::progress::Progress;

/// Runs `score`.
pub(crate) fn run(args: ScoreArgs) -> anyhow::Result<Printout> {
    let mut effects = Effects::default()
        .input("--truth", &args.truth)
        .input("--tasks", &args.tasks)
        .input("--outputs", &args.outputs);
    let files = ScoreFiles {
        truth: args.truth,
        tasks: args.tasks,
        outputs: args.outputs,
        verifier: args.verifier,
        allow_missing: args.allow_missing,
    };
    let progress = Progress::on_stderr("score");
    // The scores go straight to a temporary file beside --out, moved into place only
    // once every input proved good.
    let outcome = match &args.out {
        Some(out) => {
            let stream = effects.stream(out)?;
            score::run(
                &files,
                Some((out, &mut |chunk| stream.write(chunk.as_bytes()))),
                &progress,
            )?
        }
        None => score::run(&files, None, &progress)?,
    };
    effects.finish(outcome)
}
