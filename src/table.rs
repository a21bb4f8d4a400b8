//! A CSV table read into memory with every row's line number, so that every later
//! error can name the file and the row, and the streaming [`RowReader`] underneath it
//! for files too large to hold. Columns are found by name; a UTF-8 BOM is accepted;
//! invalid UTF-8, ragged rows and duplicated column names are errors.

use std::collections::VecDeque;
use std::io::Read;
use std::path::Path;

use crate::error::InputError;

pub mod ahead;
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
        let mut reader = RowReader::new(source, bytes)?;
        let mut rows = Vec::new();
        while let Some(row) = reader.next_row()? {
            let fields = (0..row.len()).map(|i| row.field(i).to_string()).collect();
            rows.push(Row {
                line: row.line,
                fields,
            });
        }
        Ok(Table {
            source: source.to_string(),
            headers: reader.headers,
            rows,
        })
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

/// The bytes of a file read whole, at most [`MAX_WHOLE_BYTES`] of them.
pub fn read_whole(path: &Path) -> Result<Vec<u8>, InputError> {
    let source = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|error| InputError::Io {
        file: source.clone(),
        message: error.to_string(),
    })?;
    read_capped(&source, file, MAX_WHOLE_BYTES)
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

/// A CSV stream read one row at a time into one reused record, with the same checks and
/// messages as [`Table::parse`]: a reader of a million-row file holds one row, not the
/// file. Every field is checked to be UTF-8, so [`RowRef::field`] is a plain `&str`.
///
/// A file of nothing but whitespace is [`InputError::Empty`]; that is known only at its
/// end, and no other error can come first from such a file, so it is reported by the
/// [`RowReader::next_row`] that reaches the end.
pub struct RowReader<R: Read> {
    source: String,
    reader: csv::Reader<Tracked<R>>,
    headers: Vec<String>,
    /// The last record, checked to be UTF-8 (its buffer is reused for the next).
    record: csv::StringRecord,
    line: u64,
}

/// One row of a [`RowReader`], borrowed until the next is read.
pub struct RowRef<'a> {
    /// 1-based line of the file the row starts on.
    pub line: u64,
    record: &'a csv::StringRecord,
}

impl<'a> RowRef<'a> {
    /// The number of fields (the header's number).
    pub fn len(&self) -> usize {
        self.record.len()
    }

    /// Whether the row has no fields (never true of a row a reader yields).
    pub fn is_empty(&self) -> bool {
        self.record.is_empty()
    }

    /// Field `index`, borrowed from the reader until the next row.
    pub fn field(&self, index: usize) -> &'a str {
        &self.record[index]
    }
}

impl<R: Read> RowReader<R> {
    /// Starts reading `input` and reads its header. `source` names the file in messages.
    pub fn new(source: &str, input: R) -> Result<RowReader<R>, InputError> {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(1 << 16)
            .from_reader(Tracked::new(input));
        let mut this = RowReader {
            source: source.to_string(),
            reader,
            headers: Vec::new(),
            record: csv::StringRecord::new(),
            line: 0,
        };
        if !this.read_record()? {
            // Any byte that is not whitespace would have made a record.
            return Err(InputError::Empty {
                file: this.source.clone(),
            });
        }
        this.headers = header_names(&this.source, this.record.iter())?;
        Ok(this)
    }

    /// Column names, BOM and surrounding whitespace removed.
    pub fn headers(&self) -> &[String] {
        &self.headers
    }

