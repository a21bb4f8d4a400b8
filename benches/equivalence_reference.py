"""Independent reference values for the tests against a margin (src/stats/equivalence.rs).

Prints the Rust table src/stats/tests/equivalence_tables.rs (the Rust tests never run
Python). Usage, from the repository root, in a venv with scipy 1.17.1 and mpmath 1.4.1:

    python benches/equivalence_reference.py > src/stats/tests/equivalence_tables.rs

Three tables, each computed without the Rust code's algorithms:

* MELDED: the melded exact McNemar p-value for the difference in proportions, R's
  `exact2x2::mcnemarExactDP(x, m, n, nullparm = -M, alternative = "greater")$p.value`
  (Fay & Lumbard 2021), which is P(T*(2B - 1) <= -M) for T ~ Beta(m + 1, n - m),
  B ~ Beta(x, m - x + 1). Two computations:
  - `exact`: for n <= 40 the exact rational value. Given T = t, P(B <= q) =
    P(Binomial(m, q) >= x); with q = (t - M)/(2t) the integrand becomes
    sum_{j >= x} C(m, j) 2^-m (t - M)^j (t + M)^(m - j) (1 - t)^(n - m - 1) * n! / (m! (n - m - 1)!),
    a polynomial in t, expanded and integrated over [M, 1] in `fractions.Fraction`.
  - `mpmath`: for n <= 1,000, R's own integral (the `ifunc` of mcnemarExactDP.R)
    `mpmath.quad(lambda t: betainc(x, m-x+1, 0, 1/2 - M/(2t), regularized=True) *
    beta_pdf(t; m+1, n-m), breakpoints)` at mp.dps = 40, the breakpoints at the mode of T
    plus and minus 1/2, 1, 2, ..., 64 standard deviations. Where both exist they must
    agree to 1e-25 before any row is printed; the exact value is printed when it exists.
  - `scipy`: for every row, the same integral in float64, `scipy.integrate.quad(lambda t:
    scipy.stats.binom.sf(x - 1, m, 1/2 - M/(2t)) * scipy.stats.beta.pdf(t, m+1, n-m),
    lo, hi, points=breakpoints, epsabs=0, epsrel=1e-13, limit=1000)` over the mode plus
    and minus 40 standard deviations (clipped to [M, 1]). It must agree with mpmath to
    1e-10 where both run; beyond n = 1,000 (mpmath's betainc takes minutes there) it is
    the printed value.
* SHIFTED: the signed-rank test on d + M (non-inferiority, alternative "greater") and
  d - M (non-superiority, "less"), `scipy.stats.wilcoxon(d + M, zero_method=...,
  alternative="greater", method=scipy.stats.PermutationMethod(n_resamples=2**20))`, which
  enumerates all 2^n sign vectors for these n <= 16, checked against a brute-force
  enumeration with midranks from the definition in exact fractions.
* BETTING: the betting p-value min(1, 1/K(m)) of "the mean is at most m", K the mixture
  (1/J) sum_j prod_i (1 + c_j (x_i - m)/(1 + m)) over c_j = 1, 1/2, ... down to the first
  at or below 1/sqrt(n), at mp.dps = 50, at m = -M and, on -d, for the other side.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import math
import sys
from fractions import Fraction

import mpmath as mp
import numpy as np
import scipy
import scipy.stats as st

mp.mp.dps = 40


# ---------------------------------------------------------------- melded McNemar


def poly_mul(p, q):
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for k, b in enumerate(q):
                out[i + k] += a * b
    return out


def poly_pow(p, e):
    out = [Fraction(1)]
    for _ in range(e):
        out = poly_mul(out, p)
    return out


def melded_exact(x, m, n, M):
    """Exact rational P(T(2B-1) <= -M); M a Fraction."""
    if M == 0:
        return sum(Fraction(math.comb(m, j), 2**m) for j in range(x, m + 1))
    if x == 0:
        if m == n:
            return Fraction(1)
        return sum(math.comb(n, j) * M**j * (1 - M) ** (n - j) for j in range(m + 1))
    if m == n:
        q = (1 - M) / 2
        return sum(math.comb(m, j) * q**j * (1 - q) ** (m - j) for j in range(x, m + 1))
    total = [Fraction(0)]
    for j in range(x, m + 1):
        term = poly_mul(poly_pow([-M, Fraction(1)], j), poly_pow([M, Fraction(1)], m - j))
        term = [math.comb(m, j) * t for t in term]
        total += [Fraction(0)] * (len(term) - len(total))
        for i, t in enumerate(term):
            total[i] += t
    poly = poly_mul(total, poly_pow([Fraction(1), Fraction(-1)], n - m - 1))
    integral = sum(a * (1 - M ** (i + 1)) / (i + 1) for i, a in enumerate(poly))
    scale = Fraction(math.factorial(n), math.factorial(m) * math.factorial(n - m - 1))
    return integral * scale / 2**m


def beta_pdf(t, a, b):
    return mp.exp((a - 1) * mp.log(t) + (b - 1) * mp.log(1 - t) - mp.log(mp.beta(a, b)))


def melded_mpmath(x, m, n, M):
    """R's integral, in mpmath."""
    M = mp.mpf(M.numerator) / M.denominator
    if M == 0:
        return mp.betainc(x, m - x + 1, 0, mp.mpf(1) / 2, regularized=True) if x else mp.mpf(1)
    if x == 0:
        return mp.mpf(1) if m == n else mp.betainc(m + 1, n - m, M, 1, regularized=True)
    if m == n:
        return mp.betainc(x, m - x + 1, 0, (1 - M) / 2, regularized=True)
    a, b = mp.mpf(m + 1), mp.mpf(n - m)
    mode = mp.mpf(m) / (n - 1)
    sd = mp.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    points = {M, mp.mpf(1), mode}
    for k in [0.5, 1, 2, 4, 8, 16, 32, 64]:
        points.update([mode - k * sd, mode + k * sd])
    points = sorted(p for p in points if M <= p <= 1)

    def f(t):
        q = mp.mpf(1) / 2 - M / (2 * t)
        return mp.betainc(x, m - x + 1, 0, q, regularized=True) * beta_pdf(t, a, b)

    return mp.quad(f, points)


