//! `evogate import`: turn another eval tool's per-sample log into the scores CSV
//! ([`crate::pipeline::import`]).

use super::{Printout, Status};
use crate::cli::ImportArgs;
use crate::pipeline::import::import;

/// Runs `import`.
pub fn run(args: ImportArgs) -> anyhow::Result<Printout> {
    Ok(Printout {
        status: Status::Success,
        stdout: String::new(),
        notes: import(&args)?,
    })
}
