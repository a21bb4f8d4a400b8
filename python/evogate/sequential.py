"""Sequential admission from Python: stop scoring a candidate as soon as it is decided.

``Sequential`` keeps the betting e-processes of ``evogate admit --sequential`` as pairs
arrive, in pure Python (the same formulas as the Rust ``stats::sequential``, checked
against it on the vector in ``tests/data/sequential_vector.tsv``), so an optimizer's
loop can ask after every pair whether to go on. At the last holdout task, and for
``report()``, it runs the ``evogate`` binary on the pairs seen, whose answer is the
authoritative one (the exact final look, strata, the ledger).

Example::

    s = evogate.Sequential(holdout=order, alpha=0.05)
    for task in order:
        state = s.update(task, baseline[task], candidate_score(task))
        if state["verdict"] != "continue":
            break

Given a ``ledger`` (and the ``manifest`` ``evogate split`` wrote, whose holdout and
order are used), every ``update`` is a look recorded by the binary as
``admit --sequential --ledger`` records one: the first spends the candidate's attempt,
later ones continue it at that attempt's alpha, the deciding one closes it, and a
candidate abandoned undecided keeps what it spent.
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import tempfile
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple


#: Micro-units in a score of 1: the binary sums scores in whole micro-units.
_MICROS = 1_000_000


def _micros(score: Any) -> int:
    """A score in whole micro-units, rounded half away from zero as the binary rounds."""
    value = float(score) * _MICROS
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def bet_fractions(n: int) -> List[float]:
    """The bet fractions 1, 1/2, 1/4, ... down to the first at or below 1/sqrt(n)."""
    smallest = 1.0 / math.sqrt(max(n, 1))
    fractions = [1.0]
    while fractions[-1] > smallest:
        fractions.append(fractions[-1] * 0.5)
    return fractions


def log_factor(c: float, x: float, m: float) -> float:
    """ln(1 + c*(x - m)/(1 + m)), one pair's factor for the bettor c against mean <= m."""
    step = max(c * (x - m) / (1.0 + m), -1.0)
    # Rust's ln_1p(-1) is -inf; Python's raises.
    return -math.inf if step == -1.0 else math.log1p(step)


def log_mean_exp(logs: Sequence[float]) -> float:
    """ln of the mean of exp(logs), -inf when every entry is -inf."""
    top = max(logs)
    if top == -math.inf:
        return top
    return top + math.log(sum(math.exp(v - top) for v in logs) / len(logs))


class _Track:
    """One e-process: sums of log factors per bettor (scores) or counts of -1, 0, 1
    (0/1 correct), on the differences or their negation."""

    def __init__(self, sign: float, m: float, bets: List[float], binary: bool):
        self.sign, self.m, self.bets, self.binary = sign, m, bets, binary
        self.counts = [0, 0, 0]
        self.logs = [0.0] * len(bets)

    def push(self, difference: float) -> None:
        x = self.sign * difference
        if self.binary:
            self.counts[int(round(x)) + 1] += 1
        else:
            self.logs = [log + log_factor(c, x, self.m) for log, c in zip(self.logs, self.bets)]

    def components(self) -> List[float]:
        if not self.binary:
            return list(self.logs)
        out = []
        for c in self.bets:
            total = 0.0
            for count, x in zip(self.counts, (-1.0, 0.0, 1.0)):
                if count:
                    factor = log_factor(c, x, self.m)
                    total += -math.inf if factor == -math.inf else count * factor
            out.append(total)
        return out

    def log_e_value(self) -> float:
        return log_mean_exp(self.components())


