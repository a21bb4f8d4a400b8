//! [`RowsAhead`]: a [`RowScanner`] that reads, digests and splits a file on a thread of
//! its own, a few thousand rows ahead of the consumer, which gets the same rows and
//! the same errors in the same order. `admit` reads its two scores files this way:
//! reading, hashing and scanning (about half of its work on a million rows) then run
//! beside the pairing instead of before it.

use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use super::scan::{RowScanner, Rows, ScannedRow};
use crate::digest::HashingReader;
use crate::error::InputError;

/// Rows per batch handed over.
const BATCH_ROWS: usize = 4096;

/// Batches the thread may have ready ahead of the consumer.
const AHEAD: usize = 4;

/// Rows scanned on the thread, one after the other, and how the input ended when it
/// did within them.
#[derive(Default)]
struct Batch {
    /// Every row's fields, one after the other.
    text: String,
    /// Where each field ends, counted from the start of its row.
    ends: Vec<usize>,
    /// Each row's line, and where its text and its field ends stop in `text` and
    /// `ends` (each starts where the row before stopped).
    rows: Vec<(u64, usize, usize)>,
    /// After the last row: the input's end (`Ok`) or the error the scanner met.
    end: Option<Result<(), InputError>>,
}

impl Batch {
    fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
        self.rows.clear();
        self.end = None;
    }

    /// Adds a row, with the text of the fields `kept` marks only (all when it marks
    /// none): the others come out empty.
    fn push(&mut self, row: &ScannedRow<'_>, kept: &[bool]) {
        let (text, ends) = row.parts();
        let from = self.text.len();
        if kept.is_empty() {
            self.text.push_str(text);
            self.ends.extend(ends.iter().map(|end| end + from));
        } else {
            let mut start = 0;
            for (index, &end) in ends.iter().enumerate() {
                if kept.get(index).copied().unwrap_or(true) {
                    self.text.push_str(&text[start..end]);
                }
                self.ends.push(self.text.len());
                start = end;
            }
        }
        self.rows.push((row.line, self.text.len(), self.ends.len()));
    }

    /// Adds a row of `fields` fields read with the text of field `kept` only (`text`):
    /// what [`Batch::push`] adds for the whole row when only that field is kept.
    fn push_kept(&mut self, line: u64, text: &str, kept: usize, fields: usize) {
        for index in 0..fields {
            if index == kept {
                self.text.push_str(text);
            }
            self.ends.push(self.text.len());
        }
        self.rows.push((line, self.text.len(), self.ends.len()));
    }

    fn row(&self, at: usize) -> ScannedRow<'_> {
        let ends_from = match at {
            0 => 0,
            _ => self.rows[at - 1].2,
        };
        let (line, text_to, ends_to) = self.rows[at];
        // Ends are kept from the batch's start: the row's text begins where the row
        // before ended.
        ScannedRow::within(
            line,
            &self.text[..text_to],
            &self.ends[ends_from..ends_to],
            match at {
                0 => 0,
                _ => self.rows[at - 1].1,
            },
        )
    }
}

/// The rows of a stream, scanned and digested on a thread of its own.
pub(crate) struct RowsAhead {
    source: String,
    headers: Vec<String>,
    batches: Receiver<Batch>,
    /// Batches the consumer is done with, for the thread to fill again.
    spent: SyncSender<Batch>,
    batch: Batch,
    /// The next row of `batch` to hand out.
    at: usize,
    /// Whether the end (or an error) was handed out.
    ended: bool,
    /// The thread, which ends with the SHA-256 of the input when it digests it.
    thread: JoinHandle<std::io::Result<Option<String>>>,
}

