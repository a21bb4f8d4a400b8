"""Independent reference values for the exact signed-rank null at large n.

Writes tests/data/signed_rank_exact.tsv, which src/stats/tests/signed_rank_large.rs
reads (the Rust tests never run Python). Usage, from the repository root:

    /work/venv-ref/bin/python benches/signed_rank_reference.py > tests/data/signed_rank_exact.tsv

Differences: for i in 0..n, class c = (i*a + 7) mod m, sign +1 if (i*b + 3) mod 1000 < thr
else -1, d = float(sign*c) * scale. Class 0 is a zero difference. The Rust test builds the
same f64 values (one multiplication of exactly representable integers).

Two independent computations, neither shared with the Rust code:

* `groups` (few distinct |d|): exact integer arithmetic. The null count of doubled W+ <= w
  is the coefficient sum of prod_k (1 + x^r_k)^m_k over tie groups (doubled midrank r_k,
  size m_k). Every group but the last is enumerated over a range of j_k (number of +
  signs) around m_k/2, with exact binomial coefficients (math.comb); the last group is
  folded in through exact cumulative sums of its binomial coefficients. The left-out j_k
  carry a mass D = sum_k P(J_k outside its range), computed exactly; the true tail lies in
  [R, R + D] and the script widens the ranges until D <= 1e-30 * R, so every printed
  value is exact to 1e-30 relative (then rounded to 17 significant digits).
* `dp` (all |d| distinct): a float64 dynamic program in numpy over sums 0..w (f[s] +=
  f[s - r] per rank, halved per rank, rescaled), a different algorithm from the Rust
  windowed knapsack; it is checked against the exact big-integer product at n = 300
  before any row is printed (relative error must be below 1e-12).
"""

import math
import sys
from fractions import Fraction

import numpy as np


def differences(n, a, m, b, thr, scale):
    out = []
    for i in range(n):
        c = (i * a + 7) % m
        sign = 1 if (i * b + 3) % 1000 < thr else -1
        out.append(float(sign * c) * scale)
    return out


def ranked(d, zero_method):
    """Doubled midranks of the non-zero |d| (ascending), signs, and number of zeros.
    Magnitudes here are multiples of `scale` >= 1e-6 apart, so equality is exact."""
    nonzero = sorted((abs(x), x > 0) for x in d if x != 0.0)
    n_zero = len(d) - len(nonzero)
    offset = n_zero if zero_method == "pratt" else 0
    groups = []  # (doubled rank, size, positives)
    start = 0
    while start < len(nonzero):
        end = start
        while end < len(nonzero) and nonzero[end][0] == nonzero[start][0]:
            end += 1
        size = end - start
        doubled = 2 * (offset + start) + size + 1
        positives = sum(1 for k in range(start, end) if nonzero[k][1])
        groups.append((doubled, size, positives))
        start = end
    return groups, n_zero


