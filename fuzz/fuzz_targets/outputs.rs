//! Parses arbitrary bytes as an outputs file, CSV or JSON Lines (JSON Lines when the
//! first non-blank byte is `{`). Either outputs whose lines are in file order and whose
//! task ids are trimmed, or an `InputError` that names the file; an input whose first
//! non-blank byte is `[` is diagnosed as a JSON array (not read as CSV, whose header
//! would then be the array's text), on the row the bracket is on.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let result = evogate::outputs::parse_outputs("fuzz.jsonl", data);
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let first = body.iter().position(|b| !b.is_ascii_whitespace());
    if let Some(at) = first.filter(|&at| body[at] == b'[') {
        let row = 1 + body[..at].iter().filter(|&&b| b == b'\n').count();
        let message = result.expect_err("a JSON array read as outputs").to_string();
        assert!(
            message.starts_with(&format!("`fuzz.jsonl` row {row}: this is a JSON array")),
            "{message}"
        );
        return;
    }
    let outputs = match result {
        Ok(outputs) => outputs,
        Err(error) => {
            let message = error.to_string();
            assert!(message.starts_with("`fuzz.jsonl`"), "{message}");
            return;
        }
    };
    assert!(!outputs.is_empty(), "no outputs and no error");
    let mut previous = 0;
    for output in &outputs {
        assert!(output.line > previous, "lines not increasing: {outputs:?}");
        previous = output.line;
        assert_eq!(output.task_id, output.task_id.trim(), "task id not trimmed");
    }
});
