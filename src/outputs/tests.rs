//! The stream reader against the whole-file reader it replaced (kept here, as it was,
//! as the oracle): the same outputs, lines and errors on tricky files, whole or handed
//! over a byte or a few bytes at a time.

use proptest::prelude::*;

use super::*;

/// The oracle: the whole-file reader `score` used before outputs were streamed,
/// unchanged but for its JSON-tree line parser: that general path was not rewritten, so the library's
/// own (`parse_line`) serves both.
pub(crate) mod naive_outputs {
    use crate::error::InputError;
    use crate::outputs::{Output, parse_line};
    use crate::table::Table;

    pub fn parse_outputs(source: &str, bytes: &[u8]) -> Result<Vec<Output>, InputError> {
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

    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(borrow)]
        task_id: std::borrow::Cow<'a, str>,
        #[serde(borrow)]
        output: std::borrow::Cow<'a, str>,
    }

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
}

/// Hands out `size` bytes per read, so line ends, characters and the BOM straddle
/// reads.
pub(crate) struct Chunks<'a> {
    pub bytes: &'a [u8],
    pub size: usize,
}

impl Read for Chunks<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let n = self.size.min(buffer.len()).min(self.bytes.len());
        buffer[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// The outputs, or the error's message.
fn outcome(result: Result<Vec<Output>, InputError>) -> Result<Vec<Output>, String> {
    result.map_err(|error| error.to_string())
}

/// Reads `bytes` every way there is and checks each against the whole-file reader.
fn assert_reads_as_naive(bytes: &[u8]) {
    let expected = outcome(naive_outputs::parse_outputs("o.jsonl", bytes));
    assert_eq!(
        outcome(parse_outputs("o.jsonl", bytes)),
        expected,
        "{:?}",
        String::from_utf8_lossy(bytes)
    );
    for size in [1, 2, 3, 7, 4096] {
        let mut seen = Vec::new();
        let result = read_outputs("o.jsonl", Chunks { bytes, size }, |output| {
            seen.push(output.to_output())
        });
        let streamed = outcome(result.map(|()| seen));
        assert_eq!(
            streamed,
            expected,
            "{size}-byte reads of {:?}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn reads_csv_and_json_lines_alike() {
    let csv = parse_outputs("o.csv", b"task_id,output\np:id,\"1706.03762, I think\"\n").unwrap();
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
        let fast = parse_line_fast(raw).expect("a plain line takes the fast path");
        // Against the JSON-tree path itself: `parse_outputs` would take the fast one.
        let general = parse_line("o.jsonl", 1, raw).unwrap();
        assert_eq!(fast.task_id.trim(), general.task_id, "{raw}");
        assert_eq!(fast.output, general.output, "{raw}");
    }
    for raw in [
        r#"["p:id","x"]"#,
        r#"{"task_id":"p:id"}"#,
        r#"{"task_id":"p:id","output":3}"#,
        r#"{"task_id":"p:id","output":null}"#,
        r#"{"task_id":"a","task_id":"b","output":"x"}"#,
        r#"{"task_id":"p:id","output":"x"} trailing"#,
    ] {
        assert!(parse_line_fast(raw).is_none(), "{raw}");
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

#[test]
fn an_invalid_byte_below_a_bad_line_is_reported_first_as_the_naive_reader_does() {
    let bytes =
        b"{\"task_id\":\"a\",\"output\":\"x\"}\n{oops\n\n{\"task_id\":\"b\",\"output\":\"\xff\"}\n";
    let error = parse_outputs("o.jsonl", bytes).unwrap_err();
    assert_eq!(
        error.to_string(),
        "`o.jsonl` row 4, column 1: not valid UTF-8; save the file as UTF-8"
    );
    assert_reads_as_naive(bytes);
}

/// Files that are odd but valid, or bad in one way or several, in both formats.
const TRICKY: &[&[u8]] = &[
    b"",
    b"\xEF\xBB\xBF",
    b"\xEF\xBB",
    b"\xEF\xBB{",
    b"\xEF\xBB\xBF\xEF\xBB\xBF",
    b"\xEF\xBB\xBF\xEF\xBB\xBF{\"task_id\":\"a\",\"output\":\"x\"}\n",
    b"\xEF\xBB\xBF\xEF\xBB\xBFtask_id,output\na,x\n",
    b"\xEF\xBB\xBF\xEF\xBB\xBF\xEF\xBB\xBFtask_id,output\na,x\n",
    b" \n\t\r\n",
    b"\xEF\xBB\xBF \n \n",
    b"\n\n   {\"task_id\":\"a\",\"output\":\"x\"}",
    b"\xEF\xBB\xBF{\"task_id\":\"a\",\"output\":\"x\"}\r\n{\"task_id\":\"b\",\"output\":\"y\"}\r\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\r",
    b"{\"task_id\":\"a\",\"output\":\"x\r\n{\"task_id\":\"a\",\"output\":\"x\r",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\r\r\n{\"task_id\":\"b\",\"output\":\"y\"}",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\r{\"task_id\":\"b\",\"output\":\"y\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\n\xC2\xA0\n\xE3\x80\x80\n{\"task_id\":\"b\",\"output\":\"y\"}\n",
    b"{\"task_id\":\" a\\t \",\"output\":\"l\\u00e9\\n\\\"q\\\"\\ud83d\\ude00\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\",\"extra\":{\"k\":[1,null]}}\n",
    b"{\"output\":\"x\",\"task_id\":\"a\"}\n",
    b"{\"task_id\":\"a\"}\n",
    b"{\"task_id\":\"a\",\"output\":null}\n",
    b"{\"task_id\":17,\"output\":\"x\"}\n",
    b"{\"task_id\":\"a\",\"task_id\":\"b\",\"output\":\"x\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"} {}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\n[1,2]\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\n{oops\n{\"task_id\":\"b\",\"output\":\"\xff\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"\xe2\x82\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\n\xff",
    b"{\"task_id\":\"a\",\"output\":\"tab\there\"}\n",
    b"{\"task_id\":\"a\",\"output\":\"x\"}\n{\"task_id\":\"a\",\"output\":\"y\"}\n",
    b"{\"task_id\":\"\",\"output\":\"\"}\n",
    b"task_id,output\n",
    b"task_id,output\na,x\r\nb,\"y,\r\nz\"\r\n\r\nc,\"\"\"q\"\"\"\n",
    b"\xEF\xBB\xBFtask_id,output\r\n a ,x\r\n",
    b"task_id,output\ra,x\r\rb,y\r",
    b"output,task_id,extra\nx,a,1\n",
    b"task_id,answer\na,x\n",
    b"answer\nx\n",
    b"task_id,output\na,x,y\n",
    b"task_id,output\na,\xff\n",
    b"task_id,task_id,output\na,b,x\n",
    b"task_id,answer\na,x\nb\n",
    b"[\"not\",\"csv\"]\n",
    b"  \n\n",
];

#[test]
fn the_stream_reads_tricky_files_as_the_naive_outputs_reader_did() {
    for bytes in TRICKY {
        assert_reads_as_naive(bytes);
    }
}

/// Pieces of outputs files: lines good and bad, blank lines and line ends.
const PIECES: [&str; 16] = [
    "{\"task_id\":\"a\",\"output\":\"x\"}",
    "{\"task_id\":\" b \",\"output\":\"y \\\"z\\\"\"}",
    "{\"task_id\":\"c\",\"output\":3}",
    "{oops",
    "task_id,output",
    "a,\"x\ny\"",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\u{feff}",
    "\u{a0}",
    "é",
    ",",
    "\"",
    "{}",
];

proptest! {
    #[test]
    fn the_stream_reads_any_file_of_pieces_as_the_naive_outputs_reader_did(
        picks in proptest::collection::vec(0usize..PIECES.len(), 0..12),
        bad_byte in proptest::option::of(0usize..12),
    ) {
        let mut bytes: Vec<u8> = picks.iter().flat_map(|&p| PIECES[p].bytes()).collect();
        if let Some(at) = bad_byte {
            bytes.insert(at.min(bytes.len()), 0xff);
        }
        let expected = outcome(naive_outputs::parse_outputs("o.jsonl", &bytes));
        prop_assert_eq!(outcome(parse_outputs("o.jsonl", &bytes)), expected.clone());
        let mut seen = Vec::new();
        let result = read_outputs("o.jsonl", Chunks { bytes: &bytes, size: 3 }, |output| {
            seen.push(output.to_output())
        });
        prop_assert_eq!(outcome(result.map(|()| seen)), expected);
    }
}
