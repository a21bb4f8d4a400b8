//! Scores files as `admit` reads them: `task_id` and `score` are required; `correct`,
//! `group`, `feedback` and the strata column are used when present. Every value is
//! checked once here (score finite and in [0, 1], `correct` 0 or 1, one row per task),
//! so the admission core can trust what it is given.

use std::io::Read;
use std::sync::Arc;

use crate::error::InputError;
use crate::table::{RowReader, Table, column, require};

/// One scored task.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRow {
    /// 1-based line of the file the row starts on.
    pub line: u64,
    /// The task, trimmed.
    pub task_id: String,
    /// The admission score, finite and in [0, 1]; `-0` is read as 0.
    pub score: f64,
    /// The ground truth's verdict, when the file has a `correct` column.
    pub correct: Option<bool>,
    /// The value of the strata column, when the file has it (one shared copy per value).
    pub stratum: Option<Arc<str>>,
    /// The task's group (paper), when the file has a `group` column (one shared copy
    /// per value).
    pub group: Option<Arc<str>>,
    /// The grader's one-line feedback, when the file has a `feedback` column.
    pub feedback: Option<String>,
}

/// A whole scores file, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreFile {
    /// The path as given, for messages and reports.
    pub source: String,
    /// Rows sorted by `task_id` (each task once), ready to be paired by a merge.
    pub rows: Vec<ScoreRow>,
    /// Whether the file has a `correct` column.
    pub has_correct: bool,
    /// Whether the file has the strata column that was asked for.
    pub has_stratum: bool,
}

/// Reads a scores table. `strata` names the column whose values are the strata; the
/// column is optional here (the pairing decides whether its absence is an error).
pub fn read_scores(table: &Table, strata: Option<&str>) -> Result<ScoreFile, InputError> {
    let mut builder = Builder::new(&table.source, &table.headers, strata);
    for row in &table.rows {
        builder.push(row.line, |index| &row.fields[index]);
    }
    builder.finish()
}

/// Reads a scores file from a stream, one row at a time, keeping only the columns
/// `admit` uses: what [`read_scores`] gives on the same bytes, with the same errors,
/// without holding the file. `source` names it in messages. With `feedback` false the
/// feedback column is left unread (`admit` shows the baseline's only in `pairs.csv`).
/// Returns the stream once read to its end. Time: O(n log n) for the sort by task.
pub fn read_scores_from<R: Read>(
    source: &str,
    input: R,
    strata: Option<&str>,
    feedback: bool,
) -> Result<(ScoreFile, R), InputError> {
    let mut reader = RowReader::new(source, input)?;
    let mut builder = Builder::new(source, reader.headers(), strata);
    if !feedback {
        builder.feedback = None;
    }
    while let Some(row) = reader.next_row()? {
        builder.push(row.line, |index| row.field(index));
    }
    Ok((builder.finish()?, reader.into_inner()))
}

/// How many recent values of a strata or group column are looked up without hashing.
const RECENT_VALUES: usize = 8;

/// The first row that cannot be used, kept while the rest of the file is read: a
/// malformed file further down is reported first, as it was when files were read
/// whole before their rows were checked.
struct Failure {
    line: u64,
    /// The row's task, when it has one (a repeat of an earlier task is reported
    /// instead of the row's own error).
    task_id: Option<String>,
    error: InputError,
}

/// The checks of [`read_scores`], fed one row at a time.
struct Builder {
    source: String,
    headers: Vec<String>,
    id: Option<usize>,
    score: Option<usize>,
    correct: Option<usize>,
    stratum: Option<usize>,
    group: Option<usize>,
    feedback: Option<usize>,
    rows: Vec<ScoreRow>,
    seen: usize,
    failure: Option<Failure>,
    recent: [Vec<Arc<str>>; 2],
}

impl Builder {
    fn new(source: &str, headers: &[String], strata: Option<&str>) -> Builder {
        Builder {
            source: source.to_string(),
            headers: headers.to_vec(),
            id: column(headers, "task_id"),
            score: column(headers, "score"),
            correct: column(headers, "correct"),
            stratum: strata.and_then(|name| column(headers, name)),
            group: column(headers, "group"),
            feedback: column(headers, "feedback"),
            rows: Vec::new(),
            seen: 0,
            failure: None,
            recent: [Vec::new(), Vec::new()],
        }
    }

