//! `admit --sequential`: read the two scores files and the order fixed before scoring,
//! take the pairs scored in both files (which must be a prefix of the order), replay the
//! monitoring a user who looked after every pair would have done
//! ([`crate::stats::sequential::Monitor`]), and report where it stands: admitted,
//! refused, or continue. With a ledger a run is one attempt, however many looks it
//! takes: its first look spends it (`look`), its deciding look closes it.

mod look;
mod pairs;
mod report;

use std::path::{Path, PathBuf};

use self::pairs::{Ordered, input_file, read_order, read_ordered};
use self::report::build_report;
use super::admit::Input;
use super::outcome::{AttemptLedger, CommandOutcome, Status, Write};
use crate::admission::{StrataRequest, TestChoice};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::digest::sha256_hex;
use crate::ledger::RecordVerdict;
use crate::plot::{EValuePlot, e_value_svg};
use crate::report::sequential::{
    SequentialInterval, SequentialReport, markdown_report, power_text, text,
};
use crate::report::{LedgerInfo, ReportFormat, SummaryFormat, json};
use crate::stats::sequential::{Design, FinalTest, Monitor, Standing};
use crate::stats::signed_rank::ZeroMethod;

/// The files of one sequential run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequentialFiles {
    /// The baseline's scores (may hold more tasks than the candidate's).
    pub baseline: PathBuf,
    /// The candidate's scores so far.
    pub candidate: PathBuf,
    /// The order: a table whose `task_id` column lists every holdout task, in the order
    /// fixed before any output was seen (with a manifest, it must be the manifest's).
    pub order: Option<PathBuf>,
    /// The manifest `split` wrote: the holdout, its order, and the ledger's identity.
    pub manifest: Option<PathBuf>,
}

/// What one `admit --sequential` is asked for besides the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequentialRequest {
    /// The files.
    pub files: SequentialFiles,
    /// `--report-dir`.
    pub report_dir: Option<PathBuf>,
    /// `--format`.
    pub format: ReportFormat,
}

/// Runs `admit --sequential` (a decided run recorded in `ledger`, if any) and hands
/// back what to print and write: the report in `format`, the report folder, and the
/// step summary's Markdown. Exit 0 admitted, 1 refused, 3 continue.
pub(crate) fn run(
    request: &SequentialRequest,
    settings: &SequentialSettings,
    ledger: Option<&mut dyn AttemptLedger>,
) -> anyhow::Result<CommandOutcome> {
    let run = sequential(&request.files, settings, ledger)?;
    let mut writes = Vec::new();
    let mut notes: Vec<String> = run.warning.iter().cloned().collect();
    if let Some(dir) = &request.report_dir {
        let files = report_files(dir, &run)?;
        notes.push(format!("wrote {} files to {}", files.len(), dir.display()));
        writes.push(Write::Folder {
            dir: dir.clone(),
            files,
            large: Vec::new(),
        });
    }
    writes.push(Write::StepSummary(markdown_report(&run.report, None)));
    let stdout = match request.format {
        ReportFormat::Json => json::rounded(&run.report)?,
        ReportFormat::Markdown => markdown_report(&run.report, None),
        ReportFormat::Text => text(&run.report),
    };
    let status = match run.status {
        Standing::Admitted => Status::Success,
        Standing::Refused => Status::Negative,
        Standing::Continue => Status::Continue,
    };
    let mut outcome = CommandOutcome::new(status, stdout);
    outcome.notes = notes;
    outcome.writes = writes;
    Ok(outcome)
}

/// The settings of one sequential run, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SequentialSettings {
    /// The level.
    pub alpha: Alpha,
    /// Refuse once the upper bound on the improvement is at or below this, in [0, 1).
    pub margin: f64,
    /// `--test`.
    pub test: TestChoice,
    /// `--zero-method`, for the signed-rank test of the last look.
    pub zero: ZeroMethod,
    /// `--strata`, absent for `none`.
    pub strata: Option<StrataRequest>,
}

