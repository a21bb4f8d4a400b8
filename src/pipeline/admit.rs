//! The admission use case: read two scores files (and optionally the holdout's tasks
//! file and manifest), pair them, take the level (the ledger's, under the
//! [`AttemptLedger`] the command hands in), decide once, and hand back the report with the pairs behind it. `admit`, `audit`'s
//! reruns and `demo` all come through here.

mod streams;
#[cfg(test)]
mod streams_oracle;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use self::streams::{Stream, StreamedSource, Streams, prepare_streamed};

use super::outcome::{AttemptLedger, AttemptOn, CommandOutcome, Status, Write, decide_under};
use super::{open_file, read_file};
use crate::admission::repeats::{self, RepeatCounts};
use crate::admission::rows::PairRows;
use crate::admission::stream::{HoldoutFacts, Reopen, Tuning};
use crate::admission::{
    Admission, Answers, Baseline, Config, HoldoutRecord, Joined, Keep, Margin, Pairs, QuestionName,
    Statistics, StrataChoice, StrataRequest, Test, TestChoice, TestName, Verdict, decide,
    decide_summary,
};
use crate::alpha::Alpha;
use crate::atomic::ledger::Inputs;
use crate::atomic::{FileToWrite, StreamedFile};
use crate::digest::sha256_hex;
use crate::error::InputError;
use crate::ledger;
use crate::report::{
    InputFile, LedgerInfo, Report, ReportFormat, json, markdown, pairs, svg, text,
};
use crate::stats::signed_rank::ZeroMethod;
use crate::table::Table;
use crate::table::ahead::RowsAhead;

/// An input file: its path as it should appear in reports, and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Input {
    /// The path as given (or, for the demo, relative to the repository).
    pub path: String,
    /// The file's contents.
    pub bytes: Vec<u8>,
}

impl Input {
    /// Reads `path`, keeping it as given.
    pub(crate) fn read(path: &Path) -> anyhow::Result<Input> {
        Ok(Input {
            path: path.display().to_string(),
            bytes: read_file(path)?,
        })
    }

    fn digest(&self, role: &str) -> InputFile {
        InputFile {
            role: role.to_string(),
            path: self.path.clone(),
            sha256: sha256_hex(&self.bytes),
        }
    }
}

/// The settings of one admission, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AdmitSettings {
    /// The level.
    pub alpha: Alpha,
    /// `--test`.
    pub test: TestChoice,
    /// `--zero-method`.
    pub zero: ZeroMethod,
    /// `--strata`, absent for `none`.
    pub strata: Option<StrataRequest>,
    /// `--margin`.
    pub margin: Option<Margin>,
    /// `--cluster group`.
    pub cluster: bool,
    /// `--allow-missing`: decide on unanswered tasks as wrong answers instead of
    /// refusing.
    pub allow_missing: bool,
}

impl AdmitSettings {
    /// The admission's configuration once the test is resolved and the manifest read:
    /// the same for files, bytes and a summary.
    fn config(&self, test: Test, holdout: Option<HoldoutRecord>) -> Config {
        Config {
            alpha: self.alpha,
            test,
            margin: self.margin,
            holdout,
            cluster: self.cluster,
            answers: Answers {
                allow_missing: self.allow_missing,
                ..Answers::default()
            },
        }
    }
}

/// The files of one `admit` run, read as streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AdmitFiles {
    /// The baseline's scores.
    pub baseline: PathBuf,
    /// The candidate's scores.
    pub candidate: PathBuf,
    /// The tasks file that fixes the task set, if any.
    pub tasks: Option<PathBuf>,
    /// The manifest `split` wrote, if any.
    pub manifest: Option<PathBuf>,
    /// Whether `pairs.csv` will be written: the baseline's feedback and every pair's
    /// candidate feedback are then kept (otherwise only the losses' feedback).
    pub keep_feedback: bool,
    /// Whether some output records the inputs' SHA-256 (a report that lists them, a
    /// ledger): otherwise the tasks file (but with a manifest, whose check compares
    /// its digest) and the manifest read as streams are not digested.
    pub digests_shown: bool,
}

