//! Writes a synthetic workload for timing `evogate score` with the `numeric`, `choice`
//! or `short` verifier on N outputs (10^6 by default): `truth.csv` (one task a row, as
//! these verifiers have it), `tasks.csv` and `outputs.jsonl` (one answer a task,
//! phrased as models phrase them: right in several forms, hedged, wrong, evasive and
//! worked solutions), from one ChaCha20 stream so the files never change.
//!
//! Run: `cargo run --release --example answer_workload -- VERIFIER DIR [N]`, then
//! `evogate score --verifier VERIFIER --truth DIR/truth.csv --tasks DIR/tasks.csv
//! --outputs DIR/outputs.jsonl --out DIR/scores.csv`.

mod common;
use common::{Stream, fill};

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context, bail};

/// The seed of the stream.
const SEED: u64 = 31;

const NOUNS: [&str; 8] = [
    "apples", "eggs", "marbles", "tickets", "books", "cookies", "stamps", "pencils",
];
const WORDS: [&str; 16] = [
    "river", "mountain", "treaty", "sonnet", "enzyme", "planet", "harbour", "glacier", "comet",
    "violin", "castle", "desert", "lantern", "orchid", "falcon", "meadow",
];

/// One numeric task: its answer and an output.
fn numeric(rng: &mut Stream) -> (String, String) {
    // Half the answers below 1,000 (AIME's range), the rest up to 10^5 (GSM8K's).
    let gold = if rng.unit() < 0.5 {
        rng.below(1000)
    } else {
        1 + rng.below(99_999)
    };
    let (a, b) = (2 + rng.below(30), 2 + rng.below(12));
    let noun = rng.pick(&NOUNS);
    let working = format!(
        "We buy {a} packs of {b} {noun}, so {a} * {b} = <<{a}*{b}={}>>{} {noun}.",
        a * b,
        a * b
    );
    let other = gold + 1 + rng.below(9);
    let output = match rng.below(8) {
        0 => format!("{working}\n#### {gold}"),
        1 => format!("{working}\nThe answer is {gold}."),
        2 => format!("{working}\nTherefore, the final answer is $\\boxed{{{gold}}}$."),
        3 => format!("{working}\n#### {gold} {other}"),
        4 => format!("{working}\nSo there are {other} {noun} left."),
        5 => "I would need more information to solve this with confidence.".to_string(),
        6 => format!("Answer: {}", format_thousands(gold)),
        _ => format!("It is {other} or {gold}."),
    };
    (gold.to_string(), output)
}

fn format_thousands(value: usize) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// One choice task: its answer letter, options and an output.
fn choice(rng: &mut Stream) -> (String, String, String) {
    let letters = "ABCD";
    let options: Vec<String> = (0..4)
        .map(|k| format!("{} {} {k}", rng.pick(&WORDS), rng.pick(&WORDS)))
        .collect();
    let right = rng.below(4);
    let wrong = (right + 1 + rng.below(3)) % 4;
    let (r, w) = (&letters[right..=right], &letters[wrong..=wrong]);
    let output = match rng.below(8) {
        0 => r.to_string(),
        1 => format!("Let me consider each option in turn.\n\nANSWER: {r}"),
        2 => format!("The answer is ({r}) {}.", options[right]),
        3 => format!("The answer is {r} or {w}."),
        4 => "A, B, C or D: each has something going for it.".to_string(),
        5 => format!("ANSWER: {w}"),
        6 => options[right].clone(),
        _ => "It depends on the context; I cannot choose.".to_string(),
    };
    (r.to_string(), options.join("|"), output)
}

/// One short-answer task: its aliases and an output.
fn short(rng: &mut Stream) -> (String, String) {
    let gold = format!("{} {}", rng.pick(&WORDS), rng.pick(&WORDS));
    let alias = format!("the {gold}");
    let other = format!("{} {}", rng.pick(&WORDS), rng.pick(&WORDS));
    let output = match rng.below(8) {
        0 => gold.clone(),
        1 => format!("The answer is {gold}."),
        2 => format!("{gold} or {other}"),
        3 => other,
        4 => "I don't know.".to_string(),
        5 => format!("Answer: {alias}"),
        6 => gold.split(' ').next().unwrap_or_default().to_string(),
        _ => fill(
            "{filler}{filler}{filler}{filler}{gold}",
            &[
                (
                    "{filler}",
                    "Sources differ on this and many details matter. ",
                ),
                ("{gold}", &gold),
            ],
        ),
    };
    (format!("{gold}|{alias}"), output)
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (verifier, dir) = match args.as_slice() {
        [verifier, dir, ..] => (verifier.as_str(), PathBuf::from(dir)),
        _ => bail!("usage: answer_workload numeric|choice|short DIR [N]"),
    };
    let n: usize = args.get(2).map_or(Ok(1_000_000), |s| s.parse())?;
    let mut rng = Stream::new(SEED);
    let mut truth = String::from(if verifier == "choice" {
        "group,kind,question,answer,options\n"
    } else {
        "group,kind,question,answer\n"
    });
    let mut tasks = String::from("task_id,group,kind,prompt\n");
    let mut outputs = String::new();
    for i in 0..n {
        let group = format!("t{i}");
        let (answer, output) = match verifier {
            "numeric" => numeric(&mut rng),
            "choice" => {
                let (letter, options, output) = choice(&mut rng);
                (format!("{letter},{options}"), output)
            }
            "short" => short(&mut rng),
            _ => bail!("no workload for verifier `{verifier}`; use numeric, choice or short"),
        };
        writeln!(truth, "{group},{verifier},Question {i}?,{answer}")?;
        writeln!(tasks, "{group}:{verifier},{group},{verifier},Question {i}?")?;
        let line =
            serde_json::json!({ "task_id": format!("{group}:{verifier}"), "output": output });
        writeln!(outputs, "{line}")?;
    }
    std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
    for (name, text) in [
        ("truth.csv", truth),
        ("tasks.csv", tasks),
        ("outputs.jsonl", outputs),
    ] {
        std::fs::write(dir.join(name), text).with_context(|| name.to_string())?;
    }
    Ok(())
}
