//! Benchmark of the arxiv verifier's grading, one task kind at a time, on answers that
//! read like a model's. Run with `cargo bench --bench grade`; the figure to compare with
//! the 500,000 outputs per second goal is the reciprocal of the time per grade.

use criterion::{Criterion, Throughput};
use evogate::table::Table;
use evogate::truth::load_papers;
use evogate::verify::Verifier;
use evogate::verify::arxiv::ArxivVerifier;
use std::hint::black_box;

const ANSWERS: [&str; 5] = [
    "The paper is arXiv 1706.03762.",
    "It was written by Ashish Vaswani et al. in 2017.",
    "The exact title is \"Attention Is All You Need\".",
    "I believe it was first submitted in 2016, see arXiv:1706.03762v5.",
    "Great question! I am not sure.",
];

fn main() {
    let bytes = include_bytes!("../data/arxiv/papers.csv");
    let table = Table::parse("papers.csv", bytes).expect("the shipped truth parses");
    let verifier = ArxivVerifier::new(load_papers(&table).expect("the shipped truth is clean"));
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("grade");
    group.throughput(Throughput::Elements(ANSWERS.len() as u64));
    for kind in ["id", "title", "first_author", "year"] {
        let task = verifier
            .tasks()
            .iter()
            .find(|t| t.kind == kind)
            .expect("every kind has tasks")
            .clone();
        group.bench_function(kind, |bench| {
            bench.iter(|| {
                for answer in ANSWERS {
                    black_box(verifier.grade(&task, black_box(answer)));
                }
            })
        });
    }
    group.finish();
    criterion.final_summary();
}
