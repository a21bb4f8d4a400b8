"""The numeric, choice and short verifiers from Python: `evogate.Grader(truth,
verifier=...)` grades as `evogate score` does on the shipped examples (data/numeric,
data/choice, data/short), and `evogate.dspy_metric` hands GEPA their score and feedback
(the DSPy GEPA tutorial's AIME setting)."""

import csv
import json
import subprocess
from pathlib import Path

import pytest

import evogate

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = {
    "numeric": ROOT / "data" / "numeric" / "problems.csv",
    "choice": ROOT / "data" / "choice" / "questions.csv",
    "short": ROOT / "data" / "short" / "questions.csv",
}


@pytest.mark.parametrize("verifier", sorted(SHIPPED))
def test_grader_grades_every_shipped_output_as_score_does(verifier, tmp_path):
    folder = SHIPPED[verifier].parent
    scores = tmp_path / "scores.csv"
    subprocess.run(
        [
            evogate.binary(), "score", "--verifier", verifier, "--truth", str(SHIPPED[verifier]),
            "--tasks", str(folder / "tasks.csv"), "--outputs", str(folder / "outputs.jsonl"),
            "--out", str(scores),
        ],
        check=True,
        capture_output=True,
    )
    with open(scores, newline="", encoding="utf-8") as handle:
        expected = {row["task_id"]: row for row in csv.DictReader(handle)}
    outcomes = set()
    with evogate.Grader(SHIPPED[verifier], verifier=verifier) as grader:
        for line in (folder / "outputs.jsonl").read_text(encoding="utf-8").splitlines():
            request = json.loads(line)
            grade = grader.grade(request["task_id"], request["output"])
            row = expected.pop(request["task_id"])
            assert abs(grade.score - float(row["score"])) < 1e-4
            assert grade.correct == (row["correct"] == "1")
            assert grade.feedback == row["feedback"]
            assert grade.outcome == row["outcome"]
            outcomes.add(grade.outcome)
    assert not expected
    # The shipped outputs show every outcome (numeric gives no partial credit).
    assert outcomes >= {"right", "hedged", "wrong", "invalid", "abstained"}
    assert ("partial" in outcomes) == (verifier == "short")


def test_dspy_metric_scores_an_aime_answer_and_names_the_expected_number():
    with evogate.Grader(SHIPPED["numeric"], verifier="numeric") as grader:
        metric = evogate.dspy_metric(grader, task_id="task_id")
        example = {"task_id": "divisors:aime"}
        assert metric(example, {"answer": "360 = 2^3 * 3^2 * 5, so (3+1)(2+1)(1+1) = 24"}) == 1.0
        # A hedge between two earns half, the mean of the two answers alone.
        assert metric(example, {"answer": "#### 24 36"}) == 0.5
        feedback = metric(example, {"answer": "\\boxed{36}"}, None, "predict", [])
        assert feedback.score == 0.0
        assert feedback.feedback == "expected 24, response said 36 (outcome: wrong)"
        assert feedback.outcome == "wrong"
        # A refusal is told from a wrong answer, in the feedback GEPA reads.
        refused = metric(example, {"answer": "I don't know."}, None, "predict", [])
        assert (refused.score, refused.outcome) == (0.0, "abstained")
        assert refused.feedback.endswith("(outcome: abstained)")


def test_grader_with_the_choice_and_short_verifiers():
    with evogate.Grader(SHIPPED["choice"], verifier="choice") as grader:
        assert grader.grade("goggles:arc", "ANSWER: B").correct is True
        assert grader.grade("goggles:arc", "A B C D").score == 0.0
    with evogate.Grader(SHIPPED["short"], verifier="short") as grader:
        assert grader.grade("curie:squad", "The answer is Marie Curie.").correct is True
        partial = grader.grade("curie:squad", "Curie")
        assert partial.correct is False and abs(partial.correctness - 2 / 3) < 1e-9
