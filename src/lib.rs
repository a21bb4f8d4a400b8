//! evogate decides, on evidence, whether an evolved LLM skill is better than the one it
//! would replace.
//!
//! The layers, lowest first. A module uses only modules of its own layer or of the
//! layers below it; `tests/it/layout.rs` reads every `use` and every path written
//! inline (a name a `use` binds included) and holds this map to the code:
//!
//! ```text
//! tools     base error digest                  (hash, random stream, numbers, arena, csv text)
//! input     table outputs scores               (reads CSV and JSON Lines into checked rows)
//! core      alpha task stats split verify grading admission audit ledger import   (no files)
//! output    report plot atomic progress        (report writers; atomic writes, the ledger file; stderr progress)
//! pipeline  pipeline                           (use cases: settings in, an outcome out; reads, never writes)
//! commands  cli cmd                            (clap, and the one executor of side effects)
//! ```
//!
//! Besides the map, the same test holds these rules:
//!
//! - clap is seen only by `cli` and `cmd` (a `clap::ValueEnum` derive on a domain enum
//!   is the one exception); tools, input and core never touch `std::fs`, `std::env`
//!   or `std::process` (input reads files, so only the last two for it).
//! - The pipeline never writes: no `std::fs::write`, `File::create`, `File::options`,
//!   `OpenOptions`, `create_dir*`, `remove*`, `rename`, `copy` or links, no change to
//!   the current folder or the environment, nothing of `std::process` (an exit, a child
//!   process), no `mem::forget`, no `tempfile`, and no glob import that would bring
//!   one of these into scope; from [`atomic`] it takes only the types that describe a write
//!   (`FileToWrite`, `StreamedFile`) and the ledger's guarded read. Its writes come
//!   back in the outcome for the executor in `cmd`, and the ledger's attempt, which is
//!   decided under the ledger's lock, goes through the
//!   `pipeline::outcome::AttemptLedger` the command hands in.
//! - The pipeline never prints: no `std::io::stdout`, `stderr` or `IsTerminal`, no
//!   print macro; it counts its progress into the `progress::ProgressSink` the command
//!   hands in, and only `cmd` draws it.
//! - No two children of one module import each other, through any chain of siblings.
//! - A module is `pub` only when a user outside the library reaches it (the binary,
//!   the fuzz targets, the benches, the examples, the integration tests); the rest are
//!   `pub(crate)`.
//! - Every file under `proptest-regressions/` sits beside (in proptest's parallel
//!   tree) a source with property tests, so its saved cases replay.
//!
//! The data flow:
//!
//! ```text
//! ground truth (CSV) ──split──▶ train.csv / val.csv / holdout.csv + manifest.json
//! tasks + outputs (CSV/JSONL) + ground truth ──score──▶ scores.csv (one row per task)
//! baseline scores + candidate scores ──admit──▶ verdict (exit code) + report
//! runs of one skill (A/A, repeats) ──calibrate──▶ flip rates, the gate's verdicts on every pair, the noise
//! past claims (CSV) ──audit──▶ which claims of improvement the evidence supports
//! n / alpha / shift ──power──▶ what a holdout of this size can and cannot detect
//! eval tools' logs (lm-eval, Inspect, ...) ──import──▶ scores.csv + scores.import.json (then admit)
//! ```
//!
//! Core modules never print, exit or open files: they take typed records and return
//! typed results. [`table`] reads CSV into rows that remember their line numbers, and
//! every error names the file, the row and the fix. Everything a command prints passes
//! through [`report::terminal`].

// Tools.
pub mod base;
pub mod digest;
pub mod error;

// Input.
pub mod outputs;
pub(crate) mod scores;
pub mod table;

// Core.
pub mod admission;
pub mod alpha;
pub mod audit;
pub(crate) mod grading;
pub mod import;
pub mod ledger;
pub mod split;
pub mod stats;
pub mod task;
pub mod verify;

// Output.
pub mod atomic;
pub(crate) mod plot;
pub(crate) mod progress;
pub mod report;

// Use cases.
pub(crate) mod pipeline;

// Commands.
pub mod cli;
pub mod cmd;
