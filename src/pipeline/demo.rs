//! The demo use case: the whole pipeline on the data shipped in `data/`, as a list of
//! steps (`STEPS`) that each read what earlier steps wrote into the demo folder and
//! add their own files and summary lines. Adding a step is one function and one line.
//!
//! The data is embedded in the binary (`DATA`), so `evogate demo` works from any
//! install, a wheel or `cargo install` included: the command writes it into a private
//! temporary folder laid out as the repository is, and makes that folder current while
//! the steps run (they only read). Every
//! path recorded in the demo's files is relative: the truth file to the repository
//! (`data/arxiv/papers.csv`), everything else to the demo folder, so a fresh run is
//! byte for byte the committed `reports/demo/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::admit::{AdmitOn, AdmitSettings, Evaluation, Input, evaluate, report_files};
use super::outcome::{CommandOutcome, Status, Write};
use super::{audit, score, split};
use crate::admission::{StrataRequest, TestChoice, Verdict};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::base::numbers::{p_value, shift};
use crate::progress::ProgressSink;
use crate::split::{Cases, SplitRequest};
use crate::stats::signed_rank::ZeroMethod;

/// The ground truth, relative to the repository.
pub(crate) const TRUTH: &str = "data/arxiv/papers.csv";

/// The shipped outputs: the baseline, the candidate built to be admitted, and one
/// built to be refused (better overall, worse on first authors).
pub(crate) const ARMS: [&str; 3] = ["baseline", "candidate", "regressing"];

/// The folder holding the shipped outputs, relative to the repository.
pub(crate) const OUTPUTS: &str = "data/demo";

/// The shipped claims the demo audits, relative to the repository.
pub(crate) const CLAIMS: &str = "data/demo/claims.csv";

/// The shipped data, by its path relative to the repository, embedded at build time.
pub(crate) const DATA: [(&str, &[u8]); 18] = [
    (TRUTH, include_bytes!("../../data/arxiv/papers.csv")),
    (
        "data/demo/baseline.jsonl",
        include_bytes!("../../data/demo/baseline.jsonl"),
    ),
    (
        "data/demo/candidate.jsonl",
        include_bytes!("../../data/demo/candidate.jsonl"),
    ),
    (
        "data/demo/regressing.jsonl",
        include_bytes!("../../data/demo/regressing.jsonl"),
    ),
    (
        "data/demo/claims.csv",
        include_bytes!("../../data/demo/claims.csv"),
    ),
    (
        "data/demo/claims/baseline-5.csv",
        include_bytes!("../../data/demo/claims/baseline-5.csv"),
    ),
    (
        "data/demo/claims/baseline-6.csv",
        include_bytes!("../../data/demo/claims/baseline-6.csv"),
    ),
    (
        "data/demo/claims/five-wins-5.csv",
        include_bytes!("../../data/demo/claims/five-wins-5.csv"),
    ),
    (
        "data/demo/claims/one-win-6.csv",
        include_bytes!("../../data/demo/claims/one-win-6.csv"),
    ),
    (
        "data/numeric/problems.csv",
        include_bytes!("../../data/numeric/problems.csv"),
    ),
    (
        "data/numeric/tasks.csv",
        include_bytes!("../../data/numeric/tasks.csv"),
    ),
    (
        "data/numeric/outputs.jsonl",
        include_bytes!("../../data/numeric/outputs.jsonl"),
    ),
    (
        "data/choice/questions.csv",
        include_bytes!("../../data/choice/questions.csv"),
    ),
    (
        "data/choice/tasks.csv",
        include_bytes!("../../data/choice/tasks.csv"),
    ),
    (
        "data/choice/outputs.jsonl",
        include_bytes!("../../data/choice/outputs.jsonl"),
    ),
    (
        "data/short/questions.csv",
        include_bytes!("../../data/short/questions.csv"),
    ),
    (
        "data/short/tasks.csv",
        include_bytes!("../../data/short/tasks.csv"),
    ),
    (
        "data/short/outputs.jsonl",
        include_bytes!("../../data/short/outputs.jsonl"),
    ),
];

/// The demo's state: where it writes, what it has found, what it will print.
pub(crate) struct Demo<'a> {
    /// The folder to write into, usable from the current folder.
    out: PathBuf,
    /// The same folder as the user gave it, for messages.
    shown: PathBuf,
    /// What it prints, a line per step.
    pub lines: Vec<String>,
    /// Notes for stderr.
    pub notes: Vec<String>,
    /// Whether every step gave the result the demo is built to show.
    pub as_built: bool,
    /// The files the steps made, by their path in the demo folder, which later steps
    /// read as if from the folder.
    made: BTreeMap<String, Vec<u8>>,
    /// What the steps ask to write, in order.
    writes: Vec<Write>,
    /// Where scoring counts the outputs' bytes read.
    progress: &'a dyn ProgressSink,
}

