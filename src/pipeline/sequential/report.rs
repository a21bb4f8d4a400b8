//! The report of one `admit --sequential` run: where the monitoring stands after the
//! pairs scored so far, in words and numbers ([`SequentialReport`]).

use super::pairs::Ordered;
use super::{SequentialSettings, test_name};
use crate::alpha::Alpha;
use crate::base::numbers::count;
use crate::report::sequential::{
    E_VALUE_CAP, FinalLookReport, SCHEMA, SequentialInterval, SequentialReport, StratumEvidence,
};
use crate::report::{InputFile, LedgerInfo};
use crate::stats::sequential::{FinalTest, Monitor, Reason, Standing};

fn capped(log_e: f64) -> f64 {
    log_e.exp().min(E_VALUE_CAP)
}

/// The report of `monitor` on `ordered`.
pub(super) fn build_report(
    monitor: &Monitor,
    ordered: &Ordered,
    settings: &SequentialSettings,
    inputs: Vec<InputFile>,
    ledger: Option<LedgerInfo>,
) -> SequentialReport {
    let alpha = monitor.design().alpha.get();
    let look = monitor.pairs();
    let last = monitor
        .looks()
        .last()
        .expect("at least one pair was pushed");
    let interval = monitor.interval().expect("at least one pair was pushed");
    let mean = monitor
        .mean_difference()
        .expect("at least one pair was pushed");
    let strata = monitor
        .strata()
        .into_iter()
        .map(|(name, look)| StratumEvidence {
            pairs: look.pairs,
            stratum: name,
            e_value: capped(look.log_e_regression),
        })
        .collect();
    let (verdict, reason) = match (monitor.status(), monitor.decision()) {
        (Standing::Admitted, Some((reason, t))) => ("admitted", sentence(reason, t, monitor)),
        (Standing::Refused, Some((reason, t))) => ("refused", sentence(reason, t, monitor)),
        _ => (
            "continue",
            format!(
                "not decided after {look} of {}: score the next tasks in the order and run again",
                count(ordered.holdout.len() as u64, "task")
            ),
        ),
    };
    let final_look = monitor.final_test().map(|test| {
        let (method, alpha) = match test {
            FinalTest::Binomial { look, wins } => (
                format!(
                    "exact binomial test on {} discordant pairs ({wins} for the candidate; admits from {})",
                    look.discordant, look.critical
                ),
                look.alpha_left,
            ),
            FinalTest::SignedRank { alpha, .. } => (
                "exact signed-rank test (and a positive mean)".to_string(),
                alpha.map_or(0.0, Alpha::get),
            ),
        };
        FinalLookReport {
            method,
            alpha,
            p_value: test.p_value(),
            fixed_n_p_value: test.fixed_n_p_value(),
            shown: test.shown(),
        }
    });
    SequentialReport {
        schema: SCHEMA.to_string(),
        verdict: verdict.to_string(),
        reason,
        test: test_name(ordered.binary).to_string(),
        alpha,
        margin: settings.margin,
        holdout_tasks: ordered.holdout.len() as u64,
        pairs_scored: ordered.pairs.len() as u64,
        look,
        e_value: capped(last.log_e_improvement),
        log10_e_value: last.log_e_improvement / std::f64::consts::LN_10,
        threshold: monitor.threshold(),
        interval: SequentialInterval {
            low: interval.low,
            high: interval.high,
            confidence: interval.confidence,
        },
        mean_difference: mean,
        tasks_needed: (monitor.status() == Standing::Continue)
            .then(|| monitor.tasks_needed())
            .flatten(),
        final_look,
        strata,
        ledger,
        inputs,
    }
}

/// Why the run stopped at look `t`.
fn sentence(reason: &Reason, t: u64, monitor: &Monitor) -> String {
    let n = monitor.design().holdout;
    let every = if n == 1 {
        "the one task".to_string()
    } else {
        format!("every one of the {n} tasks")
    };
    match reason {
        Reason::ImprovementShown => format!(
            "the improvement e-value reached {} at look {t} of {n}",
            crate::base::numbers::number(monitor.threshold())
        ),
        Reason::CannotBeBetter => format!(
            "at look {t} of {n} the anytime-valid upper bound on the improvement fell to {} or below: the candidate cannot be better",
            crate::base::numbers::number(monitor.design().margin)
        ),
        Reason::StratumRegressed(name) => format!(
            "at look {t} of {n} stratum `{name}` significantly regressed (its regression e-value reached {})",
            crate::base::numbers::number(1.0 / monitor.design().alpha.get())
        ),
        Reason::StratumRegressedAtLastLook(name) => format!(
            "{every} was scored undecided; the exact test of the last look showed the improvement, but stratum `{name}`'s exact regression test was significant at alpha {}",
            crate::base::numbers::number(monitor.design().alpha.get())
        ),
        Reason::FinalLook { shown: true } => format!(
            "{every} was scored undecided, and the exact test of the last look at the alpha left over showed the improvement"
        ),
        Reason::FinalLook { shown: false } => format!(
            "{every} was scored undecided, and the exact test of the last look at the alpha left over did not show an improvement"
        ),
    }
}