    /// One shared copy of a strata or group value. `column` is 0 for strata, 1 for
    /// groups; each keeps the few values it saw last. Strata take a handful of values,
    /// and the rows of one group come together in the files `score` writes, so nearly
    /// every row finds its value there; a value met again after that gets a copy of
    /// its own, which is equal all the same.
    fn intern(&mut self, column: usize, value: &str) -> Arc<str> {
        let recent = &mut self.recent[column];
        if let Some(known) = recent.iter().find(|known| ***known == *value) {
            return Arc::clone(known);
        }
        let shared: Arc<str> = Arc::from(value);
        if recent.len() == RECENT_VALUES {
            recent.remove(0);
        }
        recent.push(Arc::clone(&shared));
        shared
    }

    fn push<'a>(&mut self, line: u64, field: impl Fn(usize) -> &'a str) {
        self.seen += 1;
        let (Some(id), Some(score)) = (self.id, self.score) else {
            return;
        };
        if self.failure.is_some() {
            return;
        }
        let task_id = field(id).trim();
        if task_id.is_empty() {
            self.failure = Some(Failure {
                line,
                task_id: None,
                error: InputError::invalid(
                    &self.source,
                    line,
                    "empty task_id; every row needs the task it scores",
                ),
            });
            return;
        }
        let checked = parse_score(&self.source, line, task_id, field(score)).and_then(|value| {
            let correct = match self.correct {
                Some(column) => Some(parse_correct(&self.source, line, task_id, field(column))?),
                None => None,
            };
            Ok((value, correct))
        });
        let (value, correct) = match checked {
            Ok(checked) => checked,
            Err(error) => {
                self.failure = Some(Failure {
                    line,
                    task_id: Some(task_id.to_string()),
                    error,
                });
                return;
            }
        };
        let stratum = self.stratum.map(|c| self.intern(0, field(c).trim()));
        let group = self.group.map(|c| self.intern(1, field(c).trim()));
        self.rows.push(ScoreRow {
            line,
            task_id: task_id.to_string(),
            score: value,
            correct,
            stratum,
            group,
            feedback: self.feedback.map(|c| field(c).to_string()),
        });
    }

    /// The file, or its first error in the order a row-by-row reading would meet them:
    /// a missing column, no rows, then the earliest row that repeats a task or fails
    /// its own checks (a repeat is found before the row's values are checked).
    fn finish(mut self) -> Result<ScoreFile, InputError> {
        require(&self.source, &self.headers, "task_id")?;
        require(&self.source, &self.headers, "score")?;
        if self.seen == 0 {
            return Err(InputError::NoRows { file: self.source });
        }
        // Rows of one task stay in file order, so each repeat sits right after the
        // task's first row.
        sort_by_task(&mut self.rows);
        let mut repeat: Option<(u64, u64, &str)> = None;
        for window in self.rows.windows(2) {
            if window[0].task_id == window[1].task_id
                && repeat.is_none_or(|(line, _, _)| window[1].line < line)
            {
                // Three rows of one task: the first two are adjacent and hold the
                // earliest repeat, so a later row of the same task is never chosen.
                repeat = Some((window[1].line, window[0].line, &window[0].task_id));
            }
        }
        if let Some(failure) = &self.failure
            && let Some(task) = &failure.task_id
            && repeat.is_none_or(|(line, _, _)| failure.line < line)
        {
            let index = self
                .rows
                .partition_point(|r| r.task_id.as_str() < task.as_str());
            if let Some(first) = self.rows.get(index).filter(|r| &r.task_id == task) {
                repeat = Some((failure.line, first.line, &first.task_id));
            }
        }
        let repeat_error = |(line, first, task): (u64, u64, &str)| {
            InputError::invalid(
                &self.source,
                line,
                format!(
                    "task `{task}` appears twice (rows {first} and {line}); keep one row per task"
                ),
            )
        };
        match (repeat, &self.failure) {
            (Some(r), Some(failure)) if failure.line < r.0 => Err(failure.error.clone()),
            (Some(r), _) => Err(repeat_error(r)),
            (None, Some(failure)) => Err(failure.error.clone()),
            (None, None) => Ok(ScoreFile {
                has_correct: self.correct.is_some(),
                has_stratum: self.stratum.is_some(),
                source: self.source,
                rows: self.rows,
            }),
        }
    }
}

