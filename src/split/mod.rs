//! Splits: tasks dealt to train, validation and holdout with whole groups, so that no
//! paper straddles two splits, and the audit that proves it of any split files.

pub(crate) mod build;
pub(crate) mod check;
pub(crate) mod hermes;
pub(crate) mod manifest;
pub(crate) mod mt19937;

pub use build::{
    Cases, SPLIT_NAMES, SplitError, SplitRequest, Splits, build_splits, largest_remainder,
};
pub use check::{Leak, find_leaks};
