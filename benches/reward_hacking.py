"""A reward-hacking search against evogate's verifiers: which output template earns the
most `score` (the admission score, the metric `dspy_metric` and GEPA see) without
committing to the right answer, against the expected score of committing to a random one
of its candidates.

The game. For each task the template is handed k candidate answers, one of them right,
in an order that does not reveal which (shuffled, or a window of consecutive values
placed at random around the truth); it builds one output from them. Since it cannot know
the right one, an output that commits to a single candidate earns, on average, what
answering a random candidate earns: the baseline, s/k where s is the score of the right
answer given alone ("The answer is X." style, concise). Any template whose mean score
is above its baseline is paid for not committing: listing, hedging, negating, mixing
markers. The goal: no template beats its baseline.

Templates are compositions of generators over the rendered candidates: a rendering of
each candidate (boxes, bold, option texts, full-width forms, ...), a body (a list joined
by spaces, commas, `or`, lines; negations of all but one; hedge words; reasons; an
answer and a retraction; a marker per candidate; an equation chain; ...), optionally a
second body for the rest of the candidates, a frame (`The answer is ...`, `Answer:`,
`####`, `\\boxed{}`, Minerva's final line, other languages' markers, ...), a prefix
(reasoning, a refusal, a long paragraph), a suffix and a repetition count. The search is
seeded: a random population, then rounds that keep the best templates by advantage
(mean score minus baseline) and mutate one part of each; the best are re-measured on
fresh instances, so the figures reported are not the search's own luckiest draws.

Each verifier is driven through one `evogate grade --jsonl` process per batch. Not part
of CI. Usage, from the repository root after `cargo build --release --locked`:

    python3 benches/reward_hacking.py target/release/evogate [--seed 39] [--json out.json]
    python3 benches/reward_hacking.py OTHER_BINARY --replay out.json --json replayed.json
    python3 benches/reward_hacking.py --markdown before.json after.json replayed.json
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# --- tasks and candidates ----------------------------------------------------------------


def read_csv(path: str) -> list:
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


class Numeric:
    """Truths from data/numeric/problems.csv; candidates a window of values one step
    apart in the truth's own form (integers, decimals, fractions, percents, `6e9`)."""

    name = "numeric"
    header = ["group", "kind", "question", "answer"]
    max_k = 1000
    renders = ["plain", "dollar", "boxed", "bold", "units", "fullwidth", "latex_frac"]

    def __init__(self):
        self.rows = read_csv("data/numeric/problems.csv")
        self.tasks = [(f"{r['group']}:{r['kind']}", r["answer"]) for r in self.rows]

    def truth_rows(self):
        return [[r["group"], r["kind"], r["question"], r["answer"]] for r in self.rows]

    @staticmethod
    def shifted(truth: str, j: int) -> str:
        if truth.endswith("%"):
            return f"{Fraction(truth[:-1]) + j}%"
        if "e" in truth:
            mantissa, exponent = truth.split("e")
            return f"{int(mantissa) + j}e{exponent}"
        if "/" in truth:
            a, b = truth.split("/")
            return f"{int(a) + j * int(b)}/{b}" if j else truth
        if "." in truth:
            places = len(truth.split(".")[1])
            return f"{float(Fraction(truth) + j):.{places}f}" if j else truth
        return str(int(truth) + j)

    def fits(self, task, k: int) -> bool:
        return True

    def candidates(self, truth: str, k: int, rng: random.Random, order: str, pool: str, task=None) -> list:
        position = rng.randrange(k)
        values = [self.shifted(truth, j - position) for j in range(k)]
        if order == "shuffled":
            rng.shuffle(values)
        return values

    def render(self, value: str, how: str, truth_task) -> str:
        if how == "dollar":
            return f"${value}$"
        if how == "boxed":
            return f"\\boxed{{{value}}}"
        if how == "bold":
            return f"**{value}**"
        if how == "units":
            return f"{value} units"
        if how == "fullwidth":
            return fullwidth(value)
        if how == "latex_frac" and "/" in value:
            a, b = value.split("/")
            return f"$\\frac{{{a}}}{{{b}}}$"
        return value

    def plain(self, truth: str, task) -> str:
        return f"The answer is {truth}."


