#!/usr/bin/env bash
# Whole-command benchmarks: evogate admit against pandas + scipy and against
# only parsing its input, exact signed-rank with ties against scipy, and score on 10^6
# outputs. Builds the binaries, sets up benches/.venv (scipy and pandas from PyPI),
# writes seeded inputs under target/bench-inputs, and replaces the part of
# reports/bench.md between the compare.sh markers. Run from the repository root, on one
# machine in one go: benches/compare.sh ["note on the machine's load"]. Not part of CI.
# Usage: benches/compare.sh ["note on the machine's load"]
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
cd "$(dirname "$0")/.."

note="${1:-}"
seed=6
inputs=target/bench-inputs

cargo build --release --locked --bin evogate \
    --example bench_inputs --example parse_floor --example signed_rank_exact

if [ ! -x benches/.venv/bin/python ]; then
    python3 -m venv benches/.venv
    benches/.venv/bin/pip install --quiet scipy pandas
fi

for n in 10000 100000 1000000; do
    if [ ! -f "$inputs/in$n/outputs.jsonl" ]; then
        target/release/examples/bench_inputs "$n" "$inputs/in$n" "$seed"
    fi
done

fragment=$(mktemp)
benches/.venv/bin/python benches/compare.py target/release/evogate \
    target/release/examples/parse_floor target/release/examples/signed_rank_exact \
    "$inputs" "$note" > "$fragment"

begin='<!-- compare.sh: begin -->'
end='<!-- compare.sh: end -->'
python3 - "$fragment" reports/bench.md "$begin" "$end" <<'PY'
import sys
fragment, target, begin, end = sys.argv[1:5]
body = open(fragment).read().rstrip("\n")
text = open(target).read()
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(target, "w").write(f"{head}{begin}\n{body}\n{end}{tail}")
PY
rm -f "$fragment"
echo "wrote reports/bench.md"
