//! Coverage of the repeats block's intervals (`evogate::stats::repeats`): pass@1,
//! pass@k and pass^k with Clopper and Pearson's interval at the effective number of
//! items (what `admit` reports), beside Wilson's interval at the same effective number
//! (the first choice, dropped for its dips) and Wilson's interval over the rows as if
//! every repeat were an independent task, by simulation. Prints the Markdown of the section "Repeats as repeats" in
//! `reports/bench.md`; `docs/admission.md` explains the choice it backs.
//! Run with `cargo bench --bench repeats_coverage` (single-threaded, under a minute;
//! the seed is fixed, so the output is too).
//!
//! A data set: n items, each with its own chance p_i of a right repeat drawn from a
//! difficulty distribution (so repeats of one item are correlated, as real repeats
//! are), then k repeats per item, each right with chance p_i (or, for cached copies,
//! one draw copied k times). The truth is the figure over the population of items:
//! E[p], E[1 − (1 − p)^k], E[p^k], in closed form for each distribution.

// The report is this program's output.
#![allow(clippy::print_stdout)]

use evogate::base::random::Random;
use evogate::stats::interval::wilson;
use evogate::stats::repeats::{ItemRepeats, item_figure, item_figure_wilson};

/// alpha 0.05: the report's two-sided intervals are at 0.90.
const CONFIDENCE: f64 = 0.90;
const ITEMS: [usize; 3] = [20, 60, 200];
const REPEATS: [u64; 3] = [3, 5, 10];
/// Data sets per cell: the 95% Monte-Carlo error of a coverage near 0.90 is ±0.006.
const RUNS: usize = 10_000;

/// A distribution of item difficulty.
struct Difficulty {
    name: &'static str,
    /// One item's chance of a right repeat.
    draw: fn(&mut Random) -> f64,
    /// E[p^k] over the distribution.
    moment: fn(u64) -> f64,
    /// E[(1 − p)^k].
    moment_wrong: fn(u64) -> f64,
    /// Whether an item's k repeats are one draw copied (a cache).
    copies: bool,
}

/// E[p^k] for Beta(a, b): the product of (a + j)/(a + b + j) for j < k.
fn beta_moment(a: f64, b: f64, k: u64) -> f64 {
    (0..k)
        .map(|j| (a + j as f64) / (a + b + j as f64))
        .product()
}

/// E[p^k] for p uniform on [lo, hi].
fn uniform_moment(lo: f64, hi: f64, k: u64) -> f64 {
    let m = k as f64 + 1.0;
    (hi.powf(m) - lo.powf(m)) / (m * (hi - lo))
}

fn difficulties() -> Vec<Difficulty> {
    vec![
        Difficulty {
            name: "U-shaped, Beta(1/2, 1/2)",
            // The arcsine law: sin²(πU/2) is Beta(1/2, 1/2).
            draw: |rng| (std::f64::consts::FRAC_PI_2 * rng.unit()).sin().powi(2),
            moment: |k| beta_moment(0.5, 0.5, k),
            moment_wrong: |k| beta_moment(0.5, 0.5, k),
            copies: false,
        },
        Difficulty {
            name: "Beta(2, 2)",
            // The median of three uniforms is Beta(2, 2).
            draw: |rng| {
                let mut u = [rng.unit(), rng.unit(), rng.unit()];
                u.sort_by(f64::total_cmp);
                u[1]
            },
            moment: |k| beta_moment(2.0, 2.0, k),
            moment_wrong: |k| beta_moment(2.0, 2.0, k),
            copies: false,
        },
        Difficulty {
            name: "40% always right, 20% never, 40% U(0.2, 0.8)",
            draw: |rng| {
                let u = rng.unit();
                if u < 0.4 {
                    1.0
                } else if u < 0.6 {
                    0.0
                } else {
                    0.2 + 0.6 * rng.unit()
                }
            },
            moment: |k| 0.4 + 0.4 * uniform_moment(0.2, 0.8, k),
            moment_wrong: |k| 0.2 + 0.4 * uniform_moment(0.2, 0.8, k),
            copies: false,
        },
        Difficulty {
            name: "every item p = 0.9",
            draw: |_| 0.9,
            moment: |k| 0.9_f64.powi(k as i32),
            moment_wrong: |k| 0.1_f64.powi(k as i32),
            copies: false,
        },
        Difficulty {
            name: "cached copies: one draw k times, p ~ Beta(1/2, 1/2)",
            draw: |rng| (std::f64::consts::FRAC_PI_2 * rng.unit()).sin().powi(2),
            // One draw: right with chance E[p] = 1/2, then every repeat alike.
            moment: |_| 0.5,
            moment_wrong: |_| 0.5,
            copies: true,
        },
    ]
}

