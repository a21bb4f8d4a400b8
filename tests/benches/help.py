"""Every bench script in `benches/` (Python and shell; the Rust benches are cargo's)
prints its usage with `-h` and with `--help`, exits 0, and starts no work: the scripts
take their arguments by position, so an unknown first argument would otherwise go on
as a mode, a count or a folder name.

Run by `.ci/run` with the machine's python3 (no package needed): the Rust tests must
not need Python. Usage: python3 tests/benches/help.py
"""

import os
import subprocess
import sys
import tempfile
import time

if len(sys.argv) > 1:
    print(__doc__)
    sys.exit(0 if sys.argv[1] in ("-h", "--help") else 2)

BENCHES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benches")


def scripts():
    """(interpreter, path) of each runnable bench script, in name order; `_common.py`
    is imported by the others, not run."""
    found = []
    for name in sorted(os.listdir(BENCHES)):
        path = os.path.join(BENCHES, name)
        if name.endswith(".py") and not name.startswith("_"):
            found.append((sys.executable, path))
        elif name.endswith(".sh"):
            found.append(("bash", path))
    return found


def main():
    found = scripts()
    if len(found) < 20:
        sys.exit(f"only {len(found)} bench scripts found in {BENCHES}")
    failures = []
    with tempfile.TemporaryDirectory() as work:
        # All at once: one interpreter's start-up each, not one after another.
        running = [(f"{os.path.basename(path)} {flag}",
                    subprocess.Popen([interpreter, path, flag], cwd=work,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE))
                   for interpreter, path in found for flag in ("-h", "--help")]
        deadline = time.monotonic() + 60
        for shown, child in running:
            try:
                stdout, stderr = child.communicate(timeout=max(1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                stdout, stderr = child.communicate()
                failures.append(f"{shown}: still running after 60 s (it began a bench)")
                continue
            out = stdout.decode(errors="replace")
            err = stderr.decode(errors="replace")
            if child.returncode != 0 or "usage" not in out.lower() or err:
                failures.append(f"{shown}: exit {child.returncode}, stdout {out[:120]!r}, "
                                f"stderr {err[:200]!r}")
    if failures:
        sys.exit("\n".join(failures))
    print(f"{len(running)} runs of {len(found)} bench scripts printed their usage and exited 0")


main()
