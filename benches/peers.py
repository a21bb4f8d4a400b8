#!/usr/bin/env python3
"""`evogate admit` against what a user would run on the same two scores files, and
against only reading them, at 10^4 to 10^7 pairs, interleaved in one run. Not part of CI.

Contenders, each a process of its own, each given the same `baseline.csv` and
`candidate.csv` (`examples/bench_inputs.rs`, seed 6; `correct` in both, so `admit`
decides by McNemar's exact test):

- `after`: the evogate binary under test (`admit`, text report to a pipe);
- `before`: an earlier evogate binary (e.g. built from main before a change);
- `floor`: `examples/parse_floor.rs`, the csv crate reading both files and keeping each
  row's task id (a `String`) and score (`f64`): the bare read;
- `pandas`: pandas with the pyarrow CSV engine, an inner join on `task_id` checked
  one-to-one and complete, the discordant counts, `scipy.stats.binomtest(c, b + c, 0.5,
  alternative="greater")`;
- `polars`: the same with polars (`join(..., validate="1:1")`);
- `duckdb`: the same in DuckDB SQL on two threads (`SET threads = 2`), the counts
  fetched, then scipy.

Every Python contender prints its p-value and the script checks that all agree with
`admit --format json` to 1e-9 (relative), so every contender did the same job. Each
process's CPU time (user + system, all threads) comes from `os.wait4`, its peak RSS
from `/usr/bin/time`;
wall time from `time.perf_counter`. Every round runs every contender at every size,
sizes and contenders in an order rotated each round. A scaling fit (least squares of
log CPU on log n over the sizes) gives each contender's exponent.

The peers are installed into a venv of their own under /tmp on first use (`pip install
pandas pyarrow polars duckdb scipy`).

Usage, from the repository root, after
`cargo build --release --locked --bin evogate --example bench_inputs --example parse_floor`:

    python3 benches/peers.py --before OLD_EVOGATE [--after target/release/evogate]
        [--sizes 10000,100000,1000000,10000000] [--rounds 3] [--top-rounds R]
        [--inputs /tmp/evogate-peers]

`--top-rounds` gives the largest size fewer rounds (the Python peers take tens of seconds
each at 10^7); its rounds are the first ones. Prints a Markdown section for
reports/bench.md: every contender's CPU, wall time and peak RSS at every size, its CPU
as a multiple of the floor's and of `after`'s, and, per contender, the scaling exponent
and the memory per pair, (peak RSS at n - peak RSS at the smallest size) / (n - the
smallest size), which leaves out what a process holds whatever its input (code,
libraries, buffers).
"""

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time

VENV = "/tmp/evogate-peers-venv"
PEERS = ["pandas", "pyarrow", "polars", "duckdb", "scipy"]


# ---------------------------------------------------------------- the Python peers


def counts_pandas(base, cand):
    import pandas as pd

    cols = ["task_id", "correct"]
    b = pd.read_csv(base, engine="pyarrow", usecols=cols)
    c = pd.read_csv(cand, engine="pyarrow", usecols=cols)
    joined = b.merge(c, on="task_id", how="inner", suffixes=("_b", "_c"), validate="one_to_one")
    if not (len(joined) == len(b) == len(c)):
        raise SystemExit("the two files hold different tasks")
    bo = int(((joined.correct_b == 1) & (joined.correct_c == 0)).sum())
    co = int(((joined.correct_b == 0) & (joined.correct_c == 1)).sum())
    return bo, co


def counts_polars(base, cand):
    import polars as pl

    cols = ["task_id", "correct"]
    b = pl.read_csv(base, columns=cols)
    c = pl.read_csv(cand, columns=cols)
    joined = b.join(c, on="task_id", how="inner", validate="1:1", suffix="_c")
    if not (joined.height == b.height == c.height):
        raise SystemExit("the two files hold different tasks")
    bo = joined.filter((pl.col("correct") == 1) & (pl.col("correct_c") == 0)).height
    co = joined.filter((pl.col("correct") == 0) & (pl.col("correct_c") == 1)).height
    return bo, co


def counts_duckdb(base, cand):
    import duckdb

    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute(f"CREATE TEMP TABLE b AS SELECT task_id, correct FROM read_csv('{base}')")
    con.execute(f"CREATE TEMP TABLE c AS SELECT task_id, correct FROM read_csv('{cand}')")
    n_b, d_b = con.execute("SELECT count(*), count(DISTINCT task_id) FROM b").fetchone()
    n_c, d_c = con.execute("SELECT count(*), count(DISTINCT task_id) FROM c").fetchone()
    joined, bo, co = con.execute(
        "SELECT count(*), "
        "count(*) FILTER (WHERE b.correct = 1 AND c.correct = 0), "
        "count(*) FILTER (WHERE b.correct = 0 AND c.correct = 1) "
        "FROM b JOIN c USING (task_id)"
    ).fetchone()
    if not (n_b == d_b == n_c == d_c == joined):
        raise SystemExit("the two files hold different tasks, or a task twice")
    return bo, co


