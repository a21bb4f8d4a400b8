//! [`RowScanner`]: the CSV reader, by hand for speed. It gives the same
//! header, rows, fields, 1-based lines and errors as the `csv` crate with the tool's checks
//! (the test oracle `naive::NaiveRowReader`), for any input (a property test holds it to that), at a fraction of
//! the cost per byte: a record whose whole line is buffered and holds no quote and no
//! `\r` (nearly every line of a machine-written file) is split at its commas, found
//! eight bytes at a time; one whose quoted fields close on its line is read field by
//! field with `memchr`; and other runs of ordinary bytes are skipped eight at a time.
//!
//! The dialect is the `csv` crate's default, which the reader uses: fields separated
//! by `,`; a field that opens with `"` is quoted, `""` inside it is a quote, and what
//! follows its closing quote up to the next `,` or line end is appended as it is; a
//! quote inside an unquoted field is an ordinary byte; a record ends at `\n`, `\r` or
//! `\r\n`, and blank lines between records are skipped; at the end of the input the
//! record being read is complete. One difference: an input that ends inside a quoted
//! field is refused naming the row of its opening quote (the `csv` crate takes the rest
//! of the file as that field, and the file's error would be a ragged row or none).
//! Every record is capped at [`MAX_ROW_BYTES`]. A leading UTF-8 BOM is
//! dropped, and a second right after it too (as the reader does). A record's line
//! is the line its first byte is on, counting `\n`, `\r\n` and a lone `\r` as one line
//! end each.

use std::io::{ErrorKind, Read};

use super::{Row, Table};
use crate::error::InputError;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// How many bytes are read from the input at a time.
const CHUNK: usize = 1 << 16;

/// The most bytes one record may hold (its fields' bytes plus one per field): a longer
/// one is refused, so that a file of one endless line (`/dev/zero`) cannot grow memory
/// until the allocator aborts. Far above any row a scores, truth or tasks file holds
/// (a 10 MB task id still reads).
pub const MAX_ROW_BYTES: usize = 64 << 20;

/// A CSV stream read one row at a time.
pub struct RowScanner<R: Read> {
    source: String,
    input: R,
    /// Bytes read and not yet consumed: `buffer[start..filled]`.
    buffer: Vec<u8>,
    start: usize,
    filled: usize,
    /// Whether the input has ended.
    drained: bool,
    /// Line ends among the bytes consumed so far.
    line_ends: u64,
    /// Whether the last byte consumed was `\r`, so a `\n` now ends no new line.
    after_cr: bool,
    /// Whether any byte after a first BOM is not ASCII whitespace.
    substantive: bool,
    /// Whether a second BOM was dropped and no record read yet: the reader then puts
    /// the first record on line 1, blank lines after that BOM notwithstanding (it
    /// counts the line ends from where a record starts only while they follow on).
    second_bom: bool,
    headers: Vec<String>,
    /// The last record's fields, one after the other, and where each ends.
    text: String,
    ends: Vec<usize>,
    line: u64,
}

/// One row of a [`RowScanner`], borrowed until the next is read.
#[derive(Debug, Clone, Copy)]
pub struct ScannedRow<'a> {
    /// 1-based line of the input the row starts on.
    pub line: u64,
    text: &'a str,
    ends: &'a [usize],
    /// Where the row's first field starts in `text` (its ends count from `text`'s
    /// start).
    start: usize,
}

impl<'a> ScannedRow<'a> {
    /// The row on `line` whose fields, one after the other, are `text`, the field at
    /// `i` ending at `ends[i]`.
    pub(super) fn new(line: u64, text: &'a str, ends: &'a [usize]) -> ScannedRow<'a> {
        ScannedRow {
            line,
            text,
            ends,
            start: 0,
        }
    }

    /// The row whose first field starts at `start` in `text`, the field at `i` ending
    /// at `ends[i]`, counted from `text`'s start.
    pub(super) fn within(
        line: u64,
        text: &'a str,
        ends: &'a [usize],
        start: usize,
    ) -> ScannedRow<'a> {
        ScannedRow {
            line,
            text,
            ends,
            start,
        }
    }

    /// The fields one after the other, and where each ends (from the row's start).
    pub(super) fn parts(&self) -> (&'a str, &'a [usize]) {
        debug_assert_eq!(self.start, 0, "only a scanner's own rows are handed on");
        (self.text, self.ends)
    }

    /// The number of fields (the header's number).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the row has no fields (never true of a row a scanner yields).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Field `index`.
    pub fn field(&self, index: usize) -> &'a str {
        let start = if index == 0 {
            self.start
        } else {
            self.ends[index - 1]
        };
        &self.text[start..self.ends[index]]
    }
}

