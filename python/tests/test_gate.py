"""evogate.gepa.HoldoutGate without gepa or dspy installed (the package's own venv):
the modules import, a GEPA-shaped result is gated by its fields, errors name the fix."""

import importlib.util
import json
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

import evogate
import evogate.dspy
from evogate.gepa import HoldoutGate, leaders

ROOT = Path(__file__).resolve().parents[2]
PAPERS = ROOT / "data" / "arxiv" / "papers.csv"


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    folder = tmp_path_factory.mktemp("split")
    subprocess.run([evogate.binary(), "split", "--truth", str(PAPERS), "--out", str(folder)],
                   check=True, capture_output=True)
    return folder


def score(candidate, tasks):
    # A candidate is the set of kinds it answers; the seed answers none.
    return [t["kind"] in candidate for t in tasks]


def test_the_gate_modules_import_without_gepa_or_dspy():
    if importlib.util.find_spec("gepa") or importlib.util.find_spec("dspy"):
        pytest.skip("gepa or dspy is installed here; tests/optimizers covers that venv")
    assert callable(evogate.dspy.program_score) and HoldoutGate is not None


def test_a_gepa_shaped_result_keeps_the_seed_unless_a_leader_is_admitted(split, tmp_path):
    # Leader 1 answers what the seed answers (nothing): validation noise.
    seed, same, better = frozenset(), frozenset(), frozenset({"year", "id"})
    result = SimpleNamespace(candidates=[seed, same, better], val_aggregate_scores=[0.4, 0.5, 0.7])
    assert leaders(result.val_aggregate_scores) == [1, 2]
    chosen = HoldoutGate(split, score, ledger=tmp_path / "ledger.jsonl").select(result, "leaders")
    assert [d.verdict for d in chosen.decisions] == ["refused", "admitted"]
    assert (chosen.index, chosen.candidate, chosen.admitted) == (2, better, True)
    records = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert [r["attempt"] for r in records] == [1, 2]


def test_choose_returns_the_seed_when_the_candidate_is_not_admitted(split, tmp_path):
    gate = HoldoutGate(split, score, ledger=tmp_path / "ledger.jsonl")
    chosen = gate.choose(frozenset({"title"}), frozenset({"year"}))
    assert (chosen.candidate, chosen.admitted) == (frozenset({"title"}), False)
    assert chosen.decisions[0].verdict == "refused"


def test_a_folder_without_a_manifest_is_an_error_naming_the_fix(tmp_path):
    with pytest.raises(evogate.EvogateError, match="give the folder `evogate split --out` wrote"):
        HoldoutGate(tmp_path, score, ledger=tmp_path / "ledger.jsonl")


def test_a_score_function_giving_the_wrong_count_is_an_error(split, tmp_path):
    gate = HoldoutGate(split, lambda c, tasks: [True], ledger=tmp_path / "l.jsonl", seed="s")
    with pytest.raises(evogate.EvogateError, match="give one per task"):
        gate.decide("c")
