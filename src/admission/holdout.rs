//! The holdout-intact criterion: with `--manifest`, the tasks used must be exactly the
//! holdout task list that `split` recorded, and a `--tasks` file must have the SHA-256
//! recorded for `holdout.csv`. A tampered or swapped holdout is a refusal, not an error.

use std::collections::BTreeSet;

use super::{Check, Criterion, Finding};
use crate::base::numbers::count;
use crate::error::InputError;
use crate::split::manifest::{MANIFEST_SCHEMA, Manifest};

/// How many differing tasks the proof names.
const SHOWN_TASKS: usize = 3;

/// The identity of a holdout: the SHA-256 (lowercase hex) of its task ids sorted in
/// byte order and joined by `\n`, with no trailing newline.
///
/// The order of the tasks in a file does not change the identity; any added, removed or
/// renamed task does. Task ids never hold a newline (they are `<group>:<kind>`), so the
/// joined text is unambiguous. Python gives the same value with
/// `hashlib.sha256("\n".join(sorted(ids)).encode()).hexdigest()`.
pub fn holdout_identity(task_ids: &[String]) -> String {
    let mut sorted: Vec<&str> = task_ids.iter().map(String::as_str).collect();
    sorted.sort_unstable();
    crate::digest::sha256_hex(sorted.join("\n").as_bytes())
}

/// The holdout as `split` recorded it, and the `--tasks` file to compare.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldoutRecord {
    /// The manifest as given.
    pub manifest: String,
    /// The recorded holdout task ids, in the order in which the holdout is to be scored.
    pub task_ids: Vec<String>,
    /// The recorded SHA-256 of that order, when the manifest has one.
    pub order_sha256: Option<String>,
    /// The recorded SHA-256 of `holdout.csv`.
    pub sha256: String,
    /// The `--tasks` file as given and its SHA-256, when one was given.
    pub tasks_file: Option<(String, String)>,
}

impl HoldoutRecord {
    /// Reads the holdout out of a `manifest.json`'s bytes.
    pub fn from_manifest(
        source: &str,
        bytes: &[u8],
        tasks_file: Option<(String, String)>,
    ) -> Result<HoldoutRecord, InputError> {
        let manifest: Manifest = serde_json::from_slice(bytes).map_err(|e| {
            InputError::invalid(
                source,
                e.line() as u64,
                format!("not a manifest that `evogate split` wrote ({e}); give the manifest.json beside the holdout"),
            )
        })?;
        if manifest.schema != MANIFEST_SCHEMA {
            return Err(InputError::invalid(
                source,
                0,
                format!(
                    "schema `{}` is not `{MANIFEST_SCHEMA}`; give a manifest that `evogate split` wrote",
                    manifest.schema
                ),
            ));
        }
        let holdout = manifest
            .splits
            .into_iter()
            .find(|s| s.name == "holdout")
            .ok_or_else(|| {
                InputError::invalid(source, 0, "the manifest records no `holdout` split")
            })?;
        Ok(HoldoutRecord {
            manifest: source.to_string(),
            order_sha256: holdout.order_sha256,
            task_ids: holdout.task_ids,
            sha256: holdout.file.sha256,
            tasks_file,
        })
    }

    /// The holdout's identity in the ledger: [`holdout_identity`] of the
    /// recorded task ids. A ledger run with a manifest spends on this identity, whatever
    /// tasks the run used, so renaming or dropping tasks does not open a fresh holdout.
    pub fn identity(&self) -> String {
        holdout_identity(&self.task_ids)
    }

    /// The criterion's evidence for a summary document, which carries no task ids but
    /// the SHA-256 of the ones it paired (`holdout_sha256`, computed by the SQL): it
    /// passes only when that is the recorded holdout's [`identity`](Self::identity).
    pub fn check_digest(&self, digest: Option<&str>) -> Finding {
        let recorded = self.identity();
        let (result, sentence, proof) = match digest {
            Some(digest) if digest.eq_ignore_ascii_case(&recorded) => (
                Check::Pass,
                format!(
                    "The summary's tasks are the holdout recorded in {} ({}).",
                    self.manifest,
                    count(self.task_ids.len() as u64, "task")
                ),
                format!(
                    "the summary's holdout_sha256 {} = the SHA-256 of the {} holdout task id{} of {}",
                    short(digest),
                    self.task_ids.len(),
                    plural(self.task_ids.len()),
                    self.manifest
                ),
            ),
            Some(digest) => (
                Check::Fail,
                format!(
                    "The summary's tasks are not the holdout recorded in {}.",
                    self.manifest
                ),
                format!(
                    "the summary's holdout_sha256 {} differs from {}, the SHA-256 of the {} holdout task ids of {}",
                    short(digest),
                    short(&recorded),
                    self.task_ids.len(),
                    self.manifest
                ),
            ),
            None => (
                Check::Fail,
                "The holdout cannot be checked: the summary has no holdout_sha256.".to_string(),
                format!(
                    "the summary's holdout_sha256 is null, so its tasks cannot be compared with {}; compute it as sql/summary.sql does",
                    self.manifest
                ),
            ),
        };
        Finding {
            criterion: Criterion::HoldoutIntact,
            result,
            sentence,
            proof,
        }
    }

