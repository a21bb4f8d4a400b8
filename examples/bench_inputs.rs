//! Writes the inputs of `benches/compare.sh`: `baseline.csv` and `candidate.csv`, two
//! scores files of N paired tasks in the layout `evogate score` writes, four tasks (one of
//! each kind) per synthetic paper, from one ChaCha20 stream so a seed always gives the
//! same bytes; and for `score`, the same papers as `papers.csv` (truth), `tasks.csv` and
//! `outputs.jsonl`, model-like answers of which about 70% are right.
//! Usage: `cargo run --release --example bench_inputs -- N DIR [SEED]`.
//!
//! Scores lie on a grid of quarters (heavy ties, as graded scores have); `correct` is 1
//! exactly when the score is 1. The candidate keeps the baseline's score on most tasks
//! and otherwise draws a new one leaning slightly upwards, so both McNemar and the
//! signed-rank test see a small improvement with many ties.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, bail};
use evogate::base::random::Random;

/// The seed when none is given.
const DEFAULT_SEED: u64 = 6;

const KINDS: [&str; 4] = ["id", "title", "first_author", "year"];

/// Weights (out of 20) of the quarter grid 0, 0.25, …, 1 for a fresh baseline score and
/// for a redrawn candidate score.
const BASELINE_WEIGHTS: [u64; 5] = [6, 2, 2, 2, 8];
const CANDIDATE_WEIGHTS: [u64; 5] = [5, 2, 2, 2, 9];

fn draw(rng: &mut Random, weights: &[u64; 5]) -> usize {
    let mut u = rng.below(weights.iter().sum());
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

const ADJECTIVES: [&str; 8] = [
    "Scalable",
    "Robust",
    "Sparse",
    "Deep",
    "Efficient",
    "Adaptive",
    "Neural",
    "Bayesian",
];
const NOUNS: [&str; 8] = [
    "Attention",
    "Inference",
    "Transformers",
    "Embeddings",
    "Retrieval",
    "Planning",
    "Optimisation",
    "Representations",
];
const SURNAMES: [&str; 8] = [
    "Okafor",
    "Lindqvist",
    "Tanaka",
    "Moreau",
    "Kowalski",
    "Haddad",
    "Ferreira",
    "Nguyen",
];

/// The truth, tasks and outputs files `evogate score` reads, for the same papers.
fn score_inputs(n: usize, rng: &mut Random) -> (String, String, String) {
    let mut papers = String::from("arxiv_id,title,first_author,year\n");
    let mut tasks = String::from("task_id,group,kind,prompt\n");
    let mut outputs = String::new();
    for paper in 0..n.div_ceil(4) {
        let id = format!("{}.{:05}", 1501 + paper / 100_000, paper * 7919 % 100_000);
        let title = format!(
            "{} {} for Problem {}",
            ADJECTIVES[paper % 8],
            NOUNS[paper / 8 % 8],
            paper
        );
        let author = format!(
            "Ada{} {}{}",
            paper % 97,
            SURNAMES[paper / 64 % 8],
            paper / 512
        );
        let year = 2015;
        writeln!(papers, "{id},{title},{author},{year}").expect("String");
        for kind in KINDS.iter().take(n - 4 * paper) {
            let right = rng.below(10) < 7;
            let (prompt, answer) = match *kind {
                "id" => (
                    format!("Find the arXiv ID of the paper titled \"\"{title}\"\"."),
                    if right {
                        format!("The arXiv ID is {id}.")
                    } else {
                        "I believe it is 1706.03762.".to_string()
                    },
                ),
                "title" => (
                    format!("What is the exact title of arXiv paper {id}?"),
                    if right {
                        format!("arXiv {id} is \\\"{title}\\\" by {author}.")
                    } else {
                        "I can't recall the exact wording of that title.".to_string()
                    },
                ),
                "first_author" => (
                    format!("Who is the first author of arXiv paper {id}?"),
                    if right {
                        format!("It was led by {author}.")
                    } else {
                        "The paper has many authors; I don't recall who is listed first."
                            .to_string()
                    },
                ),
                _ => (
                    format!("In which year was arXiv paper {id} first submitted?"),
                    if right {
                        format!("It appeared in {year}.")
                    } else {
                        "Hard to say; it has had several revisions.".to_string()
                    },
                ),
            };
            writeln!(tasks, "{id}:{kind},{id},{kind},\"{prompt}\"").expect("String");
            writeln!(
                outputs,
                "{{\"task_id\":\"{id}:{kind}\",\"output\":\"{answer}\"}}"
            )
            .expect("String");
        }
    }
    (papers, tasks, outputs)
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
    let mut rng = Random::expanded(seed);
    let header = "task_id,group,kind,correct,correctness,composite,score,feedback\n";
    let mut baseline = String::from(header);
    let mut candidate = String::from(header);
    for task in 0..n {
        let paper = task / 4;
        // Distinct arXiv-like ids in a scrambled order (7919 is prime to 100,000).
        let group = format!("{}.{:05}", 1501 + paper / 100_000, paper * 7919 % 100_000);
        let kind = KINDS[task % 4];
        let before = draw(&mut rng, &BASELINE_WEIGHTS);
        let after = if rng.below(10) < 7 {
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
    let (papers, tasks, outputs) = score_inputs(n, &mut rng);
    std::fs::write(dir.join("papers.csv"), papers)?;
    std::fs::write(dir.join("tasks.csv"), tasks)?;
    std::fs::write(dir.join("outputs.jsonl"), outputs)?;
    Ok(())
}
