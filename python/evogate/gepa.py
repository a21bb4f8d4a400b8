"""The held-out step GEPA lacks: the candidates a GEPA run puts forward are scored on a
holdout it never saw, each one a ledger attempt that evogate decides, and only an
admitted candidate replaces the seed.

GEPA keeps the candidate with the best validation mean, the set it selected on, so a
run whose proposals are all no better than the seed still returns a "better" one in
most runs (docs/optimizers.md measures how often). :class:`HoldoutGate` puts evogate
between the run and its result: each candidate put forward (GEPA's best, or every new
leader in the order GEPA found it) is scored on the holdout of an ``evogate split``
folder and decided by ``evogate admit`` (fixed-n) or :class:`evogate.Sequential`
(stops scoring once decided), always with the holdout-reuse ledger, so that over the
whole run a candidate no better than the seed is returned with probability at most
alpha. Needs neither gepa nor dspy to import; it reads a ``GEPAResult`` (or DSPy's
``DspyGEPAResult``) by its fields.

Example::

    gate = HoldoutGate("runs/split", score, ledger="runs/ledger.jsonl")
    result = gepa.optimize(seed_candidate=seed, trainset=train, valset=val, ...)
    chosen = gate.select(result)          # the admitted candidate, or the seed
    chosen.candidate, chosen.admitted, [d.verdict for d in chosen.decisions]
"""

from __future__ import annotations

import csv
import json
import os
import tempfile
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

from . import EvogateError, _run, admit
from .sequential import Sequential

Score = Callable[[Any, List[Dict[str, str]]], Sequence[Any]]
"""``score(candidate, tasks)``: one result per task of ``tasks`` (rows of holdout.csv,
dicts with ``task_id`` and the split's other columns), each a number in [0, 1], a bool,
or an object or mapping with ``score`` and optionally ``correct`` (an evogate ``Grade``)."""


class Decision(NamedTuple):
    """One candidate's ledger attempt on the holdout.

    ``verdict`` is ``admitted``, ``refused`` or ``inconclusive``, or for a sequential
    run stopped by ``max_tasks`` before a decision, ``abandoned`` (its attempt stays
    spent). ``attempt`` and ``alpha`` are the ledger's for this attempt, ``tasks`` the
    holdout tasks the candidate was scored on, ``report`` evogate's report."""

    index: Optional[int]
    verdict: str
    attempt: Optional[int]
    alpha: Optional[float]
    tasks: int
    report: Optional[Dict[str, Any]]

    @property
    def admitted(self) -> bool:
        """Whether the candidate was admitted."""
        return self.verdict == "admitted"


class Selection(NamedTuple):
    """What :meth:`HoldoutGate.select` returns: the ``candidate`` to use (an admitted
    one, else the seed), its ``index`` in the run (0 for the seed), whether it was
    ``admitted``, and every ``decisions`` made, in order."""

    candidate: Any
    index: int
    admitted: bool
    decisions: List[Decision]


def leaders(val_aggregate_scores: Sequence[float]) -> List[int]:
    """The candidates that were GEPA's best by validation mean when they were added,
    in the order found, the seed (0) left out: index i is a leader when its mean is
    above every earlier one's (GEPA's ``FullEvaluationPolicy.get_best_program`` keeps
    the first of equal means).

    Example::

        leaders([0.5, 0.6, 0.55, 0.6, 0.7])  # [1, 4]
    """
    found: List[int] = []
    best = None
    for index, mean in enumerate(val_aggregate_scores):
        if best is None or mean > best:
            if best is not None:
                found.append(index)
            best = mean
    return found


def _read_split(split: Union[str, os.PathLike]) -> tuple:
    folder = os.fspath(split)
    manifest = os.path.join(folder, "manifest.json")
    try:
        with open(manifest, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError) as error:
        raise EvogateError(
            f"`{manifest}`: cannot read the split's manifest ({error}); give the folder "
            "`evogate split --out` wrote"
        ) from None
    splits = [s for s in record.get("splits", []) if s.get("name") == "holdout"]
    if not splits:
        raise EvogateError(f"`{manifest}`: no holdout split is recorded; rerun `evogate split`")
    holdout = os.path.join(folder, splits[0]["file"]["path"])
    with open(holdout, newline="", encoding="utf-8") as handle:
        tasks = list(csv.DictReader(handle))
    if not tasks or "task_id" not in tasks[0]:
        raise EvogateError(f"`{holdout}`: no tasks with a `task_id` column")
    # The order of scoring is the manifest's (the one `admit --sequential --manifest`
    # holds a run to), and the tasks must be the ones it records.
    order = [str(task) for task in splits[0].get("task_ids") or [t["task_id"] for t in tasks]]
    by_id = {t["task_id"]: t for t in tasks}
    if sorted(by_id) != sorted(order):
        raise EvogateError(
            f"`{holdout}` does not hold the tasks `{manifest}` records for the holdout; "
            "use the files `evogate split` wrote, unedited"
        )
    return manifest, holdout, [by_id[task] for task in order]


