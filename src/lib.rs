//! evogate decides, on evidence, whether an evolved LLM skill is better than the one it
//! would replace.
//!
//! The layers. Commands use the pipeline, the pipeline uses the rest; core and input
//! modules never use output, pipeline or commands (but `grading` streams the scores
//! CSV through `csvout`):
//!
//! ```text
//! core      alpha stats admission split verify grading audit ledger   (no files, no printing)
//!           task texts figures error digest
//! input     table outputs scores (verify::arxiv::truth reads the arxiv ground truth)
//! output    report (one model per report; json, markdown, text, svg writers; escape and
//!           terminal, the one sanitiser per medium) csvout plot atomic
//! pipeline  pipeline::{admit, score, split, audit, power, demo}: checked settings and
//!           inputs in, a typed result out
//! commands  cli (clap) cmd (one file of glue per subcommand) and the binary's main
//! ```
//!
//! The data flow:
//!
//! ```text
//! ground truth (CSV) ──split──▶ train.csv / val.csv / holdout.csv + manifest.json
//! tasks + outputs (CSV/JSONL) + ground truth ──score──▶ scores.csv (one row per task)
//! baseline scores + candidate scores ──admit──▶ verdict (exit code) + report
//! past claims (CSV) ──audit──▶ which claims of improvement the evidence supports
//! n / alpha / shift ──power──▶ what a holdout of this size can and cannot detect
//! eval tools' logs (lm-eval, Inspect, ...) ──import──▶ scores.csv + scores.import.json (then admit)
//! ```
//!
//! Core modules never print, exit or open files: they take typed records and return
//! typed results. [`table`] reads CSV into rows that remember their line numbers, and
//! every error names the file, the row and the fix. Everything a command prints passes
//! through [`report::terminal`].

// Shared tools.
pub mod base;

// Core.
pub mod admission;
pub mod alpha;
pub mod audit;
pub mod digest;
pub mod error;
pub mod grading;
pub mod import;
pub mod ledger;
pub mod split;
pub mod stats;
pub mod task;
pub mod verify;

// Input.
pub mod outputs;
pub mod scores;
pub mod table;

// Output.
pub mod atomic;
pub mod csvout;
pub mod plot;
pub mod report;

// Use cases.
pub mod pipeline;

// Commands.
pub mod cli;
pub mod cmd;
