//! `evogate truth check FILE`: every problem of an arxiv ground-truth file, with its
//! row ([`crate::pipeline::truth`]).

use super::Printout;
use super::execute::Effects;
use crate::cli::TruthCheckArgs;
use crate::pipeline::truth;

/// Runs `truth check`.
pub(crate) fn run(args: TruthCheckArgs) -> anyhow::Result<Printout> {
    Effects::default().finish(truth::run(&args.file)?)
}
