"""What several benches share: the usage printed for -h and --help, the Wilson
interval their figures are given with, and input files written once and moved into
place whole.

Imported by the benches beside it (`from _common import wilson`); not a bench itself.
"""

import math
import os
import sys


def usage_on_help(doc):
    """Prints `doc` (a bench's docstring, which says its usage) and exits 0 when the
    first argument is -h or --help. Called first in a bench's `__main__`, before its
    other imports, so the usage shows even where numpy, scipy or pyspark are missing."""
    if sys.argv[1:2] in (["-h"], ["--help"]):
        print(doc.strip())
        sys.exit(0)


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
