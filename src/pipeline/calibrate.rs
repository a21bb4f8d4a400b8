//! The calibration use case: read two or more runs of one skill on the same items (and
//! optionally runs of a placebo, a same-length neutral edit of the skill), split a file
//! that holds repeats into one run per repeat, decide every ordered pair of runs with
//! `admit`'s own evaluation ([`super::admit::evaluate`], not a copy of it), and report
//! the flips among the A runs, the noise, and the verdicts.
//!
//! The rule for runs: a scores file is one run, unless its rows are repeats (task ids
//! `<item>#<r>` whose `group` is `<item>`, as `import --repeats all` writes them and
//! `admit` reads them: `admission::repeats`), which are then the runs. Run r of `FILE`
//! is named `FILE#r` and holds the file's rows of repeat r under their item ids, so that
//! every run pairs by item.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::admit::{AdmitOn, AdmitSettings, Evaluation, Input, evaluate};
use super::outcome::{CommandOutcome, Status, Write};
use crate::admission::TestName;
use crate::admission::calibration::{RunPairing, flips, noise};
use crate::admission::repeats::repeat_in;
use crate::admission::rows::PairRows;
use crate::atomic::FileToWrite;
use crate::base::csv::{Cell, CsvWriter};
use crate::base::numbers::level;
use crate::digest::sha256_hex;
use crate::report::calibrate::{
    CalibrationReport, PairVerdict, Run, SCHEMA, VerdictCounts, markdown, noise_words, percent,
    rate, text,
};
use crate::report::{InputFile, ReportFormat, json};
use crate::table::Table;

/// The settings of one `calibrate`, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CalibrateSettings {
    /// How every pair is decided: `admit`'s settings (superiority, no ledger).
    pub admit: AdmitSettings,
    /// The power at which the detectable shift is stated, in (0, 1).
    pub power: f64,
}

/// One `calibrate` run: the files and where the report goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CalibrateRequest {
    /// The A runs' scores files.
    pub runs: Vec<PathBuf>,
    /// The placebo runs' scores files.
    pub placebo: Vec<PathBuf>,
    /// `--report-dir`: `calibrate.json` and `calibrate.md` go there.
    pub report_dir: Option<PathBuf>,
    /// `--format`.
    pub format: ReportFormat,
}

/// The files a report folder receives, in `dir`.
pub(crate) fn report_names(dir: &Path) -> [PathBuf; 2] {
    [dir.join("calibrate.json"), dir.join("calibrate.md")]
}

/// Runs `calibrate`: exit 0 when the gate admits no A/A pair, 1 when it admits one.
pub(crate) fn run(
    request: &CalibrateRequest,
    settings: &CalibrateSettings,
) -> anyhow::Result<CommandOutcome> {
    let report = calibrate(request, settings)?;
    let stdout = match request.format {
        ReportFormat::Json => json::rounded(&report)?,
        ReportFormat::Markdown => markdown(&report),
        ReportFormat::Text => text(&report),
    };
    let status = if report.aa.admitted == 0 {
        Status::Success
    } else {
        Status::Negative
    };
    let mut outcome = CommandOutcome::new(status, stdout);
    if let Some(dir) = &request.report_dir {
        let [json_path, md_path] = report_names(dir);
        outcome.writes.push(Write::Folder {
            dir: dir.clone(),
            files: vec![
                FileToWrite::new(json_path, json::rounded(&report)?),
                FileToWrite::new(md_path, markdown(&report)),
            ],
            large: Vec::new(),
        });
        outcome
            .notes
            .push(format!("wrote 2 files to {}", dir.display()));
    }
    Ok(outcome)
}

/// One run, ready to be paired.
struct RunInput {
    arm: &'static str,
    input: Input,
}

