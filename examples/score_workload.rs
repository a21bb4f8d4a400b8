//! Writes a synthetic workload for timing `evogate score` on a million outputs:
//! `truth.csv` (250,000 made-up papers by default), `tasks.csv` (all four tasks of each,
//! 10^6 rows) and `outputs.jsonl` (one answer a task, phrased like `data/demo/`'s:
//! right, hedged, wrong and evasive), from one ChaCha20 stream so the files never
//! change. A task id is `<arxiv_id>:<kind>` and must be unique in a tasks file, so a
//! million outputs need a truth of 250,000 papers; the shipped 136 are not enough.
//!
//! Run: `cargo run --release --example score_workload -- DIR [PAPERS [KINDS]]`, where
//! KINDS is a comma-separated subset of `id,title,first_author,year` (default all),
//! then `evogate score --truth DIR/truth.csv --tasks DIR/tasks.csv --outputs
//! DIR/outputs.jsonl --out DIR/scores.csv`.

mod common;
use common::{Stream, fill};

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;

use evogate::base::csv::{Cell, CsvWriter};
use evogate::task::TASK_COLUMNS;
use evogate::verify::arxiv::truth::{Paper, load_papers};
use evogate::verify::normalize::normalize;

/// The seed of the stream that makes papers and answers.
const SEED: u64 = 6;

const ADJECTIVES: [&str; 48] = [
    "Deep",
    "Efficient",
    "Scalable",
    "Robust",
    "Sparse",
    "Neural",
    "Contrastive",
    "Generative",
    "Adversarial",
    "Recurrent",
    "Convolutional",
    "Hierarchical",
    "Unsupervised",
    "Self-Supervised",
    "Semi-Supervised",
    "Multi-Task",
    "Few-Shot",
    "Zero-Shot",
    "Bayesian",
    "Variational",
    "Probabilistic",
    "Differentiable",
    "Latent",
    "Causal",
    "Federated",
    "Distributed",
    "Adaptive",
    "Stochastic",
    "Implicit",
    "Equivariant",
    "Graph",
    "Masked",
    "Autoregressive",
    "Large-Scale",
    "Low-Rank",
    "Continual",
    "Multimodal",
    "Interpretable",
    "Fast",
    "Provable",
    "Universal",
    "Conditional",
    "Residual",
    "Dense",
    "Temporal",
    "Spectral",
    "Gated",
    "Lightweight",
];

const NOUNS: [&str; 64] = [
    "Networks",
    "Transformers",
    "Representations",
    "Embeddings",
    "Attention",
    "Learning",
    "Models",
    "Optimization",
    "Inference",
    "Generalization",
    "Distillation",
    "Retrieval",
    "Segmentation",
    "Detection",
    "Recognition",
    "Translation",
    "Reasoning",
    "Planning",
    "Control",
    "Exploration",
    "Policies",
    "Agents",
    "Diffusion",
    "Autoencoders",
    "Flows",
    "Priors",
    "Kernels",
    "Features",
    "Graphs",
    "Language",
    "Vision",
    "Speech",
    "Images",
    "Video",
    "Code",
    "Proteins",
    "Molecules",
    "Robots",
    "Games",
    "Dialogue",
    "Summarization",
    "Classification",
    "Regression",
    "Clustering",
    "Compression",
    "Pruning",
    "Quantization",
    "Alignment",
    "Calibration",
    "Uncertainty",
    "Robustness",
    "Memory",
    "Search",
    "Sampling",
    "Tokenization",
    "Pretraining",
    "Fine-Tuning",
    "Benchmarks",
    "Datasets",
    "Scaling",
    "Gradients",
    "Estimation",
    "Synthesis",
    "Understanding",
];

const GIVEN: [&str; 40] = [
    "Ashish",
    "Jacob",
    "Kaiming",
    "Ian",
    "Diederik",
    "Alec",
    "Tom",
    "Colin",
    "Yann",
    "Geoffrey",
    "Yoshua",
    "Ilya",
    "Oriol",
    "Alex",
    "Sergey",
    "Tsung-Yi",
    "Jia-Bin",
    "Chen",
    "Wei",
    "Mei",
    "Priya",
    "Aarohi",
    "Maxime",
    "Zoë",
    "José",
    "Łukasz",
    "Jürgen",
    "Noam",
    "Hugo",
    "Mark",
    "Susan",
    "Xiangning",
    "Yuxin",
    "Dmitry",
    "Kyunghyun",
    "Emma",
    "Olga",
    "Ahmed",
    "Fatima",
    "Sanjay",
];