/// A source of checked rows, as [`RowScanner`] gives them: a scanner reading here, or
/// one reading ahead on a thread of its own (`RowsAhead`).
pub trait Rows {
    /// Column names, BOM and surrounding whitespace removed.
    fn headers(&self) -> &[String];
    /// The next data row, or `None` at the end of the input, with
    /// [`RowScanner::next_row`]'s errors.
    fn next_row(&mut self) -> Result<Option<ScannedRow<'_>>, InputError>;
    /// The row `k` rows after the one [`Rows::next_row`] hands out next, when it is
    /// already read and scanned (a look ahead that reads nothing); `None` otherwise.
    fn ahead(&self, k: usize) -> Option<ScannedRow<'_>> {
        let _ = k;
        None
    }
}

impl<R: Read> Rows for RowScanner<R> {
    fn headers(&self) -> &[String] {
        RowScanner::headers(self)
    }

    fn next_row(&mut self) -> Result<Option<ScannedRow<'_>>, InputError> {
        RowScanner::next_row(self)
    }
}

/// A whole table read through a [`RowScanner`]: what [`Table::parse`] gives for the
/// same bytes.
pub fn scan_table(source: &str, input: impl Read) -> Result<Table, InputError> {
    table_of(RowScanner::new(source, input)?)
}

/// The table of the rows `scanner` (its header read) has yet to give.
pub fn table_of<R: Read>(mut scanner: RowScanner<R>) -> Result<Table, InputError> {
    let mut rows = Vec::new();
    while let Some(row) = scanner.next_row()? {
        rows.push(Row {
            line: row.line,
            fields: (0..row.len()).map(|i| row.field(i).to_string()).collect(),
        });
    }
    Ok(Table {
        source: scanner.source,
        headers: scanner.headers,
        rows,
    })
}

/// What ended a field.
enum FieldEnd {
    /// A comma: another field follows.
    Comma,
    /// A line end or the end of the input: the record is complete.
    Record,
}

impl<R: Read> RowScanner<R> {
    /// Starts reading `input` and reads its header. `source` names the file in
    /// messages. An input of nothing but whitespace is [`InputError::Empty`].
    pub fn new(source: &str, input: R) -> Result<RowScanner<R>, InputError> {
        let mut this = RowScanner {
            source: source.to_string(),
            input,
            buffer: vec![0; CHUNK],
            start: 0,
            filled: 0,
            drained: false,
            line_ends: 0,
            after_cr: false,
            substantive: false,
            second_bom: false,
            headers: Vec::new(),
            text: String::new(),
            ends: Vec::new(),
            line: 0,
        };
        this.open()?;
        if !this.read_record()? {
            return Err(InputError::Empty {
                file: this.source.clone(),
            });
        }
        let names: Vec<&str> = (0..this.ends.len()).map(|i| this.field(i)).collect();
        let headers = super::header_names(&this.source, names.into_iter())?;
        this.headers = headers;
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

    /// The next data row, or `None` at the end of the input; blank lines are skipped,
    /// and a row of another width than the header is [`InputError::Ragged`].
    pub fn next_row(&mut self) -> Result<Option<ScannedRow<'_>>, InputError> {
        loop {
            if !self.read_record()? {
                if !self.substantive {
                    return Err(InputError::Empty {
                        file: self.source.clone(),
                    });
                }
                return Ok(None);
            }
            if self.ends.len() == 1 && self.text.is_empty() {
                continue;
            }
            if self.ends.len() != self.headers.len() {
                return Err(InputError::Ragged {
                    file: self.source.clone(),
                    line: self.line,
                    found: self.ends.len(),
                    expected: self.headers.len(),
                });
            }
            return Ok(Some(ScannedRow::new(self.line, &self.text, &self.ends)));
        }
    }

