//! evogate decides, on evidence, whether an evolved LLM skill is better than the one it
//! would replace.
//!
//! The data flow, one module per step:
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
//! every error names the file, the row and the fix.

pub mod admission;
pub mod atomic;
pub mod audit;
pub mod cli;
pub mod cmd;
pub mod csvout;
pub mod digest;
pub mod error;
pub mod grading;
pub mod import;
pub mod ledger;
pub mod outputs;
pub mod plot;
pub mod report;
pub mod scores;
pub mod split;
pub mod stats;
pub mod table;
pub mod task;
pub mod texts;
pub mod truth;
pub mod verify;
