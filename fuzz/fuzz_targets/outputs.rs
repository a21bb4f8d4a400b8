//! Parses arbitrary bytes as an outputs file, CSV or JSON Lines (JSON Lines when the
//! first non-blank byte is `{`). Either an `InputError` or outputs whose lines are in
//! file order and whose task ids are trimmed.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(outputs) = evogate::outputs::parse_outputs("fuzz.jsonl", data) else {
        return;
    };
    assert!(!outputs.is_empty(), "no outputs and no error");
    let mut previous = 0;
    for output in &outputs {
        assert!(output.line > previous, "lines not increasing: {outputs:?}");
        previous = output.line;
        assert_eq!(output.task_id, output.task_id.trim(), "task id not trimmed");
    }
});
