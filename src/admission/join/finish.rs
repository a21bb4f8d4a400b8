//! The end of pairing: the tasks of both files (or of the task list) checked, strata
//! compared, and the pairs put in task order.

use super::Joined;
use super::Parts;
use super::order::permute;
use crate::admission::pairing::{
    Basis, Disagreement, Gap, PairingError, Pairs, StrataChoice, StrataRequest, TaskList, gap,
};

impl Joined {
    /// The pairs, on `tasks` when given, sorted by task.
    ///
    /// With `strata` required and in neither file, tasks one file lacks (or the task
    /// list's tasks a file lacks), or a task whose two rows disagree on its stratum,
    /// pairing fails. Time: O(n log n) for the sort by task, O(n) when the baseline
    /// was in task order already.
    pub fn pair(
        self,
        tasks: Option<&TaskList>,
        strata: Option<&StrataRequest>,
    ) -> Result<Pairs, PairingError> {
        let Joined {
            parts,
            baseline,
            candidate,
            extras,
            disagreements,
        } = self;
        let Parts {
            texts,
            mut pairs,
            order,
            ..
        } = parts;
        // A file with the requested column is stratified by it.
        let present = baseline.shape.has_stratum || candidate.shape.has_stratum;
        let column = strata.filter(|_| present).map(|r| r.column.as_str());
        let strata_column = match StrataRequest::choose(strata, column) {
            StrataChoice::By(column) => Some(column.to_string()),
            StrataChoice::Unstratified => None,
            StrataChoice::Missing(request) => {
                return Err(PairingError::NoStrataColumn {
                    column: request.column.clone(),
                    baseline: baseline.source.clone(),
                    candidate: candidate.source.clone(),
                });
            }
        };
        let task = |pair: u32| texts.get(pairs[pair as usize].task);
        // The pairs used, in task order.
        let (chosen, basis) = match tasks {
            None => {
                let mut lacking: Vec<(String, u64)> = pairs
                    .iter()
                    .filter(|p| p.candidate.line == 0)
                    .map(|p| (texts.get(p.task).to_string(), p.baseline.line))
                    .collect();
                lacking.sort();
                let gaps: Vec<Gap> = [
                    gap(&candidate.source, &baseline.source, lacking),
                    gap(
                        &baseline.source,
                        &candidate.source,
                        extras.into_iter().collect(),
                    ),
                ]
                .into_iter()
                .flatten()
                .collect();
                if !gaps.is_empty() {
                    return Err(PairingError::DifferentTasks(gaps));
                }
                (order, Basis::SameTasks)
            }
            Some(list) => {
                let mut sorted: Vec<(&str, u64)> =
                    list.tasks.iter().map(|(t, l)| (t.as_str(), *l)).collect();
                sorted.sort();
                // Both in task order: one walk finds every listed task's pair.
                let mut rest = order.iter().peekable();
                let found: Vec<Option<u32>> = sorted
                    .iter()
                    .map(|(id, _)| {
                        while rest.next_if(|&&p| task(p) < *id).is_some() {}
                        rest.peek().filter(|&&&p| task(p) == *id).map(|&&p| p)
                    })
                    .collect();
                let listed = |keep: &dyn Fn(Option<u32>) -> bool| -> Vec<(String, u64)> {
                    sorted
                        .iter()
                        .zip(&found)
                        .filter(|(_, at)| keep(**at))
                        .map(|((id, line), _)| (id.to_string(), *line))
                        .collect()
                };
                let absent = listed(&|at| at.is_none());
                if let Some(gap) = gap(&baseline.source, &list.source, absent) {
                    return Err(PairingError::NotScored(gap));
                }
                let unscored =
                    listed(&|at| at.is_some_and(|p| pairs[p as usize].candidate.line == 0));
                if let Some(gap) = gap(&candidate.source, &list.source, unscored) {
                    return Err(PairingError::NotScored(gap));
                }
                // Every listed task is in both files, each once, so the rest are left out.
                let basis = Basis::TaskList {
                    source: list.source.clone(),
                    ignored_baseline: baseline.shape.rows - sorted.len(),
                    ignored_candidate: candidate.shape.rows - sorted.len(),
                };
                (found.into_iter().flatten().collect(), basis)
            }
        };
        if !disagreements.is_empty() {
            let mut used = vec![false; pairs.len()];
            for &at in &chosen {
                used[at as usize] = true;
            }
            let first = disagreements
                .into_iter()
                .filter(|(at, _, _)| used[*at])
                .min_by(|x, y| task(x.0 as u32).cmp(task(y.0 as u32)));
            if let Some((at, line, value)) = first {
                let pair = &pairs[at];
                let own = pair.stratum.map_or("", |s| texts.get(s)).to_string();
                return Err(PairingError::StratumDisagrees(Box::new(Disagreement {
                    task: texts.get(pair.task).to_string(),
                    column: strata_column.clone().unwrap_or_default(),
                    baseline: (baseline.source.clone(), pair.baseline.line, own),
                    candidate: (candidate.source.clone(), line, value),
                })));
            }
        }
        if chosen.len() == pairs.len() {
            permute(&mut pairs, &chosen);
        } else {
            pairs = chosen.iter().map(|&at| pairs[at as usize]).collect();
        }
        let both_correct = pairs
            .iter()
            .all(|p| p.baseline.correct.is_some() && p.candidate.correct.is_some());
        Ok(Pairs {
            pairs,
            texts,
            both_correct,
            baseline_has_correct: baseline.shape.has_correct,
            candidate_has_correct: candidate.shape.has_correct,
            baseline_has_answered: baseline.shape.has_answered,
            candidate_has_answered: candidate.shape.has_answered,
            baseline_has_outcome: baseline.shape.has_outcome,
            candidate_has_outcome: candidate.shape.has_outcome,
            strata_column,
            baseline: baseline.source,
            candidate: candidate.source,
            basis,
        })
    }
}
