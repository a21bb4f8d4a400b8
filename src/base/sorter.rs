//! An external sort of keyed byte records: records are gathered in memory up to a
//! budget that grows with their number ([`Budget`]), each full buffer is sorted and
//! written out as a run to a [`RunStore`] (temporary files in the binary, memory in the
//! tests), and the runs are merged when read ([`Sorted::merge`], as often as wanted).
//! So memory holds at most the budget and one read buffer per run, however many records
//! there are: `admit` sorts a million pairs' `pairs.csv` rows this way.
//!
//! Records with equal keys come out in the order they were pushed.

use std::cmp::Ordering;
use std::io::{self, BufReader, Read};

/// Where sorted runs are kept until they are merged.
pub(crate) trait RunStore: Send + Sync {
    /// A new, empty run.
    fn create(&self) -> io::Result<Box<dyn Run>>;
}

/// One run: written once, from its start, then read back from its start as often as
/// needed.
pub(crate) trait Run: Send + Sync {
    /// Appends `bytes`.
    fn append(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Ends the writing: everything appended can be read.
    fn finish(&mut self) -> io::Result<()>;
    /// A reader from the run's start.
    fn reader(&self) -> io::Result<Box<dyn Read + Send + '_>>;
    /// Fills `buffer` with the bytes from `offset` on, once the run is finished: a
    /// positioned read, which moves no reader's place.
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()>;
}

/// Runs held in memory: for tests, and where no other store was installed.
#[derive(Debug, Default)]
pub(crate) struct MemoryRuns;

/// The store installed for this process ([`install_run_store`]), else memory.
static STORE: std::sync::OnceLock<Box<dyn RunStore>> = std::sync::OnceLock::new();

/// Makes `store` the process's store of sorted runs (the binary installs temporary
/// files; a library user that installs nothing sorts in memory). The first call wins.
pub(crate) fn install_run_store(store: Box<dyn RunStore>) {
    let _ = STORE.set(store);
}

/// The process's store of sorted runs.
pub(crate) fn run_store() -> &'static dyn RunStore {
    static MEMORY: MemoryRuns = MemoryRuns;
    STORE.get().map_or(&MEMORY, |store| store.as_ref())
}

impl RunStore for MemoryRuns {
    fn create(&self) -> io::Result<Box<dyn Run>> {
        Ok(Box::new(Vec::<u8>::new()))
    }
}

impl Run for Vec<u8> {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.extend_from_slice(bytes);
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn reader(&self) -> io::Result<Box<dyn Read + Send + '_>> {
        Ok(Box::new(self.as_slice()))
    }

    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        let start = usize::try_from(offset).map_err(io::Error::other)?;
        let bytes = start
            .checked_add(buffer.len())
            .and_then(|end| self.get(start..end))
            .ok_or_else(truncated)?;
        buffer.copy_from_slice(bytes);
        Ok(())
    }
}

/// How many bytes of records may wait in memory before they are written out as a run:
/// `per_record` for every record pushed so far, and at least `least`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    /// The least.
    pub least: usize,
    /// Bytes per record pushed so far.
    pub per_record: usize,
}

impl Budget {
    fn bytes(&self, records: u64) -> usize {
        let grown = usize::try_from(records).unwrap_or(usize::MAX);
        self.least.max(grown.saturating_mul(self.per_record))
    }
}

/// Bytes of a key kept beside each record for sorting, in an integer with the record's
/// number: most comparisons end there.
const PREFIX: usize = 12;

/// Records in memory, not yet sorted: each one's key and payload in `bytes`, and per
/// record its key's first [`PREFIX`] bytes with its number, and where it starts.
#[derive(Debug, Default)]
struct Buffer {
    bytes: Vec<u8>,
    keys: Vec<u128>,
    starts: Vec<usize>,
}