type Step = fn(&mut Demo<'_>) -> anyhow::Result<()>;

/// The pipeline, in order.
const STEPS: [(&str, Step); 5] = [
    ("split", split),
    ("score", score),
    ("admit", admit),
    ("audit", audit),
    ("benchmarks", benchmarks),
];

/// The benchmark verifiers' shipped examples: verifier, truth, and the folder holding
/// its `tasks.csv` and `outputs.jsonl` (relative to the repository). Graded for the
/// demo's last line only; nothing is written.
pub(crate) const BENCHMARKS: [(&str, &str); 3] = [
    ("numeric", "data/numeric/problems.csv"),
    ("choice", "data/choice/questions.csv"),
    ("short", "data/short/questions.csv"),
];

/// Runs every step for the folder `out` (as the user gave it, from the folder
/// `returned`), on the embedded [`DATA`] unpacked into the current folder: success when
/// both verdicts come out as built. Scoring counts the outputs' bytes into `progress`.
pub(crate) fn run(
    out: &Path,
    returned: &Path,
    progress: &dyn ProgressSink,
) -> anyhow::Result<CommandOutcome> {
    let mut demo = Demo {
        out: returned.join(out),
        shown: out.to_path_buf(),
        lines: Vec::new(),
        notes: Vec::new(),
        as_built: true,
        made: BTreeMap::new(),
        writes: Vec::new(),
        progress,
    };
    for (name, step) in STEPS {
        step(&mut demo).with_context(|| format!("demo step `{name}`"))?;
    }
    demo.lines
        .push(format!("wrote the demo to {}", out.display()));
    let status = if demo.as_built {
        Status::Success
    } else {
        demo.notes.push(
            "the shipped data no longer gives the results the demo is built to show".to_string(),
        );
        Status::Negative
    };
    let mut stdout = demo.lines.join("\n");
    stdout.push('\n');
    let mut outcome = CommandOutcome::new(status, stdout);
    outcome.notes = demo.notes;
    // The data was read from the private copy, so no write can land on it: nothing
    // for the executor's input guard.
    outcome.writes = demo.writes;
    Ok(outcome)
}

impl Demo<'_> {
    /// Asks to replace the files `made` in the folder `dir` inside the demo folder,
    /// keeping them for later steps.
    fn write_folder(&mut self, dir: &Path, made: Vec<FileToWrite>) {
        self.keep(&made);
        self.writes.push(Write::Folder {
            dir: dir.to_path_buf(),
            files: made,
            large: Vec::new(),
        });
    }

    /// Asks to write the files `made` together, keeping them for later steps.
    fn write_files(&mut self, made: Vec<FileToWrite>) {
        self.keep(&made);
        self.writes.push(Write::Files(made));
    }

    fn keep(&mut self, made: &[FileToWrite]) {
        for file in made {
            if let Ok(name) = file.path.strip_prefix(&self.out) {
                let name = name.to_string_lossy().replace('\\', "/");
                self.made.insert(name, file.bytes.clone());
            }
        }
    }
}

fn split(demo: &mut Demo) -> anyhow::Result<()> {
    let folder = demo.out.join("split");
    let settings = split::SplitSettings {
        truth: TRUTH.into(),
        verifier: "arxiv".to_string(),
        request: SplitRequest {
            seed: 13,
            ratios: [50, 25, 25],
            cases: Cases::All,
        },
        cases: "all".to_string(),
        alpha: Alpha::new(0.05)?,
        compat: None,
    };
    let built = split::build(&settings, &folder)?;
    demo.write_folder(&folder, built.whole_files()?);
    let made = &built.made;
    let sizes: Vec<String> = made
        .splits
        .iter()
        .map(|s| format!("{} {}", s.name, s.tasks))
        .collect();
    let power = &made.holdout_power;
    demo.lines.push(format!(
        "split:  {} tasks into {} (seed {}); the holdout can detect shifts of {} and more (a proportion of pairs: 0.05 is 5 percentage points)",
        made.splits.iter().map(|s| s.tasks).sum::<usize>(),
        sizes.join(", "),
        made.seed,
        power
            .min_detectable_shift
            .map_or("nothing".to_string(), shift)
    ));
    Ok(())
}

fn score(demo: &mut Demo) -> anyhow::Result<()> {
    let mut counts = Vec::new();
    let mut made = Vec::new();
    let holdout = local(demo, "split/holdout.csv")?;
    for arm in ARMS {
        let files = score::ScoreFiles {
            truth: TRUTH.into(),
            tasks: demo.out.join(&holdout.path),
            outputs: PathBuf::from(format!("{OUTPUTS}/{arm}.jsonl")),
            verifier: "arxiv".to_string(),
            allow_missing: false,
        };
        let mut csv = String::new();
        let tasks = || Ok(holdout.bytes.as_slice());
        let summary = score::score_tasks(
            &files,
            tasks,
            &mut |chunk| csv.push_str(chunk),
            demo.progress,
        )?
        .summary;
        demo.notes.extend(score::check_answered(&summary, &files)?);
        made.push(FileToWrite::new(
            demo.out.join(format!("{arm}-scores.csv")),
            csv,
        ));
        counts.push(format!("{arm} {}/{}", summary.correct, summary.tasks));
    }
    demo.write_files(made);
    demo.lines.push(format!(
        "score:  correct on the holdout: {}",
        counts.join(", ")
    ));
    Ok(())
}

