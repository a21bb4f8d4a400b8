//! What the benchmark verifiers (`numeric`, `choice`, `short`) share: a truth in the
//! facts layout, `group,kind,question,answer` (plus `options` for `choice`), one task a
//! row with `task_id` `<group>:<kind>`, each graded against its own row's answer alone.
//! A verifier of this family is an [`AnswerRule`]: how to read a row's answer, how to
//! put the question, and how to grade an output; [`OneAnswer`] does the rest.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Grade, TruthRows, Verifier};
use crate::base::hash::fingerprint;
use crate::base::index::HashIndex;
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
    /// The prompt of a task from its question and its row's `options` as read (empty
    /// without [`AnswerRule::OPTIONS`]): its question, and whatever else the skill must
    /// see.
    fn prompt(question: &str, options: &str) -> String;
    /// Grades `output` against one task's truth. Pure.
    fn grade(truth: &Self::Truth, output: &str) -> Grade;
}

/// What a truth is read for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Grading outputs (`score`, `grade`): each row's truth is parsed once and kept.
    Grading,
    /// Listing the tasks (`split`): each row is checked as for grading, but only its
    /// text is kept, and a grade (should one be asked) parses the truths then.
    Listing,
}

/// A verifier whose every task is one row of its truth, graded by the rule `R`. The
/// tasks' fields are one string reached by position and their ids a [`HashIndex`]
/// checked against it: no string of its own a task besides its parsed truth, which is
/// kept only when the truth is read for grading.
pub(crate) struct OneAnswer<R: AnswerRule> {
    /// Every task's group, question, answer and options, one task after the other.
    text: String,
    /// Each task, in file order.
    tasks: Vec<TaskAt>,
    /// Each kind's name, in order of first appearance.
    kinds: Vec<String>,
    /// Each task's truth, parsed when read for grading, else at the first grade.
    truths: OnceLock<Vec<R::Truth>>,
    /// The tasks by the fingerprint of their id.
    by_id: HashIndex,
}

/// Where one task's fields are: its group, question and answer one after the other
/// from `group`, its options up to where the next task's group starts.
#[derive(Debug, Clone, Copy)]
struct TaskAt {
    /// Where its group starts in the verifier's text.
    group: usize,
    /// The lengths of its group, question and answer.
    lengths: [u32; 3],
    /// Its kind, an index into the verifier's kinds.
    kind: u32,
}

/// Whether `id` is `group:kind` ([`crate::task::task_id`]), without making it.
pub(crate) fn is_id(id: &str, group: &str, kind: &str) -> bool {
    id.len() == group.len() + 1 + kind.len()
        && id.starts_with(group)
        && id.as_bytes()[group.len()] == b':'
        && id.ends_with(kind)
}

/// The lines of a truth's rows, for the message about a repeated task: kept only
/// where a row is not on the line after the previous row's, so a file of one line a
/// row holds one entry.
#[derive(Debug, Clone, Default)]
pub(crate) struct RowLines {
    /// (task, line), in task order.
    jumps: Vec<(u32, u64)>,
}

impl RowLines {
    /// Records that task `task` (the next one) is on line `line`.
    pub(crate) fn push(&mut self, task: u32, line: u64) {
        let expected = self.jumps.last().map(|&(t, l)| l + u64::from(task - t));
        if expected != Some(line) {
            self.jumps.push((task, line));
        }
    }

    /// The line of task `task`'s row (a task pushed).
    pub(crate) fn of(&self, task: u32) -> u64 {
        let after = self.jumps.partition_point(|&(t, _)| t <= task);
        let (from, line) = self.jumps[after - 1];
        line + u64::from(task - from)
    }
}