/// What one `admit` decides on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AdmitOn {
    /// Two scores files (with the tasks file and the manifest).
    Files(AdmitFiles),
    /// Two scores files already read (with the tasks file and the manifest), as the
    /// demo and `audit`'s reruns have them.
    Bytes {
        /// The baseline's scores.
        baseline: Input,
        /// The candidate's scores.
        candidate: Input,
        /// The tasks file that fixes the task set, if any.
        tasks: Option<Input>,
        /// The manifest `split` wrote, if any.
        manifest: Option<Input>,
        /// Whether the pairs are held in memory ([`PairRows::Held`], as `calibrate`
        /// compares runs pair by pair) rather than read as streams.
        held: bool,
    },
    /// A summary document of the pairs.
    Summary {
        /// The summary document.
        summary: PathBuf,
        /// The manifest `split` wrote, if any (required with a ledger).
        manifest: Option<PathBuf>,
    },
}

/// One `admit` run: the evidence, the report folder and the format of the printed
/// report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AdmitRequest {
    /// What is decided on.
    pub evidence: AdmitOn,
    /// `--report-dir`.
    pub report_dir: Option<PathBuf>,
    /// `--format`.
    pub format: ReportFormat,
}

/// Runs `admit`: decides once (under `ledger`, if any) and hands back the report to
/// print, the report folder and the step summary to write, and the pairs to hold until
/// the process exits.
pub(crate) fn run(
    request: &AdmitRequest,
    settings: &AdmitSettings,
    ledger: Option<&mut dyn AttemptLedger>,
) -> anyhow::Result<CommandOutcome> {
    let mut evaluation = evaluate(&request.evidence, settings, ledger)?;
    // pairs.csv and the paired-scores plot are streamed into the folder, never held
    // whole (millions of pairs with their feedback); the pairs are shared with the
    // process exit, which frees them.
    let pairs = evaluation.pairs.take().map(Arc::new);
    let folder = (request.report_dir.as_ref())
        .map(|dir| (dir, report_folder(dir, &evaluation.report, pairs.as_ref())));
    let report = &evaluation.report;
    let mut notes = std::mem::take(&mut evaluation.notes);
    notes.extend(report.ledger.as_ref().map(ledger_note));
    notes.extend(
        report
            .admission
            .cluster
            .as_ref()
            .and_then(|c| c.warning.clone()),
    );
    if let Some(repeats) = &report.admission.repeats {
        notes.push(format!("repeats: {}", repeats.tested_on));
        notes.extend(repeats.warnings.iter().map(|w| format!("repeats: {w}")));
    }
    let mut writes = Vec::new();
    if let Some((dir, (files, streamed))) = folder {
        let count = files.len() + streamed.len();
        notes.push(format!("wrote {count} files to {}", dir.display()));
        writes.push(Write::Folder {
            dir: dir.clone(),
            files,
            large: streamed,
        });
    }
    writes.push(Write::StepSummary(markdown::render(report)));
    let stdout = match request.format {
        ReportFormat::Json => json::render(report),
        ReportFormat::Markdown => markdown::render(report),
        ReportFormat::Text => text::render(report),
    };
    let status = match report.admission.verdict {
        Verdict::Admitted => Status::Success,
        Verdict::Refused | Verdict::Inconclusive => Status::Negative,
    };
    let mut outcome = CommandOutcome::new(status, stdout);
    outcome.notes = notes;
    outcome.writes = writes;
    Ok(outcome.holding(evaluation).holding(pairs))
}

/// Where the attempt stands in the ledger, or that it repeated an earlier one.
fn ledger_note(info: &LedgerInfo) -> String {
    if info.repeated {
        format!(
            "ledger {}: these scores files were decided alike as attempt {} on this holdout already; no new attempt is spent (decided again at that attempt's alpha {})",
            info.path, info.attempt, info.alpha_this_attempt
        )
    } else {
        format!(
            "ledger {}: attempt {} on this holdout, alpha {}",
            info.path, info.attempt, info.alpha_this_attempt
        )
    }
}

