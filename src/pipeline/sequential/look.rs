//! A sequential run's look in the holdout-reuse ledger. The run spends its attempt when
//! it first touches the holdout: its first look records the attempt `open` at that
//! attempt's alpha; a later look of the same run (its pairs extend the run's latest
//! look: [`ledger::extended_run`]) continues that attempt, same number and alpha,
//! recording how far it went; the deciding look closes it; a look on the same pairs
//! again records nothing. An abandoned run keeps what it spent, and any other look is
//! a new candidate, which takes the next attempt. All under the ledger's lock.

use std::collections::BTreeSet;

use super::pairs::Ordered;
use super::{SequentialSettings, decision, test_name};
use crate::alpha::Alpha;
use crate::ledger::{self, Attempt, Record, RecordVerdict, RunLook};
use crate::pipeline::outcome::AttemptLedger;
use crate::report::LedgerInfo;
use crate::stats::sequential::{Monitor, Standing};

/// Where a look left the run: the monitoring at its attempt's alpha, the attempt's
/// standing for the report, and the warning for a torn ledger.
pub(super) struct Placed {
    pub monitor: Monitor,
    pub info: LedgerInfo,
    pub warning: Option<String>,
}

/// What the run's records carry besides its pairs: the settings that change the
/// monitoring. A run under other settings is another run (two e-processes on the same
/// pairs at one alpha would be two tests).
pub(super) fn design_header(settings: &SequentialSettings, ordered: &Ordered) -> String {
    let strata = settings
        .strata
        .as_ref()
        .map_or("none", |s| s.column.as_str());
    format!(
        "evogate sequential run\ttest={}\tmargin={}\tstrata={strata}\tzero={:?}\n",
        test_name(ordered.binary),
        settings.margin,
        settings.zero
    )
}

/// Records this look of the run on `holdout_sha256` in `recorder` and monitors it at
/// its attempt's alpha (`run_at`).
pub(super) fn look_under(
    recorder: &mut dyn AttemptLedger,
    holdout_sha256: &str,
    ordered: &Ordered,
    settings: &SequentialSettings,
    run_at: &dyn Fn(Alpha) -> anyhow::Result<Monitor>,
) -> anyhow::Result<Placed> {
    let path = recorder.path().display().to_string();
    let header = design_header(settings, ordered);
    let test = format!("sequential-{}", test_name(ordered.binary));
    let held = ordered.pairs.len() as u64;
    let mut placed: Option<(Monitor, Record, bool, u64)> = None;
    let looked = recorder.take_look(&mut |records| {
        // The next attempt, checked first: a declared alpha other than the holdout's
        // is an error on every path, a later look of an open run included.
        let next = ledger::next_attempt(records, holdout_sha256, settings.alpha.get())
            .map_err(|e| anyhow::anyhow!("`{path}`: {e}"))?;
        let latest = ledger::latest_looks(records, holdout_sha256);
        let mut counts: BTreeSet<u64> = latest
            .iter()
            .filter(|r| r.test == test && r.n <= held)
            .map(|r| r.n)
            .collect();
        counts.insert(held);
        let digests = ordered.prefix_digests(&header, &counts);
        let look = RunLook {
            holdout_sha256,
            test: &test,
            pairs: held,
        };
        let attempts = latest.len() as u64;
        // What the monitoring found, identified by the pairs it used.
        let found = |monitor: &Monitor| {
            let used = monitor.pairs();
            let (baseline, candidate) = match digests.get(&used) {
                Some(both) => both.clone(),
                None => ordered.prefix_digests(&header, &[used].into())[&used].clone(),
            };
            decision(monitor, ordered, baseline, candidate)
        };
        if let Some(run) = ledger::extended_run(&latest, look, &digests) {
            let monitor = run_at(run.level()?)?;
            let open = run.verdict == RecordVerdict::Open;
            let standing = monitor.status();
            // The same pairs again, undecided: nothing new to record.
            if open && standing == Standing::Continue && held == run.n {
                placed = Some((monitor, run.clone(), false, attempts));
                return Ok(None);
            }
            let continued = Attempt::continued(run)?;
            if open && (standing == Standing::Continue || monitor.pairs() > run.n) {
                let record = continued.record(found(&monitor));
                placed = Some((monitor, record.clone(), true, attempts));
                return Ok(Some(record));
            }
            // A decided run given more pairs decides at the same look again: a repeat.
            if !open && run.repeated_by(&found(&monitor)) {
                placed = Some((monitor, run.clone(), false, attempts));
                return Ok(None);
            }
            // Otherwise the records disagree with this monitoring (they were written
            // by another version): the look is a new attempt, the side that spends.
        }
        let monitor = run_at(next.alpha)?;
        let record = next.record(found(&monitor));
        placed = Some((monitor, record.clone(), true, next.attempt));
        Ok(Some(record))
    })?;
    let (monitor, record, appended, attempts) = placed
        .ok_or_else(|| anyhow::anyhow!("`{path}`: the ledger took the look without placing it"))?;
    Ok(Placed {
        monitor,
        info: LedgerInfo::of(recorder.path(), &record, !appended, attempts),
        warning: looked.warning,
    })
}
