//! Coverage of intervals for the mean paired score difference, and of Tango's interval
//! for the paired difference of proportions, by simulation (and, for Tango, by exact
//! enumeration of the trinomial). Prints the Markdown committed as
//! `reports/interval_coverage.md`; `docs/statistics.md` explains the choice it backs.
//! Run with `cargo bench --bench interval_coverage > reports/interval_coverage.md`
//! (single-threaded, about twenty minutes; the seeds are fixed, so the output is too).

// The report is this program's output.
#![allow(clippy::print_stdout)]

use evogate::base::random::Random;
use evogate::stats::bootstrap::mean_difference_interval;
use evogate::stats::bounded_mean::{Histogram, betting_interval};
use evogate::stats::interval::{Interval, paired_difference};

/// alpha 0.05, the default: the report's two-sided interval is at 0.90 and its lower
/// bound, which the margin uses, is the one-sided 0.95 bound.
const ALPHA: f64 = 0.05;
const CONFIDENCE: f64 = 1.0 - 2.0 * ALPHA;
const SIZES: [usize; 4] = [12, 30, 136, 1_000];
/// Data sets per cell: the 95% Monte-Carlo error of a coverage near 0.95 is ±0.0043 at
/// 10,000 and ±0.0068 at 4,000.
fn replications(n: usize) -> usize {
    if n < 1_000 { 10_000 } else { 4_000 }
}

/// Data sets per cell for the bootstrap, whose 10,000 resamples cost 10^4·n draws each
/// (the machine this ran on is shared): ±0.0068 at 4,000, ±0.019 at 500 and ±0.043 at
/// 100.
fn bootstrap_replications(n: usize) -> usize {
    match n {
        0..=12 => 10_000,
        13..=30 => 4_000,
        31..=136 => 500,
        _ => 100,
    }
}

fn uniform(rng: &mut Random) -> f64 {
    rng.unit()
}

/// A distribution of differences candidate − baseline, each score in [0, 1].
struct Distribution {
    name: &'static str,
    mean: f64,
    draw: fn(&mut Random) -> f64,
}

fn distributions() -> Vec<Distribution> {
    vec![
        Distribution {
            name: "0/1 scores: -1 w.p. 0.10, +1 w.p. 0.15",
            mean: 0.05,
            draw: |rng| {
                let u = uniform(rng);
                if u < 0.10 {
                    -1.0
                } else if u < 0.25 {
                    1.0
                } else {
                    0.0
                }
            },
        },
        Distribution {
            name: "0/1 scores: -1 w.p. 0.25, +1 w.p. 0.35",
            mean: 0.10,
            draw: |rng| {
                let u = uniform(rng);
                if u < 0.25 {
                    -1.0
                } else if u < 0.60 {
                    1.0
                } else {
                    0.0
                }
            },
        },
        Distribution {
            name: "skewed to gains: U^6 - (2/7)V",
            mean: 0.0,
            draw: |rng| uniform(rng).powi(6) - 2.0 / 7.0 * uniform(rng),
        },
        Distribution {
            name: "skewed to regressions: (2/7)V - U^6",
            mean: 0.0,
            draw: |rng| 2.0 / 7.0 * uniform(rng) - uniform(rng).powi(6),
        },
        Distribution {
            name: "symmetric continuous: (U - V)/2",
            mean: 0.0,
            draw: |rng| 0.5 * (uniform(rng) - uniform(rng)),
        },
        Distribution {
            name: "mostly 0; +U w.p. 0.06, -U w.p. 0.04",
            mean: 0.01,
            draw: |rng| {
                let u = uniform(rng);
                if u < 0.06 {
                    uniform(rng)
                } else if u < 0.10 {
                    -uniform(rng)
                } else {
                    0.0
                }
            },
        },
        Distribution {
            name: "rare regressions: -1 w.p. 0.05, else 0",
            mean: -0.05,
            draw: |rng| if uniform(rng) < 0.05 { -1.0 } else { 0.0 },
        },
        Distribution {
            name: "constant 0",
            mean: 0.0,
            draw: |_| 0.0,
        },
    ]
}

