//! Sequential admission, valid however often one looks: test martingales ("testing by
//! betting", Shafer, JRSS A 2021; Waudby-Smith & Ramdas, JRSS B 2024; Howard, Ramdas,
//! McAuliffe & Sekhon, Ann. Stat. 2021) on the paired differences, taken in an order
//! fixed before any output is seen.
//!
//! Each e-process (`track`) is a mixture of constant-bet bettors, the bet fractions
//! 1, 1/2, 1/4, … down to 1/√N fixed by the holdout size N before the first pair (the
//! family of the betting interval `admit` reports, [`crate::stats::bounded_mean`]).
//! Under its null the capital is a non-negative supermartingale with initial value 1,
//! so by Ville's inequality it ever reaches 1/alpha with probability at most alpha,
//! however many looks are taken. `monitor` applies the rule after each pair; an
//! undecided run is settled at the last look by `final_look` (exact, for 0/1
//! `correct`) or by the exact signed-rank test at the alpha left over (scores). Why this
//! bettor and this final look: `docs/statistics.md`.

pub(crate) mod final_look;
pub(crate) mod monitor;
pub(crate) mod operating;
pub(crate) mod track;

pub use final_look::{FinalLook, final_look, log_e_value_of_coins};
pub use monitor::{Design, DesignError, FinalTest, Look, Monitor, Reason, Standing, StratumLook};
pub use operating::{Operating, OperatingError, SIMULATED_HOLDOUT_LIMIT, operating};
pub use track::{BetOn, Track};
