//! The reader race: the `csv` crate reading one reused `ByteRecord` (as xsv
//! does), with the checks the tool needs (every field UTF-8, every row as wide as the
//! header, its line), against the hand scanner `table::scan::RowScanner`, on the same
//! files, alternating, so both see the same machine load.
//! Usage: `cargo run --release --example reader_race -- ROUNDS FILE...`; prints the
//! median seconds of each reader per file and the ratio csv / scanner. (The `csv`
//! crate with every check the tool needs, measured at 1.19–1.40 times the scanner in
//! `reports/bench.md`, is now the test-only oracle `table::naive::NaiveRowReader`.)

use std::fs::File;
use std::io::{BufReader, Write};
use std::time::Instant;

use anyhow::{Context, bail};
use evogate::table::scan::RowScanner;

/// Reads `path` with the csv crate into one reused record; returns a checksum.
fn csv_bytes(path: &str) -> anyhow::Result<usize> {
    let file = File::open(path)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(1 << 16)
        .from_reader(file);
    let mut record = csv::ByteRecord::new();
    if !reader.read_byte_record(&mut record)? {
        bail!("empty");
    }
    let width = record.len();
    let mut sum = 0usize;
    while reader.read_byte_record(&mut record)? {
        if record.len() != width {
            bail!("ragged at {:?}", record.position());
        }
        let line = record.position().map_or(0, |p| p.line());
        if !record.as_slice().is_ascii() {
            for field in record.iter() {
                std::str::from_utf8(field)?;
            }
        }
        sum = sum.wrapping_add(record[0].len() + line as usize);
    }
    Ok(sum)
}

/// Reads `path` with the hand scanner; returns a checksum.
fn scanner(path: &str) -> anyhow::Result<usize> {
    let file = File::open(path)?;
    let mut rows = RowScanner::new(path, BufReader::with_capacity(0, file))?;
    let mut sum = 0usize;
    while let Some(row) = rows.next_row()? {
        sum = sum.wrapping_add(row.field(0).len() + row.line as usize);
    }
    Ok(sum)
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().context("ROUNDS")?.parse()?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "| file | csv ByteRecord (s) | hand scanner (s) | ByteRecord / scanner |"
    )?;
    writeln!(out, "|---|---|---|---|")?;
    for path in &args[1..] {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let start = Instant::now();
            let x = csv_bytes(path)?;
            a.push(start.elapsed().as_secs_f64());
            let start = Instant::now();
            let y = scanner(path)?;
            b.push(start.elapsed().as_secs_f64());
            std::hint::black_box((x, y));
        }
        let (a, b) = (median(a), median(b));
        writeln!(out, "| {path} | {a:.3} | {b:.3} | {:.2} |", a / b)?;
    }
    Ok(())
}
