"""Holds two evogate builds' `score` up against each other: on the shipped examples of the
benchmark verifiers (data/numeric, data/choice, data/short; `facts` on the short and numeric
truths), `arxiv` on data/arxiv/papers.csv with each of the demo's three outputs files
(data/demo/*.jsonl, their task ids as the tasks file) and on 60 variants of each,
broken in the ways `score` checks (a repeat in each file, a missing output, a stray one,
an unknown task, shuffled files, an empty answer, a bad JSON line, no task rows, a truth
row that does not parse, a
second output on top of 30% of them), each run plain, with `--allow-missing` and with
`--out`. Prints every run whose exit code, stdout, stderr or scores file differ, then the
count.

Usage: score_same.py OLD_EVOGATE NEW_EVOGATE REPO_DIR
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)
import json, os, random, subprocess, sys, tempfile
if len(sys.argv) != 4:
    sys.exit(__doc__)
before, after, repo = sys.argv[1:4]
cases = 0
diffs = 0
def run(binary, args, cwd):
    p = subprocess.run([binary, *args], cwd=cwd, capture_output=True)
    out = None
    if "--out" in args:
        path = os.path.join(cwd, args[args.index("--out") + 1])
        if os.path.exists(path):
            out = open(path, "rb").read(); os.remove(path)
    return p.returncode, p.stdout, p.stderr, out
def read_lines(*path):
    return open(os.path.join(repo, *path)).read().splitlines(True)
def arxiv_files(outputs):
    """The shipped papers, a demo outputs file and its task ids as a tasks file."""
    o = read_lines("data", "demo", outputs)
    ids = [json.loads(line)["task_id"] for line in o]
    k = ["task_id,group,kind,prompt\n"] + [f"{i},{i.rsplit(':', 1)[0]},{i.rsplit(':', 1)[1]},q\n" for i in ids]
    return read_lines("data", "arxiv", "papers.csv"), k, o
rng = random.Random(7)
for name, data, truth in [("numeric", "numeric", "problems.csv"), ("choice", "choice", "questions.csv"),
                          ("short", "short", "questions.csv"), ("facts", "short", "questions.csv"),
                          ("facts", "numeric", "problems.csv"), ("arxiv", "demo", "baseline.jsonl"),
                          ("arxiv", "demo", "candidate.jsonl"), ("arxiv", "demo", "regressing.jsonl")]:
    if name == "arxiv":
        t, k, o = arxiv_files(truth)
    else:
        t, k, o = (read_lines("data", data, f) for f in (truth, "tasks.csv", "outputs.jsonl"))
    variants = [("plain", t, k, o)]
    for i in range(60):
        tt, kk, oo = list(t), list(k), list(o)
        what = rng.randrange(13)
        if what == 0: tt.insert(rng.randrange(1, len(tt) + 1), rng.choice(tt[1:]))   # truth repeat
        if what == 1: kk.insert(rng.randrange(1, len(kk) + 1), rng.choice(kk[1:]))   # tasks repeat
        if what == 2: oo.insert(rng.randrange(0, len(oo) + 1), rng.choice(oo))       # output repeat
        if what == 3: del oo[rng.randrange(len(oo))]                                 # missing
        if what == 4: del kk[rng.randrange(1, len(kk))]                              # stray output
        if what == 5: kk.insert(rng.randrange(1, len(kk) + 1), "zz:q,zz,q,p\n")        # unknown task
        if what == 6: rng.shuffle(oo)
        if what == 7: body = kk[1:]; rng.shuffle(body); kk = kk[:1] + body
        if what == 8: body = tt[1:]; rng.shuffle(body); tt = tt[:1] + body
        if what == 9: tt[rng.randrange(1, len(tt))] = "g,k,q,\n"                      # empty answer
        if what == 10: oo[rng.randrange(len(oo))] = "{not json\n"
        if what == 11: kk = kk[:1]
        if what == 12: tt.insert(rng.randrange(1, len(tt) + 1), 'g,k,"q,x\n')            # truth unparsable
        if rng.random() < 0.3:
            oo.insert(rng.randrange(0, len(oo) + 1), rng.choice(oo))
        variants.append((f"v{i}-{what}", tt, kk, oo))
    for label, tt, kk, oo in variants:
        with tempfile.TemporaryDirectory(prefix="score-same-") as w:
            for f, lines in [("truth.csv", tt), ("tasks.csv", kk), ("outputs.jsonl", oo)]:
                open(os.path.join(w, f), "w").writelines(lines)
            for extra in ([], ["--allow-missing"], ["--out", "s.csv"]):
                args = ["score", "--verifier", name, "--truth", "truth.csv", "--tasks", "tasks.csv",
                        "--outputs", "outputs.jsonl", *extra]
                a, b = run(before, args, w), run(after, args, w)
                cases += 1
                if a != b:
                    diffs += 1
                    print("DIFF", name, data, label, extra, a[0], b[0], a[2][:200], b[2][:200])
print(f"{cases} runs compared, {diffs} differ")