/// The truth's columns of rule `R` (`group`, `kind`, `question`, `answer`, and
/// `options` when the rule has options) and where they are in the headers.
type Columns = (Vec<&'static str>, Vec<usize>);

/// The [`Columns`] of rule `R` in `headers`; a missing one is refused naming `source`.
fn truth_columns<R: AnswerRule>(source: &str, headers: &[String]) -> Result<Columns, InputError> {
    let mut columns = vec!["group", "kind", "question", "answer"];
    if R::OPTIONS {
        columns.push("options");
    }
    let at = columns
        .iter()
        .map(|name| require(source, headers, name))
        .collect::<Result<_, _>>()?;
    Ok((columns, at))
}

impl<R: AnswerRule + 'static> OneAnswer<R> {
    /// Reads the truth row by row for `purpose`: every field non-empty, each
    /// `group:kind` once, and every answer one the rule can read; errors name the file
    /// and row.
    pub(crate) fn read(mut rows: TruthRows<'_>, purpose: Use) -> Result<OneAnswer<R>, InputError> {
        let source = rows.source().to_string();
        let (columns, at) = truth_columns::<R>(&source, rows.headers())?;
        let mut verifier = OneAnswer {
            text: String::new(),
            tasks: Vec::new(),
            kinds: Vec::new(),
            truths: OnceLock::new(),
            by_id: HashIndex::default(),
        };
        let mut truths: Vec<R::Truth> = Vec::new();
        let mut kind_of: HashMap<String, u32> = HashMap::new();
        let mut lines = RowLines::default();
        let mut id = String::new();
        while let Some(row) = rows.next_row()? {
            let fields: Vec<&str> = at.iter().map(|&i| trim_field(row.field(i))).collect();
            let fail = |message: String| InputError::invalid(&source, row.line, message);
            if let Some(empty) = columns.iter().zip(&fields).find(|(_, f)| f.is_empty()) {
                return Err(fail(format!(
                    "`{}` is empty; fill it in or remove the row",
                    empty.0
                )));
            }
            id.clear();
            id.push_str(fields[0]);
            id.push(':');
            id.push_str(fields[1]);
            let print = fingerprint(&id);
            let verifier_ref = &verifier;
            if let Some(first) = verifier.by_id.find(print, |i| {
                let (group, kind) = verifier_ref.task_names(i as usize);
                is_id(&id, group, kind)
            }) {
                return Err(fail(format!(
                    "task `{id}` appears again (first on row {}); keep one row per group and kind",
                    lines.of(first)
                )));
            }
            let options = fields.get(4).copied().unwrap_or_default();
            let truth = R::parse(fields[3], options).map_err(fail)?;
            let task = u32::try_from(verifier.tasks.len())
                .ok()
                .filter(|&task| task < u32::MAX - 1)
                .ok_or_else(|| fail("more tasks than a truth may hold (2^32 - 2)".to_string()))?;
            let lengths = [fields[0], fields[2], fields[3]].map(|field| u32::try_from(field.len()));
            let [Ok(group_len), Ok(question_len), Ok(answer_len)] = lengths else {
                return Err(fail("a field is longer than 4 GB; shorten it".to_string()));
            };
            let kind = match kind_of.get(fields[1]) {
                Some(&kind) => kind,
                None => {
                    let kind = verifier.kinds.len() as u32;
                    verifier.kinds.push(fields[1].to_string());
                    kind_of.insert(fields[1].to_string(), kind);
                    kind
                }
            };
            verifier.by_id.insert(print, task);
            lines.push(task, row.line);
            let start = verifier.text.len();
            for field in [fields[0], fields[2], fields[3], options] {
                verifier.text.push_str(field);
            }
            verifier.tasks.push(TaskAt {
                group: start,
                lengths: [group_len, question_len, answer_len],
                kind,
            });
            if purpose == Use::Grading {
                truths.push(truth);
            }
        }
        if verifier.tasks.is_empty() {
            return Err(InputError::NoRows { file: source });
        }
        verifier.text.shrink_to_fit();
        verifier.tasks.shrink_to_fit();
        if purpose == Use::Grading {
            truths.shrink_to_fit();
            verifier.truths = OnceLock::from(truths);
        }
        Ok(verifier)
    }

    /// [`OneAnswer::read`] boxed: the registry's constructor.
    pub(crate) fn build(
        rows: TruthRows<'_>,
        purpose: Use,
    ) -> Result<Box<dyn Verifier>, InputError> {
        Ok(Box::new(OneAnswer::<R>::read(rows, purpose)?))
    }
}

impl<R: AnswerRule> OneAnswer<R> {
    /// Task `index`'s question, answer and options as read.
    fn fields(&self, index: usize) -> [&str; 3] {
        let task = &self.tasks[index];
        let [group, question, answer] = task.lengths.map(|length| length as usize);
        let question_at = task.group + group;
        let answer_at = question_at + question;
        let options_at = answer_at + answer;
        let end = self
            .tasks
            .get(index + 1)
            .map_or(self.text.len(), |next| next.group);
        [
            &self.text[question_at..answer_at],
            &self.text[answer_at..options_at],
            &self.text[options_at..end],
        ]
    }

