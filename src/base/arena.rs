//! One growing buffer of strings addressed by 8-byte handles: the task ids, strata,
//! groups and feedback of a million pairs held without a heap allocation each
//! (allocating and freeing three million small strings was a fifth of `admit`'s time
//! on such files, and their headers a quarter of its memory).

use std::num::NonZeroU64;

/// Where one string of a [`Texts`] starts. `Option<Text>` is 8 bytes too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Text(NonZeroU64);

/// Strings one after another, each preceded by its length. The length is written in
/// base 64, six bits per byte with the seventh set on every byte but the last, so every
/// byte of it is ASCII and the buffer stays a `String`: a string is sliced out of it
/// without checking its UTF-8 again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Texts {
    buffer: String,
}

/// The length bytes of a string: six bits each, the last byte without bit 6.
const DIGIT_BITS: u32 = 6;
const MORE: u8 = 0x40;
const DIGIT: u8 = 0x3f;

impl Texts {
    /// An empty buffer.
    #[cfg(test)]
    pub(crate) fn new() -> Texts {
        Texts::default()
    }

    /// Adds `text`; the handle reads it back. Time: O(len).
    pub(crate) fn push(&mut self, text: &str) -> Text {
        let start = self.buffer.len() as u64;
        let mut length = text.len() as u64;
        loop {
            let digit = (length & u64::from(DIGIT)) as u8;
            length >>= DIGIT_BITS;
            if length == 0 {
                self.buffer.push(char::from(digit));
                break;
            }
            self.buffer.push(char::from(digit | MORE));
        }
        self.buffer.push_str(text);
        Text(NonZeroU64::MIN.saturating_add(start))
    }

    /// The string behind `text`, which must come from this buffer. Time: O(1).
    pub(crate) fn get(&self, text: Text) -> &str {
        let mut at = (text.0.get() - 1) as usize;
        let bytes = self.buffer.as_bytes();
        let mut length = 0_usize;
        let mut shift = 0;
        loop {
            let byte = bytes[at];
            at += 1;
            length |= usize::from(byte & DIGIT) << shift;
            shift += DIGIT_BITS;
            if byte & MORE == 0 {
                break;
            }
        }
        &self.buffer[at..at + length]
    }

    /// Bytes held, length prefixes included.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.buffer.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_every_string_whatever_its_length_or_bytes() {
        let long = "x".repeat(1 << 20);
        let samples = [
            "",
            "a",
            "é",
            "2401.00001:first_author",
            &"y".repeat(63),
            &"z".repeat(64),
            &"w".repeat(4095),
            &"v".repeat(4096),
            "\u{1F600}, \"quoted\"\n",
            &long,
        ];
        let mut texts = Texts::new();
        let handles: Vec<Text> = samples.iter().map(|s| texts.push(s)).collect();
        for (handle, sample) in handles.iter().zip(samples) {
            assert_eq!(texts.get(*handle), sample);
        }
        // One prefix byte below 64, two up to 4095, three from 4096 (and 2^20).
        assert_eq!(
            texts.len(),
            samples.iter().map(|s| s.len()).sum::<usize>() + 1 + 1 + 1 + 1 + 1 + 2 + 2 + 3 + 1 + 4
        );
        assert_eq!(std::mem::size_of::<Option<Text>>(), 8);
    }
}
