//! Exact paired tests, intervals and power for the admission gate: pure functions of
//! counts and differences, with no I/O. `admit` and `audit` call these; every result
//! is a finite number or an explicit `None`, never NaN or infinity.
//!
//! Accuracy promises (proved in `tests/`): binomial tails to 1e-12 relative against exact
//! rational arithmetic for n ≤ 2,000 and to 1e-10 against scipy beyond; the signed-rank
//! null is the exact conditional distribution given the observed ties up to
//! [`signed_rank::EXACT_LIMIT`] non-zero differences, and up to
//! [`signed_rank::INVERSION_LIMIT`] by `signed_rank::inversion` whenever it fits its budget, and
//! beyond that on lumpy lattices (few or large tie groups);
//! otherwise a saddlepoint approximation within
//! [`signed_rank::SADDLEPOINT_RELATIVE_ERROR`] for many distinct magnitudes.
//!
//! Why [`binomial`] and `normal` are not statrs: statrs 0.18's tails are accurate to
//! about 1e-11 relative, ours to about 1e-13, and the admission gate compares p-values
//! with alpha and quotes tails to 1e-300. Measured in a scratch crate outside the
//! repository against mpmath at 60 digits (relative error, statrs / ours): normal upper
//! tail at z = 1: 8.6e-11 / 2.1e-16; z = 10: 5.2e-11 / 9.0e-15; z = 20: 7.1e-11 /
//! 3.5e-14; z = 37 (5.7e-300): 4.9e-11 / 9.9e-14. Binomial P(X ≥ k): k = 60 of 100 at ½:
//! 2.8e-13 / 7.2e-16; 1000 of 1000 at ½ (9.3e-302): 7.0e-13 / 6.8e-14; 5200 of 10,000 at
//! ½: 1.0e-11 / 9.7e-16; 30 of 1000 at 0.01: 4.3e-13 / 7.2e-15. Neither library
//! represents tails below the `f64` range (both return 0 for 9000 of 10,000).

pub mod binomial;
pub mod bootstrap;
pub mod bounded_mean;
pub(crate) mod cluster;
pub mod equivalence;
pub mod interval;
pub mod mcnemar;
pub(crate) mod normal;
pub(crate) mod normal_power;
pub mod power;
pub mod repeats;
pub mod sequential;
pub mod signed_rank;
pub(crate) mod tails;

#[cfg(test)]
mod tests;

/// Two magnitudes closer than this are tied, and a difference of at most this size is a
/// zero: scores are fractions in [0, 1], and arithmetic such as `0.3 − 0.1 − 0.2`
/// leaves residues near 1e-17 that must not break a tie.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// A tail sum stops once everything it has not added is below this fraction of what it
/// has: far under the 1e-16 spacing of `f64` near 1, so truncation never shows.
pub const TAIL_TRUNCATION: f64 = 1e-17;

/// Clamps a probability into [0, 1]; NaN becomes 0 so that no NaN can travel further.
pub(crate) fn clamp_probability(p: f64) -> f64 {
    if p >= 1.0 {
        1.0
    } else if p > 0.0 {
        p
    } else {
        0.0
    }
}

/// Whether `confidence` is a usable two-sided confidence level, strictly inside (0, 1).
pub(crate) fn valid_level(level: f64) -> bool {
    level > 0.0 && level < 1.0
}
