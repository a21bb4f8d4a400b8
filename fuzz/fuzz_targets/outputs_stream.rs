//! Reads arbitrary bytes as an outputs file with `outputs::read_outputs` (the stream
//! reader, with its hand-written JSON Lines path), handed over in reads of a size the
//! first byte picks, and with the whole-file reader it replaced (the crate's test
//! oracle, `src/outputs/naive.rs`, included by path): both must give the same outputs
//! or the same error.

#![no_main]

use evogate::error::InputError;
use evogate::outputs::{Output, parse_line, read_outputs};
use evogate::table::Table;
use libfuzzer_sys::fuzz_target;

#[path = "../../src/table/chunks.rs"]
mod chunks;
#[path = "../../src/outputs/naive.rs"]
mod naive;

use chunks::Chunks;

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
    let expected = naive::parse_outputs("fuzz.jsonl", bytes).map_err(|e| e.to_string());
    assert_eq!(streamed, expected, "{size}-byte reads");
});
