"""GEPA 0.1.4's real loop (`gepa.optimize`) with evogate's metric, evogate's held-out
gate and its ledger, offline: a GEPA adapter runs the stand-in model of stub.py and
grades with `evogate.Grader`, GEPA's reflection reads evogate's feedback, and
`evogate.gepa.HoldoutGate` decides what the run put forward on the split's holdout."""

import csv
import json
import math

import gepa
import pytest
from gepa.core.adapter import EvaluationBatch

import evogate
from evogate.gepa import HoldoutGate, leaders

import stub


class Adapter:
    """GEPA's adapter protocol over the stand-in model, graded by evogate."""

    propose_new_texts = None  # GEPA's own reflective proposer, with the reflection model

    def __init__(self, grader):
        self.grader = grader

    def evaluate(self, batch, candidate, capture_traces=False):
        outputs, scores, traces = [], [], []
        for task in batch:
            output = stub.answer(candidate["instructions"], task["task_id"])
            grade = self.grader.grade(task["task_id"], output)
            outputs.append(output)
            scores.append(grade.score)
            traces.append({"Inputs": task["prompt"], "Generated Outputs": output,
                           "Feedback": grade.feedback})
        return EvaluationBatch(outputs=outputs, scores=scores,
                               trajectories=traces if capture_traces else None)

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        return {name: eval_batch.trajectories for name in components_to_update}


class Quiet:
    def log(self, *args, **kwargs):
        pass


@pytest.fixture(scope="module")
def grader():
    with evogate.Grader(stub.TRUTH) as grader:
        yield grader