/// A file an earlier step made in the demo folder, recorded by its path relative to
/// the folder.
fn local(demo: &Demo, name: &str) -> anyhow::Result<Input> {
    let bytes = demo
        .made
        .get(name)
        .ok_or_else(|| anyhow::anyhow!("no earlier step made `{name}`"))?;
    Ok(Input {
        path: name.to_string(),
        bytes: bytes.clone(),
    })
}

fn admit(demo: &mut Demo) -> anyhow::Result<()> {
    let settings = AdmitSettings {
        alpha: Alpha::new(0.05)?,
        test: TestChoice::Auto,
        zero: ZeroMethod::Wilcox,
        strata: Some(StrataRequest {
            column: "kind".to_string(),
            required: true,
        }),
        margin: None,
        cluster: false,
        allow_missing: false,
    };
    let baseline = local(demo, "baseline-scores.csv")?;
    let tasks = local(demo, "split/holdout.csv")?;
    let manifest = local(demo, "split/manifest.json")?;
    for (arm, folder, expected) in [
        ("candidate", PathBuf::new(), Verdict::Admitted),
        ("regressing", PathBuf::from("regressing"), Verdict::Refused),
    ] {
        let on = AdmitOn::Bytes {
            baseline: baseline.clone(),
            candidate: local(demo, &format!("{arm}-scores.csv"))?,
            tasks: Some(tasks.clone()),
            manifest: Some(manifest.clone()),
            held: false,
        };
        let evaluation = evaluate(&on, &settings, None)?;
        let dir = demo.out.join(&folder);
        let mut files = report_files(&dir, &evaluation);
        // The demo's few pairs are written whole, so that the demo keeps them to compare.
        files.extend(evaluation.pairs.as_ref().map(|pairs| {
            FileToWrite::new(dir.join("pairs.csv"), crate::report::pairs::render(pairs))
        }));
        demo.write_folder(&dir, files);
        demo.as_built &= evaluation.report.admission.verdict == expected;
        let shown = demo.shown.join(&folder);
        demo.lines.push(summary(arm, &shown, &evaluation));
    }
    Ok(())
}

fn summary(arm: &str, folder: &Path, evaluation: &Evaluation) -> String {
    let report = &evaluation.report;
    let verdict = report.admission.verdict.word();
    let counts = report.admission.discordant.map_or(String::new(), |d| {
        format!(", b {} c {}", d.baseline_only, d.candidate_only)
    });
    let mut line = format!(
        "admit:  {arm} against baseline: {verdict} (p_improvement {}{counts}); report in {}",
        p_value(report.admission.tails.p_improvement),
        folder.join("admission.md").display()
    );
    for reason in report
        .admission
        .reasons
        .iter()
        .filter(|_| report.admission.verdict != Verdict::Admitted)
    {
        line.push_str("\n        ");
        line.push_str(reason);
    }
    line
}

/// Re-tests the shipped claims (`data/demo/claims.csv`) into `audit.json` and `audit.md`.
fn audit(demo: &mut Demo) -> anyhow::Result<()> {
    let (report, _) = audit::audit(Path::new(CLAIMS), Alpha::new(0.05)?)?;
    let out = demo.out.clone();
    demo.write_folder(&out, audit::report_files(&out, &report)?);
    demo.lines.push(format!(
        "audit:  {} of {} past claims supported; report in {}",
        report.supported,
        report.claims,
        demo.shown.join("audit.md").display()
    ));
    Ok(())
}

/// Grades the benchmark verifiers' shipped examples (`BENCHMARKS`) and prints how
/// many each got right; writes nothing, so the demo folder is the arxiv pipeline's.
fn benchmarks(demo: &mut Demo) -> anyhow::Result<()> {
    let mut counts = Vec::new();
    for (verifier, truth) in BENCHMARKS {
        let folder = Path::new(truth).parent().unwrap_or(Path::new("."));
        let files = score::ScoreFiles {
            truth: truth.into(),
            tasks: folder.join("tasks.csv"),
            outputs: folder.join("outputs.jsonl"),
            verifier: verifier.to_string(),
            allow_missing: false,
        };
        let tasks = || super::open_file(&files.tasks);
        let summary = score::score_tasks(&files, tasks, &mut |_| {}, demo.progress)?.summary;
        counts.push(format!("{verifier} {}/{}", summary.correct, summary.tasks));
    }
    demo.lines.push(format!(
        "verify: the benchmark verifiers on their examples in data/ (correct): {}",
        counts.join(", ")
    ));
    Ok(())
}
