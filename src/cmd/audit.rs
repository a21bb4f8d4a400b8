//! `evogate audit`: judge each claim of the claims file and report.

use std::path::{Component, Path, PathBuf};

use anyhow::bail;

use super::admit::{Input, Settings, evaluate};
use super::{Outcome, Status, read_table};
use crate::admission::{Alpha, StrataRequest, TestChoice, TestName, Verdict};
use crate::atomic::{Output, ensure_dir, write_all};
use crate::audit::{
    Claim, Evidence, Judgement, Metric, Rerun, judge, judge_admission, parse_claims,
};
use crate::cli::AuditArgs;
use crate::report::audit::{AuditReport, json, markdown_report, text};
use crate::stats::signed_rank::ZeroMethod;

/// Runs `audit`.
pub fn run(args: AuditArgs) -> anyhow::Result<Outcome> {
    Alpha::new(args.alpha)?;
    let table = read_table(&args.claims)?;
    let claims = parse_claims(&table)?;
    let folder = args
        .claims
        .parent()
        .map_or_else(PathBuf::new, Path::to_path_buf);
    let mut judgements = Vec::new();
    for claim in &claims {
        judgements.push(match judge(claim, args.alpha) {
            Some(judged) => judged,
            None => rerun(claim, &folder, &table.source, args.alpha)?,
        });
    }
    let report = AuditReport::new(args.alpha, judgements);
    let json = json(&report);
    let md = markdown_report(&report);
    if let Some(dir) = &args.report_dir {
        ensure_dir(dir)?;
        write_all(&[
            Output::new(dir.join("audit.json"), json.clone()),
            Output::new(dir.join("audit.md"), md.clone()),
        ])?;
    }
    let stdout = match args.format.as_str() {
        "json" => json,
        "markdown" => md,
        _ => text(&report),
    };
    let status = if report.supported == report.claims {
        Status::Success
    } else {
        Status::Negative
    };
    Ok(Outcome::new(status, stdout))
}

/// Reruns the admission test on a claim's score files.
/// The test is the claim's `metric` (McNemar for binary, signed-rank for mean; auto when
/// absent), at alpha / attempts, on the `group` clusters whenever every task has one.
fn rerun(claim: &Claim, folder: &Path, source: &str, alpha: f64) -> anyhow::Result<Judgement> {
    let Evidence::ScoreFiles {
        baseline,
        candidate,
    } = &claim.evidence
    else {
        bail!(
            "`{source}` row {}: the claim has no score files",
            claim.line
        );
    };
    let inside = |name: &str| -> anyhow::Result<Input> {
        let relative = Path::new(name);
        let escapes = relative.is_absolute()
            || relative
                .components()
                .try_fold(0i64, |depth, part| match part {
                    Component::ParentDir if depth == 0 => None,
                    Component::ParentDir => Some(depth - 1),
                    Component::Normal(_) => Some(depth + 1),
                    _ => Some(depth),
                })
                .is_none();
        if escapes {
            bail!(
                "`{source}` row {}: score file `{name}` is outside the claims file's folder; give a path relative to it, without leaving it",
                claim.line
            );
        }
        let path = folder.join(relative);
        // A link inside the folder may still lead out of it.
        if let (Ok(real), Ok(real_folder)) = (path.canonicalize(), folder.canonicalize())
            && !real.starts_with(&real_folder)
        {
            bail!(
                "`{source}` row {}: score file `{name}` is a link that leads outside the claims file's folder; copy the file into the folder instead",
                claim.line
            );
        }
        let bytes = std::fs::read(&path).map_err(|e| {
            anyhow::anyhow!(
                "`{source}` row {}: cannot read score file `{}`: {e}; give its path relative to the claims file's folder",
                claim.line,
                path.display()
            )
        })?;
        Ok(Input {
            path: name.to_string(),
            bytes,
        })
    };
    let mut settings = Settings {
        alpha: Alpha::new(claim.alpha(alpha))?,
        test: match claim.metric {
            Some(Metric::Binary) => TestChoice::McNemar,
            Some(Metric::Mean) => TestChoice::SignedRank,
            None => TestChoice::Auto,
        },
        zero: ZeroMethod::Wilcox,
        strata: Some(StrataRequest {
            column: "kind".to_string(),
            required: false,
        }),
        margin: None,
        cluster: false,
    };
    let (baseline, candidate) = (inside(baseline)?, inside(candidate)?);
    let mut evaluation = evaluate(&baseline, &candidate, None, None, &settings)?;
    if evaluation.report.cluster.is_some() {
        // Every task has a group: decide on the clusters, as `admit --cluster group`.
        settings.cluster = true;
        evaluation = evaluate(&baseline, &candidate, None, None, &settings)?;
    }
    let report = &evaluation.report;
    let clustered = report.cluster.as_ref().filter(|c| c.decides);
    let rerun = Rerun {
        admitted: report.verdict == Verdict::Admitted,
        p_improvement: clustered.map_or(report.p_improvement, |c| c.p_improvement),
        n: report.n as u64,
        clusters: clustered.map(|c| c.clusters as u64),
        discordant: report
            .discordant
            .map(|d| (d.baseline_only, d.candidate_only)),
        metric: match report.test.name {
            TestName::McNemar => Metric::Binary,
            TestName::SignedRank => Metric::Mean,
        },
        first_reason: report.reasons.first().cloned().unwrap_or_default(),
    };
    Ok(judge_admission(claim, alpha, &rerun, source)?)
}
