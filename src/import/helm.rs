//! HELM run folders: `per_instance_stats.json` holds, per instance and train trial, a
//! list of statistics named by metric and split (and perturbation). `--metric` and
//! `--split` choose; perturbed statistics (which repeat an `instance_id`) are left out
//! unless `--perturbation NAME` asks for that perturbation instead. The task id is the
//! `instance_id` (`<subject>:<instance_id>` when several runs make one arm, as ids such
//! as `id147` repeat across subjects); `kind` is the run's scenario and its arguments
//! (`mmlu:subject=philosophy`, from `run_spec.json`); the value is the statistic's
//! mean. Train trials (`train_trial_index`) are repeats. Each instance's input and
//! references (from `scenario_state.json`) give its document key, so runs on other
//! instances under the same ids do not pair.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::{Found, ImportError, Sample, choose, numeric};

/// The selectors of a HELM import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HelmSelectors {
    /// `--metric`: `NAME` or `SUBJECT=NAME`.
    pub metric: Vec<String>,
    /// `--split`.
    pub split: Option<String>,
    /// `--perturbation`.
    pub perturbation: Option<String>,
}

/// What the run folder says beside `per_instance_stats.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HelmRun {
    /// The subject: `run_spec.json`'s scenario and arguments, else the folder's name.
    pub kind: Option<String>,
    /// Whether task ids carry the subject (several runs in one arm).
    pub prefix: bool,
    /// Each instance's document key, from `scenario_state.json`.
    pub instance_keys: BTreeMap<String, u64>,
}

/// Metrics HELM's schema marks `lower_is_better: true` that a run folder may hold
/// (the run folder itself does not say).
const LOWER_IS_BETTER: &[&str] = &[
    "inference_runtime",
    "inference_denoised_runtime",
    "inference_idealized_runtime",
    "training_co2_cost",
    "training_energy_cost",
];

/// The subject of a run from its `run_spec.json`: `<scenario>:<arg>=<value>,...`, the
/// scenario being the name's part before `:` and the arguments the scenario's own.
pub(crate) fn subject(file: &str, bytes: &[u8]) -> Result<String, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let name = value
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| ImportError::malformed(file, "no `name`; is this HELM's run_spec.json?"))?;
    let scenario = name.split_once(':').map_or(name, |(s, _)| s);
    let args: Vec<String> = match value.pointer("/scenario_spec/args") {
        Some(Value::Object(args)) => args
            .iter()
            .map(|(k, v)| format!("{k}={}", super::id_text(v)))
            .collect(),
        _ => Vec::new(),
    };
    Ok(if args.is_empty() {
        scenario.to_string()
    } else {
        format!("{scenario}:{}", args.join(","))
    })
}

/// Each instance's document key from a `scenario_state.json`: the digest of its input
/// and references as compact JSON.
pub(crate) fn instance_keys(
    file: &str,
    bytes: &[u8],
) -> Result<BTreeMap<String, u64>, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let mut keys = BTreeMap::new();
    for state in value
        .get("request_states")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(instance) = state.get("instance") else {
            continue;
        };
        let Some(id) = instance.get("id").and_then(Value::as_str) else {
            continue;
        };
        let identity = serde_json::json!([instance.get("input"), instance.get("references")]);
        keys.insert(
            id.to_string(),
            super::record::doc_key(&identity.to_string()),
        );
    }
    Ok(keys)
}

fn perturbation_of(value: &Value) -> Option<String> {
    let p = value.get("perturbation")?;
    p.get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| (!p.is_null()).then(|| p.to_string()))
}

