//! GEPA's own result object, as `to_dict()` serialises it to JSON: `gepa.optimize`'s
//! `GEPAResult` (`gepa-ai/gepa`, `src/gepa/core/result.py`) and DSPy's
//! `DspyGEPAResult` (`stanfordnlp/dspy`, `dspy/teleprompt/gepa/gepa.py`, the
//! `detailed_results` of a program compiled with `track_stats=True`).
//!
//! Both hold, per candidate program, its score on every validation example it was run
//! on: `val_subscores`, a list (one entry per candidate, index 0 the seed program) of
//! objects keyed by the validation id (schema 2, GEPA 0.1 and DSPy 3.x; JSON makes the
//! integer ids of a list valset `"0"`, `"1"`, ...), or of lists indexed by position
//! (schema 0, older releases). A score is a number or, when the metric returned one, a
//! boolean. `best_idx` names the candidate with the highest `val_aggregate_scores`.
//!
//! One import reads one candidate (`--candidate best|N`; the baseline is candidate 0,
//! the program GEPA started from). The task id is the validation id, or, with
//! `--id-field`, that field of the example at that position of the validation set the
//! run was given (`--valset`, a JSON list of records, e.g. what `dspy.Evaluate` saved
//! for it). A candidate not run on every validation example (GEPA's incremental
//! evaluation policies) has the others missing.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Found, ImportError, Sample, choose, id_text, numeric};

/// What selects the scores of a GEPA result.
#[derive(Debug, Clone, Default)]
pub(crate) struct GepaSelectors<'a> {
    /// `best` or a candidate's index.
    pub candidate: Option<&'a str>,
    /// The example field that names a task (needs `valset`).
    pub id_field: Option<&'a str>,
    /// The validation set as a JSON list of records: its name and bytes.
    pub valset: Option<(&'a str, &'a [u8])>,
    /// `--metric`, which a GEPA result has no use for (one score per example).
    pub metric: Option<&'a str>,
}

/// Whether a JSON value is a serialised GEPA result rather than `Evaluate`'s records.
pub(crate) fn is_gepa_result(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|map| map.contains_key("val_subscores"))
}

/// The scores of the selected candidate of the GEPA result `result` read from `file`.
pub(crate) fn read(
    file: &str,
    result: &Value,
    selectors: &GepaSelectors,
) -> Result<Found, ImportError> {
    let map = result.as_object().ok_or_else(|| not_gepa(file))?;
    if let Some(metric) = selectors.metric {
        return Err(ImportError::Refused(format!(
            "--metric `{metric}` does not apply to a GEPA result: it holds one score per validation example and candidate; leave --metric out"
        )));
    }
    let candidates = subscores(file, map)?;
    let best = best_index(file, map, candidates.len())?;
    let chosen = pick(selectors.candidate, candidates.len(), best)?;
    let mut universe: BTreeSet<String> = candidates
        .iter()
        .flat_map(|scores| scores.iter().map(|(id, _)| id.clone()))
        .collect();
    match map.get("per_val_instance_best_candidates") {
        Some(Value::Object(front)) => universe.extend(front.keys().cloned()),
        Some(Value::Array(front)) => universe.extend((0..front.len()).map(|i| i.to_string())),
        _ => {}
    }
    let naming = Naming::new(file, selectors, &universe)?;
    let mut found = Found::default();
    for id in &universe {
        found.universe.insert(naming.task(id)?);
    }
    for (id, value) in &candidates[chosen] {
        let score = numeric(value).ok_or_else(|| {
            ImportError::malformed(
                file,
                format!(
                    "candidate {chosen}'s score on validation example `{id}` is {value}, not a number or boolean"
                ),
            )
        })?;
        found.samples.push(Sample {
            task_id: naming.task(id)?,
            score,
            kind: None,
            doc_key: None,
            repeat: None,
            group: None,
            output_key: None,
        });
    }
    let shown = match selectors.candidate {
        Some("best") => format!("best ({chosen})"),
        _ => chosen.to_string(),
    };
    found.selectors.insert("candidate".to_string(), shown);
    // The best candidate was picked on these scores; the seed (0) and the others not.
    found.selected_on_these_scores = best == Some(chosen) && chosen != 0;
    found.selectors.insert("id".to_string(), naming.describe());
    found.notes.push(
        "GEPA chose its candidates on these validation scores, so a gain measured on them is optimistic; admit on a holdout GEPA never saw"
            .to_string(),
    );
    Ok(found)
}

fn not_gepa(file: &str) -> ImportError {
    ImportError::malformed(
        file,
        "not a GEPA result as GEPAResult.to_dict() or DspyGEPAResult.to_dict() writes it",
    )
}

/// Each candidate's (validation id, score) pairs, in file order.
fn subscores(
    file: &str,
    map: &Map<String, Value>,
) -> Result<Vec<Vec<(String, Value)>>, ImportError> {
    let Some(Value::Array(all)) = map.get("val_subscores") else {
        return Err(ImportError::malformed(
            file,
            "`val_subscores` is not a list with one entry per candidate",
        ));
    };
    if all.is_empty() {
        return Err(ImportError::malformed(
            file,
            "`val_subscores` holds no candidate",
        ));
    }
    all.iter()
        .enumerate()
        .map(|(index, scores)| match scores {
            Value::Object(by_id) => Ok(by_id.iter().map(|(id, v)| (id.clone(), v.clone())).collect()),
            Value::Array(by_position) => Ok(by_position
                .iter()
                .enumerate()
                .map(|(position, v)| (position.to_string(), v.clone()))
                .collect()),
            _ => Err(ImportError::malformed(
                file,
                format!(
                    "`val_subscores` entry {index} is neither an object of scores by validation id nor a list of them"
                ),
            )),
        })
        .collect()
}

