//! Writes `data/demo/{baseline,candidate,regressing}.jsonl`: three skills' answers to
//! the demo's holdout tasks (`split --cases all --seed 13` of `data/arxiv/papers.csv`),
//! written to read like a real model's, from one ChaCha20 stream so the files never
//! change. Run from the repository root: `cargo run --example demo_data`.
//!
//! - `baseline`: answers from memory. Mostly right on IDs, titles and authors, with
//!   hedges, wrong IDs and evasions; it guesses years and is right about a third of
//!   the time.
//! - `candidate`: the same model with a skill that teaches the arXiv ID format (`YYMM`
//!   is the submission year and month), so it reads years from the ID; on the other
//!   kinds it mostly gives what the baseline gave, in its own words.
//! - `regressing`: reads years from the ID too, but its skill also tells it to credit
//!   "the authors", so it hedges between names or drops the first author.

mod common;
use common::{Stream, fill};

use std::fmt::Write as _;

use evogate::split::{Cases, SplitRequest, build_splits};
use evogate::verify::arxiv::truth::{Paper, load_papers};

/// The seed of the answer stream.
const SEED: u64 = 2026;

/// What an answer does, as the verifier will see it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    Right,
    Hedge,
    Wrong,
    Evade,
}

/// Probabilities of right, hedge, wrong (evade is the rest).
type Mix = [f64; 3];

impl Stream {
    fn act(&mut self, mix: Mix) -> Act {
        let u = self.unit();
        if u < mix[0] {
            Act::Right
        } else if u < mix[0] + mix[1] {
            Act::Hedge
        } else if u < mix[0] + mix[1] + mix[2] {
            Act::Wrong
        } else {
            Act::Evade
        }
    }

    /// Another paper than `index`.
    fn other<'a>(&mut self, papers: &'a [Paper], index: usize) -> &'a Paper {
        let offset = 1 + self.below(papers.len() - 1);
        &papers[(index + offset) % papers.len()]
    }
}

/// A confidently wrong ID: the same month with other digits.
fn near_miss(stream: &mut Stream, id: &str) -> String {
    let (prefix, digits) = id.split_once('.').unwrap_or((id, "0000"));
    let width = digits.len();
    let number: u64 = digits.parse().unwrap_or(0);
    let shifted = (number + 1 + stream.below(900) as u64) % 10u64.pow(width as u32);
    format!("{prefix}.{shifted:0width$}")
}

fn answer_id(s: &mut Stream, act: Act, papers: &[Paper], i: usize) -> String {
    let p = &papers[i];
    let other = s.other(papers, i);
    let text = match act {
        Act::Right => s.pick(&[
            "The arXiv ID is {id}.",
            "That's arXiv:{id}.",
            "You can find it at https://arxiv.org/abs/{id}v1",
            "I believe the paper is {id} on arXiv.",
            "**{id}**",
            "Sure! \"{title}\" is arXiv {id}.",
        ]),
        Act::Hedge => s.pick(&[
            "It is either {id} or {other_id}, I'm not completely sure which.",
            "Possibly {other_id}; it might also be {id}.",
        ]),
        Act::Wrong => {
            let wrong = if s.below(2) == 0 {
                near_miss(s, &p.arxiv_id)
            } else {
                other.arxiv_id.clone()
            };
            let template = s.pick(&["The arXiv ID is {wrong}.", "It's arXiv:{wrong}.", "{wrong}"]);
            return fill(template, &[("{wrong}", &wrong)]);
        }
        Act::Evade => s.pick(&[
            "I don't have browsing access, so I can't look up arXiv identifiers.",
            "Sorry, I can't verify that without searching arXiv.",
            "That is a well-known paper, but I do not remember its identifier.",
        ]),
    };
    fill(
        text,
        &[
            ("{id}", &p.arxiv_id),
            ("{other_id}", &other.arxiv_id),
            ("{title}", &p.title),
        ],
    )
}

fn answer_title(s: &mut Stream, act: Act, papers: &[Paper], i: usize) -> String {
    let p = &papers[i];
    let other = s.other(papers, i);
    let words: Vec<&str> = p.title.split_whitespace().collect();
    let text = match act {
        Act::Right => s.pick(&[
            "The title is \"{title}\".",
            "{title}",
            "It's called *{title}*.",
            "arXiv {id} is \"{title}\" by {author}.",
        ]),
        // A title that is partly remembered earns partial credit, never `correct`.
        Act::Hedge if words.len() >= 4 => {
            let kept = words[..words.len() * 2 / 3 + 1].join(" ");
            return format!("Something like \"{kept} ...\", I don't remember the rest.");
        }
        Act::Hedge => "Either \"{title}\" or \"{other_title}\".",
        Act::Wrong => s.pick(&[
            "The title is \"{other_title}\".",
            "I think it's \"{other_title}\".",
        ]),
        Act::Evade => s.pick(&[
            "I'm not certain of the exact title.",
            "I can't recall the exact wording of that title.",
        ]),
    };
    fill(
        text,
        &[
            ("{title}", &p.title),
            ("{other_title}", &other.title),
            ("{id}", &p.arxiv_id),
            ("{author}", &p.first_author),
        ],
    )
}