impl RowsAhead {
    /// Reads the header of `input` here (with [`RowScanner::new`]'s errors), then the
    /// rest on a thread of its own, digesting every byte. `source` names the file in
    /// messages.
    pub(crate) fn spawn<R: Read + Send + 'static>(
        source: &str,
        input: R,
    ) -> Result<RowsAhead, InputError> {
        RowsAhead::spawn_keeping(source, input, &|_| true)
    }

    /// [`RowsAhead::spawn`], handing on the text of the columns `keep` names only: the
    /// other fields of every row come out empty (a consumer that reads one column of a
    /// wide file is spared copying the rest).
    pub(crate) fn spawn_keeping<R: Read + Send + 'static>(
        source: &str,
        input: R,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<RowsAhead, InputError> {
        let scanner = RowScanner::new(source, HashingReader::new(input))?;
        RowsAhead::start(source, scanner, keep, |input| input.finish().map(Some))
    }

    /// [`RowsAhead::spawn_keeping`] without the digest, for a file whose SHA-256 no
    /// output records: the thread stops at the last row (or the first error) and
    /// [`RowsAhead::finish`] gives `None`. The rows and the errors are the same.
    pub(crate) fn spawn_undigested<R: Read + Send + 'static>(
        source: &str,
        input: R,
        keep: &dyn Fn(&str) -> bool,
    ) -> Result<RowsAhead, InputError> {
        let scanner = RowScanner::new(source, input)?;
        RowsAhead::start(source, scanner, keep, |_| Ok(None))
    }

    /// Reads the rest of `scanner`'s input on a thread of its own; `end` gets the input
    /// after the rows.
    fn start<R: Read + Send + 'static>(
        source: &str,
        scanner: RowScanner<R>,
        keep: &dyn Fn(&str) -> bool,
        end: fn(R) -> std::io::Result<Option<String>>,
    ) -> Result<RowsAhead, InputError> {
        let headers = scanner.headers().to_vec();
        let kept: Vec<bool> = headers.iter().map(|h| keep(h)).collect();
        let kept = if kept.iter().all(|&k| k) {
            Vec::new()
        } else {
            kept
        };
        let (sender, batches) = sync_channel(AHEAD);
        let (spent, reuse) = sync_channel(AHEAD + 2);
        let thread = std::thread::Builder::new()
            .name("read-ahead".to_string())
            .spawn(move || scan(scanner, &sender, &reuse, &kept).and_then(end))
            .map_err(|error| InputError::Io {
                file: source.to_string(),
                message: error.to_string(),
            })?;
        Ok(RowsAhead {
            source: source.to_string(),
            headers,
            batches,
            spent,
            batch: Batch::default(),
            at: 0,
            ended: false,
            thread,
        })
    }

    /// Lets the thread read to the end of the input, and returns the SHA-256 of all of
    /// it in lowercase hex (`None` when spawned [undigested](RowsAhead::spawn_undigested)).
    pub(crate) fn finish(self) -> Result<Option<String>, InputError> {
        let RowsAhead {
            source,
            batches,
            thread,
            ..
        } = self;
        // Batches the consumer left are passed over, so the thread reads on.
        for _ in batches.iter() {}
        thread
            .join()
            .map_err(|_| stopped(&source))?
            .map_err(|error| InputError::Io {
                file: source.clone(),
                message: error.to_string(),
            })
    }
}

impl RowsAhead {
    /// [`RowsAhead::finish`] for a reader spawned digesting: the SHA-256 of the input.
    pub(crate) fn digest(self) -> Result<String, InputError> {
        let source = self.source.clone();
        self.finish()?.ok_or_else(|| InputError::Io {
            file: source,
            message: "the file was read without its digest".to_string(),
        })
    }
}

/// The error of a reading thread that ended before the input did (it panicked).
fn stopped(source: &str) -> InputError {
    InputError::Io {
        file: source.to_string(),
        message: "the reading thread stopped".to_string(),
    }
}

/// The thread: sends the scanner's rows in batches until the input ends or a row
/// fails, then returns the input. Stops, with an error, when the consumer is gone.
fn scan<R: Read>(
    mut scanner: RowScanner<R>,
    batches: &SyncSender<Batch>,
    reuse: &Receiver<Batch>,
    kept: &[bool],
) -> std::io::Result<R> {
    let fields = scanner.headers().len();
    // One column kept (a task list): its ordinary lines are read for that field only.
    let one = match kept.iter().filter(|&&k| k).count() {
        1 => kept.iter().position(|&k| k),
        _ => None,
    };
    loop {
        let mut batch = reuse.try_recv().unwrap_or_default();
        batch.clear();
        while batch.rows.len() < BATCH_ROWS && batch.end.is_none() {
            if let Some(kept) = one
                && let Some((line, text)) = scanner.next_kept(kept)
            {
                batch.push_kept(line, text, kept, fields);
                continue;
            }
            match scanner.next_row() {
                Ok(Some(row)) => batch.push(&row, kept),
                Ok(None) => batch.end = Some(Ok(())),
                Err(error) => batch.end = Some(Err(error)),
            }
        }
        let ended = batch.end.is_some();
        if batches.send(batch).is_err() {
            return Err(std::io::Error::other("nothing reads the rows any more"));
        }
        if ended {
            return Ok(scanner.into_inner());
        }
    }
}

