#!/usr/bin/env python3
"""An optimizer's loop through the CLI: does `admit --sequential --ledger` keep the
chance of ever admitting a null candidate at or below alpha when candidates are
abandoned undecided?

Each loop has its own ledger on one holdout of 136 tasks and tries 40 null candidates
one after the other. A candidate is scored in the holdout's order and looked at with
`evogate admit --sequential --ledger` after every LOOK_EVERY pairs (each call replays
every pair, so a decision at any pair is found); it stops when decided, and is
abandoned if still undecided at look 100. A loop "admits noise" when any of its 40
candidates is admitted. Under the null each pair is discordant with probability 0.2,
each way with probability 1/2 (McNemar's null: the arms exchangeable).

Three ways to look: `before` and `after` run the CLI (BINARY); `python` drives the
Python package instead (`evogate.Sequential(manifest=, ledger=)`, each batch of
LOOK_EVERY pairs given to `extend`, one look the binary records), so run the script
with the Python of a venv that holds the evogate wheel; `both` runs `after` then
`python` on the same seeds (the same baselines and candidates) and says on how many
loops the two agree.

Before the fix (an evogate built from main, which takes `--order` and records only a
decided run) an abandoned candidate spent nothing, so every new one was monitored at
the current attempt's alpha. After it (this branch: `--manifest`, the first look opens
the attempt) each candidate spends its own attempt.

Usage: sequential_loop.py BINARY {before|after|python|both} [LOOPS] [SEED] [LOOK_EVERY] [WORKERS]
Prints one Markdown table row a mode: loops, loops that admitted noise, the rate and its
95% Wilson interval, candidates admitted, decided and abandoned, the looks made (each one
run of the binary) and the mode's wall time.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import concurrent.futures
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import wilson  # noqa: E402

HOLDOUT = 136
CANDIDATES = 40
ABANDON_AT = 100
DISCORDANCE = 0.2
ALPHA = 0.05


def manifest(ids):
    split = lambda name, ids: {"name": name, "file": {"path": f"{name}.csv", "sha256": "0" * 64},
                               "tasks": len(ids), "groups": ids, "task_ids": ids}
    return {"schema": "evogate/manifest/v1", "verifier": "arxiv",
            "truth": {"path": "t.csv", "sha256": "0" * 64}, "seed": 13, "ratios": [50, 25, 25],
            "cases": "all", "algorithm": "evogate",
            "splits": [split("train", []), split("val", []), split("holdout", ids)],
            "holdout_power": {"alpha": ALPHA, "n": len(ids), "min_discordant": 5,
                              "min_detectable_shift": 5 / len(ids)}}


def python_candidate(folder, ids, baseline, candidate, look_every):
    """One candidate through `evogate.Sequential` with the loop's manifest and ledger,
    LOOK_EVERY pairs a look (`extend`); returns (its last verdict, the looks made)."""
    import evogate  # the installed wheel's package, which runs the wheel's binary

    monitor = evogate.Sequential(manifest=os.path.join(folder, "manifest.json"),
                                 ledger=os.path.join(folder, "ledger.jsonl"), alpha=ALPHA)
    looks, state = 0, {"verdict": "continue"}
    for end in range(look_every, ABANDON_AT + 1, look_every):
        state = monitor.extend((ids[i], float(baseline[i]), float(candidate[i]),
                                (baseline[i], candidate[i]))
                               for i in range(end - look_every, end))
        looks += 1
        if state["verdict"] != "continue":
            break
    return state["verdict"], looks


def cli_candidate(binary, folder, where, ids, candidate, look_every):
    """One candidate through `evogate admit --sequential --ledger`, a look every
    LOOK_EVERY pairs; returns (its last verdict, the looks made)."""
    scores = os.path.join(folder, "c.csv")
    looks, verdict = 0, "continue"
    for look in range(look_every, ABANDON_AT + 1, look_every):
        with open(scores, "w", encoding="utf-8") as handle:
            handle.write("task_id,correct,score\n")
            handle.writelines(f"{ids[i]},{int(candidate[i])},{int(candidate[i])}\n"
                              for i in range(look))
        done = subprocess.run(
            [binary, "admit", "--sequential", "--baseline", os.path.join(folder, "b.csv"),
             "--candidate", scores, *where, "--ledger", os.path.join(folder, "ledger.jsonl"),
             "--strata", "none", "--format", "json"],
            capture_output=True, text=True)
        looks += 1
        if done.returncode not in (0, 1, 3):
            raise SystemExit(f"evogate failed ({done.returncode}): {done.stderr}")
        verdict = json.loads(done.stdout)["verdict"]
        if verdict != "continue":
            break
    return verdict, looks


def one_loop(binary, mode, seed, look_every):
    """Runs one loop; returns (admitted any, admitted, decided, abandoned, calls)."""
    rng = random.Random(seed)
    ids = [f"t{i:03}" for i in range(HOLDOUT)]
    with tempfile.TemporaryDirectory(prefix="seq-loop-") as folder:
        path = lambda name: os.path.join(folder, name)
        with open(path("manifest.json"), "w", encoding="utf-8") as handle:
            json.dump(manifest(ids), handle)
        with open(path("holdout.csv"), "w", encoding="utf-8") as handle:
            handle.write("task_id\n" + "".join(f"{task}\n" for task in ids))
        baseline = [rng.random() < 0.5 for _ in ids]
        with open(path("b.csv"), "w", encoding="utf-8") as handle:
            handle.write("task_id,correct,score\n")
            handle.writelines(f"{t},{int(b)},{int(b)}\n" for t, b in zip(ids, baseline))
        where = ["--manifest", path("manifest.json")] if mode == "after" else ["--order", path("holdout.csv")]
        admitted = decided = abandoned = calls = 0
        for _ in range(CANDIDATES):
            candidate = [(not b) if rng.random() < DISCORDANCE else b for b in baseline]
            if mode == "python":
                verdict, looks = python_candidate(folder, ids, baseline, candidate, look_every)
            else:
                verdict, looks = cli_candidate(binary, folder, where, ids, candidate, look_every)
            calls += looks
            admitted += verdict == "admitted"
            decided += verdict != "continue"
            abandoned += verdict == "continue"
        return admitted > 0, admitted, decided, abandoned, calls


def run_mode(binary, mode, loops, seed, look_every, workers):
    """Runs the loops of one mode; prints its row and returns each loop's result."""
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda k: one_loop(binary, mode, seed * 1000 + k, look_every),
                                range(loops)))
    wall = time.monotonic() - started
    noisy = sum(r[0] for r in results)
    low, high = wilson(noisy, loops)
    totals = [sum(r[i] for r in results) for i in range(1, 5)]
    print(f"| {mode} | {loops} | {noisy} | {100 * noisy / loops:.1f}% "
          f"[{100 * low:.1f}, {100 * high:.1f}] | {totals[0]} | {totals[1]} | {totals[2]} "
          f"| {totals[3]} | {wall / 60:.1f} min |", flush=True)
    return results


def main():
    binary, mode = sys.argv[1], sys.argv[2]
    loops = int(sys.argv[3]) if len(sys.argv) > 3 else 500
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 20260726
    look_every = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    workers = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    if mode not in ("before", "after", "python", "both") or ABANDON_AT % look_every:
        raise SystemExit(__doc__)
    modes = ["after", "python"] if mode == "both" else [mode]
    results = [run_mode(binary, m, loops, seed, look_every, workers) for m in modes]
    if len(results) == 2:
        same = sum(a == b for a, b in zip(*results))
        print(f"\nThe CLI and Python agree on {same} of {loops} loops (whether noise was "
              "admitted, the candidates admitted, decided and abandoned, the looks).")


if __name__ == "__main__":
    main()
