"""A deterministic stand-in for the language models of a GEPA or DSPy run, grounded in
the repository's arXiv facts (data/arxiv/papers.csv), so an optimization runs offline.

The task model answers a question correctly when its instructions carry the hint for
the question's kind (`(year)`, `(first_author)`, `(title)`, `(id)`); otherwise it
answers correctly on a coin keyed by the instructions' text and the task (about half
the tasks), so two instructions without hints are exchangeable: neither is better.
The reflection model either learns from evogate's feedback (it adds the hint for the
first kind the feedback says was missed: a real improvement) or only rewords the
instructions (a candidate no better than the seed, a noise winner when GEPA keeps it).
For DSPy, `dspy_answer` is run by examples/dspy_gepa.py's `Engine`, the `dspy.LM`
engine a user's copy of the recipe has.
"""

import csv
import hashlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRUTH = ROOT / "data" / "arxiv" / "papers.csv"
SEED = "Answer the question about the arXiv paper."

with open(TRUTH, newline="", encoding="utf-8") as _handle:
    FACTS = {row["arxiv_id"]: row for row in csv.DictReader(_handle)}

# The words evogate's arxiv feedback uses for a missed kind ("no year found; ..."),
# by the kind they stand for.
MISSED = {"ID": "id", "title": "title", "first author": "first_author", "year": "year"}
HINTS = {
    "id": "Hint: give the bare arXiv ID (id).",
    "title": "Hint: quote the full title (title).",
    "first_author": "Hint: name the first author exactly as listed (first_author).",
    "year": "Hint: answer the year from the ID's first two digits (year).",
}


def coin(*parts):
    """A uniform number in [0, 1) from the parts' text: the same parts, the same number."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def answer(instructions, task_id):
    """The task model's answer to a task under some instructions."""
    paper, kind = task_id.rsplit(":", 1)
    fact = FACTS[paper]
    if f"({kind})" in instructions or coin(instructions, task_id) < 0.5:
        value = {"id": paper, "title": f'"{fact["title"]}"', "first_author": fact["first_author"],
                 "year": fact["year"]}[kind]
        return f"The answer is {value}."
    return "I am not sure."


def task_of(question):
    """The task id a question of the split's `prompt` column asks about."""
    for row in FACTS.values():
        paper, title = row["arxiv_id"], row["title"]
        if f"titled \"{title}\"" in question:
            return f"{paper}:id"
        if paper in question:
            for kind, words in (("title", "title"), ("first_author", "first author"), ("year", "year")):
                if words in question:
                    return f"{paper}:{kind}"
    raise ValueError(f"no task asks {question!r}")


def propose(current, feedback, learn):
    """The reflection model's new instructions, from the current ones and the text that
    carries evogate's feedback."""
    if learn:
        for words, kind in MISSED.items():
            if f"no {words} found" in feedback and f"({kind})" not in current:
                return f"{current}\n{HINTS[kind]}"
    revision = int(coin(current, feedback) * 10**6)
    return f"{current.split(' [')[0]} [revision {revision}]"


def reflect(prompt, learn):
    """GEPA's reflection call: the prompt quotes the instructions in its first ``` block,
    and the answer gives the new ones in a ``` block, as GEPA parses them."""
    text = prompt if isinstance(prompt, str) else "\n".join(m["content"] for m in prompt)
    found = re.search(r"```\n?(.*?)\n?```", text, re.S)
    current = found.group(1).strip() if found else ""
    return f"```\n{propose(current, text, learn)}\n```"


def dspy_answer(system, user):
    """The task model behind DSPy's chat format: the instructions are the system
    message's objective, the question the user message's `question` field."""
    instructions = system.split("your objective is:", 1)[-1].strip()
    question = user.split("[[ ## question ## ]]\n", 1)[1].split("\n\nRespond", 1)[0].strip()
    return f"[[ ## answer ## ]]\n{answer(instructions, task_of(question))}\n\n[[ ## completed ## ]]"

