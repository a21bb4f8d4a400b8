//! Tests of the statistics against independent references: exact rational arithmetic,
//! scipy 1.17.1 / statsmodels 0.15.0 tables (call and version above each table),
//! brute-force enumeration for small n, and property tests.

// Reference values are quoted with all the digits their source printed.
#![allow(clippy::excessive_precision)]

mod binomial;
mod binomial_tables;
mod bootstrap;
mod bounded_mean;
mod equivalence;
mod equivalence_tables;
mod interval;
mod log_p;
mod mcnemar;
mod normal;
mod normal_power;
mod power;
mod repeats;
mod sequential;
mod signed_rank;
mod signed_rank_large;
mod signed_rank_oracle;
mod signed_rank_tables;

/// Agreement required with exact rational arithmetic and with brute-force enumeration.
pub(super) const EXACT_TOLERANCE: f64 = 1e-12;

/// Agreement required with scipy at large n, where scipy's own error is near 1e-13.
pub(super) const SCIPY_TOLERANCE: f64 = 1e-10;

/// How far below the true crossing the betting interval's bisection may stop (its
/// resolution is 1e-10; the rest is rounding in the log-capital).
pub(super) const BISECTION_TOLERANCE: f64 = 2e-10;

/// Asserts `actual` is within `tolerance` relative of `expected` (exactly 0 when the
/// expected value is 0).
#[track_caller]
pub(super) fn assert_relative(actual: f64, expected: f64, tolerance: f64, what: &str) {
    assert!(actual.is_finite(), "{what}: {actual} is not finite");
    let error = if expected == 0.0 {
        actual.abs()
    } else {
        ((actual - expected) / expected).abs()
    };
    assert!(
        error <= tolerance,
        "{what}: got {actual:e}, expected {expected:e}, relative error {error:e} > {tolerance:e}"
    );
}

/// C(n, k) exactly, for the small n of the brute-force oracles.
pub(super) fn choose(n: u64, k: u64) -> u128 {
    if k > n {
        return 0;
    }
    (0..k).fold(1_u128, |acc, i| acc * u128::from(n - i) / u128::from(i + 1))
}
