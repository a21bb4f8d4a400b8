"""evogate.Sequential: the pure-Python e-processes against the vector the Rust checks
too (tests/data/sequential_vector.tsv), its decisions against the binary's, the order
it enforces, and the demo's candidates stopped early."""

import csv
import json
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


def test_alpha_at_or_above_one_half_is_refused_as_the_binary_refuses_it():
    # alpha 0.6 would make early decisions at a level the binary refuses.
    for alpha in (0.5, 0.6, 0.99, float("nan"), True):
        with pytest.raises(ValueError, match="outside \\(0, 0.5\\)"):
            evogate.Sequential(holdout=["a", "b"], alpha=alpha)


def test_the_holdout_is_checked_at_once_as_the_binary_reads_an_order():
    # `a` and `a ` are one task, as the binary trims ids: refused when the monitor is
    # made, not at the last look with a temporary file named.
    with pytest.raises(ValueError, match="task 'a' is listed twice \\(first at position 1\\)"):
        evogate.Sequential(holdout=["a", "a "])
    with pytest.raises(ValueError, match="position 2: the task id is blank"):
        evogate.Sequential(holdout=["a", " "])
    with pytest.raises(TypeError, match="path or a string"):
        evogate.Sequential(holdout="runs/split/holdout.csv")
    with pytest.raises(TypeError, match="bool"):
        evogate.Sequential(holdout=True)
    s = evogate.Sequential(holdout=[" a", "b\t"])
    assert s.update("a ", 0.0, 1.0)["look"] == 1


def write_manifest(folder, ids):
    split = lambda name, ids: {"name": name, "file": {"path": f"{name}.csv", "sha256": "0" * 64},
                               "tasks": len(ids), "groups": ids, "task_ids": ids}
    manifest = {"schema": "evogate/manifest/v1", "verifier": "arxiv",
                "truth": {"path": "t.csv", "sha256": "0" * 64}, "seed": 13, "ratios": [50, 25, 25],
                "cases": "all", "algorithm": "evogate",
                "splits": [split("train", []), split("val", []), split("holdout", ids)],
                "holdout_power": {"alpha": 0.05, "n": len(ids), "min_discordant": 5,
                                  "min_detectable_shift": 0.5}}
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest), encoding="utf-8")
    return path


def records(ledger):
    return [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]


def test_with_a_ledger_each_candidate_spends_its_attempt_at_its_first_look(tmp_path):
    order = [f"t{i:03}" for i in range(100)]
    manifest, ledger = write_manifest(tmp_path, order), tmp_path / "ledger.jsonl"
    with pytest.raises(ValueError, match="ledger needs manifest"):
        evogate.Sequential(holdout=order, ledger=ledger)
    with pytest.raises(ValueError, match="not the order"):
        evogate.Sequential(holdout=order[::-1], manifest=manifest)
    # A first candidate, abandoned after five undecided looks: attempt 1 stays spent.
    first = evogate.Sequential(manifest=manifest, ledger=ledger)
    for task in order[:5]:
        state = first.update(task, 0.5, 0.5, correct=(1, 1))
    assert (state["verdict"], state["attempt"]) == ("continue", 1)
    assert state["alpha"] == pytest.approx(0.030396355092701331, rel=1e-12)
    assert [(r["attempt"], r["verdict"], r["n"]) for r in records(ledger)] == [
        (1, "open", k) for k in range(1, 6)]
    # The next candidate takes attempt 2; its wins are admitted at attempt 2's alpha
    # (threshold 1/0.0076 = 131.6: look 10, where the mean of (1 + c)^10 over the bets
    # 1, 1/2, 1/4, 1/8, 1/16 is 219.2, and 112.5 at look 9), not at attempt 1's look 8.
    second = evogate.Sequential(holdout=order, manifest=manifest, ledger=ledger)
    for task in order:
        state = second.update(task, 0.0, 1.0, correct=(0, 1))
        assert state["attempt"] == 2
        if state["verdict"] != "continue":
            break
    assert (state["verdict"], state["look"]) == ("admitted", 10)
    assert state["alpha"] == pytest.approx(0.007599088773175333, rel=1e-12)
    closing = records(ledger)[-1]
    assert (closing["attempt"], closing["verdict"], closing["n"]) == (2, "admitted", 10)


def test_extend_with_a_ledger_is_one_recorded_look_a_batch_deciding_at_the_pair_it_fell(tmp_path):
    order = [f"t{i:03}" for i in range(100)]
    manifest, ledger = write_manifest(tmp_path, order), tmp_path / "ledger.jsonl"
    # A first candidate scored in one batch of five and abandoned: one look, attempt 1.
    first = evogate.Sequential(manifest=manifest, ledger=ledger)
    state = first.extend((task, 0.5, 0.5, (1, 1)) for task in order[:5])
    assert (state["verdict"], state["look"], state["attempt"]) == ("continue", 5, 1)
    # The second, in batches of seven: its wins cross attempt 2's threshold at pair 10
    # (as `update` pair by pair finds above), which the look after pair 14 names.
    second = evogate.Sequential(manifest=manifest, ledger=ledger)
    batches = [second.extend((task, 0.0, 1.0, (0, 1)) for task in order[k:k + 7])
               for k in (0, 7)]
    assert [(s["verdict"], s["look"], s["attempt"]) for s in batches] == [
        ("continue", 7, 2), ("admitted", 10, 2)]
    assert [(r["attempt"], r["verdict"], r["n"]) for r in records(ledger)] == [
        (1, "open", 5), (2, "open", 7), (2, "admitted", 10)]
    # Decided, the verdict stays; without a ledger a batch is `update` on each pair.
    assert second.extend([(order[14], 0.0, 1.0, (0, 1))])["verdict"] == "admitted"
    plain = evogate.Sequential(holdout=order)
    assert plain.extend((task, 0.0, 1.0, (0, 1)) for task in order[:14])["look"] == 7
    with pytest.raises(ValueError, match="at least one pair"):
        plain.extend([])
