//! The command line, declared with clap's derive API. Each subcommand's arguments are a
//! struct that its `cmd` module validates into domain types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::admission::TestChoice;
pub use crate::report::{ReportFormat, SummaryFormat};
use crate::split::hermes::Compat;
use crate::stats::signed_rank::ZeroMethod;

/// Decides, on evidence, whether an evolved LLM skill is better than the one it would
/// replace.
///
/// Build leak-free splits from ground truth (`split`), grade outputs against the facts
/// (`score`), decide whether a candidate beats its baseline (`admit`), run the whole
/// pipeline on the shipped data (`demo`), re-test past claims (`audit`), say what a
/// holdout can detect (`power`), read the holdout-reuse ledger (`ledger show`), check
/// the ground truth itself (`truth check`), and read other eval tools' logs into scores
/// (`import`).
/// Exit status: 0 success (or admitted), 1 a negative result (problems found,
/// refused, inconclusive, leakage), 2 the tool could not do its job, 3 `admit
/// --sequential` not decided yet.
#[derive(Debug, Parser)]
#[command(name = "evogate", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build train/validation/holdout splits with whole groups, or audit split files.
    ///
    /// Groups (papers) are shuffled with a ChaCha20 stream keyed by the seed and dealt
    /// whole to the splits, so no group appears in two. Writes train.csv, val.csv,
    /// holdout.csv (in the order the holdout is to be scored: a shuffle from the same
    /// stream) and manifest.json atomically. With --check, audits split files
    /// made by any tool: exit 0 clean, 1 leakage found, 2 bad input.
    ///
    /// Example: evogate split --truth data/arxiv/papers.csv --out runs/split --cases 24
    Split(SplitArgs),
    /// Grade every task's output against the ground truth and write the scores CSV.
    ///
    /// A task with no output, or whose output carries an error instead of an answer
    /// (an `error` key or a non-blank `error` column), is an error (exit 2) naming how
    /// many and the first ids, unless --allow-missing; so is an output for a task the
    /// tasks file does not hold, or two outputs for one task.
    ///
    /// Example: evogate score --truth data/arxiv/papers.csv --tasks runs/split/holdout.csv
    /// --outputs runs/candidate.jsonl --out runs/candidate-scores.csv
    Score(ScoreArgs),
    /// Grade outputs one at a time as a long-lived service for an optimizer's loop.
    ///
    /// Reads one JSON request per line on stdin, {"task_id": ..., "output": ...}, and
    /// writes one JSON answer per line on stdout, flushed at once: task_id, score,
    /// correct, correctness, composite, feedback. A bad request gets {"error": ...}
    /// on its line and the service goes on; it ends when stdin closes.
    ///
    /// Example: evogate grade --jsonl --truth data/arxiv/papers.csv
    Grade(GradeArgs),
    /// Decide whether a candidate is better than its baseline on the same tasks.
    ///
    /// Pairs the two scores files by task_id and runs a one-sided paired test for
    /// improvement at alpha (McNemar's exact test on `correct` when both files carry it,
    /// the Wilcoxon signed-rank test on `score` otherwise), and a one-sided test for
    /// regression in every stratum. Admitted only when the improvement is significant,
    /// no stratum regressed significantly and the tasks are the recorded holdout (with
    /// --manifest). Inconclusive, not refused, when only the improvement failed, the
    /// candidate leans better and the holdout had under 80% power for its shift: the
    /// report gives the tasks that would settle it. With --margin M the question is
    /// non-inferiority (worse by less than M), with --equivalence M equivalence (less
    /// than M apart either way), each shown by exact tests; the report names the
    /// question. Exit 0 admitted (the claim asked is shown), 1 refused or inconclusive,
    /// 2 the tool could not do its job.
    ///
    /// Repeats of one item (rows `<item>#<r>` whose group is the item, as `import
    /// --repeats all` writes them) are tested on items, each arm's item score the mean
    /// of its repeats, never as independent tasks; the report adds pass@1, pass@k,
    /// pass^k and the flaky items per arm. A holdout (--tasks, --manifest) lists items,
    /// each standing for all of its repeats, which must be in both files.
    ///
    /// With --sequential --order FILE: decide on the pairs scored so far, in the order
    /// fixed before scoring, as a user who looked after every pair would have, with an
    /// error rate of alpha however often one looks. Exit 0 admitted, 1 refused, 3
    /// continue (score more tasks), 2 the tool could not do its job.
    ///
    /// Example: evogate admit --baseline runs/baseline-scores.csv --candidate
    /// runs/candidate-scores.csv --tasks runs/split/holdout.csv --manifest
    /// runs/split/manifest.json --report-dir reports/pr-42
    Admit(AdmitArgs),
    /// Say how often the gate would flip on no change: A/A runs of one skill.
    ///
    /// Give two or more runs of the same skill on the same items (--runs), or one file
    /// whose rows are repeats (`<item>#<r>` task ids with the item as `group`, as `import
    /// --repeats all` writes and admit reads them): each repeat is then a run, named
    /// FILE#r. Optionally --placebo: runs of a same-length neutral edit of the skill.
    /// Reports each item's and each stratum's flip rate (the share of run pairs that
    /// differ on it), the share of items that flip, the gate's verdict on every ordered
    /// pair of runs (decided exactly as `admit` decides: admitted, refused or
    /// inconclusive), and the smallest shift the gate can tell from that noise at
    /// --alpha and --power. An admitted A/A pair is a false admission. Exit 0 when the
    /// gate admits no A/A pair, 1 when it admits one, 2 the tool could not do its job.
    ///
    /// Make the runs by scoring the unchanged skill again on the holdout (another seed,
    /// another day, the answer cache off: cached copies of one answer never flip and
    /// make the eval look quieter than it is). Read the result as: an admitted A/A pair
    /// means the gate cannot be trusted on these runs (a cache, an order effect, a
    /// drifting model); a detectable shift larger than the gains you hope for means the
    /// holdout is too small to decide on them; the flipping items are where the noise is.
    ///
    /// Example: evogate calibrate --runs runs/a1-scores.csv runs/a2-scores.csv
    /// --placebo runs/placebo-scores.csv --report-dir reports/calibrate
    Calibrate(CalibrateArgs),
    /// Run split, score, admit and audit on the shipped data and write reports/demo/.
    ///
    /// Uses the ground truth data/arxiv/papers.csv and the outputs in data/demo/ as
    /// they were when evogate was built (they are inside the binary), so it runs from
    /// any folder and any install. Admits a candidate that reads years from the arXiv ID and refuses one that
    /// is better overall but worse on first authors. Exit 0 when both verdicts come
    /// out as built, 1 when they do not.
    Demo(DemoArgs),
    /// Check a ground-truth file.
    #[command(subcommand)]
    Truth(TruthCommand),
    /// Read the holdout-reuse ledger that `admit --ledger` appends to.
    #[command(subcommand)]
    Ledger(LedgerCommand),
    /// Say what a holdout of n pairs can detect, or how many pairs a shift needs.
    ///
    /// The minimum detectable shift is k/n, k the smallest number of discordant pairs
    /// that, all won, reach p < alpha (5 at alpha 0.05): no result on fewer pairs can
    /// be significant. With --discordance, also the shift (or n) that the one-sided
    /// exact McNemar test detects with --power (0.8) when that share of pairs disagree.
    ///
    /// Examples: evogate power --n 6,24,100,400 ; evogate power --shift 0.05
    /// --discordance 0.2
    Power(PowerArgs),
    /// Re-test past claims of improvement on the strongest evidence each has.
    ///
    /// The claims CSV has `claim_id`, `description`, and per row one of: per-task score
    /// files `baseline_scores,candidate_scores` (paths relative to the claims file; the
    /// full admission test is rerun), discordant counts `b,c` (McNemar's exact test), or
    /// `n,baseline,candidate` (rates on n tasks: only feasibility can be judged).
    /// Verdicts: supported, not-supported, unsupportable, unverifiable. Exit 0 when
    /// every claim is supported, 1 otherwise, 2 on bad input.
    Audit(AuditArgs),
    /// Read another eval tool's per-sample logs into the scores CSV that admit reads.
    ///
    /// Writes task_id, kind (when the log has one), correct (when every score is 0
    /// or 1) and score, and a companion record SCORES.import.json (format, selectors,
    /// input SHA-256s, tasks left out, lm-eval doc hashes). Nothing is guessed: a
    /// selector that is needed and missing, or names what the log lacks, exits 2
    /// listing what the log has. Missing, duplicated and errored samples fail unless
    /// --on-missing intersect; scores outside [0, 1] fail unless --scale MIN:MAX.
    ///
    /// Examples:
    ///   evogate import lm-eval --from samples_gsm8k_2025-09-09T13-42-42.857006.jsonl
    ///     --filter strict-match --metric exact_match --out base.csv
    ///   evogate import inspect --from logs/arc.eval --scorer choice --out base.csv
    ///   evogate import promptfoo --from results.json --arm openai:gpt-5
    ///     --drop-assert latency,cost --out base.csv
    ///   evogate import openai-evals --from run.jsonl --out base.csv
    ///   evogate import helm --from "runs/mmlu-subject=philosophy,..." --split test
    ///     --metric exact_match --out base.csv
    ///   evogate import dspy --from eval.json --id-field question --metric accuracy
    ///     --out base.csv
    ///   evogate import dspy --from gepa_result.json --candidate 0 --out base.csv
    #[command(verbatim_doc_comment)]
    Import(ImportArgs),
}

