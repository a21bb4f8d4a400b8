//! From a claim's evidence to its verdict. Every kind of evidence is reduced to the
//! same findings (effective n, best case, worst case where the rates allow one, the
//! data's own test where there are data), and one rule turns findings into a verdict,
//! so a verdict means the same whatever the evidence.

use super::cases::{best_case_p, detectable_shift_80, whole_count, worst_case};
use super::{Claim, ClaimVerdict, Evidence, Judgement, Metric};
use crate::alpha::{Alpha, Sharing};
use crate::base::numbers::count;
use crate::error::InputError;
use crate::stats::mcnemar::mcnemar_exact;
use crate::stats::power::min_detectable_shift;

/// What the admission test said of a claim's per-task score files.
#[derive(Debug, Clone, PartialEq)]
pub struct Rerun {
    /// Whether it admitted the candidate.
    pub admitted: bool,
    /// The deciding one-sided p-value: the clustered test's when it ran on clusters.
    pub p_improvement: f64,
    /// log10 of `p_improvement`, from the test's log-space tail.
    pub log10_p_improvement: f64,
    /// Pairs.
    pub n: u64,
    /// Clusters of the `group` column, when the test ran on them.
    pub clusters: Option<u64>,
    /// McNemar's (b, c), when the files carry `correct`.
    pub discordant: Option<(u64, u64)>,
    /// `binary` when McNemar decided, `mean` when the signed-rank test did.
    pub metric: Metric,
    /// The admission's first reason.
    pub first_reason: String,
}

impl Claim {
    /// The level this claim is tested at: alpha / attempts (Bonferroni over the
    /// candidates tried on the set).
    pub fn alpha(&self, alpha: Alpha) -> Alpha {
        alpha.per_attempt(self.attempts, Sharing::Bonferroni)
    }

    /// Whether the test must run on clusters or items rather than on tasks.
    pub fn grouped(&self) -> bool {
        self.repeats > 1 || self.clusters.is_some()
    }

    /// Units the test runs on when tasks are `n`: the clusters, else n / repeats.
    fn units(&self, n: u64) -> u64 {
        self.clusters.unwrap_or(n / self.repeats)
    }
}

/// What the evidence shows, before the one rule in [`conclude`] makes it a verdict.
struct Findings {
    evidence: &'static str,
    metric: Metric,
    metric_inferred: bool,
    n: Option<u64>,
    units: u64,
    unit_word: &'static str,
    clusters: Option<u64>,
    /// The data's own test: its p and whether it is significant (admitted).
    data: Option<(f64, bool)>,
    /// log10 of the data's p, computed in log space.
    data_log10: Option<f64>,
    /// The sentence that states the data's result.
    data_sentence: String,
    /// The claim is no improvement at all.
    no_gain: bool,
    /// The wins of the best case: its p-value is 0.5^best_wins.
    best_wins: u64,
    worst: Option<(u64, u64, f64)>,
    discordant: Option<(u64, u64)>,
    notes: Vec<String>,
}

/// Judges a claim with counts or rates at the level `alpha` (before the claim's own
/// attempts divide it). Claims with score files are judged by [`judge_admission`]
/// instead; given one here, `None`.
pub fn judge(claim: &Claim, alpha: Alpha) -> Option<Judgement> {
    let tested = claim.alpha(alpha);
    let findings = match claim.evidence {
        Evidence::ScoreFiles { .. } => return None,
        Evidence::Discordant { b, c } => discordant(claim, b, c, tested),
        Evidence::Rates {
            baseline,
            candidate,
        } => {
            let n = claim.n.unwrap_or(1);
            let counts = (whole_count(baseline, n), whole_count(candidate, n));
            let (metric, inferred) = match (claim.metric, counts) {
                (Some(metric), _) => (metric, false),
                (None, (Some(_), Some(_))) => (Metric::Binary, true),
                (None, _) => (Metric::Mean, true),
            };
            let mut notes = Vec::new();
            if inferred {
                notes.push(match counts {
                    (Some(base), Some(cand)) => format!(
                        "Metric inferred binary: the rates are {base} and {cand} of {}.",
                        count(n, "task")
                    ),
                    _ => format!(
                        "Metric inferred mean: {} × {n} and {} × {n} are not both whole counts.",
                        baseline.value, candidate.value
                    ),
                });
            }
            let units = claim.units(n);
            let single_run = !claim.grouped();
            let (no_gain, best_wins, worst) = match (metric, counts) {
                (Metric::Binary, (Some(base), Some(cand))) => {
                    let gain = cand.saturating_sub(base);
                    let worst = if single_run {
                        worst_case(n, base, cand)
                    } else {
                        None
                    };
                    (gain == 0, gain.min(units), worst)
                }
                _ => {
                    let no_gain = candidate.value <= baseline.value;
                    (no_gain, units, None)
                }
            };
            Findings {
                evidence: "rates",
                metric,
                metric_inferred: inferred,
                n: claim.n,
                units,
                unit_word: unit_word(claim),
                clusters: claim.clusters,
                data: None,
                data_log10: None,
                data_sentence: String::new(),
                no_gain,
                best_wins,
                worst,
                discordant: None,
                notes,
            }
        }
    };
    Some(conclude(claim, tested, findings))
}

