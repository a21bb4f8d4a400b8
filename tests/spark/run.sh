#!/usr/bin/env bash
# evogate.spark (python/evogate/spark.py) in Spark's local mode (local[2]) over sharded
# Parquet: its document equals the shipped DuckDB SQL's field by field, and
# `admit --summary` on it decides exactly as `admit` on the same pairs as CSV.
# Usage: tests/spark/run.sh [EVOGATE_BINARY] (default target/debug/evogate, which
# `cargo test` builds). Needs python3 with venv and pip, and Java 17 or 21 on PATH (the
# machine image's); installs the pinned pyspark and duckdb into a fresh venv without
# pip's cache and removes everything afterwards. Prints each part's seconds.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-target/debug/evogate}"
command -v java >/dev/null || { echo "tests/spark/run.sh: no java on PATH; Spark needs Java 17 or 21" >&2; exit 2; }
java -version 2>&1 | head -1
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
started=$(date +%s)
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-cache-dir pyspark==4.0.1 duckdb==1.1.3
echo "pip install (pyspark 4.0.1, duckdb 1.1.3) took $(( $(date +%s) - started ))s"
# Spark writes its scratch files under the work folder, not the machine's /tmp.
export SPARK_LOCAL_DIRS="$work/spark"
export PYSPARK_PYTHON="$work/venv/bin/python"
checked=$(date +%s)
"$work/venv/bin/python" tests/spark/check_spark.py "$binary" sql/summary.sql "$work/data" \
  2> "$work/spark.log" || { tail -n 60 "$work/spark.log" >&2; exit 1; }
echo "the Spark checks took $(( $(date +%s) - checked ))s"