/// `evogate split`.
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// The ground-truth CSV (for arxiv: arxiv_id,title,first_author,year).
    #[arg(long, value_name = "FILE", required_unless_present_any = ["check", "from_scores"])]
    pub truth: Option<PathBuf>,
    /// Split the tasks of a scores file instead of a ground truth: an imported suite's
    /// (evogate import lm-eval, inspect, promptfoo, ...), so it gets a holdout manifest
    /// for --manifest, --ledger and admit --sequential. Tasks are dealt whole by the
    /// group their id names (`gsm8k` for `gsm8k:16`; a task whose id has no `:` is its
    /// own group); --ratios 0,0,1 makes every task the holdout. Repeats of an item
    /// (rows `<item>#<r>` whose group is the item) are one task: the splits list items.
    #[arg(long, value_name = "SCORES", conflicts_with_all = ["truth", "compat", "check"])]
    pub from_scores: Option<PathBuf>,
    /// The folder to write train.csv, val.csv, holdout.csv and manifest.json into.
    #[arg(long, value_name = "DIR", required_unless_present = "check")]
    pub out: Option<PathBuf>,
    /// The verifier that turns the ground truth into tasks.
    #[arg(long, default_value = "arxiv", value_parser = crate::verify::names())]
    pub verifier: String,
    /// `all` (every task; the ratios apply to groups) or a number of tasks to sample,
    /// divided exactly by the ratios with largest-remainder rounding.
    #[arg(long, default_value = "all", value_name = "N|all")]
    pub cases: String,
    /// The seed of the sampling stream.
    #[arg(long, default_value_t = 13)]
    pub seed: u64,
    /// Relative sizes of train, validation and holdout.
    #[arg(long, default_value = "50,25,25", value_name = "T,V,H")]
    pub ratios: String,
    /// The level at which the holdout's minimum detectable shift is computed.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Rebuild exactly the split an earlier tool built instead of evogate's own:
    /// `hermes` (the reference Python pipeline: papers partitioned, CPython's
    /// Mersenne Twister) or `hermes-v1` (its first version, which leaks papers across
    /// splits; the files are written so that `split --check` can show the leak).
    /// Needs --cases N; ratios are the reference's fixed 50/25/25.
    #[arg(long, value_name = "NAME", value_enum)]
    pub compat: Option<Compat>,
    /// Audit these split files (or a folder holding train.csv, val.csv, holdout.csv)
    /// for groups in two splits and duplicate tasks, instead of building splits.
    #[arg(long, value_name = "DIR|FILE", num_args = 1.., conflicts_with_all = ["truth", "out"])]
    pub check: Option<Vec<PathBuf>>,
}

