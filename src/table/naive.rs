//! The `csv` crate read with the tool's checks: the test oracle of
//! [`RowScanner`](super::scan::RowScanner), never a production reader. It gives the scanner's header,
//! rows, fields, 1-based lines and errors for any input but one (an input that ends
//! inside a quoted field, which only the scanner refuses); property tests hold the
//! scanner to it.

use std::collections::VecDeque;
use std::io::Read;

use super::{header_names, scan};
use crate::error::InputError;

/// A CSV stream read one row at a time into one reused record, with the same checks and
/// messages as [`Table::parse`]: a reader of a million-row file holds one row, not the
/// file. Every field is checked to be UTF-8, so [`NaiveRow::field`] is a plain `&str`.
///
/// A file of nothing but whitespace is [`InputError::Empty`]; that is known only at its
/// end, and no other error can come first from such a file, so it is reported by the
/// [`NaiveRowReader::next_row`] that reaches the end.
pub(crate) struct NaiveRowReader<R: Read> {
    source: String,
    reader: csv::Reader<Tracked<R>>,
    headers: Vec<String>,
    /// The last record, checked to be UTF-8 (its buffer is reused for the next).
    record: csv::StringRecord,
    line: u64,
}

/// One row of a [`NaiveRowReader`], borrowed until the next is read.
pub(crate) struct NaiveRow<'a> {
    /// 1-based line of the file the row starts on.
    pub line: u64,
    record: &'a csv::StringRecord,
}

impl<'a> NaiveRow<'a> {
    /// The number of fields (the header's number).
    pub(crate) fn len(&self) -> usize {
        self.record.len()
    }

    /// Field `index`, borrowed from the reader until the next row.
    pub(crate) fn field(&self, index: usize) -> &'a str {
        &self.record[index]
    }
}

impl<R: Read> NaiveRowReader<R> {
    /// Starts reading `input` and reads its header. `source` names the file in messages.
    pub(crate) fn new(source: &str, input: R) -> Result<NaiveRowReader<R>, InputError> {
        let reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .buffer_capacity(1 << 16)
            .from_reader(Tracked::new(input));
        let mut this = NaiveRowReader {
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
    pub(crate) fn headers(&self) -> &[String] {
        &self.headers
    }

    /// The next data row, or `None` at the end of the file.
    pub(crate) fn next_row(&mut self) -> Result<Option<NaiveRow<'_>>, InputError> {
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
            return Ok(Some(NaiveRow {
                line: self.line,
                record: &self.record,
            }));
        }
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
