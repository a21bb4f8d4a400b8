//! `evogate demo`: run the whole pipeline on the shipped data
//! ([`crate::pipeline::demo`]) and say whether both verdicts came out as built.

use super::{Printout, Status};
use crate::cli::DemoArgs;
use crate::pipeline::demo::demo;

/// Runs `demo`.
pub fn run(args: DemoArgs) -> anyhow::Result<Printout> {
    let mut demo = demo(&args.out)?;
    let status = if demo.as_built {
        Status::Success
    } else {
        demo.notes.push(
            "the shipped data no longer gives the results the demo is built to show".to_string(),
        );
        Status::Negative
    };
    let mut stdout = demo.lines.join("\n");
    stdout.push('\n');
    Ok(Printout {
        status,
        stdout,
        notes: demo.notes,
    })
}
