//! The one seeded random stream: ChaCha20, read 64 bits at a time, with uniform
//! integers, shuffles and unit draws written here on that raw output, so that a seed
//! gives the same split, bootstrap interval or generated file whatever `rand` release
//! is installed. Each way of turning a seed into the stream's key has its own named
//! constructor, so that none of the files and intervals made so far changes.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// A seeded stream of uniform draws.
#[derive(Debug, Clone)]
pub struct Random {
    rng: ChaCha20Rng,
}

impl Random {
    /// The stream keyed by `seed` as 8 little-endian bytes followed by 24 zero bytes:
    /// `split`'s seeding. The stream is `rand_chacha::ChaCha20Rng` (20 rounds, stream
    /// 0, counter from 0), whose output is the ChaCha20 keystream of RFC 8439 read as
    /// little-endian words.
    pub fn keyed(seed: u64) -> Random {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Random {
            rng: ChaCha20Rng::from_seed(key),
        }
    }

    /// The stream whose key `rand_core`'s `seed_from_u64` expands from `seed` (PCG32):
    /// the bootstrap's seeding, and the example data generators'.
    pub fn expanded(seed: u64) -> Random {
        Random {
            rng: ChaCha20Rng::seed_from_u64(seed),
        }
    }

    /// The next raw 64-bit word.
    pub fn next_word(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// A uniform integer in `0..bound` by Lemire's multiply-and-reject method
    /// (Lemire 2019, "Fast random integer generation in an interval"): exact, no
    /// modulo bias, and usually one draw. `bound` must be positive.
    pub fn below(&mut self, bound: u64) -> u64 {
        debug_assert!(bound > 0, "below(0) has no value to return");
        uniform_below(&mut self.rng, bound.max(1))
    }

    /// A uniform draw in [0, 1) from the top 53 bits of one raw word.
    pub fn unit(&mut self) -> f64 {
        (self.next_word() >> 11) as f64 / (1u64 << 53) as f64
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

/// [`Random::below`] on any generator's raw words, so a test can replay chosen words
/// through the rejection rule. `n` must be positive.
pub(crate) fn uniform_below<R: RngCore>(rng: &mut R, n: u64) -> u64 {
    // Products whose low half falls below 2^64 mod n would over-represent some values.
    let threshold = n.wrapping_neg() % n;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(n);
        if (product as u64) >= threshold {
            return (product >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_zero_keyed_gives_the_rfc_8439_zero_key_keystream() {
        // RFC 8439 appendix A.1, test vector #1 (all-zero key, nonce and counter):
        // keystream bytes 76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 ...
        let mut stream = Random::keyed(0);
        assert_eq!(stream.next_word(), 0x903d_f1a0_ade0_b876);
        assert_eq!(stream.next_word(), 0x28bd_8653_e56a_5d40);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut stream = Random::keyed(13);
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
        Random::keyed(1).shuffle(&mut a);
        Random::keyed(2).shuffle(&mut b);
        assert_ne!(a, b);
        a.sort_unstable();
        assert_eq!(a, (0..50).collect::<Vec<_>>());
    }

    #[test]
    fn unit_draws_lie_in_the_unit_interval_from_the_top_53_bits() {
        let mut stream = Random::keyed(0);
        // The first word of the zero-key keystream, top 53 bits over 2^53.
        let expected = (0x903d_f1a0_ade0_b876_u64 >> 11) as f64 / (1u64 << 53) as f64;
        assert_eq!(stream.unit(), expected);
        assert!((0..1000).all(|_| (0.0..1.0).contains(&stream.unit())));
    }
}
