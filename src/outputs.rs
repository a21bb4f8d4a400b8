//! The outputs a skill produced: `task_id,output` as CSV, or JSON Lines objects with
//! those keys. The format is JSON Lines when the file's first non-blank character is
//! `{`, CSV otherwise, so a `.txt` export works as well as a `.jsonl` one.

use crate::error::InputError;
use crate::table::Table;

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

/// Parses an outputs file in either format.
pub fn parse_outputs(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => parse_jsonl(source, body),
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
        let output = match parse_line_fast(line, raw) {
            Some(output) => output,
            None => parse_line(source, line, raw)?,
        };
        outputs.push(output);
    }
    if outputs.is_empty() {
        return Err(InputError::NoRows {
            file: source.to_string(),
        });
    }
    Ok(outputs)
}

/// One JSON line read through a JSON tree: the general path, which names what is wrong
/// with a line the fast path does not take.
fn parse_line(source: &str, line: u64, raw: &str) -> Result<Output, InputError> {
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

/// An outputs line with both keys strings, read without building a JSON tree.
#[derive(serde::Deserialize)]
struct Line<'a> {
    #[serde(borrow)]
    task_id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    output: std::borrow::Cow<'a, str>,
}

/// The output of a line that is an object whose `task_id` and `output` are strings,
/// as the general path would read it; `None` for anything else (an array, a missing
/// or repeated key, another type, bad JSON), which the general path reads or reports.
fn parse_line_fast(line: u64, raw: &str) -> Option<Output> {
    if !raw.trim_start().starts_with('{') {
        return None;
    }
    let fields: Line = serde_json::from_str(raw).ok()?;
    Some(Output {
        line,
        task_id: fields.task_id.trim().to_string(),
        output: fields.output.into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_csv_and_json_lines_alike() {
        let csv =
            parse_outputs("o.csv", b"task_id,output\np:id,\"1706.03762, I think\"\n").unwrap();
        let jsonl = parse_outputs(
            "o.jsonl",
            b"{\"task_id\":\"p:id\",\"output\":\"1706.03762, I think\"}\n",
        )
        .unwrap();
        assert_eq!(csv[0].output, jsonl[0].output);
        assert_eq!(csv[0].line, 2);
        assert_eq!(jsonl[0].line, 1);
    }

    #[test]
    fn the_fast_path_reads_what_the_json_tree_reads_and_nothing_more() {
        let lines = [
            r#"{"task_id":" p:id ","output":"a \"quoted\" \u00e9 answer\n"}"#,
            r#"{"output":"x","extra":[1,{"y":null}],"task_id":"p:title"}"#,
            r#"  {"task_id":"p:id","output":""}  "#,
        ];
        for raw in lines {
            let fast = parse_line_fast(1, raw).expect("a plain line takes the fast path");
            // Against the JSON-tree path itself: `parse_outputs` would take the fast one.
            let general = parse_line("o.jsonl", 1, raw).unwrap();
            assert_eq!(fast, general, "{raw}");
        }
        for raw in [
            r#"["p:id","x"]"#,
            r#"{"task_id":"p:id"}"#,
            r#"{"task_id":"p:id","output":3}"#,
            r#"{"task_id":"p:id","output":null}"#,
            r#"{"task_id":"a","task_id":"b","output":"x"}"#,
            r#"{"task_id":"p:id","output":"x"} trailing"#,
        ] {
            assert!(parse_line_fast(1, raw).is_none(), "{raw}");
        }
    }

    #[test]
    fn names_the_line_of_a_bad_json_line() {
        let error =
            parse_outputs("o.jsonl", b"{\"task_id\":\"a\",\"output\":\"x\"}\n{oops\n").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`o.jsonl` row 2: not a JSON object"),
            "{error}"
        );
        let error = parse_outputs("o.jsonl", b"{\"task_id\":\"a\",\"output\":3}\n").unwrap_err();
        assert!(
            error.to_string().contains("`output` is 3, not a string"),
            "{error}"
        );
    }
}