    /// The row [`RowScanner::next_row`] last returned: only meaningful after it
    /// returned one.
    pub fn current(&self) -> ScannedRow<'_> {
        ScannedRow::new(self.line, &self.text, &self.ends)
    }

    /// The next row when it is an ordinary line (see [`super::lean`]), with the text of
    /// field `kept` only: its line and that text, the row then read. `None` when
    /// [`RowScanner::next_row`] must read it, which gives the same row (all its fields)
    /// or its error. The row read here is not [`RowScanner::current`].
    pub(crate) fn next_kept(&mut self, kept: usize) -> Option<(u64, &str)> {
        if self.second_bom {
            return None;
        }
        let rest = &self.buffer[self.start..self.filled];
        let (length, text) = super::lean::kept_field(rest, self.headers.len(), kept)?;
        // The cap on a record counts its bytes and one more per field: a line of half
        // of it is never refused.
        if length > MAX_ROW_BYTES / 2 {
            return None;
        }
        self.line = self.line_ends + 1;
        self.line_ends += 1;
        self.after_cr = false;
        self.start += length;
        Some((self.line, text))
    }

    /// The input, once read to its end (e.g. to finish a digest computed on the way).
    pub fn into_inner(self) -> R {
        self.input
    }

    fn field(&self, index: usize) -> &str {
        self.current().field(index)
    }

    /// Refuses a record grown past [`MAX_ROW_BYTES`] (`out` its bytes so far, each
    /// field ended so far counted as one byte more).
    fn check_length(&self, out: &[u8]) -> Result<(), InputError> {
        if out.len() + self.ends.len() > MAX_ROW_BYTES {
            return Err(InputError::RowTooLong {
                file: self.source.clone(),
                line: self.line,
                limit_mib: (MAX_ROW_BYTES >> 20) as u64,
            });
        }
        Ok(())
    }

    fn io_error(&self, error: &std::io::Error) -> InputError {
        InputError::Io {
            file: self.source.clone(),
            message: error.to_string(),
        }
    }

    /// Reads more input after `filled`, growing the buffer when it is full; `false`
    /// at the end of the input.
    fn read_more(&mut self) -> Result<bool, InputError> {
        if self.drained {
            return Ok(false);
        }
        if self.filled == self.buffer.len() {
            self.buffer.resize(self.buffer.len() + CHUNK, 0);
        }
        loop {
            match self.input.read(&mut self.buffer[self.filled..]) {
                Ok(0) => {
                    self.drained = true;
                    return Ok(false);
                }
                Ok(n) => {
                    let new = &self.buffer[self.filled..self.filled + n];
                    if !self.substantive {
                        self.substantive = new.iter().any(|b| !b.is_ascii_whitespace());
                    }
                    self.filled += n;
                    return Ok(true);
                }
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) => return Err(self.io_error(&error)),
            }
        }
    }

    /// Whether an unconsumed byte is buffered, reading when none is; `false` at the
    /// end of the input.
    fn ready(&mut self) -> Result<bool, InputError> {
        if self.start < self.filled {
            return Ok(true);
        }
        self.start = 0;
        self.filled = 0;
        self.read_more()
    }

    /// Drops a leading BOM, and a second right after it.
    fn open(&mut self) -> Result<(), InputError> {
        while self.filled < 2 * BOM.len() && self.read_more()? {}
        if self.buffer[..self.filled].starts_with(BOM) {
            self.start = BOM.len();
            // Whitespace or not is judged after the first BOM only.
            let rest = &self.buffer[BOM.len()..self.filled];
            self.substantive = rest.iter().any(|b| !b.is_ascii_whitespace());
            if rest.starts_with(BOM) {
                self.start += BOM.len();
                self.second_bom = true;
            }
        }
        Ok(())
    }

    /// Consumes the next byte, counting the line it ends, if any.
    fn take_byte(&mut self) -> u8 {
        let byte = self.buffer[self.start];
        self.start += 1;
        if byte == b'\r' {
            self.line_ends += 1;
            self.after_cr = true;
        } else {
            self.line_ends += u64::from(byte == b'\n' && !self.after_cr);
            self.after_cr = false;
        }
        byte
    }

    /// Counts the line ends of consumed bytes `run` (which may hold any bytes).
    fn pass(&mut self, run: std::ops::Range<usize>) {
        if run.is_empty() {
            return;
        }
        let bytes = &self.buffer[run];
        for at in memchr::memchr2_iter(b'\r', b'\n', bytes) {
            let after_cr = if at == 0 {
                self.after_cr
            } else {
                bytes[at - 1] == b'\r'
            };
            if bytes[at] == b'\r' || !after_cr {
                self.line_ends += 1;
            }
        }
        self.after_cr = bytes[bytes.len() - 1] == b'\r';
    }

    /// Reads the next record into `text` and `ends`; `false` at the end of the input.
    fn read_record(&mut self) -> Result<bool, InputError> {
        // Blank lines before a record are skipped.
        loop {
            if !self.ready()? {
                return Ok(false);
            }
            let byte = self.buffer[self.start];
            if byte != b'\r' && byte != b'\n' {
                break;
            }
            self.take_byte();
        }
        self.line = if std::mem::take(&mut self.second_bom) {
            1
        } else {
            self.line_ends + 1
        };
        let mut bytes = std::mem::take(&mut self.text).into_bytes();
        bytes.clear();
        self.ends.clear();
        let rest = &self.buffer[self.start..self.filled];
        match split_whole_line(rest, &mut bytes, &mut self.ends) {
            // The line holds a byte that is not a line end, so its `\n` ends it.
            Some(length) => {
                self.start += length;
                self.line_ends += 1;
                self.after_cr = false;
            }
            None => {
                bytes.clear();
                self.ends.clear();
                loop {
                    let end = self.read_field(&mut bytes)?;
                    self.ends.push(bytes.len());
                    self.check_length(&bytes)?;
                    if let FieldEnd::Record = end {
                        break;
                    }
                }
            }
        }
        // As `csv` checks a record: the whole at once when it is ASCII, else field by
        // field, naming the first field that is not UTF-8.
        if !bytes.is_ascii() {
            let mut start = 0;
            for (index, &end) in self.ends.iter().enumerate() {
                if std::str::from_utf8(&bytes[start..end]).is_err() {
                    return Err(InputError::Utf8 {
                        file: self.source.clone(),
                        line: self.line,
                        column: index + 1,
                    });
                }
                start = end;
            }
        }
        self.text = String::from_utf8(bytes).expect("every field was checked to be UTF-8");
        Ok(true)
    }

    /// Reads one field, appending its bytes to `out`, through the comma or line end
    /// that ends it.
    fn read_field(&mut self, out: &mut Vec<u8>) -> Result<FieldEnd, InputError> {
        if !self.ready()? {
            // A comma ended the input: its last field is empty.
            return Ok(FieldEnd::Record);
        }
        if self.buffer[self.start] == b'"' {
            let opened = self.line_ends + 1;
            self.take_byte();
            if let Some(end) = self.read_quoted(out, opened)? {
                return Ok(end);
            }
        }
        self.read_unquoted(out)
    }

    /// Reads the rest of an unquoted field.
    fn read_unquoted(&mut self, out: &mut Vec<u8>) -> Result<FieldEnd, InputError> {
        loop {
            if !self.ready()? {
                return Ok(FieldEnd::Record);
            }
            let rest = &self.buffer[self.start..self.filled];
            let run = find_separator(rest);
            out.extend_from_slice(&rest[..run]);
            self.check_length(out)?;
            // No line end in the run: it stops at one.
            if run > 0 {
                self.after_cr = false;
                self.start += run;
            }
            if self.start == self.filled {
                continue;
            }
            return Ok(if self.take_byte() == b',' {
                FieldEnd::Comma
            } else {
                FieldEnd::Record
            });
        }
    }

    /// Reads the rest of a quoted field, opened on line `opened`, through its closing
    /// quote and the byte after it; `None` when that byte continues the field unquoted.
    /// The input ending before the closing quote is an error (the `csv` crate would
    /// take the rest of the file as the field, and a ragged row would be reported).
    fn read_quoted(
        &mut self,
        out: &mut Vec<u8>,
        opened: u64,
    ) -> Result<Option<FieldEnd>, InputError> {
        loop {
            if !self.ready()? {
                return Err(InputError::UnterminatedQuote {
                    file: self.source.clone(),
                    line: opened,
                });
            }
            let rest = &self.buffer[self.start..self.filled];
            let run = memchr::memchr(b'"', rest).unwrap_or(rest.len());
            out.extend_from_slice(&rest[..run]);
            self.check_length(out)?;
            self.pass(self.start..self.start + run);
            self.start += run;
            if self.start == self.filled {
                continue;
            }
            // A quote: doubled it is a quote, else it closes the field.
            self.take_byte();
            if !self.ready()? {
                return Ok(Some(FieldEnd::Record));
            }
            match self.buffer[self.start] {
                b'"' => {
                    out.push(b'"');
                    self.take_byte();
                }
                b',' => {
                    self.take_byte();
                    return Ok(Some(FieldEnd::Comma));
                }
                b'\r' | b'\n' => {
                    self.take_byte();
                    return Ok(Some(FieldEnd::Record));
                }
                _ => return Ok(None),
            }
        }
    }
}