/// The samples of one `per_instance_stats.json`.
pub(crate) fn read(
    file: &str,
    bytes: &[u8],
    selectors: &HelmSelectors,
    run: &HelmRun,
) -> Result<Found, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let Value::Array(instances) = value else {
        return Err(ImportError::malformed(
            file,
            "not a list of instances; give the run folder or its per_instance_stats.json",
        ));
    };
    let (mut metrics, mut splits, mut perturbations) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for instance in &instances {
        for stat in instance
            .get("stats")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = stat.get("name");
            if let Some(m) = name.and_then(|n| n.get("name")).and_then(Value::as_str) {
                metrics.insert(m.to_string());
            }
            if let Some(s) = name.and_then(|n| n.get("split")).and_then(Value::as_str) {
                splits.insert(s.to_string());
            }
            if let Some(p) = name.and_then(perturbation_of) {
                perturbations.insert(p);
            }
        }
        if let Some(p) = perturbation_of(instance) {
            perturbations.insert(p);
        }
    }
    let subject = run.kind.clone().unwrap_or_else(|| file.to_string());
    let given = super::per_task(
        "--metric",
        &selectors.metric,
        &BTreeSet::from([subject.clone()]),
    )?;
    let metric = choose(
        "--metric",
        given.get(&subject).map(String::as_str),
        &metrics,
        &format!("`{file}` holds several metrics"),
    )?;
    let split = choose(
        "--split",
        selectors.split.as_deref(),
        &splits,
        "the file holds several splits",
    )?;
    let wanted = match &selectors.perturbation {
        Some(p) => Some(choose("--perturbation", Some(p), &perturbations, "")?),
        None => None,
    };
    let mut found = Found::default();
    let kind: Option<std::sync::Arc<str>> = run.kind.as_deref().map(Into::into);
    for instance in &instances {
        let Some(bare) = instance.get("instance_id").and_then(Value::as_str) else {
            return Err(ImportError::malformed(
                file,
                "an entry has no `instance_id`",
            ));
        };
        let id = match (&run.kind, run.prefix) {
            (Some(kind), true) => format!("{kind}:{bare}"),
            _ => bare.to_string(),
        };
        let id = id.as_str();
        let trial = match instance.get("train_trial_index") {
            None | Some(Value::Null) => 0,
            Some(value) => value.as_u64().ok_or_else(|| {
                ImportError::malformed(
                    file,
                    format!("instance `{bare}`: train_trial_index {value} is not a whole number"),
                )
            })?,
        };
        let instance_perturbation = perturbation_of(instance);
        for stat in instance
            .get("stats")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let Some(name) = stat.get("name") else {
                continue;
            };
            if name.get("split").and_then(Value::as_str) != Some(split.as_str()) {
                continue;
            }
            let perturbation = perturbation_of(name).or_else(|| instance_perturbation.clone());
            if perturbation != wanted {
                continue;
            }
            found.universe.insert(id.to_string());
            if name.get("name").and_then(Value::as_str) != Some(metric.as_str()) {
                continue;
            }
            let count = stat.get("count").and_then(Value::as_u64).unwrap_or(0);
            if count == 0 {
                continue;
            }
            let mean = stat.get("mean").and_then(numeric).or_else(|| {
                stat.get("sum")
                    .and_then(numeric)
                    .map(|sum| sum / count as f64)
            });
            let Some(score) = mean else {
                return Err(ImportError::malformed(
                    file,
                    format!("instance `{id}`: `{metric}` has no mean"),
                ));
            };
            found.samples.push(Sample {
                task_id: id.to_string(),
                score,
                kind: kind.clone(),
                doc_key: run.instance_keys.get(bare).copied(),
                repeat: Some(trial),
                group: None,
                output_key: None,
            });
        }
    }
    if LOWER_IS_BETTER.contains(&metric.as_str()) {
        found.lower_is_better = Some(true);
        found.direction_source = Some(format!("HELM's schema marks `{metric}` lower_is_better"));
    }
    found.selectors.insert(
        "metric".to_string(),
        match &run.kind {
            Some(kind) if run.prefix => format!("{kind}={metric}"),
            _ => metric,
        },
    );
    found.selectors.insert("split".to_string(), split);
    if let Some(p) = wanted {
        found.selectors.insert("perturbation".to_string(), p);
    }
    Ok(found)
}