MELDED_CASES = [
    # (n, b, c, M as numerator/denominator): small n, both exact and mpmath.
    (12, 1, 4, (1, 20)),
    (12, 0, 0, (1, 20)),
    (12, 0, 5, (1, 10)),
    (12, 3, 0, (1, 10)),
    (12, 6, 6, (1, 10)),
    (12, 12, 0, (1, 5)),
    (12, 5, 7, (1, 5)),
    (20, 2, 5, (1, 20)),
    (20, 4, 4, (1, 10)),
    (20, 0, 20, (1, 4)),
    (30, 6, 4, (1, 10)),
    (30, 3, 3, (3, 20)),
    (30, 1, 9, (1, 20)),
    (40, 5, 12, (3, 20)),
    (40, 8, 8, (1, 5)),
    (40, 0, 3, (1, 20)),
    (40, 2, 0, (1, 20)),
    (40, 10, 10, (0, 1)),
    # Larger n: mpmath only.
    (136, 10, 14, (1, 20)),
    (136, 14, 10, (1, 20)),
    (136, 20, 20, (1, 10)),
    (400, 60, 60, (1, 20)),
    (400, 70, 50, (1, 20)),
    (1000, 100, 130, (1, 50)),
    (1000, 150, 150, (1, 20)),
    (10_000, 1000, 1000, (1, 50)),
    (10_000, 990, 1100, (1, 100)),
    (100_000, 20_000, 20_100, (1, 100)),
    (1_000_000, 200_000, 200_000, (1, 200)),
    (1_000_000, 10_000, 10_600, (1, 1000)),
]


def melded_scipy(x, m, n, M):
    """R's integral in float64 with scipy."""
    from scipy import integrate

    M = M.numerator / M.denominator
    if M == 0:
        return st.binom.sf(x - 1, m, 0.5) if x else 1.0
    if x == 0:
        return 1.0 if m == n else st.binom.cdf(m, n, M)
    if m == n:
        return st.binom.sf(x - 1, m, (1 - M) / 2)
    a, b = m + 1, n - m
    mode = m / (n - 1)
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    lo, hi = max(M, mode - 40 * sd), min(1.0, mode + 40 * sd)
    points = sorted(p for k in [0, 0.5, 1, 2, 4, 8, 16] for p in (mode - k * sd, mode + k * sd) if lo < p < hi)

    def f(t):
        return st.binom.sf(x - 1, m, 0.5 - M / (2 * t)) * st.beta.pdf(t, a, b)

    return integrate.quad(f, lo, hi, points=points, epsabs=0, epsrel=1e-13, limit=1000)[0]


def melded_rows():
    rows = []
    for n, b, c, (num, den) in MELDED_CASES:
        M = Fraction(num, den)
        m = b + c
        sides = []
        for x in (c, b):
            via_scipy = melded_scipy(x, m, n, M)
            if n > 1_000:
                sides.append(via_scipy)
                continue
            via_mpmath = melded_mpmath(x, m, n, M)
            err = abs(via_scipy - float(via_mpmath)) / max(float(via_mpmath), 1e-300)
            assert err < 1e-10, (n, b, c, M, x, via_scipy, via_mpmath)
            if n <= 40:
                exact = melded_exact(x, m, n, M)
                e = mp.mpf(exact.numerator) / exact.denominator
                err = abs(via_mpmath - e) / max(e, mp.mpf(10) ** -300)
                assert err < mp.mpf(10) ** -25, (n, b, c, M, x, via_mpmath, e)
                sides.append(e)
            else:
                sides.append(via_mpmath)
        rows.append((n, b, c, num, den, sides[0], sides[1]))
    return rows


