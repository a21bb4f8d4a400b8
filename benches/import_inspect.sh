#!/usr/bin/env bash
# Time and peak memory of `evogate import inspect` on a large Inspect JSON log and a
# large .eval (the target: under 300 MB on a 1 GB log, at least as fast as the whole-file reader).
# Builds, in a scratch folder under /tmp (deleted on exit), from the real sample of
# tests/data/formats/inspect/log_read_sample.json (about 12 KB: messages, events,
# output): a JSON log of N samples (ids 1..N, every third scored I) and a .eval
# holding the same samples as zip members. Then runs each import once under
# /usr/bin/time -v and prints wall time and peak RSS, and checks the row count.
# Usage: benches/import_inspect.sh [N] [BIN...]; N defaults to 85000 (about 1 GB of
# JSON); each BIN is timed in turn (default: this tree's release build), e.g. main's
# release binary for before/after.
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
N=${1:-85000}
shift || true
cd "$(dirname "$0")/.."
ROOT=$(pwd)
if [ "$#" -eq 0 ]; then
  cargo build --release --locked --quiet
  set -- "$ROOT/target/release/evogate"
fi
DIR=$(mktemp -d /tmp/evogate-inspect-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
python3 - "$N" "$DIR" "$ROOT/tests/data/formats/inspect/log_read_sample.json" <<'PY'
import json, sys, zipfile
n, out, source = int(sys.argv[1]), sys.argv[2], sys.argv[3]
log = json.load(open(source))
sample = log["samples"][0]
head = {k: v for k, v in log.items() if k not in ("samples", "reductions")}
with open(f"{out}/big.json", "w") as f:
    f.write(json.dumps(head)[:-1] + ', "samples": [')
    for i in range(1, n + 1):
        s = dict(sample, id=i)
        s["scores"] = {"match": dict(sample["scores"]["match"], value="I" if i % 3 == 0 else "C")}
        f.write(("," if i > 1 else "") + json.dumps(s))
    f.write("]}")
with zipfile.ZipFile(f"{out}/big.eval", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    z.writestr("header.json", json.dumps(head))
    for i in range(1, n + 1):
        s = dict(sample, id=i)
        s["scores"] = {"match": dict(sample["scores"]["match"], value="I" if i % 3 == 0 else "C")}
        z.writestr(f"samples/{i}_epoch_1.json", json.dumps(s))
PY
ls -l "$DIR" | awk 'NR > 1 { print $5, $9 }'
for BIN in "$@"; do
  for LOG in big.json big.eval; do
    /usr/bin/time -v "$BIN" import inspect --from "$DIR/$LOG" --out "$DIR/s.csv" \
      > /dev/null 2> "$DIR/time.txt" || { cat "$DIR/time.txt"; exit 1; }
    test "$(wc -l < "$DIR/s.csv")" -eq $((N + 1))
    WALL=$(grep "Elapsed (wall clock)" "$DIR/time.txt" | awk '{ print $NF }')
    RSS=$(grep "Maximum resident set size" "$DIR/time.txt" | awk '{ print $NF }')
    echo "$BIN $LOG: wall $WALL, peak RSS $((RSS / 1024)) MB"
    rm -f "$DIR/s.csv" "$DIR/s.import.json"
  done
done
