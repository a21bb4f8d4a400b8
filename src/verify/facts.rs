//! The generic verifier, for any skill whose answers are checkable strings. Its truth
//! is `group,kind,question,answer`, where `answer` may list accepted aliases separated
//! by `|`. An alias is present when its normalised form occurs in the normalised answer
//! as whole words; the candidates are the task's aliases and the answers of every other
//! task of the same kind, and the four outcomes and the scores are the arxiv verifier's.

use std::collections::BTreeMap;

use super::normalize::{contains_words, normalize};
use super::{Grade, Outcome, Verifier, shape};
use crate::error::InputError;
use crate::table::Table;
use crate::task::Task;

/// The facts verifier.
#[derive(Debug, Clone)]
pub struct FactsVerifier {
    tasks: Vec<Task>,
    /// For each task (same index): its display answer and normalised aliases.
    answers: Vec<(String, Vec<String>)>,
    by_id: BTreeMap<String, usize>,
}

impl FactsVerifier {
    /// Reads the facts table: every field non-empty, each `group:kind` once.
    pub fn from_table(table: &Table) -> Result<FactsVerifier, InputError> {
        table.require_rows()?;
        let columns = ["group", "kind", "question", "answer"].map(|c| table.require(c));
        let [group, kind, question, answer] = columns;
        let (group, kind, question, answer) = (group?, kind?, question?, answer?);
        let mut verifier = FactsVerifier {
            tasks: Vec::new(),
            answers: Vec::new(),
            by_id: BTreeMap::new(),
        };
        let mut lines: BTreeMap<String, u64> = BTreeMap::new();
        for row in &table.rows {
            let field = |i: usize| row.fields[i].trim();
            for (i, name) in [
                (group, "group"),
                (kind, "kind"),
                (question, "question"),
                (answer, "answer"),
            ] {
                if field(i).is_empty() {
                    return Err(InputError::invalid(
                        &table.source,
                        row.line,
                        format!("`{name}` is empty; fill it in or remove the row"),
                    ));
                }
            }
            let task = Task::new(field(group), field(kind), field(question).to_string());
            if let Some(first) = lines.insert(task.task_id.clone(), row.line) {
                return Err(InputError::invalid(
                    &table.source,
                    row.line,
                    format!(
                        "task `{}` appears again (first on row {first}); keep one row per group and kind",
                        task.task_id
                    ),
                ));
            }
            let aliases: Vec<String> = field(answer)
                .split('|')
                .map(normalize)
                .filter(|a| !a.is_empty())
                .collect();
            if aliases.is_empty() {
                return Err(InputError::invalid(
                    &table.source,
                    row.line,
                    "`answer` has no letters or digits to match; give at least one alias",
                ));
            }
            let shown = field(answer)
                .split('|')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string();
            verifier
                .by_id
                .insert(task.task_id.clone(), verifier.tasks.len());
            verifier.tasks.push(task);
            verifier.answers.push((shown, aliases));
        }
        Ok(verifier)
    }

    /// [`FactsVerifier::from_table`], boxed for the registry.
    pub fn boxed(table: &Table) -> Result<Box<dyn Verifier>, InputError> {
        Ok(Box::new(FactsVerifier::from_table(table)?))
    }
}

impl Verifier for FactsVerifier {
    fn name(&self) -> &'static str {
        "facts"
    }

    fn tasks(&self) -> &[Task] {
        &self.tasks
    }

    fn grade(&self, task: &Task, output: &str) -> Grade {
        let Some(&index) = self.by_id.get(&task.task_id) else {
            return shape(
                Outcome::Absent,
                output,
                format!("task {} is not in the facts", task.task_id),
            );
        };
        let answer = normalize(output);
        let (shown, aliases) = &self.answers[index];
        let expected = aliases.iter().any(|alias| contains_words(&answer, alias));
        let mut others: Vec<&str> = Vec::new();
        for (other, (other_shown, other_aliases)) in self.answers.iter().enumerate() {
            let same_kind = self.tasks[other].kind == task.kind;
            let distinct = !other_aliases.iter().any(|a| aliases.contains(a));
            if other != index
                && same_kind
                && distinct
                && !others.contains(&other_shown.as_str())
                && other_aliases
                    .iter()
                    .any(|alias| contains_words(&answer, alias))
            {
                others.push(other_shown);
            }
        }
        let (outcome, feedback) = match (expected, others.is_empty()) {
            (true, true) => (Outcome::Right, format!("correct answer {shown}")),
            (true, false) => (
                Outcome::Hedged,
                format!(
                    "hedged: {shown} among {shown}, {}; give one answer",
                    others.join(", ")
                ),
            ),
            (false, false) => (
                Outcome::Wrong,
                format!("expected {shown}, response said {}", others.join(", ")),
            ),
            (false, true) => (
                Outcome::Absent,
                format!("no accepted answer found; expected {shown}"),
            ),
        };
        shape(outcome, output, feedback)
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        self.by_id.get(task_id).copied()
    }

    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        let task = &self.tasks[index];
        (&task.group, &task.kind)
    }

    fn grade_at(&self, index: usize, output: &str) -> Grade {
        self.grade(&self.tasks[index], output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verifier() -> FactsVerifier {
        let text = "group,kind,question,answer\n\
            fr,capital,Capital of France?,Paris\n\
            de,capital,Capital of Germany?,Berlin\n\
            us,capital,Capital of the USA?,Washington D.C.|Washington|DC\n";
        FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap()
    }

    fn grade(id: &str, output: &str) -> Grade {
        let v = verifier();
        let task = v.tasks().iter().find(|t| t.task_id == id).unwrap().clone();
        v.grade(&task, output)
    }

    #[test]
    fn aliases_match_on_normalised_whole_words() {
        assert_eq!(
            grade("us:capital", "It is washington, d.c.").correctness,
            1.0
        );
        assert_eq!(grade("us:capital", "DC").correctness, 1.0);
        assert_eq!(grade("fr:capital", "PARIS!").score, 1.0);
        assert_eq!(grade("fr:capital", "Parisian").correctness, 0.0);
    }

    #[test]
    fn other_answers_of_the_kind_make_wrong_or_hedged() {
        let wrong = grade("fr:capital", "Berlin");
        assert_eq!(
            (wrong.correctness, wrong.composite, wrong.score),
            (0.0, 0.5, 0.0)
        );
        assert_eq!(wrong.feedback, "expected Paris, response said Berlin");
        let hedge = grade("fr:capital", "Paris or Berlin");
        assert_eq!((hedge.correctness, hedge.composite), (0.5, 0.75));
        let none = grade("fr:capital", "no idea");
        assert_eq!((none.correctness, none.composite), (0.0, 0.0));
        assert_eq!(none.feedback, "no accepted answer found; expected Paris");
    }

    #[test]
    fn refuses_duplicate_tasks_and_empty_fields_naming_the_row() {
        let dup = "group,kind,question,answer\na,k,q,x\na,k,q2,y\n";
        let error =
            FactsVerifier::from_table(&Table::parse("f.csv", dup.as_bytes()).unwrap()).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("`f.csv` row 3: task `a:k` appears again"),
            "{error}"
        );
        let empty = "group,kind,question,answer\na,k,,x\n";
        let error = FactsVerifier::from_table(&Table::parse("f.csv", empty.as_bytes()).unwrap())
            .unwrap_err();
        assert!(error.to_string().contains("`question` is empty"), "{error}");
    }
}
