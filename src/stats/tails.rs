//! The p-values of a paired test, one-sided each way and two-sided, with their base-10
//! logarithms: one value that McNemar, the signed-rank test and the admission report
//! share. The logarithms are computed in log space where the tails are, so they stay
//! finite and exact where a p-value underflows `f64` (reports then print `< 1e-300`).
//! Serialised with `#[serde(flatten)]`, the fields keep their names and order.

use serde::Serialize;

/// The three p-values of a paired test and their log10s.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tails {
    /// One-sided p-value for improvement: evidence that the candidate is better
    /// (differences candidate − baseline tend positive).
    pub p_improvement: f64,
    /// One-sided p-value for regression: evidence that the candidate is worse.
    pub p_regression: f64,
    /// Two-sided p-value: min(1, 2 · the smaller one-sided tail), as R and scipy for
    /// these symmetric nulls.
    pub p_two_sided: f64,
    /// log10 of `p_improvement`, computed in log space: finite and exact where the
    /// p-value itself underflows to 0 (−331.133 for 1,100 positive differences, or b 0,
    /// c 1,100).
    pub log10_p_improvement: f64,
    /// log10 of `p_regression`, likewise.
    pub log10_p_regression: f64,
    /// log10 of `p_two_sided`, likewise.
    pub log10_p_two_sided: f64,
}

/// The one-sided half of [`Tails`], for the results whose reports carry no two-sided
/// p-value: a stratum's check and the cluster test.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct OneSided {
    /// As [`Tails::p_improvement`].
    pub p_improvement: f64,
    /// As [`Tails::p_regression`].
    pub p_regression: f64,
    /// As [`Tails::log10_p_improvement`].
    pub log10_p_improvement: f64,
    /// As [`Tails::log10_p_regression`].
    pub log10_p_regression: f64,
}

impl Tails {
    /// No evidence either way: every p-value 1, every logarithm 0 (no discordant pairs,
    /// no non-zero differences).
    pub const fn none() -> Tails {
        Tails {
            p_improvement: 1.0,
            p_regression: 1.0,
            p_two_sided: 1.0,
            log10_p_improvement: 0.0,
            log10_p_regression: 0.0,
            log10_p_two_sided: 0.0,
        }
    }

    /// From each tail as `(p, ln p)`: the one-sided tails for improvement and
    /// regression, and the smaller tail that the two-sided p-value doubles. The one place
    /// where natural logarithms become base 10 and the two-sided p-value is derived:
    /// min(1, 2p), and min(0, log10 2 + log10 p).
    pub fn from_ln(improvement: (f64, f64), regression: (f64, f64), smaller: (f64, f64)) -> Tails {
        let log10 = std::f64::consts::LOG10_E;
        Tails {
            p_improvement: improvement.0,
            p_regression: regression.0,
            p_two_sided: (2.0 * smaller.0).min(1.0),
            log10_p_improvement: log10 * improvement.1,
            log10_p_regression: log10 * regression.1,
            log10_p_two_sided: (std::f64::consts::LOG10_2 + log10 * smaller.1).min(0.0),
        }
    }

    /// The one-sided p-values and their logarithms, without the two-sided ones.
    pub fn one_sided(&self) -> OneSided {
        OneSided {
            p_improvement: self.p_improvement,
            p_regression: self.p_regression,
            log10_p_improvement: self.log10_p_improvement,
            log10_p_regression: self.log10_p_regression,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Tails;

    #[test]
    fn the_two_sided_p_value_doubles_the_smaller_tail_and_stops_at_one() {
        // Tails ½ and ¾ (one success of two fair coins each way): doubling ½ gives 1.
        let even = Tails::from_ln(
            (0.75, 0.75_f64.ln()),
            (0.5, 0.5_f64.ln()),
            (0.5, 0.5_f64.ln()),
        );
        assert_eq!((even.p_two_sided, even.log10_p_two_sided), (1.0, 0.0));
        let small = Tails::from_ln(
            (0.01, 0.01_f64.ln()),
            (0.995, 0.995_f64.ln()),
            (0.01, 0.01_f64.ln()),
        );
        assert!((small.p_two_sided - 0.02).abs() < 1e-15);
        assert!((small.log10_p_two_sided - 0.02_f64.log10()).abs() < 1e-12);
        assert!((small.log10_p_regression - 0.995_f64.log10()).abs() < 1e-15);
    }

    #[test]
    fn a_tail_below_the_doubles_keeps_its_logarithm() {
        // 2^-1100 underflows to 0; log10 of it is −1100 · log10 2 = −331.1329952303793
        // (mpmath 1.3.0, log10(mpf(2)**-1100); the doubled tail −330.8319652347153).
        let ln = -1100.0 * std::f64::consts::LN_2;
        let tails = Tails::from_ln((0.0, ln), (1.0, 0.0), (0.0, ln));
        assert_eq!(tails.p_improvement, 0.0);
        assert!((tails.log10_p_improvement + 331.1329952303793).abs() < 1e-9);
        assert!((tails.log10_p_two_sided + 330.8319652347153).abs() < 1e-9);
        let one_sided = tails.one_sided();
        assert_eq!(
            (one_sided.p_regression, one_sided.log10_p_improvement),
            (1.0, tails.log10_p_improvement)
        );
    }

    #[test]
    fn no_evidence_is_every_p_value_one_and_every_logarithm_zero() {
        let none = Tails::none();
        let ps = [none.p_improvement, none.p_regression, none.p_two_sided];
        let logs = [
            none.log10_p_improvement,
            none.log10_p_regression,
            none.log10_p_two_sided,
        ];
        assert_eq!((ps, logs), ([1.0; 3], [0.0; 3]));
    }
}
