//! The graders' lookup tables (words, surnames, task ids): `rustc-hash`'s `FxHasher`,
//! whose few multiplications per eight bytes cost less than the rest of a lookup, where
//! the standard library's SipHash costs more than the rest.
//!
//! On hostile keys: `FxHasher` is not keyed, so whoever chooses the keys of a table can
//! make them collide and its inserts quadratic. The keys inserted here all come from
//! the user's own input files (truth, tasks, scores): the model outputs being graded,
//! the one untrusted input, only look keys up, and a lookup never lengthens a table's
//! probe sequences. Someone who can write the user's truth or scores file can already
//! decide the gate's outcome; colliding keys would only slow the user's own run. So
//! HashDoS does not cross a trust boundary here, and the unkeyed hash is acceptable.

use std::collections::{HashMap, HashSet};
use std::hash::Hasher;

pub(crate) use rustc_hash::FxHasher;

/// A word as a map key, kept inside the map's slot when it is short, so that finding
/// it compares bytes already at hand instead of following a pointer to them (a cache
/// miss apiece once a map outgrows the cache). The key is 16 bytes, so a slot with a
/// 32-bit value is 24 and a table of a million words is a quarter smaller than with a
/// `String`'s 24-byte key. Look one up by its bytes: `map.get(word.as_bytes())`.
#[derive(Debug, Clone)]
pub(crate) enum WordKey {
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
    pub(crate) const INLINE: usize = 14;

    /// The key of `word`.
    pub(crate) fn new(word: &str) -> WordKey {
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

/// A hash map with [`FxHasher`]. Iteration order is arbitrary: never let it reach
/// output.
pub(crate) type FastMap<K, V> = HashMap<K, V, rustc_hash::FxBuildHasher>;

/// A hash set with [`FxHasher`].
pub(crate) type FastSet<K> = HashSet<K, rustc_hash::FxBuildHasher>;

/// A 64-bit fingerprint of a task id (FxHash): a key to file ids under, checked
/// against the id itself wherever two ids could share one.
pub(crate) fn fingerprint(id: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash(text: &str) -> u64 {
        rustc_hash::FxBuildHasher.hash_one(text)
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
