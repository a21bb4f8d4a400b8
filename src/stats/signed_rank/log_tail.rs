//! The exact lower tail of a signed-rank null in log space, for tails below the `f64`
//! range. [`super::null_table::null_cdf`] works in probabilities and flushes entries
//! below 1e-300, so its tails are exact only above about 1e-280; below that,
//! [`super::signed_rank`] asks here for the logarithm of the same tail.

/// ln P(S ≤ w) for S = Σ uᵢ·Bᵢ, with whole-number ranks uᵢ and independent fair coins
/// Bᵢ: the number of subsets of the ranks whose sum is at most w, over 2^n.
///
/// The subsets are counted by a knapsack table over sums 0..=w (a rank above w is never
/// in such a subset), kept as floating-point counts times a power of two that is
/// carried separately: whenever the largest count passes 2^600 the table is scaled
/// down by 2^600, and counts that fall below the `f64` range are then below 2^-1074 of
/// the largest and cannot move the total. Nothing is flushed otherwise, so the result
/// keeps a relative error near n · 1e-16 however small the tail. Time: O(n · w), run
/// only when the tail is below 1e-280, where w is far below the centre of the null.
/// Memory: w + 1 floats.
pub(crate) fn ln_lower_tail(ranks: &[u64], w: u64) -> f64 {
    let Ok(width) = usize::try_from(w).map(|w| w.saturating_add(1)) else {
        return 0.0;
    };
    let total: u64 = ranks.iter().sum();
    if w >= total {
        return 0.0;
    }
    let mut table = vec![0.0_f64; width];
    table[0] = 1.0;
    let mut top = 0_usize;
    // ln of the factor every entry of the table is to be multiplied by.
    let mut ln_scale = 0.0_f64;
    for &rank in ranks {
        let Some(step) = usize::try_from(rank).ok().filter(|&step| step < width) else {
            continue;
        };
        if step == 0 {
            // A rank of 0 doubles every count: in or out, the sum is the same.
            ln_scale += std::f64::consts::LN_2;
            continue;
        }
        top = (top + step).min(width - 1);
        for sum in (step..=top).rev() {
            table[sum] += table[sum - step];
        }
        let largest = table[..=top].iter().copied().fold(0.0_f64, f64::max);
        if largest > RESCALE_ABOVE {
            for entry in &mut table[..=top] {
                *entry *= 1.0 / RESCALE_ABOVE;
            }
            ln_scale += RESCALE_ABOVE.ln();
        }
    }
    let count: f64 = table[..=top].iter().sum();
    count.ln() + ln_scale - ranks.len() as f64 * std::f64::consts::LN_2
}

/// The table is scaled down by this factor once its largest count passes it: 2^600,
/// far from overflow (a rank at most doubles the largest count) and from underflow.
const RESCALE_ABOVE: f64 = 4.149_515_568_880_993e180;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rescale_factor_is_two_to_the_six_hundredth() {
        assert_eq!(RESCALE_ABOVE, 2.0_f64.powi(600));
    }

    #[test]
    fn small_tails_count_subsets_exactly() {
        // Ranks 1..=4: subsets with sum ≤ 3 are {}, {1}, {2}, {3}, {1,2}: 5 of 16.
        let ln = ln_lower_tail(&[1, 2, 3, 4], 3);
        assert!((ln - (5.0_f64 / 16.0).ln()).abs() < 1e-15, "{ln}");
        // Only the empty subset: 2^-n, here far below the f64 range.
        let ranks: Vec<u64> = (1..=1100).collect();
        let ln = ln_lower_tail(&ranks, 0);
        let expected = -1100.0 * std::f64::consts::LN_2;
        assert!((ln - expected).abs() < 1e-12 * expected.abs(), "{ln}");
        assert_eq!(ln_lower_tail(&ranks, 1100 * 1101 / 2), 0.0);
    }

    #[test]
    fn agrees_with_the_probability_table_where_both_are_exact() {
        // Ranks 1..=60, every w: against null_cdf, which is exact above 1e-280.
        let ranks: Vec<u64> = (1..=60).collect();
        for w in [0, 1, 10, 100, 400, 900] {
            let expected = super::super::null_table::null_cdf(&ranks, w).cdf.ln();
            let ln = ln_lower_tail(&ranks, w);
            assert!(
                (ln - expected).abs() < 1e-12 * expected.abs().max(1.0),
                "w {w}: {ln} against {expected}"
            );
        }
    }
}
