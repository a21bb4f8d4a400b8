"""The promise measured in GEPA's loop: how often GEPA's own choice
and evogate's held-out gate return a candidate no better than the seed, and how often
evogate admits a real improvement, over many runs of GEPA 0.1.4's real loop
(`gepa.optimize`) with a stand-in model.

The world of one run r: the tasks are those of `evogate split` on data/arxiv/papers.csv
(train 272, validation 136, holdout 136); task t has a difficulty p_t = 0.2 + 0.6 u
(u uniform, keyed by r and t). A candidate's text carries its skill s (a count of real
improvements); it answers t correctly when coin(r, text, t) < min(1, p_t + STEP * s), so
two candidates of equal skill are exchangeable and one of skill s is better by up to
STEP * s. The reflection stand-in rewrites the parent's text with a new revision number:
under the null it never changes the skill (every candidate is no better than the seed,
and anything GEPA keeps is a noise winner); in the improving world each proposal is a
real improvement (s + 1, +0.10) with probability 1/2. GEPA runs with its defaults (Pareto
candidate selection, minibatch 3, strict improvement acceptance) and a budget of
BUDGET metric calls.

For each run, from the same GEPA result:
- GEPA's best: its best candidate by validation mean (`GEPAResult.best_idx`);
- held-out argmax: every leader (the seed and each new best by validation mean) is
  scored on the holdout and the one with the highest holdout mean is kept, ties to the
  earlier, as newer GEPA's `held_out` final selection does;
- evogate: `evogate.gepa.HoldoutGate` on the same holdout, each with a fresh ledger:
  fixed-n on GEPA's best; fixed-n on every leader; sequential on every leader
  (`evogate.Sequential` with the ledger); and sequential on every leader abandoned
  undecided at half the holdout (68 of 136 looks), whose open attempts stay spent.
A run's choice "beats the seed" when it is not the seed. Under the null every such run
is a false admission; evogate's promise is that at most alpha (0.05) of runs end so.

Usage (gepa 0.1.4 and the evogate package installed, the evogate binary found):
    python benches/gepa_loop.py [--null-runs 2000] [--improving-runs 500] [--seed 2026]
Prints progress on stderr and the tables of reports/bench.md on stdout.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import argparse
import csv
import hashlib
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import gepa
from gepa.core.adapter import EvaluationBatch

import evogate
from evogate.gepa import HoldoutGate, leaders

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import wilson  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "data" / "arxiv" / "papers.csv"
STEP = 0.10
BUDGET = 800
ALPHA = 0.05


def coin(*parts):
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def skill(text):
    return text.count("+")


class World:
    """One run's tasks and stand-in model."""

    def __init__(self, run, improving):
        self.run, self.improving = run, improving
        self.proposals = 0

    def correct(self, text, task_id):
        p = 0.2 + 0.6 * coin(self.run, "difficulty", task_id)
        return coin(self.run, text, task_id) < min(1.0, p + STEP * skill(text))

    # GEPA's adapter protocol.
    propose_new_texts = None

    def evaluate(self, batch, candidate, capture_traces=False):
        text = candidate["instructions"]
        scores = [1.0 if self.correct(text, task["task_id"]) else 0.0 for task in batch]
        traces = [{"task": task["task_id"], "score": s} for task, s in zip(batch, scores)]
        return EvaluationBatch(outputs=scores, scores=scores,
                               trajectories=traces if capture_traces else None)

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        return {name: eval_batch.trajectories for name in components_to_update}

    def propose(self, candidate, reflective_dataset, components_to_update):
        self.proposals += 1
        text = candidate["instructions"]
        better = self.improving and coin(self.run, "improves", self.proposals) < 0.5
        base = text.split(" [")[0] + ("+" if better else "")
        return {"instructions": f"{base} [revision {self.proposals}]"}

    def score(self, candidate, tasks):
        return [self.correct(candidate["instructions"], task["task_id"]) for task in tasks]


class SignificantImprovement:
    """An AcceptanceCriterion: the exact one-sided sign test on the minibatch's 0/1
    pairs at `level` (at minibatch 3 the only reachable level is 1/8: three wins)."""

    def __init__(self, level):
        self.level = level

    def should_accept(self, proposal, state):
        pairs = zip(proposal.subsample_scores_before or [], proposal.subsample_scores_after or [])
        wins = sum(1 for b, a in pairs if a > b)
        pairs = zip(proposal.subsample_scores_before or [], proposal.subsample_scores_after or [])
        losses = sum(1 for b, a in pairs if a < b)
        n = wins + losses
        p = sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n
        return n > 0 and p <= self.level


class Quiet:
    def log(self, *args, **kwargs):
        pass


