"""What several benches share: the Wilson interval their figures are given with, and
input files written once and moved into place whole.

Imported by the benches beside it (`from _common import wilson`); not a bench itself.
"""

import math
import os


def wilson(k, n, z=1.959963984540054):
    """The 95% Wilson score interval of k successes in n."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def write_lines(path, header, rows):
    """Writes `header` and `rows` to `path` unless it is there already."""
    if os.path.exists(path):
        return
    with open(path + ".part", "w") as out:
        out.write(header)
        out.writelines(rows)
    os.rename(path + ".part", path)
