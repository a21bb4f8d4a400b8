//! The ledger's guarantee, simulated at scale: 10,000 evolution runs of 40 null
//! candidates on one holdout, at several holdout sizes, with the 6/(π²k²) spending rule
//! and with alpha spent afresh on every attempt. Prints a Markdown table.
//!
//! Run: `cargo run --release --example ledger_simulation`

use std::io::Write;

use evogate::ledger::simulation::{NullRuns, null_family_rates};

fn main() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "10,000 runs x 40 null candidates, alpha 0.05, ChaCha20 seed 20240531\n"
    )?;
    writeln!(
        out,
        "| n pairs | McNemar, spending | McNemar, alpha each time | uniform p, spending | uniform p, alpha each time |"
    )?;
    writeln!(out, "| --- | --- | --- | --- | --- |")?;
    for n in [10, 30, 100, 300] {
        let rates = null_family_rates(NullRuns {
            seed: 20_240_531,
            runs: 10_000,
            candidates: 40,
            n,
            alpha: 0.05,
        });
        writeln!(
            out,
            "| {n} | {:.4} | {:.4} | {:.4} | {:.4} |",
            rates.mcnemar_spending,
            rates.mcnemar_every_time_alpha,
            rates.uniform_spending,
            rates.uniform_every_time_alpha
        )?;
    }
    Ok(())
}
