#!/usr/bin/env python3
"""Not part of CI. Usage: python3 benches/holdout_layout.py DIR (a folder of examples/bench_inputs.rs).
Writes split/holdout.csv and split/manifest.json for a bench_inputs folder as
`split --ratios 0,0,1` lays them out (every task in the holdout, groups in a shuffled
order), without split's memory: groups permuted by i -> i*7919 mod G."""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import hashlib, json, sys, os
folder = sys.argv[1]
lines = open(os.path.join(folder, "tasks.csv"), encoding="utf-8").read().split("\n")
header, rows = lines[0], [l for l in lines[1:] if l]
groups, starts = [], []
for i, line in enumerate(rows):
    g = line.split(",", 2)[1]
    if not groups or groups[-1] != g:
        groups.append(g); starts.append(i)
starts.append(len(rows))
G = len(groups)
order = [(i * 7919) % G for i in range(G)]
assert len(set(order)) == G
out = os.path.join(folder, "split")
os.makedirs(out, exist_ok=True)
ids = []
with open(os.path.join(out, "holdout.csv"), "w", encoding="utf-8") as f:
    f.write(header + "\n")
    for g in order:
        for line in rows[starts[g]:starts[g + 1]]:
            f.write(line + "\n")
            ids.append(line.split(",", 1)[0])
for name in ["train.csv", "val.csv"]:
    open(os.path.join(out, name), "w").write(header + "\n")
sha = lambda p: hashlib.sha256(open(p, "rb").read()).hexdigest()
empty = sha(os.path.join(out, "train.csv"))
m = {"schema": "evogate/manifest/v1", "verifier": "arxiv",
     "truth": {"path": "papers.csv", "sha256": sha(os.path.join(folder, "papers.csv"))},
     "seed": 13, "ratios": [0, 0, 1], "cases": "all", "algorithm": "evogate",
     "splits": [
        {"name": "train", "file": {"path": "train.csv", "sha256": empty}, "tasks": 0, "groups": [], "task_ids": []},
        {"name": "val", "file": {"path": "val.csv", "sha256": empty}, "tasks": 0, "groups": [], "task_ids": []},
        {"name": "holdout", "file": {"path": "holdout.csv", "sha256": sha(os.path.join(out, "holdout.csv"))},
         "tasks": len(ids), "groups": [groups[g] for g in order], "task_ids": ids}],
     "holdout_power": {"alpha": 0.05, "n": len(ids), "min_discordant": 5, "min_detectable_shift": 5e-7}}
json.dump(m, open(os.path.join(out, "manifest.json"), "w"), indent=2)
