//! The alpha-spending rule: how much of the declared alpha the k-th admission attempt on
//! one holdout may use. Attempt k gets alpha · 6 / (π² k²); since Σ 1/k² = π²/6 the
//! attempts together spend exactly the declared alpha in the limit and never more.

use std::f64::consts::PI;

/// 6 / π², the factor that makes the weights 1/k² sum to one.
const WEIGHT: f64 = 6.0 / (PI * PI);

/// The alpha of the `attempt`-th attempt (1-based) on a holdout declared at `declared`:
/// `declared · 6 / (π² · attempt²)`.
///
/// By the union bound, if every attempt's test is valid at its own level, the chance that
/// any of them admits a candidate no better than the baseline is at most
/// Σ_k declared · 6/(π² k²) = declared, however many attempts are made. Attempt 0 does
/// not exist and gets 0.
pub fn attempt_alpha(declared: f64, attempt: u64) -> f64 {
    if attempt == 0 {
        return 0.0;
    }
    let k = attempt as f64;
    declared * WEIGHT / (k * k)
}

/// The alpha the attempts before the `attempt`-th have spent:
/// Σ_{j < attempt} [`attempt_alpha`]`(declared, j)`. Time: O(1).
pub(crate) fn alpha_spent_before(declared: f64, attempt: u64) -> f64 {
    if attempt <= 1 {
        return 0.0;
    }
    declared - alpha_left_after(declared, attempt - 1)
}

/// The alpha left for later attempts once `attempts` attempts have spent theirs:
/// declared · 6/π² · Σ_{j > attempts} 1/j², which is positive for every count.
/// Time: O(1).
pub(crate) fn alpha_left_after(declared: f64, attempts: u64) -> f64 {
    if attempts == 0 {
        return declared;
    }
    declared * WEIGHT * tail(attempts)
}

/// Σ_{j > k} 1/j², the trigamma function ψ₁(k + 1), for k ≥ 1.
///
/// From x = 10 on, the asymptotic series ψ₁(x) ~ 1/x + 1/(2x²) + Σ B₂ₙ / x^(2n+1)
/// (Abramowitz & Stegun 6.4.12) through B₁₄ is accurate to about 1e-15 relative; below
/// 10 the recurrence ψ₁(x) = 1/x² + ψ₁(x + 1) adds the few missing terms, smallest
/// first.
fn tail(k: u64) -> f64 {
    const START: u64 = 10;
    let first = k.saturating_add(1);
    let x = first.max(START) as f64;
    let inverse = 1.0 / x;
    let square = inverse * inverse;
    // Bernoulli numbers B2..B14, each over x^(2n+1), evaluated by Horner's rule in 1/x².
    let series = inverse
        * (1.0
            + inverse / 2.0
            + square
                * (1.0 / 6.0
                    + square
                        * (-1.0 / 30.0
                            + square
                                * (1.0 / 42.0
                                    + square
                                        * (-1.0 / 30.0
                                            + square
                                                * (5.0 / 66.0
                                                    + square
                                                        * (-691.0 / 2730.0
                                                            + square * (7.0 / 6.0))))))));
    (first..START).rev().fold(series, |sum, j| {
        let j = j as f64;
        sum + 1.0 / (j * j)
    })
}