/// A sequential run: the report, the e-value path, and notes for the user.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SequentialRun {
    /// The report.
    pub report: SequentialReport,
    /// What the plot draws.
    pub plot: EValuePlot,
    /// Where the verdict leaves the exit status.
    pub status: Standing,
    /// The warning for a torn last record of the ledger, naming its row.
    pub warning: Option<String>,
}

/// Runs `admit --sequential`; the look is recorded in `ledger`, if any.
pub(crate) fn sequential(
    files: &SequentialFiles,
    settings: &SequentialSettings,
    ledger: Option<&mut dyn AttemptLedger>,
) -> anyhow::Result<SequentialRun> {
    // The import records beside the scores files are checked as `admit` checks them:
    // two imports whose metrics ran in opposite directions, or one task run on
    // different documents, are refused, and so is a record written for other bytes.
    let imports = super::import::check_imports(&files.baseline, &files.candidate)?;
    let baseline = Input::read(&files.baseline)?;
    let candidate = Input::read(&files.candidate)?;
    imports.check_scores(
        [&files.baseline, &files.candidate],
        [&sha256_hex(&baseline.bytes), &sha256_hex(&candidate.bytes)],
    )?;
    let order = read_order(files)?;
    let ordered = read_ordered(&baseline, &candidate, &order, settings)?;
    let mut inputs = vec![
        input_file("baseline", &baseline),
        input_file("candidate", &candidate),
    ];
    inputs.extend(order.inputs.iter().cloned());
    let run_at = |alpha: Alpha| monitor(&ordered, settings, alpha);
    let Some(recorder) = ledger else {
        let monitor = run_at(settings.alpha)?;
        return Ok(finish(&monitor, &ordered, settings, inputs, None));
    };
    if !order.from_manifest {
        anyhow::bail!(
            "--ledger needs --manifest: the ledger spends alpha per holdout, and only the manifest `split` wrote says which holdout this is and in which order it is scored"
        );
    }
    let placed = look::look_under(recorder, &order.holdout_sha256, &ordered, settings, &run_at)?;
    Ok(finish(
        &placed.monitor,
        &ordered,
        settings,
        inputs,
        Some(placed.info),
    )
    .warned(placed.warning))
}

/// What a `monitor` at its attempt's alpha records: `open` while undecided, else its
/// verdict, identified by the digests of the pairs it used.
fn decision(
    monitor: &Monitor,
    ordered: &Ordered,
    baseline_sha256: String,
    candidate_sha256: String,
) -> crate::ledger::Decision {
    crate::ledger::Decision {
        candidate_sha256,
        baseline_sha256,
        test: format!("sequential-{}", test_name(ordered.binary)),
        n: monitor.pairs(),
        p_improvement: p_improvement(monitor),
        verdict: match monitor.status() {
            Standing::Admitted => RecordVerdict::Admitted,
            Standing::Refused => RecordVerdict::Refused,
            Standing::Continue => RecordVerdict::Open,
        },
    }
}

fn test_name(binary: bool) -> &'static str {
    if binary { "mcnemar" } else { "signed-rank" }
}

/// Replays the monitoring at `alpha`.
fn monitor(
    ordered: &Ordered,
    settings: &SequentialSettings,
    alpha: Alpha,
) -> anyhow::Result<Monitor> {
    let design = Design::new(
        alpha,
        settings.margin,
        ordered.holdout.len() as u64,
        ordered.binary,
        settings.zero,
    );
    let mut monitor = Monitor::new(design)?;
    for pair in &ordered.pairs {
        if monitor.push(pair.difference, pair.stratum.as_deref()) != Standing::Continue {
            break;
        }
    }
    Ok(monitor)
}

/// The p-value a ledger records: the final test's, else 1/e-value (an anytime-valid
/// p-value), at most 1.
fn p_improvement(monitor: &Monitor) -> f64 {
    monitor.final_test().map_or_else(
        || {
            monitor
                .looks()
                .last()
                .map_or(1.0, |look| (-look.log_e_improvement).exp().min(1.0))
        },
        FinalTest::p_value,
    )
}

