//! A CSV table read into memory with every row's line number, so that every later
//! error can name the file and the row. Columns are found by name; a UTF-8 BOM is
//! accepted; invalid UTF-8, ragged rows and duplicated column names are errors.
//!
//! One reader in production: the hand scanner ([`scan::RowScanner`], read ahead on a
//! thread by `ahead::RowsAhead`) reads every CSV input (truth, tasks, claims, split
//! inputs, outputs, scores); [`Table::parse`] is the scanner collected. Why not the
//! `csv` crate, measured on 10^6-row inputs (`examples/reader_race.rs`, median of 7
//! alternating rounds; `reports/bench.md`): its bare `ByteRecord` loop runs at
//! 0.95–1.09 times the scanner's time, but it counts lines only at `\n` and takes an
//! input that ends inside a quoted field as one long last field without a word; the
//! `csv` crate wrapped with the checks the tool needs (lines as the tool names them,
//! UTF-8 per field) takes 1.19–1.40 times the scanner's time and still cannot name the
//! row of an unclosed quote. That wrapped reader stays as the scanner's test oracle,
//! `naive::NaiveRowReader`, compiled only for tests.

use std::io::Read;
use std::path::Path;

use crate::error::InputError;

pub(crate) mod ahead;
#[cfg(test)]
pub(crate) mod chunks;
mod lean;
#[cfg(test)]
pub(crate) mod naive;
pub mod scan;

/// One data row of a [`Table`], with the 1-based line of the file it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number of the row in its file (the header is line 1).
    pub line: u64,
    /// The row's fields, in the order of the header.
    pub fields: Vec<String>,
}

/// A whole CSV file: its name as the user gave it, its header and its rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The file's path as given on the command line (never made absolute).
    pub source: String,
    /// Column names, BOM and surrounding whitespace removed.
    pub headers: Vec<String>,
    /// Data rows in file order.
    pub rows: Vec<Row>,
}

impl Table {
    /// Parses CSV bytes. `source` names the file in error messages.
    pub fn parse(source: &str, bytes: &[u8]) -> Result<Table, InputError> {
        scan::scan_table(source, bytes)
    }

    /// Reads and parses a CSV file; `path` is kept as given for messages. A file
    /// larger than [`MAX_WHOLE_BYTES`] is refused.
    pub fn read(path: &Path) -> Result<Table, InputError> {
        let source = path.display().to_string();
        let bytes = read_whole(path)?;
        Table::parse(&source, &bytes)
    }

    /// The index of a column, or `None` when the file has no such column.
    pub fn column(&self, name: &str) -> Option<usize> {
        column(&self.headers, name)
    }

    /// The index of a column the caller cannot do without.
    pub fn require(&self, name: &str) -> Result<usize, InputError> {
        require(&self.source, &self.headers, name)
    }

    /// Fails with [`InputError::NoRows`] when the file has a header and nothing else.
    pub fn require_rows(&self) -> Result<(), InputError> {
        if self.rows.is_empty() {
            return Err(InputError::NoRows {
                file: self.source.clone(),
            });
        }
        Ok(())
    }
}

/// The most bytes a file read whole may hold: memory stays bounded on any input
/// (`/dev/zero` included), and a larger file is refused with its name.
pub const MAX_WHOLE_BYTES: u64 = 1 << 30;

/// An input opened again, from its start, for a second reading (to name a repeated
/// task, or to read a manifest a second way).
pub(crate) type Reopen<'a> = &'a (dyn Fn() -> std::io::Result<Box<dyn Read + Send>> + Sync);

/// Opens an input file to be read as a stream, naming it in the error: the one place
/// an input file is opened. A stream's rows and lines are capped by their readers; a
/// file read whole goes through [`read_whole`].
pub fn open_input(path: &Path) -> Result<std::fs::File, InputError> {
    std::fs::File::open(path).map_err(|error| InputError::Io {
        file: path.display().to_string(),
        message: error.to_string(),
    })
}

/// The bytes of a file read whole, at most [`MAX_WHOLE_BYTES`] of them.
pub fn read_whole(path: &Path) -> Result<Vec<u8>, InputError> {
    read_capped(
        &path.display().to_string(),
        open_input(path)?,
        MAX_WHOLE_BYTES,
    )
}

