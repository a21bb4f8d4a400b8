//! Benchmark of the arxiv verifier's grading on answers that read like a model's: one
//! task kind at a time, then a mixed workload of every answer in `data/demo/` (all four
//! kinds, right, hedged, wrong and evasive, as the demo's three skills wrote them). Run
//! with `cargo bench --bench grade`; the figure to compare with the 500,000 outputs per
//! second goal is the reciprocal of the time per grade.

use criterion::{Criterion, Throughput};
use evogate::outputs::parse_outputs;
use evogate::verify::Verifier;
use evogate::verify::arxiv::ArxivVerifier;
use evogate::verify::arxiv::truth::load_papers;
use std::hint::black_box;

const ANSWERS: [&str; 5] = [
    "The paper is arXiv 1706.03762.",
    "It was written by Ashish Vaswani et al. in 2017.",
    "The exact title is \"Attention Is All You Need\".",
    "I believe it was first submitted in 2016, see arXiv:1706.03762v5.",
    "Great question! I am not sure.",
];

/// The demo's three answer files: 408 outputs over 136 tasks of every kind.
const DEMO: [&[u8]; 3] = [
    include_bytes!("../data/demo/baseline.jsonl"),
    include_bytes!("../data/demo/candidate.jsonl"),
    include_bytes!("../data/demo/regressing.jsonl"),
];

/// Every demo output with the task it answers.
fn demo_workload(verifier: &ArxivVerifier) -> Vec<(usize, String)> {
    let mut workload = Vec::new();
    for bytes in DEMO {
        for output in parse_outputs("demo.jsonl", bytes).expect("the demo outputs parse") {
            let task = verifier
                .find_task(&output.task_id)
                .expect("every demo output answers a known task");
            workload.push((task, output.output));
        }
    }
    workload
}

fn main() {
    let bytes = include_bytes!("../data/arxiv/papers.csv");
    let verifier = ArxivVerifier::new(
        load_papers("papers.csv", &bytes[..]).expect("the shipped truth is clean"),
    );
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("grade");
    group.throughput(Throughput::Elements(ANSWERS.len() as u64));
    for kind in ["id", "title", "first_author", "year"] {
        let task = (0..verifier.task_count())
            .find(|&index| verifier.task_names(index).1 == kind)
            .expect("every kind has tasks");
        group.bench_function(kind, |bench| {
            bench.iter(|| {
                for answer in ANSWERS {
                    black_box(verifier.grade(task, black_box(answer)));
                }
            })
        });
    }
    let workload = demo_workload(&verifier);
    group.throughput(Throughput::Elements(workload.len() as u64));
    group.bench_function("mixed", |bench| {
        bench.iter(|| {
            for (task, answer) in &workload {
                black_box(verifier.grade(*task, black_box(answer)));
            }
        })
    });
    group.finish();
    criterion.final_summary();
}