fn answer_author(s: &mut Stream, act: Act, papers: &[Paper], i: usize) -> String {
    let p = &papers[i];
    let other = s.other(papers, i);
    let text = match act {
        Act::Right => s.pick(&[
            "The first author is {author}.",
            "{author} et al.",
            "It was led by {author}.",
            "{author} is listed first.",
        ]),
        Act::Hedge => s.pick(&[
            "Either {author} or {other} is listed first.",
            "The authors include {other} and {author}; I'd credit the authors jointly.",
        ]),
        Act::Wrong => s.pick(&["The first author is {other}.", "{other} et al."]),
        Act::Evade => s.pick(&[
            "The paper has many authors; I don't recall who is listed first.",
            "I'd rather not guess the author order.",
        ]),
    };
    fill(
        text,
        &[
            ("{author}", &p.first_author),
            ("{other}", &other.first_author),
        ],
    )
}

fn answer_year(s: &mut Stream, act: Act, reads_id: bool, paper: &Paper) -> String {
    let year = paper.year.to_string();
    let off = [-2i32, -1, 1, 2][s.below(4)];
    let wrong = (i32::from(paper.year) + off).to_string();
    let text = match (act, reads_id) {
        (Act::Right, true) => s.pick(&[
            "The identifier {id} starts with the year and month of submission, so {year}.",
            "{year}: new-style arXiv IDs begin with YYMM.",
            "It was first submitted in {year} (read from the ID prefix).",
        ]),
        (Act::Right, false) => s.pick(&[
            "It was first submitted in {year}.",
            "{year}.",
            "I think {year}.",
            "Around {year}, if I remember correctly.",
        ]),
        (Act::Hedge, _) => "Either {year} or {wrong}.",
        (Act::Wrong, true) => "The prefix suggests {wrong}.",
        (Act::Wrong, false) => s.pick(&[
            "It was first submitted in {wrong}.",
            "{wrong}.",
            "Probably {wrong}.",
            "I believe it came out in {wrong}.",
        ]),
        (Act::Evade, _) => s.pick(&[
            "I can't tell the submission year without checking arXiv.",
            "Hard to say; it has had several revisions.",
        ]),
    };
    fill(
        text,
        &[
            ("{year}", &year),
            ("{wrong}", &wrong),
            ("{id}", &paper.arxiv_id),
        ],
    )
}

/// The baseline's mix for each kind, in task-kind order.
const BASELINE: [Mix; 4] = [
    [0.66, 0.08, 0.18],
    [0.72, 0.08, 0.12],
    [0.70, 0.08, 0.14],
    [0.32, 0.06, 0.56],
];

/// The chance that the candidate's answer does what the baseline's did on the kinds
/// its skill did not change.
const SAME_ACT: f64 = 0.9;

fn main() -> anyhow::Result<()> {
    let truth = std::fs::read("data/arxiv/papers.csv")?;
    let papers = load_papers("data/arxiv/papers.csv", truth.as_slice())?;
    let verifier = evogate::verify::build("arxiv", "data/arxiv/papers.csv", truth.as_slice())?;
    let request = SplitRequest {
        seed: 13,
        ratios: [50, 25, 25],
        cases: Cases::All,
    };
    let splits = build_splits(&verifier.tasks(), &request)?;
    let mut stream = Stream::new(SEED);
    let mut files = [String::new(), String::new(), String::new()];
    for task in &splits.parts[2] {
        let index = papers
            .iter()
            .position(|p| p.arxiv_id == task.group)
            .ok_or_else(|| anyhow::anyhow!("task {} has no paper", task.task_id))?;
        let kind = ["id", "title", "first_author", "year"]
            .iter()
            .position(|k| *k == task.kind)
            .unwrap_or(3);
        let s = &mut stream;
        let base_act = s.act(BASELINE[kind]);
        let sticky = |s: &mut Stream| {
            if s.unit() < SAME_ACT {
                base_act
            } else {
                s.act(BASELINE[kind])
            }
        };
        let acts = match kind {
            3 => [base_act, s.act([0.94, 0.0, 0.04]), s.act([0.94, 0.0, 0.04])],
            2 => {
                let candidate = sticky(s);
                let keeps = if base_act == Act::Right { 0.4 } else { 0.1 };
                let regressing = if s.unit() < keeps {
                    Act::Right
                } else {
                    [Act::Hedge, Act::Hedge, Act::Wrong, Act::Evade][s.below(4)]
                };
                [base_act, candidate, regressing]
            }
            _ => [base_act, sticky(s), sticky(s)],
        };
        for (arm, act) in acts.into_iter().enumerate() {
            let text = match kind {
                0 => answer_id(s, act, &papers, index),
                1 => answer_title(s, act, &papers, index),
                2 => answer_author(s, act, &papers, index),
                _ => answer_year(s, act, arm > 0, &papers[index]),
            };
            let _ = writeln!(
                files[arm],
                "{{\"task_id\":{},\"output\":{}}}",
                serde_json::Value::from(task.task_id.as_str()),
                serde_json::Value::from(text)
            );
        }
    }
    std::fs::create_dir_all("data/demo")?;
    for (name, text) in ["baseline", "candidate", "regressing"].iter().zip(&files) {
        std::fs::write(format!("data/demo/{name}.jsonl"), text)?;
    }
    Ok(())
}
