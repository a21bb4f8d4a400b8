//! The sampling stream behind `split`: ChaCha20 keyed by the seed, read 64 bits at a
//! time, with uniform indices and shuffles written here on that raw output so that a
//! seed gives the same split whatever `rand` release is installed.
//!
//! The key is the seed as 8 little-endian bytes followed by 24 zero bytes; the stream
//! is `rand_chacha::ChaCha20Rng` (20 rounds, stream 0, counter from 0), whose output is
//! the ChaCha20 keystream of RFC 8439 read as little-endian words.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// A seeded stream of uniform draws.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: ChaCha20Rng,
}

impl Stream {
    /// The stream for `seed`.
    pub fn new(seed: u64) -> Stream {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Stream {
            rng: ChaCha20Rng::from_seed(key),
        }
    }

    /// The next raw 64-bit word.
    pub fn next_word(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform integer in `0..bound` by Lemire's multiply-and-reject method
    /// (Lemire 2019, "Fast random integer generation in an interval"): exact, no
    /// modulo bias. `bound` must be positive.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0, "below(0) has no value to return");
        let bound = bound.max(1);
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let product = u128::from(self.next_word()) * u128::from(bound);
            if (product as u64) >= threshold {
                return (product >> 64) as u64;
            }
        }
    }

    /// Fisher–Yates: for `i` from the last index down to 1, swap item `i` with item
    /// `below(i + 1)`.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_gives_the_rfc_8439_zero_key_keystream() {
        // RFC 8439 appendix A.1, test vector #1 (all-zero key, nonce and counter):
        // keystream bytes 76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 ...
        let mut stream = Stream::new(0);
        assert_eq!(stream.next_word(), 0x903d_f1a0_ade0_b876);
        assert_eq!(stream.next_word(), 0x28bd_8653_e56a_5d40);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut stream = Stream::new(13);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[stream.below(7) as usize] += 1;
        }
        assert!(
            seen.iter().all(|&count| (850..1150).contains(&count)),
            "{seen:?}"
        );
    }

    #[test]
    fn shuffle_is_a_permutation_and_depends_on_the_seed() {
        let mut a: Vec<u32> = (0..50).collect();
        let mut b = a.clone();
        Stream::new(1).shuffle(&mut a);
        Stream::new(2).shuffle(&mut b);
        assert_ne!(a, b);
        a.sort_unstable();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }
}
