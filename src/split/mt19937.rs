//! CPython's `random.Random`, reimplemented: the MT19937 generator with CPython's integer
//! seeding and its `getrandbits`, `_randbelow`, `shuffle` and `random` on top. It exists
//! only so that evogate can rebuild, bit for bit, splits that the reference Python
//! pipeline made; evogate's own sampling uses ChaCha.
//!
//! The generator itself is `rand_mt`'s: its `new_with_key` is the reference
//! `init_by_array` for keys of at most 624 words (it runs the first loop 624 times
//! where the reference runs `max(624, key length)`), and a `u64` seed is at most two.
//! The CPython fingerprints below hold it to that.

/// CPython's `random.Random(seed)` for a non-negative integer seed.
///
/// Follows `Modules/_randommodule.c` (CPython 3.11): the seed's absolute value is split
/// into 32-bit words, least significant first (0 gives the single word 0), and fed to the
/// reference `init_by_array` after `init_genrand(19650218)`.
#[derive(Clone)]
pub(crate) struct CpythonRandom {
    mt: rand_mt::Mt,
}

impl std::fmt::Debug for CpythonRandom {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("CpythonRandom")
    }
}

impl CpythonRandom {
    /// The generator `random.Random(seed)` would be.
    pub(crate) fn new(seed: u64) -> CpythonRandom {
        let low = (seed & 0xffff_ffff) as u32;
        let high = (seed >> 32) as u32;
        // CPython keeps only the words up to the most significant non-zero one, and at
        // least one word: 0 and 2**32 - 1 are one word, 2**32 + 5 is two.
        let mt = if high == 0 {
            rand_mt::Mt::new_with_key([low])
        } else {
            rand_mt::Mt::new_with_key([low, high])
        };
        CpythonRandom { mt }
    }

