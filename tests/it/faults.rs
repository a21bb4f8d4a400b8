//! Faults injected at each step of replacing an output, for `split --out`, `score
//! --out`, `admit --report-dir` and `import --out`: a SIGKILL, a SIGINT, a SIGTERM or a
//! failed write or rename, through the debug build's testing hook
//! (`EVOGATE_TEST_FAULT=STEP:ACTION`, `src/atomic/fault.rs`). Each case starts from the
//! old outputs in place, runs the command that would replace them with the fault, and
//! checks what is at the target, the exit code and what is left beside it; then the
//! next run of a command that reads (or writes) the target, which must leave the old
//! or the new set whole and nothing beside it. `EVOGATE_TEST_NO_EXCHANGE=1` repeats the
//! steps of a platform without an atomic exchange. With `--nocapture` each test prints
//! its table.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::util::{papers, run, ten_tasks};

/// What a target holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Held {
    Old,
    New,
    /// Some files old and some new (two files cannot change in one step).
    Mixed,
    Missing,
    Other,
}

/// How a faulted run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    Code(i32),
    Killed,
}

/// A command whose target a fault interrupts.
struct Subject {
    name: &'static str,
    /// Writes the inputs and the old outputs into a folder.
    setup: fn(&Path),
    /// The run that replaces the old outputs with the new.
    new_run: Vec<String>,
    /// The target's paths: one folder, or the files of one set.
    target: &'static [&'static str],
    /// The next run, which reads (or writes) the target.
    next_run: Vec<String>,
    /// Whether the next run writes the target (then it holds the new set after).
    next_writes: bool,
}

fn args(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}

/// Every file under `path` (or `path` itself) by its path relative to `root`.
fn snapshot(root: &Path, target: &[&str]) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut files = BTreeMap::new();
    for name in target {
        let path = root.join(name);
        if path.is_dir() {
            let mut pending = vec![path];
            while let Some(dir) = pending.pop() {
                for entry in fs::read_dir(&dir).unwrap() {
                    let entry = entry.unwrap().path();
                    if entry.is_dir() {
                        pending.push(entry);
                    } else {
                        let relative = entry.strip_prefix(root).unwrap();
                        files.insert(
                            relative.display().to_string(),
                            Some(fs::read(&entry).unwrap()),
                        );
                    }
                }
            }
        } else {
            files.insert(name.to_string(), fs::read(&path).ok());
        }
    }
    files
}

type Snapshot = BTreeMap<String, Option<Vec<u8>>>;

fn held(seen: &Snapshot, old: &Snapshot, new: &Snapshot) -> Held {
    if seen == old {
        return Held::Old;
    }
    if seen == new {
        return Held::New;
    }
    if seen.is_empty() || seen.values().all(Option::is_none) {
        return Held::Missing;
    }
    let each = |name: &String, bytes: &Option<Vec<u8>>| {
        (old.get(name) == Some(bytes), new.get(name) == Some(bytes))
    };
    let whole = seen.len() == old.len() && seen.keys().eq(old.keys());
    let (mut olds, mut news) = (0, 0);
    for (name, bytes) in seen {
        match each(name, bytes) {
            (true, _) => olds += 1,
            (false, true) => news += 1,
            _ => return Held::Other,
        }
    }
    if whole && olds > 0 && news > 0 {
        Held::Mixed
    } else {
        Held::Other
    }
}

/// The names in `dir` that are neither inputs nor the target, digits shown as `N`.
fn left(dir: &Path, before: &[String]) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !before.contains(name))
        .map(|name| {
            let mut shown = String::new();
            for c in name.chars() {
                if c.is_ascii_digit() {
                    if !shown.ends_with('N') {
                        shown.push('N');
                    }
                } else {
                    shown.push(c);
                }
            }
            shown
        })
        .collect();
    names.sort();
    names
}

fn run_faulted(dir: &Path, command: &[String], fault: &str, exchange: bool) -> (Exit, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("evogate"));
    child
        .current_dir(dir)
        .args(command)
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("EVOGATE_TEST_FAULT", fault);
    if !exchange {
        child.env("EVOGATE_TEST_NO_EXCHANGE", "1");
    }
    let output = child.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let exit = match output.status.code() {
        Some(code) => Exit::Code(code),
        None => {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(output.status.signal(), Some(9), "{fault}: {stderr}");
            Exit::Killed
        }
    };
    (exit, stderr)
}

