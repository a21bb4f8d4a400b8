//! Reading a ledger: one compact JSON [`Record`] per line, each line ending in `\n`.
//! Every record is checked on its own and as the next attempt of its holdout's stream,
//! so a ledger that parses is one whose alpha accounting can be trusted.

use super::{Record, Streams};
use crate::error::InputError;

/// A ledger as read: its complete records, and how its last line ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Ledger {
    /// Every complete record, in file order.
    pub records: Vec<Record>,
    /// What follows the last `\n`.
    pub tail: Tail,
}

/// What follows the last `\n` of a ledger.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {
    /// Nothing: every record ends with its `\n`.
    Clean,
    /// A whole, valid record without its `\n` (kept; the next append adds the `\n`).
    Unterminated,
    /// Part of a record, left by an append cut short: skipped when reading, cut off by
    /// the next append.
    Torn {
        /// The 1-based line it is on.
        row: u64,
        /// The byte offset at which it starts.
        start: usize,
    },
}

impl Tail {
    /// The warning to print for a torn last record of the ledger `source`, if any.
    pub fn warning(&self, source: &str) -> Option<String> {
        match self {
            Tail::Torn { row, .. } => Some(format!(
                "`{source}` row {row}: an append was cut short there; that partial record \
                 is skipped, and the next attempt recorded removes it"
            )),
            Tail::Clean | Tail::Unterminated => None,
        }
    }
}

/// The records of the ledger `text` read from `source` (the path as the user gave it);
/// [`read_ledger`] without the tail.
pub fn parse_ledger(source: &str, text: &str) -> Result<Vec<Record>, InputError> {
    read_ledger(source, text).map(|ledger| ledger.records)
}

/// Reads the ledger `text` read from `source` (the path as the user gave it).
///
/// An empty text is an empty ledger. A last line without its `\n` is an append cut
/// short: skipped and reported in [`Ledger::tail`] (kept, when it is a whole valid
/// record). Errors name the 1-based line: a line that is not a record, a blank line, or
/// a record that does not continue its holdout's stream (attempt numbers 1, 2, 3, ...
/// in file order, one declared alpha, each alpha as `super::spending` makes it, and
/// later looks only of open attempts, each holding more pairs).
/// Time: O(lines).
pub fn read_ledger(source: &str, text: &str) -> Result<Ledger, InputError> {
    let mut records = Vec::new();
    let mut tail = Tail::Clean;
    let mut start = 0;
    let mut streams = Streams::default();
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((index, line)) = lines.next() {
        let number = index as u64 + 1;
        let line_start = start;
        start += line.len() + 1;
        let last = lines.peek().is_none();
        if last && line.is_empty() {
            break;
        }
        if last {
            let whole = serde_json::from_str::<Record>(line)
                .ok()
                .filter(|r| r.check().is_ok());
            let continues = whole
                .as_ref()
                .is_some_and(|record| streams.check(record).is_ok());
            match whole {
                Some(record) if continues => {
                    records.push(record);
                    tail = Tail::Unterminated;
                }
                _ => {
                    tail = Tail::Torn {
                        row: number,
                        start: line_start,
                    }
                }
            }
            break;
        }
        if line.trim().is_empty() {
            return Err(InputError::invalid(
                source,
                number,
                "blank line; a ledger holds one JSON record on every line",
            ));
        }
        let record: Record = serde_json::from_str(line).map_err(|e| {
            let reason = e.to_string().replace(" at line 1 column ", " at column ");
            InputError::invalid(source, number, format!("not a ledger record: {reason}"))
        })?;
        record
            .check()
            .map_err(|message| InputError::invalid(source, number, message))?;
        streams
            .check(&record)
            .map_err(|message| InputError::invalid(source, number, message))?;
        streams.push(&record);
        records.push(record);
    }
    Ok(Ledger { records, tail })
}

#[cfg(test)]
mod tests {
    use super::super::attempt::tests::record;
    use super::*;

    fn line(record: &Record) -> String {
        format!("{}\n", serde_json::to_string(record).unwrap())
    }

    fn error_of(text: &str) -> String {
        parse_ledger("ledger.jsonl", text).unwrap_err().to_string()
    }

    #[test]
    fn an_empty_file_is_an_empty_ledger() {
        assert_eq!(parse_ledger("ledger.jsonl", ""), Ok(Vec::new()));
    }

    #[test]
    fn reads_back_what_it_wrote_with_two_holdouts_interleaved() {
        let records = vec![
            record("a", 1, 0.05),
            record("b", 1, 0.01),
            record("a", 2, 0.05),
        ];
        let text: String = records.iter().map(line).collect();
        assert_eq!(parse_ledger("ledger.jsonl", &text), Ok(records));
    }

