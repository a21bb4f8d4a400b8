//! The layout the library's `//!` doc describes, held: the layer map lists every
//! module, each module imports only what [`ALLOWED`] lets its layer use (read from its
//! `use` trees and inline paths, test code left out), command files are glue that
//! imports no other command, and no two public types share a name.

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

/// The layers, lowest first, and their modules: the map in `src/lib.rs`'s `//!` doc,
/// which [`the_library_doc_map_lists_every_module_in_its_layer`] holds equal to this.
const LAYERS: [(&str, &[&str]); 6] = [
    ("tools", &["base", "error", "digest"]),
    ("input", &["table", "outputs", "scores"]),
    (
        "core",
        &[
            "alpha",
            "task",
            "stats",
            "split",
            "verify",
            "grading",
            "admission",
            "audit",
            "ledger",
            "import",
        ],
    ),
    ("output", &["report", "plot", "atomic", "progress"]),
    ("pipeline", &["pipeline"]),
    ("commands", &["cli", "cmd"]),
];

/// The allowed imports: each layer's modules may use the modules of these layers (a
/// module may always use itself).
const ALLOWED: [(&str, &[&str]); 6] = [
    ("tools", &["tools"]),
    ("input", &["tools", "input"]),
    ("core", &["tools", "input", "core"]),
    ("output", &["tools", "input", "core", "output"]),
    (
        "pipeline",
        &["tools", "input", "core", "output", "pipeline"],
    ),
    (
        "commands",
        &["tools", "input", "core", "output", "pipeline", "commands"],
    ),
];

/// Paths outside the crate that a layer may not use (`x` bars `x` and every path
/// under it; `x*` every path that begins with `x`): the core and the tools never open
/// files, read the environment or exit; only the commands see clap (a
/// `clap::ValueEnum` derive on a domain enum is the one exception); the pipeline reads
/// but never writes, removes, renames, changes the environment, exits or forgets.
const FORBIDDEN: [(&str, &[&str]); 5] = [
    ("tools", &["std::fs", "std::env", "std::process", "clap"]),
    ("input", &["std::env", "std::process", "clap"]),
    ("core", &["std::fs", "std::env", "std::process", "clap"]),
    ("output", &["clap"]),
    ("pipeline", &PIPELINE_FORBIDDEN),
];

/// What the pipeline may not use: every way to write or remove a file that `std`
/// offers (a writable `File` comes only from `File::create*`, `File::options` or
/// `OpenOptions`), changes to the process and its environment, all of `std::process`
/// (an exit, or a child process that would write for it), `mem::forget`, the crates
/// that only commands need, and the terminal: stdout and stderr, the printing macros
/// (`println!` is read as the path `std::println`, see [`imports`]) and the question
/// whether a stream is a terminal, which decides whether a display is drawn.
const PIPELINE_FORBIDDEN: [&str; 26] = [
    "std::fs::write",
    "std::fs::File::create*",
    "std::fs::File::options",
    "std::fs::OpenOptions",
    "std::fs::create_dir*",
    "std::fs::remove*",
    "std::fs::rename",
    "std::fs::copy",
    "std::fs::hard_link",
    "std::fs::soft_link",
    "std::fs::set_permissions",
    "std::os::unix::fs::symlink",
    "std::env::set_current_dir",
    "std::env::set_var",
    "std::env::remove_var",
    "std::process",
    "std::mem::forget",
    "core::mem::forget",
    "clap",
    "tempfile",
    "std::io::stdout",
    "std::io::stderr",
    "std::io::IsTerminal",
    "std::print*",
    "std::eprint*",
    "std::dbg",
];

/// What the pipeline may take from `crate::atomic`, the writer's module: the types that
/// describe a write for the executor, and the ledger's guarded read. Every other item
/// (`write_all`, `replace_folder`, `ensure_dir`, `Streamed`, `ledger::record_attempt`,
/// `ledger::record_or_repeat`, `ledger::append`, and whatever is added later) is the
/// executor's. An entry naming a type allows its associated items too.
const PIPELINE_ATOMIC: [&str; 8] = [
    "FileToWrite",
    "StreamedFile",
    "WriteBytes",
    "ledger",
    "ledger::Entry",
    "ledger::Inputs",
    "ledger::Looked",
    "ledger::read_guarded",
];

