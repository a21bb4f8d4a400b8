//! One module per subcommand, the only code that sees clap's types. Each `run` turns
//! its arguments into settings, names the run's inputs and planned outputs to the
//! executor (`execute::Effects`), calls its use case in `crate::pipeline`, and hands
//! the `crate::pipeline::outcome::CommandOutcome` to the executor, which guards and carries
//! out every write and returns the [`Printout`]: what to print and which exit status
//! the result means.

pub(crate) mod admit;
pub(crate) mod audit;
pub(crate) mod calibrate;
pub(crate) mod demo;
mod execute;
pub(crate) mod grade;
pub(crate) mod import;
pub(crate) mod ledger;
pub(crate) mod power;
pub(crate) mod score;
pub(crate) mod sequential;
pub(crate) mod split;
pub(crate) mod truth;

use crate::cli::{Cli, Command, LedgerCommand, TruthCommand};
pub use crate::pipeline::outcome::Status;

/// A command's result: stdout text, notes for stderr, and the status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printout {
    /// The exit status meant.
    pub status: Status,
    /// What goes to stdout.
    pub stdout: String,
    /// One line each, printed to stderr as `note: ...`.
    pub notes: Vec<String>,
}

/// Runs the parsed command line. External sorts keep their runs in temporary files.
pub fn run(cli: Cli) -> anyhow::Result<Printout> {
    crate::base::sorter::install_run_store(Box::new(crate::atomic::TempRuns));
    match cli.command {
        Command::Split(args) => split::run(args),
        Command::Score(args) => score::run(args),
        Command::Admit(args) if args.sequential => sequential::run(args),
        Command::Admit(args) => admit::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Truth(TruthCommand::Check(args)) => truth::run(args),
        Command::Ledger(LedgerCommand::Show(args)) => ledger::run(args),
        Command::Power(args) => power::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Import(args) => import::run(args),
    }
}