class Choice:
    """data/choice/questions.csv (25 questions of 4 options, 2 of 10), each asked n
    times with its options rotated so that the right one stands at every letter once:
    the right letter is uniform, so a template that lists letters in order learns
    nothing from where the right one tends to be. Candidates are option letters."""

    name = "choice"
    header = ["group", "kind", "question", "answer", "options"]
    max_k = 10
    renders = ["plain", "paren", "close_paren", "bold", "text", "letter_text", "fullwidth", "lower", "option_word"]

    def __init__(self):
        self.rows = []
        for r in read_csv("data/choice/questions.csv"):
            options = r["options"].split("|")
            right = "ABCDEFGHIJ".index(r["answer"])
            for turn in range(len(options)):
                shift = (right - turn) % len(options)
                rotated = options[shift:] + options[:shift]
                assert rotated[turn] == options[right]
                self.rows.append({"group": f"{r['group']}{turn}", "kind": r["kind"], "question": r["question"],
                                  "answer": "ABCDEFGHIJ"[turn], "options": "|".join(rotated)})
        self.tasks = [(f"{r['group']}:{r['kind']}", r["answer"]) for r in self.rows]
        self.options = {f"{r['group']}:{r['kind']}": r["options"].split("|") for r in self.rows}

    def truth_rows(self):
        return [[r["group"], r["kind"], r["question"], r["answer"], r["options"]] for r in self.rows]

    def fits(self, task, k: int) -> bool:
        return k <= len(self.options[task[0]])

    def candidates(self, truth: str, k: int, rng: random.Random, order: str, pool: str, task=None) -> list:
        letters = "ABCDEFGHIJ"[: len(self.options[task[0]])]
        others = [x for x in letters if x != truth]
        chosen = rng.sample(others, k - 1) + [truth]
        if order == "shuffled":
            rng.shuffle(chosen)
        else:
            chosen.sort()
        return chosen

    def render(self, letter: str, how: str, task) -> str:
        text = self.options[task[0]]["ABCDEFGHIJ".index(letter)]
        return {
            "plain": letter, "paren": f"({letter})", "close_paren": f"{letter})", "bold": f"**{letter}**",
            "text": text, "letter_text": f"{letter}) {text}", "fullwidth": fullwidth(letter),
            "lower": letter.lower(), "option_word": f"option {letter}",
        }[how]

    def plain(self, truth: str, task) -> str:
        return f"Answer: {truth}"


PSEUDO_SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "du", "ni", "bra", "quo", "zel", "fa", "gri", "hon"]