/// Covered counts of one cell: pass@1, pass@k, pass^k (Clopper–Pearson), the same
/// with Wilson, and pass@1 over rows (naive); and the summed effective items of pass@1.
#[derive(Default)]
struct Cell {
    covered: [usize; 7],
    effective: f64,
}

fn run_cell(rng: &mut Random, d: &Difficulty, n: usize, k: u64) -> Cell {
    let truth = [(d.moment)(1), 1.0 - (d.moment_wrong)(k), (d.moment)(k)];
    let mut cell = Cell::default();
    let mut items = vec![ItemRepeats { runs: k, right: 0 }; n];
    let rows = (n as u64 * k) as f64;
    for _ in 0..RUNS {
        for item in &mut items {
            let p = (d.draw)(rng);
            item.right = if d.copies {
                if rng.unit() < p { k } else { 0 }
            } else {
                (0..k).filter(|_| rng.unit() < p).count() as u64
            };
        }
        let values: [Vec<f64>; 3] = [
            items.iter().map(|i| i.pass_at_1()).collect(),
            items.iter().map(|i| i.pass_at_k(k)).collect(),
            items.iter().map(|i| i.pass_hat_k(k)).collect(),
        ];
        let mut intervals = Vec::with_capacity(7);
        for figure in [item_figure, item_figure_wilson] {
            for (at, v) in values.iter().enumerate() {
                let f = figure(v, rows, CONFIDENCE).expect("items");
                if at == 0 && intervals.is_empty() {
                    cell.effective += f.effective_items;
                }
                intervals.push((f.interval.low, f.interval.high, truth[at]));
            }
        }
        let right: u64 = items.iter().map(|i| i.right).sum();
        let naive = wilson(right, n as u64 * k, CONFIDENCE).expect("rows");
        intervals.push((naive.low, naive.high, truth[0]));
        for (at, (low, high, truth)) in intervals.into_iter().enumerate() {
            if low <= truth && truth <= high {
                cell.covered[at] += 1;
            }
        }
    }
    cell
}

fn share(count: usize) -> String {
    format!("{:.1}%", 100.0 * count as f64 / RUNS as f64)
}

fn main() {
    let mut rng = Random::keyed(20_261_240);
    println!(
        "Coverage of the two-sided {:.0}% intervals, {RUNS} data sets per row (ChaCha20 seed 20261240), truth the figure over the population of items. CP: Clopper–Pearson at the effective number of items, what `admit` reports; W: Wilson at the same effective number; rows: Wilson over the n·k rows as if each repeat were a task. `n_eff` is the mean effective number of items of pass@1. The 95% Monte-Carlo error of each coverage is about ±0.6 points.\n",
        CONFIDENCE * 100.0
    );
    for d in difficulties() {
        println!("**{}**\n", d.name);
        println!(
            "| items | k | pass@1 CP | pass@k CP | pass^k CP | pass@1 W | pass@k W | pass^k W | pass@1 rows | n_eff of pass@1 |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        );
        for &n in &ITEMS {
            for &k in &REPEATS {
                let cell = run_cell(&mut rng, &d, n, k);
                let shares: Vec<String> = cell.covered.iter().map(|&c| share(c)).collect();
                println!(
                    "| {n} | {k} | {} | {:.1} |",
                    shares.join(" | "),
                    cell.effective / RUNS as f64
                );
            }
        }
        println!();
    }
}
