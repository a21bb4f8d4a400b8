//! Sequential admission (`admit --sequential`) by simulation: its false-admission rate
//! under no change with a look after every pair, the strata guard's admission rate when
//! one kind truly regresses, the tasks it takes to decide against the fixed-n exact
//! test's n, and the problem it solves (today's `admit` looked at every 10 tasks).
//! Prints the Markdown tables of `reports/bench.md` (section "Sequential admission").
//!
//! Every run draws from a ChaCha20 stream seeded from the cell and the half it belongs
//! to (two threads, one half each), through `Random::below` on the raw output, so the
//! tables are the same on every machine. Run: `cargo run --release --example
//! sequential_simulation` (`-- quick` for a tenth of the runs).

#![allow(clippy::print_stdout)]

use evogate::alpha::Alpha;
use evogate::base::random::Random;
use evogate::stats::binomial::lower_tail;
use evogate::stats::mcnemar::mcnemar_exact;
use evogate::stats::power::{detectable_shift, mcnemar_power, required_n_for_power};
use evogate::stats::sequential::{Design, Monitor, Reason, Standing};
use evogate::stats::signed_rank::{ZeroMethod, signed_rank};

const ALPHA: f64 = 0.05;

/// [`ALPHA`] as the level a design takes.
fn level() -> Alpha {
    Alpha::new(ALPHA).expect("0.05 is a level")
}
const SEED: u64 = 20_261_204;

fn unit(rng: &mut Random) -> f64 {
    rng.below(1 << 53) as f64 / (1_u64 << 53) as f64
}

/// A difference −1, 0 or 1 with P(1) = (ψ + δ)/2 and P(−1) = (ψ − δ)/2.
fn coin(rng: &mut Random, discordance: f64, shift: f64) -> f64 {
    let u = unit(rng);
    if u < (discordance + shift) / 2.0 {
        1.0
    } else if u < discordance {
        -1.0
    } else {
        0.0
    }
}

/// Scores on {0, 0.25, …, 1} with ties and zeros: the arms agree on 40% of tasks,
/// otherwise |d| = |U − V| for U, V uniform on the grid, positive with probability
/// (1 + θ)/2. Mean θ·0.6·E|U − V| = θ·0.24.
fn grid_score(rng: &mut Random, theta: f64) -> f64 {
    if unit(rng) < 0.4 {
        return 0.0;
    }
    let u = rng.below(5) as f64 / 4.0;
    let v = rng.below(5) as f64 / 4.0;
    let magnitude = (u - v).abs();
    if unit(rng) < (1.0 + theta) / 2.0 {
        magnitude
    } else {
        -magnitude
    }
}

/// Skewed scores, the same for both arms (no change): each score is u^4 for u uniform
/// (mean 0.2, most mass near 0, a long tail to 1).
fn skewed_score(rng: &mut Random) -> f64 {
    unit(rng).powi(4) - unit(rng).powi(4)
}

/// The outcome of one monitored run.
#[derive(Clone, Copy)]
struct Run {
    status: Standing,
    look: u64,
    final_look: bool,
}

