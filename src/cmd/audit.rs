//! `evogate audit`: judge each claim of the claims file ([`crate::pipeline::audit`]),
//! print the report and write `audit.json` and `audit.md` with `--report-dir`.

use super::Printout;
use super::execute::Effects;
use crate::alpha::Alpha;
use crate::cli::AuditArgs;
use crate::pipeline::audit::{self, AuditRequest};

/// Runs `audit`.
pub(crate) fn run(args: AuditArgs) -> anyhow::Result<Printout> {
    let request = AuditRequest {
        alpha: Alpha::new(args.alpha)?,
        claims: args.claims,
        report_dir: args.report_dir,
        format: args.format,
    };
    let effects = Effects::default().input("--claims", &request.claims);
    effects.finish(audit::run(&request)?)
}