/// Discordant counts: McNemar's exact test when every task is its own unit; with
/// copies or clusters the counts cannot be tested unit by unit, so only the best case
/// (each unit holding at least one of the c wins) is judged.
fn discordant(claim: &Claim, b: u64, c: u64, tested: Alpha) -> Findings {
    let test = mcnemar_exact(b, c);
    let p = test.tails.p_improvement;
    let naive = format!(
        "McNemar exact on b {b}, c {c}: p_improvement {} {} alpha {}.",
        p_text(p),
        if tested.rejects(p) { "<" } else { "≥" },
        p_text(tested.get())
    );
    let (units, data, best_wins, notes) = match claim.n {
        Some(n) if claim.grouped() => {
            let units = claim.units(n);
            let note = format!(
                "That test counts copies or clustered tasks as independent; only per-task score files with a `group` column can be tested on the {units} {}.",
                unit_word(claim)
            );
            (units, None, c.min(units), vec![note])
        }
        Some(n) => (n, Some((p, tested.rejects(p))), n, Vec::new()),
        // Only the discordant pairs enter McNemar's test.
        None => (b + c, Some((p, tested.rejects(p))), b + c, Vec::new()),
    };
    Findings {
        evidence: "discordant",
        metric: Metric::Binary,
        metric_inferred: false,
        n: claim.n,
        units,
        unit_word: if claim.n.is_some() {
            unit_word(claim)
        } else {
            "discordant pairs"
        },
        clusters: claim.clusters,
        data_log10: data.map(|_| test.tails.log10_p_improvement),
        data,
        data_sentence: naive,
        no_gain: false,
        best_wins,
        worst: None,
        discordant: Some((b, c)),
        notes,
    }
}

/// Judges a claim whose per-task files the admission test was rerun on at
/// `claim.alpha(alpha)`. `source` names the claims file in errors: a claim that says
/// its tasks are copies or clusters needs a `group` column that agrees.
pub fn judge_admission(
    claim: &Claim,
    alpha: Alpha,
    rerun: &Rerun,
    source: &str,
) -> Result<Judgement, InputError> {
    let bad = |message: String| InputError::invalid(source, claim.line, message);
    if claim.grouped() {
        let Some(found) = rerun.clusters else {
            return Err(bad(
                "`repeats` or `clusters` is set but the score files have no `group` on every task: add a `group` column naming each task's item or cluster".into(),
            ));
        };
        let expected = claim.clusters.unwrap_or(rerun.n / claim.repeats);
        if found != expected || !rerun.n.is_multiple_of(claim.repeats) {
            return Err(bad(format!(
                "the score files have {} in {}, but `repeats` and `clusters` say {expected}: make them agree",
                count(rerun.n, "task"),
                count(found, "group")
            )));
        }
    }
    let units = rerun.clusters.unwrap_or(rerun.n);
    let findings = Findings {
        evidence: "score-files",
        metric: rerun.metric,
        metric_inferred: claim.metric.is_none(),
        n: Some(rerun.n),
        units,
        unit_word: if rerun.clusters.is_some() {
            "clusters"
        } else {
            "tasks"
        },
        clusters: rerun.clusters,
        data: Some((rerun.p_improvement, rerun.admitted)),
        data_log10: Some(rerun.log10_p_improvement),
        data_sentence: format!(
            "The admission test {}: {}",
            if rerun.admitted {
                "admits it"
            } else {
                "does not admit it"
            },
            rerun.first_reason
        ),
        no_gain: false,
        best_wins: units,
        worst: None,
        discordant: rerun.discordant,
        notes: match (claim.metric, rerun.metric) {
            (Some(_), _) => Vec::new(),
            (None, Metric::Binary) => {
                vec!["Metric inferred binary: both files carry `correct`.".into()]
            }
            (None, Metric::Mean) => {
                vec!["Metric inferred mean: the files carry scores, not both `correct`.".into()]
            }
        },
    };
    Ok(conclude(claim, claim.alpha(alpha), findings))
}

