//! `admit --sequential`: read the two scores files and the order fixed before scoring,
//! take the pairs scored in both files (which must be a prefix of the order), replay the
//! monitoring a user who looked after every pair would have done
//! ([`crate::stats::sequential::Monitor`]), and report where it stands: admitted,
//! refused, or continue. A decided run is one attempt in the ledger, however many
//! looks it took.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::admit::Input;
use super::outcome::{AttemptLedger, AttemptOn, CommandOutcome, Status, Write, decide_under};
use crate::admission::{Baseline, Keep, StrataRequest, TaskList, Test, TestChoice, Verdict};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::base::numbers::count;
use crate::digest::sha256_hex;
use crate::error::InputError;
use crate::ledger;
use crate::plot::{EValuePlot, e_value_svg};
use crate::report::sequential::{
    E_VALUE_CAP, FinalLookReport, SCHEMA, SequentialInterval, SequentialReport, StratumEvidence,
    markdown_report, power_text, text,
};
use crate::report::{LedgerInfo, ReportFormat, SummaryFormat, json};
use crate::stats::sequential::{Design, FinalTest, Monitor, Reason, Standing};
use crate::stats::signed_rank::ZeroMethod;
use crate::table::Table;

/// The files of one sequential run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SequentialFiles {
    /// The baseline's scores (may hold more tasks than the candidate's).
    pub baseline: PathBuf,
    /// The candidate's scores so far.
    pub candidate: PathBuf,
    /// The order: a table whose `task_id` column lists every holdout task, in the order
    /// fixed before any output was seen.
    pub order: PathBuf,
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

/// The pairs to monitor, in the order: (difference, stratum) for each.
struct Ordered {
    differences: Vec<(f64, Option<String>)>,
    binary: bool,
    holdout: Vec<String>,
}

/// Runs `admit --sequential`; a decided run is recorded in `ledger`, if any.
pub(crate) fn sequential(
    files: &SequentialFiles,
    settings: &SequentialSettings,
    ledger: Option<&mut dyn AttemptLedger>,
) -> anyhow::Result<SequentialRun> {
    let baseline = Input::read(&files.baseline)?;
    let candidate = Input::read(&files.candidate)?;
    let order_input = Input::read(&files.order)?;
    let order = TaskList::from_table(&Table::parse(&order_input.path, &order_input.bytes)?)?;
    let ordered = read_ordered(&baseline, &candidate, &order, settings)?;
    let inputs = vec![
        input_file("baseline", &baseline),
        input_file("candidate", &candidate),
        input_file("order", &order_input),
    ];
    let holdout_sha256 = ledger::holdout_identity(&ordered.holdout);
    let run_at = |alpha: Alpha| monitor(&ordered, settings, alpha);
    let Some(recorder) = ledger else {
        let monitor = run_at(settings.alpha)?;
        return Ok(finish(&monitor, &ordered, settings, inputs, None));
    };
    // Owned: the recorder is lent out again to record the attempt.
    let path = recorder.path().to_path_buf();
    let declared = settings.alpha.get();
    let (records, torn) = read_records(&path)?;
    // A run decided before on the same pairs (a longer file decided at the same look)
    // with the same test, p-value and verdict repeats that attempt: nothing is spent
    // again.
    let earlier: Vec<&ledger::Record> = records
        .iter()
        .filter(|r| r.holdout_sha256 == holdout_sha256)
        .collect();
    for record in &earlier {
        let monitor = run_at(record.level()?)?;
        if monitor.status() != Standing::Continue
            && record.repeated_by(&decision(&monitor, &ordered))
        {
            let info = LedgerInfo::of(&path, record, true, earlier.len() as u64);
            return Ok(finish(&monitor, &ordered, settings, inputs, Some(info)).warned(torn));
        }
    }
    // An undecided run records nothing: it runs at the alpha its attempt will have.
    let next = ledger::next_attempt(&records, &holdout_sha256, declared)
        .map_err(|e| anyhow::anyhow!("`{}`: {e}", path.display()))?;
    let peek = run_at(next.alpha)?;
    if peek.status() == Standing::Continue {
        let info = LedgerInfo::of(&path, &next.record(placeholder()), false, next.attempt - 1);
        return Ok(finish(&peek, &ordered, settings, inputs, Some(info)).warned(torn));
    }
    // The attempt is identified by the pairs used up to the decision, so a longer file
    // decided at the same look repeats it instead of spending again.
    let (baseline_sha256, candidate_sha256) = used_digests(&ordered, peek.pairs() as usize);
    let look = AttemptOn {
        holdout_sha256: &holdout_sha256,
        declared_alpha: declared,
        inputs: crate::atomic::ledger::Inputs {
            baseline_sha256: &baseline_sha256,
            candidate_sha256: &candidate_sha256,
        },
    };
    let entry = decide_under(recorder, look, |alpha| {
        let monitor = run_at(alpha)?;
        Ok((decision(&monitor, &ordered), monitor))
    })?;
    let info = LedgerInfo::of(&path, &entry.record, entry.repeated, entry.attempts);
    // Read again under the lock: the warning of the read that the append follows.
    Ok(finish(&entry.value, &ordered, settings, inputs, Some(info)).warned(entry.warning))
}

