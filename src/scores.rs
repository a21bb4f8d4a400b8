//! Scores files as `admit` reads them: `task_id` and `score` are required; `correct`,
//! `group`, `feedback`, `answered`, `outcome` and the strata column are used when
//! present. Every value is checked once here (score finite and in [0, 1], `correct` and
//! `answered` 0 or 1, `outcome` one of the grader's outcomes, one row per task),
//! so the admission core can trust what it is given. The file is streamed: each checked
//! row is handed to a [`Sink`] (the pairing keeps what it needs), and nothing else of
//! it is held.

mod stream;

pub(crate) use stream::{ScoreRow, ScoreStream};

use crate::error::InputError;
use crate::table::scan::Rows;

/// The task's id: the column pairs are joined on. This and the columns below are the
/// scores file's names, spelled here once: `score` writes them
/// ([`crate::grading::SCORE_COLUMNS`]), `import` too ([`crate::import::render_csv`]),
/// and [`read_score_rows`] reads them.
pub(crate) const TASK_ID_COLUMN: &str = "task_id";
/// The admission score, in [0, 1].
pub(crate) const SCORE_COLUMN: &str = "score";
/// The ground truth's verdict, 0 or 1.
pub(crate) const CORRECT_COLUMN: &str = "correct";
/// The task's group (paper), which `--cluster group` clusters by.
pub(crate) const GROUP_COLUMN: &str = "group";
/// The grader's one-line feedback.
pub(crate) const FEEDBACK_COLUMN: &str = "feedback";

/// The grader's outcome for the task, one of [`ScoredOutcome`]'s names; `score` writes
/// it after `score`. Files without it (older ones, imported ones) are read as before.
pub(crate) const OUTCOME_COLUMN: &str = "outcome";

/// The outcome `score --allow-missing` writes for a task with no output, or an error
/// instead of one.
pub(crate) const UNANSWERED: &str = "unanswered";

/// What a task's answer amounted to, as a scores file's `outcome` column says: the
/// grader's outcome (`crate::verify::Outcome`'s names), or `unanswered`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ScoredOutcome {
    /// The expected answer alone.
    Right,
    /// The expected answer among others.
    Hedged,
    /// Partial credit.
    Partial,
    /// Only other answers.
    Wrong,
    /// Nothing the grader could read as an answer.
    Invalid,
    /// A refusal, or "I don't know".
    Abstained,
    /// No output, or an error instead of one (`score --allow-missing`).
    Unanswered,
}

impl ScoredOutcome {
    /// Every outcome, in the order reports list them.
    pub(crate) const ALL: [ScoredOutcome; 7] = [
        ScoredOutcome::Right,
        ScoredOutcome::Hedged,
        ScoredOutcome::Partial,
        ScoredOutcome::Wrong,
        ScoredOutcome::Invalid,
        ScoredOutcome::Abstained,
        ScoredOutcome::Unanswered,
    ];

    /// The name in the `outcome` column: `right`, `hedged`, `partial`, `wrong`,
    /// `invalid`, `abstained` or `unanswered`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ScoredOutcome::Right => "right",
            ScoredOutcome::Hedged => "hedged",
            ScoredOutcome::Partial => "partial",
            ScoredOutcome::Wrong => "wrong",
            ScoredOutcome::Invalid => "invalid",
            ScoredOutcome::Abstained => "abstained",
            ScoredOutcome::Unanswered => UNANSWERED,
        }
    }

    /// The outcome named `name`, if any.
    pub(crate) fn parse(name: &str) -> Option<ScoredOutcome> {
        ScoredOutcome::ALL.into_iter().find(|o| o.name() == name)
    }
}

/// The column `score --allow-missing` adds after [`crate::grading::SCORE_COLUMNS`]: 1 for a task that
/// was answered, 0 for one with no output or an error instead of one.
pub(crate) const ANSWERED_COLUMN: &str = "answered";

/// One checked row, borrowed from the reader until the next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Values<'a> {
    /// 1-based line of the file the row starts on.
    pub line: u64,
    /// The admission score, finite and in [0, 1]; `-0` is read as 0.
    pub score: f64,
    /// The ground truth's verdict, when the file has a `correct` column.
    pub correct: Option<bool>,
    /// The value of the strata column, trimmed, when the file has it.
    pub stratum: Option<&'a str>,
    /// The task's group (paper), trimmed, when the file has a `group` column.
    pub group: Option<&'a str>,
    /// The grader's one-line feedback, as written, when the file has a `feedback`
    /// column.
    pub feedback: Option<&'a str>,
    /// Whether the task was answered, when the file has the `answered` column that
    /// `score --allow-missing` writes (0 for no output, or an error instead of one).
    pub answered: Option<bool>,
    /// The grader's outcome, when the file has an `outcome` column.
    pub outcome: Option<ScoredOutcome>,
}

