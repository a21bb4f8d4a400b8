//! Parses arbitrary text as a ledger, and arbitrary bytes as a split manifest. A ledger
//! that parses is one whose records each pass their own check; both may refuse the
//! input with an `InputError`, neither may panic.

#![no_main]

use evogate::admission::holdout::HoldoutRecord;
use evogate::ledger::parse_ledger;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = HoldoutRecord::from_manifest("manifest.json", data, None);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(records) = parse_ledger("ledger.jsonl", text) {
        assert_eq!(
            records.len(),
            text.matches('\n').count(),
            "one record a line"
        );
        for record in &records {
            assert_eq!(record.check(), Ok(()), "{record:?}");
        }
    }
});
