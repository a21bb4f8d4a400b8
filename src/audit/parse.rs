//! Reading the claims table: one [`Claim`] per row, every cell checked, errors naming
//! the row and what to write instead.

use super::cases::whole_count;
use super::{Claim, Evidence, MAX_DISCORDANT, Metric, Rate};
use crate::error::InputError;
use crate::table::Table;

/// Reads the claims table: `claim_id`, `description`, the evidence columns, and the
/// optional `source`, `n`, `metric`, `repeats`, `clusters`, `attempts` and
/// `selected_on_scored_set`.
pub fn parse_claims(table: &Table) -> Result<Vec<Claim>, InputError> {
    table.require_rows()?;
    table.require("claim_id")?;
    let col = |name: &str| table.column(name);
    let mut claims = Vec::new();
    for row in &table.rows {
        let get = |name: &str| {
            col(name)
                .map(|i| row.fields[i].trim())
                .filter(|v| !v.is_empty())
        };
        let bad = |message: String| InputError::invalid(&table.source, row.line, message);
        let count = |name: &str, text: &str| -> Result<u64, InputError> {
            text.parse::<u64>().map_err(|_| {
                bad(format!(
                    "`{name}` is `{text}`: give a non-negative whole number"
                ))
            })
        };
        let positive = |name: &str, what: &str| -> Result<Option<u64>, InputError> {
            match get(name) {
                None => Ok(None),
                Some(text) => match text.parse::<u64>() {
                    Ok(v) if (1..=MAX_DISCORDANT).contains(&v) => Ok(Some(v)),
                    _ => Err(bad(format!(
                        "`{name}` is `{text}`: give {what}, a whole number from 1 to {MAX_DISCORDANT}"
                    ))),
                },
            }
        };
        let rate = |name: &str, text: &str| -> Result<Rate, InputError> {
            match text.parse::<f64>() {
                Ok(value) if (0.0..=1.0).contains(&value) => Ok(Rate {
                    value,
                    rounding: rounding_of(text),
                }),
                _ => Err(bad(format!(
                    "`{name}` is `{text}`: give a rate or mean score in [0, 1]"
                ))),
            }
        };
        let n = match get("n") {
            Some(text) => {
                let n = count("n", text)?;
                if n == 0 || n > MAX_DISCORDANT {
                    return Err(bad(format!(
                        "`n` is {n}: give the number of tasks scored, from 1 to {MAX_DISCORDANT}"
                    )));
                }
                Some(n)
            }
            None => None,
        };
        let evidence = match (
            (get("baseline_scores"), get("candidate_scores")),
            (get("b"), get("c")),
            (get("baseline"), get("candidate")),
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
                if n.is_some_and(|n| b + c > n) {
                    return Err(bad(format!(
                        "`b` + `c` is {} but `n` is {}: discordant pairs are some of the n tasks; give the right n or leave it empty",
                        b + c,
                        n.unwrap_or_default()
                    )));
                }
                Evidence::Discordant { b, c }
            }
            (_, _, (Some(baseline), Some(candidate))) => {
                if n.is_none() {
                    return Err(bad(
                        "`n` is empty: give the number of tasks the rates were measured on".into(),
                    ));
                }
                Evidence::Rates {
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
        let metric = match get("metric") {
            None => None,
            Some("binary") => Some(Metric::Binary),
            Some("mean") => Some(Metric::Mean),
            Some(other) => {
                return Err(bad(format!(
                    "`metric` is `{other}`: give `binary` (right or wrong per task) or `mean` (a graded or averaged score), or leave it empty to infer it"
                )));
            }
        };
        let repeats = positive("repeats", "the copies of each item")?.unwrap_or(1);
        let clusters = positive("clusters", "the number of independent clusters")?;
        let attempts = positive("attempts", "the candidates tried on this set")?.unwrap_or(1);
        let selected_on_scored_set = match get("selected_on_scored_set") {
            None | Some("no") => false,
            Some("yes") => true,
            Some(other) => {
                return Err(bad(format!(
                    "`selected_on_scored_set` is `{other}`: give `yes` or `no`"
                )));
            }
        };
        if let Some(n) = n {
            if !n.is_multiple_of(repeats) {
                return Err(bad(format!(
                    "`n` {n} is not a multiple of `repeats` {repeats}: n counts every copy of every item"
                )));
            }
            if let Some(clusters) = clusters.filter(|&g| g > n / repeats) {
                return Err(bad(format!(
                    "`clusters` is {clusters}, more than the {} items: give the number of independent clusters the items fall into",
                    n / repeats
                )));
            }
        } else if repeats > 1 && !matches!(evidence, Evidence::ScoreFiles { .. }) {
            return Err(bad(
                "`repeats` needs `n`: give the number of tasks, every copy counted".into(),
            ));
        }
        if let (
            Evidence::Rates {
                baseline,
                candidate,
            },
            Some(Metric::Binary),
            Some(n),
        ) = (&evidence, metric, n)
        {
            for (name, rate) in [("baseline", baseline), ("candidate", candidate)] {
                if whole_count(*rate, n).is_none() {
                    return Err(bad(format!(
                        "`metric` is binary but `{name}` {} of {n} tasks is {:.2} tasks, not a whole count: give `metric` mean, or the n the rate was measured on",
                        rate.value,
                        rate.value * n as f64
                    )));
                }
            }
        }
        let claim_id =
            get("claim_id").ok_or_else(|| bad("`claim_id` is empty; name the claim".into()))?;
        claims.push(Claim {
            line: row.line,
            claim_id: claim_id.to_string(),
            description: get("description").unwrap_or_default().to_string(),
            source: get("source").map(str::to_string),
            evidence,
            n,
            metric,
            repeats,
            clusters,
            attempts,
            selected_on_scored_set,
        });
    }
    Ok(claims)
}

/// Half a unit in the last decimal of a rate written as `text`: 0.0005 for `0.886`,
/// 0.5 for `1`. Scientific notation is taken as exact.
fn rounding_of(text: &str) -> f64 {
    if text.contains(['e', 'E']) {
        return 0.0;
    }
    let decimals = text.split_once('.').map_or(0, |(_, d)| d.len()).min(300);
    0.5 * 10f64.powi(-(decimals as i32))
}