/// `evogate score`.
#[derive(Debug, Args)]
pub struct ScoreArgs {
    /// The ground-truth CSV the tasks were built from.
    #[arg(long, value_name = "FILE")]
    pub truth: PathBuf,
    /// The tasks file (one that `split` wrote): task_id,group,kind,prompt.
    #[arg(long, value_name = "FILE")]
    pub tasks: PathBuf,
    /// The outputs: CSV with task_id,output, or JSON Lines {"task_id":..,"output":..}.
    #[arg(long, value_name = "FILE")]
    pub outputs: PathBuf,
    /// Where to write the scores CSV (written atomically); stdout when absent.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// The verifier that grades the outputs.
    #[arg(long, default_value = "arxiv", value_parser = crate::verify::names())]
    pub verifier: String,
    /// Score tasks with no output (or an error instead of one) as empty answers, and
    /// add an `answered` column (1 or 0) to the scores file, instead of exiting 2.
    #[arg(long)]
    pub allow_missing: bool,
}

/// `evogate grade`.
#[derive(Debug, Args)]
pub struct GradeArgs {
    /// Serve JSON Lines requests on stdin (the only mode).
    #[arg(long, required = true)]
    pub jsonl: bool,
    /// The ground-truth CSV the task ids were built from.
    #[arg(long, value_name = "FILE")]
    pub truth: PathBuf,
    /// The verifier that grades the outputs.
    #[arg(long, default_value = "arxiv", value_parser = crate::verify::names())]
    pub verifier: String,
}