fn finish(
    monitor: &Monitor,
    ordered: &Ordered,
    settings: &SequentialSettings,
    inputs: Vec<crate::report::InputFile>,
    ledger: Option<LedgerInfo>,
) -> SequentialRun {
    let report = build_report(monitor, ordered, settings, inputs, ledger);
    let plot = EValuePlot {
        log10_path: monitor
            .looks()
            .iter()
            .map(|look| look.log_e_improvement / std::f64::consts::LN_10)
            .collect(),
        log10_threshold: monitor.threshold().log10(),
        holdout: ordered.holdout.len() as u64,
    };
    SequentialRun {
        report,
        plot,
        status: monitor.status(),
        warning: None,
    }
}

impl SequentialRun {
    /// This run with the ledger's warning.
    fn warned(self, warning: Option<String>) -> SequentialRun {
        SequentialRun { warning, ..self }
    }
}

/// Every file `--report-dir` receives for a sequential run, in `dir`.
pub(crate) fn report_names(dir: &Path) -> Vec<PathBuf> {
    ["admission.json", "admission.md", "e_value.svg"]
        .iter()
        .map(|name| dir.join(name))
        .collect()
}

/// The files of the report folder: `admission.json`, `admission.md` and `e_value.svg`.
pub(crate) fn report_files(dir: &Path, run: &SequentialRun) -> anyhow::Result<Vec<FileToWrite>> {
    Ok(vec![
        FileToWrite::new(dir.join("admission.json"), json::rounded(&run.report)?),
        FileToWrite::new(
            dir.join("admission.md"),
            markdown_report(&run.report, Some("e_value.svg")),
        ),
        FileToWrite::new(dir.join("e_value.svg"), e_value_svg(&run.plot)),
    ])
}

/// Runs simulated for `power --sequential`: the power's 95% Monte-Carlo error is at most
/// ±2.2 points, and each answer prints its own (a Wilson interval).
pub(crate) const POWER_RUNS: u64 = 2_000;

