//! A fast hash for the graders' lookup tables (words, surnames, task ids), whose keys
//! come from the trusted truth file: the standard library's SipHash guards against
//! keys an attacker chooses, which costs more per short word than the rest of a
//! lookup. Answers only look keys up, never insert them, so hostile text cannot
//! lengthen the probe sequences of a table built from the truth.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A multiply-rotate hash of eight bytes at a time (the `FxHash` scheme of rustc),
/// finished with the SplitMix64 mixer so that every output bit depends on the input.
#[derive(Debug, Default, Clone, Copy)]
pub struct WordHasher(u64);

impl WordHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ (rest.len() as u64) << 59);
        }
    }

    fn write_u8(&mut self, value: u8) {
        self.add(u64::from(value));
    }

    fn write_u32(&mut self, value: u32) {
        self.add(u64::from(value));
    }

    fn write_u64(&mut self, value: u64) {
        self.add(value);
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A word as a map key, kept inside the map's slot when it is short, so that finding
/// it compares bytes already at hand instead of following a pointer to them (a cache
/// miss apiece once a map outgrows the cache). The key is 16 bytes, so a slot with a
/// 32-bit value is 24 and a table of a million words is a quarter smaller than with a
/// `String`'s 24-byte key. Look one up by its bytes: `map.get(word.as_bytes())`.
#[derive(Debug, Clone)]
pub enum WordKey {
    /// A word of at most [`WordKey::INLINE`] bytes.
    Inline {
        /// Its length.
        len: u8,
        /// Its bytes, then zeros.
        bytes: [u8; WordKey::INLINE],
    },
    /// A longer word, behind a thin pointer (a boxed slice's would be 16 bytes).
    Heap(Box<Box<[u8]>>),
}

impl WordKey {
    /// The longest word kept inline: with its length and the variant's tag, 16 bytes.
    pub const INLINE: usize = 14;

    /// The key of `word`.
    pub fn new(word: &str) -> WordKey {
        let word = word.as_bytes();
        if word.len() <= WordKey::INLINE {
            let mut bytes = [0; WordKey::INLINE];
            bytes[..word.len()].copy_from_slice(word);
            WordKey::Inline {
                len: word.len() as u8,
                bytes,
            }
        } else {
            WordKey::Heap(Box::new(word.into()))
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            WordKey::Inline { len, bytes } => &bytes[..usize::from(*len)],
            WordKey::Heap(bytes) => bytes,
        }
    }
}

impl std::borrow::Borrow<[u8]> for WordKey {
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for WordKey {
    fn eq(&self, other: &WordKey) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for WordKey {}

impl std::hash::Hash for WordKey {
    // As its bytes hash, since maps find it by them.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

/// A hash map with [`WordHasher`]. Iteration order is arbitrary: never let it reach
/// output.
pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;

/// A hash set with [`WordHasher`].
pub type FastSet<K> = HashSet<K, BuildHasherDefault<WordHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash(text: &str) -> u64 {
        BuildHasherDefault::<WordHasher>::default().hash_one(text)
    }

    #[test]
    fn strings_that_differ_in_any_byte_or_length_hash_apart() {
        let texts = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "a\0",
            "attention",
            "attentioN",
            "12345678",
            "123456789",
        ];
        for (i, a) in texts.iter().enumerate() {
            for b in &texts[i + 1..] {
                assert_ne!(hash(a), hash(b), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn word_keys_short_and_long_are_found_by_their_bytes() {
        let words: Vec<String> = (0..60)
            .map(|n| "é".repeat(n / 2) + &"x".repeat(n % 2))
            .collect();
        let mut map: FastMap<WordKey, usize> = FastMap::default();
        for (i, word) in words.iter().enumerate() {
            assert_eq!(map.insert(WordKey::new(word), i), None, "{word}");
        }
        for (i, word) in words.iter().enumerate() {
            assert_eq!(map.get(word.as_bytes()), Some(&i), "{word}");
            assert_eq!(WordKey::new(word), WordKey::new(&word.clone()));
        }
        assert_eq!(map.get("é".repeat(31).as_bytes()), None);
        assert_eq!(map.get(&b"x\0"[..]), None);
        assert_eq!(std::mem::size_of::<WordKey>(), 16);
    }

    #[test]
    fn maps_find_what_was_inserted() {
        let mut map: FastMap<String, usize> = FastMap::default();
        for i in 0..1000 {
            map.insert(format!("word{i}"), i);
        }
        assert!((0..1000).all(|i| map[&format!("word{i}")] == i));
        assert!(!map.contains_key("word1000"));
    }
}
