//! The guard that keeps a command from writing over one of its own inputs. Files are
//! compared by identity (device and inode on unix, the canonical path elsewhere), so
//! another name for the same file, a hard link or a symbolic link, is caught too.

use std::path::Path;

/// Refuses when any of `outputs` is the same file as one of `inputs` (each given with
/// the option that named it), naming both. Paths that do not exist yet cannot be an
/// input and pass.
pub fn refuse_overwriting_inputs<'a>(
    outputs: impl IntoIterator<Item = &'a Path>,
    inputs: &[(&str, &Path)],
) -> anyhow::Result<()> {
    let inputs: Vec<(&str, &Path, Identity)> = inputs
        .iter()
        .filter_map(|(option, path)| identity(path).map(|id| (*option, *path, id)))
        .collect();
    for output in outputs {
        let Some(id) = identity(output) else {
            continue;
        };
        if let Some((option, input, _)) = inputs.iter().find(|(_, _, other)| *other == id) {
            anyhow::bail!(
                "`{}` would be written over the input `{}` ({option}); write the output to another folder or file",
                output.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Refuses when `file` (named by `option`) is the same file as one of `others` (each
/// with the option that named it), by identity, not by name: a hard link or another
/// path to it is the same file. `why` says why the two must differ.
pub fn refuse_same_file(
    (option, file): (&str, &Path),
    others: &[(&str, &Path)],
    why: &str,
) -> anyhow::Result<()> {
    let Some(id) = identity(file) else {
        return Ok(());
    };
    if let Some((other, path)) = others
        .iter()
        .find(|(_, path)| identity(path).is_some_and(|other| other == id))
    {
        anyhow::bail!(
            "`{}` ({option}) is the same file as `{}` ({other}): {why}",
            file.display(),
            path.display()
        );
    }
    Ok(())
}

#[cfg(unix)]
type Identity = (u64, u64);

#[cfg(unix)]
fn identity(path: &Path) -> Option<Identity> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.dev(), meta.ino()))
}

#[cfg(not(unix))]
type Identity = std::path::PathBuf;

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<Identity> {
    std::fs::canonicalize(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_name_for_an_input_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("pairs.csv");
        std::fs::write(&input, "x").unwrap();
        let alias = dir.path().join("alias.csv");
        std::fs::hard_link(&input, &alias).unwrap();
        let error = refuse_overwriting_inputs([alias.as_path()], &[("--baseline", &input)])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("alias.csv") && error.contains("pairs.csv"),
            "{error}"
        );
        assert!(error.contains("--baseline"), "{error}");
        let other = dir.path().join("new.csv");
        refuse_overwriting_inputs([other.as_path()], &[("--baseline", &input)]).unwrap();
    }
}