/// The record at the start of `rest`, when it is one whole line ending in `\n` with no
/// `\r`, and each of its quoted fields closes on that line right before a comma or the
/// line end: its fields appended to `bytes` (a quoted one without its quotes, `""`
/// read as `"`), where each ends pushed to `ends`, and the length of the line with its
/// `\n`. `None` for any other record (the byte-by-byte reader takes it), with `bytes`
/// and `ends` to be cleared. A line without quotes (nearly every line of a
/// machine-written file) is split at its commas, found eight bytes at a time; one with
/// quoted fields is read field by field.
fn split_whole_line(rest: &[u8], bytes: &mut Vec<u8>, ends: &mut Vec<usize>) -> Option<usize> {
    let first = memchr::memchr3(b'\n', b'"', b'\r', rest)?;
    match rest[first] {
        b'\n' => {
            let line = &rest[..first];
            let mut from = 0;
            each_comma(line, |comma| {
                bytes.extend_from_slice(&line[from..comma]);
                ends.push(bytes.len());
                from = comma + 1;
            });
            bytes.extend_from_slice(&line[from..]);
            ends.push(bytes.len());
            Some(first + 1)
        }
        b'"' => split_quoted_line(rest, bytes, ends),
        _ => None,
    }
}

/// [`split_whole_line`] for a line with a quote.
fn split_quoted_line(rest: &[u8], bytes: &mut Vec<u8>, ends: &mut Vec<usize>) -> Option<usize> {
    let mut at = 0;
    loop {
        let end = if rest.get(at) == Some(&b'"') {
            let mut from = at + 1;
            loop {
                let quote = from + memchr::memchr(b'"', &rest[from..])?;
                let run = &rest[from..quote];
                if memchr::memchr2(b'\n', b'\r', run).is_some() {
                    return None;
                }
                bytes.extend_from_slice(run);
                if rest.get(quote + 1) != Some(&b'"') {
                    break quote + 1;
                }
                bytes.push(b'"');
                from = quote + 2;
            }
        } else {
            // A quote inside an unquoted field is an ordinary byte.
            let end = at + memchr::memchr3(b',', b'\n', b'\r', &rest[at..])?;
            bytes.extend_from_slice(&rest[at..end]);
            end
        };
        ends.push(bytes.len());
        match rest.get(end) {
            Some(b',') => at = end + 1,
            Some(b'\n') => return Some(end + 1),
            _ => return None,
        }
    }
}

