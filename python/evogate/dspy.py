"""DSPy with evogate: grade a program's answers on the holdout for :class:`evogate.gepa.HoldoutGate`.

The recipe (docs/optimizers.md, ``examples/dspy_gepa.py``): ``evogate.dspy_metric``
is the metric ``dspy.GEPA`` optimizes (its feedback is evogate's); the compiled
program, or every leader of the run, is then scored on the split's holdout by
:func:`program_score` and decided against the student by a ``HoldoutGate`` with a
ledger, and the program to use is the admitted one or the student. Needs dspy only
where the programs run; this module imports nothing from it.

Example::

    gate = HoldoutGate("runs/split", evogate.dspy.program_score(grader),
                       ledger="runs/ledger.jsonl")
    compiled = dspy.GEPA(metric=evogate.dspy_metric(grader), track_stats=True, ...).compile(
        student, trainset=train, valset=val)
    program = gate.select(compiled.detailed_results).candidate
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping

from . import Grader


def _prompt(task: Mapping[str, str]) -> Dict[str, Any]:
    return {"question": task["prompt"]}


def program_score(
    grader: Grader,
    inputs: Callable[[Mapping[str, str]], Mapping[str, Any]] = _prompt,
    output: str = "answer",
) -> Callable[[Any, List[Dict[str, str]]], List[Any]]:
    """A ``score`` for :class:`evogate.gepa.HoldoutGate` that runs a DSPy program on
    holdout tasks and grades each answer with ``grader``.

    ``inputs`` maps a row of the split's ``holdout.csv`` (``task_id``, ``prompt``,
    ``kind``, ``group``) to the program's keyword arguments (default: ``question`` is
    the row's ``prompt``); ``output`` names the prediction's field holding the answer.
    Each result is evogate's ``Grade`` (``score`` and ``correct``), so the gate tests
    0/1 outcomes with McNemar's exact test.

    Example::

        score = evogate.dspy.program_score(grader, inputs=lambda t: {"q": t["prompt"]})
        score(program, [{"task_id": "1406.2661:year", "prompt": "..."}])[0].correct
    """

    def score(program: Any, tasks: List[Dict[str, str]]) -> List[Any]:
        grades = []
        for task in tasks:
            prediction = program(**inputs(task))
            answer = prediction if isinstance(prediction, str) else getattr(prediction, output)
            grades.append(grader.grade(task["task_id"], "" if answer is None else str(answer)))
        return grades

    return score
