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

import bisect
import csv
import io
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from importlib import metadata
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Union

__all__ = [
    "EXAMPLE_TRUTH",
    "Admission",
    "EvogateError",
    "Grade",
    "Grader",
    "Imported",
    "Sequential",
    "__version__",
    "admit",
    "binary",
    "dspy_metric",
    "import_log",
]

try:
    __version__: str = metadata.version("evogate")
    """The installed evogate's version, the same as ``evogate --version`` prints."""
except metadata.PackageNotFoundError:  # imported from a source tree, not installed
    __version__ = "0+unknown"

EXAMPLE_TRUTH: str = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "papers.csv")
"""The path of a small ground truth shipped in the package (the repository's
``data/arxiv/papers.csv``: 136 arXiv papers, four questions each, task ids such as
``1406.2661:year``), for trying :class:`Grader` without the repository."""


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


class _Arm:
    """A scores file for one arm: the caller's path, or a CSV written from row dicts
    (``starts[i]`` is the CSV line on which item ``i`` begins, for naming rows)."""

    def __init__(self, name: str, arm: Arm, folder: str):
        self.name = name
        self.starts: Optional[List[int]] = None
        if isinstance(arm, (str, os.PathLike)):
            self.path = os.fspath(arm)
            return
        rows = [dict(row) for row in arm]
        columns: list = []
        for row in rows:
            for key in row:
                if key not in columns:
                    columns.append(key)
        self.path = os.path.join(folder, f"{name}.csv")
        self.starts = []
        line = 1  # the CSV line the next record starts on
        with open(self.path, "w", newline="", encoding="utf-8") as handle:
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            for row in [None, *rows]:
                if row is None:
                    writer.writerow(columns)
                else:
                    self.starts.append(line)
                    writer.writerow([_cell(row.get(column)) for column in columns])
                line += buffer.getvalue().count("\n")
                handle.write(buffer.getvalue())
                buffer.seek(0)
                buffer.truncate()

    def where(self, row: Optional[str]) -> str:
        """How the caller knows the place the CLI named by file and row."""
        if self.starts is None or row is None:
            return f"`{self.name}`"
        line = int(row)
        index = bisect.bisect_right(self.starts, line) - 1
        if index < 0:
            return f"`{self.name}` (its columns)"
        return f"`{self.name}[{index}]`"


def _python_message(message: str, arms: Iterable[_Arm], flags: Mapping[str, str]) -> str:
    """The CLI's error in the caller's terms: a temporary CSV and its row become the
    Python argument and the item's index, a command-line flag the keyword argument;
    clap's usage lines are left out."""
    written = [arm for arm in arms if arm.starts is not None]
    for arm in written:
        pattern = re.compile(r"`?" + re.escape(arm.path) + r"`?(?: row (\d+))?")
        message = pattern.sub(lambda found, arm=arm: arm.where(found.group(1)), message)
    for arm in written:
        message = message.replace(os.path.dirname(arm.path), "a temporary folder")
    flag = re.compile(r"--([a-z][a-z-]*)(?: <[A-Z_]+>)?")
    message = flag.sub(lambda found: flags.get(found.group(1), found.group(0)), message)
    lines = [
        line
        for line in message.splitlines()
        if not line.startswith(("Usage:", "For more information"))
    ]
    return "\n".join(lines).strip()


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


def _run(
    args: list,
    arms: Iterable[_Arm] = (),
    flags: Optional[Mapping[str, str]] = None,
    ok: tuple = (0, 1),
) -> subprocess.CompletedProcess:
    done = subprocess.run([binary(), *args], capture_output=True, text=True)
    if done.returncode not in ok:
        message = done.stderr.strip() or f"evogate exited with status {done.returncode}"
        raise EvogateError(_python_message(message, arms, flags or {}))
    return done


def _option(flag: str, value: Any) -> str:
    # One word, `--flag=VALUE`, so a value starting with `-` is never read as a flag.
    return f"{flag}={os.fspath(value) if isinstance(value, os.PathLike) else value}"


# admit's keyword arguments by the CLI flag each becomes.
_ADMIT_FLAGS = {
    "baseline": "baseline",
    "candidate": "candidate",
    "alpha": "alpha",
    "test": "test",
    "strata": "strata",
    "margin": "margin",
    "equivalence": "equivalence",
    "cluster": "cluster",
    "ledger": "ledger",
    "tasks": "tasks",
    "manifest": "manifest",
    "report-dir": "report_dir",
}