/// The calibration report of `request`.
pub(crate) fn calibrate(
    request: &CalibrateRequest,
    settings: &CalibrateSettings,
) -> anyhow::Result<CalibrationReport> {
    let mut inputs = Vec::new();
    let mut runs = Vec::new();
    for (paths, arm) in [(&request.runs, "A"), (&request.placebo, "placebo")] {
        for path in paths {
            let (file, split) = runs_of(path, arm)?;
            inputs.push(file);
            runs.extend(split);
        }
    }
    let a_runs = runs.iter().filter(|r| r.arm == "A").count();
    if a_runs < 2 {
        anyhow::bail!(
            "calibrate needs two or more runs of the same skill, and {} {} given: give --runs A1.csv A2.csv, or a file whose rows are repeats (`<item>#<r>` task ids with the item as `group`, as `import --repeats all` writes them)",
            a_runs,
            if a_runs == 1 { "run was" } else { "runs were" }
        );
    }
    let decide = |i: usize, j: usize| -> anyhow::Result<Evaluation> {
        let on = AdmitOn::Bytes {
            baseline: runs[i].input.clone(),
            candidate: runs[j].input.clone(),
            tasks: None,
            manifest: None,
            held: true,
        };
        evaluate(&on, &settings.admit, None)
    };
    // Every ordered pair of A runs, then each A run against each placebo run both ways.
    let mut order: Vec<(usize, usize)> = Vec::new();
    for i in 0..a_runs {
        order.extend((0..a_runs).filter(|&j| j != i).map(|j| (i, j)));
    }
    for i in 0..a_runs {
        for p in a_runs..runs.len() {
            order.extend([(i, p), (p, i)]);
        }
    }
    let evaluations: Vec<((usize, usize), Evaluation)> = order
        .into_iter()
        .map(|(i, j)| Ok(((i, j), decide(i, j)?)))
        .collect::<anyhow::Result<_>>()?;
    let first = &evaluations[0].1.report.admission;
    let by_correct = first.test.name == TestName::McNemar;
    let items = first.n;
    let pairings: Vec<RunPairing> = evaluations
        .iter()
        .filter(|((i, j), _)| i < j && *j < a_runs)
        .filter_map(|&((first, second), ref e)| {
            Some(RunPairing {
                first,
                second,
                // `held: true` above: the pairs are held, never sorted outside memory.
                pairs: match e.pairs.as_ref()? {
                    PairRows::Held(pairs) => pairs,
                    PairRows::Sorted(_) => return None,
                },
            })
        })
        .collect();
    let alpha = settings.admit.alpha.get();
    let flips = flips(a_runs, &pairings, by_correct);
    let noise = noise(items, &pairings, by_correct, alpha, settings.power);
    let pairs: Vec<PairVerdict> = evaluations
        .iter()
        .map(|&((i, j), ref e)| {
            let a = &e.report.admission;
            PairVerdict {
                baseline: runs[i].input.path.clone(),
                candidate: runs[j].input.path.clone(),
                arms: match (runs[i].arm, runs[j].arm) {
                    ("A", "A") => "A/A",
                    ("A", _) => "A/placebo",
                    _ => "placebo/A",
                },
                verdict: a.verdict,
                p_improvement: a.tails.p_improvement,
                p_regression: a.tails.p_regression,
                difference: a.delta.estimate,
                discordant: a.discordant.map(|d| (d.baseline_only, d.candidate_only)),
            }
        })
        .collect();
    let aa = VerdictCounts::of(pairs.iter().filter(|p| p.arms == "A/A"));
    let placebo =
        (a_runs < runs.len()).then(|| VerdictCounts::of(pairs.iter().filter(|p| p.arms != "A/A")));
    let mut report = CalibrationReport {
        schema: SCHEMA,
        verdict: if aa.admitted == 0 { "quiet" } else { "noisy" },
        findings: Vec::new(),
        alpha,
        power: settings.power,
        test: first.test.clone(),
        items: items as u64,
        runs: runs
            .iter()
            .map(|r| Run {
                name: r.input.path.clone(),
                arm: r.arm,
            })
            .collect(),
        flips,
        noise,
        aa,
        placebo,
        pairs,
        inputs,
    };
    report.findings = findings(&report);
    Ok(report)
}

