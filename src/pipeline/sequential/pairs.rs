//! The pairs a sequential run monitors: the order fixed before scoring (the manifest's
//! holdout, or an `--order` file), the pairs scored in both files (a prefix of it),
//! their differences in whole micro-units, and the digests that identify the run's
//! pairs in the ledger.

use std::collections::{BTreeMap, BTreeSet};

use super::SequentialFiles;
use super::SequentialSettings;
use crate::admission::holdout::holdout_identity;
use crate::admission::{Baseline, HoldoutRecord, Keep, Side, TaskList, Test};
use crate::base::numbers::{MICROS, micros};
use crate::digest::{RunningDigest, sha256_hex};
use crate::pipeline::admit::Input;
use crate::report::InputFile;
use crate::split::manifest::order_sha256;
use crate::table::Table;

/// The order a run is monitored in, and the holdout it is counted on.
pub(super) struct Order {
    /// The tasks in the order (rows of the `--order` file, or positions in the manifest).
    pub list: TaskList,
    /// Whether `list` came from the manifest (its "rows" are then positions).
    pub from_manifest: bool,
    /// The holdout's identity in the ledger: the manifest's holdout when one was given,
    /// whatever `--order` says; else the order's own task ids.
    pub holdout_sha256: String,
    /// The order's and the manifest's files, as the report lists its inputs.
    pub inputs: Vec<InputFile>,
}

/// Reads the order: the manifest's holdout in the order `split` recorded, checked
/// against `--order` when both are given; else `--order`. An order that carries scores
/// (a `score` or `correct` column) is refused: it is a scores file, read after outputs
/// were seen, and an order chosen then can pick the verdict.
pub(super) fn read_order(files: &SequentialFiles) -> anyhow::Result<Order> {
    let given = files.order.as_deref().map(Input::read).transpose()?;
    let given_list = match &given {
        Some(input) => {
            let table = Table::parse(&input.path, &input.bytes)?;
            refuse_scores_as_order(&table)?;
            Some(TaskList::from_table(&table)?)
        }
        None => None,
    };
    let mut inputs: Vec<InputFile> = given.iter().map(|i| input_file("order", i)).collect();
    let Some(path) = &files.manifest else {
        let Some(list) = given_list else {
            anyhow::bail!(
                "admit --sequential needs --manifest or --order: the order fixed before scoring"
            );
        };
        let ids: Vec<String> = list.tasks.iter().map(|(task, _)| task.clone()).collect();
        return Ok(Order {
            holdout_sha256: holdout_identity(&ids),
            list,
            from_manifest: false,
            inputs,
        });
    };
    let manifest = Input::read(path)?;
    inputs.push(input_file("manifest", &manifest));
    let record = HoldoutRecord::from_manifest(&manifest.path, &manifest.bytes, None)?;
    let list = manifest_order(&record)?;
    if let (Some(given), Some(input)) = (given_list, &given) {
        refuse_another_order(&given, &list, &input.path, &record.manifest)?;
    }
    Ok(Order {
        holdout_sha256: record.identity(),
        list,
        from_manifest: true,
        inputs,
    })
}

/// The manifest's holdout in its recorded order, checked: ids trimmed and not blank,
/// none twice, and the recorded order digest (when the manifest has one) theirs.
fn manifest_order(record: &HoldoutRecord) -> anyhow::Result<TaskList> {
    let source = &record.manifest;
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for (position, task) in record.task_ids.iter().enumerate() {
        if task.trim() != task || task.is_empty() {
            anyhow::bail!(
                "`{source}`: the holdout's task {} `{task}` is blank or has spaces at its ends; give the manifest.json `evogate split` wrote",
                position + 1
            );
        }
        if let Some(first) = seen.insert(task, position + 1) {
            anyhow::bail!(
                "`{source}`: the holdout lists task `{task}` twice (positions {first} and {}); give the manifest.json `evogate split` wrote",
                position + 1
            );
        }
    }
    if record.task_ids.is_empty() {
        anyhow::bail!("`{source}`: the holdout has no tasks");
    }
    if let Some(recorded) = &record.order_sha256 {
        let found = order_sha256(&record.task_ids);
        if *recorded != found {
            anyhow::bail!(
                "`{source}`: the holdout's task ids are not in the order the manifest records (its order_sha256 {recorded}, the ids' {found}); the manifest was edited: give the one `evogate split` wrote"
            );
        }
    }
    Ok(TaskList {
        source: source.clone(),
        tasks: (1..)
            .zip(&record.task_ids)
            .map(|(position, task)| (task.clone(), position))
            .collect(),
    })
}