def admit(
    baseline: Arm,
    candidate: Arm,
    *,
    alpha: float = 0.05,
    test: str = "auto",
    strata: Optional[str] = None,
    margin: Optional[float] = None,
    equivalence: Optional[float] = None,
    cluster: Optional[str] = None,
    ledger: Optional[Union[str, os.PathLike]] = None,
    tasks: Optional[Union[str, os.PathLike]] = None,
    manifest: Optional[Union[str, os.PathLike]] = None,
    report_dir: Optional[Union[str, os.PathLike]] = None,
) -> Admission:
    """Runs ``evogate admit`` on two arms and returns the :class:`Admission`.

    Each arm is a scores CSV path or an iterable of row dicts (``task_id``, ``score``
    and optionally ``correct``, ``group``, ``kind``; booleans are written as 1 and 0).
    Input errors raise :class:`EvogateError` with the CLI's message in Python's terms:
    a bad row dict is named by the argument and its index (``candidate[3]``), an option
    by its keyword (``report_dir``). ``margin`` asks non-inferiority at that margin and
    ``equivalence`` equivalence within it, instead of superiority; the report's
    ``question`` names the question and ``verdict`` answers it.

    Example::

        base = [{"task_id": f"t{i}", "score": i < 10} for i in range(30)]
        cand = [{"task_id": f"t{i}", "score": i < 25} for i in range(30)]
        assert evogate.admit(base, cand).verdict == "admitted"
    """
    with tempfile.TemporaryDirectory(prefix="evogate-") as folder:
        arms = [_Arm("baseline", baseline, folder), _Arm("candidate", candidate, folder)]
        args = [
            "admit",
            _option("--baseline", arms[0].path),
            _option("--candidate", arms[1].path),
            "--format=json",
            _option("--alpha", repr(float(alpha))),
            _option("--test", test),
        ]
        options = {
            "--strata": strata,
            "--margin": None if margin is None else repr(float(margin)),
            "--equivalence": None if equivalence is None else repr(float(equivalence)),
            "--cluster": cluster,
            "--ledger": ledger,
            "--tasks": tasks,
            "--manifest": manifest,
            "--report-dir": report_dir,
        }
        for flag, value in options.items():
            if value is not None:
                args.append(_option(flag, value))
        done = _run(args, arms, _ADMIT_FLAGS)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError as error:
        raise EvogateError(f"evogate admit printed no JSON report: {error}") from None
    return Admission(done.returncode == 0, report)


