//! The stream reader against the whole-file reader it replaced (the oracle in
//! [`super::naive`]): the same outputs, lines and errors on tricky files, whole or handed
//! over a byte or a few bytes at a time.

use proptest::prelude::*;

use super::naive as naive_outputs;
use super::*;
use crate::table::chunks::Chunks;

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
fn the_stream_reads_tricky_files_as_the_whole_file_reader_did() {
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
    fn the_stream_reads_any_file_of_pieces_as_the_whole_file_reader_did(
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
