//! `evogate demo`: run the whole pipeline on the shipped data
//! ([`crate::pipeline::demo`]) and say whether both verdicts came out as built.

use super::Printout;
use super::execute::Effects;
use crate::cli::DemoArgs;
use crate::pipeline::demo;

/// Runs `demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<Printout> {
    Effects::default().finish(demo::run(&args.out)?)
}
