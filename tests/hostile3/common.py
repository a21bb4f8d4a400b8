"""Shared plumbing for the hostile-3 re-run: running the binary under `timeout` and
resource limits, scratch folders, and the case registry. Standard library only."""

from __future__ import annotations

import hashlib
import os
import resource
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

REPO = Path(__file__).resolve().parents[2]
FORMATS = REPO / "tests" / "data" / "formats"
PAPERS = REPO / "data" / "arxiv" / "papers.csv"
DEMO = REPO / "reports" / "demo"


class Skip(Exception):
    """A case that cannot run here; the message is the reason."""


@dataclass
class Ctx:
    """What every case gets: the binary, the Python for the P/G cases, a scratch folder."""

    bin: str
    python: Optional[str]
    duckdb_python: Optional[str]
    heavy: bool
    work: Path

    def path(self, name: str) -> Path:
        return self.work / name


@dataclass
class Run:
    rc: int
    out: bytes
    err: bytes
    maxrss_kb: int = 0

    @property
    def text(self) -> str:
        return (self.out + self.err).decode("utf-8", "replace")

    @property
    def errtext(self) -> str:
        return self.err.decode("utf-8", "replace")

    def brief(self) -> str:
        """Exit status and the first line of stderr (or stdout), for the `got` column."""
        line = ""
        for stream in (self.err, self.out):
            s = stream.decode("utf-8", "replace").strip()
            if s:
                line = s.splitlines()[0]
                break
        if len(line) > 110:
            line = line[:107] + "..."
        rc = "timeout" if self.rc == 124 else (f"signal {self.rc - 128}" if self.rc > 128 else str(self.rc))
        mem = f" rss {self.maxrss_kb // 1024} MB" if self.maxrss_kb else ""
        return f"exit {rc}{mem}: {line!r}" if line else f"exit {rc}{mem}"


def run(
    argv: list,
    cwd: Path,
    stdin: Optional[bytes | str] = None,
    stdin_path: Optional[str] = None,
    env: Optional[dict] = None,
    timeout: float = 60,
    vmem_kb: Optional[int] = None,
    fsize: Optional[int] = None,
    ignore_xfsz: bool = False,
    measure: bool = False,
) -> Run:
    """Runs argv under `timeout -k 5`, optionally with RLIMIT_AS / RLIMIT_FSIZE and peak
    RSS from /usr/bin/time. A missing file in argv is not checked: the binary answers."""
    full = ["timeout", "-k", "5", str(timeout)] + [str(a) for a in argv]
    rss_file = None
    if measure:
        rss_file = tempfile.NamedTemporaryFile(delete=False, dir=cwd, prefix=".rss")
        rss_file.close()
        full = ["/usr/bin/time", "-f", "%M", "-o", rss_file.name] + full

    def limits():
        if vmem_kb:
            resource.setrlimit(resource.RLIMIT_AS, (vmem_kb * 1024, vmem_kb * 1024))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN if ignore_xfsz else signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    e = dict(os.environ)
    e.pop("GITHUB_STEP_SUMMARY", None)
    if env:
        e.update({k: str(v) for k, v in env.items()})
    if isinstance(stdin, str):
        stdin = stdin.encode()
    fin = open(stdin_path, "rb") if stdin_path else None
    try:
        p = subprocess.run(
            full,
            cwd=cwd,
            input=stdin if fin is None else None,
            stdin=fin if fin is not None else (None if stdin is not None else subprocess.DEVNULL),
            capture_output=True,
            env=e,
            preexec_fn=limits,
        )
    finally:
        if fin:
            fin.close()
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    r = Run(rc, p.stdout, p.stderr)
    if rss_file:
        try:
            lines = Path(rss_file.name).read_text().split()
            # /usr/bin/time prints "Command terminated by signal N" before %M when killed.
            r.maxrss_kb = int(lines[-1]) if lines else 0
        except (OSError, ValueError):
            pass
        os.unlink(rss_file.name)
    return r


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def listing(folder: Path) -> list:
    """Every file under folder, relative, sorted (hidden ones included)."""
    return sorted(str(p.relative_to(folder)) for p in Path(folder).rglob("*"))


def has_raw_controls(data: bytes) -> int:
    """Count of raw terminal or bidi controls: C0 except tab/LF/CR, DEL, C1, and the bidi
    marks U+200E/F, U+202A-E, U+2066-9, U+061C."""
    text = data.decode("utf-8", "replace")
    bad = 0
    for ch in text:
        o = ord(ch)
        if (o < 0x20 and ch not in "\t\n\r") or 0x7F <= o <= 0x9F:
            bad += 1
        elif o in (0x200E, 0x200F, 0x061C) or 0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069:
            bad += 1
    return bad


@dataclass
class Case:
    id: str
    group: str  # "1".."16" = fix groups (1-14 = hostile-3's root causes F1-F14), N = note, - = held
    expected: str
    kind: str  # what a miss is in hostile-3: "FAIL" or "note"; "pass" cases miss as FAIL too
    heavy: bool
    fn: Callable
    extra: bool = False  # not one of the 111: a fault of group 15, from the hidden battery


CASES: list = []


def case(id: str, group: str, expected: str, kind: str = "pass", heavy: bool = False, extra: bool = False):
    """Registers a case. fn(ctx, folder) returns (held: bool, got: str) or raises Skip;
    folder is the case's own empty folder, removed afterwards."""

    def wrap(fn):
        CASES.append(Case(id, group, expected, kind, heavy, fn, extra))
        return fn

    return wrap


def fresh(ctx: Ctx, name: str) -> Path:
    """A new empty sub-folder of the scratch folder for one case."""
    d = ctx.work / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d
