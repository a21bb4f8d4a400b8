//! promptfoo's `promptfoo eval --output results.json`: every provider and prompt sits in
//! one file, so `--arm` picks one provider with one prompt (a provider id or label, a
//! `prompt:N` or a prompt's label, or one of each); an arm that holds several prompts
//! or providers is refused, never mixed. The task id
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
    /// `--arm`, repeated: a provider (id or label), a prompt (`prompt:N` or its
    /// label), or one of each.
    pub arm: Vec<String>,
    /// `--id-var`.
    pub id_var: Option<String>,
    /// `--drop-assert`.
    pub drop_assert: Vec<String>,
}

/// The names one result answers to as an arm: its provider's id and label, and its
/// prompt's `prompt:N` and label.
fn arms_of(result: &Value) -> Vec<String> {
    let mut arms = Vec::new();
    if let Some(provider) = provider_of(result) {
        arms.push(provider);
    }
    if let Some(Value::String(label)) = result.pointer("/provider/label")
        && !label.is_empty()
    {
        arms.push(label.clone());
    }
    if let Some(prompt) = prompt_of(result) {
        arms.push(prompt);
    }
    if let Some(Value::String(label)) = result.pointer("/prompt/label")
        && !label.is_empty()
    {
        arms.push(label.clone());
    }
    arms
}

/// A result's provider: its id (or the provider as a bare string).
fn provider_of(result: &Value) -> Option<String> {
    match result.get("provider") {
        Some(Value::String(id)) if !id.is_empty() => Some(id.clone()),
        Some(Value::Object(p)) => match p.get("id") {
            Some(Value::String(id)) if !id.is_empty() => Some(id.clone()),
            _ => None,
        },
        _ => None,
    }
}

/// A result's prompt as `prompt:N`.
fn prompt_of(result: &Value) -> Option<String> {
    let index = result.get("promptIdx").and_then(Value::as_u64)?;
    Some(format!("prompt:{index}"))
}

/// A prompt as a message names it: `prompt:N`, with its label when it has one.
fn prompt_words(results: &[Value], prompt: &str) -> String {
    let label = results
        .iter()
        .filter(|r| prompt_of(r).as_deref() == Some(prompt))
        .find_map(|r| r.pointer("/prompt/label").and_then(Value::as_str))
        .filter(|l| !l.is_empty());
    match label {
        Some(label) => format!("`{prompt}` (label `{label}`)"),
        None => format!("`{prompt}`"),
    }
}

/// The results of the arm `--arm` names (each value a provider id or label, a
/// `prompt:N` or a prompt's label; a result is in the arm when it answers to every
/// value given). An arm is one provider with one prompt: a file with several of either
/// needs `--arm`, and an arm that still holds several (a provider run with two
/// prompts, the usual comparison of two prompts) is refused naming them, never mixed.
fn select<'a>(results: &'a [Value], given: &[String]) -> Result<Vec<&'a Value>, ImportError> {
    let providers: BTreeSet<String> = results.iter().filter_map(provider_of).collect();
    let prompts: BTreeSet<String> = results.iter().filter_map(prompt_of).collect();
    if given.is_empty() {
        let mut choices = BTreeSet::new();
        if providers.len() > 1 {
            choices.extend(providers.iter().cloned());
        }
        if prompts.len() > 1 {
            choices.extend(prompts.iter().cloned());
        }
        if !choices.is_empty() {
            choose(
                "--arm",
                None,
                &choices,
                "the file holds several providers or prompts",
            )?;
        }
        return Ok(results.iter().collect());
    }
    let names: BTreeSet<String> = results.iter().flat_map(arms_of).collect();
    for value in given {
        choose(
            "--arm",
            Some(value),
            &names,
            "the file holds several providers or prompts",
        )?;
    }
    let chosen: Vec<&Value> = results
        .iter()
        .filter(|r| {
            let arms = arms_of(r);
            given.iter().all(|g| arms.contains(g))
        })
        .collect();
    let given_words = given
        .iter()
        .map(|g| format!("--arm {g}"))
        .collect::<Vec<_>>()
        .join(" ");
    if chosen.is_empty() {
        return Err(ImportError::Refused(format!(
            "no result answers to `{given_words}`: each value names a provider or a prompt, and no result has both; the providers are {}, the prompts {}",
            listed(providers.iter().map(|p| format!("`{p}`"))),
            listed(prompts.iter().map(|p| prompt_words(results, p)))
        )));
    }
    let their_prompts: BTreeSet<String> = chosen.iter().filter_map(|r| prompt_of(r)).collect();
    if their_prompts.len() > 1 {
        return Err(ImportError::Refused(format!(
            "`{given_words}` holds the results of {} prompts, {}: one arm is one prompt, so they are not mixed; add --arm prompt:N (or the prompt's label) to choose one",
            their_prompts.len(),
            listed(their_prompts.iter().map(|p| prompt_words(results, p)))
        )));
    }
    let their_providers: BTreeSet<String> = chosen.iter().filter_map(|r| provider_of(r)).collect();
    if their_providers.len() > 1 {
        return Err(ImportError::Refused(format!(
            "`{given_words}` holds the results of {} providers, {}: one arm is one provider, so they are not mixed; add --arm PROVIDER to choose one",
            their_providers.len(),
            listed(their_providers.iter().map(|p| format!("`{p}`")))
        )));
    }
    Ok(chosen)
}

/// `a, b and c`.
fn listed(items: impl Iterator<Item = String>) -> String {
    let items: Vec<String> = items.collect();
    match items.as_slice() {
        [] => "none".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
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
    let chosen = select(results, &selectors.arm)?;
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
    let mut chosen = chosen.into_iter().peekable();
    for (position, result) in results.iter().enumerate() {
        let (task_id, vars_key) = task_id(file, position, result, selectors.id_var.as_deref())?;
        found.universe.insert(task_id.clone());
        // The chosen results are a subsequence of the results, in order.
        if !chosen.peek().is_some_and(|c| std::ptr::eq(*c, result)) {
            continue;
        }
        chosen.next();
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
            output_key: result
                .pointer("/response/output")
                .filter(|o| !o.is_null())
                .map(|o| super::record::doc_key(&id_text(o))),
        });
    }
    if !selectors.arm.is_empty() {
        found
            .selectors
            .insert("arm".to_string(), selectors.arm.join(","));
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