/// A decided admission with the pairs behind it.
#[derive(Debug, Clone)]
pub(crate) struct Evaluation {
    /// The report.
    pub report: Report,
    /// The pairs, sorted by task; absent when the decision was on a summary (or on
    /// scores files read as streams without a report folder).
    pub pairs: Option<PairRows>,
    /// What to tell the user besides the report, e.g. that a torn ledger record was
    /// skipped.
    pub notes: Vec<String>,
}

/// Everything a decision needs besides the level, checked before any ledger is touched
/// so that a refused setting never opens one.
struct Prepared<'a> {
    source: Source,
    /// What the repeats say, when the scores held repeats of items (the pairs are then
    /// the items).
    repeats: Option<RepeatCounts>,
    inputs: Vec<InputFile>,
    /// The decision's settings, at `settings.alpha` until [`Prepared::decide_at`].
    config: Config,
    settings: &'a AdmitSettings,
}

/// What a decision is taken on: the pairs, their sufficient statistics, or what was
/// kept of scores files read as streams.
enum Source {
    Pairs(Pairs),
    Statistics(Statistics),
    Streamed(Box<StreamedSource>),
}

impl Prepared<'_> {
    /// Decides at `alpha` (more than once only when a ledger checks for a repeat).
    fn decide_at(&mut self, alpha: Alpha) -> Admission {
        self.config.alpha = alpha;
        let mut admission = match &self.source {
            Source::Pairs(pairs) => decide(pairs, &self.config),
            Source::Statistics(summary) => decide_summary(summary, &self.config),
            Source::Streamed(source) => {
                let facts = source
                    .recorded
                    .as_ref()
                    .map(|(manifest, recorded)| HoldoutFacts {
                        manifest,
                        recorded,
                        tasks_file: source.tasks_file.as_ref(),
                    });
                source.streamed.decide(&self.config, facts.as_ref())
            }
        };
        admission.repeats = (self.repeats.as_ref()).and_then(|r| r.view(alpha.confidence()));
        admission
    }

    /// The evaluation of `admission`, decided on these pairs or statistics.
    fn evaluation(self, admission: Admission) -> Evaluation {
        Evaluation {
            report: Report::new(admission, self.inputs),
            pairs: match self.source {
                Source::Pairs(pairs) => Some(PairRows::Held(pairs)),
                Source::Statistics(_) => None,
                Source::Streamed(mut source) => streams::rows_of(&mut source),
            },
            notes: Vec::new(),
        }
    }

    /// The holdout's identity in the ledger: the SHA-256 of the sorted task ids of the
    /// holdout the manifest records, never of the tasks a run declares (renamed or
    /// fewer tasks would otherwise open a fresh holdout with its full alpha). A run
    /// whose tasks are not that holdout spends its attempt there and is refused by
    /// holdout-intact.
    fn holdout_identity(&self) -> anyhow::Result<String> {
        let streamed = match &self.source {
            Source::Streamed(source) => source.recorded.as_ref(),
            _ => None,
        };
        if let Some((_, recorded)) = streamed {
            return recorded
                .identity
                .clone()
                .ok_or_else(|| anyhow::anyhow!("the holdout's identity was not computed"));
        }
        match &self.config.holdout {
            Some(holdout) => Ok(holdout.identity()),
            None => anyhow::bail!(
                "--ledger needs --manifest: the ledger spends alpha per holdout, and only the manifest `split` wrote says which holdout this is"
            ),
        }
    }
}

