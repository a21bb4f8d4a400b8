"""evogate from Python: gate an evolved skill, grade outputs for an optimizer.

The package is a thin layer over the ``evogate`` binary that the same wheel installs;
it needs nothing beyond the standard library.

Example::

    import evogate
    admission = evogate.admit("runs/baseline-scores.csv", "runs/candidate-scores.csv")
    if admission:
        print("admitted", admission.report["verdict"])
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Union

__all__ = [
    "Admission",
    "EvogateError",
    "Grade",
    "Grader",
    "Sequential",
    "admit",
    "binary",
    "dspy_metric",
    "import_log",
]


class EvogateError(Exception):
    """evogate could not do its job (exit 2); the message is the CLI's.

    Example::

        try:
            evogate.admit("missing.csv", "also-missing.csv")
        except evogate.EvogateError as error:
            print(error)  # error: `missing.csv`: cannot read it: ...
    """


def binary() -> str:
    """The path of the ``evogate`` binary: ``$EVOGATE_BIN``, else the one installed
    beside this package (the venv's scripts folder), else the one on ``PATH``.

    Example::

        subprocess.run([evogate.binary(), "--version"])
    """
    given = os.environ.get("EVOGATE_BIN")
    if given:
        return given
    name = "evogate.exe" if sys.platform == "win32" else "evogate"
    scripts = [sysconfig.get_path("scripts"), os.path.dirname(sys.executable)]
    for folder in scripts:
        if folder:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                return candidate
    found = shutil.which(name)
    if found:
        return found
    raise EvogateError(
        "the evogate binary is not found: install the evogate wheel, put evogate on PATH, "
        "or set EVOGATE_BIN"
    )


Arm = Union[str, os.PathLike, Iterable[Mapping[str, Any]]]


def _cell(value: Any) -> str:
    # Booleans are what Python code has at hand for `correct`; the CLI reads 1 and 0.
    if value is True:
        return "1"
    if value is False:
        return "0"
    return "" if value is None else str(value)


def _arm_file(arm: Arm, folder: str, name: str) -> str:
    if isinstance(arm, (str, os.PathLike)):
        return os.fspath(arm)
    rows = [dict(row) for row in arm]
    columns: list = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    path = os.path.join(folder, name)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_cell(row.get(column)) for column in columns])
    return path


class Admission:
    """The result of :func:`admit`: ``verdict`` (the report's: ``"admitted"``,
    ``"refused"`` or ``"inconclusive"``), ``tasks_needed`` (inconclusive only: the tasks
    that would give 80% power for the observed shift, else ``None``), ``report`` (the
    parsed JSON report), and a truth value that is whether the candidate was admitted.

    Example::

        admission = evogate.admit(baseline_rows, candidate_rows)
        print(admission.verdict, bool(admission))
    """

    def __init__(self, admitted: bool, report: dict):
        self.admitted = admitted
        self.report = report
        self.verdict = report.get("verdict")
        self.tasks_needed = report.get("tasks_needed")

    def __bool__(self) -> bool:
        return self.admitted

    def __repr__(self) -> str:
        return f"Admission(verdict={self.verdict!r}, admitted={self.admitted})"


def _run(args: list, ok: tuple = (0, 1)) -> subprocess.CompletedProcess:
    done = subprocess.run([binary(), *args], capture_output=True, text=True)
    if done.returncode not in ok:
        message = done.stderr.strip() or f"evogate exited with status {done.returncode}"
        raise EvogateError(message)
    return done


def admit(
    baseline: Arm,
    candidate: Arm,
    *,
    alpha: float = 0.05,
    test: str = "auto",
    strata: Optional[str] = None,
    margin: Optional[float] = None,
    cluster: Optional[str] = None,
    ledger: Optional[Union[str, os.PathLike]] = None,
    tasks: Optional[Union[str, os.PathLike]] = None,
    manifest: Optional[Union[str, os.PathLike]] = None,
    report_dir: Optional[Union[str, os.PathLike]] = None,
) -> Admission:
    """Runs ``evogate admit`` on two arms and returns the :class:`Admission`.

    Each arm is a scores CSV path or an iterable of row dicts (``task_id``, ``score``
    and optionally ``correct``, ``group``, ``kind``; booleans are written as 1 and 0).
    Input errors raise :class:`EvogateError` with the CLI's message.

    Example::

        base = [{"task_id": f"t{i}", "score": i < 10} for i in range(30)]
        cand = [{"task_id": f"t{i}", "score": i < 25} for i in range(30)]
        assert evogate.admit(base, cand).verdict == "admitted"
    """
    with tempfile.TemporaryDirectory(prefix="evogate-") as folder:
        args = [
            "admit",
            "--baseline",
            _arm_file(baseline, folder, "baseline.csv"),
            "--candidate",
            _arm_file(candidate, folder, "candidate.csv"),
            "--format",
            "json",
            "--alpha",
            repr(float(alpha)),
            "--test",
            test,
        ]
        options = {
            "--strata": strata,
            "--margin": None if margin is None else repr(float(margin)),
            "--cluster": cluster,
            "--ledger": ledger,
            "--tasks": tasks,
            "--manifest": manifest,
            "--report-dir": report_dir,
        }
        for flag, value in options.items():
            if value is not None:
                args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
        done = _run(args)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise EvogateError(f"evogate admit printed no JSON report: {error}") from None
    return Admission(done.returncode == 0, report)


class Grade(dict):
    """One output's grade: a dict with attribute access to ``score``, ``correct``,
    ``correctness``, ``composite`` and ``feedback``.

    Example::

        grade = grader.grade("1406.2661:year", "2014")
        grade.score == grade["score"]
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class Grader:
    """Grades outputs one at a time through one long-lived ``evogate grade --jsonl``.

    Example::

        with evogate.Grader("data/arxiv/papers.csv") as grader:
            grade = grader.grade("1406.2661:first_author", "Ian J. Goodfellow")
            assert grade.correct and grade.score == 1.0
    """

    def __init__(self, truth: Union[str, os.PathLike], verifier: str = "arxiv"):
        self._process = subprocess.Popen(
            [binary(), "grade", "--jsonl", "--truth", os.fspath(truth), "--verifier", verifier],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )

    def grade(self, task_id: str, output: str) -> Grade:
        """Grades ``output`` for ``task_id``; raises :class:`EvogateError` for a task
        the truth does not hold or when the service has stopped.

        Example::

            grader.grade("1406.2661:year", "It came out in 2014.").correct  # True
        """
        process = self._process
        if process is None or process.poll() is not None:
            raise EvogateError(self._stopped())
        request = json.dumps({"task_id": task_id, "output": output})
        try:
            process.stdin.write(request + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            raise EvogateError(self._stopped())
        answer = json.loads(line)
        if "error" in answer:
            raise EvogateError(answer["error"])
        return Grade(answer)

    def _stopped(self) -> str:
        process = self._process
        if process is None:
            return "the grader is closed"
        process.wait()
        message = process.stderr.read().strip()
        return message or f"evogate grade stopped with status {process.returncode}"

    def close(self) -> None:
        """Ends the service (closing its stdin) and waits for it.

        Example::

            grader = evogate.Grader("data/arxiv/papers.csv")
            grader.close()
        """
        process = self._process
        if process is None:
            return
        self._process = None
        try:
            process.stdin.close()
        except OSError:
            pass
        process.wait()
        process.stdout.close()
        process.stderr.close()

    def __enter__(self) -> "Grader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class _Feedback:
    """``score`` and ``feedback`` for GEPA, when dspy is not importable."""

    def __init__(self, score: float, feedback: str):
        self.score = score
        self.feedback = feedback

    def __repr__(self) -> str:
        return f"Prediction(score={self.score!r}, feedback={self.feedback!r})"


def dspy_metric(
    grader: Grader, task_id: Union[str, Callable[[Any], str]] = "task_id", output: str = "answer"
) -> Callable[..., Any]:
    """A DSPy metric over a :class:`Grader`.

    ``task_id`` names the example's field holding the task id, or is a function of
    the example; ``output`` names the prediction's field holding the answer. The metric
    returns the score, and, when GEPA asks for feedback (``pred_name`` or
    ``pred_trace`` given), an object with ``score`` and ``feedback``
    (``dspy.Prediction`` when dspy is importable).

    Example::

        metric = evogate.dspy_metric(grader, task_id="task_id")
        optimizer = dspy.GEPA(metric=metric, ...)
    """

    def _get(holder: Any, name: str) -> Any:
        if isinstance(holder, Mapping):
            return holder[name]
        return getattr(holder, name)

    def metric(example, prediction, trace=None, pred_name=None, pred_trace=None):
        task = task_id(example) if callable(task_id) else _get(example, task_id)
        answer = prediction if isinstance(prediction, str) else _get(prediction, output)
        grade = grader.grade(str(task), "" if answer is None else str(answer))
        if pred_name is None and pred_trace is None:
            return grade.score
        try:
            import dspy  # noqa: PLC0415 - imported only when present

            return dspy.Prediction(score=grade.score, feedback=grade.feedback)
        except ImportError:
            return _Feedback(grade.score, grade.feedback)

    return metric


def import_log(
    format: str,
    paths: Union[str, os.PathLike, Iterable[Union[str, os.PathLike]]],
    out: Union[str, os.PathLike],
    **selectors: Any,
) -> str:
    """Runs ``evogate import FORMAT --from P ... --out OUT`` and returns what it printed.

    Each keyword is passed as ``--name-with-dashes VALUE``; ``True`` passes the bare
    flag, ``False`` and ``None`` leave it out.

    Example::

        evogate.import_log("lm-eval", ["samples_arc.jsonl"], "scores.csv", metric="acc")
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = ["import", format]
    for path in paths:
        args += ["--from", os.fspath(path)]
    args += ["--out", os.fspath(out)]
    for name, value in selectors.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is not None and value is not False:
            args += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    done = _run(args)
    if done.returncode != 0:
        raise EvogateError(done.stderr.strip() or "evogate import exited with status 1")
    return done.stdout


# Sequential admission (issue 30) lives in its own module.
from .sequential import Sequential  # noqa: E402