def _holdout_ids(holdout: Any) -> List[str]:
    """The holdout's task ids, checked as the binary reads an order: each id trimmed of
    whitespace at its ends, none blank, none twice."""
    if isinstance(holdout, (str, bytes, os.PathLike)):
        raise TypeError(
            "holdout is a path or a string; give the list of task ids in the order "
            "(e.g. read from holdout.csv with csv.DictReader), or manifest="
        )
    try:
        items = list(holdout)
    except TypeError:
        raise TypeError(
            f"holdout {holdout!r} is neither a list of task ids nor a number of tasks"
        ) from None
    ids: List[str] = []
    first: Dict[str, int] = {}
    for position, task in enumerate(items, start=1):
        task_id = str(task).strip()
        if not task_id:
            raise ValueError(f"holdout position {position}: the task id is blank")
        if task_id in first:
            raise ValueError(
                f"holdout position {position}: task {task_id!r} is listed twice "
                f"(first at position {first[task_id]}); remove the repeat"
            )
        first[task_id] = position
        ids.append(task_id)
    return ids


def _manifest_order(manifest: Any) -> List[str]:
    """The holdout's task ids, in the order recorded in a ``manifest.json``."""
    path = os.fspath(manifest)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        splits = {entry["name"]: entry for entry in document["splits"]}
        return [str(task) for task in splits["holdout"]["task_ids"]]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(
            f"{path}: not a manifest that `evogate split` wrote ({error}); give the "
            "manifest.json beside the holdout"
        ) from None