/// `admit --summary`: reads the summary document (and the manifest, for the holdout)
/// and resolves the test and the strata against it.
fn prepare_summary<'a>(
    path: &Path,
    manifest: Option<&Path>,
    settings: &'a AdmitSettings,
) -> anyhow::Result<Prepared<'a>> {
    let input = Input::read(path)?;
    let manifest = manifest.map(Input::read).transpose()?;
    let mut summary = crate::admission::sufficient::document::read(&input.path, &input.bytes)?;
    let found = summary.strata.as_ref().map(|s| s.column.as_str());
    match StrataRequest::choose(settings.strata.as_ref(), found) {
        StrataChoice::By(_) => {}
        StrataChoice::Unstratified => summary.strata = None,
        StrataChoice::Missing(request) => anyhow::bail!(
            "--strata {}: `{}` {}; give {}, or recompute the summary by `{}`",
            request.column,
            input.path,
            found.map_or("is not stratified".to_string(), |column| format!(
                "is stratified by `{column}`"
            )),
            found.map_or("--strata none".to_string(), |column| format!(
                "--strata {column} or none"
            )),
            request.column
        ),
    }
    let test = settings.test.resolve_columns(
        (
            summary.both_correct(),
            summary.baseline_has_correct,
            summary.candidate_has_correct,
        ),
        settings.zero,
        &summary.baseline,
        &summary.candidate,
    )?;
    let holdout = match &manifest {
        Some(m) => Some(HoldoutRecord::from_manifest(&m.path, &m.bytes, None)?),
        None => None,
    };
    let config = settings.config(test, holdout);
    let mut inputs = vec![input.digest("summary")];
    inputs.extend(manifest.map(|m| m.digest("manifest")));
    Ok(Prepared {
        inputs,
        source: Source::Statistics(summary),
        repeats: None,
        config,
        settings,
    })
}

/// The one admission entry: pairs and decides two scores files (streamed, or already
/// read), or a summary of the pairs, once; under `ledger` when there is one, at the
/// level it leaves for this attempt (the attempt is recorded under its lock), else at
/// `settings.alpha`. Errors are inputs that cannot be used (exit status 2).
pub(crate) fn evaluate(
    on: &AdmitOn,
    settings: &AdmitSettings,
    ledger: Option<&mut dyn AttemptLedger>,
) -> anyhow::Result<Evaluation> {
    // The holdout's identity is only wanted by a ledger.
    let identity = ledger.is_some();
    // Notes about the import records read come before the decision's own.
    let (mut prepared, first_notes) = match on {
        AdmitOn::Summary { summary, manifest } => (
            prepare_summary(summary, manifest.as_deref(), settings)?,
            Vec::new(),
        ),
        AdmitOn::Files(files) => {
            let imports = super::import::check_imports(&files.baseline, &files.candidate)?;
            let check = |base: &str, cand: &str| {
                imports.check_scores([&files.baseline, &files.candidate], [base, cand])
            };
            let mut prepared = prepare_files(files, identity, &check, settings)?;
            if let Some(repeats) = prepared.repeats.as_mut() {
                repeats.extra_warnings = imports.identical_repeats.clone();
            }
            prepared.config.answers.left_out = imports.left_out;
            prepared.config.answers.selected_on_these_scores = imports.selected_on_these_scores;
            prepared.inputs.extend(imports.records);
            (prepared, imports.notes)
        }
        AdmitOn::Bytes {
            baseline,
            candidate,
            tasks,
            manifest,
            held,
        } => {
            let unchecked = |_: &str, _: &str| Ok(());
            let hold = || {
                let scores = [baseline, candidate].map(|input| {
                    (
                        input.path.clone(),
                        std::io::Cursor::new(input.bytes.clone()),
                    )
                });
                prepare_streams(
                    scores,
                    tasks.as_ref(),
                    manifest.as_ref(),
                    true,
                    &unchecked,
                    settings,
                )
            };
            let prepared = if *held {
                hold()?
            } else {
                let reopen = |input: &Input| {
                    let bytes = input.bytes.clone();
                    move || -> std::io::Result<Box<dyn Read + Send>> {
                        Ok(Box::new(std::io::Cursor::new(bytes.clone())))
                    }
                };
                let reopens = [baseline, candidate].map(reopen);
                let tasks_reopen = tasks.as_ref().map(reopen);
                let manifest_reopen = manifest.as_ref().map(reopen);
                let streams = Streams {
                    scores: [
                        input_stream(baseline, &reopens[0])?,
                        input_stream(candidate, &reopens[1])?,
                    ],
                    tasks: tasks
                        .as_ref()
                        .zip(tasks_reopen.as_ref())
                        .map(|(t, r)| input_stream(t, r))
                        .transpose()?,
                    manifest: manifest
                        .as_ref()
                        .zip(manifest_reopen.as_ref())
                        .map(|(m, r)| input_stream(m, r))
                        .transpose()?,
                    presume: false,
                    digest_tasks: true,
                    digest_manifest: true,
                };
                let streamed = prepare_streamed(
                    streams,
                    true,
                    identity,
                    &unchecked,
                    settings,
                    Tuning::default(),
                )?;
                match streamed {
                    Ok(prepared) => prepared,
                    Err(_) => hold()?,
                }
            };
            (prepared, Vec::new())
        }
    };
    let mut evaluation = match ledger {
        Some(recorder) => under_ledger(recorder, prepared)?,
        None => {
            let admission = prepared.decide_at(settings.alpha);
            prepared.evaluation(admission)
        }
    };
    evaluation.notes.splice(0..0, first_notes);
    Ok(evaluation)
}