/// Where the rows of a scores file go. The reader calls [`Sink::claim`] with each
/// row's task before checking the row's values (a repeated task is reported even when
/// the repeat's values are bad too), then [`Sink::fill`] with the values once they
/// pass. After the first row that fails, neither is called again.
pub(crate) trait Sink {
    /// Where one task's values go.
    type Slot;
    /// The slot of `task`, first met on `line`, or why the row cannot have one.
    fn claim(&mut self, task: &str, line: u64) -> Result<Self::Slot, Refusal>;
    /// Stores the checked values of the task claimed last.
    fn fill(&mut self, slot: Self::Slot, values: &Values<'_>);
    /// Once the file is read, for a sink that lets [`Sink::claim`] pass repeats and
    /// finds them afterwards: the earliest row that repeats a task of an earlier one.
    /// `failed` is the first row that failed, with its task when it has one; no repeat
    /// after it counts, and the failed row itself is a repeat when its task came
    /// earlier. `None` when no row repeats a task.
    fn earliest_repeat(&mut self, failed: Option<(u64, Option<&str>)>) -> Option<Repeat> {
        let _ = failed;
        None
    }
}

/// A row that repeats the task of an earlier one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repeat {
    /// The repeating row.
    pub line: u64,
    /// The task's first row.
    pub first: u64,
    /// The task.
    pub task: String,
}

/// The error of a row that repeats an earlier row's task.
pub(crate) fn repeat_error(source: &str, repeat: &Repeat) -> InputError {
    let Repeat { line, first, task } = repeat;
    InputError::invalid(
        source,
        *line,
        format!("task `{task}` appears twice (rows {first} and {line}); keep one row per task"),
    )
}

/// Why a [`Sink`] refuses a row's task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The file had the task already, on this row.
    Repeat(u64),
    /// The sink holds as many tasks as it can, this many.
    TooMany(u64),
}

/// What a read found about the file besides its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Its data rows.
    pub rows: usize,
    /// Whether it has a `correct` column.
    pub has_correct: bool,
    /// Whether it has the strata column that was asked for.
    pub has_stratum: bool,
    /// Whether it has an `answered` column.
    pub has_answered: bool,
    /// Whether it has an `outcome` column.
    pub has_outcome: bool,
}

/// The columns `admit` uses.
#[derive(Debug, Clone, Copy)]
struct Columns {
    id: Option<usize>,
    score: Option<usize>,
    correct: Option<usize>,
    stratum: Option<usize>,
    group: Option<usize>,
    feedback: Option<usize>,
    answered: Option<usize>,
    outcome: Option<usize>,
}

/// Reads a scores file from a stream into `sink`, one row at a time. `source` names it
/// in messages; `strata` names the column whose values are the strata (optional here:
/// the pairing decides whether its absence is an error).
///
/// Errors come in the order a row-by-row reading meets them, after the whole file was
/// read (a malformed row further down is reported first, as when files were read whole
/// before their rows were checked): a row the CSV reader cannot read, a missing
/// `task_id` or `score` column, no rows, then the earliest row with an empty task, a
/// repeated task or a bad value. Time: O(file) plus the sink's.
#[cfg(test)]
pub(crate) fn read_scores<R: std::io::Read, S: Sink>(
    source: &str,
    input: R,
    strata: Option<&str>,
    sink: &mut S,
) -> Result<Shape, InputError> {
    let mut rows = crate::table::scan::RowScanner::new(source, input)?;
    read_score_rows(source, &mut rows, strata, sink)
}

/// [`read_scores`] on rows already started (their header read), e.g. by a reader on
/// a thread of its own; `source` names the file in messages. Reads `reader` to its end.
pub(crate) fn read_score_rows<S: Sink>(
    source: &str,
    reader: &mut impl Rows,
    strata: Option<&str>,
    sink: &mut S,
) -> Result<Shape, InputError> {
    let mut stream = ScoreStream::new(source, reader, strata, true);
    let mut slot = None;
    while let Some(row) = stream.next_row(|task, line| {
        slot = Some(sink.claim(task, line)?);
        Ok(())
    }) {
        let claimed = slot.take().expect("a row is handed out only once claimed");
        sink.fill(claimed, &row.values());
    }
    stream.finish(|failed| sink.earliest_repeat(failed))
}
/// `str::trim`, without its Unicode scan for a field that starts and ends with a
/// printable ASCII byte (nearly every field).
pub(crate) fn trim(text: &str) -> &str {
    let printable = |byte: Option<&u8>| byte.is_some_and(|b| b.is_ascii_graphic());
    let bytes = text.as_bytes();
    if printable(bytes.first()) && printable(bytes.last()) {
        text
    } else {
        text.trim()
    }
}

