//! The size of the tests against a margin at the margin's boundary, where the null is
//! hardest to keep: how often `admit --margin M` (non-inferiority) and `admit
//! --equivalence M` (two one-sided tests) show a claim that is false by exactly M.
//! Prints the Markdown section of `reports/bench.md`. Run with `cargo bench --bench
//! equivalence_size` (release, about a minute; fixed seeds, so the output is fixed).
//!
//! Two kinds of figure. For 0/1 outcomes the size is computed exactly: every (b, c)
//! of n pairs weighted by its trinomial probability at the boundary, over a grid of
//! discordances, with no simulation error; beside it the rule `--margin` used before
//! (Tango's 90% lower bound above −M). Then a simulation of both data kinds at the
//! boundary, 10,000 runs a cell (95% Monte-Carlo error ±0.43 points at 5%).

// The report is this program's output.
#![allow(clippy::print_stdout)]

use evogate::base::random::Random;
use evogate::stats::binomial::pmf;
use evogate::stats::bounded_mean::Histogram;
use evogate::stats::equivalence::{
    MarginTails, betting_margin, mcnemar_margin, signed_rank_margin,
};
use evogate::stats::interval::paired_difference;
use evogate::stats::signed_rank::ZeroMethod;

const ALPHA: f64 = 0.05;
const RUNS: usize = 10_000;

/// Which (b, c) a rule rejects on n pairs, indexed [b][c].
fn table(n: u64, rejects: &dyn Fn(u64, u64) -> bool) -> Vec<Vec<bool>> {
    (0..=n)
        .map(|b| (0..=n - b).map(|c| rejects(b, c)).collect())
        .collect()
}

/// The exact probability of rejection when a share `discordance` of pairs disagree and
/// the difference is `shift` (candidate-only minus baseline-only).
fn exact_size(n: u64, discordance: f64, shift: f64, rejected: &[Vec<bool>]) -> f64 {
    let share = (discordance + shift) / (2.0 * discordance);
    let mut size = 0.0;
    for m in 0..=n {
        let weight = pmf(m, n, discordance);
        if weight == 0.0 {
            continue;
        }
        for c in 0..=m {
            if rejected[(m - c) as usize][c as usize] {
                size += weight * pmf(c, m, share);
            }
        }
    }
    size
}

/// The largest exact size over discordances from |shift| (every disagreement one way)
/// to 1, in 40 steps, and where it was reached.
fn worst(n: u64, shift: f64, rejected: &[Vec<bool>]) -> (f64, f64) {
    let from = shift.abs();
    (0..=40)
        .map(|k| {
            let psi = (from + (1.0 - from) * f64::from(k) / 40.0).clamp(1e-9, 1.0);
            (exact_size(n, psi, shift, rejected), psi)
        })
        .fold((0.0, 0.0), |best, x| if x.0 > best.0 { x } else { best })
}

fn exact_tables() {
    println!(
        "Exact size at the boundary, 0/1 outcomes: the largest probability of showing the false claim over discordances ψ from M to 1 (41 values), every (b, c) weighted by its trinomial probability. Non-inferiority at the lower boundary Δ = −M; equivalence at Δ = −M and at Δ = +M (the larger). alpha 0.05.\n"
    );
    println!(
        "| n | M | melded non-inferiority (at ψ) | old `--margin`: Tango 90% lower bound > −M (at ψ) | melded equivalence, TOST (at ψ) |"
    );
    println!("| ---: | ---: | ---: | ---: | ---: |");
    for n in [12_u64, 30, 60, 136, 300] {
        for margin in [0.02, 0.05, 0.1, 0.2] {
            let tails: Vec<Vec<MarginTails>> = (0..=n)
                .map(|b| {
                    (0..=n - b)
                        .map(|c| mcnemar_margin(b, c, n, margin))
                        .collect()
                })
                .collect();
            let melded = table(n, &|b, c| {
                tails[b as usize][c as usize].p_noninferiority < ALPHA
            });
            let tost = table(n, &|b, c| {
                tails[b as usize][c as usize].p_equivalence() < ALPHA
            });
            let tango = table(n, &|b, c| {
                paired_difference(b, c, n, 1.0 - 2.0 * ALPHA).is_some_and(|i| i.low > -margin)
            });
            let (ni, ni_at) = worst(n, -margin, &melded);
            let (old, old_at) = worst(n, -margin, &tango);
            let low = worst(n, -margin, &tost);
            let high = worst(n, margin, &tost);
            let (eq, eq_at) = if high.0 > low.0 { high } else { low };
            println!(
                "| {n} | {margin} | {} | {}{} | {} |",
                at(ni, ni_at),
                at(old, old_at),
                if old > ALPHA { " **over**" } else { "" },
                at(eq, eq_at),
            );
        }
    }
    println!();
}

/// A size with the discordance where it was reached (none when it is 0: no outcome of
/// these pairs can show the claim).
fn at(size: f64, psi: f64) -> String {
    if size == 0.0 {
        "0 (no outcome shows it)".to_string()
    } else {
        format!("{} (ψ {psi:.3})", pct(size))
    }
}

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// The largest n at which the signed-rank test is simulated: its exact null on a few
/// hundred pairs costs milliseconds, and a cell runs it 20,000 times.
const RANKS_LIMIT: usize = 136;

/// One simulated cell: how often each rule shows equivalence within ±M at the lower
/// boundary (the true mean difference −M).
struct Cell {
    melded: usize,
    both: usize,
    ranks: usize,
    bets: usize,
}