/// An input already read, as a stream.
fn input_stream<'r>(input: &Input, reopen: Reopen<'r>) -> anyhow::Result<Stream<'r>> {
    Ok(Stream {
        path: input.path.clone(),
        input: reopen()?,
        reopen,
    })
}

/// A file opened, as a stream.
fn file_stream<'r>(path: &Path, file: std::fs::File, reopen: Reopen<'r>) -> Stream<'r> {
    Stream {
        path: path.display().to_string(),
        input: Box::new(file),
        reopen,
    }
}

/// `admit` on files: read as streams ([`streams::prepare_streamed`]) when every one is a
/// regular file, which can be read again to name a repeated task; otherwise (a pipe)
/// or when the streams hand back, read the way that holds them
/// ([`prepare_streams`]).
fn prepare_files<'a>(
    files: &AdmitFiles,
    identity: bool,
    check_digests: &dyn Fn(&str, &str) -> anyhow::Result<()>,
    settings: &'a AdmitSettings,
) -> anyhow::Result<Prepared<'a>> {
    // Every file is opened before any is parsed, so an unreadable one is reported
    // first.
    let baseline = open_file(&files.baseline)?;
    let candidate = open_file(&files.candidate)?;
    let tasks = files.tasks.as_deref().map(open_file).transpose()?;
    let manifest = files.manifest.as_deref().map(open_file).transpose()?;
    let regular = [
        Some(&baseline),
        Some(&candidate),
        tasks.as_ref(),
        manifest.as_ref(),
    ]
    .into_iter()
    .flatten()
    .all(|file| file.metadata().is_ok_and(|m| m.is_file()));
    let reopen = |path: &Path| {
        let path = path.to_path_buf();
        move || -> std::io::Result<Box<dyn Read + Send>> {
            Ok(Box::new(std::fs::File::open(&path)?))
        }
    };
    let reopens = [&files.baseline, &files.candidate].map(|p| reopen(p));
    let tasks_reopen = files.tasks.as_deref().map(reopen);
    let manifest_reopen = files.manifest.as_deref().map(reopen);
    let held =
        |baseline: std::fs::File, candidate: std::fs::File| -> anyhow::Result<Prepared<'a>> {
            let tasks = files.tasks.as_deref().map(Input::read).transpose()?;
            let manifest = files.manifest.as_deref().map(Input::read).transpose()?;
            let scores = [
                (files.baseline.display().to_string(), baseline),
                (files.candidate.display().to_string(), candidate),
            ];
            prepare_streams(
                scores,
                tasks.as_ref(),
                manifest.as_ref(),
                files.keep_feedback,
                check_digests,
                settings,
            )
        };
    if !regular {
        return held(baseline, candidate);
    }
    let streams = [
        Stream {
            path: files.baseline.display().to_string(),
            input: Box::new(baseline),
            reopen: &reopens[0],
        },
        Stream {
            path: files.candidate.display().to_string(),
            input: Box::new(candidate),
            reopen: &reopens[1],
        },
    ];
    let tasks = match (files.tasks.as_deref(), tasks, tasks_reopen.as_ref()) {
        (Some(path), Some(file), Some(reopen)) => Some(file_stream(path, file, reopen)),
        _ => None,
    };
    let manifest = match (
        files.manifest.as_deref(),
        manifest,
        manifest_reopen.as_ref(),
    ) {
        (Some(path), Some(file), Some(reopen)) => Some(file_stream(path, file, reopen)),
        _ => None,
    };
    let streams = Streams {
        scores: streams,
        tasks,
        manifest,
        presume: !files.keep_feedback,
        digest_tasks: files.digests_shown || files.manifest.is_some(),
        digest_manifest: files.digests_shown,
    };
    let streamed = prepare_streamed(
        streams,
        files.keep_feedback,
        identity,
        check_digests,
        settings,
        Tuning::default(),
    )?;
    match streamed {
        Ok(prepared) => Ok(prepared),
        Err(_) => held(open_file(&files.baseline)?, open_file(&files.candidate)?),
    }
}

