//! The split use case: build leak-free splits of a ground truth with their manifest
//! (or rebuild an earlier tool's split), and check split files made by any tool for
//! leaks. The command prints and writes what comes back.

pub(crate) mod files;

use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::bail;

use super::outcome::{CommandOutcome, Status, Write};
use super::{open_file, read_table};
use crate::alpha::Alpha;
use crate::atomic::{FileToWrite, StreamedFile};
use crate::digest::HashingReader;
use crate::error::InputError;
use crate::report::split::{SplitCheck, check_text, summary};
use crate::split::Cases;
use crate::split::build::split_tasks;
use crate::split::hermes::Compat;
use crate::split::manifest::{
    FileDigest, HoldoutPower, MANIFEST_SCHEMA, Made, Manifest, SplitCounts,
};
use crate::split::{Leak, SPLIT_NAMES, SplitError, SplitRequest, Splits, find_leaks};
use crate::stats::power::{min_detectable_shift, min_discordant};
use crate::task::Task;
use crate::verify::{self, Verifier};

/// The settings of one `split`, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SplitSettings {
    /// The ground-truth file.
    pub truth: PathBuf,
    /// The verifier that turns it into tasks.
    pub verifier: String,
    /// Seed, ratios and cases.
    pub request: SplitRequest,
    /// `--cases` as given (trimmed), recorded in the manifest.
    pub cases: String,
    /// The level of the holdout's minimum detectable shift.
    pub alpha: Alpha,
    /// The earlier tool whose split to rebuild, if any.
    pub compat: Option<Compat>,
}

/// Splits built: what the summary tells, the files to write into the output folder
/// (made as they are written), and the leaks of a rebuilt split (none for evogate's
/// own).
pub(crate) struct Built {
    /// The splits' counts.
    pub made: Made,
    /// `train.csv`, `val.csv`, `holdout.csv` and `manifest.json`, in that order, each
    /// made as it is written.
    pub files: Vec<StreamedFile>,
    /// Groups in two splits or tasks listed twice.
    pub leaks: Vec<Leak>,
    /// The verifier and the dealt tasks, held until the process exits: a big truth
    /// makes millions of small allocations, and freeing them one at a time takes a
    /// visible share of the run.
    pub workings: Vec<Box<dyn std::any::Any>>,
}

impl Built {
    /// The files made whole, for a folder of a few tasks (the demo's).
    pub(crate) fn whole_files(&self) -> anyhow::Result<Vec<FileToWrite>> {
        self.files
            .iter()
            .map(|file| {
                let mut bytes = Vec::new();
                (file.write)(&mut bytes)?;
                Ok(FileToWrite::new(file.path.clone(), bytes))
            })
            .collect()
    }
}

/// Runs `split`: the splits of `settings.truth` written into the folder `out`, with a
/// note when a rebuilt split leaks.
pub(crate) fn run(settings: &SplitSettings, out: &Path) -> anyhow::Result<CommandOutcome> {
    let mut built = build(settings, out)?;
    let mut outcome = CommandOutcome::new(Status::Success, summary(&built.made, out));
    if let Some(first) = built.leaks.first() {
        outcome.notes.push(format!(
            "this rebuilt split leaks ({} leak{}, e.g. {first}); `evogate split --check {}` lists them",
            built.leaks.len(),
            if built.leaks.len() == 1 { "" } else { "s" },
            out.display()
        ));
    }
    outcome.writes.push(Write::Folder {
        dir: out.to_path_buf(),
        files: Vec::new(),
        large: std::mem::take(&mut built.files),
    });
    outcome.held.append(&mut built.workings);
    Ok(outcome)
}

/// Runs `split --check`: success when the split files have no leak.
pub(crate) fn run_check(paths: &[PathBuf]) -> anyhow::Result<CommandOutcome> {
    let found = check(paths)?;
    let status = if found.leaks.is_empty() {
        Status::Success
    } else {
        Status::Negative
    };
    Ok(CommandOutcome::new(status, check_text(&found)))
}

/// Builds the splits of `settings.truth` into files for the folder `out`. The truth is
/// read as a stream (digested on the way) into the verifier, the tasks are dealt by
/// number, and the files are made from the verifier as they are written: memory holds
/// the verifier, a few bytes a task and the groups' numbers, not the tasks.
pub(crate) fn build(settings: &SplitSettings, out: &Path) -> anyhow::Result<Built> {
    let truth_path = &settings.truth;
    let request = &settings.request;
    let truth_source = truth_path.display().to_string();
    let mut truth = HashingReader::new(open_file(truth_path)?);
    let verifier = verify::build_for(
        &settings.verifier,
        &truth_source,
        &mut truth,
        verify::Use::Listing,
    )?;
    let truth_sha256 = truth.finish().map_err(|e| InputError::Io {
        file: truth_source.clone(),
        message: e.to_string(),
    })?;
    let n = verifier.task_count();
    // An earlier tool's split is dealt by its own rules: here only the groups count.
    let grouping = match settings.compat {
        None => request.clone(),
        Some(_) => SplitRequest {
            ratios: [1, 0, 0],
            cases: Cases::All,
            ..request.clone()
        },
    };
    let grouped = split_tasks(n, &|i| verifier.task_names(i).0, &grouping)?;
    let (parts, algorithm, leaks) = match settings.compat {
        None => {
            if let Some(leak) = own_leak(verifier.as_ref(), &grouped.parts) {
                return Err(SplitError::Leak(leak.to_string()).into());
            }
            (grouped.parts, "evogate".to_string(), Vec::new())
        }
        Some(compat) => {
            let tasks = verifier.tasks();
            let splits = compat_splits(compat, &tasks, request)?;
            let leaks = find_leaks(&splits.named());
            let parts = splits.parts.map(|part| {
                part.iter()
                    .filter_map(|task| verifier.find_task(&task.task_id))
                    .map(|index| index as u32)
                    .collect::<Vec<u32>>()
            });
            (parts, compat.name().to_string(), leaks)
        }
    };
    let dealt = Rc::new(files::Dealt {
        tasks: Box::new(verifier),
        parts,
        group_of: grouped.group_of,
        groups: grouped.groups,
    });
    let power = holdout_power(dealt.parts[2].len(), settings.alpha.get())?;
    let head = Manifest {
        schema: MANIFEST_SCHEMA.to_string(),
        verifier: settings.verifier.clone(),
        truth: FileDigest {
            path: truth_path.display().to_string(),
            sha256: truth_sha256,
        },
        seed: request.seed,
        ratios: request.ratios,
        cases: settings.cases.clone(),
        algorithm,
        splits: (),
        holdout_power: power,
    };
    let (made, files) = streamed(&dealt, head, out);
    Ok(Built {
        made,
        files,
        leaks,
        workings: vec![Box::new(dealt)],
    })
}

