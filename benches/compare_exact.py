"""scipy's exact signed-rank on the differences of examples/signed_rank_exact.rs, timed
in process (imports excluded). Prints `seconds p_value`. Usage: compare_exact.py N.

scipy.stats.wilcoxon(d, method="exact") uses the null distribution of W+ without ties
(ranks 1..n), even when |d| is tied: it computes a different distribution from
evogate's exact conditional one given the ties, and scipy warns about it.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import sys
import time
import warnings

import numpy as np
from scipy import stats


def main():
    n = int(sys.argv[1])
    i = np.arange(n)
    magnitude = 0.25 * ((i * 7 % 4) + 1)
    sign = np.where((i % 5 == 0) | (i % 2 == 0), 1.0, -1.0)
    d = sign * magnitude
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        p = stats.wilcoxon(d, method="exact", alternative="greater").pvalue
        seconds = time.perf_counter() - start
    print(f"{seconds} {p}")


if __name__ == "__main__":
    main()