impl Buffer {
    fn push(&mut self, key: &[u8], payload: &[u8]) {
        let number = self.starts.len() as u32;
        let mut head = [0_u8; 16];
        let prefix = &key[..key.len().min(PREFIX)];
        head[..prefix.len()].copy_from_slice(prefix);
        head[PREFIX..].copy_from_slice(&number.to_be_bytes());
        self.keys.push(u128::from_be_bytes(head));
        self.starts.push(self.bytes.len());
        encode(&mut self.bytes, key, payload);
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    /// The record numbered `number`: its key and payload.
    fn record(&self, number: usize) -> (&[u8], &[u8]) {
        decode(&self.bytes[self.starts[number]..]).0
    }

    /// Sorts the records by key, then by number; the keys vector then lists them in
    /// that order.
    fn sort(&mut self) {
        let already = self.keys.windows(2).all(|w| {
            let (x, y) = (w[0], w[1]);
            x >> 32 < y >> 32 || (x >> 32 == y >> 32 && self.compare(x, y).is_lt())
        });
        if already {
            return;
        }
        let keys = std::mem::take(&mut self.keys);
        let mut keys = keys;
        keys.sort_unstable_by(|&x, &y| (x >> 32).cmp(&(y >> 32)).then_with(|| self.compare(x, y)));
        self.keys = keys;
    }

    /// Two records whose prefixes are equal, by whole key then by number.
    fn compare(&self, x: u128, y: u128) -> Ordering {
        let (a, b) = (x as u32 as usize, y as u32 as usize);
        self.record(a).0.cmp(self.record(b).0).then(a.cmp(&b))
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.keys.clear();
        self.starts.clear();
    }
}

/// Appends one record: the key's length (LEB128), the key, the payload's length, the
/// payload.
fn encode(out: &mut Vec<u8>, key: &[u8], payload: &[u8]) {
    for part in [key, payload] {
        let mut length = part.len() as u64;
        loop {
            let byte = (length & 0x7f) as u8;
            length >>= 7;
            if length == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
        out.extend_from_slice(part);
    }
}

/// The record at the start of `bytes` and the bytes it takes.
fn decode(bytes: &[u8]) -> ((&[u8], &[u8]), usize) {
    let mut at = 0;
    let mut part = || {
        let mut length = 0_usize;
        let mut shift = 0;
        loop {
            let byte = bytes[at];
            at += 1;
            length |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        at += length;
        &bytes[at - length..at]
    };
    let key = part();
    let payload = part();
    ((key, payload), at)
}

/// Records being gathered for an external sort.
pub(crate) struct Sorter<'s> {
    store: &'s dyn RunStore,
    budget: Budget,
    buffer: Buffer,
    runs: Vec<Box<dyn Run>>,
    pushed: u64,
}

impl<'s> Sorter<'s> {
    /// An empty sorter writing its runs to `store` once more than `budget` waits.
    pub(crate) fn new(store: &'s dyn RunStore, budget: Budget) -> Sorter<'s> {
        Sorter {
            store,
            budget,
            buffer: Buffer::default(),
            runs: Vec::new(),
            pushed: 0,
        }
    }

    /// Adds a record. Time: amortised O(its length), plus a sort now and then.
    pub(crate) fn push(&mut self, key: &[u8], payload: &[u8]) -> io::Result<()> {
        self.buffer.push(key, payload);
        self.pushed += 1;
        if self.buffer.len() >= u32::MAX as usize
            || self.buffer.bytes.len() + 24 * self.buffer.len() > self.budget.bytes(self.pushed)
        {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the records waiting in memory and writes them out as a run.
    fn spill(&mut self) -> io::Result<()> {
        self.buffer.sort();
        let mut run = self.store.create()?;
        let mut chunk = Vec::with_capacity(1 << 16);
        for &key in &self.buffer.keys {
            let start = self.buffer.starts[key as u32 as usize];
            let (_, length) = decode(&self.buffer.bytes[start..]);
            chunk.extend_from_slice(&self.buffer.bytes[start..start + length]);
            if chunk.len() >= 1 << 16 {
                run.append(&chunk)?;
                chunk.clear();
            }
        }
        run.append(&chunk)?;
        run.finish()?;
        self.runs.push(run);
        self.buffer.clear();
        Ok(())
    }

    /// Every record pushed, ready to be merged in key order; the last records stay in
    /// memory.
    pub(crate) fn finish(mut self) -> Sorted {
        self.buffer.sort();
        Sorted {
            buffer: self.buffer,
            runs: self.runs,
            records: self.pushed,
        }
    }
}

/// Sorted runs, merged as they are read.
pub(crate) struct Sorted {
    buffer: Buffer,
    runs: Vec<Box<dyn Run>>,
    records: u64,
}

impl std::fmt::Debug for Sorted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sorted")
            .field("runs", &self.runs.len())
            .field("records", &self.records)
            .finish()
    }
}

impl Sorted {
    /// Records held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> u64 {
        self.records
    }

    /// The records in key order (equal keys in the order pushed), read from the start.
    pub(crate) fn merge(&self) -> io::Result<Merged<'_>> {
        let mut cursors = Vec::with_capacity(self.runs.len() + 1);
        for run in &self.runs {
            let mut cursor = Cursor::File {
                reader: BufReader::with_capacity(1 << 16, run.reader()?),
                key: Vec::new(),
                payload: Vec::new(),
                live: false,
            };
            cursor.advance()?;
            cursors.push(cursor);
        }
        let mut memory = Cursor::Memory {
            buffer: &self.buffer,
            at: 0,
        };
        memory.advance()?;
        cursors.push(memory);
        // Runs were written in order, so among equal keys the lower index goes first.
        let mut heap: Vec<usize> = (0..cursors.len()).filter(|&i| cursors[i].live()).collect();
        let mut merged = Merged {
            cursors,
            heap: Vec::new(),
            started: false,
        };
        heap.sort_by(|&a, &b| merged.order(a, b));
        merged.heap = heap;
        Ok(merged)
    }
}

/// One run being read.
enum Cursor<'a> {
    File {
        reader: BufReader<Box<dyn Read + Send + 'a>>,
        key: Vec<u8>,
        payload: Vec<u8>,
        live: bool,
    },
    Memory {
        buffer: &'a Buffer,
        /// The next record (in sorted order) to hand out, plus one; 0 before the first.
        at: usize,
    },
}