# ---------------------------------------------------------------- shifted signed-rank


def brute_signed_rank(d, zero_method):
    """(P(W+ >= w), P(W+ <= w)) by enumerating every sign vector, midranks from the
    definition, values exact Fractions."""
    ranked = [v for v in d if v != 0] if zero_method == "wilcox" else list(d)
    ranks = []
    for v in ranked:
        if v == 0:
            continue
        smaller = sum(1 for y in ranked if abs(y) < abs(v))
        equal = sum(1 for y in ranked if abs(y) == abs(v))
        ranks.append((2 * smaller + equal + 1, v > 0))
    observed = sum(r for r, pos in ranks if pos)
    k = len(ranks)
    ge = le = 0
    for signs in range(1 << k):
        w = sum(ranks[i][0] for i in range(k) if signs >> i & 1)
        ge += w >= observed
        le += w <= observed
    return Fraction(ge, 1 << k), Fraction(le, 1 << k)


# Differences in micro-units (as admit holds them), margin in micro-units.
SHIFTED_CASES = [
    ([0] * 8 + [250_000, -250_000, 500_000, -1_000_000], 50_000, "wilcox"),
    ([0] * 8 + [250_000, -250_000, 500_000, -1_000_000], 50_000, "pratt"),
    ([0] * 10 + [-1_000_000] * 2, 50_000, "wilcox"),
    ([100_000, 200_000, -50_000, 0, 0, 300_000, -100_000, 50_000, 150_000, 0], 100_000, "wilcox"),
    ([100_000, 200_000, -50_000, 0, 0, 300_000, -100_000, 50_000, 150_000, 0], 100_000, "pratt"),
    ([-1_000_000, 1_000_000, 0, 0, 0, 0, 0, 1_000_000, -1_000_000, 0, 0, 0, 0, 0], 200_000, "wilcox"),
    ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], 4, "wilcox"),
    ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13], 4, "pratt"),
    ([-300_000, -200_000, -100_000, 0, 100_000, 200_000, 300_000, 0, 0, 0, 250_000, -250_000, 50_000, 50_000, -50_000, 0], 50_000, "wilcox"),
    ([-300_000, -200_000, -100_000, 0, 100_000, 200_000, 300_000, 0, 0, 0, 250_000, -250_000, 50_000, 50_000, -50_000, 0], 50_000, "pratt"),
]


def scipy_shifted(values, alternative, zero_method):
    x = np.array(values, dtype=float)
    if not np.any(x != 0):
        return 1.0
    res = st.wilcoxon(
        x,
        zero_method=zero_method,
        alternative=alternative,
        method=st.PermutationMethod(n_resamples=2**20),
    )
    return float(res.pvalue)


def shifted_rows():
    rows = []
    for d, M, zero in SHIFTED_CASES:
        lower = [v + M for v in d]
        upper = [v - M for v in d]
        p_ni = brute_signed_rank(lower, zero)[0]
        p_ns = brute_signed_rank(upper, zero)[1]
        s_ni = scipy_shifted(lower, "greater", zero)
        s_ns = scipy_shifted(upper, "less", zero)
        assert abs(float(p_ni) - s_ni) < 1e-12, (d, M, zero, p_ni, s_ni)
        assert abs(float(p_ns) - s_ns) < 1e-12, (d, M, zero, p_ns, s_ns)
        rows.append((d, M, zero, p_ni, p_ns))
    return rows


# ---------------------------------------------------------------- betting


def bet_fractions(n):
    smallest = 1 / math.sqrt(n)
    out = [1.0]
    while out[-1] > smallest:
        out.append(out[-1] / 2)
    return out


def betting_p(values, m):
    m = mp.mpf(m)
    total = mp.mpf(0)
    cs = bet_fractions(len(values))
    for c in cs:
        prod = mp.mpf(1)
        for v in values:
            prod *= 1 + mp.mpf(c) * (mp.mpf(v) - m) / (1 + m)
        total += prod
    k = total / len(cs)
    return mp.mpf(1) if k <= 1 else 1 / k


BETTING_CASES = [
    ([0.0] * 80 + [0.5] * 10 + [-0.5] * 10, 0.05),
    ([0.0] * 80 + [0.5] * 10 + [-0.5] * 10, 0.2),
    ([0.0] * 80 + [-1.0] * 20, 0.05),
    ([0.0] * 30, 0.1),
    ([0.25, -0.25, 0.0, 0.5, 0.0, 0.0, -0.75, 0.25, 0.0, 0.0, 0.0, 0.5], 0.3),
    ([0.0] * 400 + [1.0] * 30 + [-1.0] * 30, 0.05),
]


