//! The generic verifier, for any skill whose answers are checkable strings. Its truth
//! is `group,kind,question,answer`, where `answer` may list accepted aliases separated
//! by `|`. An alias is present when its normalised form occurs in the normalised answer
//! as whole words; the candidates are the task's aliases and the answers of every other
//! task of the same kind, and the four outcomes and the scores are the arxiv verifier's.

use std::collections::{BTreeMap, HashMap};

use super::normalize::{contains_words, normalize};
use super::{Grade, Outcome, TruthRows, Verifier, shape};
use crate::error::InputError;
use crate::table::Table;
use crate::table::scan::table_of;
use crate::task::Task;

/// The facts verifier.
#[derive(Debug, Clone)]
pub struct FactsVerifier {
    tasks: Vec<Task>,
    /// For each task (same index): its display answer and normalised aliases.
    answers: Vec<(String, Vec<String>)>,
    by_id: BTreeMap<String, usize>,
    /// For each kind, every task under each of its aliases: an answer's candidates are
    /// found by looking up its runs of words, not by trying every task of the kind
    /// (20,000 tasks of one kind took 35 s that way).
    kinds: HashMap<String, KindIndex>,
}

/// The aliases of one kind's tasks, by their text.
#[derive(Debug, Clone, Default)]
struct KindIndex {
    /// The tasks (indices) each normalised alias belongs to, in task order.
    by_alias: HashMap<String, Vec<usize>>,
    /// How many words the aliases have, each length once, shortest first.
    lengths: Vec<usize>,
}

impl KindIndex {
    fn add(&mut self, alias: &str, task: usize) {
        let tasks = self.by_alias.entry(alias.to_string()).or_default();
        if tasks.last() != Some(&task) {
            tasks.push(task);
        }
        let words = alias.split(' ').count();
        if let Err(at) = self.lengths.binary_search(&words) {
            self.lengths.insert(at, words);
        }
    }

    /// The tasks with an alias that occurs in `answer` (normalised) as whole words,
    /// in task order, each once: every run of the answer's words as long as some alias
    /// looked up (a normalised text's words are separated by single spaces).
    fn present(&self, answer: &str) -> Vec<usize> {
        let mut words = Vec::new();
        let mut start = 0;
        for (at, byte) in answer.bytes().enumerate() {
            if byte == b' ' {
                words.push((start, at));
                start = at + 1;
            }
        }
        if !answer.is_empty() {
            words.push((start, answer.len()));
        }
        let mut found = Vec::new();
        for first in 0..words.len() {
            for &length in &self.lengths {
                let Some(&(_, end)) = words.get(first + length - 1) else {
                    break;
                };
                if let Some(tasks) = self.by_alias.get(&answer[words[first].0..end]) {
                    found.extend_from_slice(tasks);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }
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
            kinds: HashMap::new(),
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
            let kind = verifier.kinds.entry(task.kind.clone()).or_default();
            for alias in &aliases {
                kind.add(alias, verifier.tasks.len());
            }
            verifier
                .by_id
                .insert(task.task_id.clone(), verifier.tasks.len());
            verifier.tasks.push(task);
            verifier.answers.push((shown, aliases));
        }
        Ok(verifier)
    }

    /// [`FactsVerifier::from_table`] of a facts file read row by row (its header
    /// read): the registry's constructor. Facts files are small, so the rows are
    /// gathered into a table first.
    pub fn build(rows: TruthRows<'_>) -> Result<Box<dyn Verifier>, InputError> {
        Ok(Box::new(FactsVerifier::from_table(&table_of(rows)?)?))
    }
}

impl Verifier for FactsVerifier {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        let task = &self.tasks[index];
        (&task.group, &task.kind)
    }

    fn prompt(&self, index: usize) -> String {
        self.tasks[index].prompt.clone()
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        self.by_id.get(task_id).copied()
    }