/// Sorts rows by task, then line. A sort on the tasks' first 16 bytes (as one integer)
/// settles most comparisons without a string comparison; the rows are then moved into
/// that order in place. Files already in task order are left as they are.
/// Time: O(n log n); memory: 32 bytes per row.
fn sort_by_task(rows: &mut [ScoreRow]) {
    let in_order = |x: &ScoreRow, y: &ScoreRow| (&x.task_id, x.line) <= (&y.task_id, y.line);
    if rows.is_sorted_by(in_order) {
        return;
    }
    let prefix = |task: &str| {
        let mut bytes = [0_u8; 16];
        let head = &task.as_bytes()[..task.len().min(16)];
        bytes[..head.len()].copy_from_slice(head);
        u128::from_be_bytes(bytes)
    };
    let mut order: Vec<(u128, usize)> = rows
        .iter()
        .enumerate()
        .map(|(index, row)| (prefix(&row.task_id), index))
        .collect();
    // Zero padding keeps the integers in the order of the strings; equal integers
    // fall back to the whole task and the line.
    order.sort_unstable_by(|x, y| {
        x.0.cmp(&y.0).then_with(|| {
            let (a, b) = (&rows[x.1], &rows[y.1]);
            (&a.task_id, a.line).cmp(&(&b.task_id, b.line))
        })
    });
    // Follow each cycle of the permutation: position `at` receives row `order[at]`.
    let mut placed = vec![false; rows.len()];
    for start in 0..rows.len() {
        if placed[start] {
            continue;
        }
        let mut at = start;
        loop {
            placed[at] = true;
            let from = order[at].1;
            if from == start {
                break;
            }
            rows.swap(at, from);
            at = from;
        }
    }
}

fn parse_score(source: &str, line: u64, task_id: &str, text: &str) -> Result<f64, InputError> {
    let text = text.trim();
    let value: f64 = text.parse().map_err(|_| {
        InputError::invalid(
            source,
            line,
            format!("task `{task_id}`: score `{text}` is not a number; give a number in [0, 1]"),
        )
    })?;
    if !value.is_finite() || !(0.0..=1.0).contains(&value) {
        return Err(InputError::invalid(
            source,
            line,
            format!("task `{task_id}`: score `{text}` is outside [0, 1]; give a number in [0, 1]"),
        ));
    }
    // Adding 0.0 turns -0 into +0, so no negative zero travels into a difference.
    Ok(value + 0.0)
}