def pseudo_names(count: int, rng: random.Random) -> list:
    names = set()
    while len(names) < count:
        names.add("".join(rng.choice(PSEUDO_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize())
    return sorted(names)


class Short:
    """data/short/questions.csv; wrong candidates are the other questions' answers
    (`known`) or made-up names and numbers near a numeric truth (`unknown`)."""

    name = "short"
    header = ["group", "kind", "question", "answer"]
    max_k = 1000
    renders = ["plain", "quoted", "bold", "lower", "fullwidth"]
    path = "data/short/questions.csv"

    def __init__(self):
        self.rows = read_csv(self.path)
        self.tasks = [(f"{r['group']}:{r['kind']}", r["answer"]) for r in self.rows]
        self.known = {}
        for r in self.rows:
            self.known.setdefault(r["kind"], []).append(r["answer"].split("|")[0])
        self.unknown = pseudo_names(1200, random.Random(7))

    def truth_rows(self):
        return [[r["group"], r["kind"], r["question"], r["answer"]] for r in self.rows]

    def fits(self, task, k: int) -> bool:
        return True

    def candidates(self, truth: str, k: int, rng: random.Random, order: str, pool: str, task=None) -> list:
        aliases = truth.split("|")
        right = rng.choice(aliases)
        kind = task[0].split(":")[1]
        known = [a for a in self.known[kind] if a not in aliases]
        if right.replace(",", "").isdigit():
            unknown = [str(int(right.replace(",", "")) + d) for d in range(-k, k + 1) if d]
        else:
            unknown = self.unknown
        if pool == "known":
            source = known
        elif pool == "unknown":
            source = unknown
        else:
            source = known + unknown
        others = rng.sample(source, min(k - 1, len(source)))
        chosen = others + [right]
        rng.shuffle(chosen)
        return chosen

    def render(self, value: str, how: str, task) -> str:
        return {"plain": value, "quoted": f'"{value}"', "bold": f"**{value}**", "lower": value.lower(),
                "fullwidth": fullwidth(value)}[how]

    def plain(self, truth: str, task) -> str:
        return truth.split("|")[0]


class Facts(Short):
    """The facts verifier on the same questions: its candidates are the answers of the
    other tasks of the kind."""

    name = "facts"
    max_k = 1000


class Arxiv:
    """data/arxiv/papers.csv, four kinds a paper; wrong candidates are other papers'
    values (`known`) or made-up ones of the same shape (`unknown`)."""

    name = "arxiv"
    header = ["arxiv_id", "title", "first_author", "year"]
    max_k = 100
    renders = ["plain", "quoted", "bold", "prefixed"]

    def __init__(self):
        self.rows = read_csv("data/arxiv/papers.csv")
        self.tasks = []
        for r in self.rows:
            for kind in ("id", "title", "first_author", "year"):
                value = {"id": r["arxiv_id"], "title": r["title"], "first_author": r["first_author"], "year": r["year"]}[kind]
                self.tasks.append((f"{r['arxiv_id']}:{kind}", value))
        self.values = {kind: sorted({t[1] for t in self.tasks if t[0].endswith(":" + kind)})
                       for kind in ("id", "title", "first_author", "year")}
        rng = random.Random(11)
        self.made_up = {
            "id": sorted({f"{rng.randint(15, 23):02d}{rng.randint(1, 12):02d}.{rng.randint(0, 99999):05d}" for _ in range(400)}),
            "year": [str(y) for y in range(1991, 2100)],
            "title": sorted({" ".join(w.capitalize() for w in rng.sample(
                ["deep", "learning", "neural", "sparse", "graph", "models", "robust", "attention",
                 "efficient", "training", "language", "vision", "networks", "scaling", "transfer"], 4))
                for _ in range(300)}),
            "first_author": [f"{g} {s}" for g, s in zip(pseudo_names(300, random.Random(3)), pseudo_names(300, random.Random(5)))],
        }

    def truth_rows(self):
        return [[r["arxiv_id"], r["title"], r["first_author"], r["year"]] for r in self.rows]

    def fits(self, task, k: int) -> bool:
        return True

    def candidates(self, truth: str, k: int, rng: random.Random, order: str, pool: str, task=None) -> list:
        kind = task[0].split(":")[1]
        known = [v for v in self.values[kind] if v != truth]
        unknown = [v for v in self.made_up[kind] if v != truth and v not in self.values[kind]]
        source = {"known": known, "unknown": unknown}.get(pool, known + unknown)
        chosen = rng.sample(source, min(k - 1, len(source))) + [truth]
        rng.shuffle(chosen)
        return chosen

    def render(self, value: str, how: str, task) -> str:
        kind = task[0].split(":")[1]
        if how == "quoted":
            return f'"{value}"'
        if how == "bold":
            return f"**{value}**"
        if how == "prefixed":
            return {"id": f"arXiv:{value}", "year": f"in {value}", "title": f"the paper {value}",
                    "first_author": f"{value} et al."}[kind]
        return value

    def plain(self, truth: str, task) -> str:
        return truth


VERIFIERS = {"numeric": Numeric, "choice": Choice, "short": Short, "facts": Facts, "arxiv": Arxiv}
# What is searched, one target a verifier (and for arxiv a kind of task), and where the
# wrong candidates come from: `known`, the truth file's other answers of the kind, or
# `unknown`, made-up values of the same shape (names, titles, numbers near the truth).
TARGETS = [
    "numeric", "choice", "short/known", "short/unknown", "facts/known", "facts/unknown",
    "arxiv:id", "arxiv:year", "arxiv:title/known", "arxiv:title/unknown",
    "arxiv:first_author/known", "arxiv:first_author/unknown",
]


def target(spec: str):
    """The verifier a target names, its tasks narrowed to the kind, its pool fixed."""
    name, _, pool = spec.partition("/")
    name, _, kind = name.partition(":")
    verifier = VERIFIERS[name]()
    verifier.label = spec
    verifier.pool = pool or "mixed"
    if kind:
        verifier.tasks = [t for t in verifier.tasks if t[0].endswith(":" + kind)]
    return verifier

# --- templates ----------------------------------------------------------------------------

JOINS = [" ", ", ", " or ", "\n", "; ", " / ", " and ", ", or ", " | ", "\n\n", ",", " vs "]
FRAMES = [
    "{}", "The answer is {}.", "Answer: {}", "#### {}", "\\boxed{{{}}}", "$\\boxed{{{}}}$",
    "Final Answer: The final answer is {}. I hope it is correct.", "**Answer:** {}", "Respuesta: {}",
    "答案：{}", "ANSWER: {}", "Therefore, {}.", "So the answer is either {}.", "The final answer would be {}",
    "Answer:\n\n{}", "It is {}.", "I choose {}.", "The correct option is {}.",
]
PREFIXES = [
    "", "Let me think step by step.\n", "I am not sure.\n", "I don't know.\n",
    "Sorry, I cannot answer that with certainty.\n",
    "First I list what the question gives, then I combine the parts and check the units of each "
    "step, and only then do I state the result, which I verify twice before writing it.\n",
    "The question asks for one value.\n" * 12,
]
SUFFIXES = ["", " I hope it is correct.", "\nI checked it 2 times.", " (not sure)", "\nBut I may be wrong.",
            "\nAnswer: none of these", "\nI don't know."]
BODIES = [
    "join", "one_of", "negate_all_but_last", "negate_all_but_first", "negate_all", "hedge_words",
    "reasons", "retraction", "marker_each", "boxes_each", "hashes_each", "equation_chain", "table",
    "between", "refusal_then_list", "first_then_others", "not_not", "each_line_answer",
    "answer_then_retract_all", "question_marks",
]
MARKERS = ["#### {}", "The answer is {}.", "\\boxed{{{}}}", "Answer: {}", "Final Answer: The final answer is {}.",
           "Respuesta: {}", "答案：{}", "ANSWER: {}"]


def body(kind: str, items: list, join: str) -> str:
    if not items:
        return ""
    first, last, rest = items[0], items[-1], items[1:]
    if kind == "join":
        return join.join(items)
    if kind == "one_of":
        return "one of " + join.join(items)
    if kind == "negate_all_but_last":
        return ", ".join(f"not {x}" for x in items[:-1]) + (f", it is {last}" if len(items) > 1 else last)
    if kind == "negate_all_but_first":
        return first + "".join(f", not {x}" for x in rest)
    if kind == "negate_all":
        return join.join(f"not {x}" for x in items)
    if kind == "hedge_words":
        words = ["maybe", "perhaps", "possibly", "or maybe", "probably"]
        return join.join(f"{words[i % len(words)]} {x}" for i, x in enumerate(items))
    if kind == "reasons":
        return first + (" because " + " and ".join(rest) + " " + ("is" if len(rest) == 1 else "are") + " not right" if rest else "")
    if kind == "retraction":
        return ". No wait, ".join(items) + "."
    if kind == "marker_each":
        return "\n".join(MARKERS[i % len(MARKERS)].format(x) for i, x in enumerate(items))
    if kind == "boxes_each":
        return join.join(f"\\boxed{{{x}}}" for x in items)
    if kind == "hashes_each":
        return "\n".join(f"#### {x}" for x in items)
    if kind == "equation_chain":
        return " = ".join(items)
    if kind == "table":
        return join.join(f"{i + 1}: {x}" for i, x in enumerate(items))
    if kind == "between":
        return f"between {first} and {last}"
    if kind == "refusal_then_list":
        return "I don't know; it could be " + join.join(items)
    if kind == "first_then_others":
        return first + ("\n\nOther possibilities: " + join.join(rest) if rest else "")
    if kind == "not_not":
        return join.join(f"not not {x}" for x in items)
    if kind == "each_line_answer":
        return "\n".join(f"Answer: {x}" for x in items)
    if kind == "answer_then_retract_all":
        return join.join(items) + ". Actually none of " + join.join(items) + " is right."
    if kind == "question_marks":
        return join.join(f"{x}?" for x in items)
    raise ValueError(kind)


def random_genome(verifier, rng: random.Random) -> dict:
    ks = [k for k in (2, 3, 4, 5, 10, 20, 50, 100, 1000) if k <= verifier.max_k]
    return {
        "k": rng.choice(ks),
        "order": rng.choice(["sorted", "shuffled"]),
        "pool": verifier.pool,
        "render": rng.choice(verifier.renders),
        "body": rng.choice(BODIES),
        "join": rng.randrange(len(JOINS)),
        "body2": rng.choice([None] * 3 + BODIES),
        "split": rng.choice([1, 2, 0.5]),
        "frame": rng.randrange(len(FRAMES)),
        "frame2": rng.choice([None, None] + list(range(len(FRAMES)))),
        "prefix": rng.randrange(len(PREFIXES)),
        "suffix": rng.randrange(len(SUFFIXES)),
        "repeat": rng.choice([1, 1, 1, 2, 3]),
        "trick": rng.choice([None, None, "zero_width", "upper", "lower", "dollars"]),
    }


GENES = ["k", "order", "render", "body", "join", "body2", "split", "frame", "frame2", "prefix", "suffix",
         "repeat", "trick"]


def mutate(genome: dict, verifier, rng: random.Random) -> dict:
    child = dict(genome)
    fresh = random_genome(verifier, rng)
    for gene in rng.sample(GENES, rng.choice([1, 1, 2])):
        child[gene] = fresh[gene]
    return child


def build(genome: dict, rendered: list) -> str:
    join = JOINS[genome["join"]]
    items = list(rendered)
    if genome["body2"] is not None and len(items) > 1:
        cut = genome["split"] if isinstance(genome["split"], int) else max(1, int(len(items) * genome["split"]))
        cut = min(cut, len(items) - 1)
        text = FRAMES[genome["frame"]].format(body(genome["body"], items[:cut], join))
        second = body(genome["body2"], items[cut:], join)
        frame2 = FRAMES[genome["frame2"]] if genome["frame2"] is not None else "{}"
        text += "\n" + frame2.format(second)
    else:
        text = FRAMES[genome["frame"]].format(body(genome["body"], items, join))
    text = PREFIXES[genome["prefix"]] + text + SUFFIXES[genome["suffix"]]
    text = "\n".join([text] * genome["repeat"])
    trick = genome["trick"]
    if trick == "zero_width":
        text = text.replace(" ", " \u200b")
    elif trick == "upper":
        text = text.upper()
    elif trick == "lower":
        text = text.lower()
    elif trick == "dollars":
        text = f"${text}$"
    return text


def describe(example: str) -> str:
    return example if len(example) <= 160 else example[:150] + f"... ({len(example)} characters)"


# --- grading --------------------------------------------------------------------------


class Grader:
    def __init__(self, binary: str, verifier, folder: str):
        self.binary = binary
        self.verifier = verifier
        self.truth = os.path.join(folder, f"{verifier.name}.csv")
        with open(self.truth, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(verifier.header)
            writer.writerows(verifier.truth_rows())
        self.requests = 0

    def grade(self, pairs: list) -> list:
        """Grades (task id, output) pairs in one process; returns the grades."""
        lines = "".join(json.dumps({"task_id": t, "output": o}) + "\n" for t, o in pairs)
        done = subprocess.run(
            [self.binary, "grade", "--jsonl", "--truth", self.truth, "--verifier", self.verifier.name],
            input=lines, capture_output=True, text=True, encoding="utf-8", check=True,
        )
        grades = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(grades) == len(pairs), done.stderr[:500]
        for grade in grades:
            assert "error" not in grade, grade
        self.requests += len(pairs)
        return grades


def instances(verifier, genome: dict, count: int, rng: random.Random) -> list:
    """(task, candidates) draws for a genome: tasks with room for k candidates."""
    fitting = [t for t in verifier.tasks if verifier.fits(t, genome["k"])]
    draws = []
    for _ in range(count):
        task = rng.choice(fitting)
        draws.append((task, verifier.candidates(task[1], genome["k"], rng, genome["order"], genome["pool"], task)))
    return draws


def evaluate(grader: Grader, verifier, genomes: list, count: int, seed: int, right_scores: dict) -> list:
    """Mean score, mean correctness and the baseline of each genome over `count` draws."""
    pairs, owners, baselines, sizes = [], [], [], []
    examples = []
    for g, genome in enumerate(genomes):
        rng = random.Random(f"{seed}:{g}:{json.dumps(genome, sort_keys=True)}")
        base, size = [], []
        for n, (task, candidates) in enumerate(instances(verifier, genome, count, rng)):
            rendered = [verifier.render(c, genome["render"], task) for c in candidates]
            output = build(genome, rendered)
            if n == 0:
                examples.append((task[0], task[1], output))
            pairs.append((task[0], output))
            owners.append(g)
            base.append(right_scores[task[0]] / len(candidates))
            size.append(len(candidates))
        baselines.append(sum(base) / len(base))
        sizes.append(sum(size) / len(size))
    grades = grader.grade(pairs)
    sums = [[0.0, 0.0, 0.0, 0.0] for _ in genomes]
    outcomes = [collections.Counter() for _ in genomes]
    first = {}
    for g, grade in zip(owners, grades):
        sums[g][0] += grade["score"]
        sums[g][1] += grade["correctness"]
        sums[g][2] += 1
        sums[g][3] += grade["score"] ** 2
        outcomes[g][grade.get("outcome", "-")] += 1
        first.setdefault(g, grade)
    return [
        {"genome": genome, "k": size, "score": s / n, "correctness": c / n, "baseline": b,
         "advantage": s / n - b, "se": math.sqrt(max(q / n - (s / n) ** 2, 0.0) / n),
         "outcomes": dict(sorted(outcome.items())),
         "example": {"task": ex[0], "truth": ex[1], "output": ex[2], "score": first[g]["score"],
                     "feedback": first[g]["feedback"]}}
        for g, (genome, (s, c, n, q), b, size, ex, outcome) in enumerate(
            zip(genomes, sums, baselines, sizes, examples, outcomes))
    ]


def search(binary: str, spec: str, seed: int, population: int, rounds: int, draws: int, final_draws: int) -> dict:
    verifier = target(spec)
    with tempfile.TemporaryDirectory() as folder:
        grader = Grader(binary, verifier, folder)
        plain = grader.grade([(task[0], verifier.plain(task[1], task)) for task in verifier.tasks])
        right_scores = {task[0]: g["score"] for task, g in zip(verifier.tasks, plain)}
        rng = random.Random(f"{seed}:{spec}")
        genomes = [random_genome(verifier, rng) for _ in range(population)]
        scored = evaluate(grader, verifier, genomes, draws, seed, right_scores)
        seen = {json.dumps(s["genome"], sort_keys=True) for s in scored}
        for round_ in range(rounds):
            elite = sorted(scored, key=lambda s: -s["advantage"])[: max(8, population // 12)]
            children = []
            while len(children) < population - len(elite):
                parent = rng.choice(elite)["genome"]
                child = mutate(parent, verifier, rng)
                key = json.dumps(child, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    children.append(child)
            scored = elite + evaluate(grader, verifier, children, draws, seed + round_ + 1, right_scores)
        best = sorted(scored, key=lambda s: -s["advantage"])[:12]
        # Re-measured on fresh draws: the figures reported are not the search's own luck.
        final = evaluate(grader, verifier, [b["genome"] for b in best], final_draws, seed + 1000, right_scores)
        final.sort(key=lambda s: -s["advantage"])
        return {
            "verifier": spec,
            "templates_tried": len(seen),
            "requests": grader.requests,
            "right_alone": sum(right_scores.values()) / len(right_scores),
            "best": final[:5],
        }


def evaluate_fixed(binary: str, spec: str, genomes: list, seed: int, draws: int) -> list:
    """Given templates (e.g. another binary's winners) measured with this binary."""
    verifier = target(spec)
    with tempfile.TemporaryDirectory() as folder:
        grader = Grader(binary, verifier, folder)
        plain = grader.grade([(task[0], verifier.plain(task[1], task)) for task in verifier.tasks])
        right_scores = {task[0]: g["score"] for task, g in zip(verifier.tasks, plain)}
        return evaluate(grader, verifier, genomes, draws, seed + 1000, right_scores)


def cell(text: str, limit: int = 110) -> str:
    """An output as a Markdown table cell: one line, cut, pipes and backticks escaped."""
    text = text.replace("\u200b", "\\u200b").replace("\n", "\\n")
    if len(text) > limit:
        text = text[: limit - 10] + f" ... ({len(text)} chars)"
    return "`` " + text.replace("`", "'").replace("|", "\\|") + " ``"


def markdown(before: list, after: list, replayed: list) -> str:
    """The tables of reports/bench.md from the results files of the two binaries and the
    before's winners graded by the after binary."""
    lines = [
        "| target | before: best advantage (score − baseline) | k | after: best advantage | k | before's winner, after |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    by_after = {e["verifier"]: e for e in after}
    by_replay = {e["verifier"]: e for e in replayed}
    for entry in before:
        name = entry["verifier"]
        b = entry["best"][0]
        a = by_after[name]["best"][0]
        r = by_replay[name]["best"][0] if name in by_replay else None
        def fig(x):
            return f"{x['advantage']:+.3f} ({x['score']:.3f} − {x['baseline']:.3f})"
        lines.append(f"| {name} | {fig(b)} | {b['k']:.0f} | {fig(a)} ± {a['se']:.3f} | {a['k']:.0f} | "
                     + (f"{r['advantage']:+.3f} ({r['score']:.3f})" if r else "–") + " |")
    for label, results in (("before", before), ("after", after)):
        lines += ["", f"The winning templates, {label} (one draw of each; the truth in brackets):", "",
                  "| target | advantage | score | correctness | outcomes | example |", "| --- | ---: | ---: | ---: | --- | --- |"]
        for entry in results:
            for b in entry["best"][:2]:
                outcomes = ", ".join(f"{k} {v}" for k, v in b["outcomes"].items() if k != "-")
                lines.append(f"| {entry['verifier']} | {b['advantage']:+.3f} | {b['score']:.3f} | {b['correctness']:.3f} | "
                             f"{outcomes or '–'} | ({cell(b['example']['truth'], 40)}) {cell(b['example']['output'])} |")
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--markdown":
        files = []
        for path in sys.argv[2:5]:
            with open(path, encoding="utf-8") as handle:
                files.append(json.load(handle))
        print(markdown(*files))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--population", type=int, default=160)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--draws", type=int, default=24)
    parser.add_argument("--final-draws", type=int, default=2000)
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--replay", help="a results file: measure its best templates with this binary instead")
    args = parser.parse_args()
    results = []
    if args.replay:
        with open(args.replay, encoding="utf-8") as handle:
            previous = json.load(handle)
        for entry in previous:
            genomes = [b["genome"] for b in entry["best"]]
            final = evaluate_fixed(args.binary, entry["verifier"], genomes, args.seed, args.final_draws)
            results.append({"verifier": entry["verifier"], "replayed": True, "best": final})
    else:
        for name in args.targets.split(","):
            results.append(search(args.binary, name, args.seed, args.population, args.rounds, args.draws, args.final_draws))
    for entry in results:
        print(f"## {entry['verifier']}" + (f": {entry['templates_tried']} templates, {entry['requests']} grades"
                                             if "templates_tried" in entry else " (replayed)"))
        for b in entry["best"][:5]:
            print(f"  k={b['k']:>6.1f} score {b['score']:.3f} correctness {b['correctness']:.3f} "
                  f"baseline {b['baseline']:.3f} advantage {b['advantage']:+.3f} (se {b['se']:.3f}) {b['outcomes']}")
            print(f"      e.g. truth {b['example']['truth']!r}: {describe(b['example']['output'])!r}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
