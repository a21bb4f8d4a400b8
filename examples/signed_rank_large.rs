//! Times `signed_rank` at large n for `benches/signed_rank_large.sh`, in process (the
//! input is built before the clock starts). Kinds of differences: `few` (quarters,
//! four distinct magnitudes and zeros), `hundred` (a hundred distinct magnitudes and
//! zeros), `threehundred` (three hundred distinct magnitudes and zeros), `many` (all
//! magnitudes distinct). Signs are positive when
//! (i·13 + 3) mod 997 < THR, so THR near 498 puts W+ near the centre of its null.
//! Prints `seconds method p_improvement p_regression`.
//! Usage: `cargo run --release --example signed_rank_large -- KIND N THR`.

use std::io::Write as _;
use std::time::Instant;

use anyhow::{Context, bail};
use evogate::stats::signed_rank::{ZeroMethod, signed_rank};

fn differences(kind: &str, n: u64, threshold: u64) -> anyhow::Result<Vec<f64>> {
    let magnitude = |i: u64| -> anyhow::Result<f64> {
        Ok(match kind {
            "few" => (i % 5) as f64 * 0.25,
            "hundred" => ((i * 7 + 7) % 101) as f64 * 0.01,
            "threehundred" => ((i * 11 + 7) % 301) as f64 * 0.001,
            "many" => ((i * 7919 + 7) % 1_000_003) as f64 * 1e-6,
            _ => bail!("KIND is few, hundred, threehundred or many"),
        })
    };
    (0..n)
        .map(|i| {
            let sign = if (i * 13 + 3) % 997 < threshold {
                1.0
            } else {
                -1.0
            };
            Ok(sign * magnitude(i)?)
        })
        .collect()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 3 {
        bail!("usage: signed_rank_large KIND N THR");
    }
    let n: u64 = args[1].parse().context("N must be a whole number")?;
    let threshold: u64 = args[2].parse().context("THR must be a whole number")?;
    let d = differences(&args[0], n, threshold)?;
    let start = Instant::now();
    let result = std::hint::black_box(signed_rank(&d, ZeroMethod::Wilcox));
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        std::io::stdout(),
        "{seconds:.4} {:?} {:e} {:e}",
        result.method,
        result.tails.p_improvement,
        result.tails.p_regression
    )?;
    Ok(())
}
