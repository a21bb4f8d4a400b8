"""`evogate score` on 10^6 outputs with each benchmark verifier (numeric, choice,
short) against the floor of only reading the outputs file (examples/outputs_floor.rs,
the reader `score` uses). Inputs from examples/answer_workload.rs (seeded). Each case
runs REPEATS times, score and floor alternating, both pinned to one core with
`taskset -c 1`; figures are medians with the min-max, a ratio is the median of the
per-run ratios. CPU time (user + system, from wait4) is given beside the wall time: on
a loaded machine the wall time measures the other processes more than this one. Prints a Markdown table for reports/bench.md. Not part of CI.

Run from the repository root after
`cargo build --release --locked --bin evogate --example answer_workload --example outputs_floor`:
`python3 benches/answer_verifiers.py [N]`.

Usage: python3 benches/answer_verifiers.py [N]   (N outputs; 1000000)
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

REPEATS = int(os.environ.get("REPEATS", "5"))
RELEASE = "target/release"
INPUTS = "target/bench-inputs/answers"


def run(argv):
    """Wall seconds, CPU seconds (user + system) and peak RSS (KiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}–{fmt(max(values))})"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    pin = ["taskset", "-c", "1"] if shutil.which("taskset") else []
    print("| verifier | outputs | `score` wall | `score` CPU | outputs per CPU second | `outputs_floor` CPU | score / floor (CPU) | score / floor (wall) | score peak RSS |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for verifier in ("numeric", "choice", "short"):
        folder = f"{INPUTS}/{verifier}-{n}"
        if not os.path.exists(f"{folder}/outputs.jsonl"):
            subprocess.run([f"{RELEASE}/examples/answer_workload", verifier, folder, str(n)], check=True)
        score = pin + [
            f"{RELEASE}/evogate", "score", "--verifier", verifier, "--truth", f"{folder}/truth.csv",
            "--tasks", f"{folder}/tasks.csv", "--outputs", f"{folder}/outputs.jsonl",
            "--out", f"{folder}/scores.csv",
        ]
        floor = pin + [f"{RELEASE}/examples/outputs_floor", f"{folder}/outputs.jsonl"]
        walls, cpus, floor_cpus, cpu_ratios, wall_ratios, rss = [], [], [], [], [], []
        for _ in range(REPEATS):
            wall, cpu, peak = run(score)
            floor_wall, floor_cpu, _ = run(floor)
            walls.append(wall)
            cpus.append(cpu)
            floor_cpus.append(floor_cpu)
            cpu_ratios.append(cpu / floor_cpu)
            wall_ratios.append(wall / floor_wall)
            rss.append(peak / 1024)
        seconds = lambda v: f"{v:.3g} s"
        times = lambda v: f"{v:.1f}×"
        print(
            f"| `{verifier}` | {n:,} | {spread(walls, seconds)} | {spread(cpus, seconds)} | "
            f"{n / statistics.median(cpus):,.0f} | {spread(floor_cpus, seconds)} | "
            f"{spread(cpu_ratios, times)} | {spread(wall_ratios, times)} | {statistics.median(rss):.0f} MiB |"
        )


if __name__ == "__main__":
    main()
