//! `evogate grade --jsonl`: build the verifier once and answer grading requests on
//! stdin, one JSON line each, on stdout ([`crate::pipeline::grade`]).

use super::Printout;
use super::execute::Effects;
use crate::cli::GradeArgs;
use crate::pipeline::grade;

/// Runs `grade`: its answers go to stdout as they are made, so the printout is empty.
pub(crate) fn run(args: GradeArgs) -> anyhow::Result<Printout> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    Effects::default().finish(grade::run(&args.truth, &args.verifier, stdin, &mut stdout)?)
}