/// Refuses an `--order` whose tasks are not the manifest's holdout in its order,
/// naming the first difference.
fn refuse_another_order(
    given: &TaskList,
    recorded: &TaskList,
    order: &str,
    manifest: &str,
) -> anyhow::Result<()> {
    let ids = |list: &TaskList| {
        list.tasks
            .iter()
            .map(|(t, _)| t.clone())
            .collect::<Vec<_>>()
    };
    let (given_ids, recorded_ids) = (ids(given), ids(recorded));
    if given_ids == recorded_ids {
        return Ok(());
    }
    let why = match given_ids
        .iter()
        .zip(&recorded_ids)
        .position(|(a, b)| a != b)
    {
        Some(at) => format!(
            "its position {} is `{}` where the manifest's holdout has `{}`",
            at + 1,
            given_ids[at],
            recorded_ids[at]
        ),
        None => format!(
            "it lists {} tasks, the manifest's holdout {}",
            given_ids.len(),
            recorded_ids.len()
        ),
    };
    anyhow::bail!(
        "`{order}` is not the order `{manifest}` records for the holdout ({why}); the holdout and its order are the manifest's: drop --order, or give the holdout.csv `evogate split` wrote beside it"
    )
}

/// Refuses an order table that carries scores.
fn refuse_scores_as_order(table: &Table) -> anyhow::Result<()> {
    if let Some(column) = ["score", "correct"]
        .into_iter()
        .find(|c| table.column(c).is_some())
    {
        anyhow::bail!(
            "`{}` has a `{column}` column: it is a scores file, and an order read after the outputs were seen can choose the verdict; give the holdout.csv `evogate split` wrote (or --manifest)",
            table.source
        );
    }
    Ok(())
}

/// One pair of the order: its values in each arm, its difference and its stratum.
pub(super) struct OrderedPair {
    /// candidate − baseline: of `correct` (−1, 0, 1) or of the scores in whole
    /// micro-units, as `admit` sums them.
    pub difference: f64,
    /// Its stratum, when strata are on.
    pub stratum: Option<String>,
    baseline: (Option<bool>, i64),
    candidate: (Option<bool>, i64),
}

/// The pairs to monitor, in the order.
pub(super) struct Ordered {
    /// The pairs scored in both files, the order's first ones.
    pub pairs: Vec<OrderedPair>,
    /// Whether the monitor runs on 0/1 `correct`.
    pub binary: bool,
    /// The order's task ids: the holdout.
    pub holdout: Vec<String>,
}

impl Ordered {
    /// The digests of the first `n` pairs for each count in `counts` (at most the
    /// pairs held): (baseline, candidate), each the SHA-256 of `header` and, per pair,
    /// its task, stratum, `correct` and score in micro-units for that arm. One pass.
    pub(super) fn prefix_digests(
        &self,
        header: &str,
        counts: &BTreeSet<u64>,
    ) -> BTreeMap<u64, (String, String)> {
        let mut sides = [RunningDigest::default(), RunningDigest::default()];
        for side in &mut sides {
            side.update(header.as_bytes());
        }
        let mut found = BTreeMap::new();
        let mut wanted = counts.iter().copied().peekable();
        for (index, pair) in self.pairs.iter().enumerate() {
            let task = &self.holdout[index];
            let stratum = pair.stratum.as_deref().unwrap_or("");
            for (side, (correct, micros)) in sides.iter_mut().zip([pair.baseline, pair.candidate]) {
                let correct = correct.map_or("", |c| if c { "1" } else { "0" });
                side.update(format!("{task}\t{stratum}\t{correct}\t{micros}\n").as_bytes());
            }
            let held = index as u64 + 1;
            while let Some(n) = wanted.next_if(|&n| n <= held) {
                if n == held {
                    found.insert(n, (sides[0].hex(), sides[1].hex()));
                }
            }
        }
        found
    }
}

/// The file as the report lists it.
pub(super) fn input_file(role: &str, input: &Input) -> InputFile {
    InputFile {
        role: role.to_string(),
        path: input.path.clone(),
        sha256: sha256_hex(&input.bytes),
    }
}