def peer_main(name, base, cand):
    from scipy.stats import binomtest

    bo, co = {"pandas": counts_pandas, "polars": counts_polars, "duckdb": counts_duckdb}[name](base, cand)
    p = binomtest(co, bo + co, 0.5, alternative="greater").pvalue if bo + co else 1.0
    print(json.dumps({"b": bo, "c": co, "p": p}))


# ---------------------------------------------------------------- the harness


def ensure_venv():
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", *PEERS], check=True)
    return python


def versions(python):
    code = ("import pandas, pyarrow, polars, duckdb, scipy, numpy; "
            "print(f'pandas {pandas.__version__}, pyarrow {pyarrow.__version__}, polars {polars.__version__}, "
            "duckdb {duckdb.__version__}, scipy {scipy.__version__}, numpy {numpy.__version__}')")
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def run(argv):
    """Wall seconds, CPU seconds (user + system of the process and its threads), peak RSS
    (bytes) and stdout of one process. The peak RSS comes from `/usr/bin/time`, whose
    child starts from its small image: a process forked from this Python and then
    exec'd keeps this Python's high-water mark (about 15 MiB) in its own."""
    peak = f"/tmp/evogate-peers-rss-{os.getpid()}"
    start = time.perf_counter()
    proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", peak, *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{argv} exited with {code}")
    with open(peak) as f:
        rss = int(f.read().split()[-1]) * 1024
    os.remove(peak)
    return wall, usage.ru_utime + usage.ru_stime, rss, out


def inputs(folder, n, bench_inputs):
    path = os.path.join(folder, str(n))
    if not os.path.exists(os.path.join(path, "candidate.csv")):
        subprocess.run([bench_inputs, str(n), path], check=True)
        # Only the two scores files are needed.
        for name in ["papers.csv", "tasks.csv", "outputs.jsonl"]:
            os.remove(os.path.join(path, name))
    return os.path.join(path, "baseline.csv"), os.path.join(path, "candidate.csv")


def fit(points):
    """Least-squares slope of log y on log x."""
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else float("nan")


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


def seconds(x):
    return f"{x:.3g} s"


def mib(x):
    return f"{x / 2**20:.0f} MiB" if x >= 2**20 else f"{x / 2**20:.1f} MiB"


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--peer":
        peer_main(*sys.argv[2:5])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--after", default="target/release/evogate")
    parser.add_argument("--floor", default="target/release/examples/parse_floor")
    parser.add_argument("--bench-inputs", default="target/release/examples/bench_inputs")
    parser.add_argument("--sizes", default="10000,100000,1000000,10000000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--top-rounds", type=int, help="rounds at the largest size (default: --rounds)")
    parser.add_argument("--inputs", default="/tmp/evogate-peers")
    parser.add_argument("--python", help="a Python with the peers installed (default: make a venv under /tmp)")
    parser.add_argument("--from-log", help="render the tables from the progress lines (stderr) of a run, "
                        "e.g. one stopped before its last round")
    args = parser.parse_args()
    python = args.python or ensure_venv()
    me = os.path.abspath(__file__)
    sizes = [int(s) for s in args.sizes.split(",")]
    contenders = ["after", "before", "floor", "pandas", "polars", "duckdb"]
    if args.from_log:
        results = from_log(args.from_log, contenders, sizes)
        rounds = max(len(v) for v in results.values())
        note = (f"Rendered from the progress log of one run ({rounds} rounds at most; the rounds each "
                "size and contender finished are counted in its min–max), every contender at every "
                "size in each round, sizes and contenders in an order rotated every round. Peak RSS "
                "as logged, in whole MiB. ")
        render(results, contenders, sizes, note, python, args)
        return
    files = {n: inputs(args.inputs, n, args.bench_inputs) for n in sizes}

    def argv(who, n):
        b, c = files[n]
        if who in ("after", "before"):
            binary = args.after if who == "after" else args.before
            return [binary, "admit", "--baseline", b, "--candidate", c]
        if who == "floor":
            return [args.floor, b, c]
        return [python, me, "--peer", who, b, c]

    # The p-value every contender must give.
    expected = {}
    for n in sizes:
        b, c = files[n]
        out = subprocess.run([args.after, "admit", "--baseline", b, "--candidate", c, "--format", "json"],
                             capture_output=True, text=True).stdout
        expected[n] = json.loads(out)["p_improvement"]

    start_load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results = {(w, n): [] for w in contenders for n in sizes}
    for r in range(args.rounds):
        order_sizes = sizes[r % len(sizes):] + sizes[:r % len(sizes)]
        for n in order_sizes:
            if n == max(sizes) and args.top_rounds is not None and r >= args.top_rounds:
                continue
            order = contenders[r % len(contenders):] + contenders[:r % len(contenders)]
            for who in order:
                wall, cpu, rss, out = run(argv(who, n))
                if who in ("pandas", "polars", "duckdb"):
                    p = json.loads(out)["p"]
                    if abs(p - expected[n]) > 1e-9 * max(abs(expected[n]), 1e-300):
                        raise SystemExit(f"{who} at {n}: p {p} but admit says {expected[n]}")
                results[(who, n)].append((wall, cpu, rss))
                print(f"round {r + 1} n {n} {who}: cpu {cpu:.3f} s wall {wall:.3f} s rss {mib(rss)}", file=sys.stderr)
    end_load = os.getloadavg()
    top_note = ("" if args.top_rounds is None else
                f" ({args.top_rounds} at {max(sizes):,} pairs)")
    note = (f"One run from {started}: {args.rounds} rounds{top_note}, every contender at every size in each round, "
            f"sizes and contenders in an order rotated every round. {platform.machine()}, {os.cpu_count()} cores "
            f"(load average {start_load[0]:.1f} at the start, {end_load[0]:.1f} at the end). ")
    render(results, contenders, sizes, note, python, args)