def _row(task: Mapping[str, str], result: Any) -> Dict[str, Any]:
    """One scores row for `admit` from a task of holdout.csv and a score's result."""
    if isinstance(result, bool):
        score, correct = float(result), result
    elif isinstance(result, (int, float)):
        score, correct = float(result), None
    else:
        get = result.get if isinstance(result, Mapping) else lambda name: getattr(result, name, None)
        score, correct = float(get("score")), get("correct")
    row: Dict[str, Any] = {"task_id": task["task_id"]}
    for column in ("group", "kind"):
        if task.get(column):
            row[column] = task[column]
    if correct is not None:
        row["correct"] = bool(correct)
    row["score"] = score
    return row


class HoldoutGate:
    """Scores candidates on the holdout of an ``evogate split`` folder and decides each
    against the seed as one attempt of the ledger.

    ``split`` is the folder ``evogate split --out`` wrote (``holdout.csv``, scored in
    its order, and ``manifest.json``, which fixes the holdout for the ledger);
    ``score`` is a :data:`Score`; ``ledger`` the attempts file (required: every
    candidate that touches the holdout spends). ``sequential=True`` decides with
    :class:`evogate.Sequential`, scoring ``batch`` tasks at a time and stopping as soon
    as the candidate is decided (or, with ``max_tasks``, abandoning it undecided after
    that many tasks: its attempt stays spent); ``sequential=False`` scores the whole
    holdout and runs ``evogate admit``. ``admit_options`` go to :func:`evogate.admit`
    (``strata``, ``cluster``, ``margin``, ``test``); a sequential decision takes only
    ``strata`` (a column of holdout.csv, default ``kind``, or ``"none"``).

    The seed's holdout scores are computed once, on the first decision, from the
    candidate :meth:`select` reads as the seed or the ``seed`` given.
    """

    def __init__(
        self,
        split: Union[str, os.PathLike],
        score: Score,
        *,
        ledger: Union[str, os.PathLike],
        alpha: float = 0.05,
        sequential: bool = False,
        batch: int = 8,
        max_tasks: Optional[int] = None,
        seed: Any = None,
        **admit_options: Any,
    ):
        if ledger is None:
            raise ValueError("a HoldoutGate needs a ledger: every candidate that touches the holdout spends")
        if batch < 1:
            raise ValueError(f"batch must be at least 1, not {batch}")
        self.manifest, self.holdout_path, self.tasks = _read_split(split)
        if max_tasks is not None and not 1 <= max_tasks <= len(self.tasks):
            raise ValueError(f"max_tasks must be in 1..{len(self.tasks)}, not {max_tasks}")
        self.score, self.ledger, self.alpha = score, os.fspath(ledger), alpha
        self.sequential, self.batch, self.max_tasks = sequential, batch, max_tasks
        self.admit_options = admit_options
        self.seed = seed
        self._baseline: Optional[List[Dict[str, Any]]] = None

    def _scored(self, candidate: Any, tasks: List[Dict[str, str]]) -> List[Dict[str, Any]]:
        results = list(self.score(candidate, tasks))
        if len(results) != len(tasks):
            raise EvogateError(
                f"score returned {len(results)} results for {len(tasks)} tasks; give one per task"
            )
        return [_row(task, result) for task, result in zip(tasks, results)]

    def baseline(self) -> List[Dict[str, Any]]:
        """The seed's scores rows on the whole holdout (scored once)."""
        if self._baseline is None:
            if self.seed is None:
                raise ValueError("no seed to compare with: pass seed= or call select()")
            self._baseline = self._scored(self.seed, self.tasks)
        return self._baseline

    def decide(self, candidate: Any, index: Optional[int] = None) -> Decision:
        """Decides one candidate against the seed on the holdout: one ledger attempt."""
        if self.sequential:
            return self._decide_sequential(candidate, index)
        rows = self._scored(candidate, self.tasks)
        admission = admit(
            self.baseline(), rows, alpha=self.alpha, tasks=self.holdout_path,
            manifest=self.manifest, ledger=self.ledger, **self.admit_options,
        )
        ledger = admission.report.get("ledger") or {}
        return Decision(
            index, admission.verdict, ledger.get("attempt"), ledger.get("alpha_this_attempt"),
            len(rows), admission.report,
        )

    def _strata(self) -> Dict[str, str]:
        column = self.admit_options.get("strata", "kind")
        if column in (None, "none"):
            return {}
        return {t["task_id"]: t[column] for t in self.tasks if t.get(column)}

    def _look(self, rows: List[Dict[str, Any]], kinds: Mapping[str, str]) -> Dict[str, Any]:
        """One look of ``admit --sequential --manifest --ledger`` on the pairs so far:
        the binary records it (the first opens the attempt, the deciding one closes
        it) and decides at the attempt's alpha."""
        baseline = {row["task_id"]: row for row in self.baseline()}
        binary = all("correct" in r and "correct" in baseline[r["task_id"]] for r in rows)
        with tempfile.TemporaryDirectory(prefix="evogate-gate-") as folder:
            paths = []
            for name, arm in (("baseline", [baseline[r["task_id"]] for r in rows]), ("candidate", rows)):
                path = os.path.join(folder, f"{name}.csv")
                with open(path, "w", newline="", encoding="utf-8") as handle:
                    writer = csv.writer(handle, lineterminator="\n")
                    writer.writerow(["task_id", "kind", "score"] + (["correct"] if binary else []))
                    for row in arm:
                        cells = [row["task_id"], kinds.get(row["task_id"], ""), repr(row["score"])]
                        writer.writerow(cells + ([int(row["correct"])] if binary else []))
                paths.append(path)
            args = [
                "admit", "--sequential", f"--baseline={paths[0]}", f"--candidate={paths[1]}",
                f"--manifest={self.manifest}", f"--ledger={self.ledger}",
                f"--alpha={self.alpha!r}", "--format=json",
            ] + ([] if kinds else ["--strata=none"])
            done = _run(args, ok=(0, 1, 3))
        return json.loads(done.stdout)

    def _decide_sequential(self, candidate: Any, index: Optional[int]) -> Decision:
        # Python's Sequential watches every pair at the attempt's alpha; the binary
        # records the looks that matter in the ledger: the first (which opens the
        # attempt and names its alpha), the deciding one (which closes it) and, for a
        # candidate stopped undecided, the last (its attempt stays spent). The binary's
        # verdict is the one kept; should it not confirm the monitor's, every later
        # pair is a recorded look (the monitor's verdict, once reached, stays).
        kinds = self._strata()
        baseline = {row["task_id"]: row for row in self.baseline()}
        limit = self.max_tasks or len(self.tasks)
        rows: List[Dict[str, Any]] = []  # the pairs looked at, in the order
        opened: Dict[str, Any] = {}
        scored = 0  # the holdout tasks the candidate was scored on (whole batches)
        monitor: Optional[Sequential] = None
        look: Dict[str, Any] = {"verdict": "continue"}
        while scored < limit and look["verdict"] == "continue":
            chunk = self.tasks[scored:min(scored + self.batch, limit)]
            results = self._scored(candidate, chunk)
            scored += len(chunk)
            for row in results:
                rows.append(row)
                base = baseline[row["task_id"]]
                binary = "correct" in row and "correct" in base
                pair = (row["task_id"], base["score"], row["score"])
                correct = (base["correct"], row["correct"]) if binary else None
                if monitor is None:
                    look = self._look(rows, kinds)
                    opened = look.get("ledger") or {}  # the attempt this candidate spends
                    monitor = Sequential(
                        holdout=[t["task_id"] for t in self.tasks],
                        alpha=look["ledger"]["alpha_this_attempt"], strata=kinds,
                    )
                    monitor.update(*pair, correct=correct)
                elif monitor.update(*pair, correct=correct)["verdict"] != "continue":
                    look = self._look(rows, kinds)
                if look["verdict"] != "continue":
                    break
        if look["verdict"] == "continue" and look.get("look") != len(rows):
            look = self._look(rows, kinds)  # how far it went; the attempt stays open
        verdict = "abandoned" if look["verdict"] == "continue" else look["verdict"]
        return Decision(index, verdict, opened.get("attempt"), opened.get("alpha_this_attempt"),
                        scored, look)

    def choose(self, seed: Any, candidate: Any) -> Selection:
        """Decides one ``candidate`` against ``seed`` (DSPy's compiled program against
        its student, without ``track_stats``) and returns the one to use.

        Example::

            program = gate.choose(student, compiled).candidate
        """
        if seed is not self.seed:
            self.seed, self._baseline = seed, None
        decision = self.decide(candidate, 1)
        if decision.admitted:
            return Selection(candidate, 1, True, [decision])
        return Selection(seed, 0, False, [decision])

    def select(self, result: Any, put_forward: str = "best") -> Selection:
        """Gates the candidates a GEPA run put forward and returns the one to use.

        ``result`` is a ``GEPAResult`` (``gepa.optimize``) or DSPy's
        ``DspyGEPAResult`` (``compiled.detailed_results`` with ``track_stats=True``):
        its ``candidates[0]`` is the seed. ``put_forward="best"`` decides GEPA's best
        by validation mean (one attempt, none when the seed is best);
        ``"leaders"`` decides every new leader in the order GEPA found it (one attempt
        each) and returns the last one admitted. No admitted candidate: the seed.
        """
        candidates = list(result.candidates)
        scores = list(result.val_aggregate_scores)
        if put_forward == "best":
            best = max(range(len(scores)), key=lambda i: scores[i])
            indices = [best] if best != 0 else []
        elif put_forward == "leaders":
            indices = leaders(scores)
        else:
            raise ValueError(f"put_forward must be 'best' or 'leaders', not {put_forward!r}")
        if self.seed is not candidates[0]:
            self.seed, self._baseline = candidates[0], None
        decisions = [self.decide(candidates[i], i) for i in indices]
        admitted = [d for d in decisions if d.admitted]
        if admitted:
            chosen = admitted[-1].index
            return Selection(candidates[chosen], chosen, True, decisions)
        return Selection(candidates[0], 0, False, decisions)