fn parse_score(source: &str, line: u64, task_id: &str, text: &str) -> Result<f64, InputError> {
    let text = trim(text);
    // The two commonest scores, as `parse` reads them.
    match text {
        "0" => return Ok(0.0),
        "1" => return Ok(1.0),
        _ => {}
    }
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
    let text = trim(text);
    let value = match text {
        "0" => Ok(0.0),
        "1" => Ok(1.0),
        _ => text.parse::<f64>(),
    };
    match value {
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

/// `answered` as `score --allow-missing` writes it (1 or 0), or `true`/`false` as other
/// tools may.
fn parse_answered(source: &str, line: u64, task_id: &str, text: &str) -> Result<bool, InputError> {
    let text = trim(text);
    match text {
        "1" => Ok(true),
        "0" => Ok(false),
        _ if text.eq_ignore_ascii_case("true") => Ok(true),
        _ if text.eq_ignore_ascii_case("false") => Ok(false),
        _ => Err(InputError::invalid(
            source,
            line,
            format!(
                "task `{task_id}`: answered `{text}` is not 0 or 1; give 1 when the task has an answer, 0 when its output was missing or an error"
            ),
        )),
    }
}

/// `outcome` as `score` writes it: one of [`ScoredOutcome`]'s names.
fn parse_outcome(
    source: &str,
    line: u64,
    task_id: &str,
    text: &str,
) -> Result<ScoredOutcome, InputError> {
    let text = trim(text);
    ScoredOutcome::parse(text).ok_or_else(|| {
        let names: Vec<&str> = ScoredOutcome::ALL.iter().map(|o| o.name()).collect();
        InputError::invalid(
            source,
            line,
            format!(
                "task `{task_id}`: outcome `{text}` is not one of {}; give the grader's outcome, or rename a column of your own called `outcome`",
                names.join(", ")
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// A row as the tests see it: task, score, correct, stratum, group, feedback.
    type Plain = (
        String,
        f64,
        Option<bool>,
        Option<String>,
        Option<String>,
        Option<String>,
    );

    /// Every row in file order, tasks looked up in a map.
    #[derive(Default)]
    struct Rows {
        first: BTreeMap<String, u64>,
        rows: Vec<Plain>,
    }

    impl Sink for Rows {
        type Slot = String;
        fn claim(&mut self, task: &str, line: u64) -> Result<String, Refusal> {
            match self.first.insert(task.to_string(), line) {
                Some(earlier) => Err(Refusal::Repeat(earlier)),
                None => Ok(task.to_string()),
            }
        }
        fn fill(&mut self, task: String, v: &Values<'_>) {
            let own = |s: Option<&str>| s.map(str::to_string);
            self.rows.push((
                task,
                v.score,
                v.correct,
                own(v.stratum),
                own(v.group),
                own(v.feedback),
            ));
        }
    }

    fn read(text: &str) -> Result<(Shape, Rows), InputError> {
        let mut rows = Rows::default();
        let shape = read_scores("s.csv", text.as_bytes(), Some("kind"), &mut rows)?;
        Ok((shape, rows))
    }

    #[test]
    fn reads_scores_with_and_without_the_optional_columns() {
        let (shape, file) =
            read("task_id,kind,group,correct,score,feedback\na:id, id ,p,1,1,\"no, not\"\nb:id,id,p,-0,-0,\n").unwrap();
        assert!(shape.has_correct && shape.has_stratum);
        assert_eq!(shape.rows, 2);
        assert_eq!(file.rows[1].2, Some(false));
        assert_eq!(file.rows[1].1.to_bits(), 0.0_f64.to_bits());
        assert_eq!(file.rows[0].3.as_deref(), Some("id"));
        assert_eq!(file.rows[0].4.as_deref(), Some("p"));
        assert_eq!(file.rows[0].5.as_deref(), Some("no, not"));
        let (bare, file) = read("score,task_id\n0.5,a:id\n").unwrap();
        assert!(!bare.has_correct && !bare.has_stratum);
        assert_eq!(file.rows[0].2, None);
        assert_eq!(file.rows[0].5, None);
    }

    #[test]
    fn refuses_scores_outside_the_unit_interval_or_not_finite_naming_row_and_task() {
        for bad in ["1.4", "-0.1", "NaN", "inf", "high"] {
            let error = read(&format!("task_id,score\na:id,0.5\nb:id,{bad}\n"))
                .err()
                .unwrap();
            let text = error.to_string();
            assert!(text.contains("`s.csv` row 3"), "{text}");
            assert!(text.contains("`b:id`") && text.contains(bad), "{text}");
        }
    }

    #[test]
    fn reads_the_answered_column_as_0_1_true_or_false_and_refuses_anything_else() {
        let mut answered = Vec::new();
        let mut sink = Rows::default();
        let shape = read_scores(
            "s.csv",
            "task_id,score,answered\na,0,0\nb,1,1\nc,0, FALSE \nd,1,true\n".as_bytes(),
            None,
            &mut Answered(&mut sink, &mut answered),
        )
        .unwrap();
        assert!(shape.has_answered);
        assert_eq!(answered, [false, true, false, true]);
        let (bare, _) = read("task_id,score\na,1\n").unwrap();
        assert!(!bare.has_answered);
        let error = read("task_id,score,answered\na,1,1\nb,0,0.5\n")
            .err()
            .unwrap();
        let text = error.to_string();
        assert!(
            text.contains("`s.csv` row 3: task `b`: answered `0.5` is not 0 or 1"),
            "{text}"
        );
    }

    /// [`Rows`] that also keeps every row's `answered`.
    struct Answered<'a>(&'a mut Rows, &'a mut Vec<bool>);

    impl Sink for Answered<'_> {
        type Slot = String;
        fn claim(&mut self, task: &str, line: u64) -> Result<String, Refusal> {
            self.0.claim(task, line)
        }
        fn fill(&mut self, task: String, v: &Values<'_>) {
            self.1.push(v.answered.expect("the file has the column"));
            self.0.fill(task, v);
        }
    }

    #[test]
    fn refuses_a_correct_value_that_is_not_zero_or_one() {
        let error = read("task_id,correct,score\na:id,0.5,0.5\n").err().unwrap();
        assert!(error.to_string().contains("correct `0.5` is not 0 or 1"));
    }

    #[test]
    fn names_both_rows_of_a_duplicated_task() {
        let error = read("task_id,score\na:id,1\nb:id,0\n a:id ,0\n")
            .err()
            .unwrap();
        assert!(
            error
                .to_string()
                .contains("`a:id` appears twice (rows 2 and 4)"),
            "{error}"
        );
    }

    #[test]
    fn a_malformed_row_further_down_is_reported_before_an_earlier_bad_score() {
        let error = read("task_id,score\na:id,1.4\nb:id\n").err().unwrap();
        assert!(
            matches!(error, InputError::Ragged { line: 3, .. }),
            "{error}"
        );
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
            (
                "task_id,score\na,1\na,x\n",
                "`a` appears twice (rows 2 and 3)",
            ),
        ] {
            let error = read(text).err().unwrap();
            assert!(error.to_string().contains(wanted), "{text:?}: {error}");
        }
    }

    #[test]
    fn the_quick_trim_and_number_paths_agree_with_the_standard_ones() {
        for text in [
            "a",
            " a",
            "a ",
            "\u{a0}a",
            "a\u{2003}",
            "",
            " ",
            "\t0\n",
            "é",
            "aé",
            "0",
            "1",
            "-0",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
        for text in ["0", "1", " 1 ", "-0", "0.5", "1.0", "1e0"] {
            let parsed: f64 = text.trim().parse().unwrap();
            let ours = parse_score("s.csv", 2, "t", text).unwrap();
            assert_eq!(ours.to_bits(), (parsed + 0.0).to_bits(), "{text:?}");
        }
        assert_eq!(parse_correct("s.csv", 2, "t", "1.0"), Ok(true));
        assert_eq!(parse_correct("s.csv", 2, "t", "0"), Ok(false));
        assert!(parse_correct("s.csv", 2, "t", "01x").is_err());
    }

    #[test]
    fn requires_task_id_and_score_columns_and_a_task_in_every_row() {
        assert!(matches!(
            read("task_id,correct\na,1\n"),
            Err(InputError::MissingColumn { .. })
        ));
        assert!(matches!(
            read("task_id,score\n"),
            Err(InputError::NoRows { .. })
        ));
        assert!(read("task_id,score\n ,1\n").is_err());
    }
}
