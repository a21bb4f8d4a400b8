//! What `--from` names, as files: a file as it is; a folder as the logs of the format
//! inside it (searched [`DEPTH`] levels down, sorted); a glob (`*` and `?` in the last
//! part of the path, for a shell that left it unexpanded) as the files it matches. A
//! folder or glob that yields nothing is an error naming it and what was looked for.
//! Inside a folder or a glob, a name like a log that is not a regular file (a FIFO, a
//! socket, a device) is an error naming it, since opening it could wait forever;
//! evogate's own import records (`*.import.json`) are never taken for logs.

use std::path::{Path, PathBuf};

use crate::import::{Format, ImportError};

/// How many folder levels under a `--from` folder are searched.
pub(crate) const DEPTH: usize = 3;

/// What a folder holds for `format`, in words and as a test on a file name.
fn wanted(format: Format) -> (&'static str, fn(&str) -> bool) {
    match format {
        Format::LmEval => ("samples_<task>_<date>.jsonl files", |n| {
            n.starts_with("samples_") && n.ends_with(".jsonl")
        }),
        Format::Inspect => (".eval and .json logs", |n| {
            n.ends_with(".eval") || (json_log(n) && !matches!(n, "logs.json" | "eval-set.json"))
        }),
        Format::Promptfoo => (".json results", json_log),
        Format::OpenaiEvals => (".jsonl record logs", |n| n.ends_with(".jsonl")),
        Format::Helm => ("run folders (holding per_instance_stats.json)", |n| {
            n == "per_instance_stats.json"
        }),
        Format::Dspy => (".json files", json_log),
    }
}

/// A `.json` name that is not an import record evogate wrote (`SCORES.import.json`,
/// which an earlier import may have left in the very folder it read).
fn json_log(name: &str) -> bool {
    name.ends_with(".json") && !name.ends_with(crate::import::record::RECORD_SUFFIX)
}

/// The files `from` names for `format`, in the order given (each folder's and glob's
/// files sorted). A HELM run is named by its `per_instance_stats.json`.
pub(crate) fn expand(format: Format, from: &[PathBuf]) -> Result<Vec<PathBuf>, ImportError> {
    let (what, test) = wanted(format);
    let mut files = Vec::new();
    for path in from {
        let text = path.to_string_lossy();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        if !path.exists()
            && let Some((part, above)) = glob_in_folders(path)
        {
            return Err(ImportError::malformed(
                &text,
                format!(
                    "`*` and `?` are matched in the last part of a path only (the file name), and `{part}` is a folder part: let the shell expand the pattern (leave it unquoted), or give the folder `{above}`, which is searched {DEPTH} levels down"
                ),
            ));
        }
        if path.is_dir() {
            if format == Format::Helm && path.join("per_instance_stats.json").is_file() {
                files.push(path.join("per_instance_stats.json"));
                continue;
            }
            let before = files.len();
            walk(path, test, DEPTH, &mut files)?;
            files[before..].sort();
            if files.len() == before {
                return Err(ImportError::malformed(
                    &text,
                    format!(
                        "the folder holds no {what} (searched {DEPTH} levels down); give the logs themselves"
                    ),
                ));
            }
        } else if !path.exists() && name.as_deref().is_some_and(|n| n.contains(['*', '?'])) {
            let pattern = name.unwrap_or_default();
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let mut matched: Vec<PathBuf> = std::fs::read_dir(&parent)
                .map_err(|e| ImportError::malformed(&text, format!("cannot list its folder: {e}")))?
                .filter_map(Result::ok)
                .filter(|entry| glob_match(&pattern, &entry.file_name().to_string_lossy()))
                .map(|entry| path.with_file_name(entry.file_name()))
                .collect();
            matched.sort();
            if matched.is_empty() {
                return Err(ImportError::malformed(
                    &text,
                    "the pattern matches no file; check the folder and the pattern",
                ));
            }
            for file in matched {
                if format == Format::Helm && file.is_dir() {
                    files.push(file.join("per_instance_stats.json"));
                } else {
                    regular(&file)?;
                    files.push(file);
                }
            }
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

/// The first folder part of `path` holding `*` or `?`, and the folder above it (`.` when
/// none), when there is one: such a glob is not matched.
fn glob_in_folders(path: &Path) -> Option<(String, String)> {
    let parent = path.parent()?;
    let mut above = PathBuf::new();
    for part in parent.components() {
        let text = part.as_os_str().to_string_lossy();
        if text.contains(['*', '?']) {
            let above = if above.as_os_str().is_empty() {
                ".".to_string()
            } else {
                above.to_string_lossy().into_owned()
            };
            return Some((text.into_owned(), above));
        }
        above.push(part);
    }
    None
}

/// Files under `folder` whose names pass `test`, `depth` levels down; hidden entries
/// are skipped. A name that passes but is no regular file is an error naming it
/// ([`regular`]).
fn walk(
    folder: &Path,
    test: fn(&str) -> bool,
    depth: usize,
    files: &mut Vec<PathBuf>,
) -> Result<(), ImportError> {
    let text = folder.display().to_string();
    let listing =
        |e: std::io::Error| ImportError::malformed(&text, format!("cannot list the folder: {e}"));
    for entry in std::fs::read_dir(folder).map_err(listing)? {
        let entry = entry.map_err(listing)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            if depth > 0 {
                walk(&path, test, depth - 1, files)?;
            }
        } else if test(&name) {
            regular(&path)?;
            files.push(path);
        }
    }
    Ok(())
}

/// Refuses a file a folder or a glob yields that is no regular file (a FIFO, a socket,
/// a device: opening a FIFO waits for a writer that may never come); one whose kind
/// cannot be read (a broken link) passes, and reading it names the error.
fn regular(path: &Path) -> Result<(), ImportError> {
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        return Err(ImportError::malformed(
            &path.display().to_string(),
            "named like a log but not a regular file (a FIFO, a socket or a device), which evogate does not open inside a folder or a glob: reading it could wait forever; move it out of the folder, or give the logs themselves",
        ));
    }
    Ok(())
}

/// Whether `name` matches `pattern`: `*` any run of characters, `?` one character.
pub(crate) fn glob_match(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // The classic two-pointer match with one backtrack point for the last `*`.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs_match_as_a_shell_matches_one_path_part() {
        for (pattern, name, wanted) in [
            ("samples_*.jsonl", "samples_gsm8k_2025.jsonl", true),
            ("samples_*.jsonl", "results_2025.json", false),
            ("*", "", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("*b*b", "abxbb", true),
            ("*.eval", "x.eval.json", false),
        ] {
            assert_eq!(glob_match(pattern, name), wanted, "{pattern} {name}");
        }
    }
}
