//! The summary document, schema `evogate/summary/v1` (docs/summary.md): the
//! sufficient statistics as JSON, written by `sql/summary.sql` (DuckDB), its Spark
//! variant, or any engine, and read by `admit --summary`. Reading checks the schema,
//! every field, the pairing counts (a document whose arms do not pair is refused as
//! unpaired files are) and that the parts add up to the whole; [`render`] writes the
//! same document from a [`Statistics`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Cluster, MICROS, Outcomes, Pairing, Set, Statistics, Strata};
use crate::error::InputError;

/// The schema this reader accepts.
pub(crate) const SCHEMA: &str = "evogate/summary/v1";

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    schema: String,
    baseline: String,
    candidate: String,
    pairing: PairingCounts,
    correct: CorrectColumns,
    #[serde(deserialize_with = "nullable")]
    holdout_sha256: Option<String>,
    overall: SetDocument,
    #[serde(deserialize_with = "nullable")]
    strata: Option<StrataDocument>,
    #[serde(deserialize_with = "nullable")]
    clusters: Option<Vec<ClusterDocument>>,
}

/// Reads a required key that may be `null`. Serde reads a missing `Option` field as
/// `None`, which would let a document drop its `strata` (and with them the per-stratum
/// regression guard) by leaving the key out; with a `deserialize_with` and no
/// `default`, a missing key is refused as ``missing field `strata` `` and only an
/// explicit `null` opts out (docs/summary.md: every field is required, null where
/// allowed).
fn nullable<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer)
}

#[derive(Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PairingCounts {
    baseline_rows: u64,
    candidate_rows: u64,
    baseline_duplicates: u64,
    candidate_duplicates: u64,
    baseline_only: u64,
    candidate_only: u64,
    stratum_disagreements: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CorrectColumns {
    baseline: bool,
    candidate: bool,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetDocument {
    n: u64,
    baseline_sum_micros: i64,
    candidate_sum_micros: i64,
    #[serde(deserialize_with = "nullable")]
    outcomes: Option<OutcomesDocument>,
    /// [difference in micro-units, pairs], any order, each difference once.
    differences: Vec<(i64, u64)>,
}

#[derive(Serialize, Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct OutcomesDocument {
    both_right: u64,
    baseline_only: u64,
    candidate_only: u64,
    both_wrong: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StrataDocument {
    column: String,
    values: Vec<StratumDocument>,
}

/// A stratum: its value and its set's fields beside it (serde cannot deny unknown
/// fields through `flatten`, so they are written out).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StratumDocument {
    value: String,
    n: u64,
    baseline_sum_micros: i64,
    candidate_sum_micros: i64,
    #[serde(deserialize_with = "nullable")]
    outcomes: Option<OutcomesDocument>,
    differences: Vec<(i64, u64)>,
}

impl StratumDocument {
    #[cfg(test)]
    fn of(value: &str, set: SetDocument) -> StratumDocument {
        StratumDocument {
            value: value.to_string(),
            n: set.n,
            baseline_sum_micros: set.baseline_sum_micros,
            candidate_sum_micros: set.candidate_sum_micros,
            outcomes: set.outcomes,
            differences: set.differences,
        }
    }

