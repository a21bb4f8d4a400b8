//! `manifest.json`: what `split` built and from what, so that `admit --manifest` can
//! prove later that a holdout is the one recorded (by task list and SHA-256), and a
//! reviewer can see what the holdout could detect at all.

use serde::{Deserialize, Serialize};

/// The schema name written in every manifest.
pub(crate) const MANIFEST_SCHEMA: &str = "evogate/manifest/v1";

/// The whole manifest. `split` fills in its head (every field but `splits`) before the
/// splits' files exist, as a `Manifest<()>`, and writes it with the splits made as they
/// are written ([`Manifest::with_splits`]); a manifest read back has its splits whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Manifest<S = Vec<SplitEntry>> {
    /// Always [`MANIFEST_SCHEMA`].
    pub schema: String,
    /// The verifier that built the tasks.
    pub verifier: String,
    /// The ground-truth file as given, and its SHA-256.
    pub truth: FileDigest,
    /// The seed of the sampling stream.
    pub seed: u64,
    /// Relative sizes of train, validation and holdout.
    pub ratios: [u32; 3],
    /// `"all"` or the number of cases sampled.
    pub cases: String,
    /// How the splits were sampled (`evogate` or a `--compat` name).
    pub algorithm: String,
    /// Train, validation and holdout, in that order.
    pub splits: S,
    /// What the holdout can detect at all.
    pub holdout_power: HoldoutPower,
}

impl<S> Manifest<S> {
    /// This manifest's head with `splits` as its splits.
    pub(crate) fn with_splits<T>(self, splits: T) -> Manifest<T> {
        Manifest {
            schema: self.schema,
            verifier: self.verifier,
            truth: self.truth,
            seed: self.seed,
            ratios: self.ratios,
            cases: self.cases,
            algorithm: self.algorithm,
            splits,
            holdout_power: self.holdout_power,
        }
    }
}

/// A file and its SHA-256.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileDigest {
    /// The path as given (never made absolute).
    pub path: String,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

/// One split as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SplitEntry {
    /// `train`, `val` or `holdout`.
    pub name: String,
    /// The file name inside the output folder, and its SHA-256.
    pub file: FileDigest,
    /// Number of tasks.
    pub tasks: usize,
    /// Its groups, in task order.
    pub groups: Vec<String>,
    /// Its task ids, in file order (for the holdout: the order in which it is to be
    /// scored).
    pub task_ids: Vec<String>,
    /// The holdout only: [`order_sha256`] of `task_ids`, the order `admit
    /// --sequential --manifest` takes. Absent from manifests written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_sha256: Option<String>,
}

/// The digest of a holdout's order: the SHA-256 (lowercase hex) of its task ids in
/// that order, joined by `\n`, with no trailing newline. Python gives the same value
/// with `hashlib.sha256("\n".join(ids).encode()).hexdigest()`.
pub(crate) fn order_sha256(task_ids: &[String]) -> String {
    crate::digest::sha256_hex(task_ids.join("\n").as_bytes())
}

/// The holdout's minimum detectable shift at `alpha`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct HoldoutPower {
    /// The level it is computed at.
    pub alpha: f64,
    /// Holdout tasks.
    pub n: usize,
    /// The smallest number of discordant pairs, all one way, that reaches `alpha`.
    pub min_discordant: u32,
    /// `min_discordant / n`, absent when the holdout has fewer tasks than that.
    pub min_detectable_shift: Option<f64>,
}

/// What the manifest says of each split: its name, tasks and groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SplitCounts {
    /// `train`, `val` or `holdout`.
    pub name: &'static str,
    /// Its tasks.
    pub tasks: usize,
    /// Its distinct groups.
    pub groups: usize,
}

/// What `split` built, in brief: what its summary tells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Made {
    /// The seed of the sampling stream.
    pub seed: u64,
    /// Train, validation and holdout.
    pub splits: [SplitCounts; 3],
    /// What the holdout can detect at all.
    pub holdout_power: HoldoutPower,
}
