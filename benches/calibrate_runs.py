"""Runs for `evogate calibrate` from a real scores file: re-sample a stochastic model of
the skill that wrote it, once per seed.

The model: on each item the skill gives the answer the source file records with
probability 1 - FLIP and the other outcome with probability FLIP (a sampling
temperature that changes some answers from run to run, the same on every item). Runs
of one source with different seeds are A/A runs (nothing changed); runs of two sources
(the demo's baseline and candidate) are an A/B pair. Standard library only; the same
seed writes the same bytes.

Usage, from the repository root:

    cargo run --release -- demo --out /tmp/calib-demo
    python3 benches/calibrate_runs.py /tmp/calib-demo/baseline-scores.csv /tmp/calib-aa/a 1 2 3
    python3 benches/calibrate_runs.py /tmp/calib-demo/candidate-scores.csv /tmp/calib-aa/b 7

writes /tmp/calib-aa/a1.csv, a2.csv, a3.csv and b7.csv (task_id, group, kind, correct,
score), each the source's items in its order. `--flip F` sets FLIP (default 0.1).
"""

import argparse
import csv
import os
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="a scores file with task_id and correct")
    parser.add_argument("prefix", help="output path prefix; the seed and .csv are appended")
    parser.add_argument("seeds", nargs="+", type=int)
    parser.add_argument("--flip", type=float, default=0.1)
    args = parser.parse_args()
    with open(args.source, newline="") as f:
        rows = list(csv.DictReader(f))
    os.makedirs(os.path.dirname(args.prefix) or ".", exist_ok=True)
    for seed in args.seeds:
        rng = random.Random(seed)
        path = "%s%d.csv" % (args.prefix, seed)
        with open(path, "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["task_id", "group", "kind", "correct", "score"])
            for row in rows:
                right = row["correct"] == "1"
                if rng.random() < args.flip:
                    right = not right
                out.writerow([row["task_id"], row.get("group", ""), row.get("kind", ""),
                              int(right), int(right)])
        print("wrote %s (%d items, seed %d, flip %g)" % (path, len(rows), seed, args.flip))


if __name__ == "__main__":
    main()