/// `evogate admit`.
#[derive(Debug, Args)]
pub struct AdmitArgs {
    /// The baseline's scores: task_id and score, optionally correct, group, kind.
    #[arg(long, value_name = "FILE", required_unless_present = "summary")]
    pub baseline: Option<PathBuf>,
    /// Decide sequentially on the pairs scored so far, in the order of the holdout that
    /// --manifest records (or of --order): admitted once the improvement e-value reaches
    /// its threshold, refused once the candidate cannot be better (or below --margin) or
    /// a stratum regressed, else continue (exit 3) with the e-value, the anytime-valid
    /// bounds and the tasks still needed. With --ledger (which needs --manifest) the
    /// first look spends the attempt; later looks of the same run continue it.
    #[arg(long, conflicts_with_all = ["summary", "tasks", "cluster", "allow_missing"])]
    pub sequential: bool,
    /// With --sequential and no --manifest: a table whose task_id column lists every
    /// holdout task in the order fixed before any output was seen. With --manifest it
    /// must be the manifest's order (the holdout.csv `split` wrote), or it is refused;
    /// never a scores file. The pairs scored in both files must be a prefix of it.
    #[arg(long, value_name = "FILE", requires = "sequential")]
    pub order: Option<PathBuf>,
    /// The candidate's scores, on the same tasks.
    #[arg(long, value_name = "FILE", required_unless_present = "summary")]
    pub candidate: Option<PathBuf>,
    /// Decide on a summary document (schema evogate/summary/v1, e.g. written by
    /// sql/summary.sql in DuckDB) instead of the two scores files: the same decision,
    /// without the largest losses, pairs.csv or the per-pair plot.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "candidate", "tasks"])]
    pub summary: Option<PathBuf>,
    /// Use exactly the tasks of this tasks file (e.g. the holdout); each must be in
    /// both scores files, other rows are left out. A listed item of repeats stands for
    /// all of its rows `<item>#<r>`, each of which must be in both files.
    #[arg(long, value_name = "FILE")]
    pub tasks: Option<PathBuf>,
    /// The manifest.json `split` wrote: the tasks used must be its holdout (a summary's
    /// holdout_sha256 must be the SHA-256 of its task ids), and a --tasks file must have
    /// the recorded SHA-256. With --sequential: the holdout in the order it is scored.
    /// Required with --ledger.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// The level of every one-sided test, in (0, 0.5).
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// `auto` (McNemar when both files carry `correct`, else signed-rank), `mcnemar`
    /// or `signed-rank`.
    #[arg(long, default_value = "auto", value_enum)]
    pub test: TestChoice,
    /// The column whose values are tested for regression one by one; default `kind`
    /// when a file has it; `none` to test the whole set only.
    #[arg(long, value_name = "COLUMN")]
    pub strata: Option<String>,
    /// Ask non-inferiority at margin M instead of superiority: admitted when exact tests
    /// show the candidate worse than the baseline by less than M, overall and in every
    /// stratum (the melded exact McNemar test on `correct`; on `score` both the
    /// signed-rank test on the differences plus M and the betting test of their mean);
    /// no improvement is needed. With --sequential: the smallest improvement worth
    /// having.
    #[arg(long, value_name = "M")]
    pub margin: Option<f64>,
    /// Ask equivalence within ±M instead of superiority (a refactor, a cheaper model, a
    /// rerun that should change nothing): admitted when two one-sided exact tests (the
    /// tests of --margin, each side at alpha) show the difference is less than M either
    /// way, and every stratum is non-inferior at M.
    #[arg(long, value_name = "M", conflicts_with_all = ["margin", "cluster", "sequential"])]
    pub equivalence: Option<f64>,
    /// Decide on clusters too: the exact signed-rank test on per-cluster mean
    /// differences must also show the improvement (superiority only). The only column
    /// supported is `group`. Not with repeats (rows `<item>#<r>`), which are tested on
    /// their items already.
    #[arg(long, value_name = "COLUMN", value_enum)]
    pub cluster: Option<ClusterColumn>,
    /// Append this attempt to a holdout-reuse ledger (JSON Lines, locked while
    /// written) and decide at the alpha the ledger leaves for it: alpha · 6 / (π² k²)
    /// for the k-th attempt on the same holdout, so all attempts together never exceed
    /// alpha. Needs --manifest: attempts are counted on the holdout it records, so a
    /// run on renamed or fewer tasks spends on that holdout too (and is refused).
    #[arg(long, value_name = "FILE", requires = "manifest")]
    pub ledger: Option<PathBuf>,
    /// Decide on tasks an arm did not answer (its scores' `answered` column is 0, or
    /// its import left them out) as the wrong answers its scores give them, instead of
    /// refusing; the counts stay in the reasons.
    #[arg(long)]
    pub allow_missing: bool,
    /// Signed-rank zeros: `wilcox` drops them, `pratt` ranks them, then drops them.
    #[arg(long, default_value = "wilcox", value_enum)]
    pub zero_method: ZeroMethod,
    /// What to print: `text`, `json` (the admission.json report) or `markdown`.
    #[arg(long, default_value = "text", value_enum)]
    pub format: ReportFormat,
    /// Write admission.json, admission.md, pairs.csv and SVG plots here (atomically).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
}