/// What a case must show: the target, the exit, whether anything is left beside it,
/// and the target after the next run.
fn expected(
    subject: &Subject,
    step: &str,
    action: &str,
    new_code: i32,
) -> (Held, Exit, bool, Held) {
    let committed = !matches!(step, "write" | "synced");
    let last = format!("replace-{}", subject.target.len());
    let after = |held: Held| if subject.next_writes { Held::New } else { held };
    match action {
        "fail" => (Held::Old, Exit::Code(2), false, after(Held::Old)),
        "int" | "term" if committed => (Held::New, Exit::Code(new_code), false, Held::New),
        "int" | "term" => (Held::Old, Exit::Code(2), false, after(Held::Old)),
        _ => match step {
            "write" | "synced" => (Held::Old, Exit::Killed, true, after(Held::Old)),
            // The commit record is in place: the next run completes the new set.
            "journal" => (Held::Old, Exit::Killed, true, Held::New),
            "aside" => (Held::Missing, Exit::Killed, true, after(Held::Old)),
            step if step.starts_with("replace-") && step != last => {
                (Held::Mixed, Exit::Killed, true, Held::New)
            }
            _ => (Held::New, Exit::Killed, true, Held::New),
        },
    }
}

/// Runs every step × action of `subject`, asserting each and printing the table
/// (shown with `--nocapture`).
#[allow(clippy::print_stdout)]
fn check(subject: &Subject, steps: &[(&str, bool)]) {
    let template = tempfile::tempdir().unwrap();
    (subject.setup)(template.path());
    let inputs: Vec<String> = fs::read_dir(template.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let old = snapshot(template.path(), subject.target);
    // The new outputs, made once without a fault.
    let reference = tempfile::tempdir().unwrap();
    copy(template.path(), reference.path());
    let made = run(reference.path(), &subject.new_run);
    assert!(made.code == 0 || made.code == 1, "{}", made.stderr);
    let new = snapshot(reference.path(), subject.target);
    assert_ne!(old, new, "{}: the new run changes nothing", subject.name);
    let mut table = format!(
        "\n{}\n| step | fault | target | exit | left beside it | after the next run |\n| --- | --- | --- | --- | --- | --- |\n",
        subject.name
    );
    for (step, exchange) in steps {
        for action in ["kill", "int", "term", "fail"] {
            if *step == "committed" && action == "fail" {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            copy(template.path(), dir.path());
            let fault = format!("{step}:{action}");
            let (exit, stderr) = run_faulted(dir.path(), &subject.new_run, &fault, *exchange);
            let seen = held(&snapshot(dir.path(), subject.target), &old, &new);
            let beside = left(dir.path(), &inputs);
            let next = run(dir.path(), &subject.next_run);
            assert_ne!(
                next.code, 2,
                "{fault}: the next run failed: {}",
                next.stderr
            );
            let after = held(&snapshot(dir.path(), subject.target), &old, &new);
            let after_beside = left(dir.path(), &inputs);
            let case = format!("{} {fault} (exchange {exchange})", subject.name);
            let (want, want_exit, want_left, want_after) =
                expected(subject, step, action, made.code);
            assert_eq!(seen, want, "{case}: {stderr}");
            assert_eq!(exit, want_exit, "{case}: {stderr}");
            assert_eq!(!beside.is_empty(), want_left, "{case}: {beside:?} {stderr}");
            assert!(
                beside.iter().all(|n| n.contains(".evogate-")),
                "{case}: {beside:?}"
            );
            assert_eq!(after, want_after, "{case}: after {}", next.stderr);
            assert_eq!(
                after_beside,
                Vec::<String>::new(),
                "{case}: the next run left them"
            );
            match (action, exit) {
                ("fail", _) => {
                    assert!(stderr.starts_with("error: "), "{case}: {stderr}");
                    assert!(stderr.contains("injected failure"), "{case}: {stderr}");
                    assert!(!stderr.contains(".evogate-"), "{case}: {stderr}");
                    assert!(
                        subject
                            .target
                            .iter()
                            .any(|t| stderr.contains(&format!("`{t}"))),
                        "{case}: the error does not name the target: {stderr}"
                    );
                }
                ("int" | "term", Exit::Code(2)) => assert!(
                    stderr
                        .contains("the files being written were removed and nothing was replaced"),
                    "{case}: {stderr}"
                ),
                ("int" | "term", _) => assert!(
                    stderr.contains("after the outputs were in place"),
                    "{case}: {stderr}"
                ),
                _ => {}
            }
            let exit = match exit {
                Exit::Code(code) => code.to_string(),
                Exit::Killed => "killed (137)".to_string(),
            };
            let path = if *exchange { "" } else { " (no exchange)" };
            table.push_str(&format!(
                "| {step}{path} | {action} | {seen:?} | {exit} | {} | {after:?}, nothing beside |\n",
                if beside.is_empty() { "nothing".to_string() } else { beside.join(" ") },
            ));
        }
    }
    println!("{table}");
}

fn copy(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let destination = to.join(path.file_name().unwrap());
        if path.is_dir() {
            fs::create_dir(&destination).unwrap();
            copy(&path, &destination);
        } else {
            fs::copy(&path, &destination).unwrap();
        }
    }
}

fn truth() -> String {
    papers().to_str().unwrap().to_string()
}

fn formats(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/formats/lm-eval")
        .join(rel);
    path.to_str().unwrap().to_string()
}

const GSM8K_BASE: &str = "samples_gsm8k_2025-09-09T13-42-42.857006.jsonl";
const GSM8K_TUNED: &str = "samples_gsm8k_2025-09-09T13-31-53.431753.jsonl";

/// The folder steps: each with the exchange, and the two renames without it.
const FOLDER_STEPS: [(&str, bool); 6] = [
    ("write", true),
    ("synced", true),
    ("replace-1", true),
    ("committed", true),
    ("aside", false),
    ("replace-1", false),
];

#[test]
fn split_out_holds_the_old_split_or_the_new_at_every_fault_and_the_next_check_clears_the_rest() {
    let subject = Subject {
        name: "split --out s",
        setup: |dir| {
            let truth = truth();
            let made = run(
                dir,
                &["split", "--truth", &truth, "--out", "s", "--seed", "1"],
            );
            assert_eq!(made.code, 0, "{}", made.stderr);
        },
        new_run: args(&format!("split --truth {} --out s --seed 2", truth())),
        target: &["s"],
        next_run: args("split --check s"),
        next_writes: false,
    };
    check(&subject, &FOLDER_STEPS);
}

/// Writes `b.csv`, `c1.csv` and `c2.csv`: two candidates on ten tasks, one admitted.
fn admit_inputs(dir: &Path) {
    fs::write(dir.join("b.csv"), ten_tasks(&|_| 0)).unwrap();
    fs::write(dir.join("c1.csv"), ten_tasks(&|t| u8::from(t < 2))).unwrap();
    fs::write(dir.join("c2.csv"), ten_tasks(&|_| 1)).unwrap();
}

#[test]
fn admit_report_dir_holds_the_old_report_or_the_new_at_every_fault_and_the_next_run_clears_the_rest()
 {
    let subject = Subject {
        name: "admit --report-dir rep",
        setup: |dir| {
            admit_inputs(dir);
            let made = run(
                dir,
                &args("admit --baseline b.csv --candidate c1.csv --report-dir rep"),
            );
            assert_eq!(made.code, 1, "{}", made.stderr);
        },
        new_run: args("admit --baseline b.csv --candidate c2.csv --report-dir rep"),
        target: &["rep"],
        next_run: args("admit --baseline b.csv --candidate c2.csv --report-dir rep"),
        next_writes: true,
    };
    check(&subject, &FOLDER_STEPS);
}

/// Writes the holdout of a split of the shipped truth and two outputs files for it.
fn score_inputs(dir: &Path) {
    let made = run(dir, &["split", "--truth", &truth(), "--out", "s"]);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let tasks = fs::read_to_string(dir.join("s/holdout.csv")).unwrap();
    for (name, answer) in [("o1.csv", "2014"), ("o2.csv", "2017")] {
        let mut outputs = String::from("task_id,output\n");
        for line in tasks.lines().skip(1) {
            let id = line.split(',').next().unwrap();
            outputs.push_str(&format!("{id},{answer}\n"));
        }
        fs::write(dir.join(name), outputs).unwrap();
    }
}

#[test]
fn score_out_holds_the_old_scores_or_the_new_at_every_fault_and_the_next_reader_clears_the_rest() {
    let score = |outputs: &str| {
        args(&format!(
            "score --truth {} --tasks s/holdout.csv --outputs {outputs} --out sc.csv",
            truth()
        ))
    };
    let subject = Subject {
        name: "score --out sc.csv",
        setup: |dir| {
            score_inputs(dir);
            let truth = truth();
            let made = run(
                dir,
                &args(&format!(
                    "score --truth {truth} --tasks s/holdout.csv --outputs o1.csv --out sc.csv"
                )),
            );
            assert_eq!(made.code, 0, "{}", made.stderr);
            fs::copy(dir.join("sc.csv"), dir.join("ref.csv")).unwrap();
        },
        new_run: score("o2.csv"),
        target: &["sc.csv"],
        next_run: args("admit --baseline ref.csv --candidate sc.csv"),
        next_writes: false,
    };
    check(
        &subject,
        &[
            ("write", true),
            ("synced", true),
            ("replace-1", true),
            ("committed", true),
            ("replace-1", false),
        ],
    );
}

#[test]
fn import_out_holds_the_old_pair_or_the_new_at_every_fault_and_the_next_reader_completes_it() {
    let subject = Subject {
        name: "import --out k.csv",
        setup: |dir| {
            for (log, out) in [(GSM8K_BASE, "k.csv"), (GSM8K_BASE, "ref.csv")] {
                let made = run(
                    dir,
                    &args(&format!(
                        "import lm-eval --from {} --out {out}",
                        formats(log)
                    )),
                );
                assert_eq!(made.code, 0, "{}", made.stderr);
            }
        },
        new_run: args(&format!(
            "import lm-eval --from {} --out k.csv",
            formats(GSM8K_TUNED)
        )),
        target: &["k.csv", "k.import.json"],
        next_run: args("admit --baseline ref.csv --candidate k.csv"),
        next_writes: false,
    };
    check(
        &subject,
        &[
            ("write", true),
            ("synced", true),
            ("journal", true),
            ("replace-1", true),
            ("replace-2", true),
            ("committed", true),
            ("replace-1", false),
            ("replace-2", false),
        ],
    );
}

#[test]
fn a_stop_after_the_ledger_records_the_attempt_says_so_and_the_rerun_repeats_it_without_spending() {
    let dir = tempfile::tempdir().unwrap();
    admit_inputs(dir.path());
    crate::util::write_manifest(
        dir.path(),
        &(0..10).map(|t| format!("t{t}")).collect::<Vec<_>>(),
    );
    let admit = args(
        "admit --baseline b.csv --candidate c2.csv --manifest manifest.json --ledger l.jsonl --report-dir rep",
    );
    let (exit, stderr) = run_faulted(dir.path(), &admit, "synced:term", true);
    assert_eq!(exit, Exit::Code(2), "{stderr}");
    assert!(
        stderr
            .contains("nothing was replaced; attempt 1 was recorded in `l.jsonl` before the stop"),
        "{stderr}"
    );
    assert!(!dir.path().join("rep").exists());
    let ledger = fs::read_to_string(dir.path().join("l.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 1, "{ledger}");
    // The same command again writes the report of that attempt and spends nothing.
    let again = run(dir.path(), &admit);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(dir.path().join("rep/admission.json").exists());
    let ledger = fs::read_to_string(dir.path().join("l.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 1, "{ledger}");
    assert_eq!(
        left(dir.path(), &[])
            .iter()
            .filter(|n| n.contains("evogate"))
            .count(),
        0
    );
}
