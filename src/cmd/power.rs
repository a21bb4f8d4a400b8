//! `evogate power`: what a holdout can detect before it is run.

use anyhow::bail;
use serde::Serialize;

use super::{Outcome, Status};
use crate::cli::PowerArgs;
use crate::stats::power::{
    EXACT_POWER_LIMIT, detectable_shift, min_detectable_shift, min_discordant, n_for_power,
    required_n,
};

/// One row of the answer.
#[derive(Debug, Serialize)]
struct Row {
    /// Pairs.
    n: Option<u64>,
    /// The shift asked about (with --shift).
    shift: Option<f64>,
    /// The best-case detectable shift k/n (with --n).
    min_detectable_shift: Option<f64>,
    /// The smallest n whose best case detects the shift (with --shift).
    required_n: Option<u64>,
    /// The shift detected with `power` at `discordance` (with --n and --discordance).
    shift_for_power: Option<f64>,
    /// The smallest n that detects the shift with `power` at `discordance` (with --shift).
    smallest_n_for_power: Option<u64>,
    /// The n from which power stays at or above `power` (with --shift): exact power
    /// saw-tooths in n, so some n between the two fall short.
    n_from_which_power_stays: Option<u64>,
}

/// The JSON document (`evogate/power/v1`).
#[derive(Debug, Serialize)]
struct Answer {
    schema: &'static str,
    alpha: f64,
    min_discordant: u32,
    discordance: Option<f64>,
    power: Option<f64>,
    rows: Vec<Row>,
}

/// Runs `power`.
pub fn run(args: PowerArgs) -> anyhow::Result<Outcome> {
    let Some(k) = min_discordant(args.alpha).filter(|_| args.alpha < 1.0) else {
        bail!(
            "--alpha {} is outside (0, 1): use a level such as 0.05",
            args.alpha
        );
    };
    if let Some(r) = args.discordance
        && !(r > 0.0 && r <= 1.0)
    {
        bail!(
            "--discordance {r} is outside (0, 1]: give the share of pairs expected to disagree, e.g. 0.2"
        );
    }
    if !(args.power > 0.0 && args.power < 1.0) {
        bail!("--power {} is outside (0, 1): use e.g. 0.8", args.power);
    }
    let rows = match (&args.n, args.shift) {
        (Some(list), _) => parse_ns(list, args.discordance.is_some())?
            .into_iter()
            .map(|n| Row {
                n: Some(n),
                shift: None,
                min_detectable_shift: min_detectable_shift(n, args.alpha),
                required_n: None,
                shift_for_power: args
                    .discordance
                    .and_then(|r| detectable_shift(n, r, args.alpha, args.power)),
                smallest_n_for_power: None,
                n_from_which_power_stays: None,
            })
            .collect(),
        (None, Some(shift)) => {
            if !(shift > 0.0 && shift <= 1.0) {
                bail!(
                    "--shift {shift} is outside (0, 1]: give a paired shift such as 0.05 for 5 points"
                );
            }
            let crossings = args
                .discordance
                .and_then(|r| n_for_power(shift, r, args.alpha, args.power));
            vec![Row {
                n: None,
                shift: Some(shift),
                min_detectable_shift: None,
                required_n: required_n(shift, args.alpha),
                shift_for_power: None,
                smallest_n_for_power: crossings.map(|c| c.smallest),
                n_from_which_power_stays: crossings.map(|c| c.stays_from),
            }]
        }
        (None, None) => bail!("give --n N[,N...] or --shift D"),
    };
    let answer = Answer {
        schema: "evogate/power/v1",
        alpha: args.alpha,
        min_discordant: k,
        discordance: args.discordance,
        power: args.discordance.map(|_| args.power),
        rows,
    };
    let text = if args.format == "json" {
        let mut json = serde_json::to_string_pretty(&answer)?;
        json.push('\n');
        json
    } else {
        text(&answer)
    };
    Ok(Outcome::new(Status::Success, text))
}

/// The `--n` list; with `--discordance` each n must be one whose exact power can be
/// computed.
fn parse_ns(list: &str, exact_power: bool) -> anyhow::Result<Vec<u64>> {
    list.split(',')
        .map(|item| match item.trim().parse::<u64>() {
            Ok(n) if n > EXACT_POWER_LIMIT && exact_power => bail!(
                "--n {n}: exact power is computed for at most {EXACT_POWER_LIMIT} pairs; give a smaller n, or leave out --discordance for the best case alone"
            ),
            Ok(n) if n > 0 => Ok(n),
            _ => bail!(
                "--n `{}`: give positive whole numbers of pairs, comma-separated, e.g. 6,24,100",
                item.trim()
            ),
        })
        .collect()
}

fn text(answer: &Answer) -> String {
    let mut out = format!(
        "alpha {}: a significant result needs at least {} discordant pairs, all one way\n",
        answer.alpha, answer.min_discordant
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
                crate::admission::wording::p_value(shift)
            ));
        }
    }
    out
}

/// A shift in four decimals (`0.0500`), or four significant digits when that would
/// print as zero (`2.711e-19` for 5 of 2^64 − 1 pairs).
fn shift_text(shift: f64) -> String {
    if shift >= 0.000_05 {
        format!("{shift:.4}")
    } else {
        crate::admission::wording::p_value(shift)
    }
}