// Reference values are kept as the reference tool printed them.
#[cfg(test)]
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    /// Agreement with the exact values (relative).
    const EXACT_TOLERANCE: f64 = 1e-13;

    fn close(found: f64, expected: f64, tolerance: f64) -> bool {
        (found - expected).abs() <= tolerance * expected.abs()
    }

    // (k, alpha_k, spent through attempt k, left after attempt k) at declared alpha 0.05,
    // with /tmp/ledger_ref.py under Python 3 and mpmath 1.4.1 (mp.dps = 50):
    //   c = 6 / mpmath.pi**2; alpha_k = 0.05 * c / k**2
    //   spent = 0.05 * c * Σ_{j≤k} Fraction(1, j*j)   (exact rationals, k ≤ 1000)
    //         = 0.05 * c * (mpmath.zeta(2) - mpmath.zeta(2, k + 1))   (k = 10^6)
    //   left  = 0.05 * c * mpmath.zeta(2, k + 1)   (Hurwitz zeta: Σ_{j>k} 1/j²)
    const MPMATH: [(u64, f64, f64, f64); 8] = [
        (
            1,
            0.030396355092701331,
            0.030396355092701331,
            0.019603644907298669,
        ),
        (
            2,
            0.0075990887731753329,
            0.037995443865876664,
            0.012004556134123336,
        ),
        (
            3,
            0.0033773727880779257,
            0.04137281665395459,
            0.00862718334604541,
        ),
        (
            10,
            0.00030396355092701331,
            0.047107290267748267,
            0.002892709732251733,
        ),
        (
            40,
            1.8997721932938332e-5,
            0.049249510836364449,
            0.00075048916363555125,
        ),
        (
            100,
            3.0396355092701331e-6,
            0.049697551200869754,
            0.00030244879913024642,
        ),
        (
            1000,
            3.0396355092701331e-8,
            0.049969618838018787,
            3.038116198121315e-5,
        ),
        (
            1000000,
            3.0396355092701331e-14,
            0.049999969603660105,
            3.0396339894528851e-8,
        ),
    ];

    #[test]
    fn matches_the_exact_rule_computed_with_rationals_and_mpmath() {
        for (k, alpha_k, spent, left) in MPMATH {
            assert!(
                close(attempt_alpha(0.05, k), alpha_k, EXACT_TOLERANCE),
                "alpha_{k}"
            );
            assert!(
                close(alpha_spent_before(0.05, k + 1), spent, EXACT_TOLERANCE),
                "spent through {k}: {}",
                alpha_spent_before(0.05, k + 1)
            );
            assert!(
                close(alpha_left_after(0.05, k), left, EXACT_TOLERANCE),
                "left after {k}: {}",
                alpha_left_after(0.05, k)
            );
        }
    }

    #[test]
    fn partial_sums_stay_below_the_declared_alpha_for_every_attempt() {
        for declared in [0.05, 0.01, 0.1, 1e-6] {
            let mut running = 0.0;
            let mut previous_total = 0.0;
            for k in 1..=200_000u64 {
                let spent = alpha_spent_before(declared, k);
                let alpha = attempt_alpha(declared, k);
                let total = spent + alpha;
                assert!(
                    total < declared,
                    "declared {declared}, attempt {k}: {total}"
                );
                assert!(alpha_left_after(declared, k) > 0.0);
                assert!(total > previous_total, "spending must grow at attempt {k}");
                // The closed form agrees with plain summation of the terms.
                assert!(
                    (spent - running).abs() <= 1e-12 * declared,
                    "attempt {k}: closed form {spent}, summed {running}"
                );
                running += alpha;
                previous_total = total;
            }
        }
    }

    #[test]
    fn spent_this_and_left_add_up_to_the_declared_alpha() {
        for k in [1, 2, 5, 9, 10, 11, 40, 12_345, u64::MAX / 2] {
            let sum =
                alpha_spent_before(0.05, k) + attempt_alpha(0.05, k) + alpha_left_after(0.05, k);
            assert!(close(sum, 0.05, 1e-14), "attempt {k}: {sum}");
        }
    }

    #[test]
    fn the_first_attempt_spends_nothing_before_and_attempt_zero_gets_nothing() {
        assert_eq!(alpha_spent_before(0.05, 1), 0.0);
        assert_eq!(alpha_spent_before(0.05, 0), 0.0);
        assert_eq!(attempt_alpha(0.05, 0), 0.0);
        assert_eq!(alpha_left_after(0.05, 0), 0.05);
    }
}