impl Cursor<'_> {
    fn live(&self) -> bool {
        match self {
            Cursor::File { live, .. } => *live,
            Cursor::Memory { buffer, at } => *at >= 1 && *at <= buffer.keys.len(),
        }
    }

    fn current(&self) -> (&[u8], &[u8]) {
        match self {
            Cursor::File { key, payload, .. } => (key, payload),
            Cursor::Memory { buffer, at } => buffer.record(buffer.keys[at - 1] as u32 as usize),
        }
    }

    fn advance(&mut self) -> io::Result<()> {
        match self {
            Cursor::File {
                reader,
                key,
                payload,
                live,
            } => {
                *live = match read_length(reader)? {
                    None => false,
                    Some(length) => {
                        read_part(reader, key, length)?;
                        let length = read_length(reader)?.ok_or_else(truncated)?;
                        read_part(reader, payload, length)?;
                        true
                    }
                };
            }
            Cursor::Memory { at, .. } => *at += 1,
        }
        Ok(())
    }
}

fn truncated() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "a sorted run ends inside a record",
    )
}

/// A length, or `None` at the run's end.
fn read_length(reader: &mut impl Read) -> io::Result<Option<usize>> {
    let mut length = 0_usize;
    let mut shift = 0;
    let mut first = true;
    loop {
        let mut byte = [0_u8];
        if reader.read(&mut byte)? == 0 {
            return if first { Ok(None) } else { Err(truncated()) };
        }
        first = false;
        length |= usize::from(byte[0] & 0x7f) << shift;
        shift += 7;
        if byte[0] & 0x80 == 0 {
            return Ok(Some(length));
        }
    }
}

fn read_part(reader: &mut impl Read, into: &mut Vec<u8>, length: usize) -> io::Result<()> {
    into.resize(length, 0);
    reader.read_exact(into)
}

/// The merge of sorted runs: a heap of the runs with records left, by their current
/// record's key, then by run.
pub(crate) struct Merged<'a> {
    cursors: Vec<Cursor<'a>>,
    /// Runs with records left, as a binary heap whose least is at 0.
    heap: Vec<usize>,
    /// Whether a record was handed out (it is at the top and must be moved past).
    started: bool,
}

impl Merged<'_> {
    fn order(&self, a: usize, b: usize) -> Ordering {
        self.cursors[a]
            .current()
            .0
            .cmp(self.cursors[b].current().0)
            .then(a.cmp(&b))
    }

    /// The next record in order, or `None` after the last.
    pub(crate) fn next_record(&mut self) -> io::Result<Option<(&[u8], &[u8])>> {
        if self.started
            && let Some(&top) = self.heap.first()
        {
            self.cursors[top].advance()?;
            if !self.cursors[top].live() {
                let last = self.heap.pop().expect("the heap holds its top");
                if !self.heap.is_empty() {
                    self.heap[0] = last;
                }
            }
            self.sift_down();
        }
        self.started = true;
        Ok(self.heap.first().map(|&top| self.cursors[top].current()))
    }

    fn sift_down(&mut self) {
        let mut at = 0;
        loop {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            for child in [left, right] {
                if child < self.heap.len() && self.order(self.heap[child], self.heap[least]).is_lt()
                {
                    least = child;
                }
            }
            if least == at {
                return;
            }
            self.heap.swap(at, least);
            at = least;
        }
    }
}