/// `evogate calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Scores files of the skill's runs on the same items (two or more runs in all; a
    /// file whose rows hold repeats gives one run per repeat).
    #[arg(long, value_name = "FILE", num_args = 1.., required = true)]
    pub runs: Vec<PathBuf>,
    /// Scores files of runs of a placebo (a same-length neutral edit of the skill),
    /// paired with every run both ways; their verdicts are reported, not counted in the
    /// exit status.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub placebo: Vec<PathBuf>,
    /// The level of every one-sided test, as for admit.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The power at which the smallest detectable shift is stated, in (0, 1).
    #[arg(long, default_value_t = 0.8)]
    pub power: f64,
    /// `auto` (McNemar when the files carry `correct`, else signed-rank), `mcnemar` or
    /// `signed-rank`, as for admit.
    #[arg(long, default_value = "auto", value_enum)]
    pub test: TestChoice,
    /// The column whose values are tested (and whose flip rates are reported) one by
    /// one; default `kind` when a file has it; `none` for the whole set only.
    #[arg(long, value_name = "COLUMN")]
    pub strata: Option<String>,
    /// Signed-rank zeros, as for admit.
    #[arg(long, default_value = "wilcox", value_enum)]
    pub zero_method: ZeroMethod,
    /// What to print: `text`, `json` (schema evogate/calibrate/v1) or `markdown`.
    #[arg(long, default_value = "text", value_enum)]
    pub format: ReportFormat,
    /// Write calibrate.json and calibrate.md here (atomically).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
}

/// `evogate demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where to write the demo's files.
    #[arg(long, value_name = "DIR", default_value = "reports/demo")]
    pub out: PathBuf,
}

/// `evogate truth`.
#[derive(Debug, Subcommand)]
pub enum TruthCommand {
    /// Report duplicate IDs or titles, malformed IDs, a year that contradicts the ID
    /// and empty fields, each with its row. Exit 0 clean, 1 problems, 2 unreadable.
    Check(TruthCheckArgs),
}