class Grade(dict):
    """One output's grade: a dict with attribute access to ``score``, ``correct``,
    ``correctness``, ``composite``, ``outcome`` and ``feedback``. ``outcome`` says what
    the answer amounts to: ``right``, ``hedged``, ``partial``, ``wrong``, ``invalid``
    (nothing the verifier can read as an answer) or ``abstained`` (a refusal or "I don't
    know"), as docs/grading.md defines them.

    Example::

        grade = grader.grade("1406.2661:year", "2014")
        grade.score == grade["score"]
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _write_requests(requests: "queue.Queue[Optional[str]]", stdin: Any) -> None:
    """A Grader's writer thread: writes each request to the service until ``None`` (the
    Grader closed) or a failed write (the service gone: the reader's empty line then
    tells the caller). It holds the queue and the pipe, not the Grader, so an unclosed
    Grader is still collected."""
    while True:
        request = requests.get()
        if request is None:
            return
        try:
            stdin.write(request)
            stdin.flush()
        except (OSError, ValueError):
            return


class Grader:
    """Grades outputs one at a time through one long-lived ``evogate grade --jsonl``.

    One Grader may be shared by threads (``dspy.Evaluate(num_threads=...)``, GEPA):
    each :meth:`grade` holds a lock from writing its request to reading its answer, so
    every caller gets the answer to its own request, and calls run one at a time. For
    grading in parallel, give each thread its own Grader.

    ``timeout`` bounds one call, in seconds, from writing its request to reading its
    answer (``None``, the default, waits as long as it takes). A grader that does not
    take the request and answer it in time (a request of megabytes fills the pipe to a
    stalled grader) is stopped, the call raises :class:`EvogateError`, and the Grader is
    closed: a late answer can never reach a later caller, and a thread waiting for its
    turn gets :class:`EvogateError` too rather than waiting on the stalled grader.

    Example::

        with evogate.Grader(evogate.EXAMPLE_TRUTH, timeout=30) as grader:
            grade = grader.grade("1406.2661:first_author", "Ian J. Goodfellow")
            assert grade.correct and grade.score == 1.0
    """

    def __init__(
        self,
        truth: Union[str, os.PathLike],
        verifier: str = "arxiv",
        *,
        timeout: Optional[float] = None,
    ):
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        self._timeout = timeout
        self._lock = threading.Lock()
        self._closed = False
        self._answers: "queue.Queue[str]" = queue.Queue()
        self._process: Optional[subprocess.Popen] = subprocess.Popen(
            [
                binary(),
                "grade",
                "--jsonl",
                _option("--truth", truth),
                _option("--verifier", verifier),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._requests: "queue.Queue[Optional[str]]" = queue.Queue()
        if timeout is not None:
            # A reader thread owns stdout and a writer thread stdin, so that neither a
            # request that fills the pipe nor the wait for its answer can outlast the
            # timeout; the reader ends with an empty line when the service's stdout
            # closes. Without a timeout the caller writes and reads itself (a thread
            # hand-off costs about 0.1 ms).
            reader = threading.Thread(
                target=self._read, args=(self._process.stdout,), daemon=True
            )
            reader.start()
            writer = threading.Thread(
                target=_write_requests,
                args=(self._requests, self._process.stdin),
                daemon=True,
            )
            writer.start()

    def _read(self, stdout: Any) -> None:
        try:
            for line in stdout:
                self._answers.put(line)
        except (OSError, ValueError):
            pass
        self._answers.put("")

    def grade(self, task_id: str, output: str) -> Grade:
        """Grades ``output`` for ``task_id``; raises :class:`EvogateError` for a task
        the truth does not hold, when the service has stopped, or when no answer came
        within the Grader's ``timeout``. Safe to call from several threads at once.

        Example::

            grader.grade("1406.2661:year", "It came out in 2014.").correct  # True
        """
        request = json.dumps({"task_id": task_id, "output": output})
        with self._lock:
            process = self._process
            if self._closed or process is None or process.poll() is not None:
                raise EvogateError(self._stopped())
            try:
                if self._timeout is None:
                    process.stdin.write(request + "\n")
                    process.stdin.flush()
                    line = process.stdout.readline()
                else:
                    # The request is written by the writer thread, so one deadline
                    # covers writing it and reading its answer.
                    self._requests.put(request + "\n")
                    line = self._answers.get(timeout=self._timeout)
            except (BrokenPipeError, OSError):
                line = ""
            except queue.Empty:
                process.kill()
                self._close()
                raise EvogateError(
                    f"evogate grade gave no answer within {self._timeout} s for task "
                    f"{task_id!r}; the grader is stopped and closed"
                ) from None
            except BaseException:
                # Interrupted between the request and its answer (KeyboardInterrupt):
                # the answer would reach the next caller, so the service goes.
                process.kill()
                self._close()
                raise
            if not line:
                raise EvogateError(self._stopped())
        answer = json.loads(line)
        if "error" in answer:
            raise EvogateError(answer["error"])
        return Grade(answer)

    def _stopped(self) -> str:
        process = self._process
        if self._closed or process is None:
            return "the grader is closed"
        process.wait()
        message = _python_message(process.stderr.read().strip(), (), _GRADER_FLAGS)
        return message or f"evogate grade stopped with status {process.returncode}"

    def close(self) -> None:
        """Ends the service (closing its stdin) and waits for it.

        Example::

            grader = evogate.Grader(evogate.EXAMPLE_TRUTH)
            grader.close()
        """
        with self._lock:
            self._close()

    def _close(self) -> None:
        process = self._process
        if self._closed or process is None:
            return
        # The process object stays, for its pid and return code; `_closed` ends the use.
        self._closed = True
        # Ends the writer thread. One still blocked on a full pipe (a stalled service,
        # killed before this) fails its write and lets go of stdin.
        self._requests.put(None)
        try:
            process.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            process.wait(timeout=self._timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self._timeout is None:
            process.stdout.close()
        process.stderr.close()

    def __enter__(self) -> "Grader":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._close()
        except Exception:
            pass


# The Grader's keyword arguments by the CLI flag each becomes.
_GRADER_FLAGS = {"truth": "truth", "verifier": "verifier"}


class _Feedback:
    """``score``, ``feedback`` and ``outcome`` for GEPA, when dspy is not importable."""

    def __init__(self, score: float, feedback: str, outcome: Optional[str]):
        self.score = score
        self.feedback = feedback
        self.outcome = outcome

    def __repr__(self) -> str:
        return (
            f"Prediction(score={self.score!r}, feedback={self.feedback!r}, "
            f"outcome={self.outcome!r})"
        )


def _feedback_with_outcome(grade: Grade) -> str:
    """The grade's feedback with its outcome after it, ``expected 24, response said 36
    (outcome: wrong)``, so the reflecting model reads an answer that gave none
    (``invalid``, ``abstained``) apart from a wrong one."""
    outcome = grade.get("outcome")
    return grade.feedback if outcome is None else f"{grade.feedback} (outcome: {outcome})"


def dspy_metric(
    grader: Grader, task_id: Union[str, Callable[[Any], str]] = "task_id", output: str = "answer"
) -> Callable[..., Any]:
    """A DSPy metric over a :class:`Grader`.

    ``task_id`` names the example's field holding the task id, or is a function of
    the example; ``output`` names the prediction's field holding the answer. The metric
    returns the score, and, when GEPA asks for feedback (``pred_name`` or
    ``pred_trace`` given), an object with ``score``, ``feedback`` and ``outcome``
    (``dspy.Prediction`` when dspy is importable), the feedback ending with the outcome
    (``... (outcome: abstained)``) so that an answer that gave none is read apart from
    a wrong one.

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

            return dspy.Prediction(
                score=grade.score,
                feedback=_feedback_with_outcome(grade),
                outcome=grade.get("outcome"),
            )
        except ImportError:
            return _Feedback(grade.score, _feedback_with_outcome(grade), grade.get("outcome"))

    return metric


