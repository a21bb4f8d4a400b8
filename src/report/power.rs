//! `evogate power`'s report (`evogate/power/v1`): what a holdout of n pairs can detect,
//! or how many pairs a shift needs, and its text for the terminal. JSON goes through
//! [`super::json::document`].

use serde::Serialize;

use crate::stats::power::EXACT_POWER_LIMIT;

/// One row of the answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PowerRow {
    /// Pairs.
    pub n: Option<u64>,
    /// The shift asked about (with --shift).
    pub shift: Option<f64>,
    /// The best-case detectable shift k/n (with --n).
    pub min_detectable_shift: Option<f64>,
    /// The smallest n whose best case detects the shift (with --shift).
    pub required_n: Option<u64>,
    /// The shift detected with `power` at `discordance` (with --n and --discordance).
    pub shift_for_power: Option<f64>,
    /// The smallest n that detects the shift with `power` at `discordance` (with --shift).
    pub smallest_n_for_power: Option<u64>,
    /// The n from which power stays at or above `power` (with --shift): exact power
    /// saw-tooths in n, so some n between the two fall short.
    pub n_from_which_power_stays: Option<u64>,
}

/// The whole answer, the JSON document's fields in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PowerReport {
    /// Always `evogate/power/v1`.
    pub schema: &'static str,
    /// The one-sided level.
    pub alpha: f64,
    /// The fewest discordant pairs, all one way, that reach alpha.
    pub min_discordant: u32,
    /// The share of pairs expected to disagree (with --discordance).
    pub discordance: Option<f64>,
    /// The power wanted (with --discordance).
    pub power: Option<f64>,
    /// One row per n asked about, or one for the shift.
    pub rows: Vec<PowerRow>,
}

/// The text for the terminal.
pub(crate) fn text(answer: &PowerReport) -> String {
    let mut out = format!(
        "alpha {}: a significant result needs at least {} discordant pairs, all one way. {}\n",
        crate::base::numbers::level(answer.alpha),
        answer.min_discordant,
        crate::base::numbers::SHIFT_UNIT
    );
    let with_power = |value: String| match (answer.discordance, answer.power) {
        (Some(r), Some(p)) => format!(
            "; with {:.0}% of pairs disagreeing, {:.0}% power: {value}",
            r * 100.0,
            p * 100.0
        ),
        _ => String::new(),
    };
    for row in &answer.rows {
        if let Some(n) = row.n {
            let best = row.min_detectable_shift.map_or_else(
                || format!("none (needs n ≥ {})", answer.min_discordant),
                shift_text,
            );
            let power = with_power(row.shift_for_power.map_or("not reachable".into(), |s| {
                format!("shift {}", shift_text(s))
            }));
            out.push_str(&format!("n {n}: minimum detectable shift {best}{power}\n"));
        } else if let Some(shift) = row.shift {
            let best = row
                .required_n
                .map_or("more than 2^53".into(), |n| n.to_string());
            let power = with_power(
                match (row.smallest_n_for_power, row.n_from_which_power_stays) {
                    (Some(first), Some(from)) if first == from => format!("n {first}"),
                    (Some(first), Some(from)) => {
                        format!("smallest n {first}, and every n from {from} on")
                    }
                    _ => format!("not within {EXACT_POWER_LIMIT} pairs"),
                },
            );
            out.push_str(&format!(
                "shift {}: smallest n whose best case detects it {best}{power}\n",
                shift_text(shift)
            ));
        }
    }
    out
}

/// A shift as every command writes it ([`crate::base::numbers::shift`]): `0.05`, `0.0125`,
/// `2.711e-19` for 5 of 2^64 − 1 pairs.
fn shift_text(shift: f64) -> String {
    crate::base::numbers::shift(shift)
}
