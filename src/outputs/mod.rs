//! The outputs a skill produced: `task_id,output` as CSV, or JSON Lines objects with
//! those keys. The format is JSON Lines when the file's first non-blank character is
//! `{`, CSV otherwise, so a `.txt` export works as well as a `.jsonl` one.
//!
//! [`read_outputs`] reads a stream one output at a time, holding one line or CSV row
//! rather than the file; [`parse_outputs`] collects it. Either way the errors, their
//! rows and their order are those of checking the whole file at once: an invalid UTF-8
//! byte anywhere in a JSON Lines file is reported before a bad line above it.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read};

use crate::error::InputError;
use crate::table::{RowReader, column, require};

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
    mut input: R,
    each: impl FnMut(OutputRef<'_>),
) -> Result<(), InputError> {
    let (mut head, json) = sniff(&mut input).map_err(|error| io_error(source, &error))?;
    if json {
        if head.starts_with(BOM) {
            head.drain(..BOM.len());
        }
        read_jsonl(source, std::io::Cursor::new(head).chain(input), each)
    } else {
        read_csv(source, std::io::Cursor::new(head).chain(input), each)
    }
}

/// Reads the start of `input` until its format is known, and returns the bytes read
/// and whether it is JSON Lines: whether the first byte that is not ASCII whitespace,
/// after any BOM, is `{`.
fn sniff(input: &mut impl Read) -> std::io::Result<(Vec<u8>, bool)> {
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
        if let Some(first) = head[scanned..].iter().find(|b| !b.is_ascii_whitespace()) {
            let json = *first == b'{';
            return Ok((head, json));
        }
        scanned = head.len();
        if at_end {
            return Ok((head, false));
        }
    }
}

fn io_error(source: &str, error: &std::io::Error) -> InputError {
    InputError::Io {
        file: source.to_string(),
        message: error.to_string(),
    }
}

fn read_csv(
    source: &str,
    input: impl Read,
    mut each: impl FnMut(OutputRef<'_>),
) -> Result<(), InputError> {
    let mut rows = RowReader::new(source, input)?;
    let columns = (
        column(rows.headers(), "task_id"),
        column(rows.headers(), "output"),
    );
    let mut count = 0u64;
    while let Some(row) = rows.next_row()? {
        count += 1;
        // A missing column is reported once the whole file is known to parse.
        if let (Some(id), Some(output)) = columns {
            each(OutputRef {
                line: row.line,
                task_id: row.field(id).trim(),
                output: row.field(output),
            });
        }
    }
    require(source, rows.headers(), "task_id")?;
    require(source, rows.headers(), "output")?;
    if count == 0 {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(())
}

fn read_jsonl(
    source: &str,
    input: impl Read,
    mut each: impl FnMut(OutputRef<'_>),
) -> Result<(), InputError> {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut bytes = Vec::new();
    // The plain line's strings, unescaped.
    let mut scratch = String::new();
    let mut line = 0u64;
    let mut count = 0u64;
    // The first line that is not an output: reported once the rest of the file is
    // known to be UTF-8, as a check of the whole file first would.
    let mut refused: Option<InputError> = None;
    loop {
        bytes.clear();
        let read = read_line(&mut reader, &mut bytes).map_err(|error| io_error(source, &error))?;
        if read == 0 {
            break;
        }
        line += 1;
        // A line break is ASCII, never inside a character: the first invalid byte of
        // the file is on the first line that is not UTF-8.
        let text = std::str::from_utf8(&bytes).map_err(|_| InputError::Utf8 {
            file: source.to_string(),
            line,
            column: 1,
        })?;
        if refused.is_some() {
            continue;
        }
        let raw = line_content(text);
        if raw.trim().is_empty() {
            continue;
        }
        if let Some((id, output)) = plain::parse_plain_line(raw, &mut scratch) {
            each(OutputRef {
                line,
                task_id: scratch[id].trim(),
                output: &scratch[output],
            });
            count += 1;
            continue;
        }
        if let Some(fields) = parse_line_fast(raw) {
            each(OutputRef {
                line,
                task_id: fields.task_id.trim(),
                output: &fields.output,
            });
            count += 1;
            continue;
        }
        match parse_line(source, line, raw) {
            Ok(output) => {
                each(OutputRef {
                    line,
                    task_id: &output.task_id,
                    output: &output.output,
                });
                count += 1;
            }
            Err(error) => refused = Some(error),
        }
    }
    if let Some(error) = refused {
        return Err(error);
    }
    if count == 0 {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(())
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
    Ok(Output {
        line,
        task_id: field("task_id")?.trim().to_string(),
        output: field("output")?,
    })
}

/// An outputs line with both keys strings, read without building a JSON tree, and
/// borrowing both strings from the line unless they hold escapes.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    task_id: Cow<'a, str>,
    #[serde(borrow)]
    output: Cow<'a, str>,
}

/// The fields of a line that is an object whose `task_id` and `output` are strings,
/// as the general path would read them (before trimming the id); `None` for anything
/// else (an array, a missing or repeated key, another type, bad JSON), which the
/// general path reads or reports.
fn parse_line_fast(raw: &str) -> Option<Line<'_>> {
    if !raw.trim_start().starts_with('{') {
        return None;
    }
    serde_json::from_str(raw).ok()
}

/// `BufRead::read_until(b'\n')`, with the line end found by the `memchr` crate's
/// vector search (the standard library's is a word at a time): the bytes up to and
/// including the next `\n` (or the end of the input) appended to `line`, and how many.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let (taken, done) = match memchr::memchr(b'\n', buffer) {
            Some(end) => (end + 1, true),
            None => (buffer.len(), buffer.is_empty()),
        };
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        read += taken;
        if done {
            return Ok(read);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