/// The one rule: unsupportable when even the best case at the effective n fails;
/// otherwise the data's own test where there are data; otherwise supported only when
/// the worst case is significant. Selection on the scored set caps it at unverifiable.
fn conclude(claim: &Claim, tested: Alpha, findings: Findings) -> Judgement {
    let f = findings;
    let units = format!("{} {}", f.units, f.unit_word);
    let mut verdict;
    let mut sentences = Vec::new();
    if f.no_gain {
        verdict = ClaimVerdict::Unsupportable;
        sentences.push(format!(
            "{units}: the candidate's rate is not above the baseline's, so no result could show an improvement."
        ));
    } else if !tested.rejects(best_case_p(f.best_wins)) {
        verdict = ClaimVerdict::Unsupportable;
        sentences.push(format!(
            "{units}: even the best case, every disagreement won, gives p {} ≥ alpha {}.",
            p_text(best_case_p(f.best_wins)),
            p_text(tested.get())
        ));
    } else if let Some((_, significant)) = f.data {
        verdict = if significant {
            ClaimVerdict::Supported
        } else {
            ClaimVerdict::NotSupported
        };
        sentences.push(f.data_sentence.clone());
    } else {
        let best = format!(
            "the best case, every disagreement won, gives p {} < alpha {}",
            p_text(best_case_p(f.best_wins)),
            p_text(tested.get())
        );
        match f.worst {
            Some((b, c, worst)) if tested.rejects(worst) => {
                verdict = ClaimVerdict::Supported;
                sentences.push(format!(
                    "{units}, binary, single run: even the worst pairing the rates allow (b {b}, c {c}) gives p {} < alpha {}.",
                    p_text(worst),
                    p_text(tested.get())
                ));
            }
            Some((b, c, worst)) => {
                verdict = ClaimVerdict::Unverifiable;
                sentences.push(format!(
                    "{units}, binary, single run: {best}, but the worst pairing the rates allow (b {b}, c {c}) gives p {} ≥ alpha; rerun with per-task score files.",
                    p_text(worst)
                ));
            }
            None => {
                verdict = ClaimVerdict::Unverifiable;
                sentences.push(format!(
                    "{units}: {best}, but rates alone cannot say how the disagreements fell; rerun with per-task score files."
                ));
            }
        }
        if !f.data_sentence.is_empty() {
            sentences.push(f.data_sentence.clone());
        }
    }
    sentences.extend(f.notes.iter().cloned());
    if claim.repeats > 1 {
        sentences.push(format!(
            "Each item is scored {} times: tested on {}, not {}.",
            claim.repeats,
            count(f.units, "unit"),
            count(f.n.unwrap_or_default(), "task")
        ));
    }
    if let Some(clusters) = f.clusters {
        sentences.push(format!("Tested on {clusters} independent clusters."));
    }
    if claim.attempts > 1 {
        sentences.push(format!(
            "The claimed candidate is the best of {} tried on this set: tested at alpha / {} = {} (Bonferroni).",
            claim.attempts,
            claim.attempts,
            p_text(tested.get())
        ));
    }
    if claim.selected_on_scored_set {
        if verdict == ClaimVerdict::Supported {
            verdict = ClaimVerdict::Unverifiable;
        }
        sentences.push(
            "The candidate was selected on the set it is scored on, so the score is biased upward: at best unverifiable until scored on fresh tasks.".into(),
        );
    }
    let (b, c) = f.discordant.unzip();
    Judgement {
        claim_id: claim.claim_id.clone(),
        description: claim.description.clone(),
        source: claim.source.clone(),
        evidence: f.evidence,
        metric: f.metric,
        metric_inferred: f.metric_inferred,
        verdict,
        reason: sentences.join(" "),
        n: f.n,
        effective_n: f.units,
        alpha: tested.get(),
        attempts: claim.attempts,
        repeats: claim.repeats,
        clusters: f.clusters,
        selected_on_scored_set: claim.selected_on_scored_set,
        p_improvement: f.data.map(|(p, _)| p),
        log10_p_improvement: f.data_log10,
        p_best_case: best_case_p(f.best_wins),
        // The best case is k wins of k: 0.5^k, exactly −k·log10 2.
        log10_p_best_case: -(f.best_wins as f64) * std::f64::consts::LOG10_2,
        p_worst_case: f.worst.map(|w| w.2),
        log10_p_worst_case: f
            .worst
            .map(|(b, c, _)| mcnemar_exact(b, c).tails.log10_p_improvement),
        b,
        c,
        worst_case_b: f.worst.map(|w| w.0),
        worst_case_c: f.worst.map(|w| w.1),
        min_detectable_shift_best_case: min_detectable_shift(f.units, tested.get()),
        min_detectable_shift_80_power: detectable_shift_80(f.units, tested.get()),
    }
}

fn unit_word(claim: &Claim) -> &'static str {
    if claim.clusters.is_some() {
        "clusters"
    } else if claim.repeats > 1 {
        "items"
    } else {
        "tasks"
    }
}

fn p_text(p: f64) -> String {
    crate::base::numbers::p_value(p)
}