class Sequential:
    """Sequential admission over a holdout whose order is fixed before scoring.

    ``holdout`` is the list of task ids in that order (or just their number, when the
    order is kept elsewhere); with ``manifest`` (the ``manifest.json`` that
    ``evogate split`` wrote) it may be left out, and must otherwise be the manifest's
    order. ``strata`` maps a task id to its stratum (e.g. its kind), for the
    per-stratum regression guard. ``ledger`` (which needs ``manifest``) records every
    look in the holdout-reuse ledger through the binary. ``update`` takes the pairs in
    the order and returns the state; once decided, the verdict stays.
    """

    #: For scores, the share of alpha the e-process spends (the exact signed-rank test
    #: of the last look spends the rest), as in the Rust.
    SCORES_SHARE = 0.25

    def __init__(
        self,
        holdout: Any = None,
        alpha: float = 0.05,
        margin: float = 0.0,
        strata: Optional[Mapping[str, str]] = None,
        ledger: Any = None,
        manifest: Any = None,
    ):
        # The levels `--alpha` accepts: (0, 0.5), as the binary refuses the rest.
        if not (isinstance(alpha, (int, float)) and 0.0 < alpha < 0.5):
            raise ValueError(f"alpha {alpha!r} is outside (0, 0.5), the levels --alpha accepts")
        if not 0.0 <= margin < 1.0:
            raise ValueError(f"margin {margin} is not in [0, 1)")
        if ledger is not None and manifest is None:
            raise ValueError(
                "ledger needs manifest: the ledger spends alpha per holdout, and only the "
                "manifest.json `evogate split` wrote says which holdout this is"
            )
        self.ledger = None if ledger is None else os.fspath(ledger)
        self.manifest = None if manifest is None else os.fspath(manifest)
        self.order: Optional[List[str]] = None
        if holdout is None and manifest is None:
            raise TypeError("give holdout (the task ids in the order) or manifest")
        if isinstance(holdout, bool):
            raise TypeError("holdout is a bool; give the task ids in the order or their number")
        if isinstance(holdout, int):
            size = holdout
        else:
            recorded = _manifest_order(manifest) if manifest is not None else None
            self.order = _holdout_ids(holdout) if holdout is not None else recorded
            if recorded is not None and self.order != recorded:
                raise ValueError(
                    f"holdout is not the order {self.manifest} records for the holdout; "
                    "leave holdout out (the manifest's order is used) or give that order"
                )
            size = len(self.order or [])
        if size <= 0:
            raise ValueError("the holdout has no tasks")
        if self.manifest is not None and self.order is None:
            raise ValueError("with manifest, give the holdout's task ids (or leave holdout out)")
        self.alpha, self.margin, self.size = alpha, margin, size
        self.strata = dict(strata or {})
        self.bets = bet_fractions(size)
        self.binary: Optional[bool] = None
        self.pairs: List[Tuple[str, float, float, Optional[Tuple[int, int]]]] = []
        self.path: List[float] = []
        self._tracks: Dict[str, _Track] = {}
        # Each stratum's sum of differences in whole micro-units, as the binary keeps it.
        self._stratum_sums: Dict[str, int] = {}
        self._state: Dict[str, Any] = {"verdict": "continue", "look": 0}
        # Inside ``extend`` with a ledger: pairs are added without a look of the binary.
        self._deferred = False

    def threshold(self) -> float:
        """The improvement e-value at which the candidate is admitted."""
        share = 1.0 if self.binary else self.SCORES_SHARE
        return 1.0 / (self.alpha * share)

    def update(
        self,
        task_id: str,
        baseline_score: float,
        candidate_score: float,
        correct: Optional[Tuple[Any, Any]] = None,
    ) -> Dict[str, Any]:
        """Adds the next pair and looks. ``correct`` is (baseline correct, candidate
        correct) for 0/1 outcomes: give it for every pair or for none."""
        if self._state["verdict"] != "continue":
            return dict(self._state)
        task_id = str(task_id).strip()
        look = len(self.pairs)
        if self.order is not None and (look >= len(self.order) or self.order[look] != task_id):
            expected = self.order[look] if look < len(self.order) else "nothing (all scored)"
            raise ValueError(
                f"task {task_id!r} is out of order: the order fixed before scoring has "
                f"{expected!r} at position {look + 1}"
            )
        if any(task_id == p[0] for p in self.pairs):
            raise ValueError(f"task {task_id!r} was already scored")
        for score in (baseline_score, candidate_score):
            if not 0.0 <= float(score) <= 1.0:
                raise ValueError(f"task {task_id!r}: score {score} is outside [0, 1]")
        binary = correct is not None
        if self.binary is None:
            self.binary = binary
            self._tracks = {
                "improvement": _Track(1.0, 0.0, self.bets, binary),
                "futility": _Track(-1.0, -self.margin, self.bets, binary),
            }
        elif self.binary != binary:
            raise ValueError(f"task {task_id!r}: give `correct` for every pair or for none")
        if binary:
            pair_correct = (int(bool(int(correct[0]))), int(bool(int(correct[1]))))
            difference = float(pair_correct[1] - pair_correct[0])
        else:
            pair_correct = None
            difference = float(candidate_score) - float(baseline_score)
        self.pairs.append((task_id, float(baseline_score), float(candidate_score), pair_correct))
        for name in ("improvement", "futility"):
            self._tracks[name].push(difference)
        stratum = self.strata.get(task_id)
        if stratum is not None:
            key = "stratum:" + stratum
            if key not in self._tracks:
                self._tracks[key] = _Track(-1.0, 0.0, self.bets, binary)
            self._tracks[key].push(difference)
            step = _micros(candidate_score) - _micros(baseline_score)
            if binary:
                step = int(difference) * _MICROS
            self._stratum_sums[stratum] = self._stratum_sums.get(stratum, 0) + step
        log_e = self._tracks["improvement"].log_e_value()
        self.path.append(log_e)
        if self.ledger is not None and self._deferred:
            # The batch's last pair looks; the binary replays every pair of it then.
            self._state = {"verdict": "continue", "look": len(self.pairs)}
            return dict(self._state)
        alpha_log = -math.log(self.alpha)
        t = len(self.pairs)
        state: Dict[str, Any] = {
            "verdict": "continue",
            "look": t,
            "e_value": math.exp(min(log_e, 690.0)),
            "log_e_value": log_e,
            "threshold": self.threshold(),
        }
        regressed = sorted(
            key[len("stratum:"):]
            for key, track in self._tracks.items()
            if key.startswith("stratum:") and track.log_e_value() >= alpha_log
        )
        if regressed:
            state.update(verdict="refused", reason=f"stratum {regressed[0]!r} regressed")
        elif log_e >= math.log(self.threshold()) and not any(
            total < 0.0 for total in self._stratum_sums.values()
        ):
            # Held back while a stratum's mean difference is negative, as in the Rust.
            state.update(verdict="admitted", reason="the improvement e-value reached its threshold")
        elif self._tracks["futility"].log_e_value() >= alpha_log:
            state.update(verdict="refused", reason="the candidate cannot be better")
        elif t >= self.size and self.ledger is None:
            final = self.report()
            state.update(verdict=final["verdict"], reason=final["reason"])
        if self.ledger is not None:
            # Every look is recorded, and the binary, deciding at the attempt's alpha,
            # is the authority: its verdict, look, e-value and threshold.
            looked = self.report()
            state.update(
                verdict=looked["verdict"],
                reason=looked["reason"],
                look=looked["look"],
                e_value=looked["e_value"],
                threshold=looked["threshold"],
                attempt=looked["ledger"]["attempt"],
                alpha=looked["ledger"]["alpha_this_attempt"],
            )
        self._state = state
        return dict(state)

    def extend(self, pairs: Iterable[Sequence[Any]]) -> Dict[str, Any]:
        """Adds several pairs in the order, each ``(task_id, baseline_score,
        candidate_score)`` or with ``correct`` as a fourth item, and returns the state
        after the last. With a ledger the batch is one look the binary records (one run
        of it, not one a pair); replaying every pair, the binary still decides at the
        pair where the decision fell (its ``look``). Without one it is ``update`` on
        each pair, a decision reached inside the batch kept."""
        batch = [tuple(pair) for pair in pairs]
        if not batch:
            raise ValueError("extend needs at least one pair")
        self._deferred = True
        try:
            for pair in batch[:-1]:
                self.update(*pair)
        finally:
            self._deferred = False
        return self.update(*batch[-1])

    def report(self) -> Dict[str, Any]:
        """The ``evogate admit --sequential`` report (schema evogate/sequential/v1) on
        the pairs seen, from the binary (with a ledger, a look recorded in it)."""
        from . import _run  # the package's runner of the binary

        if not self.pairs:
            raise ValueError("no pair was scored yet")
        order = self.order or [p[0] for p in self.pairs] + [
            f"unscored-{i}" for i in range(self.size - len(self.pairs))
        ]
        with tempfile.TemporaryDirectory(prefix="evogate-sequential-") as folder:
            paths = {name: os.path.join(folder, f"{name}.csv") for name in ("b", "c", "o")}
            header = ["task_id", "kind", "score"] + (["correct"] if self.binary else [])
            for side, name in ((1, "b"), (2, "c")):
                with open(paths[name], "w", newline="", encoding="utf-8") as handle:
                    writer = csv.writer(handle)
                    writer.writerow(header)
                    for pair in self.pairs:
                        row = [pair[0], self.strata.get(pair[0], ""), repr(pair[side])]
                        if self.binary:
                            row.append(pair[3][side - 1])
                        writer.writerow(row)
            args = [
                "admit", "--sequential", "--baseline", paths["b"], "--candidate", paths["c"],
                "--alpha", repr(self.alpha), "--margin", repr(self.margin), "--format", "json",
            ]
            if self.manifest is not None:
                args += ["--manifest", self.manifest]
            else:
                with open(paths["o"], "w", newline="", encoding="utf-8") as handle:
                    writer = csv.writer(handle)
                    writer.writerow(["task_id"])
                    writer.writerows([task] for task in order)
                args += ["--order", paths["o"]]
            if self.ledger is not None:
                args += ["--ledger", self.ledger]
            if not self.strata:
                args += ["--strata", "none"]
            done = _run(args, ok=(0, 1, 3))
        return json.loads(done.stdout)
