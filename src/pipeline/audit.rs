//! The audit use case: judge every claim of a claims file on the strongest evidence it
//! has, rerunning the admission test ([`super::admit::evaluate`]) on claims that give
//! score files, which must lie inside the claims file's folder.

use std::path::{Component, Path, PathBuf};

use anyhow::bail;

use super::admit::{AdmitOn, AdmitSettings, Input, evaluate};
use super::outcome::{CommandOutcome, Status, Write};
use super::{read_file, read_table};
use crate::admission::{StrataRequest, TestChoice, TestName, Verdict};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::audit::{
    Claim, Evidence, Judgement, Metric, Rerun, judge, judge_admission, parse_claims,
};
use crate::report::ReportFormat;
use crate::report::audit::{AuditReport, markdown_report, text_report};
use crate::stats::signed_rank::ZeroMethod;

/// One `audit` run.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AuditRequest {
    /// The claims file.
    pub claims: PathBuf,
    /// The level.
    pub alpha: Alpha,
    /// `--report-dir`.
    pub report_dir: Option<PathBuf>,
    /// `--format`.
    pub format: ReportFormat,
}

/// Runs `audit`: the report to print (success when every claim is supported), and
/// `audit.json` and `audit.md` for the report folder.
pub(crate) fn run(request: &AuditRequest) -> anyhow::Result<CommandOutcome> {
    let (report, score_files) = audit(&request.claims, request.alpha)?;
    let stdout = match request.format {
        ReportFormat::Json => crate::report::json::document(&report)?,
        ReportFormat::Markdown => markdown_report(&report),
        ReportFormat::Text => text_report(&report),
    };
    let status = if report.supported == report.claims {
        Status::Success
    } else {
        Status::Negative
    };
    let mut outcome = CommandOutcome::new(status, stdout);
    outcome.read = (score_files.into_iter())
        .map(|path| ("a score file --claims names", path))
        .collect();
    if let Some(dir) = &request.report_dir {
        outcome.writes.push(Write::Folder {
            dir: dir.clone(),
            files: report_files(dir, &report)?,
            large: Vec::new(),
        });
    }
    Ok(outcome)
}

/// Judges every claim of the claims file at `claims`, in file order; with the report,
/// the score files the claims named and the rerun read, which no write may replace.
pub(crate) fn audit(claims: &Path, alpha: Alpha) -> anyhow::Result<(AuditReport, Vec<PathBuf>)> {
    let table = read_table(claims)?;
    let parsed = parse_claims(&table)?;
    let folder = claims.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut judgements = Vec::new();
    let mut read = Vec::new();
    for claim in &parsed {
        judgements.push(match judge(claim, alpha) {
            Some(judged) => judged,
            None => rerun(claim, &folder, &table.source, alpha, &mut read)?,
        });
    }
    Ok((AuditReport::new(alpha.get(), judgements), read))
}

/// Reruns the admission test on a claim's score files: the claim's `metric` (McNemar for
/// binary, signed-rank for mean; auto when absent), at alpha / attempts, on the `group`
/// clusters whenever every task has one. Each score file's path is added to `read`.
fn rerun(
    claim: &Claim,
    folder: &Path,
    source: &str,
    alpha: Alpha,
    read: &mut Vec<PathBuf>,
) -> anyhow::Result<Judgement> {
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
    let mut inside = |name: &str| -> anyhow::Result<Input> {
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
        read.push(path.clone());
        let bytes = read_file(&path).map_err(|e| {
            anyhow::anyhow!(
                "`{source}` row {}: cannot read score file {e:#}; give its path relative to the claims file's folder",
                claim.line,
            )
        })?;
        Ok(Input {
            path: name.to_string(),
            bytes,
        })
    };
    let mut settings = AdmitSettings {
        alpha: claim.alpha(alpha),
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
        allow_missing: false,
    };
    let on = AdmitOn::Bytes {
        baseline: inside(baseline)?,
        candidate: inside(candidate)?,
        tasks: None,
        manifest: None,
        held: false,
    };
    let mut evaluation = evaluate(&on, &settings, None)?;
    if evaluation.report.admission.cluster.is_some() {
        // Every task has a group: decide on the clusters, as `admit --cluster group`.
        settings.cluster = true;
        evaluation = evaluate(&on, &settings, None)?;
    }
    let admission = &evaluation.report.admission;
    let clustered = admission.cluster.as_ref().filter(|c| c.decides);
    let rerun = Rerun {
        admitted: admission.verdict == Verdict::Admitted,
        p_improvement: clustered.map_or(admission.tails.p_improvement, |c| c.tails.p_improvement),
        log10_p_improvement: clustered.map_or(admission.tails.log10_p_improvement, |c| {
            c.tails.log10_p_improvement
        }),
        n: admission.n as u64,
        clusters: clustered.map(|c| c.clusters as u64),
        discordant: admission
            .discordant
            .map(|d| (d.baseline_only, d.candidate_only)),
        metric: match admission.test.name {
            TestName::McNemar => Metric::Binary,
            TestName::SignedRank => Metric::Mean,
        },
        first_reason: admission.reasons.first().cloned().unwrap_or_default(),
    };
    Ok(judge_admission(claim, alpha, &rerun, source)?)
}

/// `audit.json` and `audit.md` in the folder `dir`.
pub(crate) fn report_files(dir: &Path, report: &AuditReport) -> anyhow::Result<Vec<FileToWrite>> {
    Ok(vec![
        FileToWrite::new(
            dir.join("audit.json"),
            crate::report::json::document(report)?,
        ),
        FileToWrite::new(dir.join("audit.md"), markdown_report(report)),
    ])
}
