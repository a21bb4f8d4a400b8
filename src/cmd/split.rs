//! `evogate split`: turn the arguments into settings and build the splits
//! ([`crate::pipeline::split`], or [`crate::pipeline::split_scores`] for
//! `--from-scores`), or (`--check`) report the leaks among split files made by any tool.

use anyhow::bail;

use super::Printout;
use super::execute::Effects;
use crate::alpha::Alpha;
use crate::cli::SplitArgs;
use crate::import::record::companion_path;
use crate::pipeline::split::{self, SplitSettings};
use crate::pipeline::split_scores::{self, ScoresSplit};
use crate::split::{Cases, SplitRequest};

/// Runs `split`.
pub(crate) fn run(args: SplitArgs) -> anyhow::Result<Printout> {
    if let Some(files) = &args.check {
        // Declared as inputs: what a killed run left beside them is cleared first.
        let effects = Effects::default().inputs("--check", files);
        return effects.finish(split::run_check(files)?);
    }
    let request = SplitRequest {
        seed: args.seed,
        ratios: parse_ratios(&args.ratios)?,
        cases: parse_cases(&args.cases)?,
    };
    if let (Some(scores), Some(out)) = (&args.from_scores, &args.out) {
        let settings = ScoresSplit {
            scores: scores.clone(),
            request,
            cases: args.cases.trim().to_string(),
            alpha: Alpha::new(args.alpha)?,
        };
        let record = companion_path(scores);
        let effects = Effects::default()
            .input("--from-scores", scores)
            .input("--from-scores' import record", &record);
        return effects.finish(split_scores::run(&settings, out)?);
    }
    let (Some(truth), Some(out)) = (&args.truth, &args.out) else {
        bail!("give --truth FILE (or --from-scores SCORES) and --out DIR, or --check DIR");
    };
    let settings = SplitSettings {
        truth: truth.clone(),
        verifier: args.verifier.clone(),
        request,
        cases: args.cases.trim().to_string(),
        alpha: Alpha::new(args.alpha)?,
        compat: args.compat,
    };
    let effects = Effects::default().input("--truth", truth);
    effects.finish(split::run(&settings, out)?)
}

fn parse_ratios(text: &str) -> anyhow::Result<[u32; 3]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    // Digits that do not fit a u64 are too large as well.
    let numbers: Option<Vec<u128>> = parts
        .iter()
        .map(|p| match p.parse::<u128>() {
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => Some(u128::MAX),
            parsed => parsed.ok(),
        })
        .collect();
    match numbers.as_deref() {
        Some(&[t, v, h]) if t.saturating_add(v).saturating_add(h) > u128::from(u32::MAX) => bail!(
            "--ratios `{text}`: the ratios are too large; together they may be at most {}, e.g. 50,25,25",
            u32::MAX
        ),
        // Each fits a u32, as their sum does.
        Some(&[t, v, h]) if t + v + h > 0 => Ok([t as u32, v as u32, h as u32]),
        _ => bail!(
            "--ratios `{text}`: give three non-negative integers with a positive sum, e.g. 50,25,25"
        ),
    }
}

fn parse_cases(text: &str) -> anyhow::Result<Cases> {
    match text.trim() {
        "all" => Ok(Cases::All),
        number => match number.parse::<usize>() {
            Ok(n) if n > 0 => Ok(Cases::Exactly(n)),
            _ => bail!("--cases `{text}`: give a positive number of tasks, or `all`"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios_too_large_for_32_bits_are_refused_as_too_large() {
        for text in [
            "4294967296,1,1",
            "4294967295,1,1",
            "1,1,99999999999999999999999999999999999999999",
        ] {
            let error = parse_ratios(text).unwrap_err().to_string();
            assert!(
                error.contains("the ratios are too large"),
                "{text}: {error}"
            );
        }
        assert_eq!(parse_ratios("4294967293,1,1").unwrap(), [4294967293, 1, 1]);
    }

    #[test]
    fn parses_ratios_and_cases_or_says_what_works() {
        assert_eq!(parse_ratios("50, 25,25").unwrap(), [50, 25, 25]);
        assert!(
            parse_ratios("0,0,0")
                .unwrap_err()
                .to_string()
                .contains("positive sum")
        );
        assert!(parse_ratios("1,2").is_err());
        assert_eq!(parse_cases("all").unwrap(), Cases::All);
        assert_eq!(parse_cases("24").unwrap(), Cases::Exactly(24));
        assert!(
            parse_cases("-3")
                .unwrap_err()
                .to_string()
                .contains("positive number")
        );
    }
}
