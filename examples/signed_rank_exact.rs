//! Times evogate's exact signed-rank null with ties, in process, for
//! `benches/compare.sh`: the criterion bench's worst case (quarter-grid magnitudes, so
//! four tie groups, with W+ near the centre of its null) at a given n. Up to
//! `EXACT_LIMIT` it times `signed_rank` itself; beyond it (where `admit` may switch to
//! the saddlepoint) it times the exact table `null_cdf` on the same doubled
//! midranks. Prints `seconds p_improvement`.
//! Usage: `cargo run --release --example signed_rank_exact -- N`.

use std::io::Write as _;
use std::time::Instant;

use anyhow::{Context, bail};
use evogate::stats::signed_rank::null_table::null_cdf;
use evogate::stats::signed_rank::{EXACT_LIMIT, ZeroMethod, signed_rank};

/// The differences of `benches/stats.rs`'s `tied_differences(n, 5)`.
fn tied_differences(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let magnitude = 0.25 * ((i * 7 % 4) + 1) as f64;
            let sign = if i % 5 == 0 || i % 2 == 0 { 1.0 } else { -1.0 };
            sign * magnitude
        })
        .collect()
}

/// Doubled midranks of |d| divided by their common factor, and the observed statistic
/// (the nearer tail), for quarter-grid differences with no zeros.
fn units(differences: &[f64]) -> (Vec<u64>, u64) {
    let mut order: Vec<usize> = (0..differences.len()).collect();
    order.sort_by(|&a, &b| differences[a].abs().total_cmp(&differences[b].abs()));
    let mut doubled = vec![0_u64; differences.len()];
    let mut start = 0;
    while start < order.len() {
        let magnitude = differences[order[start]].abs();
        let mut end = start;
        while end + 1 < order.len() && differences[order[end + 1]].abs() == magnitude {
            end += 1;
        }
        for &at in &order[start..=end] {
            doubled[at] = (start + end + 2) as u64;
        }
        start = end + 1;
    }
    let unit = doubled.iter().fold(0, |g, &r| gcd(g, r));
    let plus: u64 = (0..differences.len())
        .filter(|&i| differences[i] > 0.0)
        .map(|i| doubled[i] / unit)
        .sum();
    let ranks: Vec<u64> = doubled.iter().map(|r| r / unit).collect();
    let total: u64 = ranks.iter().sum();
    (ranks, plus.min(total - plus))
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 1 {
        bail!("usage: signed_rank_exact N");
    }
    let n: usize = args[0].parse().context("N must be a whole number")?;
    let differences = tied_differences(n);
    let start = Instant::now();
    let p = if n <= EXACT_LIMIT {
        std::hint::black_box(signed_rank(&differences, ZeroMethod::Wilcox))
            .tails
            .p_improvement
    } else {
        let (ranks, observed) = units(&differences);
        let tail = std::hint::black_box(null_cdf(&ranks, observed));
        tail.cdf
    };
    let seconds = start.elapsed().as_secs_f64();
    writeln!(std::io::stdout(), "{seconds} {p}")?;
    Ok(())
}
