#!/usr/bin/env bash
# Reading speed of `evogate import lm-eval` against `evogate admit` on the same number
# of rows (the target: within 3x), and against reading and hashing the same file with
# `cat FILE | sha256sum` (the target: within 1.5x). Generates a 10^6-line lm-eval --log_samples file
# (gsm8k-like lines of about 700 bytes: doc, target, arguments, resps, hashes, one
# metric, one filter), the 10^6-row scores CSVs admit reads (two files of 5x10^5 rows:
# 10^6 rows read), then times both alternately, RUNS times each, and prints the
# medians and their ratio. Usage: benches/import_lm_eval.sh [N] [RUNS]; with
# EVOGATE_BIN=path it times that binary (e.g. an earlier build, for before/after)
# instead of building this tree.
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
N=${1:-1000000}
RUNS=${2:-5}
cd "$(dirname "$0")/.."
if [ -n "${EVOGATE_BIN:-}" ]; then
  BIN=$EVOGATE_BIN
else
  cargo build --release --locked --quiet
  BIN=target/release/evogate
fi
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

awk -v n="$N" 'BEGIN {
  hash = "8d52662ed683404d1c5f225090293bd707c942fb370cf956572bef5e4057b3a6";
  for (i = 0; i < n; i++) {
    printf "{\"doc_id\": %d, \"doc\": {\"question\": \"Two trains leave San Rafael at the same time. They begin traveling westward, both traveling for 80 miles. What is the distance %d?\", \"answer\": \"2 trains * 80 miles/train = <<2*80=160>>160 miles\\n#### %d\"}, \"target\": \"#### %d\", \"arguments\": {\"gen_args_0\": {\"arg_0\": \"Question: how far?\\nAnswer:\", \"arg_1\": {\"until\": [\"Question:\"], \"do_sample\": false}}}, \"resps\": [[\"The answer is %d\"]], \"filtered_resps\": [\"%d\"], \"filter\": \"strict-match\", \"metrics\": [\"exact_match\"], \"doc_hash\": \"%s\", \"prompt_hash\": \"%s\", \"target_hash\": \"%s\", \"exact_match\": %d.0}\n", i, i, i, i, i, i, hash, hash, hash, i % 3 == 0
  }
}' > "$DIR/samples_gsm8k_2025-01-01T00-00-00.0.jsonl"
HALF=$((N / 2))
for arm in base cand; do
  awk -v n="$HALF" -v arm="$arm" 'BEGIN {
    print "task_id,kind,correct,score";
    for (i = 0; i < n; i++) { c = (arm == "base") ? (i % 3 == 0) : (i % 4 != 0); printf "gsm8k:%d,gsm8k,%d,%d\n", i, c, c }
  }' > "$DIR/$arm.csv"
done
ls -l "$DIR" | awk 'NR > 1 { print $5, $9 }'

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
seconds() { local start end; start=$(date +%s.%N); "$@" > /dev/null 2>&1 || true; end=$(date +%s.%N); echo "$end - $start" | bc; }
: > "$DIR/import.t"; : > "$DIR/admit.t"; : > "$DIR/hash.t"
for _ in $(seq "$RUNS"); do
  seconds sh -c "cat '$DIR/samples_gsm8k_2025-01-01T00-00-00.0.jsonl' | sha256sum" >> "$DIR/hash.t"
  seconds "$BIN" import lm-eval --from "$DIR/samples_gsm8k_2025-01-01T00-00-00.0.jsonl" --out "$DIR/imported.csv" >> "$DIR/import.t"
  seconds "$BIN" admit --baseline "$DIR/base.csv" --candidate "$DIR/cand.csv" >> "$DIR/admit.t"
done
"$BIN" import lm-eval --from "$DIR/samples_gsm8k_2025-01-01T00-00-00.0.jsonl" --out "$DIR/imported.csv"
test "$(wc -l < "$DIR/imported.csv")" -eq $((N + 1))
IMPORT=$(median < "$DIR/import.t")
ADMIT=$(median < "$DIR/admit.t")
echo "import lm-eval, $N lines: median $IMPORT s over $RUNS runs ($(tr '\n' ' ' < "$DIR/import.t"))"
echo "admit, 2 x $HALF rows:     median $ADMIT s over $RUNS runs ($(tr '\n' ' ' < "$DIR/admit.t"))"
HASH=$(median < "$DIR/hash.t")
echo "cat | sha256sum:           median $HASH s over $RUNS runs ($(tr '\n' ' ' < "$DIR/hash.t"))"
echo "ratio import / admit: $(echo "scale=2; $IMPORT / $ADMIT" | bc)"
echo "ratio import / (cat | sha256sum): $(echo "scale=2; $IMPORT / $HASH" | bc)"
