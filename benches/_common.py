"""What several benches share: the Wilson interval their figures are given with.

Imported by the benches beside it (`from _common import wilson`); not a bench itself.
"""

import math


def wilson(k, n, z=1.959963984540054):
    """The 95% Wilson score interval of k successes in n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)