/// Whether `path` is one the pattern bars (see [`FORBIDDEN`]); a glob (`x::*`) is
/// barred when it would bring a barred item into scope, so `use std::fs::*;` then
/// `write(..)` cannot slip past `std::fs::write`.
fn barred(path: &str, pattern: &str) -> bool {
    if let Some(module) = path.strip_suffix("::*") {
        let pattern = pattern.trim_end_matches('*');
        return barred(module, pattern) || pattern.starts_with(&format!("{module}::"));
    }
    match pattern.strip_suffix('*') {
        Some(prefix) => path.starts_with(prefix),
        None => path == pattern || path.starts_with(&format!("{pattern}::")),
    }
}

/// What the pipeline may take from `crate::progress`, the display's module: the sink
/// it counts into and the reader that counts. The display (`Progress`, whose
/// constructor decides whether to draw on stderr) and whatever is added later are the
/// command's.
const PIPELINE_PROGRESS: [&str; 2] = ["ProgressSink", "Counted"];

/// The modules the pipeline may take only the listed items from, with the reason
/// named when it takes another.
const PIPELINE_LIMITED: [(&str, &[&str], &str); 2] = [
    ("crate::atomic", &PIPELINE_ATOMIC, "a write: the executor's"),
    (
        "crate::progress",
        &PIPELINE_PROGRESS,
        "a display: the command's",
    ),
];

/// Why the pipeline may not use `path` under one of the [`PIPELINE_LIMITED`] modules,
/// or `None` when it may.
fn pipeline_refused(path: &str) -> Option<&'static str> {
    PIPELINE_LIMITED.iter().find_map(|(module, items, why)| {
        let rest = path.strip_prefix(module)?;
        let allowed = match rest.strip_prefix("::") {
            None => rest.is_empty(),
            Some(item) => items.iter().any(|allowed| {
                let is_type = allowed
                    .rsplit("::")
                    .next()
                    .is_some_and(|name| name.starts_with(char::is_uppercase));
                item == *allowed || is_type && item.starts_with(&format!("{allowed}::"))
            }),
        };
        (!allowed).then_some(*why)
    })
}

fn layer_of(module: &str) -> &'static str {
    LAYERS
        .iter()
        .find(|(_, modules)| modules.contains(&module))
        .map(|(layer, _)| *layer)
        .unwrap_or_else(|| panic!("module `{module}` is in no layer of LAYERS"))
}

