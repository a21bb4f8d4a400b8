//! `evogate split`: build leak-free splits and their manifest, or (`--check`) audit
//! split files made by any tool.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{Outcome, Status, read_table};
use crate::atomic::{Output, ensure_dir, write_all};
use crate::cli::SplitArgs;
use crate::csvout::{Cell, CsvWriter};
use crate::digest::sha256_hex;
use crate::split::hermes::Compat;
use crate::split::manifest::{FileDigest, HoldoutPower, MANIFEST_SCHEMA, Manifest, SplitEntry};
use crate::split::{Cases, SPLIT_NAMES, SplitRequest, Splits, build_splits, find_leaks};
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::task::{TASK_COLUMNS, Task};
use crate::verify;

/// Runs `split`.
pub fn run(args: SplitArgs) -> anyhow::Result<Outcome> {
    if let Some(files) = &args.check {
        return check(files);
    }
    let (Some(truth_path), Some(out)) = (&args.truth, &args.out) else {
        bail!("give --truth FILE and --out DIR, or --check DIR");
    };
    let request = SplitRequest {
        seed: args.seed,
        ratios: parse_ratios(&args.ratios)?,
        cases: parse_cases(&args.cases)?,
    };
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        bail!(
            "--alpha {} is outside (0, 1): use a level such as 0.05",
            args.alpha
        );
    }
    let truth_bytes = super::read_file(truth_path)?;
    let truth = crate::table::Table::parse(&truth_path.display().to_string(), &truth_bytes)?;
    let verifier = verify::build(&args.verifier, &truth)?;
    let (splits, algorithm) = match args.compat.as_deref() {
        None => (
            build_splits(verifier.tasks(), &request)?,
            "evogate".to_string(),
        ),
        Some(name) => (
            compat_splits(name, verifier.tasks(), &request)?,
            name.to_string(),
        ),
    };
    let files: Vec<String> = splits.parts.iter().map(|part| tasks_csv(part)).collect();
    let manifest = Manifest {
        schema: MANIFEST_SCHEMA.to_string(),
        verifier: args.verifier.clone(),
        truth: FileDigest {
            path: truth_path.display().to_string(),
            sha256: sha256_hex(&truth_bytes),
        },
        seed: request.seed,
        ratios: request.ratios,
        cases: args.cases.trim().to_string(),
        algorithm,
        splits: entries(&splits, &files),
        holdout_power: holdout_power(splits.parts[2].len(), args.alpha)?,
    };
    ensure_dir(out)?;
    let mut outputs: Vec<Output> = SPLIT_NAMES
        .iter()
        .zip(&files)
        .map(|(name, csv)| Output::new(out.join(format!("{name}.csv")), csv.as_bytes()))
        .collect();
    let mut json = serde_json::to_string_pretty(&manifest)?;
    json.push('\n');
    outputs.push(Output::new(out.join("manifest.json"), json));
    write_all(&outputs)?;
    let mut outcome = Outcome::new(Status::Success, summary(&manifest, out));
    let leaks = find_leaks(&splits.named());
    if !leaks.is_empty() {
        outcome.notes.push(format!(
            "this rebuilt split leaks ({} leak{}, e.g. {}); `evogate split --check {}` lists them",
            leaks.len(),
            if leaks.len() == 1 { "" } else { "s" },
            leaks[0],
            out.display()
        ));
    }
    Ok(outcome)
}

/// The split an earlier tool built, as evogate tasks in that tool's order.
fn compat_splits(name: &str, tasks: &[Task], request: &SplitRequest) -> anyhow::Result<Splits> {
    let Cases::Exactly(cases) = request.cases else {
        bail!(
            "--compat {name} needs --cases N (the reference pipeline always sampled a number of cases)"
        );
    };
    if request.ratios != [50, 25, 25] {
        bail!("--compat {name} uses the reference's fixed 50/25/25 split: drop --ratios");
    }
    let compat = if name == "hermes" {
        Compat::Hermes
    } else {
        Compat::HermesV1
    };
    let mut papers: Vec<String> = Vec::new();
    for task in tasks {
        if !papers.contains(&task.group) {
            papers.push(task.group.clone());
        }
    }
    let rebuilt = compat.split(&papers, request.seed, cases)?;
    let find = |(paper, kind): &(String, String)| {
        tasks
            .iter()
            .find(|t| &t.group == paper && &t.kind == kind)
            .cloned()
            .ok_or_else(|| anyhow::anyhow!("--compat {name} works with the arxiv verifier only"))
    };
    let part =
        |list: &[(String, String)]| list.iter().map(find).collect::<anyhow::Result<Vec<_>>>();
    Ok(Splits {
        parts: [
            part(&rebuilt.train)?,
            part(&rebuilt.validation)?,
            part(&rebuilt.holdout)?,
        ],
    })
}

fn entries(splits: &Splits, files: &[String]) -> Vec<SplitEntry> {
    let groups = splits.groups();
    (0..3)
        .map(|i| SplitEntry {
            name: SPLIT_NAMES[i].to_string(),
            file: FileDigest {
                path: format!("{}.csv", SPLIT_NAMES[i]),
                sha256: sha256_hex(files[i].as_bytes()),
            },
            tasks: splits.parts[i].len(),
            groups: groups[i].clone(),
            task_ids: splits.parts[i].iter().map(|t| t.task_id.clone()).collect(),
        })
        .collect()
}

