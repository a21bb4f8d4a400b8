"""Whole-command benchmarks of evogate against the same job in pandas and scipy.

Run through benches/compare.sh, which builds the binaries, sets up benches/.venv and
writes reports/bench-commands.md from this script's output. Each case runs REPEATS
times, alternating the two sides; a ratio is quoted as the median of per-run ratios
with their min-max. Peak memory is ru_maxrss of the child (os.wait4), in KiB.
Not part of CI.

Usage: compare.py EVOGATE FLOOR EXACT INPUTS LOAD_NOTE   (as benches/compare.sh runs it)
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time

REPEATS = int(os.environ.get("REPEATS", "5"))


def run(argv, ok=(0, 1), timeout=None):
    """Wall seconds and peak RSS (KiB) of one process; None if it ran past `timeout`."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG if timeout else 0)
        if pid:
            break
        if time.perf_counter() - start > timeout:
            proc.kill()
            os.wait4(proc.pid, 0)
            return None
        # Polled often: the time of a run is known to within this step.
        time.sleep(0.001)
    seconds = time.perf_counter() - start
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        sys.exit(f"{argv} exited {code}")
    return seconds, usage.ru_maxrss


# `taskset -c 1`, where the machine has it (the core the alternating runs in
# reports/bench.md use).
ONE_CORE = ["taskset", "-c", "1"] if shutil.which("taskset") else []

SCIPY_TIMEOUT = 120
SCORE_TIMEOUT = 300