/// Runs held in memory of which the first `unreadable` made cannot be read back by
/// position ("Stale file handle"), as when something removes the temporary folder's
/// files while evogate runs: for the tests of lookups kept on disk.
#[cfg(test)]
#[derive(Debug)]
pub(crate) struct UnreadableRuns {
    unreadable: usize,
    made: std::sync::atomic::AtomicUsize,
}

#[cfg(test)]
impl UnreadableRuns {
    /// A store whose first `unreadable` runs cannot be read by position.
    pub(crate) const fn first(unreadable: usize) -> UnreadableRuns {
        UnreadableRuns {
            unreadable,
            made: std::sync::atomic::AtomicUsize::new(0),
        }
    }
}

#[cfg(test)]
impl RunStore for UnreadableRuns {
    fn create(&self) -> io::Result<Box<dyn Run>> {
        let made = self.made.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(Box::new(MaybeUnreadable {
            bytes: Vec::new(),
            readable: made >= self.unreadable,
        }))
    }
}

/// One run of [`UnreadableRuns`].
#[cfg(test)]
struct MaybeUnreadable {
    bytes: Vec<u8>,
    readable: bool,
}

#[cfg(test)]
impl Run for MaybeUnreadable {
    fn append(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }
    fn finish(&mut self) -> io::Result<()> {
        Ok(())
    }
    fn reader(&self) -> io::Result<Box<dyn Read + Send + '_>> {
        Ok(Box::new(&self.bytes[..]))
    }
    fn read_at(&self, offset: u64, buffer: &mut [u8]) -> io::Result<()> {
        if !self.readable {
            return Err(io::Error::other("Stale file handle"));
        }
        self.bytes.read_at(offset, buffer)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn sorted(records: &[(Vec<u8>, Vec<u8>)], budget: Budget) -> Vec<(Vec<u8>, Vec<u8>)> {
        let store = MemoryRuns;
        let mut sorter = Sorter::new(&store, budget);
        for (key, payload) in records {
            sorter.push(key, payload).unwrap();
        }
        let sorted = sorter.finish();
        assert_eq!(sorted.len(), records.len() as u64);
        let mut out = Vec::new();
        // Merged twice: a second reading gives the same records.
        for _ in 0..2 {
            let mut merged = sorted.merge().unwrap();
            let mut once = Vec::new();
            while let Some((key, payload)) = merged.next_record().unwrap() {
                once.push((key.to_vec(), payload.to_vec()));
            }
            out = once;
        }
        out
    }

    proptest! {
        #[test]
        fn merges_runs_into_a_stable_sort_by_key_whatever_the_budget(
            records in prop::collection::vec(
                (prop::collection::vec(prop::sample::select(vec![b'a', b'b', 0, 0xff]), 0..16),
                 prop::collection::vec(any::<u8>(), 0..200)),
                0..300),
            least in 0usize..2000,
            per_record in 0usize..40,
        ) {
            let mut expected = records.clone();
            expected.sort_by(|x, y| x.0.cmp(&y.0));
            let got = sorted(&records, Budget { least, per_record });
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn long_keys_that_share_their_first_twelve_bytes_sort_by_the_rest() {
        let records: Vec<(Vec<u8>, Vec<u8>)> = (0..500_u32)
            .rev()
            .map(|i| {
                (
                    format!("paper:2401.{:05}:k", i * 7 % 500).into_bytes(),
                    i.to_be_bytes().to_vec(),
                )
            })
            .collect();
        let mut expected = records.clone();
        expected.sort_by(|x, y| x.0.cmp(&y.0));
        for least in [0, 100, 1 << 20] {
            assert_eq!(
                sorted(
                    &records,
                    Budget {
                        least,
                        per_record: 0
                    }
                ),
                expected
            );
        }
    }

    #[test]
    fn a_run_cut_inside_a_record_is_an_error_not_a_short_read() {
        let mut bytes = Vec::new();
        encode(&mut bytes, b"key", b"payload");
        let mut cut = &bytes[..bytes.len() - 2];
        assert!(read_length(&mut cut).unwrap().is_some());
        let mut cursor = Cursor::File {
            reader: BufReader::new(Box::new(&bytes[..bytes.len() - 2])),
            key: Vec::new(),
            payload: Vec::new(),
            live: false,
        };
        assert_eq!(
            cursor.advance().unwrap_err().kind(),
            io::ErrorKind::UnexpectedEof
        );
    }
}