/// At most `limit` bytes of `input`: more is [`InputError::TooLarge`].
pub fn read_capped(source: &str, input: impl Read, limit: u64) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    input
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|error| InputError::Io {
            file: source.to_string(),
            message: error.to_string(),
        })?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge {
            file: source.to_string(),
            limit_mib: limit >> 20,
        });
    }
    Ok(bytes)
}

/// The one capped line reader, for every input read a line at a time (JSON Lines
/// outputs, `grade --jsonl` requests, the ledger, eval logs): the bytes up to and
/// including the next `\n` (or the end of the input) are appended to `line`, and how
/// many were consumed is returned, 0 at the end. Once `line` holds more than `limit`
/// bytes it stops there, so the caller sees `line.len() > limit` and refuses the line
/// with its name and number ([`InputError::RowTooLong`]) instead of holding an
/// endless one (`/dev/zero`) in memory. The line end is found with the `memchr`
/// crate's vector search; an interrupted read is retried.
pub fn read_line_capped(
    reader: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<usize> {
    let mut read = 0;
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let (taken, done) = match memchr::memchr(b'\n', buffer) {
            Some(end) => (end + 1, true),
            None => (buffer.len(), buffer.is_empty()),
        };
        line.extend_from_slice(&buffer[..taken]);
        reader.consume(taken);
        read += taken;
        if done || line.len() > limit {
            return Ok(read);
        }
    }
}

/// A header's column names, each trimmed; a name given twice is an error (the first
/// name repeated, found in one pass, so a header of 100,000 columns costs no more than
/// its bytes).
pub(crate) fn header_names<'a>(
    source: &str,
    fields: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>, InputError> {
    let headers: Vec<String> = fields.map(|h| h.trim().to_string()).collect();
    let mut seen = std::collections::HashSet::with_capacity(headers.len());
    for name in &headers {
        if !seen.insert(name.as_str()) {
            return Err(InputError::DuplicateColumn {
                file: source.to_string(),
                column: name.clone(),
            });
        }
    }
    Ok(headers)
}

/// `field.trim()`, answered from its two end bytes when neither is whitespace (a
/// field's usual case): `str::trim` decodes a character at each end and asks whether
/// it is Unicode whitespace, which costs more than the rest of looking up a short id.
/// An ASCII end byte that is not whitespace is a whole character that is not.
pub fn trim_field(field: &str) -> &str {
    let bytes = field.as_bytes();
    // Not `u8::is_ascii_whitespace`, which leaves out the vertical tab.
    let plain = |byte: &u8| byte.is_ascii() && !char::from(*byte).is_whitespace();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if plain(first) && plain(last) => field,
        _ => field.trim(),
    }
}

/// The index of column `name` in `headers`.
pub fn column(headers: &[String], name: &str) -> Option<usize> {
    headers.iter().position(|h| h == name)
}

