//! A CSV table read into memory with every row's line number, so that every later
//! error can name the file and the row. Columns are found by name; a UTF-8 BOM is
//! accepted; invalid UTF-8, ragged rows and duplicated column names are errors.

use std::path::Path;

use crate::error::InputError;

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
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(InputError::Empty {
                file: source.to_string(),
            });
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut headers = Vec::new();
        let mut rows = Vec::new();
        let mut first = true;
        let mut lines = LineCounter::default();
        for next in reader.byte_records() {
            let record = next.map_err(|error| csv_error(source, bytes, &error))?;
            let line = lines.start_line(bytes, record.position());
            let fields = record
                .iter()
                .enumerate()
                .map(|(index, field)| {
                    String::from_utf8(field.to_vec()).map_err(|_| InputError::Utf8 {
                        file: source.to_string(),
                        line,
                        column: index + 1,
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if first {
                first = false;
                headers = fields.into_iter().map(|h| h.trim().to_string()).collect();
                for (index, name) in headers.iter().enumerate() {
                    if headers[..index].contains(name) {
                        return Err(InputError::DuplicateColumn {
                            file: source.to_string(),
                            column: name.clone(),
                        });
                    }
                }
                continue;
            }
            if fields.len() == 1 && fields[0].is_empty() {
                continue;
            }
            if fields.len() != headers.len() {
                return Err(InputError::Ragged {
                    file: source.to_string(),
                    line,
                    found: fields.len(),
                    expected: headers.len(),
                });
            }
            rows.push(Row { line, fields });
        }
        Ok(Table {
            source: source.to_string(),
            headers,
            rows,
        })
    }

    /// Reads and parses a CSV file; `path` is kept as given for messages.
    pub fn read(path: &Path) -> Result<Table, InputError> {
        let source = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|error| InputError::Io {
            file: source.clone(),
            message: error.to_string(),
        })?;
        Table::parse(&source, &bytes)
    }

    /// The index of a column, or `None` when the file has no such column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers.iter().position(|h| h == name)
    }

    /// The index of a column the caller cannot do without.
    pub fn require(&self, name: &str) -> Result<usize, InputError> {
        self.column(name).ok_or_else(|| InputError::MissingColumn {
            file: self.source.clone(),
            column: name.to_string(),
            found: self.headers.join(","),
        })
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

/// Counts lines as the CSV parser ends records: `\n`, `\r\n` and a lone `\r` each end
/// one, so a file saved with classic Mac line ends (as Excel for Mac still offers)
/// names its rows correctly. The parser's own line count sees only `\n`.
#[derive(Debug, Default)]
struct LineCounter {
    /// Bytes before this offset are counted.
    counted: usize,
    /// Line ends among them.
    ends: u64,
}

impl LineCounter {
    /// The 1-based line a record starts on. The parser reports the position just after
    /// the previous record's terminator; blank lines after it (including the `\n` of a
    /// CRLF) are skipped, as the parser skips them. Positions only grow, so the whole
    /// file is scanned once.
    fn start_line(&mut self, bytes: &[u8], position: Option<&csv::Position>) -> u64 {
        let Some(position) = position else {
            return 0;
        };
        let byte = usize::try_from(position.byte())
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let blank = bytes[byte..]
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        let start = byte + blank;
        if start > self.counted {
            self.ends += line_ends(&bytes[self.counted..start], bytes.get(start));
            self.counted = start;
        }
        1 + self.ends
    }
}

/// The line ends in `chunk`, whose next byte in the file is `after`.
fn line_ends(chunk: &[u8], after: Option<&u8>) -> u64 {
    let ends = chunk.iter().enumerate().filter(|&(index, &byte)| {
        let next = chunk.get(index + 1).or(after);
        byte == b'\n' || (byte == b'\r' && next != Some(&b'\n'))
    });
    ends.count() as u64
}

fn csv_error(source: &str, bytes: &[u8], error: &csv::Error) -> InputError {
    let line = error
        .position()
        .map_or(0, |p| LineCounter::default().start_line(bytes, Some(p)));
    InputError::Csv {
        file: source.to_string(),
        line,
        message: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn keeps_quoted_commas_and_newlines_inside_one_field() {
        let table = Table::parse("t.csv", b"a,b\n\"x,\ny\",2\n").unwrap();
        assert_eq!(table.rows[0].fields[0], "x,\ny");
    }
}
