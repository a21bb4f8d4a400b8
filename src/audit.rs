//! `audit`'s core: re-test claims of improvement made in the past on the strongest
//! evidence each claim has. Per-task score files rerun the full admission test (the
//! caller runs it and passes the verdict in); discordant counts get McNemar's exact
//! test; rates on n tasks can only be judged for feasibility: if even the best case
//! (every disagreement won) could not reach significance the claim is unsupportable,
//! otherwise it is unverifiable without per-task data.

use serde::Serialize;

use crate::alpha::Alpha;
use crate::error::InputError;
use crate::stats::mcnemar::mcnemar_exact;
use crate::table::Table;

/// The most discordant pairs (`b` + `c`) a claim may give. McNemar's exact tails sum
/// about 40·√(b + c) terms, a fraction of a second here; near 2^53 they take minutes,
/// and past it they never end. No holdout comes near 2^40 tasks.
pub const MAX_DISCORDANT: u64 = 1 << 40;

/// The evidence a claim carries, strongest first.
#[derive(Debug, Clone, PartialEq)]
pub enum Evidence {
    /// Paths (relative to the claims file) of per-task score files.
    ScoreFiles {
        /// The baseline's scores.
        baseline: String,
        /// The candidate's scores.
        candidate: String,
    },
    /// McNemar's discordant counts.
    Discordant {
        /// Baseline right, candidate wrong.
        b: u64,
        /// Candidate right, baseline wrong.
        c: u64,
    },
    /// Rates (or mean scores) of both arms on n tasks.
    Rates {
        /// Tasks.
        n: u64,
        /// The baseline's rate.
        baseline: f64,
        /// The candidate's rate.
        candidate: f64,
    },
}

/// One claim of improvement.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// 1-based line in the claims file.
    pub line: u64,
    /// Its identifier.
    pub claim_id: String,
    /// What was claimed, untrusted text.
    pub description: String,
    /// The strongest evidence the row has.
    pub evidence: Evidence,
}

/// What the evidence says of a claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimVerdict {
    /// The improvement is significant on the evidence.
    Supported,
    /// The evidence was tested and the improvement is not significant.
    NotSupported,
    /// Even the best case on that many tasks could not be significant.
    Unsupportable,
    /// Significance was possible, but there is no per-task data to test.
    Unverifiable,
}

/// The judgement of one claim.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    /// The claim's identifier.
    pub claim_id: String,
    /// What was claimed.
    pub description: String,
    /// `score-files`, `discordant` or `rates`.
    pub evidence: &'static str,
    /// The verdict.
    pub verdict: ClaimVerdict,
    /// One sentence a reviewer can read.
    pub reason: String,
    /// The one-sided p-value for improvement (the best case for rates).
    pub p_improvement: Option<f64>,
    /// McNemar's b and c, where known or implied.
    pub b: Option<u64>,
    /// McNemar's c.
    pub c: Option<u64>,
}

/// Reads the claims table: `claim_id`, `description`, and the evidence columns.
pub fn parse_claims(table: &Table) -> Result<Vec<Claim>, InputError> {
    table.require_rows()?;
    let id = table.require("claim_id")?;
    let description = table.column("description");
    let col = |name: &str| table.column(name);
    let mut claims = Vec::new();
    for row in &table.rows {
        let get = |c: Option<usize>| c.map(|i| row.fields[i].trim()).filter(|v| !v.is_empty());
        let bad = |message: String| InputError::invalid(&table.source, row.line, message);
        let count = |name: &str, text: &str| -> Result<u64, InputError> {
            text.parse::<u64>().map_err(|_| {
                bad(format!(
                    "`{name}` is `{text}`: give a non-negative whole number"
                ))
            })
        };
        let rate = |name: &str, text: &str| -> Result<f64, InputError> {
            match text.parse::<f64>() {
                Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
                _ => Err(bad(format!(
                    "`{name}` is `{text}`: give a rate or mean score in [0, 1]"
                ))),
            }
        };
        let evidence = match (
            (get(col("baseline_scores")), get(col("candidate_scores"))),
            (get(col("b")), get(col("c"))),
            (get(col("n")), get(col("baseline")), get(col("candidate"))),
        ) {
            ((Some(baseline), Some(candidate)), _, _) => Evidence::ScoreFiles {
                baseline: baseline.to_string(),
                candidate: candidate.to_string(),
            },
            (_, (Some(b), Some(c)), _) => {
                let (b, c) = (count("b", b)?, count("c", c)?);
                if b.saturating_add(c) > MAX_DISCORDANT {
                    return Err(bad(format!(
                        "`b` + `c` is {}: no holdout has more than {MAX_DISCORDANT} discordant pairs; give the counts of disagreeing tasks",
                        u128::from(b) + u128::from(c)
                    )));
                }
                Evidence::Discordant { b, c }
            }
            (_, _, (Some(n), Some(baseline), Some(candidate))) => {
                let n = count("n", n)?;
                if n == 0 {
                    return Err(bad(
                        "`n` is 0: give the number of tasks the rates were measured on".into(),
                    ));
                }
                Evidence::Rates {
                    n,
                    baseline: rate("baseline", baseline)?,
                    candidate: rate("candidate", candidate)?,
                }
            }
            _ => {
                return Err(bad(
                    "no evidence: fill `baseline_scores,candidate_scores` (per-task score files), or `b,c` (discordant counts), or `n,baseline,candidate` (rates on n tasks)".into(),
                ));
            }
        };
        let claim_id =
            get(Some(id)).ok_or_else(|| bad("`claim_id` is empty; name the claim".into()))?;
        claims.push(Claim {
            line: row.line,
            claim_id: claim_id.to_string(),
            description: get(description).unwrap_or_default().to_string(),
            evidence,
        });
    }
    Ok(claims)
}

