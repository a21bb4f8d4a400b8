//! Parses arbitrary text as a ledger, and arbitrary bytes as a split manifest. Both may
//! refuse the input with an `InputError`; neither may panic. A ledger that reads holds
//! one record per complete line, each passing its own check, and says how it ends:
//!
//! - `Clean`: empty, or ending in `\n`;
//! - `Unterminated`: its last line is a whole record without its `\n`, and the text
//!   with the `\n` added reads as the same records, clean;
//! - `Torn { row, start }`: its last line, which starts at `start` on row `row`, is a
//!   partial record; the text cut at `start` (what the next append leaves before it
//!   writes) reads as the same records, clean: no complete record is lost.

#![no_main]

use evogate::admission::holdout::HoldoutRecord;
use evogate::ledger::{Ledger, Tail, parse_ledger, read_ledger};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = HoldoutRecord::from_manifest("manifest.json", data, None);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let read = read_ledger("ledger.jsonl", text);
    assert_eq!(
        parse_ledger("ledger.jsonl", text),
        read.clone().map(|ledger| ledger.records),
        "parse_ledger and read_ledger disagree"
    );
    let ledger = match read {
        Ok(ledger) => ledger,
        Err(error) => {
            let message = error.to_string();
            assert!(message.contains("`ledger.jsonl` row "), "{message}");
            return;
        }
    };
    for record in &ledger.records {
        assert_eq!(record.check(), Ok(()), "{record:?}");
    }
    let lines = text.matches('\n').count();
    let clean = |records: &[_]| Ledger {
        records: records.to_vec(),
        tail: Tail::Clean,
    };
    match ledger.tail {
        Tail::Clean => {
            assert!(text.is_empty() || text.ends_with('\n'), "{ledger:?}");
            assert_eq!(ledger.records.len(), lines, "one record a line");
        }
        Tail::Unterminated => {
            assert!(!text.is_empty() && !text.ends_with('\n'), "{ledger:?}");
            assert_eq!(ledger.records.len(), lines + 1, "one record a line");
            let ended = format!("{text}\n");
            assert_eq!(
                read_ledger("ledger.jsonl", &ended),
                Ok(clean(&ledger.records)),
                "the record without its line end reads differently with it"
            );
        }
        Tail::Torn { row, start } => {
            assert_eq!(ledger.records.len(), lines, "one record a complete line");
            assert!(start == 0 || text.as_bytes()[start - 1] == b'\n', "{start}");
            assert!(!text[start..].contains('\n'), "torn record before the last line");
            assert_eq!(row as usize, lines + 1, "the torn row is the last line");
            assert!(
                ledger
                    .tail
                    .warning("ledger.jsonl")
                    .is_some_and(|w| w.contains(&format!("row {row}"))),
                "the warning names the row"
            );
            assert_eq!(
                read_ledger("ledger.jsonl", &text[..start]),
                Ok(clean(&ledger.records)),
                "cutting the torn record off loses or changes a record"
            );
        }
    }
});