/// What the figures say, as sentences.
fn findings(report: &CalibrationReport) -> Vec<String> {
    let ordered = report.aa.admitted + report.aa.refused + report.aa.inconclusive;
    let alpha = level(report.alpha);
    let mut out = vec![if report.aa.admitted == 0 {
        format!(
            "The gate admitted none of the {ordered} ordered A/A pairs: on these runs it did not take noise for an improvement (each pair is a look at no change, admitted with probability at most alpha {alpha} when the runs are exchangeable)."
        )
    } else {
        format!(
            "The gate admitted {} of the {ordered} ordered A/A pairs: with nothing changed it let a run through as an improvement. Each pair is a look at no change, admitted with probability at most alpha {alpha} when the runs are exchangeable; more often means the runs are not (a cache, an order effect, a drifting model) or the holdout is too noisy to decide on.",
            report.aa.admitted
        )
    }];
    let f = &report.flips;
    let worst = f.strata.iter().max_by(|x, y| {
        x.flip_rate
            .total_cmp(&y.flip_rate)
            .then(y.value.cmp(&x.value))
    });
    out.push(format!(
        "{} of {} items ({}) flip across the {} runs; the mean flip rate is {}{}.",
        f.items_that_flip,
        f.items,
        percent(f.share_that_flip),
        f.runs,
        rate(f.flip_rate),
        worst.map_or(String::new(), |w| format!(
            ", highest on {}={} ({})",
            f.strata_column.as_deref().unwrap_or(""),
            w.value,
            rate(w.flip_rate)
        ))
    ));
    out.push(noise_words(report));
    if let Some(p) = &report.placebo {
        out.push(format!(
            "Against the placebo the gate admitted {} of {} ordered pairs (A and placebo both ways).",
            p.admitted,
            p.admitted + p.refused + p.inconclusive
        ));
    }
    out
}

/// The runs of the scores file at `path` (one, or one per repeat) and its digest.
fn runs_of(path: &Path, arm: &'static str) -> anyhow::Result<(InputFile, Vec<RunInput>)> {
    let input = Input::read(path)?;
    let file = InputFile {
        role: if arm == "A" { "run" } else { "placebo" }.to_string(),
        path: input.path.clone(),
        sha256: sha256_hex(&input.bytes),
    };
    let table = Table::parse(&input.path, &input.bytes)?;
    let runs = match split_repeats(&table)? {
        None => vec![RunInput { arm, input }],
        Some(repeats) => repeats
            .into_iter()
            .map(|(repeat, bytes)| RunInput {
                arm,
                input: Input {
                    path: format!("{}#{repeat}", input.path),
                    bytes,
                },
            })
            .collect(),
    };
    Ok((file, runs))
}

/// One repeat of a file: its number and its rows as a scores file of their own.
type Repeat = (u64, Vec<u8>);

/// The table's rows split by repeat (`admission::repeats::repeat_in`, the reading
/// `admit` uses), each repeat as a scores file of its own with the items under their
/// own ids, in repeat order; `None` when no row is a repeat. Every row must then be one:
/// a row run once beside repeats is an error naming it, as is an item twice in one
/// repeat (with both rows).
fn split_repeats(table: &Table) -> anyhow::Result<Option<Vec<Repeat>>> {
    let task = table.require("task_id")?;
    let Some(group) = table.column("group") else {
        return Ok(None);
    };
    let keyed: Vec<Option<(&str, u64)>> = table
        .rows
        .iter()
        .map(|r| repeat_in(&r.fields[task], Some(r.fields[group].as_str())))
        .collect();
    if keyed.iter().all(Option::is_none) {
        return Ok(None);
    }
    let mut seen: BTreeMap<(u64, &str), u64> = BTreeMap::new();
    let mut files: BTreeMap<u64, CsvWriter> = BTreeMap::new();
    for (row, key) in table.rows.iter().zip(&keyed) {
        let Some((item, repeat)) = *key else {
            anyhow::bail!(
                "`{}` row {}: task `{}` is not a repeat (`<item>#<r>` with the item as `group`) while other rows are; give every row of a file of repeats as a repeat, or the runs as files of their own",
                table.source,
                row.line,
                row.fields[task]
            );
        };
        if let Some(earlier) = seen.insert((repeat, item), row.line) {
            anyhow::bail!(
                "`{}` row {}: item `{item}` has repeat {repeat} twice (also row {earlier}); give each repeat of an item once",
                table.source,
                row.line
            );
        }
        let out = files.entry(repeat).or_insert_with(|| {
            let mut writer = CsvWriter::new();
            let names: Vec<&str> = table.headers.iter().map(String::as_str).collect();
            writer.header(&names);
            writer
        });
        for (c, field) in row.fields.iter().enumerate() {
            out.cell(Cell::Trusted(if c == task { item } else { field }));
        }
        out.end_row();
    }
    Ok(Some(
        files
            .into_iter()
            .map(|(repeat, writer)| (repeat, writer.finish().into_bytes()))
            .collect(),
    ))
}
