//! Every bench script in `benches/` (Python and shell; the Rust benches are cargo's)
//! prints its usage with `-h` and with `--help`, exits 0, and starts no work: the
//! scripts take their arguments by position, so before this an unknown first argument
//! went on as a mode, a count or a folder name.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The bench scripts, with the interpreter each runs under.
fn scripts() -> Vec<(&'static str, PathBuf)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches");
    let mut found: Vec<(&'static str, PathBuf)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_string();
            match path.extension()?.to_str()? {
                // `_common.py` is imported by the others, not run.
                "py" if !name.starts_with('_') => Some(("python3", path)),
                "sh" => Some(("bash", path)),
                _ => None,
            }
        })
        .collect();
    found.sort();
    found
}

/// Starts `interpreter script flag` in `dir`.
fn start(interpreter: &str, script: &Path, flag: &str, dir: &Path) -> Child {
    Command::new(interpreter)
        .arg(script)
        .arg(flag)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits for `child`: exit code, stdout, stderr. One that has not ended a minute after
/// `started` is killed (it began a bench instead of printing its usage).
fn finish(mut child: Child, started: Instant) -> (Option<i32>, String, String) {
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn every_bench_script_prints_its_usage_with_h_and_help_and_exits_0() {
    let scripts = scripts();
    assert!(scripts.len() >= 20, "{scripts:?}");
    let dir = tempfile::tempdir().unwrap();
    // All at once: one interpreter's start-up each, not one after another.
    let started = Instant::now();
    let children: Vec<(String, Child)> = scripts
        .iter()
        .flat_map(|(interpreter, script)| {
            let shown = script.file_name().unwrap().to_string_lossy().into_owned();
            ["-h", "--help"].map(|flag| {
                (
                    format!("{shown} {flag}"),
                    start(interpreter, script, flag, dir.path()),
                )
            })
        })
        .collect();
    let mut failures = Vec::new();
    for (shown, child) in children {
        let (code, stdout, stderr) = finish(child, started);
        if code != Some(0) || !stdout.to_lowercase().contains("usage") || !stderr.is_empty() {
            failures.push(format!(
                "{shown}: exit {code:?}, stdout {:?}, stderr {:?}",
                stdout.chars().take(120).collect::<String>(),
                stderr.chars().take(200).collect::<String>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
