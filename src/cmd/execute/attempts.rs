//! The ledger's attempt, the one write made while a use case runs: taken, decided and
//! appended under the ledger file's lock, so it cannot wait for the executor's writes
//! after the use case; its path passes the executor's guard first.

use std::path::{Path, PathBuf};

use super::Effects;
use crate::atomic::ledger::{Entry, Looked, record_look, record_or_repeat};
use crate::atomic::refuse_overwriting_inputs;
use crate::pipeline::outcome::{AttemptLedger, AttemptOn, Decide, LookAt};

impl Effects {
    /// Adds the holdout-reuse ledger given by `--ledger`, if any: an input that no
    /// output may replace, and the file [`Effects::ledger`] appends to.
    pub(crate) fn ledger_if(mut self, path: Option<&Path>) -> Effects {
        self.ledger = path.map(Path::to_path_buf);
        self
    }

    /// Names the report files the run writes beside its ledger attempt, which the
    /// attempt's append takes an earlier report's out of ([`record_or_repeat`]).
    pub(crate) fn report_files(mut self, files: &[PathBuf]) -> Effects {
        self.report = files.to_vec();
        self
    }

    /// The ledger the use case records its attempt in, once its path has passed the
    /// guard against every input ([`Effects::plan`] asks the same before the use case
    /// runs).
    pub(crate) fn ledger(&self) -> anyhow::Result<Option<LockedLedger>> {
        let Some(path) = &self.ledger else {
            return Ok(None);
        };
        refuse_overwriting_inputs([path.as_path()], &self.named_inputs())?;
        Ok(Some(LockedLedger {
            path: path.clone(),
            report: self.report.clone(),
        }))
    }
}

/// The ledger on disk, as the use cases see it: each attempt is taken, decided and
/// appended under the file's exclusive lock ([`record_or_repeat`], and
/// [`record_look`] for a sequential run's look). Only
/// [`Effects::ledger`] makes one, after the guard.
#[derive(Debug)]
pub(crate) struct LockedLedger {
    path: PathBuf,
    /// The report files of this run, if any.
    report: Vec<PathBuf>,
}

impl AttemptLedger for LockedLedger {
    fn path(&self) -> &Path {
        &self.path
    }

    fn take_attempt(&mut self, on: AttemptOn<'_>, decide: Decide<'_>) -> anyhow::Result<Entry<()>> {
        let AttemptOn {
            holdout_sha256,
            declared_alpha,
            inputs,
        } = on;
        record_or_repeat(
            &self.path,
            &self.report,
            holdout_sha256,
            declared_alpha,
            inputs,
            |alpha| decide(alpha).map(|decision| (decision, ())),
        )
    }

    fn take_look(&mut self, look: LookAt<'_>) -> anyhow::Result<Looked> {
        record_look(&self.path, &self.report, look)
    }
}