/// What a decided `monitor` records: the attempt is identified by the pairs used up to
/// the decision ([`used_digests`]).
fn decision(monitor: &Monitor, ordered: &Ordered) -> ledger::Decision {
    let (baseline_sha256, candidate_sha256) = used_digests(ordered, monitor.pairs() as usize);
    ledger::Decision {
        candidate_sha256,
        baseline_sha256,
        test: format!("sequential-{}", test_name(ordered.binary)),
        n: monitor.pairs(),
        p_improvement: p_improvement(monitor),
        verdict: match monitor.status() {
            Standing::Admitted => Verdict::Admitted,
            _ => Verdict::Refused,
        },
    }
}

fn placeholder() -> ledger::Decision {
    ledger::Decision {
        candidate_sha256: String::new(),
        baseline_sha256: String::new(),
        test: String::new(),
        n: 0,
        p_improvement: 1.0,
        verdict: Verdict::Refused,
    }
}

/// The records of the ledger at `path` (none when it does not exist yet) and the
/// warning for a torn last record, if any.
fn read_records(path: &Path) -> anyhow::Result<(Vec<ledger::Record>, Option<String>)> {
    if !path.exists() {
        return Ok((Vec::new(), None));
    }
    // The same guarded read as `ledger show`: no FIFO, no device, at most the cap.
    let text = crate::atomic::ledger::read_guarded(path)?;
    let source = path.display().to_string();
    let ledger = ledger::read_ledger(&source, &text)?;
    Ok((ledger.records, ledger.tail.warning(&source)))
}

/// The identity of a decided run in the ledger: SHA-256 of the first `used` pairs in
/// the order (task, side, difference), one for each side.
fn used_digests(ordered: &Ordered, used: usize) -> (String, String) {
    let digest = |side: &str| {
        let text: String = ordered.holdout[..used]
            .iter()
            .zip(&ordered.differences)
            .map(|(task, (d, _))| format!("{task}\t{side}\t{d}\n"))
            .collect();
        sha256_hex(text.as_bytes())
    };
    (digest("baseline"), digest("candidate"))
}

fn input_file(role: &str, input: &Input) -> crate::report::InputFile {
    crate::report::InputFile {
        role: role.to_string(),
        path: input.path.clone(),
        sha256: sha256_hex(&input.bytes),
    }
}

fn test_name(binary: bool) -> &'static str {
    if binary { "mcnemar" } else { "signed-rank" }
}

/// The task ids of a scores file with their rows.
fn task_rows(input: &Input) -> Result<BTreeMap<String, u64>, InputError> {
    let table = Table::parse(&input.path, &input.bytes)?;
    let id = table.require("task_id")?;
    Ok(table
        .rows
        .iter()
        .map(|row| (row.fields[id].trim().to_string(), row.line))
        .collect())
}