/// Streams the baseline's and the candidate's scores (each path as given, with its
/// stream), digesting them on the way so a file is never held whole (`admit` on 10^6
/// pairs), and pairs them; `keep_feedback` keeps every pair's feedback for `pairs.csv`
/// (otherwise only the losses'); `check_digests` sees the two files' SHA-256 before
/// they are paired.
fn prepare_streams<'a, R: std::io::Read + Send + 'static>(
    [(baseline_path, baseline), (candidate_path, candidate)]: [(String, R); 2],
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    keep_feedback: bool,
    check_digests: &dyn Fn(&str, &str) -> anyhow::Result<()>,
    settings: &'a AdmitSettings,
) -> anyhow::Result<Prepared<'a>> {
    let column = settings.strata.as_ref().map(|s| s.column.as_str());
    let (base, base_digest) =
        read_digested("baseline", baseline_path, baseline, |source, rows| {
            Baseline::read_rows(source, rows, column, keep_feedback)
        })?;
    let keep = if keep_feedback {
        Keep::All
    } else {
        Keep::Losses
    };
    let (joined, cand_digest) =
        read_digested("candidate", candidate_path, candidate, |source, rows| {
            base.join_rows(source, rows, keep)
        })?;
    check_digests(&base_digest.sha256, &cand_digest.sha256)?;
    prepare(
        joined,
        [base_digest, cand_digest],
        tasks,
        manifest,
        settings,
    )
}

/// Reads a scores file from a stream, digesting it on the way, so the file is never
/// held whole (`admit` on 10^6 pairs); the reading, digesting and scanning run on a
/// thread of their own. `read` gets the path as given and the rows; `role` names the
/// file in the report's digests.
fn read_digested<T, R: std::io::Read + Send + 'static>(
    role: &str,
    source: String,
    input: R,
    read: impl FnOnce(&str, &mut RowsAhead) -> Result<T, InputError>,
) -> anyhow::Result<(T, InputFile)> {
    let mut rows = RowsAhead::spawn(&source, input)?;
    let value = read(&source, &mut rows)?;
    let digest = InputFile {
        role: role.to_string(),
        path: source,
        sha256: rows.digest()?,
    };
    Ok((value, digest))
}

/// Pairs, resolves the test and reads the manifest; `digests` are the baseline's and
/// the candidate's.
fn prepare<'a>(
    joined: Joined,
    digests: [InputFile; 2],
    tasks: Option<&Input>,
    manifest: Option<&Input>,
    settings: &'a AdmitSettings,
) -> anyhow::Result<Prepared<'a>> {
    let list = match tasks {
        Some(t) => Some(crate::admission::TaskList::from_table(&Table::parse(
            &t.path, &t.bytes,
        )?)?),
        None => None,
    };
    let mut inputs = Vec::from(digests);
    inputs.extend(tasks.map(|t| t.digest("tasks")));
    inputs.extend(manifest.map(|m| m.digest("manifest")));
    // A list of items (the holdout) pairs on all of their repeats.
    let list = list
        .map(|list| repeats::rows_to_pair(&list, &joined))
        .transpose()?;
    let pairs = joined.pair(list.as_ref(), settings.strata.as_ref())?;
    let (pairs, repeats) = items_of(pairs, settings)?;
    let test = settings
        .test
        .resolve(&pairs, settings.zero, &pairs.baseline, &pairs.candidate)?;
    let holdout = match manifest {
        Some(m) => Some(HoldoutRecord::from_manifest(
            &m.path,
            &m.bytes,
            tasks.map(|t| (t.path.clone(), sha256_hex(&t.bytes))),
        )?),
        None => None,
    };
    if let (Some(_), Some(holdout)) = (&repeats, &holdout) {
        repeats::refuse_holdout_of_repeats(&holdout.manifest, &holdout.task_ids, &pairs)?;
    }
    let config = settings.config(test, holdout);
    Ok(Prepared {
        source: Source::Pairs(pairs),
        repeats,
        inputs,
        config,
        settings,
    })
}

