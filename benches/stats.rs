//! Benchmarks of the exact tests at the sizes the issue names: signed-rank with ties at
//! n = 1,000 and 2,000, and McNemar at 10^6 and 10^9 discordant pairs. Run with
//! `cargo bench --bench stats`; speed is measured here, never in tests.

use criterion::Criterion;
use evogate::stats::mcnemar::mcnemar_exact;
use evogate::stats::signed_rank::{ZeroMethod, signed_rank};
use std::hint::black_box;

/// Score differences on a grid of quarters (heavy ties, half-integer midranks), with a
/// mild positive drift, built without randomness so every run times the same input.
fn tied_differences(n: usize, drift_every: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let magnitude = 0.25 * ((i * 7 % 4) + 1) as f64;
            let sign = if i % drift_every == 0 || i % 2 == 0 {
                1.0
            } else {
                -1.0
            };
            sign * magnitude
        })
        .collect()
}

/// Distinct magnitudes with signs alternating, so W+ sits near the centre of its null
/// distribution: the slowest case for the exact table.
fn centred_differences(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let magnitude = (i + 1) as f64 / n as f64;
            if (i / 2) % 2 == 0 {
                magnitude
            } else {
                -magnitude
            }
        })
        .collect()
}

fn signed_rank_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("signed_rank_exact");
    group.sample_size(10);
    for n in [1_000, 2_000] {
        let tied = tied_differences(n, 5);
        group.bench_function(format!("ties_quarters_n{n}"), |b| {
            b.iter(|| signed_rank(black_box(&tied), ZeroMethod::Wilcox))
        });
        let centred = centred_differences(n);
        group.bench_function(format!("centre_no_ties_n{n}"), |b| {
            b.iter(|| signed_rank(black_box(&centred), ZeroMethod::Wilcox))
        });
    }
    group.finish();
}

fn mcnemar_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("mcnemar_exact");
    for (name, b, c_count) in [
        ("balanced_1e6", 500_000_u64, 500_000_u64),
        ("shifted_1e6", 499_000, 501_000),
        ("balanced_1e9", 500_000_000, 500_000_000),
        ("shifted_1e9", 499_990_000, 500_010_000),
    ] {
        group.bench_function(name, |bench| {
            bench.iter(|| mcnemar_exact(black_box(b), black_box(c_count)))
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    signed_rank_benches(&mut criterion);
    mcnemar_benches(&mut criterion);
    criterion.final_summary();
}
