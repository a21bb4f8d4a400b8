#!/bin/bash
# `admit`'s CPU time and peak RSS with `--tasks` and `--manifest`, with and without a
# report folder, for two binaries interleaved: each round runs both binaries (in an
# order that alternates between rounds) on plain, --tasks, --manifest, --report-dir,
# --report-dir --tasks and --report-dir --manifest. DIR/N holds baseline.csv,
# candidate.csv and split/{holdout.csv,manifest.json} (as for benches/admit_memory.sh).
# Not part of CI; run it under `nice -n 10` on a shared machine.
#
# usage: benches/admit_flags.sh BEFORE AFTER DIR N ROUNDS
# prints one line per run (pairs, binary, flags, user + system CPU s, peak RSS kB), then
# per binary and flags the median CPU, its ratio to plain's (to --report-dir's for the
# report-folder runs) and the largest peak RSS.
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -u
BEFORE=$1; AFTER=$2; DIR=$3; N=$4; ROUNDS=$5
D=$DIR/$N
WORK=$(mktemp -d)
RAW=$WORK/raw
for round in $(seq "$ROUNDS"); do
  if [ $((round % 2)) = 1 ]; then order="before after"; else order="after before"; fi
  for name in $order; do
    if [ "$name" = before ]; then bin=$BEFORE; else bin=$AFTER; fi
    for flags in plain tasks manifest report-dir report-dir+tasks report-dir+manifest; do
      rm -rf "$WORK/r"
      case $flags in
      plain) extra="" ;;
      tasks) extra="--tasks $D/split/holdout.csv" ;;
      manifest) extra="--manifest $D/split/manifest.json" ;;
      report-dir) extra="--report-dir $WORK/r" ;;
      report-dir+tasks) extra="--report-dir $WORK/r --tasks $D/split/holdout.csv" ;;
      report-dir+manifest) extra="--report-dir $WORK/r --manifest $D/split/manifest.json" ;;
      esac
      # shellcheck disable=SC2086
      /usr/bin/time -f "%U %S %M" -o "$WORK/time" "$bin" admit \
        --baseline "$D/baseline.csv" --candidate "$D/candidate.csv" $extra > /dev/null 2>&1
      read -r user system rss < "$WORK/time"
      echo "$N $name $flags $(echo "$user + $system" | bc) $rss" | tee -a "$RAW"
    done
  done
done
echo "# binary flags median-CPU-s ratio peak-RSS-kB"
sort -k2,2 -k3,3 -k4,4n "$RAW" | awk '
  { key = $2 " " $3; cpu[key, ++count[key]] = $4; if ($5 > rss[key]) rss[key] = $5 }
  END {
    for (key in count) {
      c = count[key]
      median[key] = (c % 2) ? cpu[key, (c + 1) / 2] : (cpu[key, c / 2] + cpu[key, c / 2 + 1]) / 2
    }
    for (key in count) {
      split(key, part, " ")
      base = (part[2] ~ /^report-dir/) ? part[1] " report-dir" : part[1] " plain"
      printf "%s %.3f %.3f %d\n", key, median[key], median[key] / median[base], rss[key]
    }
  }' | sort
rm -rf "$WORK"
