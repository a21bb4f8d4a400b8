//! An open-addressing hash index of positions: each entry is a number below
//! `u32::MAX` (a position in the caller's own list) filed under the 64-bit hash of a key
//! the caller keeps, and a lookup checks each candidate against the key through a
//! closure. A slot is 8 bytes (32 bits of the hash and the position), where a standard
//! map of a 64-bit fingerprint to a `u32` takes 16 and a control byte, and grows by
//! rehashing tables that must all be touched: an index built at its final size holds
//! 11 bytes an entry, one that grows at most 21 (and both tables while it doubles).

/// Positions filed by the hash of their keys. Two keys with one hash cost a
/// comparison, never a wrong answer: the caller's closure decides equality.
#[derive(Debug, Clone, Default)]
pub(crate) struct HashIndex {
    /// 0 for an empty slot, else the hash's tag in the high 32 bits and the position
    /// plus one in the low 32.
    slots: Vec<u64>,
    /// Entries filed.
    len: usize,
}

/// The fewest slots of a table.
const MIN_SLOTS: usize = 8;

/// The 32 bits of `hash` an entry keeps: mixed, since the table's slot is read from
/// the tag's high bits and a weak hash's high bits can vary little.
fn tag(hash: u64) -> u32 {
    let mixed = (hash ^ (hash >> 31)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> 32) as u32
}

impl HashIndex {
    /// An index sized for `entries` entries: it does not grow until they are filed.
    pub(crate) fn with_capacity(entries: usize) -> HashIndex {
        HashIndex {
            slots: vec![0; slots_for(entries)],
            len: 0,
        }
    }

    /// Entries filed.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The first slot for `tag` in a table of `size` slots (multiply-shift, so any
    /// size works).
    fn home(tag: u32, size: usize) -> usize {
        ((u64::from(tag) * size as u64) >> 32) as usize
    }

    /// The position filed under `hash` for which `is` holds, if any.
    /// Time: O(1) expected.
    pub(crate) fn find(&self, hash: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let tag = tag(hash);
        let size = self.slots.len();
        let mut at = Self::home(tag, size);
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                return None;
            }
            if (slot >> 32) as u32 == tag {
                let position = (slot as u32) - 1;
                if is(position) {
                    return Some(position);
                }
            }
            at += 1;
            if at == size {
                at = 0;
            }
        }
    }

    /// Files `position` (below `u32::MAX`) under `hash`, without looking for an equal
    /// key: [`HashIndex::find`] first when keys may repeat. Time: O(1) amortised.
    pub(crate) fn insert(&mut self, hash: u64, position: u32) {
        assert!(
            position < u32::MAX,
            "an index holds positions below 2^32 - 1"
        );
        if 4 * (self.len + 1) > 3 * self.slots.len() {
            self.grow();
        }
        let tag = tag(hash);
        Self::place(
            &mut self.slots,
            (u64::from(tag) << 32) | u64::from(position + 1),
        );
        self.len += 1;
    }

    /// Puts `entry` in the first empty slot from its home.
    fn place(slots: &mut [u64], entry: u64) {
        let size = slots.len();
        let mut at = Self::home((entry >> 32) as u32, size);
        while slots[at] != 0 {
            at += 1;
            if at == size {
                at = 0;
            }
        }
        slots[at] = entry;
    }

    /// Doubles the table, rehashing from the tags kept.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(MIN_SLOTS);
        let mut slots = vec![0u64; size];
        for &entry in self.slots.iter().filter(|&&entry| entry != 0) {
            Self::place(&mut slots, entry);
        }
        self.slots = slots;
    }
}

/// Slots for `entries` entries at most three quarters full.
fn slots_for(entries: usize) -> usize {
    (entries + entries / 3 + 1).max(MIN_SLOTS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_key_filed_and_no_other_even_when_hashes_collide() {
        let keys: Vec<String> = (0..5000).map(|i| format!("key{i}")).collect();
        // Every key under one of 7 hashes: the closure alone tells them apart.
        let weak = |key: &str| key.len() as u64 % 7;
        for mut index in [HashIndex::default(), HashIndex::with_capacity(keys.len())] {
            for (position, key) in keys.iter().enumerate() {
                assert_eq!(index.find(weak(key), |p| keys[p as usize] == *key), None);
                index.insert(weak(key), position as u32);
            }
            assert_eq!(index.len(), keys.len());
            for (position, key) in keys.iter().enumerate() {
                let found = index.find(weak(key), |p| keys[p as usize] == *key);
                assert_eq!(found, Some(position as u32), "{key}");
            }
            assert_eq!(
                index.find(weak("key5000"), |p| keys[p as usize] == "key5000"),
                None
            );
        }
    }

    #[test]
    fn an_index_sized_ahead_never_grows() {
        let mut index = HashIndex::with_capacity(1000);
        let slots = index.slots.len();
        for position in 0..1000u32 {
            index.insert(
                crate::base::hash::fingerprint(&position.to_string()),
                position,
            );
        }
        assert_eq!(index.slots.len(), slots);
        assert!(slots * 8 <= 1000 * 11 + 64, "{slots} slots");
    }
}