    /// Every task's truth: parsed when the truth was read for grading, else now.
    fn truths(&self) -> &[R::Truth] {
        self.truths.get_or_init(|| {
            (0..self.tasks.len())
                .map(|index| {
                    let [_, answer, options] = self.fields(index);
                    R::parse(answer, options).unwrap_or_else(|_| {
                        unreachable!("every answer was read when the truth was")
                    })
                })
                .collect()
        })
    }
}

impl<R: AnswerRule> Verifier for OneAnswer<R> {
    fn task_count(&self) -> usize {
        self.tasks.len()
    }

    fn task_names(&self, index: usize) -> (&str, &str) {
        let task = &self.tasks[index];
        (
            &self.text[task.group..task.group + task.lengths[0] as usize],
            &self.kinds[task.kind as usize],
        )
    }

    fn prompt(&self, index: usize) -> String {
        let [question, _, options] = self.fields(index);
        R::prompt(question, options)
    }

    fn find_task(&self, task_id: &str) -> Option<usize> {
        self.by_id
            .find(fingerprint(task_id), |i| {
                let (group, kind) = self.task_names(i as usize);
                is_id(task_id, group, kind)
            })
            .map(|i| i as usize)
    }

    fn find_task_near(&self, task_id: &str, likely: usize) -> Option<usize> {
        // Files list tasks in truth order, so the next task is usually the one.
        if likely < self.tasks.len() {
            let (group, kind) = self.task_names(likely);
            // Task ids are unique (a repeated one is refused), so the text decides.
            if is_id(task_id, group, kind) {
                return Some(likely);
            }
        }
        self.find_task(task_id)
    }

    fn grade(&self, index: usize, output: &str) -> Grade {
        R::grade(&self.truths()[index], output)
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
    /// What the verifier files the row under to grade it (facts: the number of its
    /// distinct answer in its kind); 0 for the verifiers that grade from `answer` and
    /// `options`.
    pub distinct: u64,
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

impl BadRow {
    /// The temporary folder failed while `what` (a verifier's lookups past its memory
    /// budget) were kept there: the error names TMPDIR and the fix.
    pub(crate) fn kept_on_disk(what: &str, error: std::io::Error) -> BadRow {
        BadRow {
            line: u64::MAX,
            error: InputError::Io {
                file: "the temporary folder (TMPDIR, else /tmp)".to_string(),
                message: format!(
                    "{error}; {what} are kept there: free space there, or set TMPDIR to a folder with room"
                ),
            },
            id: None,
        }
    }
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
    /// Grades `output` against a row's `answer`, `options` and `distinct` as
    /// [`Rowwise::read`] handed them on, as the verifier built from the truth grades
    /// that row's task; an error for a row it cannot read (never one it handed on) or
    /// for lookups kept on disk that cannot be read back.
    fn grade(
        &self,
        answer: &str,
        options: &str,
        distinct: u64,
        output: &str,
    ) -> Result<Grade, NotGraded>;
}

/// Why [`Rowwise::grade`] gave no grade.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NotGraded {
    /// The row does not read as [`Rowwise::read`] handed it on: a fault of evogate's,
    /// never of the input.
    Unread(String),
    /// What the verifier keeps in the temporary folder (`what`, e.g. "the facts
    /// answers") could not be read back: `error` says why.
    KeptOnDisk {
        /// What was being read.
        what: &'static str,
        /// The error reading it.
        error: String,
    },
}

impl std::fmt::Display for NotGraded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotGraded::Unread(message) => {
                write!(f, "a truth row read twice reads otherwise: {message}")
            }
            NotGraded::KeptOnDisk { what, error } => write!(
                f,
                "cannot read back {what} kept in the temporary folder (TMPDIR, else /tmp): {error}; run again with TMPDIR set to a folder that nothing cleans or fills while evogate runs"
            ),
        }
    }
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
        let (columns, at) =
            truth_columns::<R>(&source, rows.headers()).map_err(|error| BadRow {
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
                distinct: 0,
            });
            read += 1;
        }
        Ok(read)
    }

    fn grade(
        &self,
        answer: &str,
        options: &str,
        _distinct: u64,
        output: &str,
    ) -> Result<Grade, NotGraded> {
        let truth = R::parse(answer, options).map_err(NotGraded::Unread)?;
        Ok(R::grade(&truth, output))
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
