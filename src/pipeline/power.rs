//! The power use case: what a holdout of n pairs can detect at a level, or how many
//! pairs a shift needs, with exact-power figures when a discordance is given. Pure
//! computation on checked settings.

use super::outcome::{CommandOutcome, Status};
use crate::alpha::Alpha;
use crate::report::SummaryFormat;
use crate::report::power::{PowerReport, PowerRow, text};
use crate::stats::power::{
    detectable_shift, min_detectable_shift, min_discordant, n_for_power, required_n,
};

/// What is asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Question {
    /// What these numbers of pairs can detect.
    Pairs(Vec<u64>),
    /// How many pairs this shift, in (0, 1], needs.
    Shift(f64),
}

/// The settings of one `power`, checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PowerSettings {
    /// The one-sided level.
    pub alpha: Alpha,
    /// The question.
    pub question: Question,
    /// With exact-power figures: the share of pairs expected to disagree, in (0, 1],
    /// and the power wanted, in (0, 1).
    pub exact: Option<(f64, f64)>,
}

/// Runs `power`: the answer as text or JSON.
pub(crate) fn run(
    settings: &PowerSettings,
    format: SummaryFormat,
) -> anyhow::Result<CommandOutcome> {
    let Some(report) = power(settings) else {
        anyhow::bail!(
            "--alpha {} is too small for any number of pairs to reach: use a level such as 0.05",
            settings.alpha.get()
        );
    };
    let stdout = match format {
        SummaryFormat::Json => crate::report::json::document(&report)?,
        SummaryFormat::Text => text(&report),
    };
    Ok(CommandOutcome::new(Status::Success, stdout))
}

/// Answers the question, or `None` when the level is too small for any number of
/// pairs to reach it.
pub(crate) fn power(settings: &PowerSettings) -> Option<PowerReport> {
    let alpha = settings.alpha.get();
    let k = min_discordant(alpha)?;
    let rows = match &settings.question {
        Question::Pairs(ns) => ns
            .iter()
            .map(|&n| PowerRow {
                n: Some(n),
                shift: None,
                min_detectable_shift: min_detectable_shift(n, alpha),
                required_n: None,
                shift_for_power: settings
                    .exact
                    .and_then(|(r, power)| detectable_shift(n, r, alpha, power)),
                smallest_n_for_power: None,
                n_from_which_power_stays: None,
            })
            .collect(),
        &Question::Shift(shift) => {
            let crossings = settings
                .exact
                .and_then(|(r, power)| n_for_power(shift, r, alpha, power));
            vec![PowerRow {
                n: None,
                shift: Some(shift),
                min_detectable_shift: None,
                required_n: required_n(shift, alpha),
                shift_for_power: None,
                smallest_n_for_power: crossings.map(|c| c.smallest),
                n_from_which_power_stays: crossings.map(|c| c.stays_from),
            }]
        }
    };
    Some(PowerReport {
        schema: "evogate/power/v1",
        alpha,
        min_discordant: k,
        discordance: settings.exact.map(|(r, _)| r),
        power: settings.exact.map(|(_, power)| power),
        rows,
    })
}
