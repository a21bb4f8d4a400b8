"""DSPy's GEPA with evogate's metric and evogate's held-out gate, offline.

The recipe of docs/optimizers.md, end to end: `evogate split` fixes a holdout;
`dspy.GEPA` optimizes a `dspy.Predict("question -> answer")` with
`evogate.dspy_metric` (its feedback, "no year found; expected 2014", is what GEPA's
reflection reads); every leader the run found is then scored on the holdout and
decided against the student by `evogate.gepa.HoldoutGate`, one ledger attempt each;
the program to use is the last admitted leader, else the student.

The two language models are stand-ins (custom `dspy.LM` engines, no network): the
task model answers from data/arxiv/papers.csv when the instructions carry the hint for
the question's kind, and on a coin keyed by the instructions otherwise (about half the
time); the reflection model adds the hint for a kind evogate's feedback says was
missed. With `--null` it only rewords the instructions, so every candidate is no
better than the student and any "gain" on the validation set is noise.

Run from the repository's top folder with dspy installed:
``python examples/dspy_gepa.py OUT_DIR [--null] [--sequential] [--seed=N]``. It prints GEPA's
validation means, each decision, and the program chosen; it exits 0 when a leader was
admitted and 1 when the student stays.
"""

import contextlib
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage

import evogate
import evogate.dspy
from evogate.gepa import HoldoutGate

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "data" / "arxiv" / "papers.csv"
with open(TRUTH, newline="", encoding="utf-8") as handle:
    FACTS = {row["arxiv_id"]: row for row in csv.DictReader(handle)}
HINTS = {"ID": "id", "title": "title", "first author": "first_author", "year": "year"}


def coin(*parts):
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def task_of(question):
    """The task a question of the split's `prompt` column asks, as the model reads it."""
    for paper, fact in FACTS.items():
        if f'titled "{fact["title"]}"' in question:
            return paper, "id"
        if paper in question:
            for words, kind in HINTS.items():
                if words in question and kind != "id":
                    return paper, kind
    raise ValueError(f"no task asks {question!r}")


def task_model(system, user):
    instructions = system.split("your objective is:", 1)[-1].strip()
    question = user.split("[[ ## question ## ]]\n", 1)[1].split("\n\nRespond", 1)[0].strip()
    paper, kind = task_of(question)
    fact = FACTS[paper]
    if f"({kind})" in instructions or coin(instructions, question) < 0.5:
        value = {"id": paper, "title": f'"{fact["title"]}"', "first_author": fact["first_author"],
                 "year": fact["year"]}[kind]
        answer = f"The answer is {value}."
    else:
        answer = "I am not sure."
    return f"[[ ## answer ## ]]\n{answer}\n\n[[ ## completed ## ]]"


def reflection_model(learn):
    def reply(system, user):
        current = user.split("[[ ## current_instruction ## ]]\n", 1)[1]
        current = current.split("\n\n[[ ## examples_with_feedback ## ]]", 1)[0].strip()
        new = None
        for words, kind in HINTS.items():
            if learn and f"no {words} found" in user and f"({kind})" not in current:
                new = f"{current}\nHint: look for the paper's {words} ({kind})."
                break
        if new is None:
            new = f"{current.split(' [')[0]} [revision {int(coin(current, user) * 10**6)}]"
        return json.dumps({"new_instruction": new})  # DSPy's proposer reads JSON

    return reply


class Engine:
    """A `dspy.LM` engine (DSPy 3.4's interface for custom models) around a function of
    the system and the last user message."""

    def __init__(self, reply):
        self.reply = reply

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(
            part.text for part in request.system or [])
        text = self.reply(system or "", request.messages[-1].text or "")
        return Response(id=None, model="stub", message=Message.assistant([TextPart(text)]),
                        finish_reason="stop", usage=Usage(input_tokens=0, output_tokens=0, total_tokens=0))

    def stream(self, request):
        raise NotImplementedError("the stand-in model does not stream")

    def close(self):
        pass


def examples(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return [dspy.Example(task_id=row["task_id"], question=row["prompt"]).with_inputs("question")
                for row in csv.DictReader(handle)]


def main(out, null, sequential, seed):
    split = out / "split"
    subprocess.run([evogate.binary(), "split", "--truth", str(TRUTH), "--out", str(split)],
                   check=True, capture_output=True)
    dspy.configure(lm=dspy.LM("stub/task", engine=Engine(task_model), cache=False))
    with evogate.Grader(TRUTH) as grader:
        optimizer = dspy.GEPA(
            metric=evogate.dspy_metric(grader),          # the example's `task_id`, the answer
            reflection_lm=dspy.LM("stub/reflection", engine=Engine(reflection_model(not null)),
                                  cache=False),
            max_metric_calls=700, track_stats=True, seed=seed,
        )
        student = dspy.Predict("question -> answer")
        # DSPy draws a progress bar on stdout for every minibatch; keep the output readable.
        with contextlib.redirect_stdout(io.StringIO()):
            compiled = optimizer.compile(student, trainset=examples(split / "train.csv"),
                                         valset=examples(split / "val.csv"))
        results = compiled.detailed_results
        print("validation means:", " ".join(f"{m:.3f}" for m in results.val_aggregate_scores))
        gate = HoldoutGate(split, evogate.dspy.program_score(grader), ledger=out / "ledger.jsonl",
                           sequential=sequential)
        chosen = gate.select(results, put_forward="leaders")
    for d in chosen.decisions:
        print(f"candidate {d.index}: {d.verdict} (attempt {d.attempt} at alpha {d.alpha:.6f}, "
              f"{d.tasks} holdout tasks)")
    print("chosen:", f"candidate {chosen.index}" if chosen.admitted else "the student")
    return 0 if chosen.admitted else 1


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    target = Path(args[0] if args else "dspy-gepa-out")
    os.makedirs(target, exist_ok=True)
    seeds = [int(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--seed=")]
    sys.exit(main(target, "--null" in sys.argv, "--sequential" in sys.argv, (seeds or [0])[-1]))
