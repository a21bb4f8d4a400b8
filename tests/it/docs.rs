//! The contract in `docs/` held to the code: `docs/commands.md` is every command's
//! `--help` as the binary prints it, and no Markdown file of the repository's front
//! matter (README, docs/) links to a file that is not in the repository.
//!
//! When a command's help changes, rewrite the page with
//! `EVOGATE_BLESS=1 cargo test --test it docs::` and commit it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `evogate <words> --help`, with the terminal width fixed so the wrapping never
/// depends on who runs the test.
fn help(words: &[&str]) -> String {
    let mut args: Vec<&str> = words.to_vec();
    args.push("--help");
    let output = crate::util::evogate(&root())
        .args(&args)
        .env("COLUMNS", "100")
        .output()
        .expect("the binary runs");
    assert_eq!(output.status.code(), Some(0), "{words:?} --help failed");
    String::from_utf8(output.stdout).expect("help is UTF-8")
}

/// The subcommands a help text lists under `Commands:`, `help` left out.
fn subcommands(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|line| line.trim() != "Commands:")
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        // A name stands two spaces in; a wrapped description stands further in.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every command path with its help, depth first in the order `--help` lists them.
fn every_help(prefix: Vec<String>, found: &mut Vec<(Vec<String>, String)>) {
    let words: Vec<&str> = prefix.iter().map(String::as_str).collect();
    let text = help(&words);
    let children = subcommands(&text);
    found.push((prefix.clone(), text));
    for child in children {
        let mut path = prefix.clone();
        path.push(child);
        every_help(path, found);
    }
}

fn commands_page() -> String {
    let mut found = Vec::new();
    every_help(Vec::new(), &mut found);
    let mut page = String::from(
        "# Commands\n\n\
         Every command and its options, exactly as `evogate <command> --help` prints them\n\
         (a test holds this page equal to the binary's help; see `tests/it/docs.rs`). Exit\n\
         status for every command: 0 success (admitted, clean, supported), 1 a negative\n\
         result that is not an error (refused, inconclusive, problems found, leakage, a claim\n\
         not supported), 2 the tool could not do its job (usage, unreadable or invalid input,\n\
         I/O), and 3 for `admit --sequential` only: not decided yet, score more tasks.\n\
         Errors are printed once on stderr as `error: ...`, naming the file, the row and\n\
         the fix; notes as `note: ...`. Outputs change at one commit point: exit 2 means no\n\
         output was changed (on SIGINT or SIGTERM too, which stop a run within a second),\n\
         and 0, 1 or 3 means every output is new and whole; what a killed run leaves is\n\
         cleared by the next run (see `docs/reports.md`, Interruptions).\n",
    );
    for (path, text) in found {
        let title = if path.is_empty() {
            "evogate".to_string()
        } else {
            format!("evogate {}", path.join(" "))
        };
        page.push_str(&format!("\n## `{title}`\n\n```text\n{}```\n", text));
    }
    page
}

#[test]
fn the_commands_page_is_every_commands_help_as_the_binary_prints_it() {
    let expected = commands_page();
    let path = root().join("docs/commands.md");
    if std::env::var_os("EVOGATE_BLESS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/commands.md differs from the binary's --help; run \
         `EVOGATE_BLESS=1 cargo test --test it docs::` and commit it"
    );
}

/// The targets of Markdown links `](target)` in `text`, addresses and anchors left out.
fn local_links(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .map(|target| target.split('#').next().unwrap_or("").to_string())
        .filter(|target| !target.is_empty() && !target.contains("://"))
        .collect()
}

#[test]
fn the_readme_and_docs_link_only_to_files_in_the_repository() {
    let mut pages = vec![root().join("README.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(
            !text.contains("shared folder") && !text.contains("../shared"),
            "{} sends readers outside the repository",
            page.display()
        );
        for target in local_links(&text) {
            let resolved = page.parent().unwrap().join(&target);
            assert!(
                resolved.exists(),
                "{} links to `{target}`, which is not in the repository",
                page.display()
            );
        }
    }
}
