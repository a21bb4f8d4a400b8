#!/usr/bin/env python3
"""Combines the case lines of several run.py outputs (e.g. a light run and a --heavy
--only run) into one table of totals per group: for each case id the last result that
is not `skip` wins. Usage: totals.py OUTPUT [OUTPUT ...]"""

import re
import sys
from collections import OrderedDict

LINE = re.compile(r"^([A-Z]\d\d)\s+(\S+)\s+(\S+)\s+(pass|FAIL|note|skip|error)\s")


def main() -> int:
    cases = OrderedDict()
    for path in sys.argv[1:]:
        for line in open(path, encoding="utf-8"):
            m = LINE.match(line)
            if not m:
                continue
            id_, group, was, now = m.groups()
            if now != "skip" or id_ not in cases:
                cases[id_] = (group, was, now)
    groups = OrderedDict()
    for id_, (group, was, now) in sorted(cases.items(), key=lambda kv: kv[0]):
        if id_.startswith("X"):
            group = "X"
        groups.setdefault(group, OrderedDict((k, []) for k in ("pass", "FAIL", "note", "skip", "error")))[now].append(id_)
    key = lambda g: (0, int(g)) if g.isdigit() else (1, g)  # noqa: E731
    total = {k: 0 for k in ("pass", "FAIL", "note", "skip", "error")}
    for g in sorted(groups, key=key):
        t = groups[g]
        counts = " ".join(f"{len(v):>3} {k}" for k, v in t.items())
        print(f"group {g:<3} {counts}   FAIL: {' '.join(t['FAIL']) or '-'}")
        if g != "X":
            for k, v in t.items():
                total[k] += len(v)
    print("all (111) " + " ".join(f"{v:>3} {k}" for k, v in total.items()))
    differs = [f"{i} {w}->{n}" for i, (g, w, n) in cases.items() if n in ("pass", "FAIL", "note") and n != w and w != "-"]
    print("differs from hostile-3: " + (", ".join(differs) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
