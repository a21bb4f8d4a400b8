"""Independent reference values for the exact signed-rank null at large n.

Writes tests/data/signed_rank_exact.tsv, which src/stats/tests/signed_rank_large.rs
reads (the Rust tests never run Python). Usage, from the repository root:

    python benches/signed_rank_reference.py > tests/data/signed_rank_exact.tsv

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
* `inversion` (a hundred or three hundred distinct |d| at n = 2,600 to 20,000, where the
  two above are infeasible): mpmath quadrature (25 digits) of the inversion integrals of
  the generating function, along a contour other than the Rust code's (theta = 0.8 of the
  saddlepoint minus 1.5 sd), M(z) evaluated directly as a complex product, secondary
  peaks found on a float64 grid and integrated (see `tail_inversion`). The same
  mathematics as the Rust `stats::inversion`, a different implementation, contour and
  error control; before any row it is checked against exact integers (n = 300, all
  distinct), the DP (n = 2,600, 100 and 300 groups with zeros) and the exact integers of
  `groups` (n = 2,600, three groups: many secondary peaks).

An argument computes only one method's rows, or one method's rows of one label
(`inversion/ties-300`), without the header, so that kinds can run in parallel and be
concatenated under the header.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import math
import sys
from fractions import Fraction

import mpmath as mp
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


def tail_inversion(units, w, dps=25):
    """P(S <= w) and P(S = w) for S = sum r * Binomial(m, 1/2) over `units` (r, m), as
    mpmath numbers (their natural logarithms), by quadrature of the damped inversion
    integrals
        P(S <= w) = (1/2pi) int_{-pi}^{pi} M(z) e^{-zw} / (1 - e^z) dtau,
        P(S = w)  = (1/2pi) int_{-pi}^{pi} M(z) e^{-zw} dtau,    z = theta + i tau,
    M(z) = prod ((1 + e^{zr}) / 2)^m, evaluated directly in mpmath complex arithmetic at
    `dps` digits. The integrand is negligible except near tau = 0 and near secondary
    peaks of the lattice; a float64 grid of |M| (step 0.05 / max r over [0, pi]) finds
    every tau where it is within e^-45 of the main peak, and only those stretches (padded
    by 15 standard deviations) are integrated, by Gauss-Legendre panels of one standard
    deviation, each accepted when the 12- and 24-point rules (mpmath's nodes) agree to 1e-17 of the total."""
    mp.mp.dps = dps
    gl = mp.calculus.quadrature.GaussLegendre(mp.mp)
    rules = {m: gl.calc_nodes(degree, mp.mp.prec) for m, degree in ((12, 3), (24, 4))}
    rs = np.array([r for r, _ in units], dtype=float)
    ms = np.array([m for _, m in units], dtype=float)
    var = float((rs * rs * ms).sum()) / 4
    def k1(theta):
        x = np.clip(theta * rs, -700, 700)
        return float((ms * rs / (1 + np.exp(-x))).sum())
    lo, hi = -50.0, 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if k1(mid) > w + 0.5:
            hi = mid
        else:
            lo = mid
    # A contour different from the Rust code's: 0.8 of the saddlepoint, minus 1.5/sd.
    theta = 0.8 * hi - 1.5 / math.sqrt(var)
    q = 1 / (1 + np.exp(-np.clip(theta * rs, -700, 700)))
    a = 4 * q * (1 - q)
    sd = math.sqrt(float((ms * rs * rs * q * (1 - q)).sum()))
    th = mp.mpf(theta)
    ln_scale = mp.fsum(m * mp.log((1 + mp.exp(th * r)) / 2) for r, m in units) - th * w
    one = mp.mpf(1)

    def values(tau):
        z = mp.mpc(th, tau)
        v = mp.exp(mp.fsum(m * mp.log((1 + mp.exp(z * r)) / 2) for r, m in units) - z * w - ln_scale)
        return mp.re(v / (one - mp.exp(z))), mp.re(v)

    def lnrho(taus):
        return (np.log1p(-a * np.sin(np.outer(taus, rs) / 2) ** 2) * (ms / 2)).sum(axis=1)

    # The scaled tail is about 1 / (sd (1 - e^theta) sqrt(2 pi)): stretches of [0, pi] to
    # integrate are where the grid sees the integrand within e^-45 of that.
    floor = -math.log(sd * (1 - math.exp(theta)) * math.sqrt(2 * math.pi)) - 45 + math.log(1 - math.exp(theta))
    step = 0.05 / rs.max()
    count = int(math.pi / step) + 1
    keep = []
    for start in range(0, count, 100000):
        taus = step * np.arange(start, min(count, start + 100000))
        hot = taus[lnrho(taus) > floor]
        keep.extend(hot.tolist())
    pad = 15 / sd
    stretches = []
    for t in [0.0] + keep:
        lo_t, hi_t = max(0.0, t - pad), min(math.pi, t + pad)
        if stretches and lo_t <= stretches[-1][1]:
            stretches[-1][1] = max(stretches[-1][1], hi_t)
        else:
            stretches.append([lo_t, hi_t])
    total_cdf, total_point = mp.mpf(0), mp.mpf(0)
    def rule(m, lo_t, hi_t):
        c, p = mp.mpf(0), mp.mpf(0)
        for xi, wi in rules[m]:
            vc, vp = values(mp.mpf(hi_t + lo_t) / 2 + mp.mpf(hi_t - lo_t) / 2 * xi)
            c += wi * vc
            p += wi * vp
        return c * (hi_t - lo_t) / 2, p * (hi_t - lo_t) / 2
    panels = 0
    for lo_t, hi_t in stretches:
        k = max(1, int(math.ceil((hi_t - lo_t) * sd)))
        todo = [(lo_t + (hi_t - lo_t) * i / k, lo_t + (hi_t - lo_t) * (i + 1) / k) for i in range(k)]
        while todo:
            lo_p, hi_p = todo.pop()
            c16, p16 = rule(12, lo_p, hi_p)
            c24, p24 = rule(24, lo_p, hi_p)
            panels += 1
            scale = max(abs(total_cdf), abs(c24))
            if abs(c24 - c16) > 1e-17 * scale or abs(p24 - p16) > 1e-17 * max(abs(total_point), abs(p24), 1e-3 * scale):
                if hi_p - lo_p < 1e-3 / sd:
                    raise SystemExit("quadrature does not converge")
                mid = (lo_p + hi_p) / 2
                todo += [(lo_p, mid), (mid, hi_p)]
                continue
            total_cdf += c24
            total_point += p24
    cdf, point = total_cdf / mp.pi, total_point / mp.pi
    # Nothing left out on the grid reaches e^-50 of the scale of the main peak: below
    # 1e-15 of the result unless the result is far below its scale.
    assert float(mp.log(cdf)) > floor + 30 - math.log(1 - math.exp(theta)), (float(mp.log(cdf)), floor)
    return ln_scale + mp.log(cdf), ln_scale + mp.log(max(point, mp.mpf(0)) or mp.mpf(10) ** -400)


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


def reduced(groups):
    """Tie groups (doubled midrank, size, positives) with the ranks divided by their
    common factor, the end of the nearer tail in those units, doubled W+ and its total."""
    g = 0
    for r, _, _ in groups:
        g = math.gcd(g, r)
    total = sum(r * m for r, m, _ in groups)
    observed = sum(r * p for r, _, p in groups)
    units = [(r // g, m, p) for r, m, p in groups]
    return units, min(observed, total - observed) // g, observed, total


def tails(groups, method):
    """(n_nonzero, doubled W+, p_greater, p_less) with p's as floats."""
    units, low, observed, total = reduced(groups)
    if method == "groups":
        cdf, point = tail_groups(units, low)
    elif method == "inversion":
        ln_cdf, ln_point = tail_inversion([(r, m) for r, m, _ in units], low)
        # P(S >= low) = 1 - cdf + point, kept in mpmath precision before rounding.
        upper = 1 - mp.exp(ln_cdf) + mp.exp(ln_point)
        if observed <= total - observed:
            less, greater = mp.exp(ln_cdf), upper
        else:
            greater, less = mp.exp(ln_cdf), upper
        return sum(m for _, m, _ in groups), observed, float(greater), float(less)
    else:
        ranks = [r for r, m, _ in units for _ in range(m)]
        cdf, point = tail_dp(ranks, low)
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


def check_inversion():
    """The inversion against exact integers (n = 300, all distinct) and against the DP
    (n = 2,600, a hundred and three hundred tie groups and zeros), before any row."""
    ranks = list(range(1, 301))
    w = 300 * 301 // 4 - 1200
    exact, exact_point = tail_exact_product(ranks, w)
    ln_cdf, ln_point = tail_inversion([(r, 1) for r in ranks], w)
    assert abs(float(mp.exp(ln_cdf)) / float(exact) - 1) < 1e-13, float(exact)
    assert abs(float(mp.exp(ln_point)) / float(exact_point) - 1) < 1e-13
    for n, a, m, b, thr, scale in [(2600, 7, 101, 13, 560, 0.01), (2600, 11, 301, 13, 545, 0.001)]:
        groups, _ = ranked(differences(n, a, m, b, thr, scale), "pratt")
        units, low, _, _ = reduced(groups)
        cdf, point = tail_dp([r for r, size, _ in units for _ in range(size)], low)
        ln_cdf, ln_point = tail_inversion([(r, size) for r, size, _ in units], low)
        assert abs(float(mp.exp(ln_cdf)) / cdf - 1) < 1e-12, (cdf, float(mp.exp(ln_cdf)))
        assert abs(float(mp.exp(ln_point)) / point - 1) < 1e-12
    # Three tie groups and zeros at n = 2,600 (many secondary peaks) against the exact
    # integers of `tail_groups`.
    groups, _ = ranked(differences(2600, 11, 4, 17, 575, 0.25), "wilcox")
    units, low, _, _ = reduced(groups)
    exact, exact_point = tail_groups(units, low)
    ln_cdf, ln_point = tail_inversion([(r, size) for r, size, _ in units], low)
    assert abs(mp.exp(ln_cdf) / mp.mpf(exact.numerator) * exact.denominator - 1) < 1e-13
    # P(S = w) is held to the cdf's scale (it only enters 1 - P(S <= w) + P(S = w)).
    point_error = mp.exp(ln_point) - mp.mpf(exact_point.numerator) / exact_point.denominator
    assert abs(point_error) < 1e-14 * mp.exp(ln_cdf)
    sys.stderr.write("inversion checks passed\n")


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
    # Three hundred distinct |d| at n = 2,600: float64 DP.
    ("ties-300", "dp", 2600, 11, 301, 13, 540, 0.001),
    # A hundred and three hundred distinct |d| with zeros at n = 2,600 to 20,000, p from
    # about 1e-3 to below 1e-40: mpmath quadrature of the inversion integral.
    ("ties-100", "inversion", 2600, 7, 101, 13, 580, 0.01),
    ("ties-100", "inversion", 10000, 7, 101, 13, 545, 0.01),
    ("ties-100", "inversion", 10000, 7, 101, 13, 580, 0.01),
    ("ties-100", "inversion", 20000, 7, 101, 13, 515, 0.01),
    ("ties-100", "inversion", 20000, 7, 101, 13, 530, 0.01),
    ("ties-100", "inversion", 20000, 7, 101, 13, 560, 0.01),
    ("ties-300", "inversion", 2600, 11, 301, 13, 580, 0.001),
    ("ties-300", "inversion", 10000, 11, 301, 13, 545, 0.001),
    ("ties-300", "inversion", 10000, 11, 301, 13, 580, 0.001),
    ("ties-300", "inversion", 20000, 11, 301, 13, 515, 0.001),
    ("ties-300", "inversion", 20000, 11, 301, 13, 530, 0.001),
    ("ties-300", "inversion", 20000, 11, 301, 13, 560, 0.001),
]


def main():
    # An optional argument `groups`, `dp`, `inversion` or `method/label` computes only
    # those rows (no header), so that kinds can run in parallel and be concatenated.
    only = sys.argv[1] if len(sys.argv) > 1 else None
    if only is None or only.startswith("dp"):
        check_dp()
    # The inversion's checks run with the whole file and with its ties-100 subset.
    if only is None or only in ("inversion", "inversion/ties-100"):
        check_inversion()
    out = sys.stdout
    if only is None:
        out.write(
            "# Exact signed-rank tails at large n, written by benches/signed_rank_reference.py\n"
            f"# (Python {sys.version.split()[0]}, numpy {np.__version__}): `groups` rows by exact\n"
            "# integer arithmetic (Python int / fractions.Fraction, left-out mass <= 1e-30\n"
            "# relative), `dp` rows by a float64 numpy DP checked against exact integers at\n"
            f"# n = 300 to 1e-12, `inversion` rows by mpmath {mp.__version__} quadrature (25 digits)\n"
            "# of the generating function's inversion integrals on another contour than the\n"
            "# Rust code's, checked against exact integers, the DP and `groups` (see the\n"
            "# script). Columns: label method n a m b thr scale zero_method n_nonzero\n"
            "# n_zero doubled_w_plus p_greater p_less\n"
            )
    for label, method, n, a, m, b, thr, scale in CASES:
        if only is not None and only not in (method, f"{method}/{label}"):
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