/// The pairs as items: when the scores hold repeats (`<item>#<r>` rows grouped by
/// item), one pair per item with what the repeats say; otherwise the pairs as they are.
/// McNemar and `--cluster` do not apply to repeats of more than one run.
fn items_of(
    pairs: Pairs,
    settings: &AdmitSettings,
) -> anyhow::Result<(Pairs, Option<RepeatCounts>)> {
    if !repeats::holds_repeats(&pairs) {
        return Ok((pairs, None));
    }
    if settings.cluster {
        anyhow::bail!(
            "--cluster group: the scores hold repeats (rows `<item>#<r>` whose group is the item), and admit already tests on the items; leave --cluster out"
        );
    }
    let collapsed = repeats::collapse(pairs)?;
    if collapsed.counts.k_max > 1 && settings.test == TestChoice::McNemar {
        anyhow::bail!(
            "--test mcnemar needs one 0/1 outcome per item, and the scores hold up to {} repeats of each: an item's share of right repeats is a score, so the items are compared with --test signed-rank (what --test auto chooses here)",
            collapsed.counts.k_max
        );
    }
    Ok((collapsed.pairs, Some(collapsed.counts)))
}

/// Takes the alpha the ledger leaves for this attempt on this holdout, decides at it,
/// and records the attempt, all under the ledger's lock; unless these scores files were
/// decided alike on this holdout already, in which case that attempt stands and
/// nothing is spent (see [`AttemptLedger::take_attempt`]).
fn under_ledger(
    recorder: &mut dyn AttemptLedger,
    mut prepared: Prepared,
) -> anyhow::Result<Evaluation> {
    let holdout = prepared.holdout_identity()?;
    // The baseline's and the candidate's digests; a summary's one document stands for
    // both.
    let digest = |role: &str| {
        let inputs = &prepared.inputs;
        let input = inputs.iter().find(|i| i.role == role).or(inputs.first());
        input.map(|i| i.sha256.clone()).unwrap_or_default()
    };
    let (baseline_sha256, candidate_sha256) = (digest("baseline"), digest("candidate"));
    let look = AttemptOn {
        holdout_sha256: &holdout,
        declared_alpha: prepared.settings.alpha.get(),
        inputs: Inputs {
            baseline_sha256: &baseline_sha256,
            candidate_sha256: &candidate_sha256,
        },
    };
    let entry = decide_under(recorder, look, |alpha| {
        let admission = prepared.decide_at(alpha);
        let (test, p_value) = ledger_test(&admission);
        let decision = ledger::Decision {
            candidate_sha256: candidate_sha256.clone(),
            baseline_sha256: baseline_sha256.clone(),
            test,
            n: admission.n as u64,
            p_improvement: p_value,
            verdict: admission.verdict.into(),
        };
        Ok((decision, admission))
    })?;
    let record = &entry.record;
    let info = LedgerInfo::of(recorder.path(), record, entry.repeated, entry.attempts);
    let mut evaluation = prepared.evaluation(entry.value);
    evaluation.report.ledger = Some(info);
    evaluation.notes.extend(entry.warning);
    Ok(evaluation)
}

