//! A read-only table of byte records keyed by 64-bit fingerprints, kept outside memory:
//! for lookups into more records than memory should hold (the `facts` verifier's known
//! answers when every task has its own). Records are gathered by the external sort
//! ([`Sorter`]), written out in key order to one run of the process's [`RunStore`] (an
//! anonymous temporary file in the binary) in blocks of about [`BLOCK`] bytes, and found
//! again by positioned reads ([`Run::read_at`], `pread`: no memory map, whose pages
//! would count as the process's own) of the block a sparse index of each block's first
//! key names, and of the next ones while they start with that key (a key of many
//! records spans blocks, so a lookup holds one block whatever the key).
//!
//! A blocked Bloom filter ([`BITS_PER_KEY`] bits a key, at most [`MAX_FILTER_BYTES`])
//! answers most lookups of absent keys without touching the disk, and tells apart the
//! keys that hold one record from those that may hold several. What stays in memory is
//! that filter and the sparse index (16 bytes a block): about 1.3 bytes a key and 0.004
//! a byte of records, with the filter capped, so a table of 10^7 keys holds ~16 MB.
//!
//! Deterministic: no hashing is keyed and nothing depends on the order of a hash map.

use std::io::{self, Read};

use super::sorter::{Budget, Run, RunStore, Sorter};

/// About how many bytes a block holds: a new block starts at the first record past
/// this.
pub(crate) const BLOCK: usize = 4096;

/// Bits of the Bloom filter a key (below the cap): ~1% of absent keys pass it.
pub(crate) const BITS_PER_KEY: usize = 10;

/// The most bytes the Bloom filter takes, whatever the number of keys (past it more
/// absent keys pass it and cost a read, and no more memory).
pub(crate) const MAX_FILTER_BYTES: usize = 32 << 20;

/// Records being gathered for a [`DiskTable`].
pub(crate) struct DiskTableBuilder<'s> {
    store: &'s dyn RunStore,
    sorter: Sorter<'s>,
    sort_key: Vec<u8>,
    /// About how many bytes a block holds ([`BLOCK`]; less in tests).
    block: usize,
}