/// `evogate truth check`.
#[derive(Debug, Args)]
pub struct TruthCheckArgs {
    /// The arxiv ground-truth CSV.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `evogate ledger`.
#[derive(Debug, Subcommand)]
pub enum LedgerCommand {
    /// Summarise a ledger per holdout: attempts, admitted, alpha spent and left, and
    /// the next attempt's alpha; flag a holdout whose next attempt cannot reach
    /// significance with its number of pairs. Exit 0, or 2 on a malformed ledger.
    ///
    /// Example: evogate ledger show runs/ledger.jsonl --format json
    Show(LedgerShowArgs),
}

/// `evogate ledger show`.
#[derive(Debug, Args)]
pub struct LedgerShowArgs {
    /// The ledger (JSON Lines, one record per attempt).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// `text` for people, `json` (schema evogate/ledger-summary/v1) for scripts.
    #[arg(long, default_value = "text", value_enum)]
    pub format: SummaryFormat,
}

/// `evogate power`.
#[derive(Debug, Args)]
pub struct PowerArgs {
    /// Numbers of pairs, comma-separated (`6,24,100`).
    // What is missing (--n or --shift; --shift and --discordance for --sequential; and
    // --sequential for --holdout) is checked by `cmd::power`, which says which flag is
    // missing and why, where clap would list every flag of every mode as required.
    #[arg(long, value_name = "N[,N...]", conflicts_with = "shift")]
    pub n: Option<String>,
    /// A paired shift in (0, 1]: print the smallest n whose best case detects it.
    #[arg(long, value_name = "D")]
    pub shift: Option<f64>,
    /// The one-sided level.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The share of pairs expected to disagree, in (0, 1]: adds exact-power figures.
    #[arg(long, value_name = "R")]
    pub discordance: Option<f64>,
    /// The power wanted, with --discordance.
    #[arg(long, default_value_t = 0.8)]
    pub power: f64,
    /// `text` or `json`.
    #[arg(long, default_value = "text", value_enum)]
    pub format: SummaryFormat,
    /// With --shift and --discordance: the expected, median and 90th-percentile tasks
    /// `admit --sequential` takes to a decision, and how often it admits (by
    /// simulation), beside the fixed-n exact test's n for 80% power.
    #[arg(long, conflicts_with = "n")]
    pub sequential: bool,
    /// With --sequential: the holdout's tasks (the last look), at most 20000; default
    /// the fixed-n test's n for 80% power at the shift.
    #[arg(long, value_name = "N")]
    pub holdout: Option<u64>,
}

/// `evogate audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// The claims CSV.
    #[arg(long, value_name = "FILE")]
    pub claims: PathBuf,
    /// The one-sided level.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// `text`, `json` or `markdown` on stdout.
    #[arg(long, default_value = "text", value_enum)]
    pub format: ReportFormat,
    /// Also write `audit.json` and `audit.md` (atomically) into this folder.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
}

/// `admit --cluster`: the columns that can define clusters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClusterColumn {
    /// The `group` column (for arxiv, the paper).
    Group,
}