/// The files of a report folder: those held whole, and those streamed from the pairs
/// (`pairs.csv`, and the paired-scores plot), when the pairs are at hand.
fn report_folder(
    dir: &Path,
    report: &Report,
    pairs: Option<&Arc<PairRows>>,
) -> (Vec<FileToWrite>, Vec<StreamedFile>) {
    let plots = svg::plots(report, pairs.is_some());
    let mut files = folder_documents(dir, report, &plots);
    let mut streamed = Vec::new();
    for (name, plot) in plots {
        match (plot, pairs) {
            (svg::Plot::Whole(text), _) => files.push(FileToWrite::new(dir.join(name), text)),
            (svg::Plot::Scatter, Some(pairs)) => {
                let pairs = Arc::clone(pairs);
                streamed.push(StreamedFile::new(dir.join(name), move |out| {
                    svg::write_scatter(&pairs, out)
                }));
            }
            (svg::Plot::Scatter, None) => {}
        }
    }
    if let Some(pairs) = pairs {
        let pairs = Arc::clone(pairs);
        streamed.push(StreamedFile::new(dir.join("pairs.csv"), move |out| {
            pairs::write(&pairs, out)
        }));
    }
    (files, streamed)
}

/// `admission.json` and `admission.md`, linking the plots that will be written.
fn folder_documents(dir: &Path, report: &Report, plots: &[(&str, svg::Plot)]) -> Vec<FileToWrite> {
    // Only the plots written are linked (a summary's signed-rank report has no
    // per-pair plot).
    let linked: Vec<(&str, &str)> = svg::PLOTS
        .iter()
        .filter(|(name, _)| plots.iter().any(|(written, _)| written == name))
        .copied()
        .collect();
    vec![
        FileToWrite::new(dir.join("admission.json"), json::render(report)),
        FileToWrite::new(
            dir.join("admission.md"),
            markdown::render_in_folder(report, &linked),
        ),
    ]
}

/// The test and the claim's p-value a ledger records: `mcnemar` or `signed-rank` and
/// `p_improvement` for superiority; with a margin the question is named too
/// (`mcnemar non-inferiority 0.05`, `signed-rank equivalence 0.05`) and the p-value is
/// the claim's, so that asking another question of the same files is a new look.
fn ledger_test(admission: &Admission) -> (String, f64) {
    let name = match admission.test.name {
        TestName::McNemar => "mcnemar",
        TestName::SignedRank => "signed-rank",
    };
    match (&admission.question.name, &admission.margin_tests) {
        (QuestionName::NonInferiority, Some(t)) => (
            format!(
                "{name} {}",
                admission.question.claim().replace(" at margin", "")
            ),
            t.p_noninferiority,
        ),
        (QuestionName::Equivalence, Some(t)) => (
            format!(
                "{name} {}",
                admission.question.claim().replace(" within ±", " ")
            ),
            t.p_equivalence,
        ),
        _ => (name.to_string(), admission.tails.p_improvement),
    }
}

/// Every file `--report-dir` may receive, in `dir`.
pub(crate) fn report_names(dir: &Path) -> Vec<PathBuf> {
    let names = ["admission.json", "admission.md", "pairs.csv"];
    let plots = ["outcomes.svg", "strata.svg", "power.svg"];
    names
        .iter()
        .chain(&plots)
        .map(|name| dir.join(name))
        .collect()
}

/// The files of a report folder held whole: `admission.json`, `admission.md` and the
/// plots `outcomes.svg`, `strata.svg` and `power.svg` (on a summary `outcomes.svg` only
/// for McNemar, whose four cells it draws). `pairs.csv`, absent on a summary, is
/// streamed into the folder ([`pairs::write`]) by [`run`].
pub(crate) fn report_files(dir: &Path, evaluation: &Evaluation) -> Vec<FileToWrite> {
    let report = &evaluation.report;
    let plots = svg::render(report, evaluation.pairs.as_ref());
    let planned: Vec<(&str, svg::Plot)> = plots
        .iter()
        .map(|(name, _)| (*name, svg::Plot::Scatter))
        .collect();
    let mut files = folder_documents(dir, report, &planned);
    for (name, svg) in plots {
        files.push(FileToWrite::new(dir.join(name), svg));
    }
    files
}
