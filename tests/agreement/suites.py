"""The string sets agreement.py adds to its generated strings and real logs:

- Math-Verify's own test cases with numeric golds (math_verify_cases.json, vendored by
  vendor_math_verify.py from the math-verify 0.9.0 sdist), against the label each test
  asserts; Math-Verify itself is re-run on each under its test's configuration, a check
  that the vendored label is the one it passes with;
- simple-evals' 41 multilingual answer markers (simple_evals_markers.json, from
  openai/simple-evals' common.py), each after a reasoning line and followed by a right
  or a wrong letter (and the Arabic and Bengali letters simple-evals reads), against
  simple-evals' own extraction (mmlu_eval.py: the first marker that matches decides);
- outputs of each class in classes.py (negation and refusal, listing, equations, reasons,
  answer forms, numbers that are not the answer's value), against their hand labels;
  the official scorers are run on the same strings and their agreement with the hand
  labels is printed beside evogate's.
"""

from __future__ import annotations

import collections
import json
import os
import re

import classes

HERE = os.path.dirname(os.path.abspath(__file__))

MATH_VERIFY_TESTS = "math-verify's own tests (label asserted)"
SIMPLE_EVALS = "simple-evals MMLU, 41 answer markers after a reasoning line"
HAND = "hand labels"
NAMES = (MATH_VERIFY_TESTS, SIMPLE_EVALS)
# Agreement each new reference must reach. The Math-Verify cases and the markers are
# fixed strings, so their floors are their figures. A hand label missed fails the check
# on its own unless it is a known miss (below), so the hand labels need no floor.
FLOORS = collections.defaultdict(float)
FLOORS[MATH_VERIFY_TESTS] = 0.92
FLOORS[SIMPLE_EVALS] = 1.0
# The seed of the class strings (classes.py).
CLASS_SEED = 39


def hand(name: str) -> str:
    return f"{HAND}: {name}"


class Label(tuple):
    """A hand label as the reference of a row (see classes.py)."""


# --- Math-Verify's tests ----------------------------------------------------------------


def math_verify_cases() -> list:
    with open(os.path.join(HERE, "math_verify_cases.json"), encoding="utf-8") as handle:
        return json.load(handle)["cases"]


def math_verify_label_holds(case: dict) -> bool:
    """Math-Verify's `compare_strings` (tests/test_all.py) under the case's test config."""
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    targets = [LatexExtractionConfig(boxed_match_priority=0) if t == "latex" else ExprExtractionConfig()
               for t in case["match_types"]]
    gold, pred = case["gold"], case["output"]
    if case["test"].startswith("tests/test_boxed.py"):
        gold, pred = pred, gold  # the test's own column order
    verdict = verify(parse(gold, targets), parse(pred, targets), float_rounding=case["precision"], strict=True)
    return int(verdict) == case["expected"]


# --- simple-evals' markers --------------------------------------------------------------

with open(os.path.join(HERE, "simple_evals_markers.json"), encoding="utf-8") as _handle:
    _MARKERS = json.load(_handle)
MARKER_TEMPLATE = _MARKERS["pattern_template"]
MARKER_REGEXES = _MARKERS["regexes"]


def simple_evals_normalize_response(response: str) -> str:
    """simple-evals common.py, normalize_response."""
    return (
        response.replace("**", "").replace("$\\boxed{", "").replace("}$", "").replace("\\$", "")
        .replace("$\\text{", "").replace("$", "").replace("\\mathrm{", "").replace("\\{", "")
        .replace("\\text", "").replace("\\(", "").replace("\\mathbf{", "").replace("{", "")
        .replace("\\boxed", "")
    )


def simple_evals_normalize_extracted(answer: str) -> str:
    """simple-evals common.py, normalize_extracted_answer."""
    for native, latin in zip("أبجدঅবডঢＡＢＣＤ", "ABCDABCDABCD"):
        answer = answer.replace(native, " " + latin)
    return answer.strip()


def simple_evals_choice(output: str) -> str | None:
    """simple-evals mmlu_eval.py: the first of the markers that matches decides."""
    text = simple_evals_normalize_response(output)
    for marker in MARKER_REGEXES:
        match = re.search(MARKER_TEMPLATE.format(marker), text)
        if match:
            return simple_evals_normalize_extracted(match.group(1))
    return None


MARKER_REASONING = ("Goggles cover the eyes, gloves protect the hands and an apron stops rays, "
                    "so one of them fits the question best.")
MARKER_OPTIONS = "rubber gloves|safety goggles|breathing mask|lead apron"