/// The file's `best_idx`, or else the first candidate with the highest
/// `val_aggregate_scores` (how both results compute `best_idx`); `None` when the file
/// has neither.
fn best_index(
    file: &str,
    map: &Map<String, Value>,
    count: usize,
) -> Result<Option<usize>, ImportError> {
    if let Some(value) = map.get("best_idx").filter(|v| !v.is_null()) {
        return match value.as_u64().map(|i| i as usize) {
            Some(index) if index < count => Ok(Some(index)),
            _ => Err(ImportError::malformed(
                file,
                format!("`best_idx` is {value}, not one of the {count} candidates"),
            )),
        };
    }
    let Some(Value::Array(scores)) = map.get("val_aggregate_scores") else {
        return Ok(None);
    };
    let mut best: Option<(usize, f64)> = None;
    for (index, score) in scores.iter().enumerate().take(count) {
        if let Some(score) = score.as_f64()
            && best.is_none_or(|(_, top)| score > top)
        {
            best = Some((index, score));
        }
    }
    Ok(best.map(|(index, _)| index))
}

/// The candidate `--candidate` names.
fn pick(given: Option<&str>, count: usize, best: Option<usize>) -> Result<usize, ImportError> {
    let error = || {
        let mut choices: Vec<String> = Vec::with_capacity(count + 1);
        if let Some(best) = best {
            choices.push(format!("best (= {best})"));
        }
        choices.extend((0..count).map(|i| i.to_string()));
        ImportError::Choice {
            option: "--candidate".to_string(),
            given: given.map(str::to_string),
            choices,
            why:
                "a GEPA result holds every candidate's scores; 0 is the seed program, the baseline"
                    .to_string(),
        }
    };
    match given {
        Some("best") => best.ok_or_else(error),
        Some(text) => match text.parse::<usize>() {
            Ok(index) if index < count => Ok(index),
            _ => Err(error()),
        },
        None => Err(error()),
    }
}

/// How a validation id becomes a task id.
enum Naming {
    /// The validation id itself.
    ValidationId,
    /// The field of the example at the id's position in the validation set.
    Field {
        field: String,
        file: String,
        ids: Vec<String>,
    },
}

impl Naming {
    fn new(
        file: &str,
        selectors: &GepaSelectors,
        universe: &BTreeSet<String>,
    ) -> Result<Naming, ImportError> {
        let (field, (valset, bytes)) = match (selectors.id_field, selectors.valset) {
            (None, None) => return Ok(Naming::ValidationId),
            (Some(field), None) => {
                return Err(ImportError::Refused(format!(
                    "--id-field `{field}` with a GEPA result needs --valset FILE: the validation examples in the order the run was given them (a JSON list of records); `{file}` holds only their positions"
                )));
            }
            (field, Some(valset)) => (field, valset),
        };
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| ImportError::malformed(valset, format!("not JSON: {e}")))?;
        let records = match &value {
            Value::Array(records) if records.iter().all(Value::is_object) => records,
            _ => {
                return Err(ImportError::malformed(
                    valset,
                    "not a list of records (the validation examples, in the order the run was given them)",
                ));
            }
        };
        let fields: BTreeSet<String> = records
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|r| r.iter())
            .filter(|(_, v)| matches!(v, Value::String(_) | Value::Number(_)))
            .map(|(k, _)| k.clone())
            .collect();
        let Some(field) = field else {
            return Err(ImportError::Choice {
                option: "--id-field".to_string(),
                given: None,
                choices: fields.into_iter().collect(),
                why: "--valset is given; name the example field that identifies a task".to_string(),
            });
        };
        let field = choose("--id-field", Some(field), &fields, "")?;
        if records.len() != universe.len() {
            return Err(ImportError::Refused(format!(
                "`{valset}` has {} but `{file}` scores {}; give the validation set the run was given",
                crate::base::numbers::count(records.len() as u64, "record"),
                crate::base::numbers::count(universe.len() as u64, "validation example")
            )));
        }
        let ids = records
            .iter()
            .enumerate()
            .map(|(index, record)| {
                record.get(&field).map(id_text).ok_or_else(|| {
                    ImportError::malformed(valset, format!("record {} has no `{field}`", index + 1))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Naming::Field {
            field,
            file: valset.to_string(),
            ids,
        })
    }

    fn task(&self, id: &str) -> Result<String, ImportError> {
        match self {
            Naming::ValidationId => Ok(id.to_string()),
            Naming::Field { field, file, ids } => id
                .parse::<usize>()
                .ok()
                .and_then(|position| ids.get(position))
                .cloned()
                .ok_or_else(|| {
                    ImportError::Refused(format!(
                        "validation id `{id}` is not a position in `{file}` ({} records), so it has no `{field}`; give the validation set the run was given, or leave --id-field out to use the ids",
                        ids.len()
                    ))
                }),
        }
    }

    fn describe(&self) -> String {
        match self {
            Naming::ValidationId => "validation id".to_string(),
            Naming::Field { field, .. } => format!("valset field {field}"),
        }
    }
}
