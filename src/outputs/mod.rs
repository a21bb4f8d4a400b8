//! The outputs a skill produced: `task_id,output` as CSV, or JSON Lines objects with
//! those keys. The format is JSON Lines when the file's first non-blank character is
//! `{`, CSV otherwise, so a `.txt` export works as well as a `.jsonl` one.
//!
//! A run that failed on a task may say so instead of answering: a JSON line whose
//! `error` key is set (anything but `null`, `false`, an empty string, object or array;
//! its `output` may then be absent), or a CSV row whose optional `error` column is not
//! blank. Such an output is marked [`OutputRef::failed`]: the task has no answer.
//!
//! [`read_outputs`] reads a stream one output at a time, holding one line or CSV row
//! rather than the file; [`parse_outputs`] collects it. Either way the errors, their
//! rows and their order are those of checking the whole file at once: an invalid UTF-8
//! byte anywhere in a JSON Lines file is reported before a bad line above it.

use std::borrow::Cow;
use std::io::{BufReader, Read};

use crate::error::InputError;
use crate::table::read_line_capped;
use crate::table::scan::MAX_ROW_BYTES;
use crate::table::scan::RowScanner;
use crate::table::{column, require, trim_field};

mod plain;

/// A UTF-8 byte order mark, accepted at the start of either format.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One output, with the line it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// 1-based line of the file.
    pub line: u64,
    /// The task it answers.
    pub task_id: String,
    /// The skill's answer, untrusted text.
    pub output: String,
}

/// One output of [`read_outputs`], borrowed from the reader until the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputRef<'a> {
    /// 1-based line of the file (where a CSV row starts).
    pub line: u64,
    /// The task it answers, surrounding whitespace removed.
    pub task_id: &'a str,
    /// The skill's answer, untrusted text.
    pub output: &'a str,
    /// Whether the line carries an error instead of an answer.
    pub failed: bool,
}

impl OutputRef<'_> {
    /// The output, owned.
    pub fn to_output(&self) -> Output {
        Output {
            line: self.line,
            task_id: self.task_id.to_string(),
            output: self.output.to_string(),
        }
    }
}

/// Parses a whole outputs file in either format.
pub fn parse_outputs(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let mut outputs = Vec::new();
    read_outputs(source, bytes, |output| outputs.push(output.to_output()))?;
    Ok(outputs)
}

