//! `evogate demo`: unpack the shipped data into a private temporary folder, run the
//! whole pipeline on it ([`crate::pipeline::demo`]) and say whether both verdicts came
//! out as built.

use std::path::PathBuf;

use anyhow::Context;

use super::Printout;
use super::execute::Effects;
use crate::atomic::ensure_dir;
use crate::cli::DemoArgs;
use crate::pipeline::demo;
use crate::progress::Progress;

/// Runs `demo`.
pub(crate) fn run(args: DemoArgs) -> anyhow::Result<Printout> {
    // Anything but a folder (a file, a FIFO, a device) is refused here, before the
    // demo runs in a temporary folder and would name it by its absolute path.
    if args.out.exists() && !args.out.is_dir() {
        anyhow::bail!(
            "`{}` is a file, not a folder: give a folder to write the demo into",
            args.out.display()
        );
    }
    let data = Unpacked::new()?;
    let outcome = demo::run(&args.out, &data.returned, &Progress::on_stderr("score"));
    // The folder that was current is restored whether or not a step failed.
    data.leave()?;
    Effects::default().finish(outcome?)
}

/// The embedded data written into a temporary folder, which is current while it lives.
struct Unpacked {
    /// The temporary folder, removed by `leave` (or on drop).
    folder: tempfile::TempDir,
    /// The folder that was current before, to go back to.
    returned: PathBuf,
}

impl Unpacked {
    /// Writes [`demo::DATA`] into a new temporary folder and makes it current.
    fn new() -> anyhow::Result<Unpacked> {
        let returned = std::env::current_dir().context("cannot read the current folder")?;
        let folder = tempfile::Builder::new()
            .prefix("evogate-demo-")
            .tempdir()
            .context("cannot make a temporary folder for the demo's data")?;
        for (name, bytes) in demo::DATA {
            let path = folder.path().join(name);
            if let Some(parent) = path.parent() {
                ensure_dir(parent)?;
            }
            std::fs::write(&path, bytes).with_context(|| {
                format!("cannot write the demo's `{name}` into a temporary folder")
            })?;
        }
        std::env::set_current_dir(folder.path())
            .context("cannot enter the temporary folder of the demo's data")?;
        Ok(Unpacked { folder, returned })
    }

    /// Goes back to the folder that was current and removes the temporary one.
    fn leave(self) -> anyhow::Result<()> {
        std::env::set_current_dir(&self.returned)
            .with_context(|| format!("cannot go back to `{}`", self.returned.display()))?;
        self.folder
            .close()
            .context("cannot remove the demo's temporary folder")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_socket_as_the_demo_folder_is_refused_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("out");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let error = run(DemoArgs {
            out: socket.clone(),
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            error,
            format!(
                "`{}` is a file, not a folder: give a folder to write the demo into",
                socket.display()
            )
        );
    }
}
