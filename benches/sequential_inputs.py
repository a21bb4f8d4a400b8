#!/usr/bin/env python3
"""Writes `admit --sequential` inputs (order.csv, b.csv, c.csv) into a folder, from a
fixed seed, for benches/sequential_monitor.sh: the byte-for-byte comparison of two
binaries' reports and the speed of the monitor on many pairs and strata.

Usage: sequential_inputs.py FOLDER KIND N [STRATA] [SEED]
KIND: `scores` (scores in [0, 1], the candidate no better, so the run goes to its last
look), `binary` (0/1 `correct`, 30% discordant, the candidate a little better) or `held`
(0/1 `correct`, the candidate clearly better but a tenth of the tasks in stratum `zzz`,
whose first pair is a loss and the rest ties: every look past the improvement's
threshold asks whether a stratum is behind, the case that cost O(n) a look).
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)
import random
import sys


def main():
    folder, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    strata = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 20261204)
    order = ["task_id,kind"]
    # Scores files without `correct` are tested on `score`.
    header = "task_id,kind,correct,score" if kind != "scores" else "task_id,kind,score"
    base, cand = [header], [header]
    seen = set()
    for i in range(n):
        task, stratum = f"t{i:07d}", f"k{rng.randrange(strata):03d}"
        held = kind == "held" and rng.random() < 0.1
        if held:
            stratum = "zzz"
        order.append(f"{task},{stratum}")
        if held:
            b, c = (1, 0) if stratum not in seen else (1, 1)
            seen.add(stratum)
            base.append(f"{task},{stratum},{b},{b}")
            cand.append(f"{task},{stratum},{c},{c}")
        elif kind == "held":
            b, c = (0, 1) if rng.random() < 0.25 else (1, 1)
            base.append(f"{task},{stratum},{b},{b}")
            cand.append(f"{task},{stratum},{c},{c}")
        elif kind == "binary":
            u = rng.random()
            b, c = (0, 1) if u < 0.155 else (1, 0) if u < 0.3 else (1, 1) if u < 0.65 else (0, 0)
            base.append(f"{task},{stratum},{b},{b}")
            cand.append(f"{task},{stratum},{c},{c}")
        else:
            b, c = rng.randrange(101) / 100, rng.randrange(101) / 100
            base.append(f"{task},{stratum},{b}")
            cand.append(f"{task},{stratum},{c}")
    for name, lines in (("order.csv", order), ("b.csv", base), ("c.csv", cand)):
        with open(f"{folder}/{name}", "w") as out:
            out.write("\n".join(lines) + "\n")


main()