    fn grade(&self, index: usize, output: &str) -> Grade {
        let task = &self.tasks[index];
        let answer = normalize(output);
        let (shown, aliases) = &self.answers[index];
        let expected = aliases.iter().any(|alias| contains_words(&answer, alias));
        let mut others: Vec<&str> = Vec::new();
        let present = self.kinds.get(&task.kind).map(|k| k.present(&answer));
        for other in present.unwrap_or_default() {
            let (other_shown, other_aliases) = &self.answers[other];
            let distinct = !other_aliases.iter().any(|a| aliases.contains(a));
            if other != index && distinct && !others.contains(&other_shown.as_str()) {
                others.push(other_shown);
            }
        }
        let (outcome, feedback) = match (expected, others.is_empty()) {
            (true, true) => (Outcome::Right, format!("correct answer {shown}")),
            (true, false) => (
                Outcome::Hedged(1 + others.len()),
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
                Outcome::nothing(output),
                format!("no accepted answer found; expected {shown}"),
            ),
        };
        shape(outcome, output, feedback)
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
        v.grade(v.find_task(id).unwrap(), output)
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

    /// The other answers of the kind present in `output`, found by trying every task
    /// of the kind in turn: the plain oracle of the alias index.
    fn naive_others(v: &FactsVerifier, index: usize, output: &str) -> Vec<String> {
        let answer = normalize(output);
        let aliases = &v.answers[index].1;
        let mut others: Vec<String> = Vec::new();
        for (other, (shown, other_aliases)) in v.answers.iter().enumerate() {
            if other != index
                && v.tasks[other].kind == v.tasks[index].kind
                && !other_aliases.iter().any(|a| aliases.contains(a))
                && !others.contains(shown)
                && other_aliases.iter().any(|a| contains_words(&answer, a))
            {
                others.push(shown.clone());
            }
        }
        others
    }

    /// The other answers a grade's feedback names.
    fn named_others(grade: &Grade) -> Vec<String> {
        let feedback = &grade.feedback;
        let list = if let Some(rest) = feedback.split_once("response said ") {
            rest.1.to_string()
        } else if let Some((_, rest)) = feedback.split_once(" among ") {
            let rest = rest.trim_end_matches("; give one answer");
            rest.split_once(", ")
                .map_or(String::new(), |(_, r)| r.to_string())
        } else {
            String::new()
        };
        list.split(", ")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn the_alias_index_finds_the_other_answers_trying_every_task_finds(
            answers in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec!["a", "b", "c d", "d", "a b c", "e"]), 1..3),
                1..8,
            ),
            kinds in proptest::collection::vec(0u8..2, 8),
            words in proptest::collection::vec(proptest::sample::select(vec!["a", "b", "c", "d", "e", "x", "A-B", "c,d"]), 0..8),
        ) {
            let mut text = String::from("group,kind,question,answer\n");
            for (i, aliases) in answers.iter().enumerate() {
                text.push_str(&format!("g{i},k{},q,{}\n", kinds[i], aliases.join("|")));
            }
            let v = FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
            let output = words.join(" ");
            for index in 0..v.tasks.len() {
                let grade = v.grade(index, &output);
                proptest::prop_assert_eq!(named_others(&grade), naive_others(&v, index, &output), "{}", grade.feedback);
            }
        }
    }

    #[test]
    fn twenty_thousand_tasks_of_one_kind_grade_each_answer_from_the_index() {
        let mut text = String::from("group,kind,question,answer\n");
        for i in 0..20_000 {
            text.push_str(&format!("g{i},k,q,answer {i}|alias{i}\n"));
        }
        let v =
            FactsVerifier::from_table(&Table::parse("f.csv", text.as_bytes()).unwrap()).unwrap();
        // Every answer graded, each against all 20,000 tasks of its kind: 4 * 10^8
        // alias checks the old way; a lookup per run of words here.
        let mut hedged = 0;
        for index in 0..v.tasks.len() {
            let other = (index + 1) % v.tasks.len();
            let grade = v.grade(index, &format!("answer {index} or alias{other}"));
            hedged += usize::from(grade.correctness == 0.5);
        }
        assert_eq!(hedged, 20_000);
    }
}