class Imported(NamedTuple):
    """What :func:`import_log` wrote: the scores CSV's ``path`` and its ``rows`` (one
    per task, the header not counted), as its record ``*.import.json`` states them."""

    path: str
    rows: int


# import_log's arguments by the CLI flag each becomes.
_IMPORT_FLAGS = {"from": "paths", "out": "out"}


def _as_list_advice(message: str) -> str:
    """The CLI's advice to repeat a flag (``repeat --filter ... (--filter a --filter
    b)``, its flags already turned into keywords) said as Python says it: a list."""

    def listed(found: "re.Match[str]") -> str:
        name, why, flags = found.group(1), found.group(2), found.group(3)
        values = [value.strip() for value in flags.split(f"{name} ") if value.strip()]
        return f"give {name} a list{why} ({name}={values!r})"

    repeat = r"repeat (\w+)( to give every task its own) \(((?:\1 \S+ ?)+)\)"
    return re.sub(repeat, listed, message)


def import_log(
    format: str,
    paths: Union[str, os.PathLike, Iterable[Union[str, os.PathLike]]],
    out: Union[str, os.PathLike],
    **selectors: Any,
) -> Imported:
    """Runs ``evogate import FORMAT --from P ... --out OUT`` and returns the
    :class:`Imported` path and row count.

    Each keyword is passed as ``--name-with-dashes=VALUE``; a list or tuple passes the
    flag once per item, as the CLI takes a repeated ``--filter``, ``--metric TASK=NAME``
    or ``--scorer TASK=NAME``; ``True`` passes the bare flag, ``False`` and ``None``
    leave it out.

    Example::

        imported = evogate.import_log("lm-eval", ["samples_arc.jsonl"], "scores.csv", metric="acc")
        imported.path, imported.rows  # ('scores.csv', 1172)
        evogate.import_log("lm-eval", "out/model", "suite.csv",
                           filter=["strict-match", "none"], metric=["gsm8k=exact_match", "acc"])
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = ["import", format]
    for path in paths:
        args.append(_option("--from", path))
    args.append(_option("--out", out))
    flags = dict(_IMPORT_FLAGS)
    for name, value in selectors.items():
        flag = "--" + name.replace("_", "-")
        flags[flag[2:]] = name
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args.extend(_option(flag, item) for item in value)
        elif value is not None and value is not False:
            args.append(_option(flag, value))
    try:
        _run(args, (), flags, ok=(0,))
    except EvogateError as error:
        raise EvogateError(_as_list_advice(str(error))) from None
    scores = os.fspath(out)
    record = os.path.splitext(scores)[0] + ".import.json"
    with open(record, encoding="utf-8") as handle:
        rows = json.load(handle)["rows"]
    return Imported(scores, int(rows))


# Sequential admission lives in its own module.
from .sequential import Sequential  # noqa: E402