impl Rows for RowsAhead {
    fn headers(&self) -> &[String] {
        &self.headers
    }

    fn next_row(&mut self) -> Result<Option<ScannedRow<'_>>, InputError> {
        while self.at == self.batch.rows.len() {
            if let Some(end) = self.batch.end.take() {
                self.ended = true;
                return end.map(|()| None);
            }
            if self.ended {
                return Ok(None);
            }
            let Ok(next) = self.batches.recv() else {
                self.ended = true;
                return Err(stopped(&self.source));
            };
            let spent = std::mem::replace(&mut self.batch, next);
            // The thread makes a batch when none comes back.
            let _ = self.spent.try_send(spent);
            self.at = 0;
        }
        self.at += 1;
        Ok(Some(self.batch.row(self.at - 1)))
    }

    fn ahead(&self, k: usize) -> Option<ScannedRow<'_>> {
        let at = self.at.checked_add(k)?;
        (at < self.batch.rows.len()).then(|| self.batch.row(at))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::digest::sha256_hex;

    /// The header, every row's line and fields, and the error that ended them, if any.
    type Scanned = (Vec<String>, Vec<(u64, Vec<String>)>, Option<String>);

    fn read_all(rows: &mut impl Rows) -> Scanned {
        let headers = rows.headers().to_vec();
        let mut read = Vec::new();
        loop {
            match rows.next_row() {
                Ok(Some(row)) => read.push((
                    row.line,
                    (0..row.len()).map(|i| row.field(i).to_string()).collect(),
                )),
                Ok(None) => return (headers, read, None),
                Err(error) => return (headers, read, Some(error.to_string())),
            }
        }
    }

    fn assert_reads_as_the_scanner(bytes: Vec<u8>) -> Result<(), TestCaseError> {
        let expected = RowScanner::new("t.csv", bytes.as_slice())
            .map(|mut scanner| read_all(&mut scanner))
            .map_err(|e| e.to_string());
        match RowsAhead::spawn("t.csv", std::io::Cursor::new(bytes.clone())) {
            Ok(mut ahead) => {
                let got = read_all(&mut ahead);
                // Asked again after the end, the reader stays ended.
                prop_assert!(matches!(ahead.next_row(), Ok(None)));
                prop_assert_eq!(Ok(got), expected);
                prop_assert_eq!(ahead.finish(), Ok(Some(sha256_hex(&bytes))));
            }
            Err(error) => prop_assert_eq!(Err(error.to_string()), expected),
        }
        Ok(())
    }

    #[test]
    fn hands_over_many_batches_of_rows_and_the_error_after_them() {
        let mut bytes = b"task_id,score\n".to_vec();
        for i in 0..3 * BATCH_ROWS + 7 {
            bytes.extend(format!("t{i},0.{i}\n").bytes());
        }
        let mut with_error = bytes.clone();
        with_error.extend(b"bad\n");
        for bytes in [bytes, with_error] {
            assert_reads_as_the_scanner(bytes).unwrap();
        }
    }

    #[test]
    fn a_look_ahead_shows_the_rows_next_row_hands_out_later_within_the_batch_in_hand() {
        let mut bytes = b"task_id,score\n".to_vec();
        for i in 0..BATCH_ROWS + 10 {
            bytes.extend(format!("t{i},1\n").bytes());
        }
        let mut ahead = RowsAhead::spawn("t.csv", std::io::Cursor::new(bytes)).unwrap();
        // Before the first batch arrives nothing is in hand.
        assert!(ahead.ahead(0).is_none());
        assert_eq!(ahead.next_row().unwrap().unwrap().field(0), "t0");
        assert_eq!(
            ahead
                .ahead(0)
                .map(|row| row.field(0).to_string())
                .as_deref(),
            Some("t1")
        );
        let last = ahead
            .ahead(BATCH_ROWS - 2)
            .map(|row| (row.line, row.field(0).to_string()));
        assert_eq!(
            last,
            Some((BATCH_ROWS as u64 + 1, format!("t{}", BATCH_ROWS - 1)))
        );
        // The next batch is not looked into.
        assert!(ahead.ahead(BATCH_ROWS - 1).is_none());
        for i in 1..BATCH_ROWS + 10 {
            let shown = ahead.ahead(0).map(|row| row.field(0).to_string());
            let read = ahead.next_row().unwrap().unwrap().field(0).to_string();
            assert_eq!(read, format!("t{i}"));
            assert!(shown.is_none() || shown.as_deref() == Some(read.as_str()));
        }
        assert!(ahead.ahead(0).is_none());
    }

    #[test]
    fn a_consumer_that_stops_early_still_gets_the_digest_of_the_whole_input() {
        let mut bytes = b"task_id,score\n".to_vec();
        for i in 0..5 * BATCH_ROWS {
            bytes.extend(format!("t{i},1\n").bytes());
        }
        let mut ahead = RowsAhead::spawn("t.csv", std::io::Cursor::new(bytes.clone())).unwrap();
        assert_eq!(ahead.next_row().unwrap().unwrap().field(0), "t0");
        assert_eq!(ahead.finish(), Ok(Some(sha256_hex(&bytes))));
    }

    #[test]
    fn columns_not_kept_come_out_empty_and_the_rest_as_read() {
        let mut bytes = b"task_id,prompt,score\n".to_vec();
        for i in 0..2 * BATCH_ROWS + 3 {
            bytes.extend(format!("t{i},\"say \"\"{i}\"\", please\",0.{i}\n").bytes());
        }
        let mut all = RowScanner::new("t.csv", bytes.as_slice()).unwrap();
        let (_, expected, _) = read_all(&mut all);
        let keep = |column: &str| column != "prompt";
        let mut ahead =
            RowsAhead::spawn_keeping("t.csv", std::io::Cursor::new(bytes.clone()), &keep).unwrap();
        let (headers, got, error) = read_all(&mut ahead);
        assert_eq!(headers, ["task_id", "prompt", "score"]);
        assert_eq!(error, None);
        assert_eq!(got.len(), expected.len());
        for ((line, fields), (expected_line, expected_fields)) in got.iter().zip(&expected) {
            assert_eq!(line, expected_line);
            assert_eq!(
                fields,
                &[
                    expected_fields[0].clone(),
                    String::new(),
                    expected_fields[2].clone()
                ]
            );
        }
        assert_eq!(ahead.finish(), Ok(Some(sha256_hex(&bytes))));
    }

    /// Pieces of CSV files, good and bad.
    const PIECES: [&[u8]; 10] = [
        b"a",
        b",",
        b"\"",
        b"\r",
        b"\n",
        b"\r\n",
        b" ",
        b"\xff",
        b"\xc3\xa9",
        b"1,2\n",
    ];

    /// An input handed over at most `size` bytes a read, so that lines straddle the
    /// scanner's reads.
    struct Dribble(std::io::Cursor<Vec<u8>>, usize);

    impl Read for Dribble {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let size = buf.len().min(self.1);
            self.0.read(&mut buf[..size])
        }
    }

    /// Holds the rows of `bytes` read ahead with only column `kept` of the header kept
    /// (the ordinary lines found by the lean reading) to the scanner's: the same lines,
    /// that column's text, every other field empty, the same error and digest.
    fn assert_reads_one_column_as_the_scanner(
        bytes: Vec<u8>,
        kept: &str,
        size: usize,
    ) -> Result<(), TestCaseError> {
        let expected = RowScanner::new("t.csv", bytes.as_slice())
            .map(|mut scanner| read_all(&mut scanner))
            .map_err(|e| e.to_string());
        let input = Dribble(std::io::Cursor::new(bytes.clone()), size);
        match RowsAhead::spawn_keeping("t.csv", input, &|column| column == kept) {
            Ok(mut ahead) => {
                let (headers, rows, error) = read_all(&mut ahead);
                let (_, expected_rows, expected_error) = expected.expect("the header read");
                let at = headers.iter().position(|h| h == kept);
                prop_assert_eq!(rows.len(), expected_rows.len());
                for ((line, fields), (expected_line, expected_fields)) in
                    rows.iter().zip(&expected_rows)
                {
                    prop_assert_eq!(line, expected_line);
                    let only: Vec<String> = (0..expected_fields.len())
                        .map(|i| {
                            if Some(i) == at {
                                expected_fields[i].clone()
                            } else {
                                String::new()
                            }
                        })
                        .collect();
                    prop_assert_eq!(fields, &only);
                }
                prop_assert_eq!(&error, &expected_error);
                prop_assert_eq!(ahead.finish(), Ok(Some(sha256_hex(&bytes))));
                // Undigested: the same rows and error, and no digest.
                let input = Dribble(std::io::Cursor::new(bytes.clone()), size);
                let mut plain =
                    RowsAhead::spawn_undigested("t.csv", input, &|column| column == kept)
                        .map_err(|e| TestCaseError::fail(e.to_string()))?;
                let (plain_headers, plain_rows, plain_error) = read_all(&mut plain);
                prop_assert_eq!(plain_headers, headers);
                prop_assert_eq!(plain_rows, rows);
                prop_assert_eq!(plain_error, error);
                prop_assert_eq!(plain.finish(), Ok(None));
            }
            Err(error) => {
                prop_assert_eq!(Err(error.to_string()), expected.clone().map(|_| ()));
                let input = Dribble(std::io::Cursor::new(bytes.clone()), size);
                let plain = RowsAhead::spawn_undigested("t.csv", input, &|column| column == kept);
                prop_assert_eq!(plain.err().map(|e| e.to_string()), Some(error.to_string()));
            }
        }
        Ok(())
    }

    #[test]
    fn a_wide_file_read_for_one_column_gives_that_column_of_every_row() {
        let mut bytes = b"task_id,group,prompt\n".to_vec();
        for i in 0..3 * BATCH_ROWS {
            bytes.extend(format!("t{i},g{},\"say \"\"{i}\"\", please\"\n", i / 4).bytes());
        }
        // Rows the lean reading leaves to the full one, among ordinary ones.
        bytes.extend(b"\"t,x\",g,p\r\n\nt\xc3\xa9,g,\"a\nb\"\n\"t\"\"q\",g,p\n");
        // A line end inside quotes counts a line: the rows after it are a line further.
        bytes.extend(b"t5,g,\"a\rb\"\nt6,g,p\nt7,g,p\n");
        // And the first error ends the rows.
        bytes.extend(b"t\xff,g,p\nt8,g,p\n");
        for size in [7, 1 << 16] {
            assert_reads_one_column_as_the_scanner(bytes.clone(), "task_id", size).unwrap();
            assert_reads_one_column_as_the_scanner(bytes.clone(), "prompt", size).unwrap();
        }
    }

    proptest! {
        #[test]
        fn reads_one_column_of_any_file_as_the_scanner_reads_it(
            header in 0usize..3,
            picks in proptest::collection::vec(0usize..PIECES.len() + 4, 0..80),
            size in prop_oneof![1usize..9, Just(1 << 16)],
        ) {
            let headers: [&[u8]; 3] = [b"task_id\n", b"task_id,prompt\n", b"\xEF\xBB\xBFgroup,task_id,x\n"];
            let mut bytes = headers[header].to_vec();
            // The pieces, and whole ordinary rows.
            let rows: [&[u8]; 4] = [b"t1,\"p, \"\"q\"\"\"\n", b"\"t2\",p,q\n", b"t3,,\n", b"t4,\"x\ry\",z\n"];
            for &p in &picks {
                bytes.extend_from_slice(PIECES.get(p).copied().unwrap_or_else(|| rows[p - PIECES.len()]));
            }
            assert_reads_one_column_as_the_scanner(bytes, "task_id", size)?;
        }

        #[test]
        fn reads_any_file_as_the_scanner_reads_it(
            picks in proptest::collection::vec(0usize..PIECES.len(), 0..60),
        ) {
            let mut bytes = b"task_id,score\n".to_vec();
            bytes.extend(picks.iter().flat_map(|&p| PIECES[p].iter().copied()));
            assert_reads_as_the_scanner(bytes)?;
        }
    }
}