    /// The next 32-bit output, tempered (the reference `genrand_uint32`).
    pub(crate) fn next_u32(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// `getrandbits(k)` for k ≤ 64: a uniform integer of k bits.
    ///
    /// As CPython: k ≤ 32 is the top k bits of one output; a wider k fills 32-bit words
    /// least significant first, the last word keeping only its top bits. k = 0 draws
    /// nothing and gives 0; k above 64 is treated as 64.
    pub(crate) fn getrandbits(&mut self, k: u32) -> u64 {
        match k.min(64) {
            0 => 0,
            k @ 1..=32 => u64::from(self.next_u32() >> (32 - k)),
            k => {
                let low = u64::from(self.next_u32());
                let high = u64::from(self.next_u32() >> (64 - k));
                low | (high << 32)
            }
        }
    }

    /// `_randbelow(n)`: a uniform integer in [0, n), by rejection on `getrandbits(k)`
    /// with k the bit length of n.
    ///
    /// For n = 0 it draws nothing and returns 0 (CPython would loop forever).
    pub(crate) fn randbelow(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let k = u64::BITS - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `shuffle(x)`: Fisher–Yates from the last element down, j = `_randbelow(i + 1)`.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            // j < i + 1 ≤ items.len(), so it fits back into usize.
            let j = self.randbelow(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }

    /// `random()`: a float in [0, 1) from 53 random bits, `(a·2^26 + b) / 2^53` with a
    /// the top 27 bits of one output and b the top 26 of the next.
    #[cfg(test)]
    pub(crate) fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED_MAX: u64 = u64::MAX;
    const SEED_TWO_WORDS: u64 = (1 << 32) + 5;

    // Python 3.11.7:
    // python3 -c 'import random; r=random.Random(S); print([r.getrandbits(32) for _ in range(5)])'
    // for S in 0, 1, 13, 2**32+5, 2**64-1.
    const GETRANDBITS_32: [(u64, [u64; 5]); 5] = [
        (
            0,
            [3626764237, 1654615998, 3255389356, 3823568514, 1806341205],
        ),
        (
            1,
            [577090037, 2444712010, 3639700191, 3445702192, 3280387012],
        ),
        (
            13,
            [1112433019, 1248794762, 2943160652, 3906445129, 2938109453],
        ),
        (
            SEED_TWO_WORDS,
            [675479763, 2085189291, 1213270837, 3822202474, 2596110301],
        ),
        (
            SEED_MAX,
            [93740670, 1068495656, 1452108352, 2657516307, 910393425],
        ),
    ];

    #[test]
    fn getrandbits_32_matches_cpython_for_one_and_two_word_seeds() {
        for (seed, expected) in GETRANDBITS_32 {
            let mut rng = CpythonRandom::new(seed);
            let got: Vec<u64> = (0..5).map(|_| rng.getrandbits(32)).collect();
            assert_eq!(got, expected, "seed {seed}");
        }
    }

    // Python 3.11.7, for S in 0, 13, 2**64-1, each from a fresh random.Random(S):
    // [r.getrandbits(7) for _ in range(8)]
    // [r.getrandbits(64) for _ in range(3)]
    // [r.getrandbits(40) for _ in range(3)]
    #[allow(clippy::type_complexity)]
    const GETRANDBITS_OTHER_WIDTHS: [(u64, [u64; 8], [u64; 3], [u64; 3]); 3] = [
        (
            0,
            [108, 49, 97, 113, 53, 5, 33, 123],
            [
                7106521602475165645,
                16422101724900707500,
                746805015404516437,
            ],
            [424533559245, 978212965548, 44756014165],
        ),
        (
            13,
            [33, 37, 87, 116, 87, 102, 108, 113],
            [
                5363532663318536571,
                16778054075616661836,
                14794374540341280269,
            ],
            [318940012923, 999375573324, 883406405133],
        ),
        (
            SEED_MAX,
            [2, 31, 43, 79, 27, 58, 78, 12],
            [
                4589153898531806846,
                11413945628603804224,
                8412893781816475729,
            ],
            [270676680318, 680056941120, 499126599761],
        ),
    ];

    #[test]
    fn getrandbits_of_7_40_and_64_bits_matches_cpython() {
        for (seed, bits7, bits64, bits40) in GETRANDBITS_OTHER_WIDTHS {
            let mut rng = CpythonRandom::new(seed);
            let got: Vec<u64> = (0..8).map(|_| rng.getrandbits(7)).collect();
            assert_eq!(got, bits7, "seed {seed}, 7 bits");
            let mut rng = CpythonRandom::new(seed);
            let got: Vec<u64> = (0..3).map(|_| rng.getrandbits(64)).collect();
            assert_eq!(got, bits64, "seed {seed}, 64 bits");
            let mut rng = CpythonRandom::new(seed);
            let got: Vec<u64> = (0..3).map(|_| rng.getrandbits(40)).collect();
            assert_eq!(got, bits40, "seed {seed}, 40 bits");
        }
    }

    // Python 3.11.7:
    // python3 -c 'import random; r=random.Random(13); print([r._randbelow(n) for n in
    //   [1,2,3,5,17,68,1000,2**31,2**32-1,2**32,2**40+3,2**64-1]])'
    const RANDBELOW_SEED_13: [(u64, u64); 12] = [
        (1, 0),
        (2, 1),
        (3, 2),
        (5, 1),
        (17, 7),
        (68, 18),
        (1000, 890),
        (1 << 31, 967067425),
        (u32::MAX as u64, 2752890056),
        (1 << 32, 3152607373),
        ((1 << 40) + 3, 155178083356),
        (u64::MAX, 15602082833785699935),
    ];

    #[test]
    fn randbelow_matches_cpython_across_bit_lengths_in_one_stream() {
        let mut rng = CpythonRandom::new(13);
        for (n, expected) in RANDBELOW_SEED_13 {
            assert_eq!(rng.randbelow(n), expected, "_randbelow({n})");
        }
    }

    #[test]
    fn randbelow_of_zero_returns_zero_without_drawing() {
        let mut rng = CpythonRandom::new(13);
        assert_eq!(rng.randbelow(0), 0);
        assert_eq!(rng.getrandbits(32), 1112433019);
    }

    // Python 3.11.7:
    // python3 -c 'import random; r=random.Random(S); x=list(range(10)); r.shuffle(x); print(x)'
    // for S in 1, 13.
    const SHUFFLE_10: [(u64, [usize; 10]); 2] = [
        (1, [6, 8, 9, 7, 5, 3, 0, 4, 1, 2]),
        (13, [3, 0, 7, 8, 6, 1, 5, 2, 9, 4]),
    ];

    // Python 3.11.7:
    // python3 -c 'import random; r=random.Random(S); x=list(range(68)); r.shuffle(x); print(x)'
    // for S in 1, 13.
    const SHUFFLE_68: [(u64, [usize; 68]); 2] = [
        (
            1,
            [
                19, 18, 23, 22, 12, 59, 2, 16, 42, 66, 46, 65, 4, 25, 10, 5, 3, 33, 43, 36, 9, 29,
                60, 21, 26, 11, 7, 45, 64, 54, 35, 47, 57, 51, 56, 52, 49, 34, 39, 40, 53, 20, 55,
                37, 14, 67, 61, 44, 0, 62, 38, 27, 58, 1, 31, 6, 13, 50, 24, 41, 30, 28, 48, 63,
                15, 32, 8, 17,
            ],
        ),
        (
            13,
            [
                26, 50, 45, 53, 6, 52, 12, 7, 64, 66, 15, 32, 2, 62, 51, 42, 24, 21, 56, 25, 44,
                35, 36, 59, 40, 19, 58, 3, 30, 10, 20, 67, 65, 39, 31, 61, 22, 60, 48, 49, 28, 16,
                5, 9, 17, 0, 38, 43, 57, 27, 1, 63, 47, 13, 54, 34, 4, 8, 11, 46, 41, 14, 55, 18,
                29, 23, 37, 33,
            ],
        ),
    ];

    #[test]
    fn shuffle_matches_cpython_for_10_and_68_items() {
        for (seed, expected) in SHUFFLE_10 {
            let mut items: Vec<usize> = (0..10).collect();
            CpythonRandom::new(seed).shuffle(&mut items);
            assert_eq!(items, expected, "seed {seed}");
        }
        for (seed, expected) in SHUFFLE_68 {
            let mut items: Vec<usize> = (0..68).collect();
            CpythonRandom::new(seed).shuffle(&mut items);
            assert_eq!(items, expected, "seed {seed}");
        }
    }

    #[test]
    fn shuffle_of_empty_and_single_slices_draws_nothing() {
        let mut rng = CpythonRandom::new(13);
        let mut empty: [u8; 0] = [];
        rng.shuffle(&mut empty);
        let mut one = [7];
        rng.shuffle(&mut one);
        assert_eq!(one, [7]);
        assert_eq!(rng.getrandbits(32), 1112433019);
    }

    // Python 3.11.7:
    // python3 -c 'import random; r=random.Random(S); print([repr(r.random()) for _ in range(4)])'
    // for S in 0, 13, 2**64-1. repr gives the shortest string that round-trips, so the
    // parsed literals are the exact doubles.
    const RANDOM_FLOATS: [(u64, [f64; 4]); 3] = [
        (
            0,
            [
                0.8444218515250481,
                0.7579544029403025,
                0.420571580830845,
                0.25891675029296335,
            ],
        ),
        (
            13,
            [
                0.2590084917154736,
                0.6852579929645369,
                0.6840819180161107,
                0.8493361613899302,
            ],
        ),
        (
            SEED_MAX,
            [
                0.021825695401270107,
                0.3380953268613758,
                0.21196748656082065,
                0.6151259995625727,
            ],
        ),
    ];

    #[test]
    fn random_matches_cpython_to_the_last_bit() {
        for (seed, expected) in RANDOM_FLOATS {
            let mut rng = CpythonRandom::new(seed);
            for (i, want) in expected.into_iter().enumerate() {
                let got = rng.random();
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "seed {seed}, draw {i}: {got}"
                );
            }
        }
    }
}