fn holdout_power(n: usize, alpha: f64) -> anyhow::Result<HoldoutPower> {
    let Some(k) = min_discordant(alpha) else {
        bail!("--alpha {alpha} is outside (0, 1): use a level such as 0.05");
    };
    Ok(HoldoutPower {
        alpha,
        n,
        min_discordant: k,
        min_detectable_shift: min_detectable_shift(n as u64, alpha),
    })
}

fn summary(manifest: &Manifest, out: &Path) -> String {
    let mut text = String::new();
    for entry in &manifest.splits {
        text.push_str(&format!(
            "{:<8} {:>5} tasks from {:>4} groups\n",
            entry.name,
            entry.tasks,
            entry.groups.len()
        ));
    }
    let power = &manifest.holdout_power;
    text.push_str(&match power.min_detectable_shift {
        Some(shift) => format!(
            "holdout minimum detectable shift at alpha {}: {}/{} = {:.1}% (the best case: every disagreement one way)\n",
            power.alpha, power.min_discordant, power.n, shift * 100.0
        ),
        None => format!(
            "holdout of {} tasks cannot detect any shift at alpha {}: it needs at least {} tasks\n",
            power.n, power.alpha, power.min_discordant
        ),
    });
    text.push_str(&format!(
        "wrote train.csv, val.csv, holdout.csv, manifest.json to {}\n",
        out.display()
    ));
    text
}

/// The tasks CSV of one split.
pub fn tasks_csv(tasks: &[Task]) -> String {
    let mut csv = CsvWriter::new();
    csv.header(&TASK_COLUMNS);
    for task in tasks {
        csv.row(&[
            Cell::Trusted(&task.task_id),
            Cell::Trusted(&task.group),
            Cell::Trusted(&task.kind),
            Cell::Text(&task.prompt),
        ]);
    }
    csv.finish()
}

fn parse_ratios(text: &str) -> anyhow::Result<[u32; 3]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let numbers: Option<Vec<u32>> = parts.iter().map(|p| p.parse().ok()).collect();
    match numbers.as_deref() {
        Some(&[t, v, h]) if t + v + h > 0 => Ok([t, v, h]),
        _ => bail!(
            "--ratios `{text}`: give three non-negative integers with a positive sum, e.g. 50,25,25"
        ),
    }
}

fn parse_cases(text: &str) -> anyhow::Result<Cases> {
    match text.trim() {
        "all" => Ok(Cases::All),
        number => match number.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Cases::Exactly(n)),
            _ => bail!("--cases `{text}`: give a positive number of tasks, or `all`"),
        },
    }
}

/// `split --check`: leaks among split files made by any tool.
fn check(paths: &[PathBuf]) -> anyhow::Result<Outcome> {
    let files: Vec<PathBuf> = match paths {
        [dir] if dir.is_dir() => SPLIT_NAMES
            .iter()
            .map(|name| dir.join(format!("{name}.csv")))
            .filter(|p| p.exists())
            .collect(),
        _ => paths.to_vec(),
    };
    if files.is_empty() {
        bail!(
            "no split files found: give a folder holding train.csv, val.csv and holdout.csv, or the files themselves"
        );
    }
    let mut named: Vec<(String, Vec<Task>)> = Vec::new();
    for path in &files {
        let table = read_table(path)?;
        let id = table.require("task_id")?;
        let group = table.column("group");
        let tasks = table.rows.iter().map(|row| {
            let task_id = row.fields[id].trim().to_string();
            let group = match group {
                Some(g) => row.fields[g].trim().to_string(),
                None => task_id
                    .rsplit_once(':')
                    .map_or(task_id.as_str(), |(g, _)| g)
                    .to_string(),
            };
            Task {
                task_id,
                group,
                kind: String::new(),
                prompt: String::new(),
            }
        });
        let name = path.file_stem().map_or_else(
            || path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        named.push((name, tasks.collect()));
    }
    let borrowed: Vec<(&str, &[Task])> = named
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_slice()))
        .collect();
    let leaks = find_leaks(&borrowed);
    let mut text = String::new();
    for (name, tasks) in &named {
        text.push_str(&format!("{name}: {} tasks\n", tasks.len()));
    }
    for leak in &leaks {
        text.push_str(&format!("leak: {leak}\n"));
    }
    let status = if leaks.is_empty() {
        text.push_str("no leakage: no group in two splits, no task twice\n");
        Status::Success
    } else {
        text.push_str(&format!(
            "{} leak{} found\n",
            leaks.len(),
            if leaks.len() == 1 { "" } else { "s" }
        ));
        Status::Negative
    };
    Ok(Outcome::new(status, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ratios_and_cases_or_says_what_works() {
        assert_eq!(parse_ratios("50, 25,25").unwrap(), [50, 25, 25]);
        assert!(
            parse_ratios("0,0,0")
                .unwrap_err()
                .to_string()
                .contains("positive sum")
        );
        assert!(parse_ratios("1,2").is_err());
        assert_eq!(parse_cases("all").unwrap(), Cases::All);
        assert_eq!(parse_cases("24").unwrap(), Cases::Exactly(24));
        assert!(
            parse_cases("-3")
                .unwrap_err()
                .to_string()
                .contains("positive number")
        );
    }
}
