#!/bin/sh
# Rebuilds the seed corpora under fuzz/corpus/<target>/ from the files shipped in data/
# and reports/demo/. Run from anywhere: sh fuzz/seed.sh (it builds evogate once, to
# write a real two-attempt ledger).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus"
mkdir -p "$corpus/grade" "$corpus/csv_table" "$corpus/outputs" "$corpus/claims" \
    "$corpus/ledger" "$corpus/escape" "$corpus/scan" "$corpus/outputs_stream" \
    "$corpus/facts" "$corpus/lm_eval_scan"

# grade: byte 0 picks the verifier (0 arxiv, 1 facts), bytes 1-2 the task, then the answer.
seed_grade() {
    printf "$1" > "$corpus/grade/$2"
    printf '%s' "$3" >> "$corpus/grade/$2"
}
seed_grade '\000\000\000' arxiv-id 'The paper is arXiv 1301.3781.'
seed_grade '\000\000\001' arxiv-title 'The exact title is "Efficient Estimation of Word Representations in Vector Space".'
seed_grade '\000\000\002' arxiv-author 'It was written by Tomas Mikolov et al. in 2013.'
seed_grade '\000\000\003' arxiv-year 'I believe it was first submitted in 2012, see arXiv:1301.3781v3.'
seed_grade '\000\000\006' arxiv-hedge 'Either Ian J. Goodfellow or Yoshua Bengio, 1406.2661 or 1406.2662.'
seed_grade '\000\001\000' arxiv-old-id 'Maybe hep-th/9711200 (1997), by Juan Maldacena.'
seed_grade '\001\000\000' facts-right 'It is Paris.'
seed_grade '\001\000\000' facts-wrong 'Berlin, I think.'
seed_grade '\001\000\002' facts-alias 'washington, d.c. or DC'
seed_grade '\001\000\004' facts-accent 'Yamoussoukro (Côte d’Ivoire)'
seed_grade '\001\000\006' facts-number 'pi is 3.14159, e is 2.71828'
seed_grade '\001\000\010' facts-unicode 'H₂O — ﬁne water'

# csv_table: truth, scores, tasks and outputs tables.
head -6 "$root/data/arxiv/papers.csv" > "$corpus/csv_table/papers.csv"
cp "$root/data/arxiv/papers-17.csv" "$corpus/csv_table/papers-17.csv"
head -9 "$root/reports/demo/baseline-scores.csv" > "$corpus/csv_table/scores.csv"
cp "$root/data/demo/claims/baseline-6.csv" "$corpus/csv_table/scores-kind.csv"
head -5 "$root/reports/demo/split/holdout.csv" > "$corpus/csv_table/holdout.csv"
printf '\357\273\277group,kind,question,answer\r\nfr,capital,Capital?,Paris|"Paris, France"\r\n' \
    > "$corpus/csv_table/facts-bom-crlf.csv"
printf 'arxiv_id,title,first_author,year\n"hep-th/9711200","The Large N ""Limit""\nof...",Juan Maldacena,1997\n' \
    > "$corpus/csv_table/quoted.csv"

# outputs: both formats.
head -4 "$root/data/demo/baseline.jsonl" > "$corpus/outputs/baseline.jsonl"
head -4 "$root/data/demo/candidate.jsonl" > "$corpus/outputs/candidate.jsonl"
printf '\n  {"task_id":" a:id ","output":null}\n' > "$corpus/outputs/null.jsonl"
printf 'task_id,output\n1301.3781:id,"The arXiv ID is 1301.3781, I think"\n' > "$corpus/outputs/outputs.csv"
printf '\357\273\277output,task_id\r\n"two\nlines",p:id\r\n' > "$corpus/outputs/bom-crlf.csv"
printf '\n  [{"task_id":"a","output":"b"},\n {"task_id":"c","output":"d"}]\n' > "$corpus/outputs/array.json"