    fn set(&self) -> SetDocument {
        SetDocument {
            n: self.n,
            baseline_sum_micros: self.baseline_sum_micros,
            candidate_sum_micros: self.candidate_sum_micros,
            outcomes: self.outcomes.as_ref().map(|o| *o),
            differences: self.differences.clone(),
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClusterDocument {
    group: String,
    n: u64,
    difference_sum_micros: i64,
}

/// Reads and checks a summary document. Every error names the file and the fix.
pub(crate) fn read(source: &str, bytes: &[u8]) -> Result<Statistics, InputError> {
    let invalid = |message: String| InputError::invalid(source, 0, message);
    // The schema first, so that another version is named as such, not as a missing
    // field; read without building the document twice (a cluster list can hold 10^6
    // groups).
    #[derive(Deserialize)]
    struct Head {
        schema: Option<String>,
    }
    let head: Head = serde_json::from_slice(bytes).map_err(|e| {
        InputError::invalid(
            source,
            e.line() as u64,
            format!("not a JSON object ({e}); give the document sql/summary.sql writes"),
        )
    })?;
    match head.schema.as_deref() {
        Some(SCHEMA) => {}
        Some(other) => {
            return Err(invalid(format!(
                "schema `{other}` is not `{SCHEMA}`; this evogate reads `{SCHEMA}` only: rerun the SQL shipped with it"
            )));
        }
        None => {
            return Err(invalid(format!(
                "no `schema` field; a summary document starts with \"schema\": \"{SCHEMA}\" (docs/summary.md)"
            )));
        }
    }
    let document: Document = serde_json::from_slice(bytes).map_err(|e| {
        invalid(format!(
            "not an {SCHEMA} document: {e}; see docs/summary.md for every field"
        ))
    })?;
    check_pairing(source, &document)?;
    let overall = set(&document.overall, "overall").map_err(invalid)?;
    if overall.n == 0 {
        return Err(invalid(
            "`overall.n` is 0: there are no pairs to decide on".to_string(),
        ));
    }
    let counts = &document.pairing;
    if counts.baseline_rows != overall.n || counts.candidate_rows != overall.n {
        return Err(invalid(format!(
            "`pairing` counts {} baseline and {} candidate rows but `overall.n` is {}; with every task once in each arm the three are equal: recompute the document",
            counts.baseline_rows, counts.candidate_rows, overall.n
        )));
    }
    let both = document.correct.baseline && document.correct.candidate;
    if both != overall.outcomes.is_some() {
        return Err(invalid(format!(
            "`overall.outcomes` is {} but `correct` is baseline {}, candidate {}: outcomes are given exactly when both arms have a `correct` column",
            if overall.outcomes.is_some() {
                "given"
            } else {
                "null"
            },
            document.correct.baseline,
            document.correct.candidate
        )));
    }
    let strata = match &document.strata {
        None => None,
        Some(strata) => Some(self::strata(strata, &overall).map_err(invalid)?),
    };
    let clusters = match &document.clusters {
        None => None,
        Some(clusters) => Some(self::clusters(clusters, &overall).map_err(invalid)?),
    };
    if let Some(digest) = &document.holdout_sha256
        && (digest.len() != 64 || !digest.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        return Err(invalid(format!(
            "`holdout_sha256` `{digest}` is not 64 hexadecimal digits"
        )));
    }
    Ok(Statistics {
        baseline: document.baseline,
        candidate: document.candidate,
        pairing: Pairing::Counted {
            baseline_rows: counts.baseline_rows,
            candidate_rows: counts.candidate_rows,
        },
        baseline_has_correct: document.correct.baseline,
        candidate_has_correct: document.correct.candidate,
        overall,
        strata,
        clusters,
        holdout_sha256: document.holdout_sha256.map(|d| d.to_ascii_lowercase()),
    })
}

/// Refuses a document whose pairing check failed, with `admit`'s words for unpaired files.
fn check_pairing(source: &str, document: &Document) -> Result<(), InputError> {
    let c = &document.pairing;
    let (baseline, candidate) = (&document.baseline, &document.candidate);
    let mut problems = Vec::new();
    let mut add = |count: u64, text: String| {
        if count > 0 {
            problems.push(text);
        }
    };
    add(
        c.baseline_duplicates,
        format!(
            "{} task{} more than once in `{baseline}`",
            c.baseline_duplicates,
            plural(c.baseline_duplicates)
        ),
    );
    add(
        c.candidate_duplicates,
        format!(
            "{} task{} more than once in `{candidate}`",
            c.candidate_duplicates,
            plural(c.candidate_duplicates)
        ),
    );
    add(
        c.baseline_only,
        format!(
            "`{candidate}` lacks {} task{} that `{baseline}` has",
            c.baseline_only,
            plural(c.baseline_only)
        ),
    );
    add(
        c.candidate_only,
        format!(
            "`{baseline}` lacks {} task{} that `{candidate}` has",
            c.candidate_only,
            plural(c.candidate_only)
        ),
    );
    add(
        c.stratum_disagreements,
        format!(
            "{} task{} whose two rows name different strata",
            c.stratum_disagreements,
            plural(c.stratum_disagreements)
        ),
    );
    if problems.is_empty() {
        return Ok(());
    }
    Err(InputError::invalid(
        source,
        0,
        format!(
            "the two arms do not pair: {}; every task must be scored exactly once in both, as for admit on the files (the SQL's `pairing` query lists them)",
            problems.join(", and ")
        ),
    ))
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// One set, checked: its histogram adds up to n and to the sums' difference, its sums
/// fit n scores in [0, 1], its outcomes add up to n.
fn set(document: &SetDocument, at: &str) -> Result<Set, String> {
    let mut histogram: BTreeMap<i64, u64> = BTreeMap::new();
    for &(d, count) in &document.differences {
        if d.unsigned_abs() > MICROS as u64 {
            return Err(format!(
                "`{at}.differences` holds {d}: a difference of scores in [0, 1] is at most {MICROS} micro-units"
            ));
        }
        if histogram.insert(d, count).is_some() {
            return Err(format!(
                "`{at}.differences` lists the difference {d} twice; give each once with its count"
            ));
        }
    }
    let total: u128 = histogram.values().map(|&c| u128::from(c)).sum();
    if total != u128::from(document.n) {
        return Err(format!(
            "`{at}.differences` counts {total} pair{} but `{at}.n` is {}",
            if total == 1 { "" } else { "s" },
            document.n
        ));
    }
    let most = i128::from(document.n) * i128::from(MICROS);
    for (name, sum) in [
        ("baseline_sum_micros", document.baseline_sum_micros),
        ("candidate_sum_micros", document.candidate_sum_micros),
    ] {
        if !(0..=most).contains(&i128::from(sum)) {
            return Err(format!(
                "`{at}.{name}` {sum} is not the sum of {} scores in [0, 1] (0 to {most} micro-units)",
                document.n
            ));
        }
    }
    let signed: i128 = histogram
        .iter()
        .map(|(&d, &c)| i128::from(d) * i128::from(c))
        .sum();
    let difference =
        i128::from(document.candidate_sum_micros) - i128::from(document.baseline_sum_micros);
    if signed != difference {
        return Err(format!(
            "`{at}.differences` add up to {signed} micro-units but the sums differ by {difference}; the histogram and the sums must come from the same pairs"
        ));
    }
    let outcomes = document.outcomes.as_ref().map(|o| Outcomes {
        both_right: o.both_right,
        baseline_only: o.baseline_only,
        candidate_only: o.candidate_only,
        both_wrong: o.both_wrong,
    });
    if let Some(o) = outcomes
        && o.total() != u128::from(document.n)
    {
        return Err(format!(
            "`{at}.outcomes` add up to {} pair{} but `{at}.n` is {}",
            o.total(),
            if o.total() == 1 { "" } else { "s" },
            document.n
        ));
    }
    // The histogram's total equals n (checked above), so it cannot overflow.
    Set::from_histogram(
        histogram,
        document.baseline_sum_micros,
        document.candidate_sum_micros,
        outcomes,
    )
    .map_err(|field| format!("`{at}.{field}` passes 2^64 − 1"))
}

/// The strata, checked: values distinct, each set valid, together the overall set.
fn strata(document: &StrataDocument, overall: &Set) -> Result<Strata, String> {
    if document.column.is_empty() {
        return Err("`strata.column` is empty; name the strata column, e.g. `kind`".to_string());
    }
    let mut sets: BTreeMap<String, Set> = BTreeMap::new();
    for stratum in &document.values {
        let at = format!("strata[{}]", stratum.value);
        let set = set(&stratum.set(), &at)?;
        if set.n == 0 {
            return Err(format!("`{at}.n` is 0: list only strata that have pairs"));
        }
        if set.outcomes.is_some() != overall.outcomes.is_some() {
            return Err(format!(
                "`{at}.outcomes` must be given exactly when `overall.outcomes` is"
            ));
        }
        if sets.insert(stratum.value.clone(), set).is_some() {
            return Err(format!(
                "`strata` lists the value `{}` twice",
                stratum.value
            ));
        }
    }
    let mut merged = Set::default();
    for (value, set) in &sets {
        merged.merge(set).map_err(|field| {
            format!(
                "the strata's `{field}` add up past {} at `strata[{value}]`, so they cannot add up to `overall`; every pair belongs to exactly one stratum",
                if field.ends_with("micros") {
                    i64::MAX.to_string()
                } else {
                    u64::MAX.to_string()
                }
            )
        })?;
    }
    if merged != *overall {
        return Err(format!(
            "the strata do not add up to `overall` ({} pair{} in the strata, {} overall, or their sums, outcomes or differences differ); every pair belongs to exactly one stratum",
            merged.n,
            plural(merged.n),
            overall.n
        ));
    }
    Ok(Strata {
        column: document.column.clone(),
        sets: sets.into_iter().collect(),
    })
}

/// The clusters, checked: names distinct, none empty, together every pair.
fn clusters(document: &[ClusterDocument], overall: &Set) -> Result<Vec<Cluster>, String> {
    let mut clusters: BTreeMap<&str, &ClusterDocument> = BTreeMap::new();
    for cluster in document {
        if cluster.n == 0 {
            return Err(format!(
                "`clusters` group `{}` has n 0: list only groups that have pairs",
                cluster.group
            ));
        }
        if i128::from(cluster.difference_sum_micros).abs()
            > i128::from(cluster.n) * i128::from(MICROS)
        {
            return Err(format!(
                "`clusters` group `{}`: difference sum {} is more than {} pair{} can differ",
                cluster.group,
                cluster.difference_sum_micros,
                cluster.n,
                plural(cluster.n)
            ));
        }
        if clusters.insert(&cluster.group, cluster).is_some() {
            return Err(format!(
                "`clusters` lists the group `{}` twice",
                cluster.group
            ));
        }
    }
    let n: u128 = clusters.values().map(|c| u128::from(c.n)).sum();
    let sum: i128 = clusters
        .values()
        .map(|c| i128::from(c.difference_sum_micros))
        .sum();
    if n != u128::from(overall.n) || sum != i128::from(overall.difference_micros()) {
        return Err(format!(
            "the clusters hold {n} pair{} differing by {sum} micro-units, but `overall` has {} pair{} differing by {}; give clusters only when every pair has a group",
            if n == 1 { "" } else { "s" },
            overall.n,
            plural(overall.n),
            overall.difference_micros()
        ));
    }
    Ok(clusters
        .into_values()
        .map(|c| Cluster {
            name: c.group.clone(),
            n: c.n,
            difference_micros: c.difference_sum_micros,
        })
        .collect())
}

#[cfg(test)]
fn set_document(set: &Set) -> SetDocument {
    SetDocument {
        n: set.n,
        baseline_sum_micros: set.baseline_micros,
        candidate_sum_micros: set.candidate_micros,
        outcomes: set.outcomes.map(|o| OutcomesDocument {
            both_right: o.both_right,
            baseline_only: o.baseline_only,
            candidate_only: o.candidate_only,
            both_wrong: o.both_wrong,
        }),
        differences: set.histogram(),
    }
}

/// The document of `summary`, as the SQL writes it (pairing counts from the pairs:
/// every task once in each arm). Its bytes depend only on the statistics.
#[cfg(test)]
pub(crate) fn render(summary: &Statistics) -> String {
    let (baseline_rows, candidate_rows) = match summary.pairing {
        Pairing::Counted {
            baseline_rows,
            candidate_rows,
        } => (baseline_rows, candidate_rows),
        Pairing::Files(_) => (summary.overall.n, summary.overall.n),
    };
    let document = Document {
        schema: SCHEMA.to_string(),
        baseline: summary.baseline.clone(),
        candidate: summary.candidate.clone(),
        pairing: PairingCounts {
            baseline_rows,
            candidate_rows,
            ..PairingCounts::default()
        },
        correct: CorrectColumns {
            baseline: summary.baseline_has_correct,
            candidate: summary.candidate_has_correct,
        },
        holdout_sha256: summary.holdout_sha256.clone(),
        overall: set_document(&summary.overall),
        strata: summary.strata.as_ref().map(|s| StrataDocument {
            column: s.column.clone(),
            values: s
                .sets
                .iter()
                .map(|(value, set)| StratumDocument::of(value, set_document(set)))
                .collect(),
        }),
        clusters: summary.clusters.as_ref().map(|clusters| {
            clusters
                .iter()
                .map(|c| ClusterDocument {
                    group: c.name.clone(),
                    n: c.n,
                    difference_sum_micros: c.difference_micros,
                })
                .collect()
        }),
    };
    let mut text = serde_json::to_string_pretty(&document).expect("a summary serialises");
    text.push('\n');
    text
}
