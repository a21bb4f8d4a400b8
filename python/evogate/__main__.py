"""``python -m evogate ARGS``: runs the evogate binary with ARGS."""

import os
import subprocess
import sys

from evogate import binary


def main() -> int:
    """Runs the CLI with this process's arguments and returns its exit status."""
    path = binary()
    if sys.platform != "win32":
        os.execv(path, [path, *sys.argv[1:]])
    return subprocess.call([path, *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
