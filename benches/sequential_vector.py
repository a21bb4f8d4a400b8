"""Writes tests/data/sequential_vector.tsv: the e-values of the Python reimplementation
(python/evogate/sequential.py, pure Python floats, math.log1p) after every pair of two
fixed sequences, for the Rust test `e_values_equal_the_python_reimplementation` and the
Python test that recomputes them. Run from the repository's top folder:
``python3 benches/sequential_vector.py``.

Usage: python3 benches/sequential_vector.py
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location(
    "sequential", os.path.join(ROOT, "python", "evogate", "sequential.py")
)
sequential = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sequential)


def scores(n):
    """Differences in steps of 0.05 from a linear congruential stream (2^64 modulus)."""
    state, out = 99, []
    for _ in range(n):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        cell = (state >> 33) % 41
        out.append(round((int(cell) - 20) / 20.0, 2))
    return out


def rows():
    # Scores, holdout 200, margin 0.05, no strata: 150 pairs.
    s = sequential.Sequential(holdout=200, alpha=0.05, margin=0.05)
    improvement = sequential._Track(1.0, 0.0, s.bets, False)
    futility = sequential._Track(-1.0, -0.05, s.bets, False)
    for look, d in enumerate(scores(150), start=1):
        improvement.push(d)
        futility.push(d)
        yield ("scores", look, d, improvement.log_e_value(), futility.log_e_value())
    # 0/1 correct, holdout 500, margin 0: 150 pairs of -1, 0, 1.
    bets = sequential.bet_fractions(500)
    improvement = sequential._Track(1.0, 0.0, bets, True)
    futility = sequential._Track(-1.0, 0.0, bets, True)
    for look, d in enumerate(scores(150), start=1):
        x = 1.0 if d > 0.3 else (-1.0 if d < -0.4 else 0.0)
        improvement.push(x)
        futility.push(x)
        yield ("correct", look, x, improvement.log_e_value(), futility.log_e_value())


with open(os.path.join(ROOT, "tests", "data", "sequential_vector.tsv"), "w") as out:
    out.write("# python3 benches/sequential_vector.py (python/evogate/sequential.py)\n")
    out.write("kind\tlook\tdifference\tlog_e_improvement\tlog_e_futility\n")
    for kind, look, d, a, b in rows():
        out.write(f"{kind}\t{look}\t{d!r}\t{a!r}\t{b!r}\n")
