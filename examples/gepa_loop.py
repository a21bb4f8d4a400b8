"""A GEPA-shaped optimization loop with evogate, offline.

A stub language model answers arXiv questions from a small memory of facts; how much
of that memory a prompt unlocks stands in for how good the prompt is. The loop
proposes candidate prompts, scores them on the train and validation tasks with one
long-lived ``evogate.Grader`` (feedback included, as GEPA's reflection would read it),
keeps the best on validation, and finally gates that winner against the seed prompt on
the untouched holdout with ``evogate.admit`` and a holdout-reuse ledger.

No network and no dspy: run it from the repository's top folder as
``python examples/gepa_loop.py [OUT_DIR]``. It exits 0 when the winner is admitted.
"""

import csv
import os
import sys
import tempfile
from pathlib import Path

import evogate

ROOT = Path(__file__).resolve().parents[1]
TRUTH = ROOT / "data" / "arxiv" / "papers.csv"
SPLIT = ROOT / "reports" / "demo" / "split"


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


FACTS = {row["arxiv_id"]: row for row in read_rows(TRUTH)}


def stub_lm(prompt, task):
    """The stub model: answers from the facts when the prompt's hints cover the kind
    of question and the paper is within its "recall" (a share of papers set by the
    prompt's detail), else it hedges."""
    fact = FACTS.get(task["group"])
    kind = task["kind"]
    recall = min(1.0, 0.2 + 0.2 * prompt.count("Hint:"))
    known = fact is not None and (sum(map(ord, task["group"])) % 100) / 100 < recall
    if known and kind in prompt:
        value = {"id": fact["arxiv_id"], "title": f'"{fact["title"]}"',
                 "first_author": fact["first_author"], "year": fact["year"]}[kind]
        return f"The answer is {value}."
    return "I am not sure."


HINTS = [
    "Hint: answer the year from the ID's first two digits (year).",
    "Hint: name the first author exactly as listed (first_author).",
    "Hint: quote the full title (title).",
    "Hint: give the bare arXiv ID (id).",
]


def propose(parent, round_number):
    """GEPA's mutation, reduced: add one more hint to the parent prompt."""
    return parent + "\n" + HINTS[round_number % len(HINTS)]


def evaluate(grader, prompt, tasks):
    """Mean score of a prompt on tasks, and the feedback lines GEPA would reflect on."""
    grades = [grader.grade(task["task_id"], stub_lm(prompt, task)) for task in tasks]
    feedback = [grade.feedback for grade in grades if not grade.correct]
    return sum(grade.score for grade in grades) / len(grades), feedback


def rows_for(grader, prompt, tasks):
    """The per-task scores rows `admit` reads."""
    rows = []
    for task in tasks:
        grade = grader.grade(task["task_id"], stub_lm(prompt, task))
        rows.append({"task_id": task["task_id"], "group": task["group"], "kind": task["kind"],
                     "correct": grade.correct, "score": grade.score})
    return rows


def main(out_dir):
    train = read_rows(SPLIT / "train.csv")
    val = read_rows(SPLIT / "val.csv")
    holdout = read_rows(SPLIT / "holdout.csv")
    seed = "Answer the question about the arXiv paper."
    with evogate.Grader(TRUTH) as grader:
        best, best_val = seed, evaluate(grader, seed, val)[0]
        for round_number in range(4):
            candidate = propose(best, round_number)
            train_score, feedback = evaluate(grader, candidate, train)
            val_score, _ = evaluate(grader, candidate, val)
            print(f"round {round_number}: train {train_score:.3f} val {val_score:.3f} "
                  f"({len(feedback)} feedback lines)")
            if val_score > best_val:
                best, best_val = candidate, val_score
        baseline = rows_for(grader, seed, holdout)
        winner = rows_for(grader, best, holdout)
    admission = evogate.admit(
        baseline, winner,
        tasks=SPLIT / "holdout.csv", manifest=SPLIT / "manifest.json",
        cluster="group", ledger=Path(out_dir) / "ledger.jsonl",
        report_dir=Path(out_dir) / "admission",
    )
    print(f"holdout verdict: {admission.verdict}")
    return 0 if admission else 1


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="gepa-loop-")
    os.makedirs(target, exist_ok=True)
    sys.exit(main(target))
