//! The regression guard's operating characteristics at the demo's sizes: how often
//! `admit` admits a candidate that is better overall while one kind is truly worse by
//! δ, with and without `--margin 0.05`, under McNemar's test and the signed-rank test.
//! Prints a Markdown table (the one in README.md and reports/bench.md).
//!
//! The model: 4 kinds × 34 tasks (136 pairs, the demo's holdout). The baseline answers
//! each task correctly with probability 0.6. On three kinds the candidate is better by
//! 0.25 in the share correct (only the candidate right 0.30, only the baseline right
//! 0.05); on the fourth it is worse by δ (only the baseline right 0.05 + δ, only the
//! candidate right 0.05), so the arms disagree on 10% of tasks besides the shift. For
//! the signed-rank test a correct answer scores 1 and a wrong one gets partial credit
//! drawn uniformly from {0, 0.1, ..., 0.5}, each arm on its own, so the worse kind's
//! mean score falls by 0.75·δ. Each run is decided twice by the library's `decide` at
//! alpha 0.05 with strata by kind, on the same data: without a margin (superiority) and
//! with `--margin 0.05`, which asks non-inferiority overall and in every kind.
//!
//! Run: `cargo run --release --example guard_table` (about 20 seconds of CPU, on two
//! threads).

use std::io::Write;

use evogate::admission::{Baseline, Config, Keep, Margin, StrataRequest, Test, Verdict, decide};
use evogate::alpha::Alpha;
use evogate::base::random::Random;
use evogate::stats::signed_rank::ZeroMethod;

/// Runs per cell: a rate's standard error is at most 1.6 points.
const RUNS: usize = 1_000;
/// The stream every cell draws from, reseeded per cell so cells do not share draws.
const SEED: u64 = 20_261_204;
const KINDS: [&str; 4] = ["first_author", "id", "title", "year"];
const PER_KIND: usize = 34;
const DELTAS: [f64; 6] = [0.0, 0.05, 0.10, 0.15, 0.20, 0.30];
const MARGIN: f64 = 0.05;

/// A uniform draw in [0, 1) from 53 raw bits.
fn unit(rng: &mut Random) -> f64 {
    rng.below(1 << 53) as f64 / (1_u64 << 53) as f64
}

/// (baseline right, candidate right) for one task of a kind whose shift is `shift`.
fn outcome(rng: &mut Random, shift: f64) -> (bool, bool) {
    let churn = 0.10;
    let baseline_only = (churn + shift.abs() - shift) / 2.0;
    let candidate_only = (churn + shift.abs() + shift) / 2.0;
    let both = 0.6 - baseline_only;
    let u = unit(rng);
    if u < both {
        (true, true)
    } else if u < both + baseline_only {
        (true, false)
    } else if u < both + baseline_only + candidate_only {
        (false, true)
    } else {
        (false, false)
    }
}

/// A score: 1 when right, else partial credit in {0, 0.1, ..., 0.5}.
fn score(rng: &mut Random, right: bool) -> f64 {
    if right {
        1.0
    } else {
        rng.below(6) as f64 / 10.0
    }
}

/// One simulated holdout as two scores files.
fn holdout(rng: &mut Random, delta: f64, scores_only: bool) -> (String, String) {
    let header = if scores_only {
        "task_id,kind,score\n"
    } else {
        "task_id,kind,correct,score\n"
    };
    let (mut base, mut cand) = (header.to_string(), header.to_string());
    for (k, kind) in KINDS.iter().enumerate() {
        let shift = if k == 0 { -delta } else { 0.25 };
        for t in 0..PER_KIND {
            let (b, c) = outcome(rng, shift);
            let id = format!("t{t}:{kind}");
            if scores_only {
                base.push_str(&format!("{id},{kind},{}\n", score(rng, b)));
                cand.push_str(&format!("{id},{kind},{}\n", score(rng, c)));
            } else {
                base.push_str(&format!("{id},{kind},{},{}\n", u8::from(b), u8::from(b)));
                cand.push_str(&format!("{id},{kind},{},{}\n", u8::from(c), u8::from(c)));
            }
        }
    }
    (base, cand)
}

/// Admission rates (without the margin, with it) over [`RUNS`] holdouts.
fn rates(delta: f64, test: Test, cell: u64) -> (f64, f64) {
    let mut rng = Random::expanded(SEED + cell);
    let strata = StrataRequest {
        column: "kind".to_string(),
        required: true,
    };
    let plain_config = Config {
        alpha: Alpha::new(0.05).expect("a valid level"),
        test,
        margin: None,
        holdout: None,
        cluster: false,
        answers: Default::default(),
    };
    // `--margin` asks non-inferiority: overall and in every kind, the exact test of a
    // loss of the margin or more must reject.
    let margin_config = Config {
        margin: Some(Margin::new(MARGIN).expect("a valid margin")),
        ..plain_config.clone()
    };
    let (mut plain, mut margined) = (0, 0);
    for _ in 0..RUNS {
        let (base, cand) = holdout(&mut rng, delta, matches!(test, Test::SignedRank(_)));
        let pairs = Baseline::read("b.csv", base.as_bytes(), Some("kind"), false)
            .and_then(|b| b.join("c.csv", cand.as_bytes(), Keep::Losses))
            .map(|joined| joined.pair(None, Some(&strata)))
            .expect("the simulated files are well formed")
            .expect("the simulated files pair");
        let admitted = |config: &Config| decide(&pairs, config).verdict == Verdict::Admitted;
        plain += usize::from(admitted(&plain_config));
        margined += usize::from(admitted(&margin_config));
    }
    (plain as f64 / RUNS as f64, margined as f64 / RUNS as f64)
}

fn main() -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Admitted, of {RUNS} runs per cell (ChaCha20 seed {SEED} + cell): 136 pairs in 4 kinds of 34, three kinds better by 0.25, `first_author` worse by δ; alpha 0.05, strata by kind.\n"
    )?;
    writeln!(
        out,
        "| δ (share correct) | McNemar | McNemar, --margin {MARGIN} | signed-rank | signed-rank, --margin {MARGIN} |"
    )?;
    writeln!(out, "| ---: | ---: | ---: | ---: | ---: |")?;
    for (row, &delta) in DELTAS.iter().enumerate() {
        let cell = 10 * row as u64;
        // The two tests' cells draw from their own streams: one thread each.
        let ((mcnemar, mcnemar_margin), (ranks, ranks_margin)) = std::thread::scope(|scope| {
            let ranks =
                scope.spawn(|| rates(delta, Test::SignedRank(ZeroMethod::Wilcox), cell + 1));
            let mcnemar = rates(delta, Test::McNemar, cell);
            (
                mcnemar,
                ranks.join().expect("a simulation thread does not panic"),
            )
        });
        writeln!(
            out,
            "| {delta:.2} | {:.1}% | {:.1}% | {:.1}% | {:.1}% |",
            100.0 * mcnemar,
            100.0 * mcnemar_margin,
            100.0 * ranks,
            100.0 * ranks_margin
        )?;
    }
    Ok(())
}