/// Differences in micro-units drawn from (value, probability) pairs.
fn draw(rng: &mut Random, law: &[(i64, f64)]) -> i64 {
    let u = rng.unit();
    let mut total = 0.0;
    for &(value, p) in law {
        total += p;
        if u < total {
            return value;
        }
    }
    law[law.len() - 1].0
}

fn histogram(values: &[i64]) -> Vec<(i64, u64)> {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    let mut out: Vec<(i64, u64)> = Vec::new();
    for v in sorted {
        match out.last_mut() {
            Some(last) if last.0 == v => last.1 += 1,
            _ => out.push((v, 1)),
        }
    }
    out
}

fn simulate(n: usize, margin: f64, law: &[(i64, f64)], seed: u64) -> Cell {
    let mut rng = Random::keyed(seed);
    let mut cell = Cell {
        melded: 0,
        both: 0,
        ranks: 0,
        bets: 0,
    };
    let margin_micros = (margin * 1e6).round() as i64;
    for _ in 0..RUNS {
        let values: Vec<i64> = (0..n).map(|_| draw(&mut rng, law)).collect();
        let counts = histogram(&values);
        let ranks = if n <= RANKS_LIMIT {
            signed_rank_margin(&counts, margin_micros, ZeroMethod::Wilcox)
        } else {
            MarginTails::none()
        };
        let real = Histogram::from_counts(counts.iter().map(|&(v, c)| (v as f64 / 1e6, c)))
            .expect("differences in [-1, 1]");
        let bets = betting_margin(&real, margin);
        let shown = |t: MarginTails| t.p_equivalence() < ALPHA;
        cell.ranks += usize::from(shown(ranks));
        cell.bets += usize::from(shown(bets));
        cell.both += usize::from(shown(ranks.both(bets)));
        // On 0/1 data (differences −1, 0, +1 only) the melded test decides.
        if counts.iter().all(|&(v, _)| v.abs() == 1_000_000 || v == 0) {
            let b = values.iter().filter(|&&v| v < 0).count() as u64;
            let c = values.iter().filter(|&&v| v > 0).count() as u64;
            cell.melded += usize::from(shown(mcnemar_margin(b, c, n as u64, margin)));
        }
    }
    cell
}

/// A simulated cell's law: its name, (difference in micro-units, probability) pairs,
/// and the numbers of pairs it is run at.
type Law = (&'static str, Vec<(i64, f64)>, &'static [usize]);

fn simulated_tables() {
    let margin = 0.05;
    println!(
        "Simulated size of equivalence within ±0.05 at the lower boundary (true mean difference −0.05), {RUNS} runs a cell, ChaCha20 seed 40 + cell; the 95% Monte-Carlo error of a rate near 5% is ±0.43 points. For 0/1 outcomes `admit` decides by the melded test; for scores by both the signed-rank and the betting test (`both`); the last two columns are each of those alone, on the same runs (on 0/1 data they are what `--test signed-rank` would do).\n"
    );
    println!(
        "| differences (candidate − baseline) | n | melded McNemar (0/1) | scores: both (decides) | signed-rank on d ± M alone | betting alone |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let laws: [Law; 4] = [
        (
            "0/1 outcomes, every disagreement a loss: −1 w.p. 0.05 (ψ = M, the exact table's worst region)",
            vec![(-1_000_000, 0.05), (0, 0.95)],
            &[60, 136, 300],
        ),
        (
            "0/1 outcomes: −1 w.p. 0.125, +1 w.p. 0.075 (ψ = 0.2)",
            vec![(-1_000_000, 0.125), (1_000_000, 0.075), (0, 0.8)],
            &[136, 400, 2000],
        ),
        (
            "scores, 80% unchanged: −0.5 w.p. 0.15, +0.5 w.p. 0.05",
            vec![(-500_000, 0.15), (500_000, 0.05), (0, 0.8)],
            &[30, 60, 136],
        ),
        (
            "scores symmetric about −0.05: −0.05 plus 0 (4/16), ±0.1 (3/16 each), ±0.2 (2/16), ±0.3 (1/16)",
            vec![
                (-50_000, 4.0 / 16.0),
                (50_000, 3.0 / 16.0),
                (-150_000, 3.0 / 16.0),
                (150_000, 2.0 / 16.0),
                (-250_000, 2.0 / 16.0),
                (250_000, 1.0 / 16.0),
                (-350_000, 1.0 / 16.0),
            ],
            &[30, 60, 136],
        ),
    ];
    let mut seed = 40;
    for (name, law, sizes) in &laws {
        for &n in *sizes {
            let cell = simulate(n, margin, law, seed);
            seed += 1;
            let rate = |k: usize| pct(k as f64 / RUNS as f64);
            let melded = if name.starts_with("0/1") {
                rate(cell.melded)
            } else {
                "–".to_string()
            };
            let (both, ranks) = if n <= RANKS_LIMIT {
                (rate(cell.both), rate(cell.ranks))
            } else {
                ("–".to_string(), "–".to_string())
            };
            println!(
                "| {name} | {n} | {melded} | {both} | {ranks} | {} |",
                rate(cell.bets)
            );
        }
    }
    println!();
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is ignored.
    println!(
        "## Tests against a margin: size at the boundary (`cargo bench --bench equivalence_size`)\n"
    );
    exact_tables();
    simulated_tables();
}
