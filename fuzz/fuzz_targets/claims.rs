//! Parses arbitrary bytes as a claims table and judges every claim that carries counts
//! or rates at alpha 0.05 (claims with score files need files, so they are only
//! parsed). A judgement's p-value is a probability, and its verdict agrees with it.

#![no_main]

use evogate::audit::{ClaimVerdict, Evidence, judge, parse_claims};
use evogate::table::Table;
use libfuzzer_sys::fuzz_target;

const ALPHA: f64 = 0.05;

fuzz_target!(|data: &[u8]| {
    let Ok(table) = Table::parse("claims.csv", data) else {
        return;
    };
    let Ok(claims) = parse_claims(&table) else {
        return;
    };
    for claim in &claims {
        let judgement = judge(claim, ALPHA);
        let Some(judgement) = judgement else {
            assert!(matches!(claim.evidence, Evidence::ScoreFiles { .. }));
            continue;
        };
        let p = judgement
            .p_improvement
            .expect("counts and rates give a p-value");
        assert!(
            p.is_finite() && (0.0..=1.0).contains(&p),
            "p {p} for {claim:?}"
        );
        match judgement.verdict {
            ClaimVerdict::Supported => assert!(p < ALPHA, "{judgement:?}"),
            ClaimVerdict::NotSupported => assert!(p >= ALPHA, "{judgement:?}"),
            ClaimVerdict::Unsupportable | ClaimVerdict::Unverifiable => {}
        }
        assert!(!judgement.reason.contains('\n'), "{judgement:?}");
    }
});
