//! The shared tools every layer may use and that use nothing of evogate: the fast
//! hasher of the in-memory indexes, the one seeded random stream, how numbers are
//! written, the bidirectional controls every printer makes inert, and the text arena
//! that holds a million strings in one buffer, the hash index of positions that files a
//! million keys in 8-byte slots, the external sort whose runs wait
//! outside memory, and the table of fingerprint-keyed records on disk read back by
//! positioned reads behind a Bloom filter.

pub(crate) mod arena;
pub(crate) mod bidi;
pub mod csv;
pub(crate) mod disk_table;
pub(crate) mod hash;
pub(crate) mod index;
pub(crate) mod keyed;
pub mod numbers;
pub mod random;
pub(crate) mod sorter;