/// Reads an outputs file in either format from `input`, handing `each` every output in
/// file order. `source` names the file in messages. On an error, `each` has seen the
/// outputs before it; the error is the one [`parse_outputs`] gives for the whole file.
pub fn read_outputs<R: Read>(
    source: &str,
    input: R,
    mut each: impl FnMut(OutputRef<'_>),
) -> Result<(), InputError> {
    let mut reader = OutputsReader::new(source, input)?;
    while let Some(output) = reader.next_output()? {
        each(output);
    }
    reader.finish()
}

/// The input an [`OutputsReader`] reads: the bytes read to learn the format, then the
/// rest.
type Sniffed<R> = std::io::Chain<std::io::Cursor<Vec<u8>>, R>;

/// An outputs file read one output at a time, in either format: what [`read_outputs`]
/// hands over, asked for output by output, so that a reader can stop between outputs
/// (as `score` does, grading each output its task is waiting for as it comes).
pub struct OutputsReader<R: Read> {
    source: String,
    format: Format<R>,
    /// How many outputs were handed over.
    count: u64,
}

/// Where the last output of a JSON Lines file is.
enum Current {
    /// Nowhere: none was read yet.
    Nothing,
    /// In the reader's scratch buffer: the id's range (trimmed) and the text's.
    Plain(std::ops::Range<usize>, std::ops::Range<usize>),
    /// Owned: a line whose strings had escapes, or read through the general path.
    Owned(Output),
}

enum Format<R: Read> {
    Jsonl {
        reader: BufReader<Sniffed<R>>,
        /// The last line read.
        bytes: Vec<u8>,
        /// The plain line's strings, unescaped.
        scratch: String,
        /// Where the last output is.
        current: Current,
        line: u64,
        /// The first line that is not an output: reported once the rest of the file
        /// is known to be UTF-8, as a check of the whole file first would.
        refused: Option<InputError>,
        /// Whether the last output carries an error instead of an answer.
        failed: bool,
    },
    Csv {
        rows: RowScanner<Sniffed<R>>,
        /// The `task_id` and `output` columns.
        columns: (Option<usize>, Option<usize>),
        /// The optional `error` column.
        error: Option<usize>,
    },
}

impl<R: Read> OutputsReader<R> {
    /// Starts reading `input` (named `source` in messages): learns its format and,
    /// for CSV, reads its header.
    pub fn new(source: &str, mut input: R) -> Result<OutputsReader<R>, InputError> {
        let (mut head, first) = sniff(&mut input).map_err(|error| io_error(source, &error))?;
        if let Some(at) = first.filter(|&at| head[at] == b'[') {
            let line = 1 + memchr::memchr_iter(b'\n', &head[..at]).count() as u64;
            return Err(InputError::invalid(
                source,
                line,
                "this is a JSON array; write one object per line (JSON Lines: `{\"task_id\": ..., \"output\": ...}` on each line, no brackets or commas between them)",
            ));
        }
        let format = if first.is_some_and(|at| head[at] == b'{') {
            if head.starts_with(BOM) {
                head.drain(..BOM.len());
            }
            Format::Jsonl {
                reader: BufReader::with_capacity(1 << 16, std::io::Cursor::new(head).chain(input)),
                bytes: Vec::new(),
                scratch: String::new(),
                current: Current::Nothing,
                line: 0,
                refused: None,
                failed: false,
            }
        } else {
            let rows = RowScanner::new(source, std::io::Cursor::new(head).chain(input))?;
            let columns = (
                column(rows.headers(), "task_id"),
                column(rows.headers(), "output"),
            );
            let error = column(rows.headers(), "error");
            Format::Csv {
                rows,
                columns,
                error,
            }
        };
        Ok(OutputsReader {
            source: source.to_string(),
            format,
            count: 0,
        })
    }

    /// The file as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The next output, or `None` at the end of the file. An error here is one no
    /// later part of the file can precede (unreadable bytes, invalid UTF-8, broken
    /// CSV); the errors found only once the whole file is read come from
    /// [`OutputsReader::finish`].
    pub fn next_output(&mut self) -> Result<Option<OutputRef<'_>>, InputError> {
        Ok(if self.advance()? {
            Some(self.current_output())
        } else {
            None
        })
    }

    /// Moves to the next output: `false` at the end of the file. The output is then
    /// [`OutputsReader::current_output`].
    pub fn advance(&mut self) -> Result<bool, InputError> {
        let source = self.source.as_str();
        match &mut self.format {
            Format::Csv { rows, columns, .. } => {
                if columns.0.is_none() || columns.1.is_none() {
                    // A missing column is reported once the whole file is known to
                    // parse: the rows are only counted.
                    while rows.next_row()?.is_some() {
                        self.count += 1;
                    }
                    return Ok(false);
                }
                if rows.next_row()?.is_none() {
                    return Ok(false);
                }
            }
            Format::Jsonl {
                reader,
                bytes,
                scratch,
                current,
                line,
                refused,
                failed,
            } => loop {
                bytes.clear();
                let read = read_line_capped(reader, bytes, MAX_ROW_BYTES)
                    .map_err(|error| io_error(source, &error))?;
                if read == 0 {
                    return Ok(false);
                }
                *line += 1;
                if bytes.len() > MAX_ROW_BYTES {
                    return Err(InputError::RowTooLong {
                        file: source.to_string(),
                        line: *line,
                        limit_mib: (MAX_ROW_BYTES >> 20) as u64,
                    });
                }
                // A line break is ASCII, never inside a character: the first invalid byte
                // of the file is on the first line that is not UTF-8.
                let text = std::str::from_utf8(bytes).map_err(|_| InputError::Utf8 {
                    file: source.to_string(),
                    line: *line,
                    column: 1,
                })?;
                if refused.is_some() {
                    continue;
                }
                let raw = line_content(text);
                if raw.trim().is_empty() {
                    continue;
                }
                if let Some((id, output)) = plain::parse_plain_line(raw, scratch) {
                    // The id's surrounding whitespace dropped once, here.
                    let trimmed = trim_field(&scratch[id.clone()]);
                    let start = trimmed.as_ptr() as usize - scratch.as_ptr() as usize;
                    *current = Current::Plain(start..start + trimmed.len(), output);
                    *failed = false;
                    break;
                }
                if let Some(fields) = parse_line_fast(raw) {
                    // Escapes made the strings owned: they are kept until the next.
                    *current = Current::Owned(Output {
                        line: *line,
                        task_id: trim_field(&fields.task_id).to_string(),
                        output: fields.output.into_owned(),
                    });
                    *failed = false;
                    break;
                }
                match parse_any_line(source, *line, raw) {
                    Ok((output, error)) => {
                        *current = Current::Owned(output);
                        *failed = error;
                        break;
                    }
                    Err(error) => *refused = Some(error),
                }
            },
        }
        self.count += 1;
        Ok(true)
    }

    /// The text of [`OutputsReader::current_output`], found without its id.
    pub fn current_text(&self) -> &str {
        match &self.format {
            Format::Jsonl {
                scratch,
                current: Current::Plain(_, output),
                ..
            } => &scratch[output.clone()],
            _ => self.current_output().output,
        }
    }

    /// The output [`OutputsReader::advance`] moved to: only meaningful after it
    /// returned `true`.
    pub fn current_output(&self) -> OutputRef<'_> {
        match &self.format {
            Format::Csv {
                rows,
                columns,
                error,
            } => {
                let row = rows.current();
                let (id, output) = (columns.0.unwrap_or(0), columns.1.unwrap_or(0));
                OutputRef {
                    line: row.line,
                    task_id: trim_field(row.field(id)),
                    output: row.field(output),
                    failed: error.is_some_and(|error| !row.field(error).trim().is_empty()),
                }
            }
            Format::Jsonl {
                scratch,
                current,
                line,
                failed,
                ..
            } => match current {
                Current::Plain(id, output) => OutputRef {
                    line: *line,
                    task_id: &scratch[id.clone()],
                    output: &scratch[output.clone()],
                    failed: false,
                },
                Current::Owned(output) => OutputRef {
                    line: *line,
                    task_id: &output.task_id,
                    output: &output.output,
                    failed: *failed,
                },
                Current::Nothing => OutputRef {
                    line: *line,
                    task_id: "",
                    output: "",
                    failed: false,
                },
            },
        }
    }

    /// Reads what is left of the file without handing it over, and returns the error
    /// the whole file gives, if any: what [`read_outputs`] returns after the last
    /// output.
    pub fn finish(mut self) -> Result<(), InputError> {
        while self.next_output()?.is_some() {}
        match self.format {
            Format::Jsonl { refused, .. } => {
                if let Some(error) = refused {
                    return Err(error);
                }
            }
            Format::Csv { rows, .. } => {
                require(&self.source, rows.headers(), "task_id")?;
                require(&self.source, rows.headers(), "output")?;
            }
        }
        if self.count == 0 {
            return Err(InputError::NoRows {
                file: self.source.clone(),
            });
        }
        Ok(())
    }
}

