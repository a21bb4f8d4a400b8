"""Grader throughput: one long-lived `evogate grade --jsonl` (evogate.Grader) against
spawning `evogate score` once per output, as a wrapper around the CLI would.

Both grade the same demo outputs (the Grader with and without a timeout), alternating in rounds in one run so that the noisy
machine weighs on both alike; prints outputs per second for each and their ratio.
Run from the top folder with the evogate wheel installed:
``python benches/grader_throughput.py [ROUNDS]``.

Usage: python3 benches/grader_throughput.py [ROUNDS]   (ROUNDS: 3)
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import evogate

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "data" / "arxiv" / "papers.csv"
OUTPUTS = ROOT / "data" / "demo" / "candidate.jsonl"


def by_grader(requests, **options):
    started = time.perf_counter()
    with evogate.Grader(TRUTH, **options) as grader:
        for request in requests:
            grader.grade(request["task_id"], request["output"])
    return time.perf_counter() - started


def by_spawning(requests, folder):
    started = time.perf_counter()
    for request in requests:
        tasks = os.path.join(folder, "tasks.csv")
        outputs = os.path.join(folder, "outputs.jsonl")
        group, kind = request["task_id"].rsplit(":", 1)
        with open(tasks, "w", encoding="utf-8") as handle:
            handle.write(f"task_id,group,kind,prompt\n{request['task_id']},{group},{kind},q\n")
        with open(outputs, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(request) + "\n")
        subprocess.run(
            [evogate.binary(), "score", "--truth", str(TRUTH), "--tasks", tasks,
             "--outputs", outputs],
            check=True, capture_output=True,
        )
    return time.perf_counter() - started


def main(rounds):
    requests = [json.loads(line) for line in OUTPUTS.read_text(encoding="utf-8").splitlines()]
    grader_time = timeout_time = spawn_time = 0.0
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            grader_time += by_grader(requests)
            # With a timeout, a reader thread hands each answer over through a queue.
            timeout_time += by_grader(requests, timeout=30)
            spawn_time += by_spawning(requests, folder)
    graded = len(requests) * rounds
    print(f"outputs graded per arm: {graded}")
    print(f"Grader:   {graded / grader_time:10.0f} outputs/s ({1e3 * grader_time / graded:.3f} ms each)")
    print(f"Grader, timeout=30: {graded / timeout_time:4.0f} outputs/s ({1e3 * timeout_time / graded:.3f} ms each)")
    print(f"spawning: {graded / spawn_time:10.0f} outputs/s ({1e3 * spawn_time / graded:.3f} ms each)")
    print(f"ratio (spawning time / Grader time): {spawn_time / grader_time:.1f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
