//! Reads arbitrary bytes as an outputs file with `outputs::read_outputs` (the stream
//! reader, with its hand-written JSON Lines path), handed over in reads of a size the
//! first byte picks, and with the whole-file reader it replaced (kept here as it was,
//! but for its JSON-tree line parser, which was not rewritten: the library's
//! `parse_line` serves both): both must give the same outputs or the same error.

#![no_main]

use evogate::error::InputError;
use evogate::outputs::{Output, parse_line, read_outputs};
use evogate::table::Table;
use libfuzzer_sys::fuzz_target;

#[path = "../common/chunks.rs"]
mod chunks;

use chunks::Chunks;

fn whole_file(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => jsonl(source, body),
        _ => {
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
    }
}

fn jsonl(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
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

fuzz_target!(|data: &[u8]| {
    let Some((&size, bytes)) = data.split_first() else {
        return;
    };
    let size = usize::from(size % 16) + 1;
    let mut streamed = Vec::new();
    let result = read_outputs("fuzz.jsonl", Chunks { bytes, size }, |output| {
        streamed.push(output.to_output())
    });
    let streamed = result.map(|()| streamed).map_err(|e| e.to_string());
    let expected = whole_file("fuzz.jsonl", bytes).map_err(|e| e.to_string());
    assert_eq!(streamed, expected, "{size}-byte reads");
});