fn monitor_run(design: &Design, draw: &mut dyn FnMut() -> (f64, Option<&'static str>)) -> Run {
    let mut monitor = Monitor::new(design.clone()).expect("a valid design");
    while monitor.status() == Standing::Continue {
        let (difference, stratum) = draw();
        monitor.push(difference, stratum);
    }
    let (reason, look) = monitor
        .decision()
        .expect("decided at the last look at the latest");
    Run {
        status: monitor.status(),
        look,
        final_look: matches!(reason, Reason::FinalLook { .. }),
    }
}

/// `runs` runs of `cell`, half on each of two threads, each half on its own stream.
fn simulate<F>(cell: u64, runs: usize, one: F) -> Vec<Run>
where
    F: Fn(&mut Random) -> Run + Sync,
{
    let half = |part: u64, count: usize| {
        let mut rng = Random::expanded(SEED ^ (cell << 8) ^ part);
        (0..count).map(|_| one(&mut rng)).collect::<Vec<Run>>()
    };
    std::thread::scope(|scope| {
        let first = scope.spawn(|| half(0, runs / 2));
        let mut second = half(1, runs - runs / 2);
        let mut all = first.join().expect("a simulation thread does not panic");
        all.append(&mut second);
        all
    })
}

/// The one-sided 95% Clopper–Pearson upper bound on a rate of k in n.
fn upper_95(k: usize, n: usize) -> f64 {
    if k == n {
        return 1.0;
    }
    let (mut low, mut high) = (k as f64 / n as f64, 1.0);
    for _ in 0..100 {
        let mid = 0.5 * (low + high);
        if lower_tail(k as u64, n as u64, mid) > 0.05 {
            low = mid;
        } else {
            high = mid;
        }
    }
    high
}

fn quantile(mut values: Vec<u64>, q: f64) -> u64 {
    values.sort_unstable();
    let index = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1;
    values[index]
}

fn admitted(runs: &[Run]) -> usize {
    runs.iter()
        .filter(|r| r.status == Standing::Admitted)
        .count()
}

fn validity(scale: usize) {
    println!("### Validity: no change, a look after every pair, holdout 1,000\n");
    println!(
        "| differences | runs | admitted | rate | 95% upper bound | of which at the last look | refused early |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let runs = 10_000 / scale;
    let binary = Design::new(level(), 0.0, 1_000, true, ZeroMethod::Wilcox);
    let mut cells: Vec<(String, Vec<Run>)> = Vec::new();
    for (i, discordance) in [0.1, 0.3, 0.5].into_iter().enumerate() {
        let design = binary.clone();
        let runs = simulate(10 + i as u64, runs, |rng| {
            monitor_run(&design, &mut || (coin(rng, discordance, 0.0), None))
        });
        cells.push((format!("0/1 correct, discordance {discordance}"), runs));
    }
    let scores = Design::new(level(), 0.0, 1_000, false, ZeroMethod::Wilcox);
    let runs_grid = simulate(20, runs, |rng| {
        monitor_run(&scores, &mut || (grid_score(rng, 0.0), None))
    });
    cells.push((
        "scores on a 0.25 grid, 40% zeros, ties".to_string(),
        runs_grid,
    ));
    let runs_skewed = simulate(21, runs, |rng| {
        monitor_run(&scores, &mut || (skewed_score(rng), None))
    });
    cells.push(("skewed scores u^4 in both arms".to_string(), runs_skewed));
    for (name, runs) in &cells {
        let k = admitted(runs);
        let at_last = runs
            .iter()
            .filter(|r| r.status == Standing::Admitted && r.final_look)
            .count();
        let refused_early = runs
            .iter()
            .filter(|r| r.status == Standing::Refused && !r.final_look)
            .count();
        println!(
            "| {name} | {} | {k} | {:.4} | {:.4} | {at_last} | {refused_early} |",
            runs.len(),
            k as f64 / runs.len() as f64,
            upper_95(k, runs.len())
        );
    }
    println!();
}

fn problem(scale: usize) {
    println!("### The problem: looking at a fixed-n test again and again\n");
    println!(
        "200 pairs under no change, discordance 0.3, alpha 0.05; today's exact McNemar test run after every 10 (or 50) pairs, stopping at the first p < alpha, beside the sequential rule looking after every pair.\n"
    );
    println!("| rule | runs | admitted | rate | 95% upper bound |");
    println!("|---|---:|---:|---:|---:|");
    let runs = 20_000 / scale;
    for (cell, every) in [(30_u64, 10_u64), (31, 50)] {
        let results = simulate(cell, runs, |rng| {
            let (mut b, mut c) = (0, 0);
            for t in 1..=200 {
                match coin(rng, 0.3, 0.0) {
                    d if d > 0.5 => c += 1,
                    d if d < -0.5 => b += 1,
                    _ => {}
                }
                if t % every == 0 && level().rejects(mcnemar_exact(b, c).tails.p_improvement) {
                    return Run {
                        status: Standing::Admitted,
                        look: t,
                        final_look: false,
                    };
                }
            }
            Run {
                status: Standing::Refused,
                look: 200,
                final_look: true,
            }
        });
        rate_row(&format!("`admit` after every {every} pairs"), &results);
    }
    let design = Design::new(level(), 0.0, 200, true, ZeroMethod::Wilcox);
    let results = simulate(32, runs, |rng| {
        monitor_run(&design, &mut || (coin(rng, 0.3, 0.0), None))
    });
    rate_row("`admit --sequential`, after every pair", &results);
    println!();
}

/// A row: the label, runs, admitted, the rate and its 95% upper bound.
fn rate_row(label: &str, results: &[Run]) {
    let k = admitted(results);
    println!(
        "| {label} | {} | {k} | {:.4} | {:.4} |",
        results.len(),
        k as f64 / results.len() as f64,
        upper_95(k, results.len())
    );
}

/// Tasks to a decision and power at 1×, 1.5× and 2× the fixed-n test's 80%-power shift.
fn efficiency_binary(scale: usize) {
    let holdout = 400;
    let discordance = 0.3;
    let shift = detectable_shift(holdout, discordance, ALPHA, 0.8).expect("a shift");
    println!(
        "### Efficiency, 0/1 correct: holdout {holdout}, discordance {discordance}, the fixed-n exact test's 80%-power shift {shift:.4}\n"
    );
    println!(
        "| true shift | runs | power, sequential | of which early | power, fixed n = {holdout} | fixed-n n for 80% | median tasks to a decision | p90 | median to admission | median / {holdout} |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let runs = 10_000 / scale;
    let design = Design::new(level(), 0.0, holdout, true, ZeroMethod::Wilcox);
    for (i, factor) in [1.0, 1.5, 2.0].into_iter().enumerate() {
        let delta = shift * factor;
        let results = simulate(40 + i as u64, runs, |rng| {
            monitor_run(&design, &mut || (coin(rng, discordance, delta), None))
        });
        let fixed = mcnemar_power(holdout, discordance, delta, ALPHA).expect("power");
        let n80 = required_n_for_power(delta, discordance, ALPHA, 0.8).expect("n");
        efficiency_row(
            &format!("{factor}× = {delta:.4}"),
            &results,
            fixed,
            n80,
            holdout,
        );
    }
    println!();
}

fn efficiency_row(label: &str, results: &[Run], fixed: f64, n80: u64, holdout: u64) {
    let k = admitted(results);
    let early = results
        .iter()
        .filter(|r| r.status == Standing::Admitted && !r.final_look)
        .count();
    let looks: Vec<u64> = results.iter().map(|r| r.look).collect();
    let to_admission: Vec<u64> = results
        .iter()
        .filter(|r| r.status == Standing::Admitted)
        .map(|r| r.look)
        .collect();
    let median = quantile(looks.clone(), 0.5);
    println!(
        "| {label} | {} | {:.4} | {:.4} | {fixed:.4} | {n80} | {median} | {} | {} | {:.2} |",
        results.len(),
        k as f64 / results.len() as f64,
        early as f64 / results.len() as f64,
        quantile(looks, 0.9),
        if to_admission.is_empty() {
            "-".to_string()
        } else {
            quantile(to_admission, 0.5).to_string()
        },
        median as f64 / holdout as f64
    );
}

/// The fixed-n signed-rank test's power at `theta` by simulation (with the mean > 0
/// rule of `admit`).
fn signed_rank_power(rng: &mut Random, holdout: usize, theta: f64, runs: usize) -> f64 {
    let mut rejected = 0;
    for _ in 0..runs {
        let d: Vec<f64> = (0..holdout).map(|_| grid_score(rng, theta)).collect();
        let mean = d.iter().sum::<f64>();
        if mean > 0.0 && level().rejects(signed_rank(&d, ZeroMethod::Wilcox).tails.p_improvement) {
            rejected += 1;
        }
    }
    rejected as f64 / runs as f64
}

fn efficiency_scores(scale: usize) {
    let holdout = 400;
    let mut rng = Random::expanded(SEED ^ 50);
    // The 80%-power θ of the fixed-n test, by bisection on 2,000-run power estimates.
    let (mut low, mut high) = (0.0, 0.5);
    for _ in 0..10 {
        let mid = 0.5 * (low + high);
        if signed_rank_power(&mut rng, holdout, mid, 2_000 / scale) >= 0.8 {
            high = mid;
        } else {
            low = mid;
        }
    }
    let theta = high;
    println!(
        "### Efficiency, scores: holdout {holdout}, the 0.25-grid scores with 40% zeros, the fixed-n signed-rank test's 80%-power mean shift {:.4} (θ = {theta:.4}, by bisection on 2,000-run estimates)\n",
        0.24 * theta
    );
    println!(
        "| share of alpha for the e-process | true shift | runs | power, sequential | of which early | power, fixed n = {holdout} | fixed-n n for 80% | median tasks to a decision | p90 | median to admission | median / {holdout} |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let runs = 4_000 / scale;
    for (s, share) in [0.25, 0.5, 0.75, 1.0].into_iter().enumerate() {
        let mut design = Design::new(level(), 0.0, holdout as u64, false, ZeroMethod::Wilcox);
        design.scores_share = share;
        for (i, factor) in [1.0, 1.5, 2.0].into_iter().enumerate() {
            let t = theta * factor;
            let results = simulate(60 + 3 * s as u64 + i as u64, runs, |rng| {
                monitor_run(&design, &mut || (grid_score(rng, t), None))
            });
            let fixed = signed_rank_power(&mut rng, holdout, t, 2_000 / scale);
            print!("| {share} ");
            efficiency_row(
                &format!("{factor}× = {:.4}", 0.24 * t),
                &results,
                fixed,
                0,
                holdout as u64,
            );
        }
    }
    println!("\n(fixed-n n for 80% is not computed for scores: 0.)\n");
}

/// The demo's shape: 4 kinds × 34 tasks in a random order; three kinds better by 0.25
/// (only the candidate right 0.30, only the baseline 0.05), the fourth worse by δ (only
/// the baseline right 0.05 + δ, only the candidate 0.05).
fn guard(scale: usize) {
    let per_kind = 34;
    let kinds = ["first_author", "id", "title", "year"];
    // The regression a 34-pair stratum detects with 80% power at its discordance
    // 0.10 + δ, found as a fixed point.
    let mut detectable = 0.3;
    for _ in 0..30 {
        detectable =
            detectable_shift(per_kind, 0.10 + detectable, ALPHA, 0.8).unwrap_or(detectable);
    }
    println!(
        "### The strata guard: 4 kinds × 34 tasks, three better by 0.25, one worse by δ\n\nδ = {detectable:.4} is the regression a 34-pair kind's exact test detects with 80% power (at discordance 0.10 + δ).\n"
    );
    println!("| δ on the worse kind | runs | admitted | rate | 95% upper bound | median look |");
    println!("|---|---:|---:|---:|---:|---:|");
    let runs = 10_000 / scale;
    let design = Design::new(level(), 0.0, 4 * per_kind, true, ZeroMethod::Wilcox);
    for (i, delta) in [0.0, detectable, 2.0 * detectable].into_iter().enumerate() {
        let results = simulate(70 + i as u64, runs, |rng| {
            // A random order of the 136 tasks: a shuffled list of kinds.
            let mut order: Vec<usize> = (0..4 * per_kind as usize)
                .map(|t| t / per_kind as usize)
                .collect();
            for j in (1..order.len()).rev() {
                let k = rng.below(j as u64 + 1) as usize;
                order.swap(j, k);
            }
            let mut next = order.into_iter();
            monitor_run(&design, &mut || {
                let kind = next.next().expect("the monitor stops at the last pair");
                let d = if kind == 3 {
                    coin(rng, 0.10 + delta, -delta)
                } else {
                    coin(rng, 0.35, 0.25)
                };
                (d, Some(kinds[kind]))
            })
        });
        let k = admitted(&results);
        let looks: Vec<u64> = results.iter().map(|r| r.look).collect();
        println!(
            "| {delta:.4} | {} | {k} | {:.4} | {:.4} | {} |",
            results.len(),
            k as f64 / results.len() as f64,
            upper_95(k, results.len()),
            quantile(looks, 0.5)
        );
    }
    println!();
}

fn main() {
    let scale = if std::env::args().any(|a| a == "quick") {
        10
    } else {
        1
    };
    let section = std::env::args().nth(1).unwrap_or_default();
    let all = section.is_empty() || section == "quick";
    if all || section == "problem" {
        problem(scale);
    }
    if all || section == "validity" {
        validity(scale);
    }
    if all || section == "binary" {
        efficiency_binary(scale);
    }
    if all || section == "guard" {
        guard(scale);
    }
    if all || section == "scores" {
        efficiency_scores(scale);
    }
}
