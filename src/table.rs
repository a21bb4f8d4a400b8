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
        for next in reader.byte_records() {
            let record = next.map_err(|error| csv_error(source, &error))?;
            let line = start_line(bytes, record.position());
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

/// The line a record starts on. The parser reports the position just after the
/// previous terminator, which for CRLF files is the `\n` still on the previous line.
fn start_line(bytes: &[u8], position: Option<&csv::Position>) -> u64 {
    position.map_or(0, |p| {
        let byte = usize::try_from(p.byte()).unwrap_or(usize::MAX);
        p.line() + u64::from(bytes.get(byte) == Some(&b'\n'))
    })
}

fn csv_error(source: &str, error: &csv::Error) -> InputError {
    let line = error.position().map_or(0, |p| p.line());
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
    fn keeps_quoted_commas_and_newlines_inside_one_field() {
        let table = Table::parse("t.csv", b"a,b\n\"x,\ny\",2\n").unwrap();
        assert_eq!(table.rows[0].fields[0], "x,\ny");
    }
}
