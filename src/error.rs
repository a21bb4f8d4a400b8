//! Typed errors of evogate's inputs. Every variant names the file as the user gave it,
//! and where it applies the 1-based row (the line of the file it starts on), the column
//! and the task, and its message ends with what to do about it.

use thiserror::Error;

/// Something wrong with an input file: the tool cannot do its job (exit status 2).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum InputError {
    /// The file could not be read at all.
    #[error("`{file}`: cannot read it: {message}")]
    Io {
        /// The file as given.
        file: String,
        /// The operating system's reason.
        message: String,
    },
    /// The file holds nothing, not even a header.
    #[error("`{file}` is empty: it needs a header row and at least one data row")]
    Empty {
        /// The file as given.
        file: String,
    },
    /// The file has a header and no data rows.
    #[error("`{file}` has a header but no data rows: add at least one row")]
    NoRows {
        /// The file as given.
        file: String,
    },
    /// The CSV itself could not be parsed.
    #[error(
        "`{file}` row {line}: not valid CSV ({message}); quote fields that hold commas, quotes or newlines"
    )]
    Csv {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// The parser's reason.
        message: String,
    },
    /// A field is not UTF-8.
    #[error("`{file}` row {line}, column {column}: not valid UTF-8; save the file as UTF-8")]
    Utf8 {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: usize,
    },
    /// A row has a different number of fields from the header.
    #[error(
        "`{file}` row {line}: {found} fields where the header has {expected}; quote fields that hold commas"
    )]
    Ragged {
        /// The file as given.
        file: String,
        /// 1-based line.
        line: u64,
        /// Fields in the row.
        found: usize,
        /// Fields in the header.
        expected: usize,
    },
    /// A quoted field whose closing quote never comes: the rest of the file was read
    /// as that one field.
    #[error(
        "`{file}` row {line}: a quoted field opens here and is never closed; add its closing quote, and write a quote inside a quoted field as \"\""
    )]
    UnterminatedQuote {
        /// The file as given.
        file: String,
        /// 1-based line of the opening quote.
        line: u64,
    },
    /// A row (or a JSON line) longer than a reader holds: refused so that memory stays
    /// bounded on any input (`/dev/zero` included).
    #[error(
        "`{file}` row {line}: the row is longer than {limit_mib} MiB, more than evogate reads as one row; check that this is the right file"
    )]
    RowTooLong {
        /// The file as given.
        file: String,
        /// 1-based line the row starts on.
        line: u64,
        /// The limit, in MiB.
        limit_mib: u64,
    },
    /// A file read whole that is larger than the limit for files read whole.
    #[error(
        "`{file}`: larger than {limit_mib} MiB, more than evogate reads whole; check that this is the right file"
    )]
    TooLarge {
        /// The file as given.
        file: String,
        /// The limit, in MiB.
        limit_mib: u64,
    },
    /// The header names a column twice.
    #[error("`{file}`: column `{column}` appears twice in the header; rename or remove one")]
    DuplicateColumn {
        /// The file as given.
        file: String,
        /// The repeated name.
        column: String,
    },
    /// A required column is absent.
    #[error(
        "`{file}`: no column `{column}` (the header has: {found}); add it or pick the right file"
    )]
    MissingColumn {
        /// The file as given.
        file: String,
        /// The missing column.
        column: String,
        /// The header as found.
        found: String,
    },
    /// A field's value is unusable.
    #[error("`{file}` row {line}: {message}")]
    Invalid {
        /// The file as given.
        file: String,
        /// 1-based line (0 when the problem is not in one row).
        line: u64,
        /// What is wrong and how to fix it.
        message: String,
    },
}

impl InputError {
    /// Shorthand for [`InputError::Invalid`].
    pub fn invalid(file: &str, line: u64, message: impl Into<String>) -> InputError {
        InputError::Invalid {
            file: file.to_string(),
            line,
            message: message.into(),
        }
    }
}
