//! promptfoo's `promptfoo eval --output results.json`: every provider and prompt sits in
//! one file, so `--arm` picks one (a provider id or label, or `prompt:N`). The task id
//! comes from the test's variables (`--id-var NAME`, else all of them as sorted JSON),
//! never from its position. The shipped `score` averages every assertion, latency and
//! cost included; `--drop-assert latency,cost` recomputes it from the other assertions
//! (weighted as promptfoo weights them). A provider error (`failureReason` 2) is a
//! missing sample, not a wrong answer. `promptfoo eval --repeat N` writes each test N
//! times: the k-th result of a test in the arm is its repeat k, reduced by
//! `--repeats`. The test's variables, as sorted JSON, give its document key, so runs
//! whose tests differ under the same `--id-var` do not pair.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Found, ImportError, Sample, choose, id_text, numeric};

/// promptfoo's `ResultFailureReason.ERROR`.
const PROVIDER_ERROR: u64 = 2;

/// The selectors of a promptfoo import.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PromptfooSelectors {
    /// `--arm`.
    pub arm: Option<String>,
    /// `--id-var`.
    pub id_var: Option<String>,
    /// `--drop-assert`.
    pub drop_assert: Vec<String>,
}

/// The arm names of one result: its provider's id and label, and `prompt:N`.
fn arms_of(result: &Value) -> Vec<String> {
    let mut arms = Vec::new();
    match result.get("provider") {
        Some(Value::String(id)) => arms.push(id.clone()),
        Some(Value::Object(p)) => {
            for key in ["id", "label"] {
                if let Some(Value::String(name)) = p.get(key).filter(|v| v != &&Value::from("")) {
                    arms.push(name.clone());
                }
            }
        }
        _ => {}
    }
    if let Some(index) = result.get("promptIdx").and_then(Value::as_u64) {
        arms.push(format!("prompt:{index}"));
    }
    arms
}

/// The samples of one arm of a results file.
pub(crate) fn read(
    file: &str,
    bytes: &[u8],
    selectors: &PromptfooSelectors,
) -> Result<Found, ImportError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| ImportError::malformed(file, format!("not JSON: {e}")))?;
    let results = match value.pointer("/results/results").or(value.get("results")) {
        Some(Value::Array(results)) => results,
        _ => {
            return Err(ImportError::malformed(
                file,
                "no `results.results` list; write it with `promptfoo eval --output results.json`",
            ));
        }
    };
    let providers: BTreeSet<String> = results
        .iter()
        .flat_map(arms_of)
        .filter(|a| !a.starts_with("prompt:"))
        .collect();
    let prompts: BTreeSet<String> = results
        .iter()
        .flat_map(arms_of)
        .filter(|a| a.starts_with("prompt:"))
        .collect();
    // An arm is needed when the file holds more than one provider or prompt.
    let mut choices = BTreeSet::new();
    if providers.len() > 1 {
        choices.extend(providers.iter().cloned());
    }
    if prompts.len() > 1 {
        choices.extend(prompts.iter().cloned());
    }
    let arm = match (&selectors.arm, choices.is_empty()) {
        (None, true) => None,
        (given, _) => {
            let mut all = choices.clone();
            all.extend(providers.iter().cloned());
            all.extend(prompts.iter().cloned());
            let pool = if given.is_some() { &all } else { &choices };
            Some(choose(
                "--arm",
                given.as_deref(),
                pool,
                "the file holds several providers or prompts",
            )?)
        }
    };
    let mut types = BTreeSet::new();
    for result in results {
        for component in components(result) {
            if let Some(Value::String(kind)) = component.pointer("/assertion/type") {
                types.insert(kind.clone());
            }
        }
    }
    for dropped in &selectors.drop_assert {
        choose("--drop-assert", Some(dropped), &types, "")?;
    }
    let mut found = Found::default();
    let mut seen: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (position, result) in results.iter().enumerate() {
        let (task_id, vars_key) = task_id(file, position, result, selectors.id_var.as_deref())?;
        found.universe.insert(task_id.clone());
        if arm.as_ref().is_some_and(|a| !arms_of(result).contains(a)) {
            continue;
        }
        let repeat = seen.entry(task_id.clone()).or_insert(0);
        *repeat += 1;
        let repeat = *repeat;
        if result.get("failureReason").and_then(Value::as_u64) == Some(PROVIDER_ERROR) {
            found.errored.push(task_id);
            continue;
        }
        let score = if selectors.drop_assert.is_empty() {
            result.get("score").and_then(numeric)
        } else {
            kept_score(result, &selectors.drop_assert)
        };
        let score = score.ok_or_else(|| {
            ImportError::malformed(
                file,
                format!(
                    "result {} (task `{task_id}`) has no score{}",
                    position + 1,
                    if selectors.drop_assert.is_empty() {
                        ""
                    } else {
                        " once the dropped assertions are left out"
                    }
                ),
            )
        })?;
        found.samples.push(Sample {
            task_id,
            score,
            kind: None,
            doc_key: Some(vars_key),
            repeat: Some(repeat),
            group: None,
        });
    }
    if let Some(arm) = arm {
        found.selectors.insert("arm".to_string(), arm);
    }
    if let Some(var) = &selectors.id_var {
        found.selectors.insert("id-var".to_string(), var.clone());
    }
    if !selectors.drop_assert.is_empty() {
        found
            .selectors
            .insert("drop-assert".to_string(), selectors.drop_assert.join(","));
    }
    Ok(found)
}

fn components(result: &Value) -> impl Iterator<Item = &Value> {
    result
        .pointer("/gradingResult/componentResults")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The weighted mean of the scores of the assertions not dropped.
fn kept_score(result: &Value, dropped: &[String]) -> Option<f64> {
    let (mut sum, mut weights) = (0.0, 0.0);
    for component in components(result) {
        let kind = component
            .pointer("/assertion/type")
            .and_then(Value::as_str)
            .unwrap_or("");
        if dropped.iter().any(|d| d == kind) {
            continue;
        }
        let weight = component
            .pointer("/assertion/weight")
            .and_then(Value::as_f64)
            .unwrap_or(1.0);
        sum += weight * component.get("score").and_then(numeric)?;
        weights += weight;
    }
    (weights > 0.0).then(|| sum / weights)
}

/// The task id of a result and the key of its variables.
fn task_id(
    file: &str,
    position: usize,
    result: &Value,
    id_var: Option<&str>,
) -> Result<(String, u64), ImportError> {
    let vars = match result
        .get("vars")
        .or_else(|| result.pointer("/testCase/vars"))
    {
        Some(Value::Object(vars)) if !vars.is_empty() => vars,
        _ => {
            return Err(ImportError::malformed(
                file,
                format!(
                    "result {} has no test variables, so nothing but its position names its test; give each test a variable that names it",
                    position + 1
                ),
            ));
        }
    };
    let all = Value::Object(vars.clone()).to_string();
    let key = super::record::doc_key(&all);
    match id_var {
        None => Ok((all, key)),
        Some(name) => match vars.get(name) {
            Some(value) => Ok((id_text(value), key)),
            None => Err(ImportError::Choice {
                option: "--id-var".to_string(),
                given: Some(name.to_string()),
                choices: vars.keys().cloned().collect(),
                why: format!("result {}", position + 1),
            }),
        },
    }
}
