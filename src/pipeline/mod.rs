//! The use cases, one module per command: each `run` takes checked settings, reads its
//! inputs, and returns an [`outcome::CommandOutcome`]: the status, the report, notes and the
//! writes it asks for. A use case reads and never writes; the command files in
//! [`crate::cmd`] turn arguments into settings and hand the outcome to their one
//! executor, which guards and carries out the writes. The core modules below never
//! open a file.

pub(crate) mod admit;
pub(crate) mod audit;
pub(crate) mod calibrate;
pub(crate) mod demo;
pub(crate) mod grade;
pub(crate) mod import;
pub(crate) mod ledger;
pub(crate) mod log_files;
pub(crate) mod outcome;
pub(crate) mod power;
pub(crate) mod score;
pub(crate) mod sequential;
pub(crate) mod split;
pub(crate) mod split_scores;
pub(crate) mod truth;

#[cfg(test)]
mod admit_properties;

use std::path::Path;

/// Reads a whole file (at most [`crate::table::MAX_WHOLE_BYTES`]), naming it in the error.
pub(crate) fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    Ok(crate::table::read_whole(path)?)
}

/// Opens a file to be read as a stream, with [`read_file`]'s message when it cannot be.
pub(crate) fn open_file(path: &Path) -> anyhow::Result<std::fs::File> {
    Ok(crate::table::open_input(path)?)
}

/// Reads and parses a CSV file.
pub(crate) fn read_table(path: &Path) -> anyhow::Result<crate::table::Table> {
    Ok(crate::table::Table::read(path)?)
}
