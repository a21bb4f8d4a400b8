"""Writes tests/agreement/math_verify_cases.json: the test cases of Math-Verify 0.9.0
whose gold answer is one number, as data, with the test each came from.

Math-Verify (huggingface/Math-Verify, Apache-2.0) ships its tests in the sdist. Every
`@pytest.mark.parametrize` table of (gold, pred, expected) in its tests/ folder is read
with `ast` (the code is never run); a case is kept when its gold is one number as an
evogate `numeric` truth writes it (an integer, a decimal, a fraction `a/b` or
`\\frac{a}{b}`, a percent, optionally inside `$...$` or `\\boxed{}`). In
tests/test_boxed.py the model's output sits in the `gold` column and the number in
`pred` (Math-Verify's `verify` is symmetric); there the two are swapped. The truth is
written as the value Math-Verify reads the gold as (`0,111` is its decimal comma, so
`0.111`).

Each kept case is re-checked here with Math-Verify itself, under the extraction
configuration its test used (tests/test_all.py's `compare_strings`), so the label
vendored is the one Math-Verify passes with.

Not run in CI. Usage, with math-verify==0.9.0 installed:
    pip download --no-deps --no-binary :all: math-verify==0.9.0
    tar xzf math_verify-0.9.0.tar.gz
    python tests/agreement/vendor_math_verify.py math_verify-0.9.0/tests
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "math_verify_cases.json")

# The extraction configuration each test function passes to `compare_strings`
# (tests/test_all.py): match types and float rounding. `compare_strings` always uses
# LatexExtractionConfig(boxed_match_priority=0) and strict=True.
CONFIG = {
    "test_number_extraction": (["expr"], 6),
    "test_simple_fraction_notation": (["latex", "expr"], 6),
    "test_sets_handling": (["latex", "expr"], 6),
    "test_latex_notation": (["latex"], 6),
    "test_percent_notation": (["latex", "expr"], 6),
    "test_latex_notation_math": (["latex"], 6),
    "test_relations_math": (["latex"], 6),
    "test_matrix_extraction": (["latex"], 6),
    "test_complex_math_expressions": (["latex", "expr"], None),  # precision is a column
    "test_math_extraction_edge_cases": (["latex", "expr"], 6),
    "test_math_extraction_additional_cases": (["latex", "expr"], 6),
    "test_sqrt_precision": (["latex", "expr"], 5),
    "test_symbols": (["latex", "expr"], 5),
    "test_boxed": (["latex", "expr"], 6),
    "test_numina_cases": (["latex", "expr"], 6),
    "test_open_thoughts": (["latex", "expr"], 6),
}

NUMBER = r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|-?\.\d+"


def as_truth(gold: str) -> str | None:
    """The gold as an evogate numeric truth, or None when it is not one number."""
    text = re.sub(r"^\$+|\$+$", "", gold.strip()).strip()
    boxed = re.fullmatch(r"\\boxed\{(.*)\}", text)
    if boxed:
        text = boxed.group(1).strip()
    frac = re.fullmatch(r"(-?)\\[dt]?frac\{(\d+)\}\{(\d+)\}", text)
    if frac:
        return f"{frac.group(1)}{frac.group(2)}/{frac.group(3)}"
    percent = re.fullmatch(rf"({NUMBER})\s*\\?%", text)
    if percent:
        return percent.group(1) + "%"
    if re.fullmatch(NUMBER, text) or re.fullmatch(r"-?\d+/\d+", text):
        return text
    return None


def value(truth: str) -> Fraction:
    text = truth.replace(",", "")
    if text.endswith("%"):
        return Fraction(text[:-1]) / 100
    return Fraction(text)


def tables(folder: str):
    """(file, test, index, {column: value}) for every parametrize row that is a literal."""
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef):
                continue
            for decorator in node.decorator_list:
                if not (isinstance(decorator, ast.Call)
                        and getattr(decorator.func, "attr", "") == "parametrize"):
                    continue
                columns = [c.strip() for c in ast.literal_eval(decorator.args[0]).split(",")]
                try:
                    rows = ast.literal_eval(decorator.args[1])
                except ValueError:
                    continue  # a table built with f-strings or calls: not literal data
                for index, row in enumerate(rows):
                    yield name, node.name, index, dict(zip(columns, row))


def main() -> int:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig, parse, verify

    def compare(gold, pred, match_types, precision):
        targets = [LatexExtractionConfig(boxed_match_priority=0) if t == "latex"
                   else ExprExtractionConfig() for t in match_types]
        return int(verify(parse(gold, targets), parse(pred, targets),
                          float_rounding=precision, strict=True))

    folder = sys.argv[1]
    cases = []
    for file, test, index, row in tables(folder):
        if test not in CONFIG or "gold" not in row:
            continue
        gold, pred, expected = row["gold"], row["pred"], int(row["expected"])
        swapped = False
        truth = as_truth(gold)
        if truth is None and test == "test_boxed":
            truth, swapped = as_truth(pred), True
        if truth is None:
            continue
        numeric_gold, output = (pred, gold) if swapped else (gold, pred)
        parsed = parse(numeric_gold)
        try:
            read = Fraction(str(float(parsed[0].doit()))).limit_denominator(10**9)
        except (IndexError, TypeError):
            sys.exit(f"Math-Verify reads no number in the gold of {file}::{test}[{index}]: {parsed}")
        if value(truth) != read:
            truth = str(float(parsed[0].doit()))  # the decimal comma: `0,111` is 0.111
        match_types, precision = CONFIG[test]
        precision = row.get("precision", precision)
        assert compare(gold, pred, match_types, precision) == expected, (file, test, index)
        cases.append({
            "test": f"tests/{file}::{test}[{index}]",
            "gold": numeric_gold,
            "truth": truth,
            "output": output,
            "expected": expected,
            "match_types": match_types,
            "precision": precision,
        })
    document = {
        "source": "Math-Verify 0.9.0 (PyPI sdist math_verify-0.9.0.tar.gz, "
        "github.com/huggingface/Math-Verify), tests/*.py, Apache-2.0; written by "
        "tests/agreement/vendor_math_verify.py",
        "kept": "every parametrize case whose gold answer is one number",
        "cases": cases,
    }
    with open(OUT, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
