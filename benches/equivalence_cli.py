"""The tests against a margin end to end: `evogate admit --equivalence M` on scores files
built from each case of benches/equivalence_reference.py, its p-values against the
independent computations of that script, as a Markdown table with the largest absolute
and relative difference.

Usage, from the repository root, in a venv with scipy 1.17.1 and mpmath 1.4.1 (the
reference script's):

    python benches/equivalence_cli.py target/release/evogate > /tmp/equivalence-cli.md

Exit 0 when every p-value agrees to 1e-9 (absolute, or relative for p below 1e-3), 1
otherwise.

The independent computations, named as in equivalence_reference.py:

* 0/1 outcomes (n pairs, b won by the baseline alone, c by the candidate alone): R's
  `exact2x2::mcnemarExactDP(x = c, m = b + c, n, nullparm = -M, alternative =
  "greater")$p.value` for non-inferiority and, with x = b, for non-superiority; computed
  as the exact rational integral (`melded_exact`, `fractions.Fraction`) for n <= 40 and
  by `scipy.integrate.quad` of `scipy.stats.binom.sf(x - 1, m, 1/2 - M/(2t)) *
  scipy.stats.beta.pdf(t, m+1, n-m)` (`melded_scipy`) beyond.
* Scores, signed-rank: `scipy.stats.wilcoxon(d + M, zero_method=z, alternative="greater",
  method=scipy.stats.PermutationMethod(n_resamples=2**20))` and `d - M` with "less"
  (every sign vector at these n <= 16).
* Scores, betting: min(1, 1/K) of the mixture of constant bets (`betting_p`, mpmath at
  mp.dps 50) on d at -M and on -d at -M.

Each run must say it asked equivalence (non-inferiority at margin 0, where equivalence
cannot be asked). The CLI reports p_noninferiority and p_nonsuperiority for the whole set (for scores the
larger of the signed-rank and the betting p, both shown in margin_tests) and rounds JSON
numbers to 12 significant digits.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import equivalence_reference as ref  # noqa: E402
import mpmath as mp  # noqa: E402

TOLERANCE = 1e-9


def admit(binary, folder, baseline_rows, candidate_rows, margin, header):
    paths = []
    for name, rows in (("b.csv", baseline_rows), ("c.csv", candidate_rows)):
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(header + "\n")
            f.writelines(rows)
        paths.append(path)
    out = subprocess.run(
        [binary, "admit", "--baseline", paths[0], "--candidate", paths[1],
         # Equivalence needs a margin above 0; at 0 non-inferiority is asked, and
         # margin_tests holds both sides all the same.
         "--equivalence" if float(margin) > 0 else "--margin", margin,
         "--strata", "none", "--format", "json"],
        capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        raise SystemExit("admit failed: " + out.stderr)
    report = json.loads(out.stdout)
    asked = "equivalence" if float(margin) > 0 else "non-inferiority"
    if report["question"]["name"] != asked:
        raise SystemExit("admit asked %s, not %s" % (report["question"]["name"], asked))
    return report["margin_tests"]


def binary_rows(n, b, c):
    """Baseline and candidate rows: b won by the baseline alone, c by the candidate
    alone, the rest right in both."""
    base, cand = [], []
    for i in range(n):
        x, y = (1, 0) if i < b else (0, 1) if i < b + c else (1, 1)
        base.append("t%d,%d,%d\n" % (i, x, x))
        cand.append("t%d,%d,%d\n" % (i, y, y))
    return base, cand


def score_rows(micros):
    """Rows whose candidate minus baseline is each difference (in micro-units)."""
    base, cand = [], []
    for i, d in enumerate(micros):
        lo, hi = (0, d) if d >= 0 else (-d, 0)
        base.append("t%d,%s\n" % (i, "%.6f" % (lo / 1e6)))
        cand.append("t%d,%s\n" % (i, "%.6f" % (hi / 1e6)))
    return base, cand


def compare(rows, label, cli, reference):
    abs_diff = abs(cli - reference)
    rel = abs_diff / reference if reference > 0 else (0.0 if cli == 0 else float("inf"))
    rows.append((label, cli, reference, abs_diff, rel))


def main():
    binary = sys.argv[1]
    rows = []
    with tempfile.TemporaryDirectory(prefix="equivalence-cli-") as folder:
        for n, b, c, (num, den) in ref.MELDED_CASES:
            margin = Fraction(num, den)
            base, cand = binary_rows(n, b, c)
            got = admit(binary, folder, base, cand, repr(num / den),
                        "task_id,correct,score")
            m = b + c
            if n <= 40:
                ni = float(ref.melded_exact(c, m, n, margin))
                ns = float(ref.melded_exact(b, m, n, margin))
                how = "exact rational"
            else:
                ni = ref.melded_scipy(c, m, n, margin)
                ns = ref.melded_scipy(b, m, n, margin)
                how = "scipy quad"
            case = "0/1 n=%d b=%d c=%d M=%s (%s)" % (n, b, c, margin, how)
            compare(rows, case + " non-inferiority", got["p_noninferiority"], ni)
            compare(rows, case + " non-superiority", got["p_nonsuperiority"], ns)
            if margin > 0:
                compare(rows, case + " equivalence (TOST: the larger)",
                        got["p_equivalence"], max(ni, ns))
        mp.mp.dps = 50
        for d, M, zero in ref.SHIFTED_CASES:
            if zero != "wilcox":
                continue  # admit's default zero method; pratt is in the unit tests
            base, cand = score_rows(d)
            got = admit(binary, folder, base, cand, repr(M / 1e6), "task_id,score")
            case = "scores n=%d M=%s" % (len(d), M / 1e6)
            sr_ni = ref.scipy_shifted([v + M for v in d], "greater", zero)
            sr_ns = ref.scipy_shifted([v - M for v in d], "less", zero)
            compare(rows, case + " signed-rank non-inferiority (scipy)",
                    got["signed_rank"]["p_noninferiority"], sr_ni)
            compare(rows, case + " signed-rank non-superiority (scipy)",
                    got["signed_rank"]["p_nonsuperiority"], sr_ns)
            values = [v / 1e6 for v in d]
            bet_ni = float(ref.betting_p(values, -M / 1e6))
            bet_ns = float(ref.betting_p([-v for v in values], -M / 1e6))
            compare(rows, case + " betting non-inferiority (mpmath)",
                    got["betting"]["p_noninferiority"], bet_ni)
            compare(rows, case + " betting non-superiority (mpmath)",
                    got["betting"]["p_nonsuperiority"], bet_ns)
            compare(rows, case + " decisive non-inferiority (larger)",
                    got["p_noninferiority"], max(sr_ni, bet_ni))
        for d, M in ref.BETTING_CASES:
            micros = [round(v * 1e6) for v in d]
            base, cand = score_rows(micros)
            got = admit(binary, folder, base, cand, repr(M), "task_id,score")
            case = "scores n=%d M=%s" % (len(d), M)
            compare(rows, case + " betting non-inferiority (mpmath)",
                    got["betting"]["p_noninferiority"], float(ref.betting_p(d, -M)))
            compare(rows, case + " betting non-superiority (mpmath)",
                    got["betting"]["p_nonsuperiority"],
                    float(ref.betting_p([-v for v in d], -M)))
    print("| case | evogate admit | independent | abs diff | rel diff |")
    print("|---|---|---|---|---|")
    for label, cli, reference, a, r in rows:
        print("| %s | %.12g | %.12g | %.1e | %.1e |" % (label, cli, reference, a, r))
    worst_abs = max(r[3] for r in rows)
    worst_rel = max(r[4] for r in rows if r[2] > 0)
    bad = [r for r in rows if not (r[3] <= TOLERANCE or (r[2] < 1e-3 and r[4] <= TOLERANCE))]
    print()
    print("%d p-values; largest absolute difference %.2e, largest relative %.2e; %d beyond %g."
          % (len(rows), worst_abs, worst_rel, len(bad), TOLERANCE))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