/// A Rust source reduced to tokens: identifiers, `::` and single punctuation, with
/// comments, strings and character literals dropped.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            chars.get(i + 1 + hashes) == Some(&'"')
        } {
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            i += 2 + hashes;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).all(|&h| h == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if chars.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && next == Some(':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// The tokens minus every `#[cfg(test)]` item (a `mod tests { ... }` block or a
/// function), and the names of the test-only module files it declares (`mod x;`).
fn without_tests(tokens: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut test_modules = Vec::new();
    let mut i = 0;
    let is = |i: usize, text: &[&str]| {
        text.iter()
            .enumerate()
            .all(|(k, t)| tokens.get(i + k).map(String::as_str) == Some(*t))
    };
    while i < tokens.len() {
        if is(i, &["#", "[", "cfg", "(", "test", ")", "]"]) {
            i += 7;
            // Skip further attributes, then the item up to its `;` or its whole block.
            while is(i, &["#", "["]) {
                while tokens[i] != "]" {
                    i += 1;
                }
                i += 1;
            }
            if let Some(position) =
                (i..tokens.len()).find(|&k| tokens[k] == ";" || tokens[k] == "{")
            {
                if tokens[position] == ";" {
                    if tokens[i..position].contains(&"mod".to_string()) {
                        test_modules.push(tokens[position - 1].clone());
                    }
                    i = position + 1;
                } else {
                    let mut depth = 0;
                    let mut k = position;
                    loop {
                        match tokens[k].as_str() {
                            "{" => depth += 1,
                            "}" => depth -= 1,
                            _ => {}
                        }
                        k += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    i = k;
                }
            }
            continue;
        }
        kept.push(tokens[i].clone());
        i += 1;
    }
    (kept, test_modules)
}

/// The macros of `std`'s prelude that print, which [`imports`] reads as paths.
const STD_MACROS: [&str; 5] = ["print", "println", "eprint", "eprintln", "dbg"];

/// Every path a file imports, from its `use` trees (`use crate::{a::b, c};` gives
/// `crate::a::b` and `crate::c`) and from paths written inline (`crate::x::f()`, and
/// `f::g()` or `::std::x` too, a name bound by a `use` standing for its path: after
/// `use std::fs::{self, File};`, `fs::write` is `std::fs::write` and `File::create` is
/// `std::fs::File::create`), each as its segments; `super` and `self` are resolved
/// against the file's module path; a printing macro of the prelude (`eprintln!`) is
/// its path (`std::eprintln`).
fn imports(tokens: &[String], module: &[String]) -> Vec<Vec<String>> {
    /// One `use` tree from `at`: each path with the name it binds (its alias or last
    /// segment; none for a glob or `as _`).
    fn tree(
        tokens: &[String],
        at: &mut usize,
        prefix: Vec<String>,
        found: &mut Vec<(Vec<String>, Option<String>)>,
    ) {
        let mut path = prefix;
        let mut alias = None;
        let mut glob = false;
        loop {
            match tokens.get(*at).map(String::as_str) {
                Some("{") => {
                    *at += 1;
                    loop {
                        tree(tokens, at, path.clone(), found);
                        match tokens.get(*at).map(String::as_str) {
                            Some(",") => *at += 1,
                            Some("}") => {
                                *at += 1;
                                return;
                            }
                            _ => return,
                        }
                        if tokens.get(*at).map(String::as_str) == Some("}") {
                            *at += 1;
                            return;
                        }
                    }
                }
                Some("::") => *at += 1,
                Some("as") => {
                    alias = tokens.get(*at + 1).filter(|name| *name != "_").cloned();
                    glob = alias.is_none();
                    *at += 2;
                }
                Some(word)
                    if word == "*" || word.chars().all(|c| c.is_alphanumeric() || c == '_') =>
                {
                    if word == "*" {
                        glob = true;
                    }
                    path.push(word.to_string());
                    *at += 1;
                }
                _ => {
                    if path.last().is_some_and(|last| last == "self") && path.len() > 1 {
                        path.pop();
                    }
                    let bound = if glob {
                        None
                    } else {
                        alias.or(path.last().cloned())
                    };
                    found.push((path, bound));
                    return;
                }
            }
        }
    }
    let is_word = |word: &str| word.chars().all(|c| c.is_alphanumeric() || c == '_');
    // The `use` trees first, wherever they stand, so that every name they bind is known.
    let mut used = Vec::new();
    let mut outside_use = vec![true; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "use" {
            let mut at = i + 1;
            if tokens.get(at).map(String::as_str) == Some("::") {
                at += 1;
            }
            tree(tokens, &mut at, Vec::new(), &mut used);
            outside_use[i..at.min(tokens.len())].fill(false);
            i = at;
        } else {
            i += 1;
        }
    }
    let bound: BTreeMap<String, Vec<String>> = used
        .iter()
        .filter_map(|(path, name)| Some((name.clone()?, path.clone())))
        .collect();
    let mut found: Vec<Vec<String>> = used.into_iter().map(|(path, _)| path).collect();
    for i in 0..tokens.len() {
        let root = tokens[i].as_str();
        // A macro is no path to the tokens: `println!(..)` without a path before it is
        // the prelude's `std::println`.
        if STD_MACROS.contains(&root)
            && tokens.get(i + 1).map(String::as_str) == Some("!")
            && (i == 0 || tokens[i - 1] != "::")
        {
            found.push(vec!["std".to_string(), root.to_string()]);
            continue;
        }
        // A path starts here unless it continues one (`a::root`); `::root` starts one
        // when nothing named comes before the `::`.
        let starts = i == 0
            || tokens[i - 1] != "::"
            || (i == 1 || !is_word(&tokens[i - 2])) && !["super", "self"].contains(&root);
        let known = ["crate", "super", "std", "core", "clap", "tempfile"].contains(&root)
            || bound.contains_key(root);
        if !outside_use[i]
            || !starts
            || !known
            || tokens.get(i + 1).map(String::as_str) != Some("::")
        {
            continue;
        }
        let mut path = match bound.get(root) {
            Some(full) if !["crate", "super", "std", "core"].contains(&root) => full.clone(),
            _ => vec![root.to_string()],
        };
        let mut k = i + 2;
        while let Some(word) = tokens.get(k) {
            if !is_word(word) {
                break;
            }
            path.push(word.clone());
            if tokens.get(k + 1).map(String::as_str) != Some("::") {
                break;
            }
            k += 2;
        }
        found.push(path);
    }
    // Resolve `super` and `self` into `crate` paths.
    found
        .into_iter()
        .map(|path| {
            let mut base: Vec<String> = module.to_vec();
            let mut rest = path.as_slice();
            match rest.first().map(String::as_str) {
                Some("super") | Some("self") => {
                    while let Some(first) = rest.first() {
                        match first.as_str() {
                            "super" => {
                                base.pop();
                            }
                            "self" => {}
                            _ => break,
                        }
                        rest = &rest[1..];
                    }
                    let mut resolved = vec!["crate".to_string()];
                    resolved.extend(base);
                    resolved.extend(rest.iter().cloned());
                    resolved
                }
                _ => path,
            }
        })
        .collect()
}

/// Each library file (test-only files left out) with its module path and imports.
fn library_imports() -> Vec<(PathBuf, Vec<String>, Vec<Vec<String>>)> {
    let root = src();
    let mut test_files: Vec<PathBuf> = Vec::new();
    let mut files: Vec<(PathBuf, Vec<String>, Vec<String>)> = Vec::new();
    for (path, text) in sources(&root).into_iter().map(|(p, _)| {
        let text = std::fs::read_to_string(&p).unwrap();
        (p, text)
    }) {
        let relative = path.strip_prefix(&root).unwrap();
        if relative == Path::new("main.rs") {
            continue;
        }
        let mut module: Vec<String> = relative
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod" || m == "lib") {
            module.pop();
        }
        let (kept, tests) = without_tests(tokens(&text));
        let folder = if relative.ends_with("mod.rs") || relative == Path::new("lib.rs") {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        for name in tests {
            test_files.push(folder.join(format!("{name}.rs")));
            test_files.push(folder.join(&name));
        }
        files.push((path, module, kept));
    }
    files
        .into_iter()
        .filter(|(path, _, _)| !test_files.iter().any(|t| path.starts_with(t)))
        .map(|(path, module, kept)| {
            let found = imports(&kept, &module);
            (path, module, found)
        })
        .collect()
}

/// Every import that breaks [`ALLOWED`] or [`FORBIDDEN`], as `file: module (layer)
/// uses path (layer)`.
fn forbidden_imports() -> Vec<String> {
    let mut broken = Vec::new();
    for (path, module, found) in library_imports() {
        let Some(top) = module.first() else {
            continue;
        };
        let layer = layer_of(top);
        let allowed = ALLOWED.iter().find(|(l, _)| *l == layer).unwrap().1;
        let forbidden = FORBIDDEN
            .iter()
            .find(|(l, _)| *l == layer)
            .map_or(&[][..], |(_, f)| *f);
        for import in found {
            let text = import.join("::");
            let bad = match import.first().map(String::as_str) {
                Some("crate") => match import.get(1) {
                    Some(target) if target != top => {
                        let target_layer = layer_of(target);
                        if !allowed.contains(&target_layer) {
                            Some(target_layer.to_string())
                        } else {
                            (pipeline_refused(&text).filter(|_| layer == "pipeline"))
                                .map(str::to_string)
                        }
                    }
                    _ => None,
                },
                _ if text == "clap::ValueEnum" => None,
                _ => forbidden
                    .iter()
                    .find(|f| barred(&text, f))
                    .map(|_| "forbidden".to_string()),
            };
            if let Some(why) = bad {
                broken.push(format!(
                    "{}: {top} ({layer}) uses {text} ({why})",
                    path.strip_prefix(src()).unwrap().display()
                ));
            }
        }
    }
    broken.sort();
    broken.dedup();
    broken
}

#[test]
fn every_module_uses_only_the_layers_below_it_or_its_own() {
    // The reader finds the crate's imports (about a thousand), not nothing.
    let read: usize = library_imports()
        .iter()
        .map(|(_, _, found)| found.len())
        .sum();
    assert!(read > 500, "only {read} imports read");
    let broken = forbidden_imports();
    assert!(
        broken.is_empty(),
        "forbidden imports:\n{}",
        broken.join("\n")
    );
}

/// The paths [`imports`] finds in `text`, as the file of module `module` (`a::b`).
fn imported(text: &str, module: &str) -> Vec<String> {
    let (kept, tests) = without_tests(tokens(text));
    assert!(tests.is_empty());
    let module: Vec<String> = module.split("::").map(str::to_string).collect();
    (imports(&kept, &module).iter())
        .map(|p| p.join("::"))
        .collect()
}

#[test]
fn the_import_reader_sees_use_trees_inline_paths_and_super() {
    let text = "use crate::{a::b, c as d};\nuse super::e::{f, g::*};\n#[cfg(test)]\nmod tests { use crate::z; }\nfn h() { crate::x::y(); let s = \"crate::q\"; } // crate::w";
    assert_eq!(
        imported(text, "m::n"),
        [
            "crate::a::b",
            "crate::c",
            "crate::m::e::f",
            "crate::m::e::g::*",
            "crate::x::y"
        ]
    );
}

#[test]
fn the_import_reader_resolves_names_a_use_binds_and_global_paths() {
    let text = "use std::fs::{self, File as Handle};\nuse std::io::Write as _;\nuse super::outcome;\nfn h(x: u8) { fs::write(); Handle::create(); let _ = ::std::mem::forget(x); outcome::Write::Files; a::fs::b(); }";
    assert_eq!(
        imported(text, "pipeline::admit"),
        [
            "std::fs",
            "std::fs::File",
            "std::io::Write",
            "crate::pipeline::outcome",
            "std::fs::write",
            "std::fs::File::create",
            "std::mem::forget",
            "crate::pipeline::outcome::Write::Files",
        ]
    );
    assert!(barred(
        "std::fs::File::create_new",
        "std::fs::File::create*"
    ));
    assert!(!barred("std::fs::File::open", "std::fs::File::create*"));
    assert!(barred("std::fs::remove_dir_all", "std::fs::remove*"));
    assert!(!barred("std::fs::read_dir", "std::fs::remove*"));
    assert!(barred("std::fs::*", "std::fs::write"));
    assert!(barred("std::mem::*", "std::mem::forget"));
    assert!(barred("std::fs::*", "std::fs::File::create*"));
    assert!(barred("std::fs::*", "std::fs"));
    assert!(!barred("std::io::*", "std::fs::write"));
    assert!(pipeline_refused("crate::atomic::*").is_some());
    assert!(pipeline_refused("crate::atomic::ledger::*").is_some());
    assert!(pipeline_refused("crate::atomic::FileToWrite::new").is_none());
    assert!(pipeline_refused("crate::atomic::ledger::read_guarded").is_none());
    assert!(pipeline_refused("crate::atomic::ledger::read_text").is_some());
    assert!(pipeline_refused("crate::atomic::ledger::append").is_some());
    assert!(pipeline_refused("crate::atomic::write_all").is_some());
    assert!(pipeline_refused("crate::progress::ProgressSink").is_none());
    assert!(pipeline_refused("crate::progress::Progress::on_stderr").is_some());
    assert!(pipeline_refused("crate::progress::Progress").is_some());
    assert!(pipeline_refused("crate::table::open_input").is_none());
}

#[test]
fn the_import_reader_reads_the_printing_macros_as_std_paths() {
    let text = "use std::io::{self, Write};\nfn h(x: u8) { eprintln!(\"{x}\"); print!(\"a\"); dbg!(x); m::println!(); let _ = writeln!(io::stderr(), \"b\"); std::io::stdout(); }";
    assert_eq!(
        imported(text, "pipeline::score"),
        [
            "std::io",
            "std::io::Write",
            "std::eprintln",
            "std::print",
            "std::dbg",
            "std::io::stderr",
            "std::io::stdout",
        ]
    );
    let refused = |path: &str| PIPELINE_FORBIDDEN.iter().any(|f| barred(path, f));
    assert!(
        [
            "std::eprintln",
            "std::println",
            "std::eprint",
            "std::print",
            "std::dbg"
        ]
        .iter()
        .all(|path| refused(path))
    );
    assert!(refused("std::io::stderr") && refused("std::io::IsTerminal"));
    assert!(!refused("std::io::Write") && !refused("std::io::Read"));
}

#[test]
fn the_library_doc_map_lists_every_module_in_its_layer() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: Vec<String> = lib
        .lines()
        .filter_map(|line| {
            line.strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
        })
        .map(|name| name.trim_end_matches(';').to_string())
        .collect();
    let mut listed: Vec<&str> = LAYERS.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    listed.sort_unstable();
    let mut sorted = declared.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, listed, "lib.rs's modules against LAYERS");
    let map: Vec<(String, Vec<String>)> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("//! "))
        .skip_while(|line| !line.starts_with("```text"))
        .skip(1)
        .take_while(|line| !line.starts_with("```"))
        .map(|line| {
            let words: Vec<String> = line
                .split('(')
                .next()
                .unwrap()
                .split_whitespace()
                .map(str::to_string)
                .collect();
            (words[0].clone(), words[1..].to_vec())
        })
        .collect();
    let table: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .map(|(layer, modules)| {
            (
                layer.to_string(),
                modules.iter().map(|m| m.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(map, table, "lib.rs's layer map against LAYERS");
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

/// Every cycle of imports between sibling modules (the children of one parent, the
/// crate's top-level modules included), as `parent: a -> b -> a`. An import counts
/// for the two children of the nearest module that holds both its file and its
/// target, so `super::b::X` written in `a/c.rs` is an edge `a -> b`; a module using
/// its parent or its own child is no edge.
fn sibling_cycles() -> Vec<String> {
    let files = library_imports();
    let modules: Vec<Vec<String>> = files.iter().map(|(_, module, _)| module.clone()).collect();
    // parent -> child -> the children it uses.
    let mut edges: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (_, source, found) in &files {
        for import in found {
            if import.first().map(String::as_str) != Some("crate") {
                continue;
            }
            // The deepest module the path names (`crate::a::b::Item` -> `a::b`).
            let path = &import[1..];
            let Some(target) = (0..=path.len())
                .rev()
                .map(|n| &path[..n])
                .find(|prefix| modules.iter().any(|m| m.as_slice() == *prefix))
            else {
                continue;
            };
            let shared = source
                .iter()
                .zip(target)
                .take_while(|(a, b)| a == b)
                .count();
            if shared < source.len() && shared < target.len() {
                let children = edges.entry(source[..shared].to_vec()).or_default();
                let uses = children.entry(source[shared].clone()).or_default();
                if !uses.contains(&target[shared]) {
                    uses.push(target[shared].clone());
                }
            }
        }
    }
    let mut cycles = Vec::new();
    for (parent, children) in &edges {
        // A depth-first walk from each child back to itself, through larger names only,
        // so that each cycle is reported once, from its smallest member.
        for start in children.keys() {
            let mut stack: Vec<Vec<&String>> = vec![vec![start]];
            while let Some(walk) = stack.pop() {
                let last = walk[walk.len() - 1];
                for next in children.get(last).into_iter().flatten() {
                    if next == start {
                        let names: Vec<&str> = walk.iter().map(|s| s.as_str()).collect();
                        let parent: Vec<&str> = std::iter::once("crate")
                            .chain(parent.iter().map(String::as_str))
                            .collect();
                        cycles.push(format!(
                            "{}: {} -> {start}",
                            parent.join("::"),
                            names.join(" -> ")
                        ));
                    } else if next > start && !walk.contains(&next) {
                        let mut longer = walk.clone();
                        longer.push(next);
                        stack.push(longer);
                    }
                }
            }
        }
    }
    cycles.sort();
    cycles
}

#[test]
fn no_two_sibling_modules_import_each_other() {
    let cycles = sibling_cycles();
    assert!(
        cycles.is_empty(),
        "import cycles between sibling modules (move what both need into a third \
         module, or into the one the other uses):\n{}",
        cycles.join("\n")
    );
}

/// Every `evogate::` path that the crate's outside users write: the binary
/// (`src/main.rs`), the integration tests, the benches, the examples and the fuzz
/// targets, each as its segments after `crate`.
fn paths_used_outside() -> Vec<Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![(root.join("src/main.rs"), String::new())];
    for dir in ["tests", "benches", "examples", "fuzz/fuzz_targets"] {
        files.extend(sources(&root.join(dir)));
    }
    let mut found = Vec::new();
    for (path, _) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // Their own `crate`, `super` and `self` paths are not the library's.
        let marked: Vec<String> = tokens(&text)
            .into_iter()
            .map(|token| match token.as_str() {
                "evogate" => "crate".to_string(),
                "crate" | "super" | "self" => "outside".to_string(),
                _ => token,
            })
            .collect();
        found.extend(
            imports(&marked, &[])
                .into_iter()
                .filter(|path| path.first().is_some_and(|p| p == "crate"))
                .map(|path| path[1..].to_vec()),
        );
    }
    found
}

/// Each `pub mod` of the library, as its module path.
fn public_modules() -> Vec<Vec<String>> {
    let mut public = Vec::new();
    for (path, module, _) in library_imports() {
        let text = std::fs::read_to_string(&path).unwrap();
        for words in tokens(&text).windows(4) {
            if words[0] == "pub" && words[1] == "mod" && words[3] == ";" {
                let mut declared = module.clone();
                declared.push(words[2].clone());
                public.push(declared);
            }
        }
    }
    public
}

#[test]
fn a_module_is_public_only_when_a_user_outside_the_library_reaches_it() {
    let used = paths_used_outside();
    // The reader finds the outside users' paths (about a hundred), not nothing.
    assert!(used.len() > 50, "only {} paths read", used.len());
    let needless: Vec<String> = public_modules()
        .into_iter()
        .filter(|module| !used.iter().any(|path| path.starts_with(module)))
        .map(|module| module.join("::"))
        .collect();
    assert!(
        needless.is_empty(),
        "public modules that neither the binary, the tests, the benches, the examples nor \
         the fuzz targets use (declare them `pub(crate) mod`):\n{}",
        needless.join("\n")
    );
}

/// Every `.txt` under `proptest-regressions/`, each as its path below that folder.
fn regression_files(dir: &Path, below: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = below.join(path.file_name().unwrap());
        if path.is_dir() {
            regression_files(&path, &relative, found);
        } else if path.extension().is_some_and(|e| e == "txt") {
            found.push(relative);
        }
    }
}

/// proptest replays the cases saved in `proptest-regressions/a/b.txt` only for the
/// property tests of `src/a/b.rs` (its default `SourceParallel` persistence), so a
/// source moved without its file stops replaying them without a word.
#[test]
fn every_proptest_regression_file_sits_beside_a_source_with_property_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    regression_files(
        &root.join("proptest-regressions"),
        Path::new(""),
        &mut files,
    );
    assert!(!files.is_empty(), "no regression files read");
    let orphans: Vec<String> = files
        .iter()
        .filter(|file| {
            let source = src().join(file.with_extension("rs"));
            !std::fs::read_to_string(&source).is_ok_and(|text| text.contains("proptest!"))
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        orphans.is_empty(),
        "proptest-regressions files whose source (src/<same path>.rs) is gone or has no \
         proptest! block; move each beside its source's new path:\n{}",
        orphans.join("\n")
    );
}