    /// The file as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The next data row, or `None` at the end of the file.
    pub fn next_row(&mut self) -> Result<Option<RowRef<'_>>, InputError> {
        loop {
            if !self.read_record()? {
                return match self.end_error() {
                    Some(error) => Err(error),
                    None => Ok(None),
                };
            }
            if self.record.len() == 1 && self.record[0].is_empty() {
                continue;
            }
            if self.record.len() != self.headers.len() {
                return Err(InputError::Ragged {
                    file: self.source.clone(),
                    line: self.line,
                    found: self.record.len(),
                    expected: self.headers.len(),
                });
            }
            return Ok(Some(RowRef {
                line: self.line,
                record: &self.record,
            }));
        }
    }

    /// The row [`RowReader::next_row`] last returned: only meaningful after it
    /// returned one.
    pub fn current(&self) -> RowRef<'_> {
        RowRef {
            line: self.line,
            record: &self.record,
        }
    }

    /// The input, once read to its end (e.g. to finish a digest computed on the way).
    pub fn into_inner(self) -> R {
        self.reader.into_inner().inner
    }

    /// Reads the next record into `self.record` and checks its fields are UTF-8, in
    /// place: the record's buffers are reused, so a row allocates nothing.
    fn read_record(&mut self) -> Result<bool, InputError> {
        match self.reader.read_record(&mut self.record) {
            Ok(more) => {
                if more {
                    self.line = self
                        .record
                        .position()
                        .map_or(0, |p| self.reader.get_mut().line_at(p.byte()));
                }
                let end = self.reader.position().byte();
                self.reader.get_mut().record_start = end;
                Ok(more)
            }
            Err(error) => {
                if let csv::ErrorKind::Io(io) = error.kind()
                    && io.get_ref().is_some_and(|e| e.is::<RowTooLong>())
                {
                    let start = self.reader.get_ref().record_start;
                    return Err(InputError::RowTooLong {
                        file: self.source.clone(),
                        line: self.reader.get_mut().line_at(start),
                        limit_mib: (scan::MAX_ROW_BYTES >> 20) as u64,
                    });
                }
                // A record that is not UTF-8 is positioned where it starts, as any other.
                let line = error
                    .position()
                    .map_or(0, |p| self.reader.get_mut().line_at(p.byte()));
                if let csv::ErrorKind::Utf8 { err, .. } = error.kind() {
                    return Err(InputError::Utf8 {
                        file: self.source.clone(),
                        line,
                        column: err.field() + 1,
                    });
                }
                Err(csv_error(&self.source, &error, line))
            }
        }
    }

    /// At the end of the input: the error of a file that held only whitespace.
    fn end_error(&mut self) -> Option<InputError> {
        (!self.reader.get_ref().substantive).then(|| InputError::Empty {
            file: self.source.clone(),
        })
    }
}

/// The input as the CSV parser sees it: a leading UTF-8 BOM dropped, and on the way
/// through, the offsets (after the BOM) of every `\r` and `\n`, each marked with whether
/// it ends a line, kept until the parser has passed them, and whether any byte is not
/// whitespace.
///
/// The parser ends a record at `\n`, `\r\n` or a lone `\r` (classic Mac files), but its
/// own line count sees only `\n`; and it reports a record's position just after the
/// previous terminator, before any blank lines it skipped. Lines are therefore counted
/// here, as the parser splits them.
struct Tracked<R> {
    inner: R,
    /// Bytes read while looking for the BOM, served before `inner`.
    pending: Vec<u8>,
    started: bool,
    offset: u64,
    /// Offsets of `\r` and `\n` not yet passed, and whether each ends a line (a `\r`
    /// followed by `\n` does not).
    breaks: VecDeque<(u64, bool)>,
    /// A `\r` that ended the last read, whose next byte is not known yet.
    trailing_cr: Option<u64>,
    /// Line ends before every offset passed so far.
    ends: u64,
    substantive: bool,
    /// Where the record being read starts, at most: a read past
    /// [`scan::MAX_ROW_BYTES`] after it fails with [`RowTooLong`].
    record_start: u64,
}

/// The reason a [`Tracked`] read fails when the record being read outgrows
/// [`scan::MAX_ROW_BYTES`]: the parser would otherwise hold the whole endless line.
#[derive(Debug)]
struct RowTooLong;

impl std::fmt::Display for RowTooLong {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("row too long")
    }
}

impl std::error::Error for RowTooLong {}

impl<R: Read> Tracked<R> {
    fn new(inner: R) -> Tracked<R> {
        Tracked {
            inner,
            pending: Vec::new(),
            started: false,
            offset: 0,
            breaks: VecDeque::new(),
            trailing_cr: None,
            ends: 0,
            substantive: false,
            record_start: 0,
        }
    }

