#!/usr/bin/env python3
"""Re-runs the 111 cases of hostile-3.md (the third hostile test) against an evogate binary.

Usage: run.py BINARY [--python PY] [--heavy] [--only ID,ID...] [--keep]

Each case runs in its own folder under a scratch folder made here and removed at the
end, every command under `timeout`. One line per case: id, fix group (1-16:
hostile-3's root causes F1-F14, then 15 faults and 16 notes acted on; N a note not in
any group; - a case that held in hostile-3), the result hostile-3 recorded on
commit 152ffa5 (h3), the result now, expected and got. Then totals per group.

A case passes only when the behaviour the table expects holds. When it does not, the
result is FAIL, or note for the cases hostile-3 counted as notes (no promise covers them).
Heavy cases (GB files, peak RSS, long runs) run only with --heavy. Standard library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import traceback
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CASES, Ctx, Skip  # noqa: E402
import cases_import  # noqa: E402,F401
import cases_grade  # noqa: E402,F401
import cases_admit  # noqa: E402,F401
import cases_misc  # noqa: E402,F401

H3 = {
    "FAIL": set("I04 I05 I06 I07 I21 I22 I26 I27 I28 K01 G01 G05 G08 P06 R01 R02 R04 R08 R10 R12 "
                "S01 S02 S08 Q01 Q02 L03 L04 L05 L09 A03 A04 M02 M05".split()),
    "note": set("I03 I10 I11 I15 I20 K03 G10 P04 S03 S11 L10 A05".split()),
}


def h3(id_: str) -> str:
    if id_.startswith("X"):
        return "-"
    for kind, ids in H3.items():
        if id_ in ids:
            return kind
    return "pass"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary", help="the evogate binary to test, e.g. target/release/evogate")
    ap.add_argument("--python", help="a Python whose `import evogate` is the built wheel (P*, G08-G13) "
                    "and which has duckdb (S*, Q*, L05); default: this Python with the repo's python/ on "
                    "PYTHONPATH, and S/Q cases skipped without duckdb")
    ap.add_argument("--heavy", action="store_true", help="also run the heavy cases (GB files, memory)")
    ap.add_argument("--only", help="comma-separated case ids")
    ap.add_argument("--extras", action="store_true", help="also run X01-X04, group 15's faults that are "
                    "not among the 111 (SIGINT/SIGTERM before a rename, --margin 1e308, --ratios 2^32); "
                    "counted apart")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (printed)")
    args = ap.parse_args()

    binary = str(Path(args.binary).resolve())
    if not os.access(binary, os.X_OK):
        print(f"error: {args.binary} is not an executable", file=sys.stderr)
        return 2
    only = set(args.only.split(",")) if args.only else None
    work = Path(tempfile.mkdtemp(prefix="hostile3-"))
    ctx = Ctx(binary, args.python, args.python, args.heavy, work)

    totals: "OrderedDict[str, dict]" = OrderedDict()
    overall = {"pass": 0, "FAIL": 0, "note": 0, "skip": 0, "error": 0}
    extras = dict(overall)
    differs = []
    print(f"# hostile-3 re-run: {binary}  (heavy: {'yes' if args.heavy else 'no'})")
    print("# id   group h3    now    expected | got")
    try:
        for c in CASES:
            if only and c.id not in only:
                continue
            if c.extra and not args.extras and not only:
                continue
            if c.heavy and not args.heavy:
                result, got = "skip", "heavy (run with --heavy)"
            else:
                started = time.time()
                case_dir = work / c.id
                case_dir.mkdir()
                try:
                    held, got = c.fn(ctx, case_dir)
                    result = "pass" if held else ("note" if c.kind == "note" else "FAIL")
                except Skip as s:
                    result, got = "skip", str(s)
                except Exception as e:  # a harness fault is shown, never counted as pass
                    result, got = "error", f"{type(e).__name__}: {e}"
                    traceback.print_exc(file=sys.stderr)
                finally:
                    shutil.rmtree(case_dir, ignore_errors=True)
                got += f" [{time.time() - started:.1f}s]"
            got = got.replace("\r", "\\r").replace("\n", " / ")
            was = h3(c.id)
            if result in ("pass", "FAIL", "note") and result != was and not c.extra:
                differs.append((c.id, was, result))
            print(f"{c.id:<5} {c.group:<5} {was:<5} {result:<6} {c.expected} | {got}", flush=True)
            if c.extra:
                extras[result] += 1
                continue
            g = totals.setdefault(c.group, {"pass": 0, "FAIL": 0, "note": 0, "skip": 0, "error": 0})
            g[result] += 1
            overall[result] += 1
    finally:
        if args.keep:
            print(f"# scratch kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    def key(g):
        return (0, int(g)) if g.isdigit() else (1, g)

    print("\n# totals per group (pass / FAIL / note / skip / error)")
    for g in sorted(totals, key=key):
        t = totals[g]
        print(f"group {g:<3} {t['pass']:>3} pass {t['FAIL']:>3} FAIL {t['note']:>3} note {t['skip']:>3} skip {t['error']:>3} error")
    print(f"all       {overall['pass']:>3} pass {overall['FAIL']:>3} FAIL {overall['note']:>3} note "
          f"{overall['skip']:>3} skip {overall['error']:>3} error  (hostile-3 on 152ffa5: 66 pass, 33 FAIL, 12 note)")
    if sum(extras.values()):
        print(f"extras    {extras['pass']:>3} pass {extras['FAIL']:>3} FAIL {extras['skip']:>3} skip {extras['error']:>3} error  "
              "(X01-X04, not among the 111)")
    if differs:
        print("# differs from hostile-3: " + ", ".join(f"{i} {a}->{b}" for i, a, b in differs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
