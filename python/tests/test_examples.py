"""The Python example runs offline and gates its winner on the holdout."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_gepa_loop_example_admits_its_winner_and_records_it_in_the_ledger(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "gepa_loop.py"), str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "holdout verdict: admitted" in done.stdout
    ledger = (tmp_path / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(ledger) == 1
    report = json.loads((tmp_path / "admission" / "admission.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "admitted"