/// Syllables of made-up surnames: 30 × 20 × 20 × 20 = 240,000 of them, so a surname
/// is shared by about one paper in the default truth, as in the shipped one (with a
/// few dozen surnames, `It was led by Ian Wang.` would name every known Wang).
const SURNAME_START: [&str; 30] = [
    "Ka", "To", "Mi", "Se", "Ra", "Lu", "Ne", "Vo", "Di", "Ha", "Yo", "Be", "Fa", "Gu", "Ji", "Ko",
    "Pe", "Ri", "Su", "Wa", "Zhe", "Qi", "Xu", "Mo", "Ta", "No", "Si", "Ve", "Le", "Cha",
];
const SURNAME_MIDDLE: [&str; 20] = [
    "ra", "no", "vi", "ke", "lo", "mu", "si", "ta", "be", "do", "ri", "ga", "ne", "pu", "sho",
    "ya", "zo", "fi", "ki", "mé",
];
const SURNAME_END: [&str; 20] = [
    "vski", "son", "mura", "ez", "ini", "ov", "berg", "mann", "ton", "ski", "ek", "ura", "ani",
    "elli", "sen", "ova", "ard", "ley", "wicz", "ić",
];

/// Particles put before some surnames (`van den Oord`).
const PARTICLES: [&str; 4] = ["van", "van den", "de", "von"];

/// Probabilities of a right, hedged and wrong answer (evasive is the rest), per kind
/// in task order: the demo baseline's mix.
const MIX: [[f64; 3]; 4] = [
    [0.66, 0.08, 0.18],
    [0.72, 0.08, 0.12],
    [0.70, 0.08, 0.14],
    [0.32, 0.06, 0.56],
];

const KINDS: [&str; 4] = ["id", "title", "first_author", "year"];

/// A made-up title in one of a few shapes real titles take.
fn title(s: &mut Stream) -> String {
    let a = |s: &mut Stream| s.pick(&ADJECTIVES).to_string();
    let n = |s: &mut Stream| s.pick(&NOUNS).to_string();
    match s.below(5) {
        0 => format!("{} {} for {} {}", a(s), n(s), a(s), n(s)),
        1 => {
            let acronym: String = (0..3 + s.below(3))
                .map(|_| char::from(b'A' + s.below(26) as u8))
                .collect();
            format!("{acronym}: {} {} of {} {}", a(s), n(s), a(s), n(s))
        }
        2 => format!("Learning {} {} with {} {}", a(s), n(s), a(s), n(s)),
        3 => format!("On the {} of {} {} in {}", n(s), a(s), n(s), n(s)),
        _ => format!("Towards {} {} {} and {}", a(s), a(s), n(s), n(s)),
    }
}

fn author(s: &mut Stream) -> String {
    let mut name = s.pick(&GIVEN).to_string();
    if s.below(5) == 0 {
        name.push_str(&format!(" {}.", char::from(b'A' + s.below(26) as u8)));
    }
    if s.below(12) == 0 {
        name.push(' ');
        name.push_str(s.pick(&PARTICLES));
    }
    name.push(' ');
    name.push_str(s.pick(&SURNAME_START));
    name.push_str(s.pick(&SURNAME_MIDDLE));
    name.push_str(s.pick(&SURNAME_MIDDLE));
    name.push_str(s.pick(&SURNAME_END));
    name
}

/// `count` papers with distinct new-style IDs (2015–2024) and distinct titles.
fn papers(s: &mut Stream, count: usize) -> Vec<Paper> {
    let mut titles = HashSet::new();
    (0..count)
        .map(|k| {
            let month = k % 120;
            let year = 15 + month / 12;
            let arxiv_id = format!("{year:02}{:02}.{:05}", month % 12 + 1, k / 120 + 1);
            let title = loop {
                let candidate = title(s);
                if titles.insert(normalize(&candidate)) {
                    break candidate;
                }
            };
            Paper {
                arxiv_id,
                title,
                first_author: author(s),
                year: 2000 + year as u16,
            }
        })
        .collect()
}