def rows(split, name):
    with open(split / f"{name}.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def optimize(split, grader, learn, seed=0, **options):
    return gepa.optimize(
        seed_candidate={"instructions": stub.SEED},
        trainset=rows(split, "train"), valset=rows(split, "val"),
        adapter=Adapter(grader), reflection_lm=lambda prompt: stub.reflect(prompt, learn),
        max_metric_calls=800, seed=seed, logger=Quiet(), **options,
    )


def score_with(grader):
    def score(candidate, tasks):
        return [grader.grade(t["task_id"], stub.answer(candidate["instructions"], t["task_id"]))
                for t in tasks]
    return score


def ledger_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def spending(k, alpha=0.05):
    return alpha * 6 / (math.pi**2 * k**2)


def test_gepa_returns_a_noise_winner_and_the_gate_keeps_the_seed(split, grader, tmp_path):
    result = optimize(split, grader, learn=False)
    scores = result.val_aggregate_scores
    # GEPA's own choice: a rewording whose validation mean beats the seed's by chance.
    assert result.best_idx != 0 and scores[result.best_idx] > scores[0]
    gate = HoldoutGate(split, score_with(grader), ledger=tmp_path / "ledger.jsonl")
    chosen = gate.select(result)
    assert (chosen.index, chosen.admitted) == (0, False)
    assert chosen.candidate == {"instructions": stub.SEED}
    [decision] = chosen.decisions
    assert decision.index == result.best_idx and decision.verdict != "admitted"
    [record] = ledger_lines(tmp_path / "ledger.jsonl")
    assert record["attempt"] == 1 and record["verdict"] == decision.verdict
    assert record["alpha_this_attempt"] == pytest.approx(spending(1), rel=1e-12)


def test_a_real_improvement_found_from_evogates_feedback_is_admitted_and_returned(split, grader, tmp_path):
    result = optimize(split, grader, learn=True)
    best = result.candidates[result.best_idx]["instructions"]
    assert "Hint:" in best  # the reflection read evogate's "no ... found" feedback
    gate = HoldoutGate(split, score_with(grader), ledger=tmp_path / "ledger.jsonl")
    chosen = gate.select(result)
    assert chosen.admitted and chosen.index == result.best_idx
    assert chosen.candidate == result.best_candidate
    assert chosen.decisions[0].tasks == len(rows(split, "holdout"))
    [record] = ledger_lines(tmp_path / "ledger.jsonl")
    assert (record["attempt"], record["verdict"]) == (1, "admitted")


def test_every_leader_spends_the_next_attempt_of_the_ledger(split, grader, tmp_path):
    result = optimize(split, grader, learn=True)
    found = leaders(result.val_aggregate_scores)
    assert len(found) >= 2
    gate = HoldoutGate(split, score_with(grader), ledger=tmp_path / "ledger.jsonl")
    chosen = gate.select(result, put_forward="leaders")
    assert [d.index for d in chosen.decisions] == found
    records = ledger_lines(tmp_path / "ledger.jsonl")
    assert [r["attempt"] for r in records] == list(range(1, len(found) + 1))
    for record, decision in zip(records, chosen.decisions):
        assert record["alpha_this_attempt"] == pytest.approx(spending(record["attempt"]), rel=1e-12)
        assert decision.alpha == pytest.approx(record["alpha_this_attempt"], rel=1e-9)
    admitted = [d.index for d in chosen.decisions if d.admitted]
    assert chosen.index == admitted[-1]


def test_leaders_are_the_strict_running_maxima_of_the_validation_means():
    assert leaders([0.5, 0.6, 0.55, 0.6, 0.7]) == [1, 4]
    assert leaders([0.5, 0.5, 0.4]) == []
    assert leaders([0.5]) == []


def test_a_gate_without_a_ledger_is_refused(split, grader):
    with pytest.raises(ValueError, match="needs a ledger"):
        HoldoutGate(split, score_with(grader), ledger=None)


def test_a_sequential_gate_stops_scoring_a_real_improvement_early_and_closes_its_attempt(split, grader, tmp_path):
    result = optimize(split, grader, learn=True)
    gate = HoldoutGate(split, score_with(grader), ledger=tmp_path / "ledger.jsonl",
                       sequential=True, batch=4)
    chosen = gate.select(result)
    [decision] = chosen.decisions
    assert chosen.admitted and decision.verdict == "admitted"
    holdout = len(rows(split, "holdout"))
    assert decision.tasks < holdout and decision.report["look"] <= decision.tasks
    records = ledger_lines(tmp_path / "ledger.jsonl")
    # The first look opened attempt 1 at its alpha; the deciding look closed it.
    assert [(r["attempt"], r["verdict"]) for r in records] == [(1, "open"), (1, "admitted")]
    assert records[-1]["n"] == decision.report["look"]
    assert [r["alpha_this_attempt"] for r in records] == [pytest.approx(spending(1), rel=1e-12)] * 2


def test_a_candidate_abandoned_undecided_keeps_its_attempt_spent(split, grader, tmp_path):
    result = optimize(split, grader, learn=False)
    found = leaders(result.val_aggregate_scores)
    gate = HoldoutGate(split, score_with(grader), ledger=tmp_path / "ledger.jsonl",
                       sequential=True, max_tasks=12)
    chosen = gate.select(result, put_forward="leaders")
    assert (chosen.index, chosen.admitted) == (0, False)
    assert [d.verdict for d in chosen.decisions] == ["abandoned"] * len(found)
    assert [d.attempt for d in chosen.decisions] == list(range(1, len(found) + 1))
    records = ledger_lines(tmp_path / "ledger.jsonl")
    # Every leader opened its own attempt at its own alpha and none was closed: an
    # abandoned candidate spent what it looked at.
    assert {r["verdict"] for r in records} == {"open"}
    assert sorted({r["attempt"] for r in records}) == list(range(1, len(found) + 1))
    for record in records:
        assert record["alpha_this_attempt"] == pytest.approx(spending(record["attempt"]), rel=1e-12)
    assert max(r["n"] for r in records) == 12
    # Deciding a candidate again from its first pair is a new attempt: a first look
    # cannot be told from another candidate's. Each later candidate takes the next.
    again = gate.decide(result.candidates[found[0]])
    other = gate.decide({"instructions": stub.SEED + " [another]"})
    assert (again.attempt, other.attempt) == (len(found) + 1, len(found) + 2)
    attempts = {r["attempt"] for r in ledger_lines(tmp_path / "ledger.jsonl")}
    assert attempts == set(range(1, len(found) + 3))


@pytest.mark.parametrize("learn", [True, False])
def test_the_sequential_gate_decides_as_evogate_sequential_with_a_ledger_fed_every_pair(split, grader, tmp_path, learn):
    result = optimize(split, grader, learn=learn)
    candidate = result.candidates[result.best_idx]
    score = score_with(grader)
    gate = HoldoutGate(split, score, ledger=tmp_path / "gate.jsonl", sequential=True)
    gate.seed = result.candidates[0]
    decision = gate.decide(candidate)
    # The same pairs through evogate.Sequential given the ledger: a look per pair.
    holdout = rows(split, "holdout")
    manifest = json.loads((split / "manifest.json").read_text())
    order = [s for s in manifest["splits"] if s["name"] == "holdout"][0]["task_ids"]
    by_id = {t["task_id"]: t for t in holdout}
    tasks = [by_id[t] for t in order]
    monitor = evogate.Sequential(alpha=0.05, strata={t["task_id"]: t["kind"] for t in tasks},
                                 ledger=tmp_path / "every.jsonl", manifest=split / "manifest.json")
    seed, cand = score(result.candidates[0], tasks), score(candidate, tasks)
    for task, b, c in zip(tasks, seed, cand):
        state = monitor.update(task["task_id"], b.score, c.score, correct=(b.correct, c.correct))
        if state["verdict"] != "continue":
            break
    assert decision.verdict == state["verdict"]
    assert decision.report["look"] == state["look"]
    assert (decision.attempt, decision.alpha) == (state["attempt"], pytest.approx(state["alpha"], rel=1e-12))
    # Both ledgers close attempt 1 at the same look; the gate records 2 looks, not one a pair.
    gate_records, every_records = ledger_lines(tmp_path / "gate.jsonl"), ledger_lines(tmp_path / "every.jsonl")
    assert gate_records[-1]["n"] == every_records[-1]["n"] == state["look"]
    assert gate_records[-1]["verdict"] == every_records[-1]["verdict"] == state["verdict"]
    assert len(gate_records) == 2 and len(every_records) == state["look"]
