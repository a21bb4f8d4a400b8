"""DSPy 3.4.1 with evogate: `evogate.dspy_metric` inside DSPy's real `Evaluate`, and the
documented recipe (examples/dspy_gepa.py: `dspy.GEPA` with evogate's metric, then
evogate's held-out gate and ledger on the leaders) run end to end with stand-in models."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import dspy
import pytest

import evogate
import evogate.dspy

import stub

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "dspy_gepa.py"

# The example's stand-in engine and its reading of a split file, as a user's copy of
# the recipe would have them (the example stays runnable on its own).
_spec = importlib.util.spec_from_file_location("dspy_gepa_example", EXAMPLE)
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)
examples = example.examples


def test_dspy_evaluate_with_evogates_metric_averages_evogates_grades(split):
    val = examples(split / "val.csv")
    program = dspy.Predict("question -> answer")
    instructions = program.signature.instructions
    with dspy.context(lm=dspy.LM("stub/task", engine=example.Engine(stub.dspy_answer), cache=False)):
        with evogate.Grader(stub.TRUTH) as grader:
            evaluation = dspy.Evaluate(devset=val, metric=evogate.dspy_metric(grader))(program)
            direct = [grader.grade(e.task_id, stub.answer(instructions, e.task_id)).score for e in val]
            gated = evogate.dspy.program_score(grader)(program, [
                {"task_id": e.task_id, "prompt": e.question} for e in val])
    assert evaluation.score == pytest.approx(100 * sum(direct) / len(direct), abs=0.01)
    assert [s for _, _, s in evaluation.results] == direct
    assert [g.score for g in gated] == direct
    assert 0 < sum(direct) < len(direct)  # the stand-in gets some right, not all


def run_example(out, *flags):
    done = subprocess.run([sys.executable, str(EXAMPLE), str(out), *flags],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode in (0, 1), done.stdout + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    means = [float(m) for m in lines[0].split(":", 1)[1].split()]
    ledger = [json.loads(line) for line in (out / "ledger.jsonl").read_text().splitlines()] \
        if (out / "ledger.jsonl").exists() else []
    return done.returncode, lines, means, ledger


def test_the_dspy_recipe_admits_a_leader_found_from_evogates_feedback(tmp_path):
    code, lines, means, ledger = run_example(tmp_path)
    assert code == 0 and lines[-1].startswith("chosen: candidate ")
    chosen = int(lines[-1].split()[-1])
    assert means[chosen] > means[0]
    decisions = [line for line in lines if line.startswith("candidate ")]
    assert len(decisions) == len(ledger) >= 1
    assert [r["attempt"] for r in ledger] == list(range(1, len(ledger) + 1))
    assert f"candidate {chosen}: admitted" in "\n".join(decisions)


def test_the_dspy_recipe_keeps_the_student_when_gepas_winner_is_noise(tmp_path):
    # The first null seed (from 5, the one docs/optimizers.md shows) where GEPA's own
    # choice is a rewording whose validation mean beats the student's by chance. Which
    # seed that is moves with the stand-in model's reading of evogate's feedback, so the
    # test looks for it instead of fixing one.
    for seed in range(5, 25):
        run = tmp_path / f"seed-{seed}"
        run.mkdir()
        code, lines, means, ledger = run_example(run, "--null", f"--seed={seed}")
        if max(means) > means[0]:
            break
    assert max(means) > means[0], "no null seed from 5 to 24 gave GEPA a noise winner"
    assert code == 1 and lines[-1] == "chosen: the student"
    assert len(ledger) >= 1 and all(r["verdict"] != "admitted" for r in ledger)
