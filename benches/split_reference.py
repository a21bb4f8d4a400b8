#!/usr/bin/env python3
"""The split sampling of docs/formats.md ("How split sampling works"), written again
from the text alone in plain Python (ChaCha20 from RFC 8439, Lemire's rejection,
Fisher-Yates, largest-remainder division), to check `evogate split` against an
implementation that shares no code with it: the three splits' task ids, the holdout in
the order in which it is to be scored.

Usage: split_reference.py PAPERS_CSV SEED CASES [BINARY]
CASES is `all` or a number. Prints the holdout's task ids in order; with BINARY, runs
`BINARY split --truth PAPERS_CSV --seed SEED --cases CASES` into a temporary folder and
exits 1 unless its train.csv, val.csv and holdout.csv list exactly these ids in this
order.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import csv
import os
import struct
import subprocess
import sys
import tempfile

KINDS = ["id", "title", "first_author", "year"]
MASK32, MASK64 = (1 << 32) - 1, (1 << 64) - 1


def chacha20_block(key_words, counter):
    """One 64-byte ChaCha20 block (RFC 8439 section 2.3) as 16 32-bit words; stream
    (nonce) 0, the 64-bit counter in words 12 and 13."""
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *key_words,
             counter & MASK32, counter >> 32, 0, 0]
    x = list(state)

    def quarter(a, b, c, d):
        for p, q, r, s in ((a, b, d, 16), (c, d, b, 12), (a, b, d, 8), (c, d, b, 7)):
            x[p] = (x[p] + x[q]) & MASK32
            x[r] ^= x[p]
            x[r] = ((x[r] << s) | (x[r] >> (32 - s))) & MASK32

    for _ in range(10):
        quarter(0, 4, 8, 12); quarter(1, 5, 9, 13); quarter(2, 6, 10, 14); quarter(3, 7, 11, 15)
        quarter(0, 5, 10, 15); quarter(1, 6, 11, 12); quarter(2, 7, 8, 13); quarter(3, 4, 9, 14)
    return [(x[i] + state[i]) & MASK32 for i in range(16)]


class Stream:
    """Step 1: keyed by the seed as 8 little-endian bytes and 24 zero bytes, read as
    64-bit little-endian words."""

    def __init__(self, seed):
        key = struct.pack("<Q", seed) + bytes(24)
        self.key = list(struct.unpack("<8I", key))
        self.counter, self.words = 0, []

    def word(self):
        if len(self.words) < 2:
            self.words += chacha20_block(self.key, self.counter)
            self.counter += 1
        low, high = self.words.pop(0), self.words.pop(0)
        return low | (high << 32)

    def below(self, m):
        """Step 2: Lemire's multiply-and-reject."""
        threshold = ((1 << 64) - m) % m
        while True:
            product = self.word() * m
            if product & MASK64 >= threshold:
                return product >> 64

    def shuffle(self, items):
        """Step 3: Fisher-Yates."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def largest_remainder(total, ratios):
    parts = [total * r // sum(ratios) for r in ratios]
    order = sorted(range(3), key=lambda i: (-(total * ratios[i] % sum(ratios)), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def split(papers_csv, seed, cases, ratios=(50, 25, 25)):
    with open(papers_csv, newline="", encoding="utf-8-sig") as handle:
        papers = [row["arxiv_id"].strip() for row in csv.DictReader(handle)]
    tasks = [(paper, f"{paper}:{kind}") for paper in papers for kind in KINDS]
    groups = list(dict.fromkeys(paper for paper, _ in tasks))
    members = {g: [i for i, (paper, _) in enumerate(tasks) if paper == g] for g in groups}
    stream = Stream(seed)
    order = list(range(len(groups)))
    stream.shuffle(order)  # step 4
    counts, pools, start = largest_remainder(len(groups), ratios), [], 0
    for count in counts:
        # Group by group in the order they were dealt, each group's tasks in truth order.
        pools.append([i for g in order[start:start + count] for i in members[groups[g]]])
        start += count
    if cases != "all":  # step 5
        for pool, size in zip(pools, largest_remainder(int(cases), ratios)):
            stream.shuffle(pool)
            del pool[size:]
    parts = [[tasks[i][1] for i in sorted(pool)] for pool in pools]
    stream.shuffle(parts[2])  # step 7: the holdout's scoring order
    return parts


def first_column(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return [row["task_id"] for row in csv.DictReader(handle)]


def main():
    papers_csv, seed, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    parts = split(papers_csv, seed, cases)
    print("\n".join(parts[2]))
    if len(sys.argv) > 4:
        with tempfile.TemporaryDirectory(prefix="seq-split-") as out:
            subprocess.run([sys.argv[4], "split", "--truth", papers_csv, "--seed", str(seed),
                            "--cases", cases, "--out", out], check=True, capture_output=True)
            found = [first_column(os.path.join(out, f"{name}.csv"))
                     for name in ("train", "val", "holdout")]
        if found != parts:
            print("evogate split differs from the documented steps", file=sys.stderr)
            sys.exit(1)
        print(f"evogate split agrees: seed {seed}, cases {cases}", file=sys.stderr)


if __name__ == "__main__":
    main()