/// The index of a column the caller cannot do without, or the error naming the file's
/// columns.
pub fn require(source: &str, headers: &[String], name: &str) -> Result<usize, InputError> {
    column(headers, name).ok_or_else(|| InputError::MissingColumn {
        file: source.to_string(),
        column: name.to_string(),
        found: headers.join(","),
    })
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn trim_field_is_trim(field in "[ \t\r\n\x0b\x0c\x1c\x1f\u{85}\u{a0}\u{2003}\u{3000}a-c1é,\u{1f600}]{0,6}") {
            proptest::prop_assert_eq!(trim_field(&field), field.trim());
        }
    }

    #[test]
    fn trim_field_drops_unicode_whitespace_at_either_end() {
        assert_eq!(trim_field("\u{a0}id\u{3000}"), "id");
        assert_eq!(trim_field(" 1706.03762:id"), "1706.03762:id");
        assert_eq!(trim_field("1706.03762:id\u{85}"), "1706.03762:id");
        assert_eq!(trim_field("\x0c"), "");
        assert_eq!(trim_field("\x0bid\x0b"), "id");
        assert_eq!(trim_field("\x1f"), "\x1f");
        assert_eq!(trim_field("x"), "x");
    }

    use super::chunks::Chunks;
    use super::naive::NaiveRowReader as RowReader;
    use super::*;

    #[test]
    fn accepts_bom_and_crlf_and_finds_columns_by_name() {
        let table = Table::parse("t.csv", b"\xEF\xBB\xBFb,a\r\n1,2\r\n3,4\r\n").unwrap();
        assert_eq!(table.headers, ["b", "a"]);
        assert_eq!(table.column("a"), Some(1));
        assert_eq!(table.rows[1].fields, ["3", "4"]);
        assert_eq!(table.rows[1].line, 3);
    }

    #[test]
    fn names_the_line_of_a_ragged_row() {
        let error = Table::parse("t.csv", b"a,b\n1,2\n3\n").unwrap_err();
        assert!(error.to_string().contains("`t.csv` row 3"), "{error}");
    }

    #[test]
    fn refuses_invalid_utf8_with_its_row_and_column() {
        let error = Table::parse("t.csv", b"a,b\n1,\xff\n").unwrap_err();
        assert!(error.to_string().contains("row 2, column 2"), "{error}");
    }

    #[test]
    fn names_the_row_and_column_of_invalid_utf8_after_blank_lines_and_quoted_breaks() {
        let bytes = b"a,b\r\n\r\n1,\"x\r\ny\"\r\n\n3,\xff\n";
        let expected = "`t.csv` row 6, column 2: not valid UTF-8; save the file as UTF-8";
        let error = Table::parse("t.csv", bytes).unwrap_err();
        assert_eq!(error.to_string(), expected);
        let mut reader = RowReader::new("t.csv", Chunks { bytes, size: 1 }).unwrap();
        assert_eq!(reader.next_row().unwrap().map(|row| row.line), Some(3));
        let error = reader.next_row().err().expect("the bad row");
        assert_eq!(error.to_string(), expected);
    }

    #[test]
    fn refuses_duplicated_columns_and_empty_files() {
        assert!(matches!(
            Table::parse("t.csv", b"a,a\n1,2\n"),
            Err(InputError::DuplicateColumn { .. })
        ));
        assert!(matches!(
            Table::parse("t.csv", b""),
            Err(InputError::Empty { .. })
        ));
    }

    #[test]
    fn a_stream_read_a_byte_at_a_time_gives_the_rows_and_lines_of_the_whole_file() {
        let bytes = b"\xEF\xBB\xBFa,b\r\n1,\"x\r\ny\"\r\n3,4\r\n5,6\n7,8\r\n";
        let table = Table::parse("t.csv", bytes).unwrap();
        let lines: Vec<u64> = table.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 4, 5, 6]);
        let mut reader = RowReader::new("t.csv", Chunks { bytes, size: 1 }).unwrap();
        assert_eq!(reader.headers(), ["a", "b"]);
        for row in &table.rows {
            let next = reader.next_row().unwrap().expect("as many rows");
            assert_eq!(next.line, row.line);
            assert_eq!(
                [next.field(0), next.field(1)],
                [&row.fields[0], &row.fields[1]]
            );
        }
        assert!(reader.next_row().unwrap().is_none());
        let mut blank = RowReader::new(
            "t.csv",
            Chunks {
                bytes: b"\xEF\xBB\xBF \r\n\t\n",
                size: 1,
            },
        )
        .unwrap();
        // The header ` ` and the row `\t` come out before the end shows the file blank.
        assert!(blank.next_row().unwrap().is_some());
        assert!(matches!(blank.next_row(), Err(InputError::Empty { .. })));
        let nothing = RowReader::new(
            "t.csv",
            Chunks {
                bytes: b"\xEF\xBB\xBF",
                size: 1,
            },
        );
        assert!(matches!(nothing, Err(InputError::Empty { .. })));
    }

    #[test]
    fn names_the_rows_of_a_file_with_carriage_return_line_ends() {
        let table = Table::parse("t.csv", b"a,b\r1,2\r3,4\r").unwrap();
        let lines: Vec<u64> = table.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3]);
        let error = Table::parse("t.csv", b"a,b\r1,2\r\r3\r").unwrap_err();
        assert!(error.to_string().contains("`t.csv` row 4"), "{error}");
    }

    /// Found by `cargo fuzz run csv_table`: a lone `\r` ending row 2 made rows 2 and 3
    /// both claim line 2.
    #[test]
    fn a_lone_carriage_return_does_not_repeat_a_row_number() {
        let bytes = include_bytes!("../tests/fuzz-regressions/csv-table-lone-cr.csv");
        let table = Table::parse("t.csv", bytes).unwrap();
        let lines: Vec<u64> = table.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 3, 4]);
        assert_eq!(table.rows[1].fields[0], "\u{feff}group");
    }

    /// Regression: a row after a blank line was named one line early, because the parser
    /// reports a record's position before the blank lines it skips.
    #[test]
    fn rows_after_blank_lines_and_quoted_line_breaks_keep_their_lines() {
        let table =
            Table::parse("t.csv", b"a,b\r\n1,\"x\r\ny\"\r\n\r\n3,4\n\n\n5,6\r\r7,8\n").unwrap();
        let lines: Vec<u64> = table.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 5, 8, 10]);
        // The same file read a byte at a time, so every line end meets a buffer's edge.
        let bytes = b"a,b\r\n1,2\r\r\n3,4\r";
        let mut reader = RowReader::new(
            "t.csv",
            Chunks {
                bytes: &bytes[..],
                size: 1,
            },
        )
        .unwrap();
        let mut lines = Vec::new();
        while let Some(row) = reader.next_row().unwrap() {
            lines.push(row.line);
        }
        assert_eq!(lines, [2, 4]);
    }

    #[test]
    fn a_file_read_whole_is_refused_past_its_limit_and_read_up_to_it() {
        let endless = std::io::repeat(0).take(u64::MAX);
        let error = read_capped("/dev/zero", endless, 1 << 20).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`/dev/zero`: larger than 1 MiB, more than evogate reads whole; check that this is the right file"
        );
        let exact = read_capped("f", &[7u8; 1 << 20][..], 1 << 20).unwrap();
        assert_eq!(exact.len(), 1 << 20);
    }

    #[test]
    fn the_capped_line_reader_stops_an_endless_line_just_past_its_limit() {
        let mut endless = std::io::BufReader::new(std::io::repeat(0).take(u64::MAX));
        let mut line = Vec::new();
        let read = read_line_capped(&mut endless, &mut line, 1 << 20).unwrap();
        // One buffer's worth past the limit at most.
        assert!(
            line.len() > 1 << 20 && line.len() <= (1 << 20) + 8192,
            "{}",
            line.len()
        );
        assert_eq!(read, line.len());
        let mut lines = &b"ab\ncd"[..];
        let mut line = Vec::new();
        assert_eq!(read_line_capped(&mut lines, &mut line, 10).unwrap(), 3);
        assert_eq!(line, b"ab\n");
        line.clear();
        assert_eq!(read_line_capped(&mut lines, &mut line, 10).unwrap(), 2);
        assert_eq!(line, b"cd");
        line.clear();
        assert_eq!(read_line_capped(&mut lines, &mut line, 10).unwrap(), 0);
    }

    #[test]
    fn an_endless_row_is_refused_at_the_row_cap_by_the_csv_reader_too() {
        let endless = std::io::Cursor::new(b"a,b\n1,2\n".to_vec()).chain(std::io::repeat(b'x'));
        let mut reader = RowReader::new("z.csv", endless).unwrap();
        assert_eq!(reader.next_row().unwrap().map(|row| row.line), Some(2));
        let error = reader.next_row().err().expect("refused");
        assert_eq!(
            error.to_string(),
            "`z.csv` row 3: the row is longer than 64 MiB, more than evogate reads as one row; check that this is the right file"
        );
    }

    #[test]
    fn a_header_of_100_000_columns_names_the_one_given_twice() {
        let mut header: Vec<String> = (0..100_000).map(|i| format!("c{i}")).collect();
        header.push("c7".to_string());
        let error = Table::parse("w.csv", header.join(",").as_bytes()).unwrap_err();
        assert_eq!(
            error,
            InputError::DuplicateColumn {
                file: "w.csv".into(),
                column: "c7".into()
            }
        );
    }

    #[test]
    fn keeps_quoted_commas_and_newlines_inside_one_field() {
        let table = Table::parse("t.csv", b"a,b\n\"x,\ny\",2\n").unwrap();
        assert_eq!(table.rows[0].fields[0], "x,\ny");
    }
}