    /// The criterion's evidence for the tasks actually used.
    pub fn check(&self, used: &[&str]) -> Finding {
        let used: BTreeSet<&str> = used.iter().copied().collect();
        let recorded: BTreeSet<&str> = self.task_ids.iter().map(String::as_str).collect();
        let missing: Vec<&str> = recorded.difference(&used).copied().collect();
        let extra: Vec<&str> = used.difference(&recorded).copied().collect();
        holdout_finding(
            &self.manifest,
            (recorded.len(), used.len()),
            (missing.len(), &missing),
            (extra.len(), &extra),
            &self.sha256,
            self.tasks_file.as_ref(),
        )
    }
}

/// The holdout-intact finding from its facts: the manifest, how many distinct tasks it
/// recorded and how many were used; how many recorded tasks were not used and how many
/// used tasks were not recorded, each with the first few by task id (at least
/// [`SHOWN_TASKS`] of them when there are that many); the recorded SHA-256 of
/// `holdout.csv`, and the `--tasks` file as given with its SHA-256.
pub(crate) fn holdout_finding(
    manifest: &str,
    (recorded, used): (usize, usize),
    (missing, missing_first): (usize, &[&str]),
    (extra, extra_first): (usize, &[&str]),
    recorded_sha256: &str,
    tasks_file: Option<&(String, String)>,
) -> Finding {
    let mut problems = Vec::new();
    if missing > 0 {
        problems.push(format!(
            "{} holdout task{} not used (first: {})",
            missing,
            plural(missing),
            first(missing_first, missing)
        ));
    }
    if extra > 0 {
        problems.push(format!(
            "{} task{} not in the holdout used (first: {})",
            extra,
            plural(extra),
            first(extra_first, extra)
        ));
    }
    let mut agreements = vec![format!(
        "{} used = the {} holdout task{} of {}",
        count(used as u64, "task"),
        recorded,
        plural(recorded),
        manifest
    )];
    if let Some((path, sha)) = tasks_file {
        if sha == recorded_sha256 {
            agreements.push(format!("{path} SHA-256 {} matches", short(sha)));
        } else {
            problems.push(format!(
                "{path} SHA-256 {} differs from the recorded {}",
                short(sha),
                short(recorded_sha256)
            ));
        }
    }
    if problems.is_empty() {
        let proof = agreements.join("; ");
        Finding {
            criterion: Criterion::HoldoutIntact,
            result: Check::Pass,
            sentence: format!(
                "The tasks are exactly the holdout recorded in {} ({}).",
                manifest,
                count(recorded as u64, "task")
            ),
            proof,
        }
    } else {
        let proof = problems.join("; ");
        Finding {
            criterion: Criterion::HoldoutIntact,
            result: Check::Fail,
            sentence: format!("The tasks are not the holdout recorded in {manifest}: {proof}."),
            proof,
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The first few of `tasks` (of `count` in all), and `...` when there are more.
fn first(tasks: &[&str], count: usize) -> String {
    let mut text = tasks
        .iter()
        .take(SHOWN_TASKS)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if count > SHOWN_TASKS {
        text.push_str(", ...");
    }
    text
}

/// The first 12 hex digits: enough to tell two digests apart in a sentence.
fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holdout_identity_sorts_the_tasks_and_matches_python_hashlib() {
        // python3 -c 'import hashlib; ids = sorted(["1706.03762:title", "1706.03762:id",
        //   "1512.03385:year", "1810.04805:first_author"]);
        //   print(hashlib.sha256("\n".join(ids).encode()).hexdigest())'   (Python 3)
        let expected = "a6a2e6217453a026fcc7ac2961408bf2f1af290789d958218802f11344daec6a";
        let ids = [
            "1706.03762:title",
            "1706.03762:id",
            "1512.03385:year",
            "1810.04805:first_author",
        ];
        let mut owned: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        assert_eq!(holdout_identity(&owned), expected);
        owned.reverse();
        assert_eq!(holdout_identity(&owned), expected);
        owned.pop();
        assert_ne!(holdout_identity(&owned), expected);
    }
}
