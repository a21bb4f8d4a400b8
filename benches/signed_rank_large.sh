#!/usr/bin/env bash
# Time and peak memory of the signed-rank test at n = 2,500 to 100,000, one
# process per row so that peak RSS (GNU time's %M) is the row's own.
# Writes a Markdown table to stdout. Usage: benches/signed_rank_large.sh [RUNS]
case "${1:-}" in
-h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
set -euo pipefail
runs=${1:-3}
cargo build --release --locked --example signed_rank_large >&2
bin=target/release/examples/signed_rank_large
echo "| kind | n | THR | method | time, median of $runs (min–max) | peak RSS | p (improvement) |"
echo "| --- | ---: | ---: | --- | ---: | ---: | ---: |"
# THR 530: W+ about two to five standard deviations up (p 1e-2 to 1e-8 across n);
# THR 499: W+ at the centre of its null, the slowest case for the exact tables.
for row in "few 2500 530" "few 10000 530" "few 20000 530" "few 20000 499" "few 100000 530" "few 100000 499" \
           "hundred 2500 530" "hundred 10000 530" "hundred 20000 530" "hundred 20000 499" "hundred 100000 530" \
           "threehundred 2500 530" "threehundred 10000 530" "threehundred 20000 530" "threehundred 100000 530" \
           "many 2500 530" "many 10000 530" "many 10000 499" "many 20000 530" "many 100000 530"; do
    set -- $row
    times=()
    for _ in $(seq "$runs"); do
        out=$(/usr/bin/time -f "%M" "$bin" "$1" "$2" "$3" 2>/tmp/sr_large_rss)
        times+=("$(echo "$out" | cut -d' ' -f1)")
        method=$(echo "$out" | cut -d' ' -f2)
        p=$(echo "$out" | cut -d' ' -f3)
        rss=$(tail -1 /tmp/sr_large_rss)
    done
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
    echo "| $1 | $2 | $3 | $method | ${median} s ($(echo "$sorted" | head -1)–$(echo "$sorted" | tail -1)) | $((rss / 1024)) MiB | $p |"
done
rm -f /tmp/sr_large_rss
