//! `evogate grade --jsonl`: build the verifier once and answer grading requests on
//! stdin, one JSON line each, on stdout ([`crate::pipeline::grade`]).

use super::{Printout, Status};
use crate::cli::GradeArgs;
use crate::pipeline::grade::{serve, verifier};

/// Runs `grade`: its answers go to stdout as they are made, so the printout is empty.
pub fn run(args: GradeArgs) -> anyhow::Result<Printout> {
    let verifier = verifier(&args.truth, &args.verifier)?;
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = serve(verifier.as_ref(), stdin, &mut stdout) {
        match error.downcast_ref::<std::io::Error>() {
            // The client closing its end is how a session ends.
            Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Some(e) => anyhow::bail!("cannot answer on stdout: {e}"),
            None => return Err(error),
        }
    }
    Ok(Printout::new(Status::Success, String::new()))
}
