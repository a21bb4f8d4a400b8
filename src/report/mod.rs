//! The admission report: one serialisable model, and writers that render it and
//! compute nothing. [`Report`] with the doc comments on its fields (and on the
//! [`crate::admission`] types it holds) is the schema of `admission.json`,
//! `evogate/admission/v1`.

pub(crate) mod audit;
pub(crate) mod calibrate;
pub mod escape;
pub(crate) mod json;
pub(crate) mod ledger;
pub(crate) mod markdown;
pub(crate) mod pairs;
pub(crate) mod power;
pub(crate) mod repeats;
pub(crate) mod sequential;
pub(crate) mod split;
pub(crate) mod svg;
pub mod terminal;
pub(crate) mod text;
pub(crate) mod truth;

use serde::Serialize;

use crate::admission::Admission;

/// `--format` of the commands that write a report (`admit`, `audit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// For people, in a terminal.
    Text,
    /// The report's JSON (its schema is the report model).
    Json,
    /// The Markdown report.
    Markdown,
}

/// `--format` of the commands that print a summary (`ledger show`, `power`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SummaryFormat {
    /// For people, in a terminal.
    Text,
    /// For scripts.
    Json,
}

/// The schema name written in every report.
pub const SCHEMA: &str = "evogate/admission/v1";

/// An input file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputFile {
    /// `baseline`, `candidate`, `tasks`, `manifest`, `summary`, or `baseline-import`
    /// and `candidate-import` for the import records read beside the scores files.
    pub role: String,
    /// The path as given on the command line (never made absolute).
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// `admission.json`: the admission as decided, with the schema name before it and the
/// ledger entry and input digests after it. Its fields are the schema, in this order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Always `evogate/admission/v1`.
    pub schema: String,
    /// The decision: `verdict`, `reasons`, `test`, `alpha`, `n`, the arms, `delta`,
    /// `discordant`, the p-values, power, `margin`, strata, `evidence`, `losses` and
    /// `cluster`, at the top level of the JSON (see [`Admission`]'s fields).
    #[serde(flatten)]
    pub admission: Admission,
    /// This attempt's place in the holdout-reuse ledger (only with `--ledger`).
    pub ledger: Option<LedgerInfo>,
    /// Every input's path as given and SHA-256, in the order baseline, candidate,
    /// tasks, manifest.
    pub inputs: Vec<InputFile>,
}

impl Report {
    /// The report of `admission` on `inputs`.
    pub fn new(admission: Admission, inputs: Vec<InputFile>) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            admission,
            ledger: None,
            inputs,
        }
    }
}

/// Where an attempt stands in the holdout-reuse ledger.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LedgerInfo {
    /// The ledger file as given.
    pub path: String,
    /// SHA-256 of the sorted task ids of the holdout.
    pub holdout_sha256: String,
    /// 1-based attempt on this holdout.
    pub attempt: u64,
    /// Whether this run repeated `attempt`: the same baseline and candidate scores
    /// files (by SHA-256) on the same tasks, decided alike, so it recorded and spent
    /// nothing.
    pub repeated: bool,
    /// The alpha declared for the holdout.
    pub declared_alpha: f64,
    /// The alpha this attempt was decided at: declared · 6 / (π² k²).
    pub alpha_this_attempt: f64,
    /// Alpha spent by the attempts before this one.
    pub alpha_spent_before: f64,
    /// Alpha left after the attempts recorded on this holdout.
    pub alpha_left: f64,
}

impl LedgerInfo {
    /// Where `record` stands in the ledger at `path`: `repeated` when this run repeated
    /// it, with `attempts` recorded on its holdout (so the alpha left after them).
    pub(crate) fn of(
        path: &std::path::Path,
        record: &crate::ledger::Record,
        repeated: bool,
        attempts: u64,
    ) -> LedgerInfo {
        LedgerInfo {
            path: path.display().to_string(),
            holdout_sha256: record.holdout_sha256.clone(),
            attempt: record.attempt,
            repeated,
            declared_alpha: record.declared_alpha,
            alpha_this_attempt: record.alpha_this_attempt,
            alpha_spent_before: record.alpha_spent_before,
            alpha_left: crate::alpha::spending::alpha_left_after(record.declared_alpha, attempts),
        }
    }
}
