//! Scores files as `admit` reads them: `task_id` and `score` are required; `correct`,
//! `group`, `feedback` and the strata column are used when present. Every value is
//! checked once here (score finite and in [0, 1], `correct` 0 or 1, one row per task),
//! so the admission core can trust what it is given.

use std::collections::BTreeMap;

use crate::error::InputError;
use crate::table::Table;

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
    /// The value of the strata column, when the file has it.
    pub stratum: Option<String>,
    /// The task's group (paper), when the file has a `group` column.
    pub group: Option<String>,
    /// The grader's one-line feedback, when the file has a `feedback` column.
    pub feedback: Option<String>,
}

/// A whole scores file, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoreFile {
    /// The path as given, for messages and reports.
    pub source: String,
    /// Rows in file order.
    pub rows: Vec<ScoreRow>,
    /// Whether the file has a `correct` column.
    pub has_correct: bool,
    /// Whether the file has the strata column that was asked for.
    pub has_stratum: bool,
}

/// Reads a scores table. `strata` names the column whose values are the strata; the
/// column is optional here (the pairing decides whether its absence is an error).
pub fn read_scores(table: &Table, strata: Option<&str>) -> Result<ScoreFile, InputError> {
    let id = table.require("task_id")?;
    let score = table.require("score")?;
    table.require_rows()?;
    let correct = table.column("correct");
    let stratum = strata.and_then(|name| table.column(name));
    let group = table.column("group");
    let feedback = table.column("feedback");
    let source = table.source.as_str();
    let mut first_row: BTreeMap<&str, u64> = BTreeMap::new();
    let mut rows = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let task_id = row.fields[id].trim();
        if task_id.is_empty() {
            return Err(InputError::invalid(
                source,
                row.line,
                "empty task_id; every row needs the task it scores",
            ));
        }
        if let Some(first) = first_row.insert(task_id, row.line) {
            return Err(InputError::invalid(
                source,
                row.line,
                format!(
                    "task `{task_id}` appears twice (rows {first} and {}); keep one row per task",
                    row.line
                ),
            ));
        }
        let value = parse_score(source, row.line, task_id, &row.fields[score])?;
        let correct = match correct {
            Some(column) => Some(parse_correct(
                source,
                row.line,
                task_id,
                &row.fields[column],
            )?),
            None => None,
        };
        rows.push(ScoreRow {
            line: row.line,
            task_id: task_id.to_string(),
            score: value,
            correct,
            stratum: stratum.map(|c| row.fields[c].trim().to_string()),
            group: group.map(|c| row.fields[c].trim().to_string()),
            feedback: feedback.map(|c| row.fields[c].clone()),
        });
    }
    Ok(ScoreFile {
        source: source.to_string(),
        rows,
        has_correct: correct.is_some(),
        has_stratum: stratum.is_some(),
    })
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
    fn requires_task_id_and_score_columns_and_a_task_in_every_row() {
        assert!(matches!(
            read("task_id,correct\na,1\n"),
            Err(InputError::MissingColumn { .. })
        ));
        assert!(read("task_id,score\n ,1\n").is_err());
    }
}
