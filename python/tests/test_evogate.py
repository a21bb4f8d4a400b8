"""Tests of the evogate Python package against the installed binary and the
repository's shipped data (data/arxiv, data/demo, reports/demo)."""

import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import evogate

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "data" / "arxiv" / "papers.csv"
DEMO = ROOT / "reports" / "demo"


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_admit_on_the_demo_files_gives_the_demo_verdict_and_report():
    admission = evogate.admit(
        DEMO / "baseline-scores.csv",
        DEMO / "candidate-scores.csv",
        tasks=DEMO / "split" / "holdout.csv",
        manifest=DEMO / "split" / "manifest.json",
    )
    expected = json.loads((DEMO / "admission.json").read_text(encoding="utf-8"))
    assert admission.verdict == expected["verdict"] == "admitted"
    assert bool(admission) is True
    assert admission.report["schema"] == "evogate/admission/v1"


def test_admit_refuses_the_regressing_candidate_and_is_falsy():
    admission = evogate.admit(
        DEMO / "baseline-scores.csv",
        DEMO / "regressing-scores.csv",
        tasks=DEMO / "split" / "holdout.csv",
        manifest=DEMO / "split" / "manifest.json",
    )
    assert admission.verdict == "refused"
    assert not admission


def test_admit_accepts_row_dicts_with_booleans_and_counts_the_discordant_pairs():
    # 20 tasks the candidate alone gets right, none the other way: McNemar's exact
    # one-sided p is 0.5**20, far below 0.05.
    base = [{"task_id": f"t{i}", "correct": i < 10, "score": i < 10} for i in range(40)]
    cand = [{"task_id": f"t{i}", "correct": i < 30, "score": i < 30} for i in range(40)]
    admission = evogate.admit(base, cand)
    assert admission.verdict == "admitted", admission.report
    text = json.dumps(admission.report)
    assert "20" in text
    # Swapped, the candidate is worse: refused.
    assert not evogate.admit(cand, base)


def test_equivalence_and_margin_ask_their_question_and_truthiness_is_the_claim_shown():
    # 400 tasks, 20 won, 20 lost: the candidate changes nothing.
    base = [{"task_id": f"t{i}", "correct": i < 20 or i >= 40, "score": 0} for i in range(400)]
    for row in base:
        row["score"] = int(row["correct"])
    cand = [{"task_id": f"t{i}", "correct": 20 <= i, "score": int(20 <= i)} for i in range(400)]
    assert not evogate.admit(base, cand)
    same = evogate.admit(base, cand, equivalence=0.1)
    assert same, same.report
    assert same.report["question"]["name"] == "equivalence"
    assert same.report["margin_tests"]["p_equivalence"] < 0.05
    assert evogate.admit(base, cand, margin=0.1).report["question"]["name"] == "non-inferiority"


def test_one_win_and_five_ties_is_inconclusive_falsy_and_names_the_tasks_needed():
    # Every disagreement favours the candidate, so exact power at n is P(D >= 5) for
    # D ~ Binomial(n, 1/6): scipy binom.sf(4, n, 1/6) first reaches 0.8 at n = 39.
    base = [{"task_id": f"t{i}", "correct": False, "score": 0} for i in range(6)]
    cand = [{"task_id": f"t{i}", "correct": i == 0, "score": int(i == 0)} for i in range(6)]
    admission = evogate.admit(base, cand)
    assert admission.verdict == "inconclusive"
    assert admission.tasks_needed == 39
    assert not admission
    # Swapped, the candidate leans worse: refused, nothing to settle.
    worse = evogate.admit(cand, base)
    assert worse.verdict == "refused"
    assert worse.tasks_needed is None