def exact_run(argv, timeout=None):
    """(seconds, p) printed by a timing helper, or None when it ran past `timeout`."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    seconds, p = done.stdout.split()
    return float(seconds), float(p)


def series(argv, repeats=REPEATS):
    return [run(argv) for _ in range(repeats)]


def spread(values, unit="", digits=3):
    values = sorted(values)
    fmt = lambda v: f"{v:.{digits}g}{unit}"
    return f"{fmt(statistics.median(values))} ({fmt(values[0])}–{fmt(values[-1])})"


def ratio_rows(left, right):
    """Per-run ratios right/left, pairing the i-th runs of each side."""
    return [r[0] / l[0] for l, r in zip(left, right)]


def machine(load_note):
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        total = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
    rustc = subprocess.run(["rustc", "--version"], capture_output=True, text=True).stdout.strip()
    # Versions from a child: importing pandas here would make this process large, and
    # a child's ru_maxrss counts its parent's pages between fork and exec.
    versions = subprocess.run(
        [sys.executable, "-c",
         "import pandas, scipy, numpy; print(pandas.__version__, scipy.__version__, numpy.__version__)"],
        capture_output=True, text=True, check=True).stdout.split()

    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    return "\n".join(
        [
            f"- CPU: {cpu}, {os.cpu_count()} cores (`nproc`: {os.cpu_count()})",
            f"- Memory: {total / 1024 / 1024:.1f} GiB",
            f"- {rustc}; Python {platform.python_version()}, pandas {versions[0]}, "
            f"scipy {versions[1]}, numpy {versions[2]}",
            f"- Load: 1/5/15-minute load average {load} at the start of the run. {load_note}",
        ]
    )


def main():
    evogate, floor, exact, inputs, load_note = sys.argv[1:6]
    py = sys.executable
    here = os.path.dirname(os.path.abspath(__file__))
    pyside = os.path.join(here, "compare_python.py")
    out = []
    out.append("## Machine\n")
    out.append(machine(load_note))
    out.append("")
    with open("/proc/self/status") as f:
        own = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
    out.append(f"Every figure is the median of {REPEATS} runs with the min–max in brackets; "
               "a ratio is the median (min–max) of the per-run ratios, the two sides "
               "run alternately. Wall time of the whole process, input files in the page cache. "
               "Peak RSS is the child's `ru_maxrss` from `os.wait4`, which also counts the "
               f"harness's own pages between fork and exec ({own / 1024:.0f} MiB), so no figure "
               "below that is meaningful.\n")

    out.append("## `admit` against pandas + scipy\n")
    out.append("| pairs | test | evogate | Python | Python / evogate | evogate peak RSS | Python peak RSS |")
    out.append("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    big = {}
    for n in ["10000", "100000", "1000000"]:
        b = f"{inputs}/in{n}/baseline.csv"
        c = f"{inputs}/in{n}/candidate.csv"
        for test in ["mcnemar", "signed-rank"]:
            ev, pyr = [], []
            for _ in range(REPEATS):
                ev.append(run([evogate, "admit", "--baseline", b, "--candidate", c, "--test", test]))
                pyr.append(run([py, pyside, test, b, c]))
            big[(n, test)] = ev
            ratios = ratio_rows(ev, pyr)
            out.append(
                f"| {int(n):,} | {test} | {spread([e[0] for e in ev], ' s')} | "
                f"{spread([p[0] for p in pyr], ' s')} | {spread(ratios, '×')} | "
                f"{spread([e[1] / 1024 for e in ev], ' MiB')} | {spread([p[1] / 1024 for p in pyr], ' MiB')} |"
            )
            print(out[-1], file=sys.stderr, flush=True)
    out.append("")

    out.append("## `admit` against only reading its input (10^6 pairs)\n")
    out.append("| test | evogate admit | parse_floor | admit / floor | floor peak RSS |")
    out.append("| --- | ---: | ---: | ---: | ---: |")
    b = f"{inputs}/in1000000/baseline.csv"
    c = f"{inputs}/in1000000/candidate.csv"
    for test in ["mcnemar", "signed-rank"]:
        ev, fl = [], []
        for _ in range(REPEATS):
            ev.append(run([evogate, "admit", "--baseline", b, "--candidate", c, "--test", test]))
            fl.append(run([floor, b, c]))
        ratios = [e[0] / f[0] for e, f in zip(ev, fl)]
        out.append(
            f"| {test} | {spread([e[0] for e in ev], ' s')} | {spread([f[0] for f in fl], ' s')} | "
            f"{spread(ratios, '×')} | {spread([f[1] / 1024 for f in fl], ' MiB')} |"
        )
        print(out[-1], file=sys.stderr, flush=True)
    out.append("")

    out.append("## Exact signed-rank with ties\n")
    out.append("In-process time of the computation alone (imports and process start excluded), "
               "on the quarter-grid differences of `benches/stats.rs` (four tie groups, W+ near "
               "the centre of its null: the slowest case).\n")
    out.append("| n | evogate exact conditional | scipy `wilcoxon(method='exact')` | scipy / evogate | evogate p | scipy p |")
    out.append("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for n in ["200", "1000", "2000", "5000"]:
        ev = [exact_run([exact, n]) for _ in range(REPEATS)]
        first = exact_run([py, os.path.join(here, "compare_exact.py"), n], timeout=SCIPY_TIMEOUT)
        if first is None:
            out.append(f"| {int(n):,} | {spread([e[0] for e in ev], ' s')} | did not finish in "
                       f"{SCIPY_TIMEOUT} s | – | {ev[0][1]:.6g} | – |")
        else:
            sc = [first] + [exact_run([py, os.path.join(here, "compare_exact.py"), n])
                            for _ in range(REPEATS - 1)]
            ratios = [s[0] / e[0] for e, s in zip(ev, sc)]
            out.append(f"| {int(n):,} | {spread([e[0] for e in ev], ' s')} | "
                       f"{spread([s[0] for s in sc], ' s')} | {spread(ratios, '×')} | "
                       f"{ev[0][1]:.6g} | {sc[0][1]:.6g} |")
        print(out[-1], file=sys.stderr, flush=True)
    out.append("")

    out.append("## `score` on 10^4 to 10^6 outputs\n")
    out.append("| outputs | time | outputs per second | peak RSS |")
    out.append("| ---: | ---: | ---: | ---: |")
    for n, repeats in [("10000", REPEATS), ("100000", REPEATS), ("1000000", REPEATS)]:
        s_dir = f"{inputs}/in{n}"
        # Pinned to one core: score's background sync of its output is a second
        # thread, and the target is outputs per second on one core.
        argv = ONE_CORE + [evogate, "score", "--truth", f"{s_dir}/papers.csv", "--tasks",
                f"{s_dir}/tasks.csv", "--outputs", f"{s_dir}/outputs.jsonl", "--out",
                f"{s_dir}/scores.csv"]
        runs = []
        for _ in range(repeats):
            done = run(argv, timeout=SCORE_TIMEOUT)
            if done is None:
                break
            runs.append(done)
        if not runs:
            out.append(f"| {int(n):,} | did not finish in {SCORE_TIMEOUT} s | under "
                       f"{int(n) / SCORE_TIMEOUT:,.0f} | – |")
        else:
            rates = [int(n) / r[0] for r in runs]
            out.append(f"| {int(n):,} | {spread([r[0] for r in runs], ' s')} | {spread(rates)} | "
                       f"{spread([r[1] / 1024 for r in runs], ' MiB')} |")
        print(out[-1], file=sys.stderr, flush=True)
    out.append("")
    print("\n".join(out))


if __name__ == "__main__":
    main()