/// Reads the start of `input` until its format is known, and returns the bytes read
/// and where in them the first byte that is not ASCII whitespace, after any BOM, is
/// (`{` opens JSON Lines, `[` a JSON array, anything else CSV); `None` when there is
/// none, or none in the first [`MAX_ROW_BYTES`] (the CSV reader then refuses the row).
fn sniff(input: &mut impl Read) -> std::io::Result<(Vec<u8>, Option<usize>)> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut scanned = 0;
    loop {
        let n = match input.read(&mut chunk) {
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        head.extend_from_slice(&chunk[..n]);
        let at_end = n == 0;
        // Seven bytes, or the whole of a shorter file, before deciding: whether the
        // file opens with a BOM is then known, and the CSV parser's first buffer holds
        // any second BOM whole with a byte after it, as when it reads a whole file (it
        // drops a second BOM only then, and takes a buffer of nothing else for the end).
        if head.len() <= 2 * BOM.len() && !at_end {
            continue;
        }
        let body_start = if head.starts_with(BOM) { BOM.len() } else { 0 };
        scanned = scanned.max(body_start);
        if let Some(first) = head[scanned..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())
        {
            return Ok((head, Some(scanned + first)));
        }
        scanned = head.len();
        if at_end || head.len() > MAX_ROW_BYTES {
            return Ok((head, None));
        }
    }
}

