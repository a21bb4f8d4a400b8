//! What every use case hands back: the status its result means, the report to print,
//! notes for stderr, and the writes it asks for. The use cases only read; the one
//! executor in [`crate::cmd`] guards each write against the run's inputs and carries
//! it out, so no command can forget the guard.

use std::any::Any;
use std::path::PathBuf;

use crate::atomic::{FileToWrite, StreamedFile};

/// What a command's result means for its exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Exit 0: success, clean, admitted, supported.
    Success,
    /// Exit 1: a negative result that is not an error (problems found, leakage,
    /// refused, not supported).
    Negative,
}

/// One write a use case asks for.
#[derive(Debug)]
pub enum Write {
    /// Files written together, all or none (each through a temporary file beside it).
    Files(Vec<FileToWrite>),
    /// A folder whose listed files are replaced as one set (other entries are kept).
    Folder {
        /// The folder.
        dir: PathBuf,
        /// Its new files, every path inside `dir`.
        files: Vec<FileToWrite>,
        /// Its new files too large to hold whole, written into it as they are made.
        large: Vec<StreamedFile>,
    },
    /// The file the command streamed the use case's output into, moved into place.
    Stream(PathBuf),
    /// Markdown appended to the GitHub step summary, when the run has one.
    StepSummary(String),
}

impl Write {
    /// The paths this write replaces (none for the step summary, whose path is the
    /// environment's).
    pub fn paths(&self) -> Vec<&std::path::Path> {
        match self {
            Write::Files(files) => files.iter().map(|f| f.path.as_path()).collect(),
            Write::Folder { files, large, .. } => files
                .iter()
                .map(|f| f.path.as_path())
                .chain(large.iter().map(|f| f.path.as_path()))
                .collect(),
            Write::Stream(path) => vec![path.as_path()],
            Write::StepSummary(_) => Vec::new(),
        }
    }
}

/// A use case's result.
pub struct CommandOutcome {
    /// The exit status meant.
    pub status: Status,
    /// What goes to stdout.
    pub report: String,
    /// One line each, printed to stderr as `note: ...`.
    pub notes: Vec<String>,
    /// What to write, in order, once every write has passed the input guard.
    pub writes: Vec<Write>,
    /// Inputs found while reading (a file inside a folder given as an input), each
    /// with the option that led to it, guarded like the inputs named on the command
    /// line.
    pub read: Vec<(&'static str, PathBuf)>,
    /// Large values (a million pairs, a verifier over a big truth) that the process
    /// leaves to its exit rather than freeing one allocation at a time.
    pub held: Vec<Box<dyn Any>>,
}

impl CommandOutcome {
    /// An outcome meaning `status` that prints `report`.
    pub fn new(status: Status, report: String) -> CommandOutcome {
        CommandOutcome {
            status,
            report,
            notes: Vec::new(),
            writes: Vec::new(),
            read: Vec::new(),
            held: Vec::new(),
        }
    }

    /// The outcome, with `value` held until the process exits.
    pub fn holding(mut self, value: impl Any) -> CommandOutcome {
        self.held.push(Box::new(value));
        self
    }
}
