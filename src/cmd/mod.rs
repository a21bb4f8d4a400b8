//! One module per subcommand. Each `run` validates its arguments into domain types,
//! reads the inputs, calls the pure core, writes files atomically, and returns an
//! [`Outcome`]: what to print and which exit status the result means.

pub mod admit;
pub mod audit;
pub mod demo;
pub mod ledger;
pub mod power;
pub mod score;
pub mod split;
pub mod truth;

use std::path::Path;

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
pub struct Outcome {
    /// The exit status meant.
    pub status: Status,
    /// What goes to stdout.
    pub stdout: String,
    /// One line each, printed to stderr as `note: ...`.
    pub notes: Vec<String>,
}

impl Outcome {
    /// An outcome with `status` and `stdout` and no notes.
    pub fn new(status: Status, stdout: String) -> Outcome {
        Outcome {
            status,
            stdout,
            notes: Vec::new(),
        }
    }
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<Outcome> {
    match cli.command {
        Command::Split(args) => split::run(args),
        Command::Score(args) => score::run(args),
        Command::Admit(args) => admit::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Truth(TruthCommand::Check(args)) => truth::run(args),
        Command::Ledger(LedgerCommand::Show(args)) => ledger::run(args),
        Command::Power(args) => power::run(args),
        Command::Audit(args) => audit::run(args),
    }
}

/// Reads a whole file, naming it in the error.
pub(crate) fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let file = open_file(path)?;
    let source = path.display().to_string();
    Ok(crate::table::read_capped(
        &source,
        file,
        crate::table::MAX_WHOLE_BYTES,
    )?)
}

/// Opens a file to be read as a stream, with [`read_file`]'s message when it cannot be.
pub(crate) fn open_file(path: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::File::open(path).map_err(|e| cannot_read(path, &e))
}

fn cannot_read(path: &Path, error: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("`{}`: cannot read it: {error}", path.display())
}

/// Reads and parses a CSV file.
pub(crate) fn read_table(path: &Path) -> anyhow::Result<crate::table::Table> {
    Ok(crate::table::Table::read(path)?)
}