def tail_groups(groups, w):
    """Exact P(doubled W+ <= w) and P(= w) as Fractions, by enumeration over all groups
    but the last with ranges widened until the left-out mass is negligible."""
    groups = sorted(groups, key=lambda g: g[1])  # largest group folded in last
    last_r, last_m = groups[-1][0], groups[-1][1]
    cumulative = [0] * (last_m + 2)  # cumulative[j + 1] = sum_{i <= j} C(last_m, i)
    coef = 1
    for j in range(last_m + 1):
        cumulative[j + 1] = cumulative[j] + coef
        coef = coef * (last_m - j) // (j + 1)
    head = groups[:-1]
    n_total = sum(g[1] for g in groups)
    half_width = 8.0
    while True:
        ranges, dropped = [], 0
        for r, m, _ in head:
            h = max(1, int(half_width * math.sqrt(m) / 2 + 2))
            lo, hi = max(0, m // 2 - h), min(m, m // 2 + h)
            ranges.append((r, m, lo, hi))
            outside = sum(math.comb(m, j) for j in range(0, lo)) + sum(
                math.comb(m, j) for j in range(hi + 1, m + 1)
            )
            dropped += Fraction(outside, 2**m)
        # Partial sums of the head groups: dict sum -> count (an integer weight).
        partial = {0: 1}
        for r, m, lo, hi in ranges:
            comb = {j: math.comb(m, j) for j in range(lo, hi + 1)}
            nxt = {}
            for s, c in partial.items():
                for j in range(lo, hi + 1):
                    t = s + j * r
                    if t > w:
                        break
                    nxt[t] = nxt.get(t, 0) + c * comb[j]
            partial = nxt
        below, equal = 0, 0
        for s, c in partial.items():
            gap = w - s
            reach = min(gap // last_r, last_m)
            below += c * cumulative[reach + 1]
            if gap % last_r == 0 and gap // last_r <= last_m:
                equal += c * math.comb(last_m, gap // last_r)
        scale = 2 ** (sum(g[1] for g in head) + last_m)
        assert sum(g[1] for g in head) + last_m == n_total
        result = Fraction(below, scale)
        if result > 0 and dropped <= result * Fraction(1, 10**30):
            return result, Fraction(equal, scale)
        if half_width > 200:
            raise SystemExit("ranges do not converge")
        half_width *= 1.6


def tail_dp(ranks, w):
    """float64 P(sum of ranks present <= w) and P(= w), ranks whole numbers."""
    f = np.zeros(w + 1)
    f[0] = 1.0
    for r in sorted(ranks):
        if r <= w:
            f[r:] += f[: w + 1 - r].copy()
        f *= 0.5
    return float(math.fsum(f)), float(f[w])


def tail_exact_product(ranks, w):
    """Exact coefficients of prod (1 + x^r) by Python ints (small n only)."""
    coeffs = {0: 1}
    for r in ranks:
        nxt = dict(coeffs)
        for s, c in coeffs.items():
            nxt[s + r] = nxt.get(s + r, 0) + c
        coeffs = nxt
    total = 2 ** len(ranks)
    below = sum(c for s, c in coeffs.items() if s <= w)
    return Fraction(below, total), Fraction(coeffs.get(w, 0), total)


def tails(groups, method):
    """(n_nonzero, doubled W+, p_greater, p_less) with p's as floats."""
    total = sum(r * m for r, m, _ in groups)
    observed = sum(r * p for r, _, p in groups)
    g = 0
    for r, _, _ in groups:
        g = math.gcd(g, r)
    low = min(observed, total - observed)
    units = [(r // g, m, p) for r, m, p in groups]
    if method == "groups":
        cdf, point = tail_groups(units, low // g)
    else:
        ranks = [r for r, m, _ in units for _ in range(m)]
        cdf, point = tail_dp(ranks, low // g)
    upper = 1 - cdf + point  # P(S >= low) by symmetry of the complement
    if observed <= total - observed:
        less, greater = cdf, upper
    else:
        greater, less = cdf, upper
    return sum(m for _, m, _ in groups), observed, float(greater), float(less)


def check_dp():
    ranks = list(range(1, 301))
    w = 300 * 301 // 4 - 1200
    exact, exact_point = tail_exact_product(ranks, w)
    approx, approx_point = tail_dp(ranks, w)
    assert abs(approx / float(exact) - 1) < 1e-12, (approx, float(exact))
    assert abs(approx_point / float(exact_point) - 1) < 1e-12


# (label, method, n, a, m, b, thr, scale); thr moves the share of positive signs, and
# so the p-value, from about 1e-2 to far below 1e-8.
CASES = [
    # Few distinct |d| (classes 0..m-1, class 0 the zeros): exact integers.
    ("ties-2", "groups", 2600, 7, 3, 13, 530, 0.25),
    ("ties-2", "groups", 2600, 7, 3, 13, 560, 0.25),
    ("ties-3", "groups", 2600, 11, 4, 17, 575, 0.25),
    ("ties-4", "groups", 2600, 13, 5, 19, 590, 0.1),
    ("ties-2", "groups", 5000, 7, 3, 13, 522, 0.25),
    ("ties-3", "groups", 5000, 11, 4, 17, 535, 0.25),
    ("ties-2", "groups", 10000, 7, 3, 13, 515, 0.5),
    ("ties-3", "groups", 10000, 11, 4, 17, 530, 0.5),
    ("ties-2", "groups", 20000, 7, 3, 13, 511, 0.25),
    ("ties-2", "groups", 20000, 7, 3, 13, 522, 0.25),
    ("ties-3", "groups", 20000, 11, 4, 17, 513, 0.25),
    ("ties-3", "groups", 20000, 11, 4, 17, 540, 0.25),
    ("ties-2", "groups", 20000, 7, 3, 13, 527, 0.25),
    # A hundred distinct |d| (tie groups of about 26): float64 DP.
    ("ties-100", "dp", 2600, 7, 101, 13, 530, 0.01),
    ("ties-100", "dp", 2600, 7, 101, 13, 560, 0.01),
    # All |d| distinct (no zeros unless a class hits 0): float64 DP.
    ("distinct", "dp", 2600, 7919, 1000003, 13, 525, 1e-6),
    ("distinct", "dp", 2600, 7919, 1000003, 13, 545, 1e-6),
    ("distinct", "dp", 2600, 7919, 1000003, 13, 565, 1e-6),
    ("distinct", "dp", 2600, 7919, 1000003, 13, 590, 1e-6),
    ("distinct", "dp", 5000, 7919, 1000003, 13, 540, 1e-6),
]


def main():
    # An optional argument `groups` or `dp` computes only those rows (no header), so the
    # two kinds can run in parallel and be concatenated.
    only = sys.argv[1] if len(sys.argv) > 1 else None
    check_dp()
    out = sys.stdout
    if only is None:
        out.write(
            "# Exact signed-rank tails at large n, written by benches/signed_rank_reference.py\n"
            f"# (Python {sys.version.split()[0]}, numpy {np.__version__}): `groups` rows by exact\n"
            "# integer arithmetic (Python int / fractions.Fraction, left-out mass <= 1e-30\n"
            "# relative), `dp` rows by a float64 numpy DP checked against exact integers at\n"
            "# n = 300 to 1e-12. Columns: label method n a m b thr scale zero_method n_nonzero\n"
            "# n_zero doubled_w_plus p_greater p_less\n"
            )
    for label, method, n, a, m, b, thr, scale in CASES:
        if only is not None and method != only:
            continue
        d = differences(n, a, m, b, thr, scale)
        for zero_method in ("wilcox", "pratt"):
            groups, n_zero = ranked(d, zero_method)
            if method == "dp" and zero_method == "pratt" and n_zero == 0:
                continue
            n_nonzero, observed, greater, less = tails(groups, method)
            out.write(
                f"{label}\t{method}\t{n}\t{a}\t{m}\t{b}\t{thr}\t{scale!r}\t{zero_method}\t"
                f"{n_nonzero}\t{n_zero}\t{observed}\t{greater!r}\t{less!r}\n"
            )
            out.flush()


if __name__ == "__main__":
    main()
