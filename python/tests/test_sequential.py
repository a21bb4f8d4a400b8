"""evogate.Sequential: the pure-Python e-processes against the vector the Rust checks
too (tests/data/sequential_vector.tsv), its decisions against the binary's, the order
it enforces, and the demo's candidates stopped early."""

import csv
import math
from pathlib import Path

import pytest

import evogate
from evogate.sequential import _Track, bet_fractions

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "tests" / "data" / "sequential_vector.tsv"
DEMO = ROOT / "reports" / "demo"


def test_e_values_equal_the_vector_the_rust_matches_to_1e_12():
    rows = [line.split("\t") for line in VECTOR.read_text().splitlines()[2:]]
    tracks = {}
    for kind, look, difference, improvement, futility in rows:
        if kind not in tracks:
            holdout, margin, binary = (200, 0.05, False) if kind == "scores" else (500, 0.0, True)
            bets = bet_fractions(holdout)
            tracks[kind] = (_Track(1.0, 0.0, bets, binary), _Track(-1.0, -margin, bets, binary))
        up, down = tracks[kind]
        up.push(float(difference))
        down.push(float(difference))
        for actual, expected in ((up.log_e_value(), float(improvement)), (down.log_e_value(), float(futility))):
            assert math.exp(actual) == pytest.approx(math.exp(expected), rel=1e-12, abs=0)
    assert sum(1 for _ in rows) == 300


def test_wins_in_a_row_are_admitted_at_the_look_the_binary_names():
    order = [f"t{i:03}" for i in range(100)]
    s = evogate.Sequential(holdout=order, alpha=0.05)
    states = []
    for task in order:
        state = s.update(task, 0.0, 1.0, correct=(0, 1))
        states.append(state)
        if state["verdict"] != "continue":
            break
    # (2^7 + 1.5^7 + 1.25^7 + 1.125^7 + 1.0625^7)/5 = 30.7 >= 20; at 6 wins 16.5.
    assert states[-1]["verdict"] == "admitted"
    assert states[-1]["look"] == 7
    assert states[-2]["e_value"] == pytest.approx(16.5, abs=0.05)
    report = s.report()
    assert report["verdict"] == "admitted"
    assert report["look"] == 7
    assert report["e_value"] == pytest.approx(states[-1]["e_value"], rel=1e-9)


def test_a_task_out_of_order_is_refused_with_its_name():
    s = evogate.Sequential(holdout=["a", "b", "c"])
    s.update("a", 0.5, 0.5)
    with pytest.raises(ValueError, match="'c' is out of order"):
        s.update("c", 0.5, 0.7)


def rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return {row["task_id"]: row for row in csv.DictReader(handle)}


@pytest.mark.parametrize("arm, verdict", [("candidate", "admitted"), ("regressing", "refused")])
def test_the_demo_candidates_are_decided_before_the_holdout_is_scored(arm, verdict):
    order = [row["task_id"] for row in csv.DictReader(open(DEMO / "split" / "holdout.csv", encoding="utf-8"))]
    kinds = {row["task_id"]: row["kind"] for row in csv.DictReader(open(DEMO / "split" / "holdout.csv", encoding="utf-8"))}
    baseline, candidate = rows(DEMO / "baseline-scores.csv"), rows(DEMO / f"{arm}-scores.csv")
    s = evogate.Sequential(holdout=order, alpha=0.05, strata=kinds)
    for task in order:
        b, c = baseline[task], candidate[task]
        state = s.update(task, float(b["score"]), float(c["score"]), correct=(b["correct"], c["correct"]))
        if state["verdict"] != "continue":
            break
    assert state["verdict"] == verdict
    assert state["look"] < len(order)
    assert s.report()["look"] == state["look"]
