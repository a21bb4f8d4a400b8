"""Could an acceptance criterion on GEPA's minibatch do better than GEPA's own? Exact
acceptance probabilities, by enumeration, for the criteria one could plug into GEPA
0.1.4's `AcceptanceCriterion` protocol, at the minibatch sizes GEPA is run with.

GEPA scores a proposal and its parent on the same minibatch of m training examples and,
by default (`StrictImprovementAcceptance`), accepts when the proposal's sum is higher.
The per-example scores it passes are 0/1 here (a correct answer or not); a pair of them
is a win (1 after, 0 before), a loss, or a tie. A proposal no better than its parent
(the null) has P(win) = P(loss); at parent accuracy 1/2 and independent answers each is
1/4. A proposal better by delta (in the share correct) has P(win) = 1/4 + delta/2 and
P(loss) = 1/4 - delta/2. For each m every (wins, losses, ties) count is enumerated with
its multinomial probability, so the figures are exact (no simulation).

Criteria:
- strict: wins > losses (GEPA's default: the sum is higher).
- no-significant-regression at a: strict, and the exact one-sided sign test for
  regression (P(Bin(w + l, 1/2) >= l)) is not <= a. For 0/1 scores strict already
  means wins > losses, so this never refuses more than strict: the column shows it.
- significant-improvement at a: the exact one-sided sign test for improvement
  (McNemar's exact test on the minibatch) gives p <= a.
- non-inferiority M: the lower bound of evogate's 90% interval for the paired
  difference of proportions (Tango's score interval, as `admit --margin` checks it) is
  above -M. The bound of each outcome comes from `evogate admit` itself.

Run: python3 benches/gepa_acceptance.py  (with the evogate package importable and its
binary found; about a minute, most of it the admit calls for the non-inferiority rows)

Usage: python3 benches/gepa_acceptance.py
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

from functools import lru_cache
from math import comb, factorial

import evogate


def multinomial(m, wins, losses, p_win, p_loss):
    ties = m - wins - losses
    p_tie = 1.0 - p_win - p_loss
    ways = factorial(m) // (factorial(wins) * factorial(losses) * factorial(ties))
    return ways * p_win**wins * p_loss**losses * p_tie**ties


def sign_p(successes, n):
    """P(Bin(n, 1/2) >= successes): the exact one-sided sign test's p (1 when n = 0)."""
    return sum(comb(n, k) for k in range(successes, n + 1)) / 2**n


@lru_cache(maxsize=None)
def tango_low(wins, losses, ties):
    """The lower bound of evogate's 90% interval for the minibatch's paired difference."""
    baseline, candidate = [], []
    for before, after, count in ((0, 1, wins), (1, 0, losses), (1, 1, ties)):
        for _ in range(count):
            task = f"t{len(baseline)}"
            baseline.append({"task_id": task, "correct": before, "score": before})
            candidate.append({"task_id": task, "correct": after, "score": after})
    return evogate.admit(baseline, candidate, strata="none").report["delta"]["low"]


def non_inferior(margin, m):
    return lambda w, l: tango_low(w, l, m - w - l) > -margin


CRITERIA = {
    "strict": lambda w, l: w > l,
    "no-sig-regression 0.05": lambda w, l: w > l and not sign_p(l, w + l) <= 0.05,
    "sig-improvement 0.05": lambda w, l: sign_p(w, w + l) <= 0.05,
    "sig-improvement 0.20": lambda w, l: sign_p(w, w + l) <= 0.20,
}


def acceptance(m, delta, accept):
    p_win, p_loss = 0.25 + delta / 2, 0.25 - delta / 2
    return sum(
        multinomial(m, w, l, p_win, p_loss)
        for w in range(m + 1)
        for l in range(m + 1 - w)
        if accept(w, l)
    )


def main():
    sizes = (3, 5, 10, 20, 35)
    print("smallest one-sided sign-test p a minibatch can give (every pair a win): "
          + ", ".join(f"m={m}: {0.5**m:.4g}" for m in sizes))
    print()
    print("| criterion | m | accepts a null proposal | accepts +0.10 | accepts +0.20 | +0.10 / null |")
    print("|---|---:|---:|---:|---:|---:|")
    rows = [(name, m, accept) for name, accept in CRITERIA.items() for m in sizes]
    rows += [(f"non-inferiority {margin}", m, non_inferior(margin, m))
             for margin in (0.1, 0.2) for m in sizes]
    for name, m, accept in rows:
        null, small, large = (acceptance(m, d, accept) for d in (0.0, 0.10, 0.20))
        ratio = f"{small / null:.2f}" if null > 0 else "–"
        print(f"| {name} | {m} | {null:.4f} | {small:.4f} | {large:.4f} | {ratio} |")


if __name__ == "__main__":
    main()