fn io_error(source: &str, error: &std::io::Error) -> InputError {
    InputError::Io {
        file: source.to_string(),
        message: error.to_string(),
    }
}

/// A line as [`str::lines`] gives it: without its `\n`, and then without one `\r`.
fn line_content(text: &str) -> &str {
    match text.strip_suffix('\n') {
        Some(line) => line.strip_suffix('\r').unwrap_or(line),
        None => text,
    }
}

/// One JSON line (`raw`, line `line` of `source`, without its line end) read through a
/// JSON tree: the general path, which names what is wrong with a line the fast path
/// does not take. Public for the readers held up against the streaming one (the
/// `outputs_stream` fuzz target), which read their lines the same way.
pub fn parse_line(source: &str, line: u64, raw: &str) -> Result<Output, InputError> {
    parse_any_line(source, line, raw).map(|(output, _)| output)
}

/// [`parse_line`], and whether the line carries an error instead of an answer (its
/// output is then empty, whatever its `output` key holds).
fn parse_any_line(source: &str, line: u64, raw: &str) -> Result<(Output, bool), InputError> {
    let value: serde_json::Value = serde_json::from_str(raw).map_err(|e| {
        InputError::invalid(
            source,
            line,
            format!("not a JSON object ({e}); write one object per line"),
        )
    })?;
    let field = |key: &str| -> Result<String, InputError> {
        match value.get(key) {
            Some(serde_json::Value::String(s)) => Ok(s.clone()),
            Some(serde_json::Value::Null) => Err(InputError::invalid(
                source,
                line,
                format!("`{key}` is null; give it a string value"),
            )),
            None => Err(InputError::invalid(
                source,
                line,
                format!("no `{key}` key; each line needs {{\"task_id\": ..., \"output\": ...}}"),
            )),
            Some(other) => Err(InputError::invalid(
                source,
                line,
                format!("`{key}` is {other}, not a string; quote it"),
            )),
        }
    };
    let failed = value.get("error").is_some_and(is_set);
    let output = if failed {
        String::new()
    } else {
        field("output")?
    };
    let task_id = field("task_id")?.trim().to_string();
    Ok((
        Output {
            line,
            task_id,
            output,
        },
        failed,
    ))
}

/// Whether an `error` value says the task failed: anything but `null`, `false`, or an
/// empty (or blank) string, object or array.
fn is_set(error: &serde_json::Value) -> bool {
    use serde_json::Value;
    match error {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.trim().is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => !fields.is_empty(),
        _ => true,
    }
}

/// An outputs line with both keys strings, read without building a JSON tree, and
/// borrowing both strings from the line unless they hold escapes.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
    #[serde(borrow)]
    output: Cow<'a, str>,
    /// Read only to send a line with an error to the general path.
    #[serde(default)]
    error: Option<serde_json::Value>,
}

/// The fields of a line that is an object whose `task_id` and `output` are strings,
/// as the general path would read them (before trimming the id); `None` for anything
/// else (an array, a missing or repeated key, another type, bad JSON), which the
/// general path reads or reports.
fn parse_line_fast(raw: &str) -> Option<Line<'_>> {
    if !raw.trim_start().starts_with('{') {
        return None;
    }
    let line: Line = serde_json::from_str(raw).ok()?;
    (!line.error.as_ref().is_some_and(is_set)).then_some(line)
}

#[cfg(test)]
pub(crate) mod naive;
#[cfg(test)]
pub(crate) mod tests;
/// The whole table, for the oracle in [`naive`].
#[cfg(test)]
use crate::table::Table;
