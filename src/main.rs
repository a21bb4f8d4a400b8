//! The `evogate` binary: parse the command line, run the command, print its outcome,
//! and turn it into the exit status (0 success or admitted, 1 a negative result, 2 the
//! tool could not do its job, 3 `admit --sequential` undecided). A closed stdout (`evogate ... | head`) exits quietly.
#![allow(clippy::print_stderr, clippy::exit)]

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use evogate::cli::Cli;
use evogate::cmd;

fn main() -> ExitCode {
    // Without the watcher a signal still ends the run, only without the clean-up.
    #[cfg(unix)]
    let _ = evogate::atomic::watch_signals(|stop| {
        eprintln!("{}", stop.message());
        std::process::exit(stop.code())
    });
    let code = run();
    // A stop under way ends the process with its own code instead.
    evogate::atomic::end_run();
    code
}

/// Runs the command line, printing its outcome: the exit code.
fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    match cmd::run(cli) {
        Ok(outcome) => {
            let mut stdout = std::io::stdout().lock();
            let written = stdout
                .write_all(evogate::report::terminal::terminal(&outcome.stdout).as_bytes())
                .and_then(|()| stdout.flush());
            if let Err(error) = written
                && error.kind() != std::io::ErrorKind::BrokenPipe
            {
                eprintln!("error: cannot write to stdout: {error}");
                return ExitCode::from(2);
            }
            for note in &outcome.notes {
                eprintln!("note: {}", evogate::report::terminal::message(note));
            }
            ExitCode::from(outcome.status.code())
        }
        Err(error) => {
            eprintln!(
                "error: {}",
                evogate::report::terminal::message(&format!("{error:#}"))
            );
            ExitCode::from(2)
        }
    }
}
