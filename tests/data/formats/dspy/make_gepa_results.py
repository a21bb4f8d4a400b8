# The legacy (schema 0) payload of gepa-ai/gepa tests/test_result.py (commit b265bf9c,
# lines 5-20), as json.dumps writes it, and the schema-2 dict GEPAResult.to_dict() makes of it.
import json, sys
from gepa.core.result import GEPAResult
legacy_payload = {
    "candidates": [{"system_prompt": "weight=0"}, {"system_prompt": "weight=1"}],
    "parents": [[None], [0]],
    "val_aggregate_scores": [0.15, 0.35],
    "val_subscores": [[0.1, 0.2], [0.3, 0.4]],
    "per_val_instance_best_candidates": [[0], [1]],
    "discovery_eval_counts": [0, 2],
    "best_outputs_valset": [
        [(0, {"value": 0.1})],
        [(1, {"value": 0.4})],
    ],
    "total_metric_calls": 5,
    "num_full_val_evals": 2,
    "run_dir": "/tmp/gepa",
    "seed": 42,
}
json.dump(legacy_payload, open("gepa_result_v0.json", "w"), indent=2)
json.dump(GEPAResult.from_dict(legacy_payload).to_dict(), open("gepa_result_v2.json", "w"), indent=2)
