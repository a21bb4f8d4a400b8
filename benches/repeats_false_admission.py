"""False admission with repeats: k = 5 repeats of 60 items and no change,
decided by the `evogate admit` binary on the rows as repeats (`<item>#<r>` with the
item as `group`, which admit tests on items) and on the same rows counted as 300 tasks
(ids `<item>-r<r>`, no group: McNemar on 300 pairs). Prints the Markdown of the
section "Repeats as repeats" in reports/bench.md.

Run: python3 benches/repeats_false_admission.py target/release/evogate [RUNS]
(RUNS per cell, default 2000; the seed is fixed, so the output is too).

Repeats of one item are correlated, as real ones are: each item has its own
difficulty. No change means the two arms are exchangeable within every item:

- independent: both arms answer item i right with the same chance p_i (p_i ~
  Beta(1/2, 1/2), U-shaped), each repeat an independent draw;
- item effects: each arm has its own chance for item i, logistic(u_i + e), with u_i ~
  N(0, 1.5^2) shared and e ~ N(0, 1) drawn per arm and item (a prompt change that helps
  some items and hurts as many others, on average no change), repeats independent;
- cached copies: as item effects, but each arm's 5 repeats of an item are one draw
  copied 5 times (a cache replaying one answer).

Every cell reports the share of runs admitted (exit 0) with its Wilson 95% interval,
and in the repeats cells the share where admit warned that an arm's repeats agree on
every item.

Usage: python3 benches/repeats_false_admission.py EVOGATE [RUNS]   (RUNS a cell: 2000)
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import wilson  # noqa: E402

ITEMS = 60
K = 5
ALPHA = 0.05


def logistic(x):
    return 1.0 / (1.0 + math.exp(-x))


def outcomes(rng, scenario):
    """Each arm's 0/1 outcomes: [item][repeat] for the baseline and the candidate."""
    arms = ([], [])
    for _ in range(ITEMS):
        if scenario == "independent":
            p = math.sin(math.pi / 2 * rng.random()) ** 2
            chances = (p, p)
        else:
            u = rng.gauss(0.0, 1.5)
            chances = (logistic(u + rng.gauss(0.0, 1.0)), logistic(u + rng.gauss(0.0, 1.0)))
        for arm, chance in zip(arms, chances):
            if scenario == "cached copies":
                one = int(rng.random() < chance)
                arm.append([one] * K)
            else:
                arm.append([int(rng.random() < chance) for _ in range(K)])
    return arms


def write(path, arm, as_repeats):
    with open(path, "w") as out:
        out.write("task_id,group,correct,score\n" if as_repeats else "task_id,correct,score\n")
        for i, repeats in enumerate(arm):
            for r, c in enumerate(repeats, start=1):
                if as_repeats:
                    out.write(f"q{i}#{r},q{i},{c},{c}\n")
                else:
                    out.write(f"q{i}-r{r},{c},{c}\n")


def admit(binary, folder):
    done = subprocess.run(
        [binary, "admit", "--baseline", "b.csv", "--candidate", "c.csv", "--alpha", str(ALPHA)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        sys.exit(f"admit failed: {done.stderr}")
    warned = "repeats agree on every item" in done.stderr
    return done.returncode == 0, warned


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    rng = random.Random(20261240)
    rows = []
    with tempfile.TemporaryDirectory(prefix="repeats-sim-") as folder:
        for scenario in ["independent", "item effects", "cached copies"]:
            counts = {True: [0, 0], False: [0, 0]}
            for _ in range(runs):
                base, cand = outcomes(rng, scenario)
                for as_repeats in (True, False):
                    write(os.path.join(folder, "b.csv"), base, as_repeats)
                    write(os.path.join(folder, "c.csv"), cand, as_repeats)
                    admitted, warned = admit(binary, folder)
                    counts[as_repeats][0] += admitted
                    counts[as_repeats][1] += warned
            rows.append((scenario, counts))
    print(
        f"No change, {ITEMS} items x {K} repeats, alpha {ALPHA}, {runs} runs per cell (Python random seed 20261240), "
        "decided by the `evogate admit` binary; admitted with its Wilson 95% interval.\n"
    )
    print("| no change | as repeats (tested on 60 items) | as 300 tasks (McNemar on rows) | warned, as repeats |")
    print("| --- | ---: | ---: | ---: |")
    for scenario, counts in rows:
        cells = []
        for as_repeats in (True, False):
            x = counts[as_repeats][0]
            low, high = wilson(x, runs)
            cells.append(f"{100 * x / runs:.2f}% [{100 * low:.2f}, {100 * high:.2f}]")
        warned = counts[True][1]
        cells.append(f"{100 * warned / runs:.1f}%")
        print(f"| {scenario} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