def rows(split, name):
    with open(split / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


ARMS = ["GEPA's best (validation mean)", "held-out argmax over leaders",
        "evogate fixed-n, GEPA's best", "evogate fixed-n, every leader",
        "evogate sequential, every leader", "evogate sequential, abandoned at 68"]


def one_run(run, improving, split, train, val, holdout, work, criterion=None):
    world = World(run, improving)
    options = {} if criterion is None else {"acceptance_criterion": criterion}
    result = gepa.optimize(
        seed_candidate={"instructions": "Answer the question."}, trainset=train, valset=val,
        adapter=world, custom_candidate_proposer=world.propose, max_metric_calls=BUDGET,
        seed=run, logger=Quiet(), **options,
    )
    candidates, means = result.candidates, result.val_aggregate_scores
    found = leaders(means)
    chosen = {ARMS[0]: result.best_idx}
    holdout_means = {i: sum(world.score(candidates[i], holdout)) / len(holdout) for i in [0, *found]}
    chosen[ARMS[1]] = max([0, *found], key=lambda i: (holdout_means[i], -i))
    tasks = {ARMS[1]: len(holdout) * len(found)}
    gates = {
        ARMS[2]: ("best", {}), ARMS[3]: ("leaders", {}),
        ARMS[4]: ("leaders", {"sequential": True, "batch": 1}),
        ARMS[5]: ("leaders", {"sequential": True, "batch": 1, "max_tasks": len(holdout) // 2}),
    }
    for arm, (put_forward, options) in gates.items():
        ledger = work / f"{run}-{ARMS.index(arm)}.jsonl"
        gate = HoldoutGate(split, world.score, ledger=ledger, alpha=ALPHA, strata="none", **options)
        selection = gate.select(result, put_forward=put_forward)
        chosen[arm] = selection.index
        tasks[arm] = sum(d.tasks for d in selection.decisions)
        ledger.unlink(missing_ok=True)
    gain = {arm: STEP * skill(candidates[i]["instructions"]) for arm, i in chosen.items()}
    # What GEPA's two choices claim over the seed, on the set each chose on.
    claimed = {ARMS[0]: means[chosen[ARMS[0]]] - means[0],
               ARMS[1]: holdout_means[chosen[ARMS[1]]] - holdout_means[0]}
    return {arm: i != 0 for arm, i in chosen.items()}, gain, tasks, len(found), claimed


def table(title, outcomes, gains, tasks, leaders_found, improving, claims):
    n = len(outcomes)
    print(f"\n{title} ({n} runs; leaders per run: mean {sum(leaders_found) / n:.2f})\n")
    if improving:
        print("| choice | returns a candidate that is not the seed | [95% Wilson] | "
              "returns a truly better one | mean true gain | holdout tasks scored per run |")
        print("|---|---:|---|---:|---:|---:|")
    else:
        print("| choice | returns a candidate that is not the seed (a noise winner) | "
              "[95% Wilson] | holdout tasks scored per run |")
        print("|---|---:|---|---:|")
    for arm in ARMS:
        k = sum(o[arm] for o in outcomes)
        low, high = wilson(k, n)
        used = sum(t.get(arm, 0) for t in tasks) / n
        used_text = f"{used:.1f}" if arm != ARMS[0] else "0"
        if improving:
            better = sum(1 for g in gains if g[arm] > 0)
            mean_gain = sum(g[arm] for g in gains) / n
            print(f"| {arm} | {k}/{n} = {k / n:.3f} | [{low:.3f}, {high:.3f}] | "
                  f"{better}/{n} = {better / n:.3f} | {mean_gain:.3f} | {used_text} |")
        else:
            print(f"| {arm} | {k}/{n} = {k / n:.4f} | [{low:.4f}, {high:.4f}] | {used_text} |")
    if not improving:
        for arm, where in ((ARMS[0], "validation"), (ARMS[1], "holdout")):
            shown = [c[arm] for c, o in zip(claims, outcomes) if o[arm]]
            if shown:
                print(f"\n{arm}: when not the seed, it beat the seed's {where} mean by "
                      f"{sum(shown) / len(shown):.3f} on average (largest {max(shown):.3f}).")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null-runs", type=int, default=2000)
    parser.add_argument("--improving-runs", type=int, default=500)
    parser.add_argument("--criterion-runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gepa-loop-"))
    try:
        split = work / "split"
        subprocess.run([evogate.binary(), "split", "--truth", str(TRUTH), "--out", str(split)],
                       check=True, capture_output=True)
        train, val, holdout = rows(split, "train"), rows(split, "val"), rows(split, "holdout")
        print(f"gepa {gepa.__version__ if hasattr(gepa, '__version__') else '0.1.4'}, "
              f"holdout {len(holdout)} tasks, validation {len(val)}, train {len(train)}, "
              f"budget {BUDGET} metric calls, alpha {ALPHA}, step {STEP}")
        worlds = [("Null: every candidate no better than the seed", False, args.null_runs, None),
                  ("Improving: each proposal a real +0.10 with probability 1/2", True,
                   args.improving_runs, None),
                  ("Improving, with the acceptance criterion 'three wins of three' "
                   "(the sign test at 1/8, the only level minibatch 3 reaches)", True,
                   args.criterion_runs, SignificantImprovement(0.125))]
        for title, improving, runs, criterion in worlds:
            if runs <= 0:
                continue
            started = time.time()
            outcomes, gains, tasks, found, claims = [], [], [], [], []
            for i in range(runs):
                # The criterion's runs are the improving world's runs: a paired comparison.
                run = args.seed * 100_000 + (50_000 if improving else 0) + i
                outcome, gain, used, count, claimed = one_run(run, improving, split, train, val,
                                                              holdout, work, criterion)
                claims.append(claimed)
                outcomes.append(outcome)
                gains.append(gain)
                tasks.append(used)
                found.append(count)
                if (i + 1) % 100 == 0:
                    print(f"{title[:30]}: {i + 1}/{runs} runs, {time.time() - started:.0f}s",
                          file=sys.stderr)
            table(title, outcomes, gains, tasks, found, improving, claims)
            print(f"\n({runs} runs in {time.time() - started:.0f}s)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