# facts: a truth file, a zero byte, an answer.
printf 'group,kind,question,answer\nfr,capital,Capital?,Paris|"Paris, France"\nde,capital,Capital?,Berlin\nus,capital,Capital?,Washington D.C.|DC\n=1+1,number,Sum?,2|two\n\000Paris or Berlin' \
    > "$corpus/facts/hedge"
printf 'group,kind,question,answer\na,k,q,answer 1|alias a\nb,k,q,answer 2|alias b\nc,j,q,answer 1\n\000it is answer 1, not alias b' \
    > "$corpus/facts/aliases"

# lm_eval_scan: the real lm-eval 0.4.x samples file, and both layouts by hand.
cp "$root/tests/data/formats/lm-eval/samples_gsm8k_2025-09-09T13-42-42.857006.jsonl" "$corpus/lm_eval_scan/gsm8k.jsonl"
printf '{"doc_id": "q7", "filter": "none", "metrics": {"acc": true, "f1": 0.25}, "doc_hash": null}\n{"doc_id": 3, "doc": {"q": "a \\"b\\" \\u00e9"}, "filter": "strict-match", "metrics": ["exact_match"], "exact_match": -0.0}\n' \
    > "$corpus/lm_eval_scan/layouts.jsonl"

# scan and outputs_stream: the csv_table and outputs seeds, read 1 and 7 bytes at a time
# (byte 0 picks the read size).
for pair in "csv_table scan" "outputs outputs_stream"; do
    set -- $pair
    for seed in "$corpus/$1"/*; do
        for size in '\000' '\006'; do
            { printf "$size"; cat "$seed"; } > "$corpus/$2/$(basename "$seed")-$(printf "$size" | od -An -tu1 | tr -d ' ')"
        done
    done
done

# claims: every kind of evidence.
cp "$root/data/demo/claims.csv" "$corpus/claims/score-files.csv"
printf 'claim_id,description,b,c,n,baseline,candidate\nc1,"five of five",0,5,,,\nc2,rates,,,100,0.5,0.62\nc3,tiny,,,6,0.5,0.666\n' \
    > "$corpus/claims/counts-rates.csv"
printf 'claim_id,b,c\nbig,18446744073709551615,18446744073709551615\n' > "$corpus/claims/huge.csv"

# ledger: a real two-attempt ledger, and the demo manifest.
cp "$root/reports/demo/split/manifest.json" "$corpus/ledger/manifest.json"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cargo build --quiet --manifest-path "$root/Cargo.toml"
for attempt in 1 2; do
    "$root/target/debug/evogate" admit \
        --baseline "$root/reports/demo/baseline-scores.csv" \
        --candidate "$root/reports/demo/candidate-scores.csv" \
        --ledger "$scratch/ledger.jsonl" --report-dir "$scratch/report" > /dev/null 2>&1 || true
done
cp "$scratch/ledger.jsonl" "$corpus/ledger/ledger.jsonl"
head -1 "$scratch/ledger.jsonl" > "$corpus/ledger/one-record.jsonl"
# A torn last record (an append cut short) and a whole one without its line end.
{ head -1 "$scratch/ledger.jsonl"; tail -1 "$scratch/ledger.jsonl" | head -c 97; } > "$corpus/ledger/torn.jsonl"
head -1 "$scratch/ledger.jsonl" | tr -d '\n' > "$corpus/ledger/unterminated.jsonl"

# escape: byte 0 is the clipping limit, then the text.
seed_escape() {
    printf "$1" > "$corpus/escape/$2"
    printf '%s' "$3" >> "$corpus/escape/$2"
}
seed_escape '\100' markdown '<script>alert(1)</script> | `x` *b* _i_ [a](b) ![c](d) &lt; $x$'
seed_escape '\010' mentions 'ask @someone at me@example.com, fixes #12'
seed_escape '\020' urls 'see https://x.test and WWW.x.test'
seed_escape '\003' blocks '12. item'
seed_escape '\377' formula '=HYPERLINK("x");@SUM(A1);-1+2;	tab;"quoted, comma"'
seed_escape '\005' controls "$(printf 'a\033[31mred\342\200\256x\ny\r\n\t- z')"
