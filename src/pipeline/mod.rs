//! The use cases, one module per command that has one: each takes checked settings and
//! its inputs and returns a typed result. The command files in [`crate::cmd`] only turn
//! arguments into settings, call one of these, and print what comes back; the core
//! modules below them never open a file.

pub mod admit;
pub mod audit;
pub mod demo;
pub mod grade;
pub mod import;
pub mod power;
pub mod score;
pub mod sequential;
pub mod split;

#[cfg(test)]
mod admit_properties;

use std::path::Path;

/// Reads a whole file (at most [`crate::table::MAX_WHOLE_BYTES`]), naming it in the error.
pub fn read_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    let file = open_file(path)?;
    let source = path.display().to_string();
    Ok(crate::table::read_capped(
        &source,
        file,
        crate::table::MAX_WHOLE_BYTES,
    )?)
}

/// Opens a file to be read as a stream, with [`read_file`]'s message when it cannot be.
pub fn open_file(path: &Path) -> anyhow::Result<std::fs::File> {
    std::fs::File::open(path).map_err(|e| cannot_read(path, &e))
}

fn cannot_read(path: &Path, error: &std::io::Error) -> anyhow::Error {
    anyhow::anyhow!("`{}`: cannot read it: {error}", path.display())
}

/// Reads and parses a CSV file.
pub fn read_table(path: &Path) -> anyhow::Result<crate::table::Table> {
    Ok(crate::table::Table::read(path)?)
}