/// The summary's counts of the splits `dealt` and their files for the folder `out`,
/// `train.csv`, `val.csv`, `holdout.csv` and `manifest.json` (`head` with the splits),
/// each made as it is written.
pub(crate) fn streamed(
    dealt: &Rc<files::Dealt>,
    head: Manifest<()>,
    out: &Path,
) -> (Made, Vec<StreamedFile>) {
    let shas: [String; 3] = std::array::from_fn(|part| dealt.csv_sha256(part));
    // The holdout's order is the one it is scored in: `admit --sequential`.
    let order = dealt.order_sha256(2);
    let group_counts = dealt.group_counts();
    let made = Made {
        seed: head.seed,
        splits: std::array::from_fn(|part| SplitCounts {
            name: SPLIT_NAMES[part],
            tasks: dealt.parts[part].len(),
            groups: group_counts[part],
        }),
        holdout_power: head.holdout_power.clone(),
    };
    let mut files: Vec<StreamedFile> = (0..3)
        .map(|part| {
            let dealt = Rc::clone(dealt);
            StreamedFile::new(out.join(format!("{}.csv", SPLIT_NAMES[part])), move |out| {
                dealt.write_csv(part, out)
            })
        })
        .collect();
    let manifest = head.with_splits(files::SplitsOf {
        shas,
        order,
        dealt: Rc::clone(dealt),
    });
    files.push(StreamedFile::new(out.join("manifest.json"), move |out| {
        crate::report::json::document_to(&manifest, out)
    }));
    (made, files)
}

/// The first leak of evogate's own splits, which deal groups whole: none, unless a
/// task's id names another group than its own (a kind with a `:`) or two tasks share
/// an id (the verifier finds an earlier task by a task's id: no copy of the ids is
/// made to tell); then the splits are checked as any split is ([`find_leaks`]).
fn own_leak(verifier: &dyn Verifier, parts: &[Vec<u32>; 3]) -> Option<Leak> {
    let mut id = String::new();
    let suspect = (0..verifier.task_count()).any(|index| {
        let (group, kind) = verifier.task_names(index);
        id.clear();
        id.push_str(group);
        id.push(':');
        id.push_str(kind);
        kind.contains(':') || verifier.find_task(&id) != Some(index)
    });
    if !suspect {
        return None;
    }
    let named: Vec<(&str, Vec<Task>)> = SPLIT_NAMES
        .iter()
        .zip(parts)
        .map(|(name, part)| {
            let tasks = part
                .iter()
                .map(|&i| {
                    let (group, kind) = verifier.task_names(i as usize);
                    Task::new(group, kind, String::new())
                })
                .collect();
            (*name, tasks)
        })
        .collect();
    let slices: Vec<(&str, &[Task])> = named.iter().map(|(n, t)| (*n, t.as_slice())).collect();
    find_leaks(&slices).into_iter().next()
}

/// The split an earlier tool built, as evogate tasks in that tool's order.
fn compat_splits(compat: Compat, tasks: &[Task], request: &SplitRequest) -> anyhow::Result<Splits> {
    let name = compat.name();
    let Cases::Exactly(cases) = request.cases else {
        bail!(
            "--compat {name} needs --cases N (the reference pipeline always sampled a number of cases)"
        );
    };
    if request.ratios != [50, 25, 25] {
        bail!("--compat {name} uses the reference's fixed 50/25/25 split: drop --ratios");
    }
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

/// What a holdout of `n` tasks can detect at `alpha`.
pub(crate) fn holdout_power(n: usize, alpha: f64) -> anyhow::Result<HoldoutPower> {
    let Some(k) = min_discordant(alpha) else {
        bail!("--alpha {alpha} is too small for any holdout to reach: use a level such as 0.05");
    };
    Ok(HoldoutPower {
        alpha,
        n,
        min_discordant: k,
        min_detectable_shift: min_detectable_shift(n as u64, alpha),
    })
}

/// `split --check`: the leaks among split files made by any tool, given as a folder
/// holding `train.csv`, `val.csv` and `holdout.csv` or as the files themselves.
pub(crate) fn check(paths: &[PathBuf]) -> anyhow::Result<SplitCheck> {
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
    Ok(SplitCheck {
        files: named.iter().map(|(n, t)| (n.clone(), t.len())).collect(),
        leaks,
    })
}
