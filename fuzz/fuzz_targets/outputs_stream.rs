//! Reads arbitrary bytes as an outputs file with `outputs::read_outputs` (the stream
//! reader, with its hand-written JSON Lines path), handed over in reads of a size the
//! first byte picks, and with the whole-file reader it replaced (kept here as it was):
//! both must give the same outputs or the same error.

#![no_main]

use evogate::error::InputError;
use evogate::outputs::{Output, read_outputs};
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
        outputs.push(line_output(source, line, raw)?);
    }
    if outputs.is_empty() {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(outputs)
}

fn line_output(source: &str, line: u64, raw: &str) -> Result<Output, InputError> {
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
