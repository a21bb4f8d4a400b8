//! One module per subcommand. Each `run` validates its arguments into domain types,
//! reads the inputs, calls the pure core, writes files atomically, and returns an
//! [`Printout`]: what to print and which exit status the result means.

pub mod admit;
pub mod audit;
pub mod demo;
pub mod grade;
pub mod import;
pub mod ledger;
pub mod power;
pub mod score;
pub mod split;
pub mod truth;

use crate::cli::{Cli, Command, LedgerCommand, TruthCommand};

/// What a command's result means for its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: success, clean, admitted, supported.
    Success,
    /// Exit 1: a negative result that is not an error (problems found, leakage,
    /// refused, not supported).
    Negative,
}

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

impl Printout {
    /// An outcome with `status` and `stdout` and no notes.
    pub fn new(status: Status, stdout: String) -> Printout {
        Printout {
            status,
            stdout,
            notes: Vec::new(),
        }
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<Printout> {
    match cli.command {
        Command::Split(args) => split::run(args),
        Command::Score(args) => score::run(args),
        Command::Admit(args) => admit::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Truth(TruthCommand::Check(args)) => truth::run(args),
        Command::Ledger(LedgerCommand::Show(args)) => ledger::run(args),
        Command::Power(args) => power::run(args),
        Command::Grade(args) => grade::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Import(args) => import::run(args),
    }
}
