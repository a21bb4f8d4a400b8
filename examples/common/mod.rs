//! What the data generators among the examples share: the crate's one seeded stream
//! ([`Random`], seeded by `expanded`), so the generated files never change when `rand`
//! does.

use evogate::base::random::Random;

/// A seeded stream of draws, with the index and pick helpers the generators use.
pub(crate) struct Stream(pub Random);

impl Stream {
    /// The stream for `seed`.
    pub(crate) fn new(seed: u64) -> Stream {
        Stream(Random::expanded(seed))
    }

    /// A uniform draw in [0, 1) from the top 53 bits of one raw word.
    pub(crate) fn unit(&mut self) -> f64 {
        self.0.unit()
    }

    /// A uniform index below `n`.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }

    /// One of `options`, uniformly.
    pub(crate) fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
        options[self.below(options.len())]
    }
}

/// `template` with every `{key}` of `pairs` replaced by its value.
pub(crate) fn fill(template: &str, pairs: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (key, value) in pairs {
        text = text.replace(key, value);
    }
    text
}
