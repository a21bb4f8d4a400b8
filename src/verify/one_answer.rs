//! What the benchmark verifiers (`numeric`, `choice`, `short`) share: a truth in the
//! facts layout, `group,kind,question,answer` (plus `options` for `choice`), one task a
//! row with `task_id` `<group>:<kind>`, each graded against its own row's answer alone.
//! A verifier of this family is an [`AnswerRule`]: how to read a row's answer, how to
//! put the question, and how to grade an output; [`OneAnswer`] does the rest.

use rustc_hash::FxHashMap;

use super::{Grade, TruthRows, Verifier};
use crate::error::InputError;
use crate::table::{require, trim_field};
use crate::task::task_id;

/// How one benchmark verifier reads, asks and grades.
pub(crate) trait AnswerRule {
    /// One task's truth, read from its row.
    type Truth;
    /// Whether the truth has an `options` column (the option texts, `|`-separated).
    const OPTIONS: bool;
    /// Reads a row's `answer` (and `options`, when [`AnswerRule::OPTIONS`]); the error
    /// says what is wrong with them and how to fix it.
    fn parse(answer: &str, options: &str) -> Result<Self::Truth, String>;
    /// The prompt of a task: its question, and whatever else the skill must see.
    fn prompt(question: &str, truth: &Self::Truth) -> String;
    /// Grades `output` against one task's truth. Pure.
    fn grade(truth: &Self::Truth, output: &str) -> Grade;
}

/// A verifier whose every task is one row of its truth, graded by the rule `R`.
pub(crate) struct OneAnswer<R: AnswerRule> {
    /// Each task's group, kind and question, in file order.
    names: Vec<[String; 3]>,
    truths: Vec<R::Truth>,
    by_id: FxHashMap<String, usize>,
}

impl<R: AnswerRule + 'static> OneAnswer<R> {
    /// Reads the truth row by row: every field non-empty, each `group:kind` once, and
    /// every answer one the rule can read; errors name the file and row.
    pub(crate) fn read(mut rows: TruthRows<'_>) -> Result<OneAnswer<R>, InputError> {
        let source = rows.source().to_string();
        let mut columns = vec!["group", "kind", "question", "answer"];
        if R::OPTIONS {
            columns.push("options");
        }
        let at: Vec<usize> = columns
            .iter()
            .map(|name| require(&source, rows.headers(), name))
            .collect::<Result<_, _>>()?;
        let mut verifier = OneAnswer {
            names: Vec::new(),
            truths: Vec::new(),
            by_id: FxHashMap::default(),
        };
        // The line of each task's row, for the message about a repeated one.
        let mut lines: Vec<u64> = Vec::new();
        while let Some(row) = rows.next_row()? {
            let fields: Vec<&str> = at.iter().map(|&i| trim_field(row.field(i))).collect();
            let fail = |message: String| InputError::invalid(&source, row.line, message);
            if let Some(empty) = columns.iter().zip(&fields).find(|(_, f)| f.is_empty()) {
                return Err(fail(format!(
                    "`{}` is empty; fill it in or remove the row",
                    empty.0
                )));
            }
            let id = task_id(fields[0], fields[1]);
            if let Some(&first) = verifier.by_id.get(&id) {
                return Err(fail(format!(
                    "task `{id}` appears again (first on row {}); keep one row per group and kind",
                    lines[first]
                )));
            }
            let truth =
                R::parse(fields[3], fields.get(4).copied().unwrap_or_default()).map_err(fail)?;
            verifier.by_id.insert(id, verifier.names.len());
            lines.push(row.line);
            verifier.names.push([
                fields[0].to_string(),
                fields[1].to_string(),
                fields[2].to_string(),
            ]);
            verifier.truths.push(truth);
        }
        if verifier.names.is_empty() {
            return Err(InputError::NoRows { file: source });
        }
        Ok(verifier)
    }

    /// [`OneAnswer::read`] boxed: the registry's constructor.
    pub(crate) fn build(rows: TruthRows<'_>) -> Result<Box<dyn Verifier>, InputError> {
        Ok(Box::new(OneAnswer::<R>::read(rows)?))
    }
}

impl<R: AnswerRule> Verifier for OneAnswer<R> {
    fn task_count(&self) -> usize {
        self.names.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        let [group, kind, _] = &self.names[index];
        (group, kind)
    }

    fn prompt(&self, index: usize) -> String {
        R::prompt(&self.names[index][2], &self.truths[index])
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        self.by_id.get(task_id).copied()
    }

    fn find_task_near(&self, task_id: &str, likely: usize) -> Option<usize> {
        // Files list tasks in truth order, so the next task is usually the one.
        if let Some([group, kind, _]) = self.names.get(likely) {
            let matches = task_id.len() == group.len() + 1 + kind.len()
                && task_id.starts_with(group.as_str())
                && task_id.as_bytes()[group.len()] == b':'
                && task_id.ends_with(kind.as_str());
            // Task ids are unique (a repeated one is refused), so the text decides.
            if matches {
                return Some(likely);
            }
        }
        self.find_task(task_id)
    }

    fn grade(&self, index: usize, output: &str) -> Grade {
        R::grade(&self.truths[index], output)
    }
}