def from_log(path, contenders, sizes):
    """The (wall, CPU, peak RSS) of every run a progress log names."""
    results = {(w, n): [] for w in contenders for n in sizes}
    pattern = re.compile(r"round \d+ n (\d+) (\w+): cpu ([\d.]+) s wall ([\d.]+) s rss ([\d.]+) MiB")
    with open(path) as f:
        for line in f:
            m = pattern.match(line)
            if m and (m[2], int(m[1])) in results:
                results[(m[2], int(m[1]))].append((float(m[4]), float(m[3]), float(m[5]) * 2**20))
    return results


def render(results, contenders, sizes, note, python, args):
    """Prints the Markdown section."""
    cpu = lambda who, n: [x[1] for x in results[(who, n)]]  # noqa: E731
    print("## `admit` against pandas, polars, DuckDB and the parse floor (`benches/peers.py`)\n")
    print(f"{note}{versions(python)}. "
          f"`before`: `{args.before}`; `after`: `{args.after}`. Every Python contender's p-value equals "
          "`admit`'s at every size. CPU time is user + system of the whole process (all its threads), "
          "from `os.wait4` (peak RSS from `/usr/bin/time`); figures are medians with the min–max in brackets.\n")
    print("| pairs | contender | CPU | wall | peak RSS | CPU / floor | peer CPU / after CPU |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for n in sizes:
        floor = statistics.median(cpu("floor", n))
        after = statistics.median(cpu("after", n))
        for who in contenders:
            rows = results[(who, n)]
            c = statistics.median(cpu(who, n))
            ratio = "" if who == "after" else f"{c / after:.2f}×"
            print(f"| {n:,} | {who} | {spread([x[1] for x in rows], seconds)} | "
                  f"{spread([x[0] for x in rows], seconds)} | {mib(statistics.median([x[2] for x in rows]))} | "
                  f"{c / floor:.2f}× | {ratio} |")
    rss = lambda who, n: statistics.median([x[2] for x in results[(who, n)]])  # noqa: E731
    low, grown = min(sizes), [n for n in sizes if n != min(sizes)]
    print("\nScaling: the exponent b of CPU ∝ n^b (least squares over the sizes), CPU per pair at "
          f"the largest size, and memory per pair at each size above {low:,}: (peak RSS at n − "
          f"peak RSS at {low:,}) / (n − {low:,}).\n")
    print("| contender | b | CPU per pair | " + " | ".join(f"memory per pair at {n:,}" for n in grown) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in grown) + " |")
    top = max(sizes)
    for who in contenders:
        b = fit([(n, statistics.median(cpu(who, n))) for n in sizes]) if len(sizes) > 1 else float("nan")
        per = statistics.median(cpu(who, top)) / top
        mem = " | ".join(f"{(rss(who, n) - rss(who, low)) / (n - low):.0f} B" for n in grown)
        print(f"| {who} | {b:.2f} | {per * 1e9:.0f} ns | {mem} |")


if __name__ == "__main__":
    main()
