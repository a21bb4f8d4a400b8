//! The one executor of a command's side effects. A command names its inputs (each with
//! the option that gave it) and the outputs it plans, which are checked before the use
//! case runs, and what a killed run left beside them is cleared ([`settle`]); then every
//! write the use case's [`CommandOutcome`] asks for is checked again against every
//! input, by file identity, written in full beside its target and committed: files,
//! a folder or the streamed file moved into place together with the Markdown appended
//! to the GitHub step summary, all or none. Large values are left to the process exit
//! here, once. The ledger's attempt, decided under the ledger's lock, is the one write
//! made while the use case runs: through the [`attempts::LockedLedger`] handed out here,
//! once its path has passed the same guard.

mod attempts;
mod writes;

use std::path::{Path, PathBuf};

use anyhow::Context;

pub(super) use self::writes::step_summary;
use super::Printout;
use crate::atomic::{Streamed, refuse_overwriting_inputs, settle};
use crate::pipeline::outcome::{CommandOutcome, Write};

/// The inputs of one run, its ledger and the file being streamed, if any.
#[derive(Debug, Default)]
pub(super) struct Effects {
    inputs: Vec<(&'static str, PathBuf)>,
    ledger: Option<PathBuf>,
    /// The report files written beside the ledger's attempt, if any.
    report: Vec<PathBuf>,
    stream: Option<Streamed>,
}

impl Effects {
    /// Adds the input `path`, given by `option`, and clears what a killed run left
    /// beside it.
    pub(super) fn input(mut self, option: &'static str, path: &Path) -> Effects {
        settle([path]);
        self.inputs.push((option, path.to_path_buf()));
        self
    }

    /// Adds the input `path` when there is one.
    pub(super) fn input_if(self, option: &'static str, path: Option<&Path>) -> Effects {
        match path {
            Some(path) => self.input(option, path),
            None => self,
        }
    }

    /// Adds every path of a repeatable option.
    pub(super) fn inputs(mut self, option: &'static str, paths: &[PathBuf]) -> Effects {
        settle(paths.iter().map(PathBuf::as_path));
        self.inputs
            .extend(paths.iter().map(|path| (option, path.clone())));
        self
    }

    /// Refuses, before the use case runs, when a planned output is one of the inputs
    /// or the ledger, or the ledger is one of the inputs; `step_summary` says whether
    /// the run may append to the GitHub step summary, which is then checked too.
    pub(super) fn plan<'a>(
        &self,
        outputs: impl IntoIterator<Item = &'a Path>,
        step_summary: bool,
    ) -> anyhow::Result<()> {
        let outputs: Vec<&Path> = outputs.into_iter().collect();
        settle(outputs.iter().copied());
        self.refuse(outputs)?;
        self.ledger()?;
        if step_summary {
            self.refuse_step_summary()?;
        }
        Ok(())
    }

    /// Opens the file at `path` that the use case's output is streamed into, once it
    /// has passed the guard; [`Write::Stream`] moves it into place.
    pub(super) fn stream(&mut self, path: &Path) -> anyhow::Result<&mut Streamed> {
        self.refuse([path])?;
        settle([path]);
        Ok(self.stream.insert(Streamed::new(path)))
    }

    /// Checks every write of `outcome`, then carries them out in order, and turns the
    /// outcome into what to print.
    pub(super) fn finish(mut self, mut outcome: CommandOutcome) -> anyhow::Result<Printout> {
        self.inputs.append(&mut outcome.read);
        self.refuse(outcome.writes.iter().flat_map(Write::paths))?;
        if outcome
            .writes
            .iter()
            .any(|w| matches!(w, Write::StepSummary(_)))
        {
            self.refuse_step_summary()?;
        }
        let status = outcome.status.code();
        let writes = std::mem::take(&mut outcome.writes);
        writes::carry_out(writes, &mut self.stream, status, &mut outcome.notes)?;
        // Freeing a million pairs, or a verifier over a big truth, one allocation at a
        // time takes a visible share of the run, and the process ends right after this.
        std::mem::forget(outcome.held);
        Ok(Printout {
            status: outcome.status,
            stdout: outcome.report,
            notes: outcome.notes,
        })
    }

    /// Every input with the option that named it, the ledger left out.
    fn named_inputs(&self) -> Vec<(&str, &Path)> {
        (self.inputs.iter())
            .map(|(option, path)| (*option, path.as_path()))
            .collect()
    }

    /// Refuses when any of `outputs` is one of the inputs or the ledger.
    fn refuse<'a>(&self, outputs: impl IntoIterator<Item = &'a Path>) -> anyhow::Result<()> {
        let mut inputs = self.named_inputs();
        inputs.extend(self.ledger.as_deref().map(|path| ("--ledger", path)));
        refuse_overwriting_inputs(outputs, &inputs)
    }

    fn refuse_step_summary(&self) -> anyhow::Result<()> {
        match step_summary() {
            Some(path) => (self.refuse([path.as_path()]))
                .context("GITHUB_STEP_SUMMARY names an input of this run"),
            None => Ok(()),
        }
    }
}
