//! A keyed hash of task ids that nothing written before the run can aim at:
//! SipHash-1-3, the hash of the standard library's `RandomState`, under two 64-bit keys
//! drawn afresh for every run (from a `RandomState` of its own). A task id hashes as
//! `RandomState::hash_one` hashes a `str` (its bytes, then the byte `0xff`), in one
//! pass over whole 8-byte words instead of std's streaming writer, which the
//! presumption and the index of `admit --tasks` call twice a task.

use std::hash::{BuildHasher, RandomState};

/// SipHash's initial state, `"somepseudorandomlygeneratedbytes"`.
const INIT: [u64; 4] = [
    0x736f_6d65_7073_6575,
    0x646f_7261_6e64_6f6d,
    0x6c79_6765_6e65_7261,
    0x7465_6462_7974_6573,
];

/// SipHash-1-3 under keys drawn for the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyedHash {
    keys: [u64; 2],
}

impl KeyedHash {
    /// Keys drawn afresh: the hashes of 0 and 1 under a new `RandomState`, whose own
    /// keys are random.
    pub(crate) fn new() -> KeyedHash {
        let state = RandomState::new();
        KeyedHash {
            keys: [state.hash_one(0_u8), state.hash_one(1_u8)],
        }
    }

    /// The hash of `id`: SipHash-1-3 of its bytes followed by `0xff`.
    pub(crate) fn hash(&self, id: &str) -> u64 {
        sip::<1, 3>(self.keys, id.as_bytes(), Some(0xff))
    }
}

/// SipHash-`C`-`D` under `keys` of `bytes`, then `last` when given (one byte more).
fn sip<const C: usize, const D: usize>(keys: [u64; 2], bytes: &[u8], last: Option<u8>) -> u64 {
    let [k0, k1] = keys;
    let mut v = [INIT[0] ^ k0, INIT[1] ^ k1, INIT[2] ^ k0, INIT[3] ^ k1];
    let mut words = bytes.chunks_exact(8);
    for chunk in &mut words {
        let mut word = [0_u8; 8];
        word.copy_from_slice(chunk);
        compress::<C>(&mut v, u64::from_le_bytes(word));
    }
    let rest = words.remainder();
    let mut tail = [0_u8; 8];
    tail[..rest.len()].copy_from_slice(rest);
    let mut filled = rest.len();
    if let Some(byte) = last {
        // At most 7 bytes are left, so the last byte fits; a full word is compressed.
        tail[filled] = byte;
        filled += 1;
        if filled == 8 {
            compress::<C>(&mut v, u64::from_le_bytes(tail));
            tail = [0; 8];
        }
    }
    let length = bytes.len() + usize::from(last.is_some());
    let final_word = (length as u64) << 56 | u64::from_le_bytes(tail);
    compress::<C>(&mut v, final_word);
    v[2] ^= 0xff;
    for _ in 0..D {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

fn compress<const C: usize>(v: &mut [u64; 4], word: u64) {
    v[3] ^= word;
    for _ in 0..C {
        round(v);
    }
    v[0] ^= word;
}

fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

#[cfg(test)]
mod tests {
    use std::hash::{Hash, Hasher};

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn siphash_2_4_gives_the_reference_vector_of_its_paper() {
        // Aumasson and Bernstein, "SipHash: a fast short-input PRF", appendix A: key
        // 00 01 .. 0f, message 00 01 .. 0e.
        let key: Vec<u8> = (0..16).collect();
        let keys = [
            u64::from_le_bytes(key[..8].try_into().unwrap()),
            u64::from_le_bytes(key[8..].try_into().unwrap()),
        ];
        let message: Vec<u8> = (0..15).collect();
        assert_eq!(sip::<2, 4>(keys, &message, None), 0xa129_ca61_49be_45e5);
    }

    #[test]
    fn siphash_1_3_under_zero_keys_gives_python_s_bytes_hash() {
        // Python 3.11's `hash(b)` is SipHash-1-3 of the bytes under its hash secret,
        // zero with PYTHONHASHSEED=0 (as a signed integer; -1 would be -2):
        // PYTHONHASHSEED=0 python3 -c 'print(hash(b"..." + b"\xff"))'.
        for (text, python) in [
            ("", 3_476_900_567_878_811_119_i64),
            ("t0", 154_798_735_881_704_125),
            ("1501.00000:id", -7_589_576_970_157_176_353),
            ("1501.00000:first_author", 1_348_899_612_890_570_391),
            ("abcdefg", 2_492_161_047_327_640_297),
        ] {
            assert_eq!(
                sip::<1, 3>([0, 0], text.as_bytes(), Some(0xff)) as i64,
                python,
                "{text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn siphash_2_4_agrees_with_std_s_keyed_siphasher(
            keys in any::<[u64; 2]>(),
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
        ) {
            #[allow(deprecated)]
            let mut std = std::hash::SipHasher::new_with_keys(keys[0], keys[1]);
            std.write(&bytes);
            prop_assert_eq!(sip::<2, 4>(keys, &bytes, None), std.finish());
        }

        #[test]
        fn a_task_id_hashes_as_std_s_default_hasher_hashes_a_str(text in ".{0,40}") {
            let mut std = std::hash::DefaultHasher::new();
            text.as_str().hash(&mut std);
            prop_assert_eq!(sip::<1, 3>([0, 0], text.as_bytes(), Some(0xff)), std.finish());
        }
    }

    #[test]
    fn runs_draw_other_keys() {
        let (a, b) = (KeyedHash::new(), KeyedHash::new());
        assert_ne!(a.hash("t0"), b.hash("t0"));
        assert_eq!(a.hash("t0"), a.hash("t0"));
    }
}