impl<'s> DiskTableBuilder<'s> {
    /// An empty table whose sort keeps at most `budget` in memory and writes its runs
    /// and the table to `store`.
    pub(crate) fn new(store: &'s dyn RunStore, budget: Budget) -> DiskTableBuilder<'s> {
        DiskTableBuilder {
            store,
            sorter: Sorter::new(store, budget),
            sort_key: Vec::new(),
            block: BLOCK,
        }
    }

    /// Adds the record `value` under `key`. Time: amortised O(its length).
    pub(crate) fn push(&mut self, key: u64, value: &[u8]) -> io::Result<()> {
        self.sort_key.clear();
        self.sort_key.extend_from_slice(&key.to_be_bytes());
        self.sort_key.extend_from_slice(value);
        self.sorter.push(&self.sort_key, &[])
    }

    /// The table of the records pushed. Records are sorted by key, then by value's
    /// bytes; of the records of one key, one whose value is `same` as the last value
    /// kept is dropped (so `same` of two equal values keeps each value once; a `same`
    /// that ignores a value's last bytes keeps, of values alike but for them, the one
    /// whose last bytes sort first).
    pub(crate) fn finish(
        self,
        mut same: impl FnMut(&[u8], &[u8]) -> bool,
    ) -> io::Result<DiskTable> {
        let sorted = self.sorter.finish();
        let mut run = self.store.create()?;
        let mut merged = sorted.merge()?;
        let mut firsts: Vec<u64> = Vec::new();
        let mut starts: Vec<u64> = Vec::new();
        let mut chunk: Vec<u8> = Vec::with_capacity(1 << 16);
        let (mut written, mut block_start) = (0_u64, 0_u64);
        let mut last: Option<(u64, Vec<u8>)> = None;
        let mut keys = 0_u64;
        while let Some((sort_key, _)) = merged.next_record()? {
            let (key, value) = split_key(sort_key);
            match &mut last {
                Some((last_key, kept)) if *last_key == key => {
                    if same(kept, value) {
                        continue;
                    }
                    kept.clear();
                    kept.extend_from_slice(value);
                }
                _ => {
                    keys += 1;
                    last = Some((key, value.to_vec()));
                }
            }
            if firsts.is_empty() || written - block_start >= self.block as u64 {
                firsts.push(key);
                starts.push(written);
                block_start = written;
            }
            let length = u32::try_from(value.len())
                .map_err(|_| io::Error::other("a record of 4 GiB or more"))?;
            chunk.extend_from_slice(&key.to_le_bytes());
            chunk.extend_from_slice(&length.to_le_bytes());
            chunk.extend_from_slice(value);
            written += 12 + u64::from(length);
            if chunk.len() >= 1 << 16 {
                run.append(&chunk)?;
                chunk.clear();
            }
        }
        run.append(&chunk)?;
        run.finish()?;
        drop(merged);
        drop(sorted);
        let filter = Filter::of_table(run.as_ref(), keys)?;
        firsts.shrink_to_fit();
        starts.shrink_to_fit();
        Ok(DiskTable {
            run,
            firsts,
            starts,
            end: written,
            filter,
        })
    }
}

/// The key and value of a sort key made by [`DiskTableBuilder::push`].
fn split_key(sort_key: &[u8]) -> (u64, &[u8]) {
    let mut key = [0_u8; 8];
    key.copy_from_slice(&sort_key[..8]);
    (u64::from_be_bytes(key), &sort_key[8..])
}

/// Records sorted by key on disk, found by key.
pub(crate) struct DiskTable {
    run: Box<dyn Run>,
    /// The first key of each block.
    firsts: Vec<u64>,
    /// Where each block starts in the run.
    starts: Vec<u64>,
    /// The bytes written.
    end: u64,
    filter: Filter,
}

impl DiskTable {
    /// False when no record has `key`; true when one may (about 1% of absent keys
    /// below the filter's cap).
    pub(crate) fn may_hold(&self, key: u64) -> bool {
        self.filter.may_hold(key)
    }

    /// False when `key` has at most one record; true when it may have more.
    pub(crate) fn may_hold_several(&self, key: u64) -> bool {
        self.filter.may_hold(key ^ SEVERAL)
    }

    /// Hands every value of `key` to `each`, in the order kept, reading the blocks that
    /// may hold them one at a time into `block` (kept by the caller to be reused):
    /// the last block that starts before the key, and the next ones while they start
    /// with it. Nothing is read when the filter says the key is absent.
    pub(crate) fn find(
        &self,
        key: u64,
        block: &mut Vec<u8>,
        each: &mut dyn FnMut(&[u8]),
    ) -> io::Result<()> {
        if !self.may_hold(key) {
            return Ok(());
        }
        // Records of `key` may end the block before the first that starts with it.
        let mut at = self
            .firsts
            .partition_point(|&first| first < key)
            .saturating_sub(1);
        while at < self.firsts.len() && self.firsts[at] <= key {
            let start = self.starts[at];
            let end = self.starts.get(at + 1).copied().unwrap_or(self.end);
            let length = usize::try_from(end - start).map_err(io::Error::other)?;
            block.resize(length, 0);
            self.run.read_at(start, block)?;
            let mut records = Records { bytes: block };
            while let Some((found, value)) = records.next_record()? {
                if found > key {
                    return Ok(());
                }
                if found == key {
                    each(value);
                }
            }
            at += 1;
        }
        Ok(())
    }
}

/// Mixed into a key to file that it holds several records.
const SEVERAL: u64 = 0x5bd1_e995_9e37_79b9;

/// Records as written to a table's run, read from the start of `bytes`.
struct Records<'a> {
    bytes: &'a [u8],
}

impl<'a> Records<'a> {
    fn next_record(&mut self) -> io::Result<Option<(u64, &'a [u8])>> {
        if self.bytes.is_empty() {
            return Ok(None);
        }
        let bytes = self.bytes;
        if bytes.len() < 12 {
            return Err(cut());
        }
        let key = u64::from_le_bytes(bytes[..8].try_into().map_err(io::Error::other)?);
        let length = u32::from_le_bytes(bytes[8..12].try_into().map_err(io::Error::other)?);
        let end = 12 + length as usize;
        let value = bytes.get(12..end).ok_or_else(cut)?;
        self.bytes = &bytes[end..];
        Ok(Some((key, value)))
    }
}