/// One row of a benchmark verifier's truth as [`Rowwise::read`] hands it on, its
/// fields trimmed: what grading its task needs, without holding the file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TruthRow<'a> {
    /// The row's line.
    pub line: u64,
    /// `group`.
    pub group: &'a str,
    /// `kind`.
    pub kind: &'a str,
    /// `answer`.
    pub answer: &'a str,
    /// `options` (empty for a verifier without them).
    pub options: &'a str,
}

/// The first bad row of a truth read by [`Rowwise::read`].
#[derive(Debug)]
pub(crate) struct BadRow {
    /// Its line: 0 for a missing column, `u64::MAX` for a file that fails to parse
    /// (any repeated task before it is said first).
    pub line: u64,
    /// What is wrong.
    pub error: InputError,
    /// The row's task id when only its answer is wrong: a repeat of that id is said
    /// instead, as [`OneAnswer::read`] checks repeats before answers.
    pub id: Option<String>,
}

/// A benchmark verifier streamed: its truth read row by row without being held, and
/// each task graded from its own row alone. `score` sorts the rows by task id on disk
/// and joins them to the tasks and outputs, so memory does not grow with the rows.
pub(crate) trait Rowwise: Sync {
    /// Reads `rows` as [`OneAnswer::read`] does, handing every good row to `each`,
    /// and stops at the first bad one. Repeated task ids are not checked: the caller
    /// finds them in its sort and says the first (by the second row's line) unless a
    /// bad row comes before it. Returns the rows read.
    fn read(&self, rows: TruthRows<'_>, each: &mut dyn FnMut(&TruthRow<'_>))
    -> Result<u64, BadRow>;
    /// Grades `output` against a row's `answer` and `options`, as the verifier built
    /// from the truth grades that row's task; an error for an answer it cannot read
    /// (never one [`Rowwise::read`] handed on).
    fn grade(&self, answer: &str, options: &str, output: &str) -> Result<Grade, String>;
}

/// The rule `R` as a [`Rowwise`].
pub(crate) struct Streamed<R>(std::marker::PhantomData<fn() -> R>);

impl<R> Streamed<R> {
    /// The streamed form of the rule `R`.
    pub(crate) const RULE: Streamed<R> = Streamed(std::marker::PhantomData);
}

impl<R: AnswerRule> Rowwise for Streamed<R> {
    fn read(
        &self,
        mut rows: TruthRows<'_>,
        each: &mut dyn FnMut(&TruthRow<'_>),
    ) -> Result<u64, BadRow> {
        let source = rows.source().to_string();
        let mut columns = vec!["group", "kind", "question", "answer"];
        if R::OPTIONS {
            columns.push("options");
        }
        let at: Vec<usize> = columns
            .iter()
            .map(|name| require(&source, rows.headers(), name))
            .collect::<Result<_, _>>()
            .map_err(|error| BadRow {
                line: 0,
                error,
                id: None,
            })?;
        let mut read = 0;
        loop {
            let row = match rows.next_row() {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(error) => {
                    return Err(BadRow {
                        line: u64::MAX,
                        error,
                        id: None,
                    });
                }
            };
            let fields: Vec<&str> = at.iter().map(|&i| trim_field(row.field(i))).collect();
            let fail = |message: String, id: Option<String>| BadRow {
                line: row.line,
                error: InputError::invalid(&source, row.line, message),
                id,
            };
            if let Some(empty) = columns.iter().zip(&fields).find(|(_, f)| f.is_empty()) {
                return Err(fail(
                    format!("`{}` is empty; fill it in or remove the row", empty.0),
                    None,
                ));
            }
            let options = fields.get(4).copied().unwrap_or_default();
            if let Err(message) = R::parse(fields[3], options) {
                return Err(fail(message, Some(task_id(fields[0], fields[1]))));
            }
            each(&TruthRow {
                line: row.line,
                group: fields[0],
                kind: fields[1],
                answer: fields[3],
                options,
            });
            read += 1;
        }
        Ok(read)
    }

    fn grade(&self, answer: &str, options: &str, output: &str) -> Result<Grade, String> {
        Ok(R::grade(&R::parse(answer, options)?, output))
    }
}

/// What the tests of the benchmark verifiers share: asserting the grade of many outputs
/// at once, and reading the error a bad truth gets.
#[cfg(test)]
pub(crate) mod testing {
    use crate::verify::{Grade, build};

    /// Asserts that each `(task, output)` of `cases`, graded by `grade`, is `correct`
    /// with `correctness` and `composite`; a failure names the task, the output and the
    /// feedback.
    pub(crate) fn assert_grades<'a>(
        grade: impl Fn(&str, &str) -> Grade,
        cases: impl IntoIterator<Item = (&'a str, &'a str)>,
        (correct, correctness, composite): (bool, f64, f64),
    ) {
        for (id, output) in cases {
            let g = grade(id, output);
            assert_eq!(
                (g.correct, g.correctness, g.composite),
                (correct, correctness, composite),
                "{id} {output:?}: {}",
                g.feedback
            );
        }
    }

    /// The message with which the verifier `name` refuses `truth`, read from `file`.
    pub(crate) fn refusal(name: &str, file: &str, truth: &str) -> String {
        match build(name, file, truth.as_bytes()) {
            Ok(_) => panic!("the {name} verifier accepted {truth:?}"),
            Err(error) => error.to_string(),
        }
    }
}
