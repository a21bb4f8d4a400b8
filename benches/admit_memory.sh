#!/bin/bash
# `admit`'s peak RSS and CPU time with each input flag, for the memory per pair: run on
# folders of `examples/bench_inputs.rs` (DIR/N/{baseline,candidate,tasks,papers}.csv)
# that also hold DIR/N/split/{holdout.csv,manifest.json} (`evogate split --ratios 0,0,1`,
# every task in the holdout, groups in a shuffled order). Not part of CI.
#
# usage: benches/admit_memory.sh EVOGATE LABEL DIR N...
# prints one line per run: label, pairs, configuration, user s, system s, peak RSS kB,
# exit status. Memory per pair = (RSS at N - RSS at the smallest N) / (N - smallest N).
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -u
BIN=$1; LABEL=$2; DIR=$3; shift 3
REPORT=$(mktemp -d)
for n in "$@"; do
  D=$DIR/$n
  B="--baseline $D/baseline.csv --candidate $D/candidate.csv"
  while IFS='|' read -r name args; do
    rm -rf "$REPORT/r"
    a=${args//REPORT/$REPORT/r}
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %M" -o "$REPORT/time" "$BIN" admit $B $a > /dev/null 2> "$REPORT/err"
    status=$?
    echo "$LABEL $n $name $(cat "$REPORT/time") $status"
  done <<CONF
plain|
report-dir|--report-dir REPORT
tasks|--tasks $D/split/holdout.csv
manifest|--manifest $D/split/manifest.json
cluster|--cluster group
signed-rank|--test signed-rank
all|--tasks $D/split/holdout.csv --manifest $D/split/manifest.json --cluster group --report-dir REPORT
CONF
done
rm -rf "$REPORT"
