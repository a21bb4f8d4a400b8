#!/usr/bin/env bash
# The shipped DuckDB SQL, run over sharded Parquet files that DuckDB writes, gives a
# summary on which `admit --summary` decides exactly as `admit` does on the same pairs
# as CSV. Usage: tests/duckdb/run.sh [EVOGATE_BINARY] (default target/debug/evogate,
# which `cargo test` builds). Needs python3 with venv and pip; installs the pinned
# duckdb into a fresh venv without pip's cache and removes everything afterwards.
set -euo pipefail
cd "$(dirname "$0")/../.."
binary="${1:-target/debug/evogate}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --no-cache-dir duckdb==1.1.3
"$work/venv/bin/python" tests/duckdb/check_summary.py "$binary" sql/summary.sql "$work/data"