def marker_cases() -> list:
    """Each distinct marker after a reasoning line, with the right letter and a wrong one,
    and, for the Arabic and Bengali markers, the right letter in that script."""
    cases = []
    distinct = list(dict.fromkeys(MARKER_REGEXES))
    for i, marker in enumerate(distinct):
        literal = marker.replace("\\s*", "")
        space = "" if literal.endswith("：") else " "
        right, wrong = "ABCD"[i % 4], "ABCD"[(i + 1) % 4]
        letters = [right, wrong]
        if re.match(r"[\u0600-\u06ff]", literal):
            letters.append("أبجد"[i % 4])
        elif re.match(r"[\u0980-\u09ff]", literal):
            letters.append("অবডঢ"[i % 4])
        for letter in letters:
            cases.append({
                "answer": right, "options": MARKER_OPTIONS, "letters": "ABCD",
                "output": f"{MARKER_REASONING}\n{literal}{space}{letter}",
                "template": f"marker {marker!r}",
                "first": letter == right,
            })
    return cases


# --- the rows -------------------------------------------------------------------------


def numeric_rows(binary: str, refs) -> tuple:
    """Rows for Math-Verify's tests and the numeric class strings, and the official
    scorers' verdicts on the class strings."""
    tests = math_verify_cases()
    for case in tests:
        assert math_verify_label_holds(case), ("Math-Verify no longer passes its own test", case["test"])
    class_cases = classes.all_cases(CLASS_SEED)["numeric"]
    every = tests + class_cases
    grades = refs.grade_all(
        binary, "numeric", ["group", "kind", "question", "answer"],
        [[f"c{i}", "n", "q", c["truth"]] for i, c in enumerate(every)],
        [c["output"] for c in every],
    )
    rows = []
    for case, grade in zip(tests, grades):
        case["template"] = case["test"]
        rows.append((MATH_VERIFY_TESTS, case, grade, case["expected"] == 1))
    others = collections.defaultdict(list)
    for case, grade in zip(class_cases, grades[len(tests):]):
        case["template"] = case["class"]
        rows.append((hand(case["class"]), case, grade, Label(case["label"])))
        gold = f"#### {case['truth']}"
        mv = refs.math_verify_reference(case["output"], classes.numeric_latex(case["truth"]))
        lm, _ = refs.gsm8k_reference(case["output"], gold)
        others["math-verify"].append((case, mv, float(mv)))
        others["lm-eval gsm8k (strict-match with ####, else flexible-extract)"].append((case, lm, float(lm)))
    return rows, others


def choice_rows(binary: str, refs) -> tuple:
    markers = marker_cases()
    class_cases = classes.all_cases(CLASS_SEED)["choice"]
    every = markers + class_cases
    grades = refs.grade_all(
        binary, "choice", ["group", "kind", "question", "answer", "options"],
        [[f"c{i}", "c", "q", c["answer"], c["options"]] for i, c in enumerate(every)],
        [c["output"] for c in every],
    )
    rows = []
    for case, grade in zip(markers, grades):
        rows.append((SIMPLE_EVALS, case, grade, simple_evals_choice(case["output"]) == case["answer"]))
    others = collections.defaultdict(list)
    for case, grade in zip(class_cases, grades[len(markers):]):
        case["template"] = case["class"]
        rows.append((hand(case["class"]), case, grade, Label(case["label"])))
        for name, chosen in (
            ("simple-evals MMLU", simple_evals_choice(case["output"])),
            ("inspect choice()", next(iter(refs.inspect_choice(case["output"], case["letters"])), None)),
            ("lm-eval mmlu_pro", next(iter(refs.mmlu_pro_choice(case["output"])), None)),
        ):
            right = chosen == case["answer"]
            others[name].append((case, right, float(right)))
    return rows, others


def short_rows(binary: str, refs) -> tuple:
    class_cases = classes.all_cases(CLASS_SEED)["short"]
    grades = refs.grade_all(
        binary, "short", ["group", "kind", "question", "answer"],
        [[f"c{i}", "s", "q", c["answer"]] for i, c in enumerate(class_cases)],
        [c["output"] for c in class_cases],
    )
    rows = []
    others = collections.defaultdict(list)
    for case, grade in zip(class_cases, grades):
        case["template"] = case["class"]
        rows.append((hand(case["class"]), case, grade, Label(case["label"])))
        em, f1 = refs.squad_reference(case["output"], case["golds"])
        others["SQuAD v1.1 (EM, F1 as the credit)"].append((case, em, f1))
    return rows, others