/// The pairs scored in both files, checked to be a prefix of the order, in its order.
fn read_ordered(
    baseline: &Input,
    candidate: &Input,
    order: &TaskList,
    settings: &SequentialSettings,
) -> anyhow::Result<Ordered> {
    let in_baseline = task_rows(baseline)?;
    let in_candidate = task_rows(candidate)?;
    let position: BTreeMap<&str, usize> = order
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
            order.source
        );
    }
    let scored = |task: &str| in_baseline.contains_key(task) && in_candidate.contains_key(task);
    let used = order
        .tasks
        .iter()
        .position(|(task, _)| !scored(task))
        .unwrap_or(order.tasks.len());
    if let Some((late, _)) = order.tasks[used..].iter().find(|(task, _)| scored(task)) {
        let (gap, gap_row) = &order.tasks[used];
        let lacking = if in_candidate.contains_key(gap.as_str()) {
            &baseline.path
        } else {
            &candidate.path
        };
        anyhow::bail!(
            "task `{late}` (position {} of `{}`) is scored out of order: `{gap}` (position {}, row {gap_row}) comes before it and is missing from `{lacking}`; score the tasks in the order, or leave `{late}` out until `{gap}` is scored",
            position[late.as_str()] + 1,
            order.source,
            used + 1
        );
    }
    if used == 0 {
        let (first, _) = &order.tasks[0];
        anyhow::bail!(
            "the first task of `{}`, `{first}`, is not scored in both files: there is nothing to look at yet",
            order.source
        );
    }
    let prefix = TaskList {
        source: order.source.clone(),
        tasks: order.tasks[..used].to_vec(),
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
    let differences = prefix
        .tasks
        .iter()
        .map(|(task, _)| {
            let pair = by_task[task.as_str()];
            let difference = if binary {
                f64::from(u8::from(pair.candidate.correct == Some(true)))
                    - f64::from(u8::from(pair.baseline.correct == Some(true)))
            } else {
                pair.difference()
            };
            (difference, pairs.stratum(pair).map(str::to_string))
        })
        .collect();
    Ok(Ordered {
        differences,
        binary,
        holdout: order.tasks.iter().map(|(task, _)| task.clone()).collect(),
    })
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
    for (difference, stratum) in &ordered.differences {
        if monitor.push(*difference, stratum.as_deref()) != Standing::Continue {
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

fn capped(log_e: f64) -> f64 {
    log_e.exp().min(E_VALUE_CAP)
}

fn build_report(
    monitor: &Monitor,
    ordered: &Ordered,
    settings: &SequentialSettings,
    inputs: Vec<crate::report::InputFile>,
    ledger: Option<LedgerInfo>,
) -> SequentialReport {
    let alpha = monitor.design().alpha.get();
    let look = monitor.pairs();
    let last = monitor
        .looks()
        .last()
        .expect("at least one pair was pushed");
    let interval = monitor.interval().expect("at least one pair was pushed");
    let mean = monitor
        .mean_difference()
        .expect("at least one pair was pushed");
    let strata = monitor
        .strata()
        .into_iter()
        .map(|(name, look)| StratumEvidence {
            pairs: look.pairs,
            stratum: name,
            e_value: capped(look.log_e_regression),
        })
        .collect();
    let (verdict, reason) = match (monitor.status(), monitor.decision()) {
        (Standing::Admitted, Some((reason, t))) => ("admitted", sentence(reason, t, monitor)),
        (Standing::Refused, Some((reason, t))) => ("refused", sentence(reason, t, monitor)),
        _ => (
            "continue",
            format!(
                "not decided after {look} of {}: score the next tasks in the order and run again",
                count(ordered.holdout.len() as u64, "task")
            ),
        ),
    };
    let final_look = monitor.final_test().map(|test| {
        let (method, alpha) = match test {
            FinalTest::Binomial { look, wins } => (
                format!(
                    "exact binomial test on {} discordant pairs ({wins} for the candidate; admits from {})",
                    look.discordant, look.critical
                ),
                look.alpha_left,
            ),
            FinalTest::SignedRank { alpha, .. } => (
                "exact signed-rank test (and a positive mean)".to_string(),
                alpha.map_or(0.0, Alpha::get),
            ),
        };
        FinalLookReport {
            method,
            alpha,
            p_value: test.p_value(),
            fixed_n_p_value: test.fixed_n_p_value(),
            shown: test.shown(),
        }
    });
    SequentialReport {
        schema: SCHEMA.to_string(),
        verdict: verdict.to_string(),
        reason,
        test: test_name(ordered.binary).to_string(),
        alpha,
        margin: settings.margin,
        holdout_tasks: ordered.holdout.len() as u64,
        pairs_scored: ordered.differences.len() as u64,
        look,
        e_value: capped(last.log_e_improvement),
        log10_e_value: last.log_e_improvement / std::f64::consts::LN_10,
        threshold: monitor.threshold(),
        interval: SequentialInterval {
            low: interval.low,
            high: interval.high,
            confidence: interval.confidence,
        },
        mean_difference: mean,
        tasks_needed: (monitor.status() == Standing::Continue)
            .then(|| monitor.tasks_needed())
            .flatten(),
        final_look,
        strata,
        ledger,
        inputs,
    }
}

/// Why the run stopped at look `t`.
fn sentence(reason: &Reason, t: u64, monitor: &Monitor) -> String {
    let n = monitor.design().holdout;
    let every = if n == 1 {
        "the one task".to_string()
    } else {
        format!("every one of the {n} tasks")
    };
    match reason {
        Reason::ImprovementShown => format!(
            "the improvement e-value reached {} at look {t} of {n}",
            crate::base::numbers::number(monitor.threshold())
        ),
        Reason::CannotBeBetter => format!(
            "at look {t} of {n} the anytime-valid upper bound on the improvement fell to {} or below: the candidate cannot be better",
            crate::base::numbers::number(monitor.design().margin)
        ),
        Reason::StratumRegressed(name) => format!(
            "at look {t} of {n} stratum `{name}` significantly regressed (its regression e-value reached {})",
            crate::base::numbers::number(1.0 / monitor.design().alpha.get())
        ),
        Reason::StratumRegressedAtLastLook(name) => format!(
            "{every} was scored undecided; the exact test of the last look showed the improvement, but stratum `{name}`'s exact regression test was significant at alpha {}",
            crate::base::numbers::number(monitor.design().alpha.get())
        ),
        Reason::FinalLook { shown: true } => format!(
            "{every} was scored undecided, and the exact test of the last look at the alpha left over showed the improvement"
        ),
        Reason::FinalLook { shown: false } => format!(
            "{every} was scored undecided, and the exact test of the last look at the alpha left over did not show an improvement"
        ),
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
/// ±2.2 points.
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
    let report = crate::report::sequential::SequentialPowerReport {
        schema: "evogate/power-sequential/v1",
        alpha: alpha.get(),
        shift,
        discordance,
        holdout,
        fixed_n_for_80_power: fixed,
        fixed_n_power_at_holdout: mcnemar_power(holdout, discordance, shift, alpha.get()),
        sequential: operating,
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
    use crate::atomic::ledger::{Entry, record_or_repeat};
    use crate::pipeline::outcome::Decide;

    /// The ledger file as `admit --ledger` takes it: [`record_or_repeat`] under its lock.
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
                on.holdout_sha256,
                on.declared_alpha,
                on.inputs,
                |alpha| decide(alpha).map(|decision| (decision, ())),
            )
        }
    }

    /// An order of 40 tasks; the candidate wins the first `wins` and loses none.
    fn files(dir: &Path, wins: usize) -> SequentialFiles {
        let order: String = (0..40).map(|i| format!("t{i:03}\n")).collect();
        let scores = |correct: u8| -> String {
            let rows: String = (0..wins)
                .map(|i| format!("t{i:03},{correct},{correct}\n"))
                .collect();
            format!("task_id,correct,score\n{rows}")
        };
        fs::write(dir.join("order.csv"), format!("task_id\n{order}")).unwrap();
        fs::write(dir.join("b.csv"), scores(0)).unwrap();
        fs::write(dir.join("c.csv"), scores(1)).unwrap();
        SequentialFiles {
            baseline: dir.join("b.csv"),
            candidate: dir.join("c.csv"),
            order: dir.join("order.csv"),
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
        let order: String = (0..20).map(|i| format!("t{i:03}\n")).collect();
        fs::write(&files.order, format!("task_id\n{order}")).unwrap();

        let first = run_under(&files, &ledger, TestChoice::SignedRank);
        assert_eq!((first.status, first.report.look), (Standing::Refused, 20));
        let second = run_under(&files, &ledger, TestChoice::Auto);
        assert_eq!(second.report.look, 20);
        let info = second.report.ledger.as_ref().unwrap();
        assert_eq!((info.attempt, info.repeated), (2, false));
        assert_eq!(fs::read_to_string(&ledger).unwrap().lines().count(), 2);
    }

    /// A ledger whose last append was cut short (killed between two writes) is named
    /// in a warning on every path: the run that continues, the one that repeats an
    /// attempt, and the one that records a new attempt (and so removes the torn row).
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

        let undecided = files(dir.path(), 2);
        let pending = run_on(&undecided, &ledger);
        assert_eq!(pending.status, Standing::Continue);
        warned(&pending);
        assert_eq!(fs::read_to_string(&ledger).unwrap(), torn);

        let mut lost = files(dir.path(), 30);
        let candidate = fs::read_to_string(&lost.candidate).unwrap();
        lost.candidate = dir.path().join("c2.csv");
        fs::write(&lost.candidate, candidate.replace("t001,1", "t001,0")).unwrap();
        let second = run_on(&lost, &ledger);
        assert_eq!(second.report.ledger.as_ref().unwrap().attempt, 2);
        warned(&second);
        assert_eq!(fs::read_to_string(&ledger).unwrap().lines().count(), 2);
    }
}
