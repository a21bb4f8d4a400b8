//! Splitting tasks into train, validation and holdout, including exact reconstructions
//! of the splits that the reference Python pipeline made.

pub mod hermes;
pub mod mt19937;