    /// The 1-based line of a record the parser says starts at `offset`: every line end
    /// before it, and those of the blank lines the parser skips from there, are counted.
    /// Offsets asked about only grow, so everything counted is forgotten.
    fn line_at(&mut self, offset: u64) -> u64 {
        let mut cursor = offset;
        while let Some(&(at, end)) = self.breaks.front() {
            if at > cursor {
                break;
            }
            if at == cursor {
                cursor += 1;
            }
            self.ends += u64::from(end);
            self.breaks.pop_front();
        }
        1 + self.ends
    }

    fn start(&mut self) -> std::io::Result<()> {
        self.started = true;
        let mut head = [0u8; 3];
        let mut filled = 0;
        while filled < head.len() {
            match self.inner.read(&mut head[filled..])? {
                0 => break,
                n => filled += n,
            }
        }
        if head[..filled] != *b"\xEF\xBB\xBF" {
            self.pending.extend_from_slice(&head[..filled]);
        }
        Ok(())
    }

    fn fill(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if !self.started {
            self.start()?;
        }
        if !self.pending.is_empty() {
            let n = self.pending.len().min(buffer.len());
            buffer[..n].copy_from_slice(&self.pending[..n]);
            self.pending.drain(..n);
            return Ok(n);
        }
        self.inner.read(buffer)
    }
}

impl<R: Read> Read for Tracked<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.offset - self.record_start > scan::MAX_ROW_BYTES as u64 {
            return Err(std::io::Error::other(RowTooLong));
        }
        let n = self.fill(buffer)?;
        let bytes = &buffer[..n];
        if let Some(at) = self.trailing_cr.take() {
            self.breaks.push_back((at, bytes.first() != Some(&b'\n')));
        }
        for at in memchr::memchr2_iter(b'\r', b'\n', bytes) {
            let offset = self.offset + at as u64;
            match (bytes[at], bytes.get(at + 1)) {
                (b'\n', _) => self.breaks.push_back((offset, true)),
                (_, Some(&next)) => self.breaks.push_back((offset, next != b'\n')),
                (_, None) => self.trailing_cr = Some(offset),
            }
        }
        if !self.substantive {
            self.substantive = bytes.iter().any(|b| !b.is_ascii_whitespace());
        }
        self.offset += n as u64;
        Ok(n)
    }
}

fn csv_error(source: &str, error: &csv::Error, line: u64) -> InputError {
    if let csv::ErrorKind::Io(io) = error.kind() {
        return InputError::Io {
            file: source.to_string(),
            message: io.to_string(),
        };
    }
    InputError::Csv {
        file: source.to_string(),
        line,
        message: error.to_string(),
    }
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
        let mut reader = RowReader::new("t.csv", OneByte(bytes)).unwrap();
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

    /// Hands out one byte per read, so every `\r\n` and the BOM straddle reads.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            match (self.0.split_first(), buffer.first_mut()) {
                (Some((byte, rest)), Some(slot)) => {
                    *slot = *byte;
                    self.0 = rest;
                    Ok(1)
                }
                _ => Ok(0),
            }
        }
    }

    #[test]
    fn a_stream_read_a_byte_at_a_time_gives_the_rows_and_lines_of_the_whole_file() {
        let bytes = b"\xEF\xBB\xBFa,b\r\n1,\"x\r\ny\"\r\n3,4\r\n5,6\n7,8\r\n";
        let table = Table::parse("t.csv", bytes).unwrap();
        let lines: Vec<u64> = table.rows.iter().map(|r| r.line).collect();
        assert_eq!(lines, [2, 4, 5, 6]);
        let mut reader = RowReader::new("t.csv", OneByte(bytes)).unwrap();
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
        let mut blank = RowReader::new("t.csv", OneByte(b"\xEF\xBB\xBF \r\n\t\n")).unwrap();
        // The header ` ` and the row `\t` come out before the end shows the file blank.
        assert!(blank.next_row().unwrap().is_some());
        assert!(matches!(blank.next_row(), Err(InputError::Empty { .. })));
        let nothing = RowReader::new("t.csv", OneByte(b"\xEF\xBB\xBF"));
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
        let mut reader = RowReader::new("t.csv", OneByte(&bytes[..])).unwrap();
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
