#!/usr/bin/env python3
"""Runs two evogate binaries and the pandas + scipy script of `compare.py` in turn on the
same 10^6-pair inputs, so that the ratio Python / evogate of both binaries is measured in
one window of the machine: the pandas target (`admit` >= 10x faster than pandas + scipy)
moves with the machine as much as with the code, and this tells the two apart.

Usage: benches/.venv/bin/python benches/pandas_window.py OLD_BINARY NEW_BINARY INPUTS_DIR [ROUNDS]
where INPUTS_DIR holds baseline.csv and candidate.csv (`bench_inputs 1000000 DIR 6`) and the
Python is benches/.venv's (compare.sh makes it, with pandas and scipy). Prints a Markdown table.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import run  # noqa: E402


def main():
    old, new, inputs = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    pyside = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_python.py")
    b, c = os.path.join(inputs, "baseline.csv"), os.path.join(inputs, "candidate.csv")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {rounds} rounds, "
          "old, new and Python in turn, the order rotated every round\n")
    print("| test | old evogate | new evogate | Python | Python / old | Python / new |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for test in ["mcnemar", "signed-rank"]:
        argv = {
            "old": [old, "admit", "--baseline", b, "--candidate", c, "--test", test],
            "new": [new, "admit", "--baseline", b, "--candidate", c, "--test", test],
            "py": [sys.executable, pyside, test, b, c],
        }
        times = {k: [] for k in argv}
        order = list(argv)
        for r in range(rounds):
            for k in order[r % 3:] + order[:r % 3]:
                times[k].append(run(argv[k])[0])
        med = {k: statistics.median(v) for k, v in times.items()}
        per_old = statistics.median(p / o for p, o in zip(times["py"], times["old"]))
        per_new = statistics.median(p / n for p, n in zip(times["py"], times["new"]))
        print(f"| {test} | {med['old']:.3f} s | {med['new']:.3f} s | {med['py']:.2f} s | "
              f"{per_old:.2f}× | {per_new:.2f}× |")


if __name__ == "__main__":
    main()
