//! HELM run folders: `per_instance_stats.json` holds, per instance and train trial, a
//! list of statistics named by metric and split (and perturbation). `--metric` and
//! `--split` choose; perturbed statistics (which repeat an `instance_id`) are left out
//! unless `--perturbation NAME` asks for that perturbation instead. The task id is the
//! `instance_id`; the value is the statistic's mean.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Found, ImportError, Sample, choose, numeric};

/// The selectors of a HELM import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HelmSelectors {
    /// `--metric`.
    pub metric: Option<String>,
    /// `--split`.
    pub split: Option<String>,
    /// `--perturbation`.
    pub perturbation: Option<String>,
}

fn perturbation_of(value: &Value) -> Option<String> {
    let p = value.get("perturbation")?;
    p.get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| (!p.is_null()).then(|| p.to_string()))
}

/// The samples of one `per_instance_stats.json`.
pub fn read(file: &str, bytes: &[u8], selectors: &HelmSelectors) -> Result<Found, ImportError> {
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
    let metric = choose("--metric", selectors.metric.as_deref(), &metrics, "")?;
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
    for instance in &instances {
        let Some(id) = instance.get("instance_id").and_then(Value::as_str) else {
            return Err(ImportError::malformed(
                file,
                "an entry has no `instance_id`",
            ));
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
                kind: None,
                doc_key: None,
            });
        }
    }
    found.selectors.insert("metric".to_string(), metric);
    found.selectors.insert("split".to_string(), split);
    if let Some(p) = wanted {
        found.selectors.insert("perturbation".to_string(), p);
    }
    Ok(found)
}
