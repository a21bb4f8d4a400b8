//! `evogate calibrate`: turn the arguments into [`CalibrateSettings`] (the gate's own
//! [`AdmitSettings`], superiority without a ledger), run the calibration
//! ([`crate::pipeline::calibrate`]) and hand its report and report folder to the
//! executor.

use std::path::PathBuf;

use super::Printout;
use super::execute::Effects;
use crate::admission::StrataRequest;
use crate::alpha::Alpha;
use crate::cli::CalibrateArgs;
use crate::pipeline::admit::AdmitSettings;
use crate::pipeline::calibrate::{self, CalibrateRequest, CalibrateSettings, report_names};

/// Runs `calibrate`.
pub(crate) fn run(args: CalibrateArgs) -> anyhow::Result<Printout> {
    if !(args.power > 0.0 && args.power < 1.0) {
        anyhow::bail!("--power {} is outside (0, 1): use e.g. 0.8", args.power);
    }
    let settings = CalibrateSettings {
        admit: AdmitSettings {
            alpha: Alpha::new(args.alpha)?,
            test: args.test,
            zero: args.zero_method,
            strata: StrataRequest::from_flag(args.strata.as_deref()),
            margin: None,
            cluster: false,
            allow_missing: false,
        },
        power: args.power,
    };
    let effects = Effects::default()
        .inputs("--runs", &args.runs)
        .inputs("--placebo", &args.placebo);
    let planned: Vec<PathBuf> = args
        .report_dir
        .as_deref()
        .map_or(Vec::new(), |dir| report_names(dir).into_iter().collect());
    effects.plan(planned.iter().map(PathBuf::as_path), false)?;
    let request = CalibrateRequest {
        runs: args.runs,
        placebo: args.placebo,
        report_dir: args.report_dir,
        format: args.format,
    };
    effects.finish(calibrate::run(&request, &settings)?)
}
