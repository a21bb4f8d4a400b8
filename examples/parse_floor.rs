//! The floor `benches/compare.sh` holds `admit` against: read two scores files with the
//! `csv` crate and parse `task_id` and `score` of every row into memory, nothing else.
//! Usage: `cargo run --release --example parse_floor -- BASELINE CANDIDATE`.

use anyhow::{Context, bail};

fn read(path: &str) -> anyhow::Result<Vec<(String, f64)>> {
    let mut reader = csv::Reader::from_path(path).with_context(|| path.to_string())?;
    let headers = reader.byte_headers()?.clone();
    let column = |name: &str| {
        headers
            .iter()
            .position(|h| h == name.as_bytes())
            .with_context(|| format!("{path} has no {name} column"))
    };
    let (id, score) = (column("task_id")?, column("score")?);
    let mut rows = Vec::new();
    let mut record = csv::ByteRecord::new();
    while reader.read_byte_record(&mut record)? {
        let task = std::str::from_utf8(&record[id])?.to_string();
        let value: f64 = std::str::from_utf8(&record[score])?.parse()?;
        rows.push((task, value));
    }
    Ok(rows)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        bail!("usage: parse_floor BASELINE CANDIDATE");
    }
    let baseline = read(&args[0])?;
    let candidate = read(&args[1])?;
    // The rows stay alive to the end, as admit's do.
    std::hint::black_box((baseline, candidate));
    Ok(())
}
