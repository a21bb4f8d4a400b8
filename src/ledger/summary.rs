//! The summary of a ledger, holdout by holdout: how often it was tried, how many
//! candidates it admitted, how much alpha is spent and left, and whether the next
//! attempt could reach significance at all with the holdout's number of pairs.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Record, RecordVerdict};
use crate::alpha::spending::{alpha_left_after, alpha_spent_before};
use crate::alpha::{Alpha, Sharing};

/// What the ledger holds about one holdout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HoldoutSummary {
    /// The holdout's identity.
    pub holdout_sha256: String,
    /// Attempts recorded on it (a sequential attempt once, however many looks it took).
    pub attempts: u64,
    /// How many of them admitted their candidate.
    pub admitted: u64,
    /// The attempts whose run has looked at the holdout and not decided (abandoned, or
    /// still going): each is spent.
    pub open_attempts: Vec<OpenAttempt>,
    /// The alpha declared for the stream.
    pub declared_alpha: f64,
    /// The alpha the recorded attempts spent.
    pub alpha_spent: f64,
    /// The alpha left for later attempts.
    pub alpha_left: f64,
    /// The number the next attempt will get.
    pub next_attempt: u64,
    /// The level the next attempt will be decided at.
    pub next_alpha: f64,
    /// The pairs the latest record used.
    pub n: u64,
    /// The smallest one-sided p-value any result on `n` pairs can give: 0.5^n, every
    /// pair favouring the candidate (exact McNemar and the exact signed-rank test alike).
    pub smallest_p: f64,
    /// Whether `smallest_p < next_alpha`: whether the next attempt can admit anything.
    pub next_can_reach_significance: bool,
    /// When it cannot, why, in a sentence.
    pub warning: Option<String>,
}

/// An attempt whose latest record is `open`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpenAttempt {
    /// Its number on the holdout.
    pub attempt: u64,
    /// The level it is decided at.
    pub alpha: f64,
    /// The pairs its latest look held.
    pub pairs: u64,
}

/// Summarises `records` (as [`super::parse_ledger`] returns them) per holdout, sorted by
/// holdout identity. Time: O(records · log holdouts).
pub fn summarise(records: &[Record]) -> Vec<HoldoutSummary> {
    let mut holdouts: BTreeMap<&str, Vec<&Record>> = BTreeMap::new();
    for record in records {
        holdouts
            .entry(&record.holdout_sha256)
            .or_default()
            .push(record);
    }
    holdouts
        .into_iter()
        .filter_map(|(holdout, stream)| {
            let last = stream.last()?;
            // The latest record of each attempt, attempt k at index k − 1 (the stream was
            // checked to number them 1, 2, ... as they first appear).
            let mut latest: Vec<&Record> = Vec::new();
            for record in &stream {
                match latest.get_mut(record.attempt as usize - 1) {
                    Some(slot) => *slot = record,
                    None => latest.push(record),
                }
            }
            let attempts = latest.len() as u64;
            let declared = last.declared_alpha;
            // A ledger read back holds only levels `Alpha` accepts (`read_ledger`).
            let next = Alpha::new(declared)
                .ok()
                .map(|alpha| alpha.per_attempt(attempts + 1, Sharing::Spending));
            let next_alpha = next.map_or(0.0, Alpha::get);
            // 0.5^n underflows to 0 past n = 1074, which is the right answer there.
            let smallest_p = 0.5f64.powf(last.n as f64);
            let reachable = next.is_some_and(|alpha| alpha.rejects(smallest_p));
            let warning = (!reachable).then(|| {
                format!(
                    "the next attempt needs p < {}; with {} the smallest possible p is {}",
                    significant(next_alpha),
                    crate::base::numbers::count(last.n, "pair"),
                    crate::base::numbers::p_value(smallest_p)
                )
            });
            Some(HoldoutSummary {
                holdout_sha256: holdout.to_string(),
                attempts,
                admitted: latest
                    .iter()
                    .filter(|r| r.verdict == RecordVerdict::Admitted)
                    .count() as u64,
                open_attempts: latest
                    .iter()
                    .filter(|r| r.verdict == RecordVerdict::Open)
                    .map(|r| OpenAttempt {
                        attempt: r.attempt,
                        alpha: r.alpha_this_attempt,
                        pairs: r.n,
                    })
                    .collect(),
                declared_alpha: declared,
                alpha_spent: alpha_spent_before(declared, attempts + 1),
                alpha_left: alpha_left_after(declared, attempts),
                next_attempt: attempts + 1,
                next_alpha,
                n: last.n,
                smallest_p,
                next_can_reach_significance: reachable,
                warning,
            })
        })
        .collect()
}

