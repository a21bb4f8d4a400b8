#!/usr/bin/env python3
"""Runs two evogate binaries alternately on the same 10^6-row inputs and prints their
wall times, medians and per-round ratios as a Markdown table: `admit` (McNemar and
signed-rank, text report to stdout) and `score` (pinned to one core with `taskset -c 1`
where the machine has it, `--out` to a file). The outputs of the two binaries are
compared byte for byte (`admit`'s stdout, `score`'s scores file) in every round.

Usage: python3 benches/before_after.py OLD_BINARY NEW_BINARY INPUTS_DIR [ROUNDS]
where INPUTS_DIR holds what `cargo run --release --example bench_inputs -- N DIR` writes.
Standard library only.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import os
import shutil
import statistics
import subprocess
import sys
import time

ONE_CORE = ["taskset", "-c", "1"] if shutil.which("taskset") else []


def run(argv):
    """Wall time, CPU time (user + system, every thread), peak RSS (MiB, the child's `ru_maxrss` from `os.wait4`) and stdout of
    one run; a failed run stops the benchmark."""
    with open(os.devnull, "wb") as null, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=null) as child:
        start = time.perf_counter()
        stdout = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0, 1):
        sys.exit(f"{argv} exited {child.returncode}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, stdout


def jobs(inputs, scratch):
    """Each job: its name and a function from a binary and a side to the argv."""
    baseline = os.path.join(inputs, "baseline.csv")
    candidate = os.path.join(inputs, "candidate.csv")

    def admit(test):
        return lambda binary, side: [
            binary, "admit", "--baseline", baseline, "--candidate", candidate, "--test", test,
        ]

    def score(binary, side):
        return ONE_CORE + [
            binary, "score",
            "--truth", os.path.join(inputs, "papers.csv"),
            "--tasks", os.path.join(inputs, "tasks.csv"),
            "--outputs", os.path.join(inputs, "outputs.jsonl"),
            "--out", os.path.join(scratch, f"scores-{side}.csv"),
        ]

    return [
        ("admit --test mcnemar", admit("mcnemar")),
        ("admit --test signed-rank", admit("signed-rank")),
        ("score (one core)", score),
    ]


def main():
    old, new, inputs = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    scratch = os.path.join(inputs, "before_after")
    os.makedirs(scratch, exist_ok=True)
    load = os.getloadavg()
    print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
          f"{rounds} rounds, old and new alternating, the first of each round swapped "
          f"every round\n")
    rows = []
    for name, argv in jobs(inputs, scratch):
        times = {"old": [], "new": []}
        rss = {"old": [], "new": []}
        cpu = {"old": [], "new": []}
        for round_ in range(rounds):
            order = ["old", "new"] if round_ % 2 == 0 else ["new", "old"]
            outs = {}
            for side in order:
                binary = old if side == "old" else new
                elapsed, used, peak, stdout = run(argv(binary, side))
                times[side].append(elapsed)
                cpu[side].append(used)
                rss[side].append(peak)
                outs[side] = stdout
            # `score` names its output file, which differs by side.
            same = outs["old"].replace(b"scores-old", b"scores-new") == outs["new"]
            if not same:
                sys.exit(f"{name}: stdout differs between old and new")
            if name.startswith("score"):
                with open(os.path.join(scratch, "scores-old.csv"), "rb") as a, \
                        open(os.path.join(scratch, "scores-new.csv"), "rb") as b:
                    if a.read() != b.read():
                        sys.exit(f"{name}: scores files differ between old and new")
        ratios = [n / o for o, n in zip(times["old"], times["new"])]
        rows.append((name, times, ratios, rss, cpu))
    shutil.rmtree(scratch)
    print("| job | old wall, median (min–max) | new wall | new / old wall per round: median (min–max) | old / new (speed) | CPU time old / new, medians | new / old CPU per round | peak RSS old / new |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, times, ratios, rss, cpu in rows:
        cpu_ratios = [n / o for o, n in zip(cpu["old"], cpu["new"])]
        def cell(values):
            return f"{statistics.median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"
        ratio = statistics.median(ratios)
        print(f"| {name} | {cell(times['old'])} | {cell(times['new'])} | "
              f"{ratio:.3f} ({min(ratios):.3f}–{max(ratios):.3f}) | {1 / ratio:.2f}× | "
              f"{statistics.median(cpu['old']):.3f} / {statistics.median(cpu['new']):.3f} s | "
              f"{statistics.median(cpu_ratios):.3f} ({min(cpu_ratios):.3f}–{max(cpu_ratios):.3f}) | "
              f"{max(rss['old']):.0f} / {max(rss['new']):.0f} MiB |")
    print("\noutputs byte-identical in every round (admit stdout, score's scores file)")
    for name, times, _, _, _ in rows:
        print(f"{name}: old {' '.join(f'{t:.3f}' for t in times['old'])}; "
              f"new {' '.join(f'{t:.3f}' for t in times['new'])}")


if __name__ == "__main__":
    main()