def write_manifest(path, task_ids):
    """A manifest as `evogate split` writes one, recording `task_ids` as the holdout."""
    def split(name, ids):
        return {"name": name, "file": {"path": f"{name}.csv", "sha256": "0" * 64},
                "tasks": len(ids), "groups": ids, "task_ids": ids}
    manifest = {
        "schema": "evogate/manifest/v1", "verifier": "arxiv",
        "truth": {"path": "t.csv", "sha256": "0" * 64}, "seed": 13, "ratios": [50, 25, 25],
        "cases": "all", "algorithm": "evogate",
        "splits": [split("train", []), split("val", []), split("holdout", task_ids)],
        "holdout_power": {"alpha": 0.05, "n": len(task_ids), "min_discordant": 5,
                          "min_detectable_shift": 0.5},
    }
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def test_admit_writes_the_report_dir_and_appends_to_the_ledger_once_per_new_candidate(tmp_path):
    ledger = tmp_path / "ledger.jsonl"
    manifest = write_manifest(tmp_path / "manifest.json", [f"t{i}" for i in range(40)])
    base = [{"task_id": f"t{i}", "correct": i < 10, "score": i < 10} for i in range(40)]
    cand = [{"task_id": f"t{i}", "correct": i < 30, "score": i < 30} for i in range(40)]
    evogate.admit(base, cand, ledger=ledger, manifest=manifest, report_dir=tmp_path / "report")
    # The same scores again repeat the first attempt and spend nothing.
    evogate.admit(base, cand, ledger=ledger, manifest=manifest)
    assert (tmp_path / "report" / "admission.md").is_file()
    assert len(ledger.read_text(encoding="utf-8").splitlines()) == 1
    other = [{"task_id": f"t{i}", "correct": i < 35, "score": i < 35} for i in range(40)]
    evogate.admit(base, other, ledger=ledger, manifest=manifest)
    assert len(ledger.read_text(encoding="utf-8").splitlines()) == 2
    # Without a manifest the ledger is refused (it would not know the holdout).
    with pytest.raises(evogate.EvogateError) as raised:
        evogate.admit(base, other, ledger=ledger)
    # Named in Python's terms: the keyword, not the CLI flag.
    assert "manifest" in str(raised.value) and "--manifest" not in str(raised.value)


def test_admit_raises_evogate_error_with_the_cli_message_on_bad_input(tmp_path):
    with pytest.raises(evogate.EvogateError) as raised:
        evogate.admit(tmp_path / "missing.csv", DEMO / "candidate-scores.csv")
    assert "missing.csv" in str(raised.value)


def test_grader_grades_right_and_wrong_answers_and_names_the_expected_value():
    with evogate.Grader(PAPERS) as grader:
        right = grader.grade("1406.2661:first_author", "Ian J. Goodfellow")
        wrong = grader.grade("1406.2661:year", "It appeared in 2019.")
        assert right.correct is True and right.score == 1.0 and right["composite"] == 1.0
        assert wrong.correct is False and wrong.score == 0.0
        assert "2014" in wrong.feedback
        with pytest.raises(evogate.EvogateError, match="9999.9999:year"):
            grader.grade("9999.9999:year", "2014")
        # The service goes on after a bad request.
        assert grader.grade("1406.2661:year", "2014").correct


def test_grader_agrees_with_score_on_every_demo_output():
    expected = {row["task_id"]: float(row["score"]) for row in rows(DEMO / "candidate-scores.csv")}
    lines = (ROOT / "data" / "demo" / "candidate.jsonl").read_text(encoding="utf-8").splitlines()
    with evogate.Grader(PAPERS) as grader:
        compared = 0
        for line in lines:
            request = json.loads(line)
            if request["task_id"] in expected:
                grade = grader.grade(request["task_id"], request["output"])
                assert abs(grade.score - expected[request["task_id"]]) < 1e-4
                compared += 1
    assert compared == len(expected)


def test_a_closed_grader_raises():
    grader = evogate.Grader(PAPERS)
    grader.close()
    grader.close()
    with pytest.raises(evogate.EvogateError, match="closed"):
        grader.grade("1406.2661:year", "2014")


def test_dspy_metric_returns_the_score_and_feedback_when_gepa_asks():
    class Example:
        task_id = "1406.2661:year"

    class Prediction:
        answer = "2013"

    with evogate.Grader(PAPERS) as grader:
        metric = evogate.dspy_metric(grader, task_id="task_id")
        assert metric(Example(), Prediction()) == 0.0
        assert metric({"task_id": "1406.2661:year"}, {"answer": "2014"}) == 1.0
        feedback = metric(Example(), Prediction(), None, "predict", [])
        assert feedback.score == 0.0 and "2014" in feedback.feedback
        by_function = evogate.dspy_metric(grader, task_id=lambda example: example["id"])
        assert by_function({"id": "1406.2661:year"}, {"answer": "2014"}) == 1.0


def test_python_dash_m_evogate_runs_the_cli():
    done = subprocess.run(
        [sys.executable, "-m", "evogate", "--version"], capture_output=True, text=True
    )
    assert done.returncode == 0
    assert done.stdout.startswith("evogate ")


