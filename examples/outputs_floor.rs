//! The floor `score` is held to in reports/bench.md's rows for the benchmark verifiers:
//! read an outputs file with the reader `score` uses (`outputs::OutputsReader`), every
//! line's task id and output, and nothing else: no truth, no tasks, no grading, no
//! scores written. Usage: `cargo run --release --example outputs_floor -- OUTPUTS`.

use std::fs::File;

use anyhow::{Context, bail};
use evogate::outputs::OutputsReader;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        bail!("usage: outputs_floor OUTPUTS");
    };
    let file = File::open(path).with_context(|| path.clone())?;
    let mut reader = OutputsReader::new(path, file)?;
    let (mut outputs, mut bytes) = (0usize, 0usize);
    while let Some(output) = reader.next_output()? {
        outputs += 1;
        bytes += output.task_id.len() + output.output.len();
    }
    std::hint::black_box((outputs, bytes));
    Ok(())
}