def betting_rows():
    rows = []
    mp.mp.dps = 50
    for d, M in BETTING_CASES:
        ni = betting_p(d, -M)
        ns = betting_p([-v for v in d], -M)
        rows.append((d, M, ni, ns))
    mp.mp.dps = 40
    return rows


# ---------------------------------------------------------------- output


def num(v):
    return repr(float(v))


def histogram(values):
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return sorted(counts.items())


def main():
    out = sys.stdout
    out.write("//! Reference tables for the tests against a margin (data only), written by\n")
    out.write("//! `benches/equivalence_reference.py` (Python %s, scipy %s, mpmath %s, numpy %s).\n\n"
              % (sys.version.split()[0], scipy.__version__, mp.__version__, np.__version__))
    out.write("use crate::stats::signed_rank::ZeroMethod;\n\n")
    out.write("/// The melded exact McNemar p-values, R's `exact2x2::mcnemarExactDP(x = c, m = b + c, n,\n")
    out.write("/// nullparm = -M, alternative = \"greater\")$p.value` and, with x = b, the non-superiority\n")
    out.write("/// side: for n <= 40 the exact rational value (the integrand expanded as a polynomial in\n")
    out.write("/// `fractions.Fraction` and integrated over [M, 1]), agreeing to 1e-25 with\n")
    out.write("/// `mpmath.quad` of R's integrand `betainc(x, m-x+1, 0, 1/2 - M/(2t), regularized=True) *\n")
    out.write("/// beta_pdf(t; m+1, n-m)` at mp.dps 40; for 40 < n <= 1,000 that quadrature, which\n")
    out.write("/// agrees to 1e-10 with `scipy.integrate.quad` of `scipy.stats.binom.sf(x - 1, m, 1/2 -\n")
    out.write("/// M/(2t)) * scipy.stats.beta.pdf(t, m+1, n-m)` (epsrel 1e-13); beyond n = 1,000 the scipy\n")
    out.write("/// quadrature alone.\n")
    out.write("/// Rows: (n, b, c, margin numerator, margin denominator, p_noninferiority,\n")
    out.write("/// p_nonsuperiority).\n")
    out.write("pub(super) const MELDED: &[(u64, u64, u64, u64, u64, f64, f64)] = &[\n")
    for n, b, c, num_, den, ni, ns in melded_rows():
        out.write("    (%d, %d, %d, %d, %d, %s, %s),\n" % (n, b, c, num_, den, num(ni), num(ns)))
    out.write("];\n\n")
    out.write("/// The signed-rank tests on d + M (non-inferiority) and d - M (non-superiority),\n")
    out.write("/// `scipy.stats.wilcoxon(d + M, zero_method=z, alternative=\"greater\",\n")
    out.write("/// method=scipy.stats.PermutationMethod(n_resamples=2**20))` (every sign vector), equal to\n")
    out.write("/// a brute-force enumeration with midranks from the definition. Rows: (differences as\n")
    out.write("/// (value, count) in micro-units, margin in micro-units, zero method, p_noninferiority,\n")
    out.write("/// p_nonsuperiority).\n")
    out.write("#[allow(clippy::type_complexity)]\n")
    out.write("pub(super) const SHIFTED: &[(&[(i64, u64)], i64, ZeroMethod, f64, f64)] = &[\n")
    for d, M, zero, ni, ns in shifted_rows():
        hist = ", ".join("(%d, %d)" % (v, k) for v, k in histogram(d))
        z = "ZeroMethod::Wilcox" if zero == "wilcox" else "ZeroMethod::Pratt"
        out.write("    (&[%s], %d, %s, %s, %s),\n" % (hist, M, z, num(ni), num(ns)))
    out.write("];\n\n")
    out.write("/// The betting p-values min(1, 1/K(-M)) of \"the mean is at most -M\" and, on the negated\n")
    out.write("/// differences, of \"at least +M\", K the mixture of constant bets 1, 1/2, ... down to the\n")
    out.write("/// first at or below 1/sqrt(n), by mpmath 1.4.1 at mp.dps 50 (a direct product over the\n")
    out.write("/// differences). Rows: (differences as (value, count), margin, p_noninferiority,\n")
    out.write("/// p_nonsuperiority).\n")
    out.write("#[allow(clippy::type_complexity)]\n")
    out.write("pub(super) const BETTING: &[(&[(f64, u64)], f64, f64, f64)] = &[\n")
    for d, M, ni, ns in betting_rows():
        hist = ", ".join("(%s, %d)" % (repr(v), k) for v, k in histogram(d))
        out.write("    (&[%s], %s, %s, %s),\n" % (hist, repr(M), num(ni), num(ns)))
    out.write("];\n")


if __name__ == "__main__":
    main()