def summary(verifier: str, rows: list) -> list:
    """Lines to print beside the rates: for choice, how many of the 41 markers each side
    reads the right letter after (in the Latin alphabet)."""
    if verifier != "choice":
        return []
    evogate, reference, markers = 0, 0, 0
    for name, case, grade, agreed in rows:
        if name == SIMPLE_EVALS and case.get("first"):
            markers += 1
            evogate += bool(grade["correct"])
            reference += bool(agreed)
    return [f"  markers read (the right letter after each): evogate {evogate}/{markers}, "
            f"simple-evals {reference}/{markers}"]


def label_met(grade: dict, label: Label) -> bool:
    return classes.meets(tuple(label), grade["correct"], grade["score"])


def references_on_labels(others: dict) -> dict:
    """Per reference and class: (agree, total) of the reference's verdict with the label."""
    table = {}
    for name, verdicts in others.items():
        tally = collections.defaultdict(lambda: [0, 0])
        for case, correct, credit in verdicts:
            cell = tally[case["class"]]
            cell[1] += 1
            cell[0] += classes.meets(case["label"], correct, credit)
        table[name] = dict(tally)
    return table


# Why evogate's grade is the right one, for each kind of disagreement on these strings
# (docs/grading.md carries the same list).
CLASSES = {
    "comma or space in a number": "Math-Verify reads `1000,99` and `2,74` as decimals "
    "(a decimal comma) and `1 000` as one thousand; evogate reads a comma only between "
    "groups of three digits and a space never, so `1,5` and `1 000` are two numbers: a "
    "hedge or the wrong number, never a guess at the writer's locale",
    "expression, not a number": "Math-Verify computes `(9+1)`; evogate grades the number "
    "an answer states and computes nothing, so an unevaluated expression does not state 10",
    "reference reads too little": "Math-Verify's own label says a `$ ... $` or `\\( ... \\)` "
    "broken over lines holds no answer; evogate reads the 9 it states",
}

# Disagreements where evogate's grade is the wrong one: readings the verifiers do not
# yet get right, each a pattern that matches only the form found (the whole output), so
# that no other string can hide behind it. The check prints them and passes; once one is
# fixed its strings agree, which the check accepts too.
KNOWN_MISSES = [
    ("numeric", r"\$x=1/3\\approx1\.3\$",
     "an exact value followed by `\\approx` and a rounding is graded by the rounding (Math-Verify "
     "reads the exact value; `The answer is 22/7 ≈ 3.14.` for 22/7 is graded wrong too)"),
    ("numeric", r"The answer is \d+ \(or possibly \d+\)\.",
     "an alternative in brackets is not read: the hedge is graded as its first number alone"),
    ("numeric", r"The answer is \$\\log_2 \d+\$\.",
     "`\\log_2 917` is read as 917 (`\\ln 917` and `\\log_{2}{917}` are expressions, as they should be)"),
    ("choice", r"I'd pick [A-D] since [A-D] does not fit\.",
     "`I'd pick` is not an answer phrase, so the reason's letter is read as a choice (and `A since` as "
     "the article)"),
    ("choice", r"Answer: [A-D] \([A-D] is a distractor\)",
     "a reason in brackets naming another option is read as a second choice: a hedge"),
    ("choice", r"The answer is [A-D]; [A-D] is tempting but wrong\.",
     "`C is tempting but wrong` is not read as rejecting C: a hedge"),
    ("choice", r"(?s).*\nLa respuesta es [A-D]\.",
     "a sentence-form answer phrase of another language after reasoning (`La respuesta es B.`) is not "
     "an answer phrase; only the marker forms (`Respuesta:`) are"),
    ("short", r".+ \(not [^()]+\)",
     "a negation in brackets (`Paris (not London)`) rejects the part it stands in, the answer "
     "with it: no answer"),
]


def known_miss(verifier: str, output: str) -> str | None:
    """The hole a disagreement is a known instance of, if it is one."""
    for name, pattern, hole in KNOWN_MISSES:
        if name == verifier and re.fullmatch(pattern, output):
            return hole
    return None


def classify(verifier: str, name: str, case: dict, grade: dict, reference) -> str | None:
    """The class of a disagreement on these strings, or None (the check fails)."""
    output = case["output"]
    if known_miss(verifier, output):
        return "known miss"
    if name == MATH_VERIFY_TESTS and reference and not grade["correct"]:
        if re.search(r"\d(,\d{1,2}|,\d{4,}| \d)", output) and not re.search(r"\d,\d{3}\b", output):
            return "comma or space in a number"
        if re.search(r"\(\s*\d+\s*[-+*/]\s*\d+\s*\)", output):
            return "expression, not a number"
    if name == MATH_VERIFY_TESTS and not reference and grade["correct"]:
        if re.search(r"(\$|\\\()\s*\n", output):
            return "reference reads too little"
    return None
