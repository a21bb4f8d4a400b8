//! The `evogate` binary.
fn main() {}
