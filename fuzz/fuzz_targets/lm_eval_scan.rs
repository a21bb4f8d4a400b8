//! Differential: reads arbitrary bytes as one lm-eval `--log_samples` line with the
//! targeted scanner `import` uses (`lm_eval_scan`) and with serde_json. Whenever the
//! scanner reads a line itself, serde_json must read it too, to the same kept fields
//! (doc id, filter, doc hash, metrics, every top-level number and boolean, bit for bit);
//! when it does not, serde_json decides. Then the whole input goes through the public
//! reader (`lm_eval::Reader`, as several lines of one task file) and its `finish`,
//! which may refuse it but must not panic.

#![no_main]

use evogate::import::lm_eval::Reader;
use evogate::import::lm_eval_scan_readings;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for line in data.split_inclusive(|&b| b == b'\n') {
        let (scanned, serde) = lm_eval_scan_readings(line);
        if let Some(scanned) = scanned {
            assert_eq!(
                Some(scanned),
                serde,
                "the scanner reads {:?} unlike serde_json",
                String::from_utf8_lossy(line)
            );
        }
    }
    let mut reader = Reader::new();
    if reader.add("samples_t_2025.jsonl", "t", data).is_ok() {
        let _ = reader.finish(&[], None);
    }
});