/// The task ids of a scores file with their rows. A file that holds repeats of items
/// (rows `<item>#<r>` whose group is the item) is refused before any task is looked
/// for in the order: the monitor counts rows as tasks, and the holdout lists items.
fn task_rows(input: &Input) -> anyhow::Result<BTreeMap<String, u64>> {
    let table = Table::parse(&input.path, &input.bytes)?;
    let id = table.require("task_id")?;
    let group = table.column("group");
    let mut tasks = BTreeMap::new();
    for row in &table.rows {
        let task = row.fields[id].trim();
        let group = group.map(|g| row.fields[g].trim());
        if let Some((item, _)) = crate::admission::repeats::repeat_in(task, group) {
            anyhow::bail!(
                "`{}` row {}: `{task}` is a repeat of item `{item}` (its group): admit --sequential looks at one row per task and would count repeats as independent tasks; import again with a reducer (--repeats mean, or majority), one row per item, or admit without --sequential (fixed n), which tests on the items",
                input.path,
                row.line
            );
        }
        tasks.insert(task.to_string(), row.line);
    }
    Ok(tasks)
}

/// The pairs scored in both files, checked to be a prefix of the order, in its order.
pub(super) fn read_ordered(
    baseline: &Input,
    candidate: &Input,
    order: &Order,
    settings: &SequentialSettings,
) -> anyhow::Result<Ordered> {
    let list = &order.list;
    let in_baseline = task_rows(baseline)?;
    let in_candidate = task_rows(candidate)?;
    let position: BTreeMap<&str, usize> = list
        .tasks
        .iter()
        .enumerate()
        .map(|(i, (task, _))| (task.as_str(), i))
        .collect();
    if let Some((task, row)) = in_candidate
        .iter()
        .find(|(task, _)| !position.contains_key(task.as_str()))
    {
        anyhow::bail!(
            "`{}` row {row}: task `{task}` is not in the order `{}`; every scored task must be a holdout task listed there",
            candidate.path,
            list.source
        );
    }
    let scored = |task: &str| in_baseline.contains_key(task) && in_candidate.contains_key(task);
    let used = list
        .tasks
        .iter()
        .position(|(task, _)| !scored(task))
        .unwrap_or(list.tasks.len());
    if let Some((late, _)) = list.tasks[used..].iter().find(|(task, _)| scored(task)) {
        let (gap, gap_row) = &list.tasks[used];
        let lacking = if in_candidate.contains_key(gap.as_str()) {
            &baseline.path
        } else {
            &candidate.path
        };
        let row = if order.from_manifest {
            String::new()
        } else {
            format!(", row {gap_row}")
        };
        anyhow::bail!(
            "task `{late}` (position {} of `{}`) is scored out of order: `{gap}` (position {}{row}) comes before it and is missing from `{lacking}`; score the tasks in the order, or leave `{late}` out until `{gap}` is scored",
            position[late.as_str()] + 1,
            list.source,
            used + 1
        );
    }
    if used == 0 {
        let (first, _) = &list.tasks[0];
        anyhow::bail!(
            "the first task of `{}`, `{first}`, is not scored in both files: there is nothing to look at yet",
            list.source
        );
    }
    let prefix = TaskList {
        source: list.source.clone(),
        tasks: list.tasks[..used].to_vec(),
    };
    let column = settings.strata.as_ref().map(|s| s.column.as_str());
    let base = Baseline::read(&baseline.path, baseline.bytes.as_slice(), column, false)?;
    let joined = base.join(&candidate.path, candidate.bytes.as_slice(), Keep::Losses)?;
    let pairs = joined.pair(Some(&prefix), settings.strata.as_ref())?;
    let test = settings
        .test
        .resolve(&pairs, settings.zero, &pairs.baseline, &pairs.candidate)?;
    let binary = test == Test::McNemar;
    let by_task: BTreeMap<&str, _> = pairs.pairs.iter().map(|p| (pairs.task(p), p)).collect();
    let values = |side: &Side| (side.correct, micros(side.score));
    let ordered = prefix
        .tasks
        .iter()
        .map(|(task, _)| {
            let pair = by_task[task.as_str()];
            let (baseline, candidate) = (values(&pair.baseline), values(&pair.candidate));
            let difference = if binary {
                f64::from(u8::from(candidate.0 == Some(true)))
                    - f64::from(u8::from(baseline.0 == Some(true)))
            } else {
                // Exact in micro-units, so the monitor's sums are `admit`'s.
                (candidate.1 - baseline.1) as f64 / MICROS as f64
            };
            OrderedPair {
                difference,
                stratum: pairs.stratum(pair).map(str::to_string),
                baseline,
                candidate,
            }
        })
        .collect();
    Ok(Ordered {
        pairs: ordered,
        binary,
        holdout: list.tasks.iter().map(|(task, _)| task.clone()).collect(),
    })
}
