//! Writes the inputs of `benches/compare.sh`: `baseline.csv` and `candidate.csv`, two
//! scores files of N paired tasks in the layout `evogate score` writes, four tasks (one of
//! each kind) per synthetic paper, from one ChaCha20 stream so a seed always gives the
//! same bytes. Usage: `cargo run --release --example bench_inputs -- N DIR [SEED]`.
//!
//! Scores lie on a grid of quarters (heavy ties, as graded scores have); `correct` is 1
//! exactly when the score is 1. The candidate keeps the baseline's score on most tasks
//! and otherwise draws a new one leaning slightly upwards, so both McNemar and the
//! signed-rank test see a small improvement with many ties.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, bail};
use evogate::stats::bootstrap::uniform_below;
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The seed when none is given.
const DEFAULT_SEED: u64 = 6;

const KINDS: [&str; 4] = ["id", "title", "first_author", "year"];

/// Weights (out of 20) of the quarter grid 0, 0.25, …, 1 for a fresh baseline score and
/// for a redrawn candidate score.
const BASELINE_WEIGHTS: [u64; 5] = [6, 2, 2, 2, 8];
const CANDIDATE_WEIGHTS: [u64; 5] = [5, 2, 2, 2, 9];

fn draw(rng: &mut ChaCha20Rng, weights: &[u64; 5]) -> usize {
    let mut u = uniform_below(rng, weights.iter().sum());
    for (index, weight) in weights.iter().enumerate() {
        if u < *weight {
            return index;
        }
        u -= weight;
    }
    unreachable!("u is below the total weight")
}

fn row(out: &mut String, group: &str, kind: &str, quarters: usize) {
    let score = ["0", "0.25", "0.5", "0.75", "1"][quarters];
    let correct = u8::from(quarters == 4);
    let feedback = if quarters == 4 {
        format!("correct {kind} for {group}")
    } else {
        format!("partial {kind} for {group}; expected the paper's {kind}")
    };
    writeln!(
        out,
        "{group}:{kind},{group},{kind},{correct},{correct},{score},{score},{feedback}"
    )
    .expect("writing to a String cannot fail");
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || args.len() > 3 {
        bail!("usage: bench_inputs N DIR [SEED]");
    }
    let n: usize = args[0].parse().context("N must be a whole number")?;
    let dir = PathBuf::from(&args[1]);
    let seed = match args.get(2) {
        Some(text) => text.parse().context("SEED must be a whole number")?,
        None => DEFAULT_SEED,
    };
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let header = "task_id,group,kind,correct,correctness,composite,score,feedback\n";
    let mut baseline = String::from(header);
    let mut candidate = String::from(header);
    for task in 0..n {
        let paper = task / 4;
        // Distinct arXiv-like ids in a scrambled order (7919 is prime to 100,000).
        let group = format!("{}.{:05}", 1001 + paper / 100_000, paper * 7919 % 100_000);
        let kind = KINDS[task % 4];
        let before = draw(&mut rng, &BASELINE_WEIGHTS);
        let after = if uniform_below(&mut rng, 10) < 7 {
            before
        } else {
            draw(&mut rng, &CANDIDATE_WEIGHTS)
        };
        row(&mut baseline, &group, kind, before);
        row(&mut candidate, &group, kind, after);
    }
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("baseline.csv"), baseline)?;
    std::fs::write(dir.join("candidate.csv"), candidate)?;
    Ok(())
}