/// `value` to three significant digits: `0.0304`, `0.000244`, `9.54e-7`.
pub(crate) fn significant(value: f64) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    if value.abs() < 1e-4 {
        return format!("{value:.2e}");
    }
    let digits = (2 - value.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{value:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

// Reference values are kept as the reference tool printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::super::attempt::tests::record;
    use super::*;

    #[test]
    fn counts_attempts_admissions_and_alpha_per_holdout_in_identity_order() {
        let mut admitted = record("a", 2, 0.05);
        admitted.verdict = RecordVerdict::Admitted;
        admitted.p_improvement = 0.001;
        let records = vec![record("a", 1, 0.05), record("b", 1, 0.01), admitted];
        let summaries = summarise(&records);
        let mut ids = [
            records[0].holdout_sha256.clone(),
            records[1].holdout_sha256.clone(),
        ];
        ids.sort();
        let found: Vec<_> = summaries.iter().map(|s| s.holdout_sha256.clone()).collect();
        assert_eq!(found, ids);
        let a = summaries
            .iter()
            .find(|s| s.holdout_sha256 == records[0].holdout_sha256)
            .unwrap();
        assert_eq!((a.attempts, a.admitted, a.next_attempt), (2, 1, 3));
        // Values from the mpmath table in spending.rs (k = 2 and 3).
        assert!((a.alpha_spent - 0.037995443865876664).abs() < 1e-15);
        assert!((a.alpha_left - 0.012004556134123336).abs() < 1e-15);
        assert!((a.next_alpha - 0.0033773727880779257).abs() < 1e-15);
        assert!(a.next_can_reach_significance && a.warning.is_none());
    }

    #[test]
    fn flags_a_holdout_too_small_for_the_next_attempts_alpha() {
        // At n = 12 the best p is 0.5^12 = 0.000244; attempt 12 gets 0.05·6/(π²·144)
        // = 0.000211, so after 11 attempts the holdout can no longer admit anything,
        // while after 10 (attempt 11 gets 0.000251) it still can.
        let stream = |attempts: u64| -> Vec<Record> {
            (1..=attempts)
                .map(|k| Record {
                    n: 12,
                    ..record("a", k, 0.05)
                })
                .collect()
        };
        let open = &summarise(&stream(10))[0];
        assert!(open.next_can_reach_significance, "{open:?}");
        let closed = &summarise(&stream(11))[0];
        assert!(!closed.next_can_reach_significance);
        assert_eq!(
            closed.warning.as_deref(),
            Some(
                "the next attempt needs p < 0.000211; with 12 pairs the smallest possible p is 0.0002441"
            )
        );
    }

    #[test]
    fn an_empty_ledger_has_no_holdouts() {
        assert!(summarise(&[]).is_empty());
    }

    #[test]
    fn formats_to_three_significant_digits() {
        let cases = [
            (0.030396355, "0.0304"),
            (0.05, "0.05"),
            (0.000244140625, "0.000244"),
            (9.5367e-7, "9.54e-7"),
            (1.0, "1"),
            (0.0, "0"),
        ];
        for (value, text) in cases {
            assert_eq!(significant(value), text);
        }
    }
}