/// Anderson's bound (T. W. Anderson, 1969) from the one-sided Dvoretzky–Kiefer–Wolfowitz
/// inequality with Massart's constant, P(sup (F − F_n) > ε) ≤ exp(−2nε²): move mass ε
/// from the top of the empirical distribution to −1. Valid at every n.
fn anderson(sorted: &[f64]) -> Interval {
    let lower = |values: &mut dyn Iterator<Item = f64>, n: usize| {
        let epsilon = ((1.0 / ALPHA).ln() / (2.0 * n as f64)).sqrt().min(1.0);
        let mut kept = 1.0 - epsilon;
        let mut total = -epsilon;
        for v in values {
            let weight = (1.0 / n as f64).min(kept.max(0.0));
            total += weight * v;
            kept -= weight;
        }
        total
    };
    let n = sorted.len();
    Interval {
        low: lower(&mut sorted.iter().copied(), n),
        high: -lower(&mut sorted.iter().rev().map(|v| -v), n),
        confidence: CONFIDENCE,
    }
}

/// The empirical-Bernstein bound (Maurer & Pontil 2009, Theorem 4) for values in [0, 1],
/// applied to (d + 1)/2: mean ± (√(2V·ln(2/δ)/n) + 7·ln(2/δ)/(3(n − 1))), δ = alpha.
/// Valid at every n.
fn empirical_bernstein(values: &[f64]) -> Interval {
    let n = values.len() as f64;
    let scaled: Vec<f64> = values.iter().map(|d| 0.5 * (d + 1.0)).collect();
    let mean = scaled.iter().sum::<f64>() / n;
    let variance = scaled.iter().map(|y| (y - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let log = (2.0 / ALPHA).ln();
    let half = (2.0 * variance * log / n).sqrt() + 7.0 * log / (3.0 * (n - 1.0));
    Interval {
        low: (2.0 * (mean - half) - 1.0).max(-1.0),
        high: (2.0 * (mean + half) - 1.0).min(1.0),
        confidence: CONFIDENCE,
    }
}

#[derive(Default)]
struct Tally {
    replications: usize,
    lower_covers: usize,
    both_cover: usize,
    width: f64,
}

impl Tally {
    fn add(&mut self, interval: Interval, mean: f64) {
        self.replications += 1;
        // A bound within 1e-12 of the mean covers it: the bootstrap's [0, 0] on all-zero
        // data sums to −0 and similar.
        let lower = interval.low <= mean + 1e-12;
        self.lower_covers += usize::from(lower);
        self.both_cover += usize::from(lower && interval.high >= mean - 1e-12);
        self.width += interval.high - interval.low;
    }

    fn row(&self, distribution: &str, n: usize, method: &str) -> String {
        let r = self.replications as f64;
        format!(
            "| {distribution} | {n} | {method} | {:.4} | {:.4} | {:.4} | {} |",
            self.lower_covers as f64 / r,
            self.both_cover as f64 / r,
            self.width / r,
            self.replications
        )
    }
}

const METHODS: [&str; 4] = [
    "percentile bootstrap (today)",
    "Anderson / DKW-Massart",
    "empirical Bernstein",
    "betting, constant-bet mixture",
];

fn mean_difference_table() {
    println!(
        "| differences | n | method | lower bound covers (nominal 0.95) | both bounds cover (nominal 0.90) | mean width | data sets |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|");
    for (index, distribution) in distributions().iter().enumerate() {
        for n in SIZES {
            let mut rng = Random::expanded(1_000 * index as u64 + n as u64);
            let mut tallies: Vec<Tally> = METHODS.iter().map(|_| Tally::default()).collect();
            for replication in 0..replications(n) {
                let values: Vec<f64> = (0..n).map(|_| (distribution.draw)(&mut rng)).collect();
                let mut sorted = values.clone();
                sorted.sort_by(f64::total_cmp);
                if replication < bootstrap_replications(n) {
                    let interval = mean_difference_interval(&values, CONFIDENCE, 10_000, 13)
                        .expect("finite differences");
                    tallies[0].add(interval, distribution.mean);
                }
                tallies[1].add(anderson(&sorted), distribution.mean);
                tallies[2].add(empirical_bernstein(&values), distribution.mean);
                let histogram = Histogram::of(&values).expect("differences in [-1, 1]");
                let interval = betting_interval(&histogram, CONFIDENCE).expect("valid level");
                tallies[3].add(interval, distribution.mean);
            }
            for (tally, method) in tallies.iter().zip(METHODS) {
                println!("{}", tally.row(distribution.name, n, method));
            }
        }
    }
}

/// ln of the trinomial probability of (b, c, n − b − c).
fn log_trinomial(n: u64, b: u64, c: u64, p10: f64, p01: f64, log_factorial: &[f64]) -> f64 {
    let rest = n - b - c;
    let p00 = 1.0 - p10 - p01;
    let mut log = log_factorial[n as usize]
        - log_factorial[b as usize]
        - log_factorial[c as usize]
        - log_factorial[rest as usize];
    for (count, p) in [(b, p10), (c, p01), (rest, p00)] {
        if count > 0 {
            log += count as f64 * p.ln();
        }
    }
    log
}

/// Tango's interval for every (b, c) at n, with ln k! for k ≤ n.
struct TangoTable {
    n: u64,
    intervals: Vec<(u64, u64, Interval)>,
    log_factorial: Vec<f64>,
}

impl TangoTable {
    fn new(n: u64) -> TangoTable {
        let intervals = (0..=n)
            .flat_map(|b| (0..=n - b).map(move |c| (b, c)))
            .map(|(b, c)| (b, c, paired_difference(b, c, n, CONFIDENCE).expect("valid")))
            .collect();
        let log_factorial = std::iter::once(0.0)
            .chain((1..=n).scan(0.0, |acc, k| {
                *acc += (k as f64).ln();
                Some(*acc)
            }))
            .collect();
        TangoTable {
            n,
            intervals,
            log_factorial,
        }
    }
}

/// Tango's exact coverage: the sum over every (b, c) of its trinomial probability.
fn tango_coverage(table: &TangoTable, p10: f64, p01: f64) -> (f64, f64) {
    let (n, log_factorial) = (table.n, &table.log_factorial);
    let truth = p01 - p10;
    let (mut lower, mut both) = (0.0, 0.0);
    for &(b, c, interval) in &table.intervals {
        {
            let p = log_trinomial(n, b, c, p10, p01, log_factorial).exp();
            if interval.low <= truth + 1e-12 {
                lower += p;
                if interval.high >= truth - 1e-12 {
                    both += p;
                }
            }
        }
    }
    (lower, both)
}

fn tango_table() {
    println!(
        "| n | P(baseline only) | P(candidate only) | lower bound covers (nominal 0.95) | both bounds cover (nominal 0.90) |"
    );
    println!("|---:|---:|---:|---:|---:|");
    let rates = [
        (0.025, 0.025),
        (0.05, 0.10),
        (0.10, 0.10),
        (0.10, 0.15),
        (0.20, 0.30),
        (0.35, 0.35),
    ];
    let tables: Vec<TangoTable> = [12u64, 30, 136].map(TangoTable::new).into();
    for table in &tables {
        let n = table.n;
        for (p10, p01) in rates {
            let (lower, both) = tango_coverage(table, p10, p01);
            println!("| {n} | {p10} | {p01} | {lower:.4} | {both:.4} |");
        }
    }
    println!();
    println!(
        "Smallest exact coverage over the grid P(baseline only), P(candidate only) in {{0.01, 0.02, ..., 0.50}} (p10 + p01 <= 1):"
    );
    println!();
    println!(
        "| n | lowest lower-bound coverage | at (p10, p01) | lowest two-sided coverage | at (p10, p01) |"
    );
    println!("|---:|---:|---|---:|---|");
    for table in &tables {
        let n = table.n;
        let mut worst_lower = (2.0, (0.0, 0.0));
        let mut worst_both = (2.0, (0.0, 0.0));
        for i in 1..=50 {
            for j in 1..=50 {
                let (p10, p01) = (i as f64 / 100.0, j as f64 / 100.0);
                let (lower, both) = tango_coverage(table, p10, p01);
                if lower < worst_lower.0 {
                    worst_lower = (lower, (p10, p01));
                }
                if both < worst_both.0 {
                    worst_both = (both, (p10, p01));
                }
            }
        }
        println!(
            "| {n} | {:.4} | ({}, {}) | {:.4} | ({}, {}) |",
            worst_lower.0,
            worst_lower.1.0,
            worst_lower.1.1,
            worst_both.0,
            worst_both.1.0,
            worst_both.1.1
        );
    }
}

fn main() {
    println!("# Interval coverage (written by `cargo bench --bench interval_coverage`)");
    println!();
    println!(
        "alpha {ALPHA}: two-sided intervals at {CONFIDENCE:.2}, whose lower bound is the one-sided {:.2} bound the margin uses. \
         Each cell draws data sets of n differences from ChaCha20 seeded with 1000·(row of the distribution) + n; \
         every method sees the same data sets (the bootstrap the first of them). Monte-Carlo error (95%) of a coverage near 0.95: \
         ±0.0043 at 10,000 data sets, ±0.0068 at 4,000, ±0.019 at 500, ±0.043 at 100 \
         (a coverage of 1 has no such error); the last column gives the count.",
        1.0 - ALPHA
    );
    println!();
    println!("## Mean score difference");
    println!();
    mean_difference_table();
    println!();
    println!("## Tango's interval for the paired difference of proportions (exact enumeration)");
    println!();
    tango_table();
}