fn cut() -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        "a table's record is cut short",
    )
}

/// A blocked Bloom filter: each key sets [`PROBES`] bits in one 64-byte block, so a
/// lookup reads one cache line (Putze, Sanders and Singler, "Cache-, hash- and
/// space-efficient Bloom filters", 2007).
struct Filter {
    blocks: Vec<[u64; 8]>,
}

/// Bits a key sets.
const PROBES: u32 = 7;

impl Filter {
    /// The filter of every key of the table in `run` (`keys` of them), and for each
    /// key with a second record, of that key mixed with [`SEVERAL`]; read through once.
    fn of_table(run: &dyn Run, keys: u64) -> io::Result<Filter> {
        let wanted = usize::try_from(keys)
            .unwrap_or(usize::MAX)
            .saturating_mul(BITS_PER_KEY)
            / 512
            + 1;
        let mut filter = Filter {
            blocks: vec![[0; 8]; wanted.min(MAX_FILTER_BYTES / 64)],
        };
        let mut reader = io::BufReader::with_capacity(1 << 16, run.reader()?);
        let mut head = [0_u8; 12];
        let mut value = Vec::new();
        let mut last: Option<(u64, bool)> = None;
        loop {
            match reader.read_exact(&mut head) {
                Ok(()) => {}
                Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => break,
                Err(error) => return Err(error),
            }
            let key = u64::from_le_bytes(head[..8].try_into().map_err(io::Error::other)?);
            let length = u32::from_le_bytes(head[8..].try_into().map_err(io::Error::other)?);
            value.resize(length as usize, 0);
            reader.read_exact(&mut value)?;
            match &mut last {
                Some((last_key, several)) if *last_key == key => {
                    if !*several {
                        filter.insert(key ^ SEVERAL);
                        *several = true;
                    }
                }
                _ => {
                    filter.insert(key);
                    last = Some((key, false));
                }
            }
        }
        Ok(filter)
    }

    /// The block of `key` and the bits it sets there, from a mix of the key (the
    /// caller's fingerprints need not spread their bits).
    fn place(&self, key: u64) -> (usize, [u64; 8]) {
        let mut mixed = key;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        mixed ^= mixed >> 31;
        let block = ((u128::from(mixed >> 32) * self.blocks.len() as u128) >> 32) as usize;
        let mut bits = [0_u64; 8];
        let mut probe = mixed as u32;
        let step = (mixed >> 41) as u32 | 1;
        for _ in 0..PROBES {
            let bit = (probe >> 23) as usize; // 0..512
            bits[bit / 64] |= 1 << (bit % 64);
            probe = probe.wrapping_add(step).wrapping_mul(0x9e37_79b1);
        }
        (block, bits)
    }

    fn insert(&mut self, key: u64) {
        let (block, bits) = self.place(key);
        for (word, bit) in self.blocks[block].iter_mut().zip(bits) {
            *word |= bit;
        }
    }

