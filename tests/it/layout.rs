//! The layout the library's `//!` doc describes, held: core and input modules never
//! reach up into the use cases or the commands, command files are glue that imports no
//! other command, and no two public types share a name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its text minus `//` comments.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code: Vec<&str> = text
                    .lines()
                    .map(|line| line.split("//").next().unwrap_or(""))
                    .collect();
                found.push((path, code.join("\n")));
            }
        }
    }
    found.sort();
    found
}

#[test]
fn core_and_input_modules_never_use_the_pipeline_or_the_commands() {
    let upper = ["crate::pipeline", "crate::cmd", "crate::cli"];
    let lower = [
        "admission",
        "alpha.rs",
        "audit",
        "digest.rs",
        "error.rs",
        "base",
        "grading",
        "ledger",
        "split",
        "stats",
        "task.rs",
        "verify",
        "outputs",
        "scores.rs",
        "table",
        "table.rs",
    ];
    for name in lower {
        let path = src().join(name);
        let files = if path.is_dir() {
            sources(&path)
        } else {
            vec![(path.clone(), std::fs::read_to_string(&path).unwrap())]
        };
        for (file, code) in files {
            for reference in upper {
                assert!(
                    !code.contains(reference),
                    "{} uses {reference}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn command_files_are_glue_of_under_150_lines_importing_no_other_command() {
    let commands: Vec<(PathBuf, String)> = sources(&src().join("cmd"));
    let names: Vec<String> = commands
        .iter()
        .map(|(path, _)| path.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "mod" && name != "execute")
        .collect();
    for (path, code) in &commands {
        let lines = std::fs::read_to_string(path).unwrap().lines().count();
        assert!(lines < 150, "{} has {lines} lines", path.display());
        if path.ends_with("mod.rs") {
            continue;
        }
        assert!(!code.contains("crate::cmd"), "{}", path.display());
        for other in &names {
            assert!(
                !code.contains(&format!("super::{other}")),
                "{} imports the command {other}",
                path.display()
            );
        }
    }
}

#[test]
fn no_two_public_types_share_a_name() {
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, code) in sources(&src()) {
        for line in code.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            if let [first, kind, name, ..] = words.as_slice()
                && *first == "pub"
                && ["struct", "enum", "trait", "type"].contains(kind)
            {
                let name: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                seen.entry(name)
                    .or_default()
                    .push(path.display().to_string());
            }
        }
    }
    let shared: Vec<(&String, &Vec<String>)> =
        seen.iter().filter(|(_, files)| files.len() > 1).collect();
    assert!(shared.is_empty(), "{shared:?}");
}