fn parse_correct(source: &str, line: u64, task_id: &str, text: &str) -> Result<bool, InputError> {
    let text = text.trim();
    match text.parse::<f64>() {
        Ok(0.0) => Ok(false),
        Ok(1.0) => Ok(true),
        _ => Err(InputError::invalid(
            source,
            line,
            format!(
                "task `{task_id}`: correct `{text}` is not 0 or 1; give 1 when the ground truth says the answer is right, else 0"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ScoreFile, InputError> {
        read_scores(&Table::parse("s.csv", text.as_bytes())?, Some("kind"))
    }

    #[test]
    fn reads_scores_with_and_without_the_optional_columns() {
        let file = read("task_id,kind,correct,score\na:id,id,1,1\nb:id,id,-0,-0\n").unwrap();
        assert!(file.has_correct && file.has_stratum);
        assert_eq!(file.rows[1].correct, Some(false));
        assert_eq!(file.rows[1].score.to_bits(), 0.0_f64.to_bits());
        assert_eq!(file.rows[0].stratum.as_deref(), Some("id"));
        let bare = read("score,task_id\n0.5,a:id\n").unwrap();
        assert!(!bare.has_correct && !bare.has_stratum);
        assert_eq!(bare.rows[0].correct, None);
    }

    #[test]
    fn refuses_scores_outside_the_unit_interval_or_not_finite_naming_row_and_task() {
        for bad in ["1.4", "-0.1", "NaN", "inf", "high"] {
            let error = read(&format!("task_id,score\na:id,0.5\nb:id,{bad}\n")).unwrap_err();
            let text = error.to_string();
            assert!(text.contains("`s.csv` row 3"), "{text}");
            assert!(text.contains("`b:id`") && text.contains(bad), "{text}");
        }
    }

    #[test]
    fn refuses_a_correct_value_that_is_not_zero_or_one() {
        let error = read("task_id,correct,score\na:id,0.5,0.5\n").unwrap_err();
        assert!(error.to_string().contains("correct `0.5` is not 0 or 1"));
    }

    #[test]
    fn names_both_rows_of_a_duplicated_task() {
        let error = read("task_id,score\na:id,1\nb:id,0\n a:id ,0\n").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("`a:id` appears twice (rows 2 and 4)"),
            "{error}"
        );
    }

    #[test]
    fn a_malformed_row_further_down_is_reported_before_an_earlier_bad_score() {
        let text = "task_id,score\na:id,1.4\nb:id\n";
        let error = Table::parse("s.csv", text.as_bytes()).unwrap_err();
        assert!(
            matches!(error, InputError::Ragged { line: 3, .. }),
            "{error}"
        );
        let streamed = read_scores_from("s.csv", text.as_bytes(), None, true).unwrap_err();
        assert_eq!(streamed, error);
    }

    #[test]
    fn the_earliest_row_that_fails_decides_between_a_repeat_and_a_bad_value() {
        for (text, wanted) in [
            (
                "task_id,score\na,1\na,2\n",
                "`a` appears twice (rows 2 and 3)",
            ),
            (
                "task_id,score\na,1\nb,x\na,0\n",
                "`s.csv` row 3: task `b`: score `x`",
            ),
            (
                "task_id,score\na,1\nb,0\nb,1\na,1\n",
                "`b` appears twice (rows 3 and 4)",
            ),
            (
                "task_id,score\na,1\nb,0\n ,1\nb,1\n",
                "`s.csv` row 4: empty task_id",
            ),
            (
                "task_id,score\na,1\na,0\na,1\n",
                "`a` appears twice (rows 2 and 3)",
            ),
        ] {
            let error = read_scores_from("s.csv", text.as_bytes(), None, true).unwrap_err();
            assert!(error.to_string().contains(wanted), "{text:?}: {error}");
        }
    }

    #[test]
    fn a_streamed_file_reads_as_the_same_rows_sorted_by_task() {
        let text = "task_id,kind,group,correct,score,feedback\nb,year,p,1,1,ok\na,id,p,0,0.5,\"no, not\"\n";
        let whole = read_scores(
            &Table::parse("s.csv", text.as_bytes()).unwrap(),
            Some("kind"),
        );
        let (streamed, _) = read_scores_from("s.csv", text.as_bytes(), Some("kind"), true).unwrap();
        assert_eq!(whole.unwrap(), streamed);
        let tasks: Vec<&str> = streamed.rows.iter().map(|r| r.task_id.as_str()).collect();
        assert_eq!(tasks, ["a", "b"]);
        assert_eq!(streamed.rows[0].feedback.as_deref(), Some("no, not"));
    }

    #[test]
    fn rows_come_out_in_task_order_whatever_their_file_order() {
        // Tasks sharing their first 16 bytes and tasks shorter than 16, scrambled.
        let mut text = String::from("task_id,score\n");
        let tasks: Vec<String> = (0..60)
            .map(|i| match i % 3 {
                0 => format!("paper-with-a-long-name-{:02}", (i * 37) % 60),
                1 => format!("p{}", (i * 37) % 60),
                _ => format!("p{}\u{e9}", (i * 37) % 60),
            })
            .collect();
        for task in &tasks {
            text.push_str(&format!("{task},1\n"));
        }
        let (file, _) = read_scores_from("s.csv", text.as_bytes(), None, true).unwrap();
        let mut expected = tasks.clone();
        expected.sort();
        let got: Vec<&String> = file.rows.iter().map(|r| &r.task_id).collect();
        assert_eq!(got, expected.iter().collect::<Vec<_>>());
        let first = file.rows.iter().find(|r| r.task_id == tasks[5]).unwrap();
        assert_eq!(first.line, 7);
    }

    #[test]
    fn requires_task_id_and_score_columns_and_a_task_in_every_row() {
        assert!(matches!(
            read("task_id,correct\na,1\n"),
            Err(InputError::MissingColumn { .. })
        ));
        assert!(read("task_id,score\n ,1\n").is_err());
    }
}
