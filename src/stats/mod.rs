//! Exact paired tests, intervals and power for the admission gate: pure functions of
//! counts and differences, with no I/O. `admit` and `audit` call these; every result
//! is a finite number or an explicit `None`, never NaN or infinity.
//!
//! Accuracy promises (proved in `tests/`): binomial tails to 1e-12 relative against exact
//! rational arithmetic for n ≤ 2,000 and to 1e-10 against scipy beyond; the signed-rank
//! null is the exact conditional distribution given the observed ties up to
//! [`signed_rank::EXACT_LIMIT`] non-zero differences.

pub mod binomial;
pub mod bootstrap;
pub mod cluster;
pub mod interval;
pub mod mcnemar;
pub mod normal;
pub mod power;
pub mod rank_sum;
pub mod signed_rank;

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
