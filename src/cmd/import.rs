//! `evogate import`: turn another eval tool's per-sample log into the scores CSV
//! ([`crate::pipeline::import`]). Neither the scores file nor its record may be one of
//! the logs or the `--valset`.

use super::Printout;
use super::execute::Effects;
use crate::cli::ImportArgs;
use crate::import::record::companion_path;
use crate::pipeline::import::{self, ImportSettings};
use crate::progress::Progress;

/// Runs `import`.
pub(crate) fn run(args: ImportArgs) -> anyhow::Result<Printout> {
    let effects = Effects::default()
        .inputs("--from", &args.from)
        .input_if("--valset", args.valset.as_deref());
    let record = companion_path(&args.out);
    effects.plan([args.out.as_path(), record.as_path()], false)?;
    let settings = ImportSettings {
        format: args.format,
        from: args.from,
        out: args.out,
        filter: args.filter,
        metric: args.metric,
        task: args.task,
        scorer: args.scorer,
        repeats: args.repeats,
        lower_is_better: args.lower_is_better,
        higher_is_better: args.higher_is_better,
        arm: args.arm,
        id_var: args.id_var,
        drop_assert: args.drop_assert,
        event: args.event,
        split: args.split,
        perturbation: args.perturbation,
        id_field: args.id_field,
        candidate: args.candidate,
        valset: args.valset,
        on_missing: args.on_missing,
        scale: args.scale,
    };
    let progress = Progress::on_stderr("import");
    effects.finish(import::run(&settings, &progress)?)
}