/// One answer to the task of kind `kind` about paper `i`.
fn answer(s: &mut Stream, papers: &[Paper], i: usize, kind: usize) -> String {
    let p = &papers[i];
    let other = &papers[(i + 1 + s.below(papers.len() - 1)) % papers.len()];
    let u = s.unit();
    let [right, hedge, wrong] = MIX[kind];
    let act = if u < right {
        0
    } else if u < right + hedge {
        1
    } else if u < right + hedge + wrong {
        2
    } else {
        3
    };
    let templates: &[&str] = match (kind, act) {
        (0, 0) => &[
            "The arXiv ID is {id}.",
            "That's arXiv:{id}.",
            "You can find it at https://arxiv.org/abs/{id}v1",
            "I believe the paper is {id} on arXiv.",
            "**{id}**",
            "Sure! \"{title}\" is arXiv {id}.",
        ],
        (0, 1) => &[
            "It is either {id} or {other_id}, I'm not completely sure which.",
            "Possibly {other_id}; it might also be {id}.",
        ],
        (0, 2) => &[
            "The arXiv ID is {other_id}.",
            "It's arXiv:{other_id}.",
            "{other_id}",
        ],
        (0, _) => &[
            "I don't have browsing access, so I can't look up arXiv identifiers.",
            "That is a well-known paper, but I do not remember its identifier.",
        ],
        (1, 0) => &[
            "The title is \"{title}\".",
            "{title}",
            "It's called *{title}*.",
            "arXiv {id} is \"{title}\" by {author}.",
        ],
        (1, 1) => &[
            "Either \"{title}\" or \"{other_title}\".",
            "Something like \"{half}\", I don't remember the rest.",
        ],
        (1, 2) => &[
            "The title is \"{other_title}\".",
            "I think it's \"{other_title}\".",
        ],
        (1, _) => &[
            "I'm not certain of the exact title.",
            "I can't recall the exact wording of that title.",
        ],
        (2, 0) => &[
            "The first author is {author}.",
            "{author} et al.",
            "It was led by {author}.",
            "{author} is listed first.",
        ],
        (2, 1) => &[
            "Either {author} or {other_author} is listed first.",
            "The authors include {other_author} and {author}; I'd credit the authors jointly.",
        ],
        (2, 2) => &[
            "The first author is {other_author}.",
            "{other_author} et al.",
        ],
        (2, _) => &[
            "The paper has many authors; I don't recall who is listed first.",
            "I'd rather not guess the author order.",
        ],
        (_, 0) => &[
            "It was first submitted in {year}.",
            "{year}.",
            "The identifier {id} starts with the year and month of submission, so {year}.",
            "Around {year}, if I remember correctly.",
        ],
        (_, 1) => &["Either {year} or {wrong_year}."],
        (_, 2) => &[
            "It was first submitted in {wrong_year}.",
            "Probably {wrong_year}.",
        ],
        (_, _) => &["I can't tell the submission year without checking arXiv."],
    };
    let words: Vec<&str> = p.title.split_whitespace().collect();
    let half = words[..words.len() / 2 + 1].join(" ");
    let year = p.year.to_string();
    let wrong_year = (p.year + 1 + s.below(2) as u16).to_string();
    let template = s.pick(templates);
    fill(
        template,
        &[
            ("{id}", &p.arxiv_id),
            ("{other_id}", &other.arxiv_id),
            ("{title}", &p.title),
            ("{other_title}", &other.title),
            ("{half}", &half),
            ("{author}", &p.first_author),
            ("{other_author}", &other.first_author),
            ("{year}", &year),
            ("{wrong_year}", &wrong_year),
        ],
    )
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .ok_or_else(|| anyhow::anyhow!("usage: score_workload DIR [PAPERS [KINDS]]"))?,
    );
    let count: usize = args.next().map_or(Ok(250_000), |n| n.parse())?;
    let kinds: Vec<usize> = match args.next() {
        None => (0..4).collect(),
        Some(list) => list
            .split(',')
            .map(|k| {
                KINDS
                    .iter()
                    .position(|known| *known == k)
                    .ok_or_else(|| anyhow::anyhow!("unknown kind `{k}`"))
            })
            .collect::<Result<_, _>>()?,
    };
    let mut stream = Stream::new(SEED);
    let papers = papers(&mut stream, count);
    let mut truth = CsvWriter::new();
    truth.header(&["arxiv_id", "title", "first_author", "year"]);
    for p in &papers {
        let year = p.year.to_string();
        truth.row(&[
            Cell::Text(&p.arxiv_id),
            Cell::Text(&p.title),
            Cell::Text(&p.first_author),
            Cell::Trusted(&year),
        ]);
    }
    let truth = truth.finish();
    // Check the truth as `score` will, so a bad generator fails here.
    load_papers("truth.csv", truth.as_bytes())?;
    let mut tasks = CsvWriter::new();
    tasks.header(&TASK_COLUMNS);
    let mut outputs = String::new();
    for (i, p) in papers.iter().enumerate() {
        for &kind in &kinds {
            let task_id = format!("{}:{}", p.arxiv_id, KINDS[kind]);
            let prompt = evogate::verify::arxiv::prompt(p, KINDS[kind]);
            tasks.row(&[
                Cell::Text(&task_id),
                Cell::Text(&p.arxiv_id),
                Cell::Text(KINDS[kind]),
                Cell::Text(&prompt),
            ]);
            let text = answer(&mut stream, &papers, i, kind);
            writeln!(
                outputs,
                "{{\"task_id\":{},\"output\":{}}}",
                serde_json::Value::from(task_id.as_str()),
                serde_json::Value::from(text)
            )?;
        }
    }
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("truth.csv"), truth)?;
    std::fs::write(dir.join("tasks.csv"), tasks.finish())?;
    std::fs::write(dir.join("outputs.jsonl"), outputs)?;
    Ok(())
}