/// Answers `power --sequential`: the design on `holdout` tasks (default: the fixed-n
/// test's n for 80% power at this shift), simulated at the shift.
pub(crate) fn power(
    alpha: Alpha,
    shift: f64,
    discordance: f64,
    holdout: Option<u64>,
    format: SummaryFormat,
) -> anyhow::Result<CommandOutcome> {
    use crate::stats::power::{mcnemar_power, required_n_for_power};
    use crate::stats::sequential::SIMULATED_HOLDOUT_LIMIT;
    let fixed = required_n_for_power(shift, discordance, alpha.get(), 0.8);
    let Some(holdout) = holdout.or(fixed) else {
        anyhow::bail!(
            "no holdout up to {} pairs gives the fixed-n test 80% power at shift {shift}: give --holdout N",
            crate::stats::power::EXACT_POWER_LIMIT
        );
    };
    if holdout > SIMULATED_HOLDOUT_LIMIT {
        anyhow::bail!(
            "the fixed-n test needs {holdout} tasks for 80% power at shift {shift}, and a sequential design is simulated to at most {SIMULATED_HOLDOUT_LIMIT}: give --holdout {SIMULATED_HOLDOUT_LIMIT} or fewer, or a larger --shift"
        );
    }
    let design = Design::new(alpha, 0.0, holdout, true, ZeroMethod::Wilcox);
    let operating = crate::stats::sequential::operating(&design, discordance, shift, POWER_RUNS)?;
    let admitted = (operating.power * operating.runs as f64).round() as u64;
    let error =
        crate::stats::interval::wilson(admitted, operating.runs, 0.95).ok_or_else(|| {
            anyhow::anyhow!(
                "no Monte-Carlo interval for {admitted} of {} runs",
                operating.runs
            )
        })?;
    let report = crate::report::sequential::SequentialPowerReport {
        schema: "evogate/power-sequential/v1",
        alpha: alpha.get(),
        shift,
        discordance,
        holdout,
        fixed_n_for_80_power: fixed,
        fixed_n_power_at_holdout: mcnemar_power(holdout, discordance, shift, alpha.get()),
        sequential: operating,
        power_monte_carlo_95: SequentialInterval {
            low: error.low,
            high: error.high,
            confidence: error.confidence,
        },
    };
    let stdout = match format {
        SummaryFormat::Json => json::document(&report)?,
        SummaryFormat::Text => power_text(&report),
    };
    Ok(CommandOutcome::new(Status::Success, stdout))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::atomic::ledger::{Entry, Looked, record_look, record_or_repeat};
    use crate::pipeline::outcome::{AttemptOn, Decide, LookAt};

    /// The ledger file as `admit --ledger` takes it: [`record_or_repeat`] and
    /// [`record_look`] under its lock.
    struct FileLedger(PathBuf);

    impl AttemptLedger for FileLedger {
        fn path(&self) -> &Path {
            &self.0
        }

        fn take_attempt(
            &mut self,
            on: AttemptOn<'_>,
            decide: Decide<'_>,
        ) -> anyhow::Result<Entry<()>> {
            record_or_repeat(
                &self.0,
                &[],
                on.holdout_sha256,
                on.declared_alpha,
                on.inputs,
                |alpha| decide(alpha).map(|decision| (decision, ())),
            )
        }

        fn take_look(&mut self, look: LookAt<'_>) -> anyhow::Result<Looked> {
            record_look(&self.0, &[], look)
        }
    }

    /// `manifest.json` in `dir` recording the holdout t000 … t{n-1} in that order.
    fn manifest(dir: &Path, n: usize) -> PathBuf {
        let ids: Vec<String> = (0..n).map(|i| format!("t{i:03}")).collect();
        let split = |name: &str, ids: &[String]| {
            serde_json::json!({"name": name, "file": {"path": format!("{name}.csv"), "sha256": "0".repeat(64)},
                               "tasks": ids.len(), "groups": ids, "task_ids": ids})
        };
        let manifest = serde_json::json!({
            "schema": "evogate/manifest/v1", "verifier": "arxiv",
            "truth": {"path": "t.csv", "sha256": "0".repeat(64)}, "seed": 13,
            "ratios": [50, 25, 25], "cases": "all", "algorithm": "evogate",
            "splits": [split("train", &[]), split("val", &[]), split("holdout", &ids)],
            "holdout_power": {"alpha": 0.05, "n": n, "min_discordant": 5, "min_detectable_shift": 0.5},
        });
        let path = dir.join("manifest.json");
        fs::write(&path, manifest.to_string()).unwrap();
        path
    }

    /// A holdout of 40 tasks; the candidate wins the first `wins` and loses none.
    fn files(dir: &Path, wins: usize) -> SequentialFiles {
        let scores = |correct: u8| -> String {
            let rows: String = (0..wins)
                .map(|i| format!("t{i:03},{correct},{correct}\n"))
                .collect();
            format!("task_id,correct,score\n{rows}")
        };
        fs::write(dir.join("b.csv"), scores(0)).unwrap();
        fs::write(dir.join("c.csv"), scores(1)).unwrap();
        SequentialFiles {
            baseline: dir.join("b.csv"),
            candidate: dir.join("c.csv"),
            order: None,
            manifest: Some(manifest(dir, 40)),
        }
    }

    fn run_on(files: &SequentialFiles, ledger: &Path) -> SequentialRun {
        run_under(files, ledger, TestChoice::Auto)
    }

    fn run_under(files: &SequentialFiles, ledger: &Path, test: TestChoice) -> SequentialRun {
        let settings = SequentialSettings {
            alpha: Alpha::new(0.05).unwrap(),
            margin: 0.0,
            test,
            zero: ZeroMethod::Wilcox,
            strata: None,
        };
        let mut recorder = FileLedger(ledger.to_path_buf());
        sequential(files, &settings, Some(&mut recorder)).unwrap()
    }

    /// The same pairs decided at the same look under another test, with another
    /// verdict, are a new look at the holdout: a new attempt at the next alpha, not a
    /// repeat of the first (which would admit at the first attempt's alpha for free).
    /// On these 20 tasks (13 wins, 4 losses, 3 ties; holdout 20) at attempt 1's alpha
    /// 0.030396, neither e-value crosses; at the last look the signed-rank test refuses
    /// (every |difference| is 1, so its p is the sign test's, 3214/2^17 = 0.02452, above
    /// its alpha 0.022797) and the exact binomial look admits (13 wins of 17 reach its
    /// critical count 13).
    #[test]
    fn another_test_with_another_verdict_is_a_new_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.jsonl");
        let outcomes = "01 10 10 01 01 11 11 01 01 11 01 01 01 01 01 10 01 10 01 01";
        let (mut base, mut cand) = (String::new(), String::new());
        for (i, pair) in outcomes.split(' ').enumerate() {
            let (b, c) = (&pair[..1], &pair[1..]);
            base.push_str(&format!("t{i:03},{b},{b}\n"));
            cand.push_str(&format!("t{i:03},{c},{c}\n"));
        }
        let files = files(dir.path(), 0);
        let header = "task_id,correct,score\n";
        fs::write(&files.baseline, format!("{header}{base}")).unwrap();
        fs::write(&files.candidate, format!("{header}{cand}")).unwrap();
        manifest(dir.path(), 20);

        let first = run_under(&files, &ledger, TestChoice::SignedRank);
        assert_eq!((first.status, first.report.look), (Standing::Refused, 20));
        let second = run_under(&files, &ledger, TestChoice::Auto);
        assert_eq!(second.report.look, 20);
        let info = second.report.ledger.as_ref().unwrap();
        assert_eq!((info.attempt, info.repeated), (2, false));
        assert_eq!(fs::read_to_string(&ledger).unwrap().lines().count(), 2);
    }

    /// A ledger whose last append was cut short (killed between two writes) is named
    /// in a warning on every path: the run that repeats an attempt, and the one that
    /// records a new attempt (and so removes the torn row).
    #[test]
    fn a_torn_ledger_is_warned_of_on_every_path() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.jsonl");
        let decided = files(dir.path(), 30);
        let first = run_on(&decided, &ledger);
        assert_eq!(first.status, Standing::Admitted);
        assert_eq!(first.warning, None);
        let whole = fs::read_to_string(&ledger).unwrap();
        let torn = format!("{whole}{}", &whole[..whole.len() / 2]);
        let warned = |run: &SequentialRun| {
            let warning = run.warning.as_deref().unwrap_or_default();
            assert!(
                warning.contains("row 2: an append was cut short"),
                "{warning:?}"
            );
        };

        fs::write(&ledger, &torn).unwrap();
        let repeat = run_on(&decided, &ledger);
        assert!(repeat.report.ledger.as_ref().unwrap().repeated);
        warned(&repeat);

        // An undecided look of a new candidate opens attempt 2, and so removes the torn row.
        let undecided = files(dir.path(), 2);
        let pending = run_on(&undecided, &ledger);
        assert_eq!(pending.status, Standing::Continue);
        assert_eq!(pending.report.ledger.as_ref().unwrap().attempt, 2);
        warned(&pending);
        assert_eq!(fs::read_to_string(&ledger).unwrap().lines().count(), 2);

        let mut lost = files(dir.path(), 30);
        let candidate = fs::read_to_string(&lost.candidate).unwrap();
        lost.candidate = dir.path().join("c2.csv");
        fs::write(&lost.candidate, candidate.replace("t001,1", "t001,0")).unwrap();
        let third = run_on(&lost, &ledger);
        assert_eq!(third.report.ledger.as_ref().unwrap().attempt, 3);
        assert_eq!(third.warning, None);
        assert_eq!(fs::read_to_string(&ledger).unwrap().lines().count(), 3);
    }
}