/// Calls `each` with the offset of every comma in `bytes`, in order, eight bytes at a
/// time.
fn each_comma(bytes: &[u8], mut each: impl FnMut(usize)) {
    const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const COMMAS: u64 = 0x0101_0101_0101_0101 * b',' as u64;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ COMMAS;
        // The high bit of each byte of `word` that is zero, and of no other: adding
        // 0x7F to the low seven bits carries into the high bit unless they are all
        // zero, and no carry crosses into the next byte.
        let mut zeros = !((word & LOWS).wrapping_add(LOWS) | word | LOWS);
        while zeros != 0 {
            each(at + zeros.trailing_zeros() as usize / 8);
            zeros &= zeros - 1;
        }
        at += 8;
    }
    for (offset, &byte) in bytes[at..].iter().enumerate() {
        if byte == b',' {
            each(at + offset);
        }
    }
}

/// The length of the run at the start of `bytes` before a comma or a line end, eight
/// bytes at a time.
fn find_separator(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // (x - 0x01…) & !x & 0x80… is non-zero exactly when some byte of x is zero.
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let found = zero(word ^ (ONES * u64::from(b',')))
            | zero(word ^ (ONES * u64::from(b'\r')))
            | zero(word ^ (ONES * u64::from(b'\n')));
        if found != 0 {
            break;
        }
        at += 8;
    }
    at + bytes[at..]
        .iter()
        .position(|&b| matches!(b, b',' | b'\r' | b'\n'))
        .unwrap_or(bytes.len() - at)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::table::chunks::Chunks;
    use crate::table::naive::NaiveRowReader as RowReader;

    /// The header, and every row's line and fields, or the error's message.
    type Rows = Result<(Vec<String>, Vec<(u64, Vec<String>)>), String>;

    /// Every row of `bytes` read whole by [`RowReader`]: the oracle.
    fn rows_by_reader(bytes: &[u8]) -> Rows {
        let mut reader = RowReader::new("t.csv", bytes).map_err(|e| e.to_string())?;
        let headers = reader.headers().to_vec();
        let mut rows = Vec::new();
        while let Some(row) = reader.next_row().map_err(|e| e.to_string())? {
            rows.push((
                row.line,
                (0..row.len()).map(|i| row.field(i).to_string()).collect(),
            ));
        }
        Ok((headers, rows))
    }

    fn rows_by_scanner(bytes: &[u8], size: usize) -> Rows {
        let mut scanner =
            RowScanner::new("t.csv", Chunks { bytes, size }).map_err(|e| e.to_string())?;
        let headers = scanner.headers().to_vec();
        let mut rows = Vec::new();
        while let Some(row) = scanner.next_row().map_err(|e| e.to_string())? {
            rows.push((
                row.line,
                (0..row.len()).map(|i| row.field(i).to_string()).collect(),
            ));
        }
        Ok((headers, rows))
    }

    /// Where the input ends inside a quoted field, the line its opening quote is on:
    /// the dialect's four states walked byte by byte, the plain oracle of the
    /// scanner's unterminated-quote error (the `csv` crate takes the rest of the file
    /// as the field instead).
    fn naive_open_quote(bytes: &[u8]) -> Option<u64> {
        #[derive(PartialEq, Clone, Copy)]
        enum State {
            FieldStart,
            Unquoted,
            Quoted,
            QuoteInQuoted,
        }
        let (mut state, mut line, mut opened) = (State::FieldStart, 1, 0);
        // A leading BOM is dropped, and a second right after it.
        let bom = |b: &[u8]| b.starts_with(BOM).then(|| b[BOM.len()..].to_vec());
        let bytes = bom(bytes)
            .map(|b| bom(&b).unwrap_or(b))
            .unwrap_or(bytes.to_vec());
        for (at, &byte) in bytes.iter().enumerate() {
            state = match (state, byte) {
                (State::FieldStart, b'"') => {
                    opened = line;
                    State::Quoted
                }
                (State::Quoted, b'"') => State::QuoteInQuoted,
                (State::Quoted, _) => State::Quoted,
                (State::QuoteInQuoted, b'"') => State::Quoted,
                (_, b',' | b'\r' | b'\n') => State::FieldStart,
                _ => State::Unquoted,
            };
            let after_cr = at > 0 && bytes[at - 1] == b'\r';
            if byte == b'\r' || (byte == b'\n' && !after_cr) {
                line += 1;
            }
        }
        (state == State::Quoted).then_some(opened)
    }

    /// Holds the scanner's rows of `scanned` (the input `bytes` read `size` bytes at a
    /// time) to the reader's: equal, except that an input ending inside a quoted field
    /// is refused naming the line of its opening quote, and with the quote closed the
    /// two read alike.
    fn check_against_reader(bytes: &[u8], size: usize) -> Result<(), String> {
        let scanned = rows_by_scanner(bytes, size);
        let read = rows_by_reader(bytes);
        let context = format!("{size}-byte reads of {:?}", String::from_utf8_lossy(bytes));
        match (&scanned, naive_open_quote(bytes)) {
            (Err(message), Some(line)) if message.contains("is never closed") => {
                if !message.contains(&format!("row {line}:")) {
                    return Err(format!("{message} names the wrong row; {context}"));
                }
                let closed = [bytes, b"\""].concat();
                if rows_by_scanner(&closed, size) != rows_by_reader(&closed) {
                    return Err(format!("closed, the two differ; {context}"));
                }
            }
            (Err(message), None) if message.contains("is never closed") => {
                return Err(format!("{message} but every quote closes; {context}"));
            }
            (_, Some(_)) if read.is_ok() => {
                return Err(format!(
                    "an open quote at the end was read: {scanned:?}; {context}"
                ));
            }
            _ if scanned != read => {
                return Err(format!("{scanned:?} != {read:?}; {context}"));
            }
            _ => {}
        }
        Ok(())
    }

    fn assert_scans_as_read(bytes: &[u8]) {
        for size in [1, 2, 3, 5, 8, 4096] {
            if let Err(problem) = check_against_reader(bytes, size) {
                panic!("{problem}");
            }
        }
    }

    #[test]
    fn an_input_ending_inside_a_quoted_field_names_the_row_of_its_opening_quote() {
        let bytes = b"task_id,kind,correct,score\na:id,id,0,0\n\"b:id,id,1,1\nc:id,id,1,1\n";
        let error = rows_by_scanner(bytes, 4096).unwrap_err();
        assert!(
            error.starts_with("`t.csv` row 3: a quoted field opens here and is never closed"),
            "{error}"
        );
        let late = b"a,b\n1,\"x\n\ny\n";
        assert!(
            rows_by_scanner(late, 3)
                .unwrap_err()
                .starts_with("`t.csv` row 2:")
        );
        assert!(
            rows_by_scanner(b"a,\"b\n", 1)
                .unwrap_err()
                .contains("row 1: a quoted")
        );
    }

    #[test]
    fn an_endless_row_is_refused_at_the_row_cap_not_read_until_memory_runs_out() {
        // Zeros without a line end, as `/dev/zero` gives them, and then commas.
        for byte in [0u8, b','] {
            let endless = std::io::repeat(byte).take(MAX_ROW_BYTES as u64 + (1 << 20));
            let error = RowScanner::new("z.csv", endless).err().expect("refused");
            assert_eq!(
                error.to_string(),
                "`z.csv` row 1: the row is longer than 64 MiB, more than evogate reads as one row; check that this is the right file"
            );
        }
        let quoted = std::io::Cursor::new(b"a\n\"".to_vec())
            .chain(std::io::repeat(b'x').take(MAX_ROW_BYTES as u64 + 1));
        let mut rows = RowScanner::new("z.csv", quoted).unwrap();
        let error = rows.next_row().expect_err("refused");
        assert!(
            error
                .to_string()
                .starts_with("`z.csv` row 2: the row is longer"),
            "{error}"
        );
    }

    #[test]
    fn scans_odd_but_valid_files_as_the_csv_reader_reads_them() {
        for bytes in [
            &b"a,b\n1,2\n"[..],
            b"\xEF\xBB\xBFa,b\r\n1,\"x\r\ny\"\r\n\r\n3,4\n\n\n5,6\r\r7,8\n",
            b"a,b\r1,2\r\r3,4\r",
            b"a,b\n\"x\"\"y\",\"\"\n\"q\"tail,\"open\n",
            b"a,b\n\"x\"\"\n,\"\n1,\n",
            b"a\n\"\"\n\n\"\"\"\"\nx\n",
            b"a,b\nx\"y,\"z\"\"\"\n",
            b"\xEF\xBB\xBF\xEF\xBB\xBFa,b\n1,2",
            b"\xEF\xBB\xBF\xEF\xBB\xBF\xEF\xBB\xBFa,b\n1,2",
            b"\xEF\xBB\xBF\xEF\xBB\xBF",
            b"\xEF\xBB",
            b" a , b \n 1 , 2 \n",
            b"a,b\n1,2\r\n\r\n",
            b"h\n\"unterminated,\r\nstill\"",
        ] {
            assert_scans_as_read(bytes);
        }
    }

    #[test]
    fn scans_bad_files_with_the_csv_reader_errors() {
        for bytes in [
            &b""[..],
            b"\n\r\n",
            b" \n\t\n",
            b"\xEF\xBB\xBF \r\n\t\n",
            b"a,a\n1,2\n",
            b"a,b\n1\n",
            b"a,b\n1,2,3\n",
            b"a,b\n1,\xff\n",
            b"a,\xff\n1,2\n",
            b"a,b\r\n\r\n1,\"x\r\ny\"\r\n\n3,\xff\n",
            b"a,b\n\"\xe2\x82\",\"\xac\"\n",
            b"a\n1\n\n2\n3,4\n",
            // The reader puts the first record after two BOMs on line 1 whatever
            // blank lines come before it (found by the property test below).
            b"\xEF\xBB\xBF\xEF\xBB\xBF\r\xff",
            b"\xEF\xBB\xBF\xEF\xBB\xBF\n\na,b\n1\n",
        ] {
            assert_scans_as_read(bytes);
        }
    }

    /// Pieces of CSV files, good and bad.
    const PIECES: [&[u8]; 16] = [
        b"a",
        b"bc",
        b",",
        b"\"",
        b"\"\"",
        b"\r",
        b"\n",
        b"\r\n",
        b" ",
        b"\t",
        b"\xEF\xBB\xBF",
        b"\xff",
        b"\xc3\xa9",
        b"\xe2\x82",
        b"x,y",
        b"\"q\"",
    ];

    proptest! {
        #[test]
        fn finds_every_comma_and_nothing_else(
            bytes in proptest::collection::vec(
                // A comma, bytes one bit away from it (`-`, `.`, `(`, 0xAC), and any.
                prop_oneof![Just(b','), Just(b'-'), Just(b'.'), Just(b'('), Just(0xAC), any::<u8>()],
                0..70,
            ),
        ) {
            let mut found = Vec::new();
            each_comma(&bytes, |at| found.push(at));
            let expected: Vec<usize> = (0..bytes.len()).filter(|&i| bytes[i] == b',').collect();
            prop_assert_eq!(found, expected);
        }

        #[test]
        fn scans_any_file_of_pieces_as_the_csv_reader_reads_it(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..24),
            size in prop_oneof![1usize..9, Just(CHUNK)],
        ) {
            let bytes: Vec<u8> = picks.iter().flat_map(|&p| PIECES[p].iter().copied()).collect();
            prop_assert_eq!(check_against_reader(&bytes, size), Ok(()));
            if naive_open_quote(&bytes).is_none() {
                prop_assert_eq!(scan_table("t.csv", Chunks { bytes: &bytes, size }), Table::parse("t.csv", &bytes));
            }
        }

        #[test]
        fn scans_any_file_of_a_header_and_rows_of_pieces_as_the_csv_reader_reads_it(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..40),
            size in prop_oneof![1usize..9, Just(CHUNK)],
        ) {
            let mut bytes = b"task_id,group,kind,prompt\n".to_vec();
            bytes.extend(picks.iter().flat_map(|&p| PIECES[p].iter().copied()));
            prop_assert_eq!(check_against_reader(&bytes, size), Ok(()));
        }
    }
}
