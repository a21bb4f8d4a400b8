//! Parses arbitrary bytes as a claims table and judges every claim that carries counts
//! or rates at alpha 0.05 (claims with score files need files, so they are only
//! parsed). Every p-value is a probability, the worst case is no better than the best,
//! and the verdict agrees with them.

#![no_main]

use evogate::alpha::Alpha;
use evogate::audit::{ClaimVerdict, Evidence, judge, parse_claims};
use evogate::table::Table;
use libfuzzer_sys::fuzz_target;

const ALPHA: f64 = 0.05;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = Table::parse("claims.csv", data) else {
        return;
    };
    let claims = match parse_claims(&table) {
        Ok(claims) => claims,
        Err(error) => {
            let message = error.to_string();
            assert!(message.starts_with("`claims.csv`"), "{message}");
            return;
        }
    };
    for claim in &claims {
        let judgement = judge(claim, Alpha::new(ALPHA).expect("0.05 is a level"));
        let Some(judgement) = judgement else {
            assert!(matches!(claim.evidence, Evidence::ScoreFiles { .. }));
            continue;
        };
        let probability = |p: f64| p.is_finite() && (0.0..=1.0).contains(&p);
        let best = judgement.p_best_case;
        assert!(probability(best), "{judgement:?}");
        assert!(judgement.p_improvement.is_none_or(probability), "{judgement:?}");
        assert!(judgement.p_worst_case.is_none_or(|w| probability(w) && w >= best * (1.0 - 1e-12)), "{judgement:?}");
        let alpha = judgement.alpha;
        let data = judgement.p_improvement;
        match judgement.verdict {
            ClaimVerdict::Supported => {
                assert!(!claim.selected_on_scored_set, "{judgement:?}");
                assert!(best < alpha, "{judgement:?}");
                assert!(
                    data.map_or_else(|| judgement.p_worst_case.is_some_and(|w| w < alpha), |p| p < alpha),
                    "{judgement:?}"
                );
            }
            ClaimVerdict::NotSupported => assert!(data.is_some_and(|p| p >= alpha), "{judgement:?}"),
            ClaimVerdict::Unverifiable => assert!(best < alpha, "{judgement:?}"),
            ClaimVerdict::Unsupportable => {}
        }
        assert!(!judgement.reason.contains('\n'), "{judgement:?}");
    }
});