/// `evogate import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The log's format.
    #[arg(value_enum)]
    pub format: crate::import::Format,
    /// The logs of one run (one arm): files, folders (searched 3 levels down for the
    /// format's logs: lm-eval samples_*.jsonl, inspect .eval/.json, helm run folders)
    /// or globs; repeat it or give several paths after one --from. All become one
    /// scores file and one record. A glob the shell left unexpanded is matched in the
    /// last part of the path only (`out/samples_*.jsonl`, not `out/*/samples.jsonl`).
    #[arg(long = "from", value_name = "PATH", required = true, num_args = 1.., action = clap::ArgAction::Append)]
    pub from: Vec<PathBuf>,
    /// Where to write the scores CSV; the record goes beside it as *.import.json.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// lm-eval: the filter whose lines are read (repeat it when tasks name theirs
    /// differently).
    #[arg(long, value_name = "NAME")]
    pub filter: Vec<String>,
    /// lm-eval, helm, dspy, openai-evals (metrics events): the per-sample metric, for
    /// every task, or TASK=NAME for one task (lm-eval task, helm subject such as
    /// mmlu:subject=philosophy); repeat it per task. lm-eval defaults to each task's
    /// primary metric when its `results_<date>.json` sits beside the samples.
    #[arg(long, value_name = "NAME|TASK=NAME")]
    pub metric: Vec<String>,
    /// lm-eval with one --from whose name is not lm-eval's: the task.
    #[arg(long, value_name = "NAME")]
    pub task: Option<String>,
    /// inspect: the scorer whose values are read, for every task, or TASK=NAME for one
    /// task; repeat it per task.
    #[arg(long, value_name = "NAME|TASK=NAME")]
    pub scorer: Vec<String>,
    /// inspect (epochs), promptfoo (--repeat), helm (train trials), lm-eval (runs of a
    /// task: its samples files of several dates), dspy (records of one id, through the
    /// files given): how an item's repeats become its score: mean, majority, first, or
    /// all (every repeat a row `<item>#<repeat>` with the item as its `group`, which
    /// admit tests on items); also Inspect's median, mode, max, pass_at_K, at_least_K.
    /// Default: the log's own reducer (Inspect's epochs_reducer), else it is needed
    /// when items repeat. Every item must have every repeat (Inspect's epochs, else
    /// the most any item has): a missing one exits 2 naming it, unless --on-missing
    /// intersect leaves its item out.
    #[arg(long, value_name = "RULE", value_parser = crate::import::Repeats::parse)]
    pub repeats: Option<crate::import::Repeats>,
    /// The metric is lower-is-better (a runtime, a WER, a perplexity): scores are
    /// mapped as 1 - x (after --scale), so the file is higher-is-better on [0, 1].
    /// Not needed where the log records the direction (lm-eval's higher_is_better).
    #[arg(long, conflicts_with = "higher_is_better")]
    pub lower_is_better: bool,
    /// The metric is higher-is-better. lm-eval samples read without their
    /// `results_<date>.json` (which records higher_is_better) need this or
    /// --lower-is-better: nothing takes a WER for higher-is-better unsaid.
    #[arg(long)]
    pub higher_is_better: bool,
    /// promptfoo: the arm to read, one provider with one prompt: a provider (id or
    /// label), a prompt (`prompt:N` or its label), or both as two --arm. An arm that
    /// still holds several prompts or providers is refused, never mixed.
    #[arg(long, value_name = "NAME")]
    pub arm: Vec<String>,
    /// promptfoo: the test variable that names a test (default: all of them).
    #[arg(long, value_name = "NAME")]
    pub id_var: Option<String>,
    /// promptfoo: assertion types left out of the score, comma-separated.
    #[arg(long, value_name = "TYPE[,TYPE...]", value_delimiter = ',')]
    pub drop_assert: Vec<String>,
    /// openai-evals: `match` or `metrics` events.
    #[arg(long, value_name = "TYPE")]
    pub event: Option<String>,
    /// helm: the split.
    #[arg(long, value_name = "NAME")]
    pub split: Option<String>,
    /// helm: read this perturbation instead of the unperturbed instances.
    #[arg(long, value_name = "NAME")]
    pub perturbation: Option<String>,
    /// dspy: the example field that identifies a task (with a GEPA result, a field of
    /// the --valset records).
    #[arg(long, value_name = "NAME")]
    pub id_field: Option<String>,
    /// dspy, a GEPA result: the candidate read, `best` or its index (0 is the seed
    /// program, the baseline).
    #[arg(long, value_name = "best|N")]
    pub candidate: Option<String>,
    /// dspy, a GEPA result with --id-field: the validation examples as a JSON list of
    /// records, in the order the run was given them.
    #[arg(long, value_name = "FILE")]
    pub valset: Option<PathBuf>,
    /// Missing, duplicated or errored samples: `fail`, or `intersect` to leave those
    /// tasks out (counted in the record).
    #[arg(long, value_enum, default_value = "fail")]
    pub on_missing: crate::import::OnMissing,
    /// Map scores from [MIN, MAX] onto [0, 1], e.g. 0:100; MIN > MAX (10:0) maps a
    /// lower-is-better metric.
    #[arg(long, value_name = "MIN:MAX", allow_hyphen_values = true)]
    pub scale: Option<String>,
}
