//! What the data generators among the examples share: a ChaCha20 stream with draws
//! written on its raw output, so the generated files never change when `rand` does.

use evogate::stats::bootstrap::uniform_below;
use rand_chacha::ChaCha20Rng;
use rand_core::RngCore;

/// A seeded stream of draws.
pub struct Stream(pub ChaCha20Rng);

impl Stream {
    /// A uniform draw in [0, 1) from the top 53 bits of one raw word.
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform index below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        uniform_below(&mut self.0, n as u64) as usize
    }

    /// One of `options`, uniformly.
    pub fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }
}

/// `template` with every `{key}` of `pairs` replaced by its value.
pub fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (key, value) in pairs {
        text = text.replace(key, value);
    }
    text
}
