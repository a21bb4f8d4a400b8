#!/usr/bin/env bash
# `admit --sequential` before and after a change to the monitor: the JSON and Markdown
# reports (and the e-value plot) must be the same bytes, and the time of each binary on
# a large input where the hold is asked at every look (the case that was O(n²)).
# Usage: benches/sequential_monitor.sh BEFORE AFTER [N]   (N pairs for the timing; 100000)
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
before=$1 after=$2 n=${3:-100000}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fixtures of tests/it/sequential.rs: an order of N tasks (kind even/odd) and the
# (baseline, candidate) `correct` outcomes of its first tasks.
fixture() { # folder n outcomes(python expression)
    mkdir -p "$1"
    python3 - "$1" "$2" "$3" <<'PY'
import sys
folder, n, outcomes = sys.argv[1], int(sys.argv[2]), eval(sys.argv[3])
kind = lambda i: "even" if i % 2 == 0 else "odd"
open(f"{folder}/order.csv", "w").write("task_id,kind\n" + "".join(f"t{i:03},{kind(i)}\n" for i in range(n)))
for name, side in (("b.csv", 0), ("c.csv", 1)):
    rows = "".join(f"t{i:03},{kind(i)},{o[side]},{o[side]}\n" for i, o in enumerate(outcomes))
    open(f"{folder}/{name}", "w").write("task_id,kind,correct,score\n" + rows)
PY
}
fixture "$work/wins7" 100 "[(0, 1)] * 7"
fixture "$work/wins8" 100 "[(0, 1)] * 7 + [(1, 0)]"
fixture "$work/wins30" 100 "[(0, 1)] * 7 + [(1, 0)] * 23"
fixture "$work/six" 100 "[(0, 1)] * 6"
fixture "$work/losses" 100 "[(1, 0)] * 40"
fixture "$work/stratum" 100 "[(1, 0) if i % 2 == 0 else (0, 1) for i in range(40)]"
fixture "$work/last" 40 "[(0, 1) if i % 10 in (1, 4, 7) else (1, 0) if i % 10 == 9 and i < 20 else (1, 1) for i in range(40)]"
fixture "$work/nine" 100 "[(0, 1)] * 9"
for kind in scores binary held; do
    mkdir -p "$work/$kind-10k"
    python3 "$here/sequential_inputs.py" "$work/$kind-10k" "$kind" 10000
done

same=0
for case in "$work"/*/; do
    for strata in kind none; do
        for bin in before after; do
            dir="$case/$bin-$strata"
            (cd "$case" && "${!bin}" admit --sequential --baseline b.csv --candidate c.csv \
                --order order.csv --strata "$strata" --format json --report-dir out \
                >"$dir.stdout" 2>"$dir.stderr" || echo "exit $?" >>"$dir.stdout")
            mv "$case/out" "$dir"
        done
        for file in stdout stderr; do
            cmp "$case/before-$strata.$file" "$case/after-$strata.$file"
        done
        for file in admission.json admission.md e_value.svg; do
            cmp "$case/before-$strata/$file" "$case/after-$strata/$file"
            same=$((same + 1))
        done
    done
done
echo "same bytes: $same report files over $(ls -d "$work"/*/ | wc -l) inputs, strata by kind and none"

mkdir -p "$work/large"
python3 "$here/sequential_inputs.py" "$work/large" held "$n"
for bin in before after; do
    (cd "$work/large" && /usr/bin/time -f "$bin: %e s, %M KB" "${!bin}" admit --sequential \
        --baseline b.csv --candidate c.csv --order order.csv --format json >"$bin.json" || true)
done
cmp "$work/large/before.json" "$work/large/after.json"
echo "large held input of $n pairs: same JSON"