    fn may_hold(&self, key: u64) -> bool {
        let (block, bits) = self.place(key);
        self.blocks[block]
            .iter()
            .zip(bits)
            .all(|(word, bit)| word & bit == bit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::sorter::MemoryRuns;
    use std::collections::BTreeMap;

    fn table(records: &[(u64, Vec<u8>)], least: usize) -> DiskTable {
        let mut builder = DiskTableBuilder::new(
            &MemoryRuns,
            Budget {
                least,
                per_record: 0,
            },
        );
        // Blocks of a few records, so keys span them.
        builder.block = 1 + least % 700;
        for (key, value) in records {
            builder.push(*key, value).unwrap();
        }
        builder.finish(|a, b| a == b).unwrap()
    }

    /// What the table should hand back: each key's distinct values, sorted.
    fn naive_find(records: &[(u64, Vec<u8>)]) -> BTreeMap<u64, Vec<Vec<u8>>> {
        let mut map: BTreeMap<u64, Vec<Vec<u8>>> = BTreeMap::new();
        for (key, value) in records {
            map.entry(*key).or_default().push(value.clone());
        }
        for values in map.values_mut() {
            values.sort();
            values.dedup();
        }
        map
    }

    fn found(table: &DiskTable, key: u64) -> Vec<Vec<u8>> {
        let mut block = Vec::new();
        let mut values = Vec::new();
        table
            .find(key, &mut block, &mut |value| values.push(value.to_vec()))
            .unwrap();
        values
    }

    proptest::proptest! {
        #[test]
        fn a_table_finds_each_keys_distinct_values_as_a_map_of_them_does(
            records in proptest::collection::vec(
                (0_u64..64, proptest::collection::vec(0_u8..4, 0..300)),
                0..200,
            ),
            least in 1_usize..5000,
            absent in proptest::collection::vec(64_u64..1000, 10),
        ) {
            let table = table(&records, least);
            let naive = naive_find(&records);
            for (key, values) in &naive {
                proptest::prop_assert!(table.may_hold(*key));
                proptest::prop_assert_eq!(&found(&table, *key), values);
                if values.len() > 1 {
                    proptest::prop_assert!(table.may_hold_several(*key));
                }
            }
            for key in absent.into_iter().chain([u64::MAX, 0]) {
                if !naive.contains_key(&key) {
                    proptest::prop_assert!(found(&table, key).is_empty());
                }
            }
        }
    }

    #[test]
    fn a_key_of_a_megabyte_of_records_is_read_a_block_at_a_time() {
        let mut builder = DiskTableBuilder::new(
            &MemoryRuns,
            Budget {
                least: 1 << 16,
                per_record: 0,
            },
        );
        for i in 0..10_000_u32 {
            builder.push(7, format!("{i:0100}").as_bytes()).unwrap();
            builder.push(u64::from(i) << 8, b"other").unwrap();
        }
        let table = builder.finish(|a, b| a == b).unwrap();
        let mut block = Vec::new();
        let mut count = 0;
        table.find(7, &mut block, &mut |_| count += 1).unwrap();
        assert_eq!(count, 10_000);
        assert!(
            block.capacity() < 2 * BLOCK,
            "{} bytes held",
            block.capacity()
        );
    }

    #[test]
    fn a_same_that_ignores_the_last_bytes_keeps_the_value_whose_last_bytes_sort_first() {
        let mut builder = DiskTableBuilder::new(
            &MemoryRuns,
            Budget {
                least: 10,
                per_record: 0,
            },
        );
        for (value, order) in [("paris", 9_u8), ("paris", 3), ("berlin", 5), ("paris", 7)] {
            let mut bytes = value.as_bytes().to_vec();
            bytes.push(order);
            builder.push(42, &bytes).unwrap();
        }
        let table = builder
            .finish(|a, b| a[..a.len() - 1] == b[..b.len() - 1])
            .unwrap();
        assert_eq!(
            found(&table, 42),
            vec![b"berlin\x05".to_vec(), b"paris\x03".to_vec()]
        );
    }

    #[test]
    fn the_filter_lets_about_one_absent_key_in_a_hundred_through_and_keys_of_one_record_pass_as_one()
     {
        let records: Vec<(u64, Vec<u8>)> = (0..20_000_u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15), vec![1]))
            .collect();
        let table = table(&records, 1 << 16);
        let passed = (0..100_000_u64)
            .map(|i| (i + 1_000_000).wrapping_mul(0x2545_f491_4f6c_dd1d))
            .filter(|&key| table.may_hold(key))
            .count();
        assert!(passed < 2_000, "{passed} of 100,000 absent keys passed");
        let several = records
            .iter()
            .filter(|(key, _)| table.may_hold_several(*key))
            .count();
        assert!(
            several < 400,
            "{several} keys of one record said to hold several"
        );
        // Many blocks, each found.
        assert!(table.firsts.len() > 50);
        assert_eq!(found(&table, records[12_345].0), vec![vec![1]]);
    }
}