/// Judges a claim with counts or rates. Claims with score files are judged by
/// [`judge_admission`] instead; given one here, `None`.
pub fn judge(claim: &Claim, level: Alpha) -> Option<Judgement> {
    let alpha = level.get();
    let judgement = |evidence, verdict, reason, p: Option<f64>, b, c| Judgement {
        claim_id: claim.claim_id.clone(),
        description: claim.description.clone(),
        evidence,
        verdict,
        reason,
        p_improvement: p,
        b,
        c,
    };
    match claim.evidence {
        Evidence::ScoreFiles { .. } => None,
        Evidence::Discordant { b, c } => {
            let p = mcnemar_exact(b, c).p_improvement;
            let (verdict, comparison) = if level.rejects(p) {
                (ClaimVerdict::Supported, "<")
            } else {
                (ClaimVerdict::NotSupported, "≥")
            };
            let reason = format!(
                "McNemar exact on b {b}, c {c}: p_improvement {} {comparison} alpha {alpha}",
                p_text(p)
            );
            Some(judgement(
                "discordant",
                verdict,
                reason,
                Some(p),
                Some(b),
                Some(c),
            ))
        }
        Evidence::Rates {
            n,
            baseline,
            candidate,
        } => {
            let delta = candidate - baseline;
            let claimed = format!("{:+.1}%", 100.0 * delta);
            // The best case for the claim: every disagreement won by the candidate, as
            // few as the claimed difference implies (rounded to whole tasks).
            let wins = (delta * n as f64).round().max(0.0) as u64;
            let p = 0.5f64.powi(wins.min(1100) as i32);
            if wins == 0 || !level.rejects(p) {
                let reason = if wins == 0 {
                    format!("{n} tasks: a claimed {claimed} is not an improvement of even one task")
                } else {
                    format!(
                        "{n} tasks: even {wins} win{} and no losses could not reach p < {alpha} (best case p {}) for a claimed {claimed}",
                        if wins == 1 { "" } else { "s" },
                        p_text(p)
                    )
                };
                return Some(judgement(
                    "rates",
                    ClaimVerdict::Unsupportable,
                    reason,
                    Some(p),
                    Some(0),
                    Some(wins),
                ));
            }
            let reason = format!(
                "{n} tasks: a claimed {claimed} could be significant (best case, {wins} wins and no losses: p {}), but rates cannot say; rerun with per-task score files",
                p_text(p)
            );
            Some(judgement(
                "rates",
                ClaimVerdict::Unverifiable,
                reason,
                Some(p),
                Some(0),
                Some(wins),
            ))
        }
    }
}

/// Judges a claim whose per-task files were admitted (or not) by the full test.
pub fn judge_admission(
    claim: &Claim,
    admitted: bool,
    p_improvement: f64,
    first_reason: &str,
) -> Judgement {
    Judgement {
        claim_id: claim.claim_id.clone(),
        description: claim.description.clone(),
        evidence: "score-files",
        verdict: if admitted {
            ClaimVerdict::Supported
        } else {
            ClaimVerdict::NotSupported
        },
        reason: format!(
            "the admission test {}: {first_reason}",
            if admitted { "admits it" } else { "refuses it" }
        ),
        p_improvement: Some(p_improvement),
        b: None,
        c: None,
    }
}

