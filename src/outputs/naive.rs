//! The oracle of the outputs reader: the whole-file reader `score` used before outputs
//! were streamed, every JSON line read by the JSON-tree line parser (`parse_line`,
//! which was not rewritten, so the library's own serves both; the hand-read common
//! line of the reader is held to it here). Compiled only for
//! tests; the `outputs_stream` fuzz target includes this file by path, so it takes its
//! names from the module that includes it.

// From the including module, so the fuzz targets can include this file by path.
use super::{InputError, Output, Table, parse_line};

/// Reads a whole outputs file: the outputs in file order, or the first error.
pub(crate) fn parse_outputs(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match body.iter().position(|b| !b.is_ascii_whitespace()) {
        Some(at) if body[at] == b'{' => parse_jsonl(source, body),
        Some(at) if body[at] == b'[' => Err(InputError::invalid(
            source,
            1 + body[..at].iter().filter(|&&b| b == b'\n').count() as u64,
            "this is a JSON array; write one object per line (JSON Lines: `{\"task_id\": ..., \"output\": ...}` on each line, no brackets or commas between them)",
        )),
        _ => parse_csv(source, bytes),
    }
}

fn parse_csv(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let table = Table::parse(source, bytes)?;
    let id = table.require("task_id")?;
    let output = table.require("output")?;
    table.require_rows()?;
    Ok(table
        .rows
        .into_iter()
        .map(|row| Output {
            line: row.line,
            task_id: row.fields[id].trim().to_string(),
            output: row.fields[output].clone(),
        })
        .collect())
}

fn parse_jsonl(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let line = 1 + bytes[..error.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        InputError::Utf8 {
            file: source.to_string(),
            line: line as u64,
            column: 1,
        }
    })?;
    let mut outputs = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index as u64 + 1;
        if raw.trim().is_empty() {
            continue;
        }
        outputs.push(parse_line(source, line, raw)?);
    }
    if outputs.is_empty() {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(outputs)
}
