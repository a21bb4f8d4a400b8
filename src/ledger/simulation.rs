//! A simulation of the ledger's guarantee: many evolution runs, each trying a number of
//! null candidates (no better than the baseline) on one holdout, counting the runs in
//! which any candidate was admitted, with the spending rule and with alpha spent afresh
//! on every attempt. The tests and `examples/ledger_simulation.rs` report it.

use serde::Serialize;

use crate::alpha::spending::attempt_alpha;
use crate::base::random::Random;
use crate::stats::mcnemar::mcnemar_exact;

/// What to simulate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NullRuns {
    /// The seed of the ChaCha20 stream ([`Random::keyed`]).
    pub seed: u64,
    /// Evolution runs.
    pub runs: u64,
    /// Null candidates tried on the holdout in each run.
    pub candidates: u64,
    /// Pairs in the holdout.
    pub n: u64,
    /// The declared alpha.
    pub alpha: f64,
}

/// Family-wise false-admission rates: the fraction of runs that admitted any candidate.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FamilyRates {
    /// Exact McNemar, attempt k decided at [`attempt_alpha`]`(alpha, k)`.
    pub mcnemar_spending: f64,
    /// Exact McNemar, every attempt decided at alpha.
    pub mcnemar_every_time_alpha: f64,
    /// A continuous test (p uniform on [0, 1) under the null, the case where the union
    /// bound is nearly tight), with the spending rule.
    pub uniform_spending: f64,
    /// The continuous test, every attempt at alpha.
    pub uniform_every_time_alpha: f64,
}

/// Two bits per pair, so one 64-bit word holds 32 pairs.
const PAIRS_PER_WORD: u64 = 32;

/// Simulates `setup.runs` runs. In each, every candidate's n pairs are drawn afresh:
/// baseline and candidate are each correct with probability ½, independently (the low
/// two bits of a 64-bit word, then the next two, 32 pairs per word, a fresh word for
/// each candidate), so a discordant pair favours either arm with probability ½, which
/// is McNemar's null. A uniform p is the top 53 bits of one more
/// word over 2^53. Time: O(runs · candidates · n).
pub fn null_family_rates(setup: NullRuns) -> FamilyRates {
    let mut stream = Random::keyed(setup.seed);
    let mut admitted = [0u64; 4];
    for _ in 0..setup.runs {
        let mut any = [false; 4];
        for attempt in 1..=setup.candidates {
            let (mut baseline_only, mut candidate_only) = (0u64, 0u64);
            let mut word = 0;
            for pair in 0..setup.n {
                if pair % PAIRS_PER_WORD == 0 {
                    word = stream.next_word();
                }
                let (baseline, candidate) = (word & 1, (word >> 1) & 1);
                word >>= 2;
                baseline_only += baseline & (candidate ^ 1);
                candidate_only += candidate & (baseline ^ 1);
            }
            let p_mcnemar = mcnemar_exact(baseline_only, candidate_only)
                .tails
                .p_improvement;
            let p_uniform = (stream.next_word() >> 11) as f64 / (1u64 << 53) as f64;
            let spent = attempt_alpha(setup.alpha, attempt);
            any[0] |= p_mcnemar < spent;
            any[1] |= p_mcnemar < setup.alpha;
            any[2] |= p_uniform < spent;
            any[3] |= p_uniform < setup.alpha;
        }
        for (count, hit) in admitted.iter_mut().zip(any) {
            *count += u64::from(hit);
        }
    }
    let rate = |count: u64| count as f64 / setup.runs.max(1) as f64;
    FamilyRates {
        mcnemar_spending: rate(admitted[0]),
        mcnemar_every_time_alpha: rate(admitted[1]),
        uniform_spending: rate(admitted[2]),
        uniform_every_time_alpha: rate(admitted[3]),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::*;

    const SETUP: NullRuns = NullRuns {
        seed: 20_240_531,
        runs: 2_000,
        candidates: 40,
        n: 30,
        alpha: 0.05,
    };

    /// The chance a continuous null test admits in at least one of 40 independent
    /// attempts at alpha 0.05: 1 − Π_{k≤40} (1 − 0.05 · 6/(π² k²)) with the rule and
    /// 1 − 0.95^40 without, by Python 3's `math` (`math.pi`, a plain loop).
    const EXACT_UNIFORM: (f64, f64) = (0.048541541295895385, 0.8714878434348969);

    /// The simulation of [`SETUP`], run once for all the tests that read it.
    fn rates() -> FamilyRates {
        static RATES: OnceLock<FamilyRates> = OnceLock::new();
        *RATES.get_or_init(|| null_family_rates(SETUP))
    }

    #[test]
    fn forty_null_candidates_admit_at_most_alpha_overall_with_the_spending_rule() {
        let rates = rates();
        assert!(rates.mcnemar_spending <= SETUP.alpha, "{rates:?}");
        assert!(rates.uniform_spending <= SETUP.alpha + 0.01, "{rates:?}");
        // Spending alpha afresh on every attempt admits a noise winner in most runs.
        assert!(rates.mcnemar_every_time_alpha > 0.4, "{rates:?}");
        assert!(rates.uniform_every_time_alpha > 0.8, "{rates:?}");
    }

    #[test]
    fn the_continuous_null_rates_match_their_exact_values() {
        // Four standard errors of a rate over 2,000 runs.
        let rates = rates();
        let (spending, every_time) = EXACT_UNIFORM;
        for (found, exact) in [
            (rates.uniform_spending, spending),
            (rates.uniform_every_time_alpha, every_time),
        ] {
            let error = 4.0 * (exact * (1.0 - exact) / SETUP.runs as f64).sqrt();
            assert!((found - exact).abs() < error, "{found} vs {exact}");
        }
        // The rule's product agrees with the table above.
        let stay = (1..=SETUP.candidates).map(|k| 1.0 - attempt_alpha(SETUP.alpha, k));
        assert!((1.0 - stay.product::<f64>() - spending).abs() < 1e-12);
    }

    #[test]
    fn the_same_seed_gives_the_same_rates() {
        let small = NullRuns { runs: 50, ..SETUP };
        assert_eq!(null_family_rates(small), null_family_rates(small));
        assert_ne!(
            null_family_rates(small),
            null_family_rates(NullRuns { seed: 1, ..small })
        );
    }
}