def test_binary_honours_evogate_bin(monkeypatch, tmp_path):
    monkeypatch.setenv("EVOGATE_BIN", str(tmp_path / "nowhere"))
    assert evogate.binary() == str(tmp_path / "nowhere")


def _has_import():
    return subprocess.run([evogate.binary(), "import", "--help"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _has_import(), reason="this evogate binary has no `import` subcommand yet")
def test_import_log_reads_an_lm_eval_log_with_selectors_as_flags(tmp_path):
    logs = sorted((ROOT / "tests" / "data" / "formats" / "lm-eval").glob("samples_*.jsonl"))
    assert logs, "no lm-eval fixtures"
    docs = {
        json.loads(line)["doc_id"]
        for line in logs[0].read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    out = tmp_path / "scores.csv"
    done = evogate.import_log("lm-eval", logs[0], out, filter="strict-match", metric="exact_match")
    imported = rows(out)
    assert done == evogate.Imported(str(out), len(imported)) and done.rows == len(docs)
    assert sorted(row["task_id"] for row in imported) == sorted(f"gsm8k:{doc}" for doc in docs)
    with pytest.raises(evogate.EvogateError):
        evogate.import_log("lm-eval", tmp_path / "missing.jsonl", tmp_path / "x.csv")


def test_version_is_the_binarys():
    done = subprocess.run([evogate.binary(), "--version"], capture_output=True, text=True)
    assert done.stdout.split() == ["evogate", evogate.__version__]


def test_the_example_truth_ships_in_the_package_and_is_the_repositorys():
    shipped = Path(evogate.EXAMPLE_TRUTH)
    assert shipped.parent.parent == Path(evogate.__file__).resolve().parent
    assert shipped.read_bytes() == PAPERS.read_bytes()
    with evogate.Grader(evogate.EXAMPLE_TRUTH) as grader:
        assert grader.grade("1406.2661:year", "2014").correct


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_one_grader_shared_by_eight_threads_answers_every_caller_its_own_task(timeout):
    import threading
    import time

    tasks = [(f"{row['arxiv_id']}:year", row["year"]) for row in rows(PAPERS)]
    wrong, errors = [], []
    with evogate.Grader(PAPERS, timeout=timeout) as grader:

        def work(k):
            try:
                for i in range(400):
                    task, year = tasks[(k * 37 + i) % len(tasks)]
                    answer = grader.grade(task, year if i % 2 else "1999")
                    if answer["task_id"] != task or answer.correct != bool(i % 2):
                        wrong.append((task, answer["task_id"]))
            except Exception as error:  # noqa: BLE001 - reported below
                errors.append(error)

        threads = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(8)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        hung = sum(thread.is_alive() for thread in threads)
        if hung:
            # Unblock the hung callers so the test ends: kill the service they wait on.
            grader._process.kill()
    assert (len(wrong), hung, errors) == (0, 0, [])


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP is POSIX")
def test_a_grader_that_stops_answering_times_out_and_closes():
    import signal
    import time

    grader = evogate.Grader(PAPERS, timeout=1.0)
    assert grader.grade("1406.2661:year", "2014").correct
    os.kill(grader._process.pid, signal.SIGSTOP)
    started = time.monotonic()
    with pytest.raises(evogate.EvogateError, match="no answer within 1.0 s"):
        grader.grade("1406.2661:year", "2014")
    assert time.monotonic() - started < 10
    with pytest.raises(evogate.EvogateError, match="closed"):
        grader.grade("1406.2661:year", "2014")
    with pytest.raises(ValueError):
        evogate.Grader(PAPERS, timeout=0)


def test_a_bad_row_is_named_by_the_python_argument_and_index_never_a_temporary_path():
    base = [{"task_id": f"t{i}", "score": 0.5, "feedback": "line one\nline two"} for i in range(6)]
    cand = [dict(row) for row in base]
    cand[3]["score"] = float("nan")
    with pytest.raises(evogate.EvogateError) as raised:
        evogate.admit(base, cand)
    message = str(raised.value)
    # Every row spans two CSV lines (the feedback holds a newline): index 3 is line 8.
    assert message.startswith("error: `candidate[3]`: task `t3`: score `nan`"), message
    assert "evogate-" not in message and tempfile.gettempdir() not in message, message
    with pytest.raises(evogate.EvogateError) as raised:
        evogate.admit(base, base, test="nope")
    assert "for 'test'" in str(raised.value) and "--test" not in str(raised.value)
    assert "Usage:" not in str(raised.value)


def test_a_path_starting_with_a_dash_is_read_like_any_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    header = "task_id,correct,score\n"
    Path("-b.csv").write_text(
        header + "".join(f"t{i},{int(i < 10)},{int(i < 10)}\n" for i in range(40)), encoding="utf-8"
    )
    Path("-c.csv").write_text(
        header + "".join(f"t{i},{int(i < 30)},{int(i < 30)}\n" for i in range(40)), encoding="utf-8"
    )
    admission = evogate.admit("-b.csv", "-c.csv", report_dir="-report")
    assert admission.verdict == "admitted"
    assert Path("-report", "admission.json").is_file()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGSTOP is POSIX")
def test_a_stalled_grader_times_out_on_a_request_larger_than_the_pipe_and_frees_other_threads():
    import signal
    import threading
    import time

    grader = evogate.Grader(PAPERS, timeout=1.0)
    assert grader.grade("1406.2661:year", "2014").correct
    os.kill(grader._process.pid, signal.SIGSTOP)
    # 4 MB: far past the pipe's buffer (64 KiB on Linux), so writing it blocks.
    outcomes = {}

    def call(name, output):
        started = time.monotonic()
        try:
            grader.grade("1406.2661:year", output)
            outcomes[name] = ("answered", time.monotonic() - started)
        except evogate.EvogateError as error:
            outcomes[name] = (str(error), time.monotonic() - started)

    large = threading.Thread(target=call, args=("large", "It came out in 2014. " * 200_000), daemon=True)
    large.start()
    time.sleep(0.2)
    small = threading.Thread(target=call, args=("small", "2014"), daemon=True)
    small.start()
    large.join(15)
    small.join(15)
    hung = [thread.is_alive() for thread in (large, small)]
    if any(hung):
        # Unblock the hung callers so the test ends: kill the service they wait on.
        grader._process.kill()
        os.kill(grader._process.pid, signal.SIGCONT)
    assert hung == [False, False], outcomes
    assert "no answer within 1.0 s" in outcomes["large"][0] and outcomes["large"][1] < 5, outcomes
    assert "closed" in outcomes["small"][0] and outcomes["small"][1] < 5, outcomes


def _two_filter_suite(folder):
    """An lm-eval output folder whose tasks name their filters differently: the real
    gsm8k samples (strict-match, exact_match) and a copy as task `hellaswag` whose lines
    say filter `none` and metric `acc`."""
    source = ROOT / "tests" / "data" / "formats" / "lm-eval" / "samples_gsm8k_2025-09-09T13-42-42.857006.jsonl"
    folder.mkdir()
    (folder / source.name).write_bytes(source.read_bytes())
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        sample = json.loads(line)
        sample.update(filter="none", metrics=["acc"], acc=sample.pop("exact_match"))
        lines.append(json.dumps(sample))
    (folder / source.name.replace("gsm8k", "hellaswag")).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_import_log_passes_a_list_of_selectors_as_the_flag_repeated(tmp_path):
    suite = _two_filter_suite(tmp_path / "suite")
    out = tmp_path / "scores.csv"
    done = evogate.import_log(
        "lm-eval", suite, out,
        filter=["strict-match", "none"], metric=("gsm8k=exact_match", "hellaswag=acc"),
        higher_is_better=True,
    )
    assert done == evogate.Imported(str(out), 6)
    assert sorted(row["task_id"] for row in rows(out)) == [
        "gsm8k:16", "gsm8k:17", "gsm8k:18", "hellaswag:16", "hellaswag:17", "hellaswag:18",
    ]
    record = json.loads((tmp_path / "scores.import.json").read_text(encoding="utf-8"))
    assert record["selectors"]["metric"] == "gsm8k=exact_match,hellaswag=acc", record["selectors"]
    # One filter where each task names its own is refused naming the task that lacks it,
    # and the advice is Python's: a list.
    with pytest.raises(evogate.EvogateError) as refused:
        evogate.import_log("lm-eval", suite, tmp_path / "one.csv", filter="strict-match")
    assert "not in the lines of task `hellaswag`, which have `none`" in str(refused.value)
    assert "give filter a list to give every task its own (filter=['strict-match', 'none'])" in str(
        refused.value
    )
