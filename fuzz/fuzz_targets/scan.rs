//! Reads arbitrary bytes with `table::scan` (the hand-written reader `score` uses for
//! its truth and tasks files, and `admit` for scores files), handed over in reads of a
//! size the first byte picks (1 to 16 bytes, or all at once, so whole lines take the
//! scanner's fast path), and with `Table::parse` (the `csv` crate): both must give the
//! same table or the same error, to the row number; an input ending inside a quoted
//! field, which the scanner refuses, must read alike once the quote is closed.

#![no_main]

use evogate::table::Table;
use evogate::table::scan::scan_table;
use libfuzzer_sys::fuzz_target;

#[path = "../../src/table/chunks.rs"]
mod chunks;

use chunks::Chunks;

fuzz_target!(|data: &[u8]| {
    let Some((&size, bytes)) = data.split_first() else {
        return;
    };
    // Reads of 1 to 16 bytes, or the whole input at once (as a file read in 64 KiB
    // chunks is, line after line).
    let size = match size % 17 {
        16 => usize::MAX,
        small => usize::from(small) + 1,
    };
    let scanned = scan_table("fuzz.csv", Chunks { bytes, size }).map_err(|e| e.to_string());
    if scanned.as_ref().is_err_and(|e| e.contains("is never closed")) {
        // The scanner refuses an input that ends inside a quoted field, which the
        // `csv` crate reads as one last field: closed, the two must read alike.
        let closed = [bytes, b"\""].concat();
        let scanned = scan_table("fuzz.csv", Chunks { bytes: &closed, size });
        let parsed = Table::parse("fuzz.csv", &closed);
        assert_eq!(scanned.map_err(|e| e.to_string()), parsed.map_err(|e| e.to_string()));
        return;
    }
    let parsed = Table::parse("fuzz.csv", bytes).map_err(|e| e.to_string());
    assert_eq!(scanned, parsed, "{size}-byte reads");
});
