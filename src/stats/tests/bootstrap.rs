//! The bootstrap's random stream and interval, pinned against an independent Python
//! reimplementation of the generator, plus properties of the percentile interval.

use crate::base::random::{Random, uniform_below};
use crate::stats::bootstrap::mean_difference_interval;
use proptest::prelude::*;
use rand_core::RngCore;

// Golden values from a pure-Python 3 reimplementation written for this test: rand_core's
// PCG32 seed expansion of `seed_from_u64`, the ChaCha20 block function (RFC 8439 rounds,
// 64-bit block counter, stream 0), words read low-then-high into a u64, Lemire's
// rejection rule, and numpy 2.4.6 `quantile` (linear, type 7) for the interval.

#[test]
fn chacha_stream_for_a_fixed_seed_is_pinned() {
    let mut rng = Random::expanded(2024);
    let first: Vec<u64> = (0..4).map(|_| rng.next_word()).collect();
    assert_eq!(
        first,
        [
            0xe412_8f4f_db8a_8206,
            0xd5f4_ec81_5c27_4ee1,
            0xb5cc_e675_c80f_8166,
            0x2d6f_b928_836a_4253
        ]
    );
}

#[test]
fn index_sampling_for_a_fixed_seed_is_pinned() {
    let mut rng = Random::expanded(7);
    let indices: Vec<u64> = (0..12).map(|_| rng.below(10)).collect();
    assert_eq!(indices, [0, 5, 9, 2, 1, 4, 4, 8, 6, 9, 4, 8]);
}

#[test]
fn interval_for_a_fixed_seed_is_pinned() {
    let d = [0.0, 0.25, -0.5, 1.0, 0.75, 0.0, -0.25, 0.5, 1.0, 0.25];
    let interval = mean_difference_interval(&d, 0.95, 200, 42).expect("valid");
    assert_eq!((interval.low, interval.high), (0.0, 0.575));
}

/// A generator that replays fixed words, to check the rejection rule by hand.
struct Replay(Vec<u64>);

impl RngCore for Replay {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0.remove(0)
    }
    fn fill_bytes(&mut self, destination: &mut [u8]) {
        destination.fill(0);
    }
}

#[test]
fn lemire_rejects_exactly_the_biased_low_products() {
    // n = 3: 2^64 mod 3 = 1, so only a word whose product has low half 0 is rejected:
    // word 0 (product 0) is rejected, word 1 (low half 3) is accepted and maps to 0.
    let mut rng = Replay(vec![0, 1]);
    assert_eq!(uniform_below(&mut rng, 3), 0);
    // The top word maps to n − 1.
    let mut rng = Replay(vec![u64::MAX]);
    assert_eq!(uniform_below(&mut rng, 3), 2);
    // n = 2^63 + 1 has threshold 2^63 − 1: word 1 (low half 2^63 + 1) passes, maps to 0.
    let mut rng = Replay(vec![1]);
    assert_eq!(uniform_below(&mut rng, (1 << 63) + 1), 0);
}

#[test]
fn refuses_empty_or_non_finite_input() {
    assert_eq!(mean_difference_interval(&[], 0.95, 100, 1), None);
    assert_eq!(
        mean_difference_interval(&[1.0, f64::NAN], 0.95, 100, 1),
        None
    );
    assert_eq!(mean_difference_interval(&[1.0], 0.95, 0, 1), None);
    assert_eq!(mean_difference_interval(&[1.0], 1.0, 100, 1), None);
}

proptest! {
    #[test]
    fn interval_is_ordered_and_inside_the_data(d in proptest::collection::vec(-1.0_f64..1.0, 1..40), seed in any::<u64>()) {
        let interval = mean_difference_interval(&d, 0.9, 200, seed).expect("valid");
        let (min, max) = d.iter().fold((f64::MAX, f64::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        prop_assert!(interval.low <= interval.high);
        prop_assert!(interval.low >= min - 1e-12 && interval.high <= max + 1e-12);
    }

    #[test]
    fn constant_differences_give_a_point(value in -1.0_f64..1.0, n in 1_usize..30, seed in any::<u64>()) {
        let interval = mean_difference_interval(&vec![value; n], 0.95, 50, seed).expect("valid");
        prop_assert!((interval.low - value).abs() < 1e-12 && (interval.high - value).abs() < 1e-12);
    }
}