fn p_text(p: f64) -> String {
    crate::figures::p_value(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn five_percent() -> Alpha {
        Alpha::new(0.05).unwrap()
    }

    fn claim(evidence: Evidence) -> Claim {
        Claim {
            line: 2,
            claim_id: "c1".into(),
            description: String::new(),
            evidence,
        }
    }

    #[test]
    fn discordant_counts_are_capped_where_the_exact_test_stays_fast() {
        let claims = |b: u64, c: u64| {
            let text = format!("claim_id,b,c\nx,{b},{c}\n");
            parse_claims(&Table::parse("claims.csv", text.as_bytes()).unwrap())
        };
        let half = MAX_DISCORDANT / 2;
        assert_eq!(
            claims(half, half).unwrap()[0].evidence,
            Evidence::Discordant { b: half, c: half }
        );
        let error = claims(half, half + 1).unwrap_err().to_string();
        assert!(
            error.starts_with("`claims.csv` row 2: `b` + `c` is 1099511627777"),
            "{error}"
        );
        assert!(claims(u64::MAX, u64::MAX).is_err());
    }

    #[test]
    fn discordant_counts_get_the_exact_one_sided_test() {
        // P(X ≥ 14 | X ~ Bin(16, 1/2)) = (C(16,14) + C(16,15) + C(16,16)) / 2^16 = 137/65536.
        let supported =
            judge(&claim(Evidence::Discordant { b: 2, c: 14 }), five_percent()).unwrap();
        assert_eq!(supported.verdict, ClaimVerdict::Supported);
        assert!((supported.p_improvement.unwrap() - 137.0 / 65536.0).abs() < 1e-15);
        let not = judge(&claim(Evidence::Discordant { b: 0, c: 1 }), five_percent()).unwrap();
        assert_eq!(
            (not.verdict, not.p_improvement),
            (ClaimVerdict::NotSupported, Some(0.5))
        );
    }

    #[test]
    fn rates_are_unsupportable_when_even_the_best_case_fails() {
        // 6 tasks, +16.7% = one task: best case p = 0.5; even six wins give 1/64 only
        // if claimed, but the claim implies one.
        let six = judge(
            &claim(Evidence::Rates {
                n: 6,
                baseline: 0.5,
                candidate: 0.5 + 1.0 / 6.0,
            }),
            five_percent(),
        )
        .unwrap();
        assert_eq!(six.verdict, ClaimVerdict::Unsupportable);
        assert!(
            six.reason
                .starts_with("6 tasks: even 1 win and no losses could not reach p < 0.05"),
            "{}",
            six.reason
        );
        let worse = judge(
            &claim(Evidence::Rates {
                n: 6,
                baseline: 0.5,
                candidate: 0.4,
            }),
            five_percent(),
        )
        .unwrap();
        assert_eq!(worse.verdict, ClaimVerdict::Unsupportable);
    }

    #[test]
    fn rates_that_could_be_significant_are_unverifiable_with_the_best_case_p() {
        // 400 tasks, +5% = 20 tasks: best case p = 2^-20.
        let claim = claim(Evidence::Rates {
            n: 400,
            baseline: 0.60,
            candidate: 0.65,
        });
        let judged = judge(&claim, five_percent()).unwrap();
        assert_eq!(judged.verdict, ClaimVerdict::Unverifiable);
        assert_eq!(judged.p_improvement, Some(0.5f64.powi(20)));
        assert_eq!(judged.c, Some(20));
    }

    #[test]
    fn parsing_names_the_row_and_what_to_fill_in() {
        let text = "claim_id,description,b,c,n,baseline,candidate\nx,d,2,14,,,\ny,d,-1,3,,,\n";
        let error =
            parse_claims(&Table::parse("claims.csv", text.as_bytes()).unwrap()).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`claims.csv` row 3: `b` is `-1`"),
            "{error}"
        );
        let text = "claim_id,description,b,c\nx,d,1.5,3\n";
        let error =
            parse_claims(&Table::parse("claims.csv", text.as_bytes()).unwrap()).unwrap_err();
        assert!(
            error.to_string().contains("non-negative whole number"),
            "{error}"
        );
        let text = "claim_id,description\nx,nothing\n";
        let error =
            parse_claims(&Table::parse("claims.csv", text.as_bytes()).unwrap()).unwrap_err();
        assert!(error.to_string().contains("no evidence"), "{error}");
    }
}
