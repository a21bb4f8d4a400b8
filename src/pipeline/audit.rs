//! The audit use case: judge every claim of a claims file on the strongest evidence it
//! has, rerunning the admission test ([`super::admit::evaluate`]) on claims that give
//! score files, which must lie inside the claims file's folder.

use std::path::{Component, Path, PathBuf};

use anyhow::bail;

use super::admit::{AdmitSettings, Input, evaluate};
use super::read_table;
use crate::admission::{StrataRequest, TestChoice, Verdict};
use crate::alpha::Alpha;
use crate::atomic::FileToWrite;
use crate::audit::{
    Claim, ClaimVerdict, Evidence, Judgement, judge, judge_admission, parse_claims,
};
use crate::report::audit::{AuditReport, markdown_report};
use crate::stats::signed_rank::ZeroMethod;

/// Judges every claim of the claims file at `claims`, in file order.
pub fn audit(claims: &Path, alpha: Alpha) -> anyhow::Result<AuditReport> {
    let table = read_table(claims)?;
    let parsed = parse_claims(&table)?;
    let folder = claims.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut judgements = Vec::new();
    for claim in &parsed {
        judgements.push(match judge(claim, alpha) {
            Some(judged) => judged,
            None => rerun(claim, &folder, &table.source, alpha)?,
        });
    }
    let supported = judgements
        .iter()
        .filter(|j| j.verdict == ClaimVerdict::Supported)
        .count();
    Ok(AuditReport {
        schema: "evogate/audit/v1",
        alpha: alpha.get(),
        supported,
        claims: judgements.len(),
        judgements,
    })
}

/// Reruns the admission test on a claim's score files.
fn rerun(claim: &Claim, folder: &Path, source: &str, alpha: Alpha) -> anyhow::Result<Judgement> {
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
    let settings = AdmitSettings {
        alpha,
        test: TestChoice::Auto,
        zero: ZeroMethod::Wilcox,
        strata: Some(StrataRequest {
            column: "kind".to_string(),
            required: false,
        }),
        margin: None,
        cluster: false,
    };
    let evaluation = evaluate(
        &inside(baseline)?,
        &inside(candidate)?,
        None,
        None,
        &settings,
    )?;
    let report = &evaluation.report;
    let first = report.admission.reasons.first().map_or("", String::as_str);
    Ok(judge_admission(
        claim,
        report.admission.verdict == Verdict::Admitted,
        report.admission.p_improvement,
        first,
    ))
}

/// `audit.json` and `audit.md` in the folder `dir`.
pub fn report_files(dir: &Path, report: &AuditReport) -> anyhow::Result<Vec<FileToWrite>> {
    Ok(vec![
        FileToWrite::new(
            dir.join("audit.json"),
            crate::report::json::document(report)?,
        ),
        FileToWrite::new(dir.join("audit.md"), markdown_report(report)),
    ])
}