    #[test]
    fn names_the_line_that_is_not_json() {
        let text = format!("{}{{\"schema\":\n", line(&record("a", 1, 0.05)));
        let error = error_of(&text);
        assert!(
            error.starts_with("`ledger.jsonl` row 2: not a ledger record"),
            "{error}"
        );
    }

    #[test]
    fn names_a_missing_field_and_an_unknown_one() {
        let mut value = serde_json::to_value(record("a", 1, 0.05)).unwrap();
        value.as_object_mut().unwrap().remove("n");
        let error = error_of(&format!("{value}\n"));
        assert!(
            error.contains("row 1") && error.contains("missing field `n`"),
            "{error}"
        );
        let mut value = serde_json::to_value(record("a", 1, 0.05)).unwrap();
        value["timestamp"] = serde_json::json!("2024-01-01");
        let error = error_of(&format!("{value}\n"));
        assert!(error.contains("unknown field `timestamp`"), "{error}");
    }

    #[test]
    fn skips_a_last_line_cut_short_naming_its_row_and_refuses_a_blank_line() {
        let first = line(&record("a", 1, 0.05));
        let second = line(&record("a", 2, 0.05));
        let text = format!("{first}{}", &second[..second.len() - 10]);
        let ledger = read_ledger("ledger.jsonl", &text).unwrap();
        assert_eq!(ledger.records, vec![record("a", 1, 0.05)]);
        assert_eq!(
            ledger.tail,
            Tail::Torn {
                row: 2,
                start: first.len()
            }
        );
        let warning = ledger.tail.warning("ledger.jsonl").unwrap();
        assert!(warning.contains("`ledger.jsonl` row 2"), "{warning}");
        // A whole record that lacks only its newline is kept.
        let ledger = read_ledger("ledger.jsonl", &text[..first.len() - 1]).unwrap();
        assert_eq!((ledger.records.len(), ledger.tail), (1, Tail::Unterminated));
        let whole = first;
        let error = error_of(&format!("{whole}\n"));
        assert!(error.contains("row 2: blank line"), "{error}");
    }

    #[test]
    fn refuses_a_skipped_or_repeated_attempt_number() {
        let text = format!(
            "{}{}",
            line(&record("a", 1, 0.05)),
            line(&record("a", 3, 0.05))
        );
        let error = error_of(&text);
        assert!(
            error.contains("row 2") && error.contains("should be attempt 2"),
            "{error}"
        );
        let text = format!(
            "{}{}",
            line(&record("a", 1, 0.05)),
            line(&record("a", 1, 0.05))
        );
        assert!(error_of(&text).contains("should be attempt 2"));
    }

    #[test]
    fn refuses_a_changed_declared_alpha_and_an_alpha_off_the_rule() {
        let text = format!(
            "{}{}",
            line(&record("a", 1, 0.05)),
            line(&record("a", 2, 0.1))
        );
        let error = error_of(&text);
        assert!(
            error.contains("row 2") && error.contains("differs from the 0.05"),
            "{error}"
        );
        let mut greedy = record("a", 1, 0.05);
        greedy.alpha_this_attempt = 0.05;
        let error = error_of(&line(&greedy));
        assert!(
            error.contains("`alpha_this_attempt` 0.05 is not the rule's"),
            "{error}"
        );
    }

    #[test]
    fn refuses_fields_out_of_range() {
        type Spoil = fn(&mut Record);
        let cases: [(Spoil, &str); 5] = [
            (|r| r.schema = "evogate/ledger/v0".into(), "schema"),
            (
                |r| r.candidate_sha256 = "abc".into(),
                "`candidate_sha256` `abc`",
            ),
            (|r| r.p_improvement = 1.5, "`p_improvement` 1.5"),
            (|r| r.n = 0, "`n` is 0"),
            (|r| r.attempt = 0, "`attempt` is 0"),
        ];
        for (spoil, needle) in cases {
            let mut spoilt = record("a", 1, 0.05);
            spoil(&mut spoilt);
            let error = error_of(&line(&spoilt));
            assert!(error.contains("row 1") && error.contains(needle), "{error}");
        }
        // JSON has no NaN: a null where a number belongs is a parse error, not a NaN.
        let text =
            line(&record("a", 1, 0.05)).replace("\"p_improvement\":0.5", "\"p_improvement\":null");
        assert!(error_of(&text).contains("not a ledger record"));
    }
}
