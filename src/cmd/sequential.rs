//! `evogate admit --sequential`: turn the arguments into [`SequentialSettings`] and a
//! [`SequentialRequest`], replay the monitoring ([`crate::pipeline::sequential`]), and
//! hand its outcome (the report, the report folder, the step summary) to the executor.

use std::path::PathBuf;

use super::Printout;
use super::execute::Effects;
use crate::admission::StrataRequest;
use crate::alpha::Alpha;
use crate::atomic::refuse_same_file;
use crate::cli::AdmitArgs;
use crate::pipeline::outcome::AttemptLedger;
use crate::pipeline::sequential::{
    self, SequentialFiles, SequentialRequest, SequentialSettings, report_names,
};

/// Runs `admit --sequential`.
pub(crate) fn run(args: AdmitArgs) -> anyhow::Result<Printout> {
    let margin = args.margin.unwrap_or(0.0);
    if !(0.0..1.0).contains(&margin) {
        anyhow::bail!(
            "--margin {margin}: with --sequential the margin is the smallest improvement worth having, in [0, 1); e.g. 0.02"
        );
    }
    let settings = SequentialSettings {
        alpha: Alpha::new(args.alpha)?,
        margin,
        test: args.test,
        zero: args.zero_method,
        strata: StrataRequest::from_flag(args.strata.as_deref()),
    };
    let (Some(baseline), Some(candidate)) = (&args.baseline, &args.candidate) else {
        anyhow::bail!("admit --sequential needs --baseline and --candidate");
    };
    if args.order.is_none() && args.manifest.is_none() {
        anyhow::bail!(
            "admit --sequential needs --manifest (the manifest.json `evogate split` wrote: the holdout in the order it is scored) or --order"
        );
    }
    if let Some(order) = &args.order {
        let scores = [
            ("--baseline", baseline.as_path()),
            ("--candidate", candidate.as_path()),
        ];
        refuse_same_file(
            ("--order", order),
            &scores,
            "the order must be fixed before any output is seen, and one read from the outputs can choose the verdict; give the holdout.csv `evogate split` wrote, or --manifest",
        )?;
    }
    let effects = Effects::default()
        .input("--baseline", baseline)
        .input("--candidate", candidate)
        .input_if("--order", args.order.as_deref())
        .input_if("--manifest", args.manifest.as_deref())
        .ledger_if(args.ledger.as_deref());
    let planned = args.report_dir.as_deref().map(report_names);
    let effects = effects.report_files(planned.as_deref().unwrap_or_default());
    effects.plan(planned.iter().flatten().map(PathBuf::as_path), true)?;
    let request = SequentialRequest {
        files: SequentialFiles {
            baseline: baseline.clone(),
            candidate: candidate.clone(),
            order: args.order.clone(),
            manifest: args.manifest.clone(),
        },
        report_dir: args.report_dir,
        format: args.format,
    };
    let mut ledger = effects.ledger()?;
    let recorder = ledger.as_mut().map(|l| l as &mut dyn AttemptLedger);
    effects.finish(sequential::run(&request, &settings, recorder)?)
}
