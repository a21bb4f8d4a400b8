"""The job `evogate admit` does, as a pandas + scipy user would write it: read both
scores files, join on task_id (inner join, then check nothing was left unpaired), and
run the one-sided exact test for improvement. Usage: compare_python.py TEST B C.

mcnemar: discordant counts b (baseline only correct) and c (candidate only correct),
then scipy.stats.binomtest(c, b + c, 0.5, alternative="greater") (exact binomial).
signed-rank: differences candidate - baseline score, then
scipy.stats.wilcoxon(d, zero_method="wilcox", correction=True, alternative="greater",
method="auto"), which past 50 non-zero differences (or with ties) is the tie-corrected
normal approximation with continuity correction, as evogate's beyond 2,500.
It prints the p-value and the mean difference.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import sys

import pandas as pd
from scipy import stats


def main():
    test, baseline, candidate = sys.argv[1:4]
    b = pd.read_csv(baseline)
    c = pd.read_csv(candidate)
    joined = b.merge(c, on="task_id", suffixes=("_b", "_c"), validate="one_to_one")
    if len(joined) != len(b) or len(joined) != len(c):
        sys.exit("the files hold different tasks")
    if test == "mcnemar":
        only_b = int(((joined.correct_b == 1) & (joined.correct_c == 0)).sum())
        only_c = int(((joined.correct_b == 0) & (joined.correct_c == 1)).sum())
        p = stats.binomtest(only_c, only_b + only_c, 0.5, alternative="greater").pvalue
    else:
        d = (joined.score_c - joined.score_b).to_numpy()
        p = stats.wilcoxon(d, zero_method="wilcox", correction=True,
                           alternative="greater", method="auto").pvalue
    mean = float((joined.score_c - joined.score_b).mean())
    print(f"p_improvement {p:.6g} mean_difference {mean:.6g}")


if __name__ == "__main__":
    main()
