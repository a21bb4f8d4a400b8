#!/usr/bin/env bash
# Spark and DuckDB + `admit --summary` against `admit` on CSV: the
# same pairs, as sharded Parquet for Spark (local mode) and DuckDB and as two CSV files
# for admit, at each n given (default 10^6 and 10^7), time and peak memory from
# /usr/bin/time -v, alternating the paths twice. Builds the release binary, sets up
# benches/.venv-summary (duckdb and pyspark from PyPI, pinned as in CI; Spark needs
# Java 17 or 21 on PATH), writes inputs under target/summary-bench (deleted after each
# n), and replaces the part of reports/bench.md between the summary.sh markers. Run
# from the repository root: benches/summary.sh [N ...]. Not part of CI.
# Usage: benches/summary.sh [N ...]
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000000 10000000)

cargo build --release --locked --bin evogate
if [ ! -x benches/.venv-summary/bin/spark-submit ]; then
    python3 -m venv benches/.venv-summary
    benches/.venv-summary/bin/pip install --quiet --no-cache-dir duckdb==1.1.3 pyspark==4.0.1
fi

fragment=$(mktemp)
benches/.venv-summary/bin/python benches/summary.py target/release/evogate sql/summary.sql \
    target/summary-bench "${sizes[@]}" > "$fragment"

begin='<!-- summary.sh: begin -->'
end='<!-- summary.sh: end -->'
python3 - "$fragment" reports/bench.md "$begin" "$end" <<'PY'
import sys
fragment, target, begin, end = sys.argv[1:5]
body = open(fragment).read().rstrip("\n")
text = open(target).read()
if begin not in text:
    text = f"{text.rstrip()}\n\n{begin}\n{end}\n"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(target, "w").write(f"{head}{begin}\n{body}\n{end}{tail}")
PY
rm -f "$fragment"
echo "wrote reports/bench.md"
