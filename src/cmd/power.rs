//! `evogate power`: check the arguments into [`PowerSettings`] and answer
//! ([`crate::pipeline::power`]) as text or JSON.

use anyhow::bail;

use super::Printout;
use super::execute::Effects;
use crate::alpha::Alpha;
use crate::cli::PowerArgs;
use crate::pipeline::power::{self, PowerSettings, Question};
use crate::stats::power::EXACT_POWER_LIMIT;
use crate::stats::sequential::SIMULATED_HOLDOUT_LIMIT;

/// Runs `power`.
pub(crate) fn run(args: PowerArgs) -> anyhow::Result<Printout> {
    let alpha = Alpha::new(args.alpha)?;
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
    if let (Some(n), false) = (args.holdout, args.sequential) {
        bail!(
            "--holdout {n} is the last look of a sequential design, so it needs --sequential with --shift and --discordance (e.g. evogate power --sequential --shift 0.1 --discordance 0.3 --holdout {n}); for what a fixed holdout of {n} pairs can detect, give --n {n}"
        );
    }
    if args.sequential {
        return sequential(&args, alpha);
    }
    let question = match (&args.n, args.shift) {
        (Some(list), _) => Question::Pairs(parse_ns(list, args.discordance.is_some())?),
        (None, Some(shift)) if shift > 0.0 && shift <= 1.0 => Question::Shift(shift),
        (None, Some(shift)) => bail!(
            "--shift {shift} is outside (0, 1]: give a paired shift such as 0.05 for 5 points"
        ),
        (None, None) => bail!(
            "power needs --n N[,N...] (what holdouts of N pairs can detect) or --shift D (the pairs a shift needs), e.g. evogate power --n 6,24,100"
        ),
    };
    let settings = PowerSettings {
        alpha,
        question,
        exact: args.discordance.map(|r| (r, args.power)),
    };
    Effects::default().finish(power::run(&settings, args.format)?)
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

/// `power --sequential`: a sequential design's tasks to a decision at the shift.
fn sequential(args: &PowerArgs, alpha: Alpha) -> anyhow::Result<Printout> {
    let (Some(shift), Some(discordance)) = (args.shift, args.discordance) else {
        let missing: Vec<&str> = [
            ("--shift D (the shift to detect)", args.shift),
            (
                "--discordance R (the share of pairs expected to disagree)",
                args.discordance,
            ),
        ]
        .into_iter()
        .filter(|(_, given)| given.is_none())
        .map(|(flag, _)| flag)
        .collect();
        bail!(
            "power --sequential needs {}, e.g. evogate power --sequential --shift 0.1 --discordance 0.3",
            missing.join(" and ")
        );
    };
    if !(shift > 0.0 && shift <= discordance) {
        bail!(
            "--shift {shift}: give a shift in (0, --discordance], e.g. 0.1 with --discordance 0.3"
        );
    }
    match args.holdout {
        Some(0) => bail!("--holdout 0: give the holdout's number of tasks, e.g. 400"),
        Some(n) if n > SIMULATED_HOLDOUT_LIMIT => bail!(
            "--holdout {n}: a sequential design is simulated to at most {SIMULATED_HOLDOUT_LIMIT} tasks (2000 runs each); give --holdout {SIMULATED_HOLDOUT_LIMIT} or fewer"
        ),
        _ => {}
    }
    let outcome =
        crate::pipeline::sequential::power(alpha, shift, discordance, args.holdout, args.format)?;
    Effects::default().finish(outcome)
}
