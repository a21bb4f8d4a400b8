"""Peak memory of `split`, `import` and `score` as their inputs grow, and the CPU of the
`facts` verifier against `short` on the same outputs.

Each workload's inputs are generated once into WORK_DIR at each size, the command runs
once (under `nice -n 10`), and the child's peak resident set (`ru_maxrss` from
`os.wait4`) and CPU (user + system) are read. Printed: one Markdown table a command, with
the peak RSS, the bytes it holds per row (peak RSS over rows) and, for `split`, the
peak over the truth file's size.

- split: a facts-layout truth of N tasks in 10^5 groups (N / 10^5 kinds a group),
  `split --verifier facts`;
- import: an lm-eval `--log_samples` file of N lines, `import lm-eval` (from 10^7 lines
  a lean one: each line without the document, arguments, responses and two hashes,
  ~0.18 KB a line instead of ~0.5); an OpenAI evals log of N samples, `import
  openai-evals` (full `match` events of ~250 bytes: 2.5 GB at 10^7, read a line at a
  time);
- score: a truth, tasks and outputs of N rows, one answer a task, `score --verifier short`
  (`score-numeric`: numbers for answers, `--verifier numeric`; `score-facts`: the same
  files as `score`, `--verifier facts`; `score-facts-shared`: facts with 256 answers
  shared by the tasks; `score-arxiv`: a paper list of N / 4 papers, its N tasks and N
  outputs, `--verifier arxiv`, each output the right fact in a sentence, every seventh
  another paper's and every eleventh a hedge of the right one and another's);
- facts against short: N outputs of one kind sharing 256 answers, graded by each.

- split of the other inputs: `split-numeric`, `split-short`, `split-choice` (the
  benchmark layout), `split-arxiv` (a paper list, N / 4 papers) and `split-scores`
  (`split --from-scores` of a scores file of N rows), N tasks in N / 10 groups.

Usage: memory.py EVOGATE WORK_DIR [--before OTHER] [WORKLOAD=SIZES ...]
e.g. memory.py target/release/evogate /tmp/mem split=5,6,7 import=5,7 openai=5,7 score=5,7 facts=5,6
(sizes as powers of ten). WORK_DIR keeps the inputs between runs (10^7 rows: ~3 GB for
score, ~1.7 GB for lm-eval, ~0.8 GB for openai-evals, 0.7 GB for the split truth); the
files a command writes are deleted after it. With `--before`, each memory table runs
OTHER (an older build) and EVOGATE one after the other at each size and shows both.
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import os
import shutil
import subprocess
import sys
import time

from _common import write_lines


def run(evogate, args, cwd):
    """Runs evogate once: (peak RSS bytes, CPU seconds, wall seconds); deletes the file
    its `--out` names."""
    started = time.monotonic()
    process = subprocess.Popen(["nice", "-n", "10", evogate, *args], cwd=cwd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - started
    stderr = process.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"evogate {' '.join(args)} exited {code}: {stderr}")
    if "--out" in args:
        out = os.path.join(cwd, args[args.index("--out") + 1])
        if os.path.isfile(out):
            os.remove(out)
        elif os.path.isdir(out):
            shutil.rmtree(out)
    return usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime, wall


DIGEST = "8d52662ed683404d1c5f225090293bd707c942fb370cf956572bef5e4057b3a6"


def split_inputs(work, n):
    kinds = max(1, n // 10**5)
    truth = f"{work}/split_{n}.csv"
    write_lines(truth, "group,kind,question,answer\n",
                (f"g{i // kinds},k{i % kinds},What is the capital of country {i}?,City {i}|C{i}\n"
                 for i in range(n)))
    return ["split", "--verifier", "facts", "--truth", truth, "--out", f"out_split_{n}"], truth


def split_other_inputs(work, n, layout):
    """The other inputs `split` reads, N tasks in N / 10 groups: the benchmark layout
    (`numeric` and `short` read one truth of integer answers, `choice` one with four
    options), an arxiv paper list (four tasks a paper) and a scores file for
    `split --from-scores`."""
    if layout in ("numeric", "short"):
        truth = f"{work}/split_numeric_{n}.csv"
        write_lines(truth, "group,kind,question,answer\n",
                    (f"g{i // 10},k{i % 10},How many apples are in basket {i}?,{i}\n"
                     for i in range(n)))
        return ["split", "--verifier", layout, "--truth", truth, "--out", f"out_{layout}_{n}"], truth
    if layout == "choice":
        truth = f"{work}/split_choice_{n}.csv"
        write_lines(truth, "group,kind,question,answer,options\n",
                    (f"g{i // 10},k{i % 10},Which fruit is in basket {i}?,B,apple {i}|pear {i}|plum|fig\n"
                     for i in range(n)))
        return ["split", "--verifier", "choice", "--truth", truth, "--out", f"out_choice_{n}"], truth
    if layout == "arxiv":
        papers = n // 4
        truth = f"{work}/split_arxiv_{n}.csv"

        def paper(i):
            month = i // 99999
            yymm = (15 + month // 12) * 100 + month % 12 + 1
            return (f"{yymm}.{i % 99999 + 1:05d},A study of topic {i} in deep learning,"
                    f"Alice Author{i},{2000 + yymm // 100}\n")
        write_lines(truth, "arxiv_id,title,first_author,year\n", (paper(i) for i in range(papers)))
        return ["split", "--verifier", "arxiv", "--truth", truth, "--out", f"out_arxiv_{n}"], truth
    scores = f"{work}/split_scores_{n}.csv"
    write_lines(scores, "task_id,score\n", (f"g{i // 10}:k{i % 10},{i % 2}\n" for i in range(n)))
    return ["split", "--from-scores", scores, "--out", f"out_scores_{n}"], scores


def split_table(binaries, work, title, make, powers):
    """Peak RSS and CPU of `split` at each size, each binary in turn (interleaved), with
    the peak over the input file's size."""
    print(f"\n{title}\n")
    print("| binary | rows | input file MB | peak RSS MB | bytes a row | CPU s | wall s | peak / input file |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for power in powers:
        n = 10**power
        args, measured = make(work, n)
        size = os.path.getsize(measured)
        for name, evogate in binaries:
            peak, cpu, wall = run(evogate, args, work)
            print(f"| {name} | 10^{power} | {mb(size)} | {mb(peak)} | {peak / n:,.0f} | {cpu:.2f} | "
                  f"{wall:.1f} | {peak / size:.2f} |", flush=True)


# From this many lines on, the lm-eval log leaves out the fields import reads past (the
# document, arguments, responses and two of the hashes): 10^7 full lines are ~5 GB.
LEAN_FROM = 10**7


def lm_eval_inputs(work, n):
    log = f"{work}/samples_gsm8k_{n}_2025-01-01T00-00-00.0.jsonl"
    if n >= LEAN_FROM:
        write_lines(log, "",
                    ('{"doc_id": %d, "filter": "strict-match", "metrics": ["exact_match"], '
                     '"doc_hash": "%s", "exact_match": %d.0}\n' % (i, DIGEST, i % 3 == 0)
                     for i in range(n)))
        return ["import", "lm-eval", "--from", log, "--higher-is-better", "--out",
                f"imported_{n}.csv"], log
    write_lines(log, "",
                ('{"doc_id": %d, "doc": {"question": "How far is %d?", "answer": "#### %d"}, '
                 '"target": "#### %d", "arguments": {}, "resps": [["The answer is %d"]], '
                 '"filtered_resps": ["%d"], "filter": "strict-match", "metrics": ["exact_match"], '
                 '"doc_hash": "%s", "prompt_hash": "%s", "target_hash": "%s", "exact_match": %d.0}\n'
                 % (i, i, i, i, i, i, DIGEST, DIGEST, DIGEST, i % 3 == 0) for i in range(n)))
    return ["import", "lm-eval", "--from", log, "--higher-is-better", "--out", f"imported_{n}.csv"], log


def openai_evals_inputs(work, n):
    log = f"{work}/openai_evals_{n}.jsonl"
    write_lines(log, '{"spec": {"completion_fns": ["gpt-4"], "eval_name": "arith.dev.v0", '
                '"base_eval": "arith", "split": "dev", "run_config": {}, "created_by": "", '
                '"run_id": "run1", "created_at": "2025-01-01 00:00:00"}}\n',
                ('{"run_id": "run1", "event_id": %d, "sample_id": "arith.dev.%d", "type": "match", '
                 '"data": {"correct": %s, "expected": "%d", "picked": "%d", "sampled": "%d"}, '
                 '"created_by": "", "created_at": "2025-01-01 00:00:00.000000+00:00"}\n'
                 % (i, i, "true" if i % 3 else "false", i, i, i) for i in range(n)))
    return ["import", "openai-evals", "--from", log, "--out", f"openai_{n}.csv"], log


def score_inputs(work, n, verifier="short", answers=None):
    """Truth, tasks and outputs of n tasks; `answers` distinct answers shared by the
    tasks (one kind), or one answer a task (a number for `numeric`)."""
    tag = f"{n}_{answers}"
    answer = (lambda i: f"answer{i % answers}") if answers else (lambda i: f"answer {i}")
    output = ((lambda i: f"answer{(i * 3) % answers}") if answers
              else (lambda i: f"the answer is answer {i if i % 3 else i + 1}"))
    if verifier == "numeric":
        tag = f"{n}_numeric"
        answer = str
        output = lambda i: f"The answer is {i if i % 3 else i + 1}"
    write_lines(f"{work}/truth_{tag}.csv", "group,kind,question,answer\n",
                (f"g{i},k,question {i},{answer(i)}\n" for i in range(n)))
    write_lines(f"{work}/tasks_{tag}.csv", "task_id,group,kind,prompt\n",
                (f"g{i}:k,g{i},k,question {i}\n" for i in range(n)))
    write_lines(f"{work}/outputs_{tag}.csv", "task_id,output\n",
                (f"g{i}:k,{output(i)}\n" for i in range(n)))
    return ["score", "--verifier", verifier, "--truth", f"{work}/truth_{tag}.csv",
            "--tasks", f"{work}/tasks_{tag}.csv", "--outputs", f"{work}/outputs_{tag}.csv",
            "--out", f"scores_{verifier}_{tag}.csv"], f"{work}/outputs_{tag}.csv"


# Words of the generated titles and syllables of the generated surnames: a paper's
# number in base 64 picks four title words (distinct titles up to 64^4 papers), and in
# base 16 the syllables of its first author's surname.
TITLE_WORDS = ("deep learning neural graph sparse attention models language vision robust "
               "scaling training networks transformer efficient residual generative adversarial "
               "contrastive federated causal inference bayesian optimal transport diffusion policy "
               "gradient reinforcement memory retrieval reasoning agents tokens speech audio video "
               "semantic segmentation detection tracking pruning distillation quantized kernel "
               "manifold spectral temporal convolution recurrent planning search curriculum "
               "meta continual few zero shot self supervised unsupervised sequence alignment "
               "embeddings").split()
SYLLABLES = "ka lo mi ne ru sa te vi zo ha ji pu de fo gi bu".split()
GIVEN = ("Alice", "Bohdan", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hiro")


def arxiv_paper(i):
    """Paper i of a generated arxiv truth: (id, title, given name, surname, year)."""
    month = i // 99999
    yymm = (15 + month // 12) * 100 + month % 12 + 1
    digits = [(i >> shift) & 63 for shift in (0, 6, 12, 18)]
    title = (f"{TITLE_WORDS[digits[0]].capitalize()} {TITLE_WORDS[digits[1]]} for "
             f"{TITLE_WORDS[digits[2]]} {TITLE_WORDS[digits[3]]}")
    syllables, rest = [], i
    while True:
        syllables.append(SYLLABLES[rest % 16])
        rest //= 16
        if rest == 0 and len(syllables) >= 3:
            break
    return (f"{yymm}.{i % 99999 + 1:05d}", title, GIVEN[i % len(GIVEN)],
            "".join(syllables).capitalize(), 2000 + yymm // 100)


def arxiv_fact(paper, kind):
    """What an output says of `paper` for a task of `kind`."""
    arxiv_id, title, given, surname, year = paper
    return (f"arXiv {arxiv_id}", f'"{title}"', f"{given} {surname}", str(year))[kind]


ARXIV_KINDS = ("id", "title", "first_author", "year")


def score_arxiv_inputs(work, n):
    """A paper list of n / 4 papers, its n tasks (four a paper) and n outputs: the right
    fact in a sentence, every seventh another paper's, every eleventh a hedge of two."""
    papers = max(2, n // 4)
    truth, tasks, outputs = (f"{work}/arxiv_{name}_{n}.csv" for name in ("truth", "tasks", "outputs"))
    write_lines(truth, "arxiv_id,title,first_author,year\n",
                (f"{p[0]},{p[1]},{p[2]} {p[3]},{p[4]}\n" for p in map(arxiv_paper, range(papers))))
    write_lines(tasks, "task_id,group,kind,prompt\n",
                (f"{arxiv_paper(i // 4)[0]}:{ARXIV_KINDS[i % 4]},{arxiv_paper(i // 4)[0]},"
                 f"{ARXIV_KINDS[i % 4]},question {i}\n" for i in range(4 * papers)))

    def output(i):
        paper, kind = i // 4, i % 4
        own, other = arxiv_paper(paper), arxiv_paper((paper + 1 + i % 5) % papers)
        said = arxiv_fact(other if i % 7 == 3 else own, kind)
        if i % 11 == 5:
            said = f"either {said} or {arxiv_fact(other, kind)}"
        text = f"I believe the answer is {said}."
        return f'{own[0]}:{ARXIV_KINDS[kind]},"{text.replace(chr(34), chr(34) * 2)}"\n'
    write_lines(outputs, "task_id,output\n", (output(i) for i in range(4 * papers)))
    return ["score", "--verifier", "arxiv", "--truth", truth, "--tasks", tasks,
            "--outputs", outputs, "--out", f"scores_arxiv_{n}.csv"], outputs


def mb(size):
    return f"{size / 1e6:,.1f}"


def memory_table(evogate, work, title, make, powers, per_file=False, before=None):
    if before:
        return memory_against(before, evogate, work, title, make, powers)
    print(f"\n{title}\n")
    extra = " | peak / input file" if per_file else ""
    print(f"| rows | input file MB | peak RSS MB | bytes a row | CPU s | wall s{extra} |")
    print("| ---: | ---: | ---: | ---: | ---: | ---:" + (" | ---:" if per_file else "") + " |")
    for power in powers:
        n = 10**power
        args, measured = make(work, n)
        size = os.path.getsize(measured)
        peak, cpu, wall = run(evogate, args, work)
        ratio = f" | {peak / size:.2f}" if per_file else ""
        print(f"| 10^{power} | {mb(size)} | {mb(peak)} | {peak / n:,.0f} | {cpu:.2f} | {wall:.1f}{ratio} |",
              flush=True)


def memory_against(before, evogate, work, title, make, powers):
    """A memory table of two builds run one after the other at each size."""
    print(f"\n{title}: before and after\n")
    print("| rows | input file MB | before peak RSS MB | before bytes a row | before CPU s "
          "| after peak RSS MB | after bytes a row | after CPU s | CPU after / before |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for power in powers:
        n = 10**power
        args, measured = make(work, n)
        size = os.path.getsize(measured)
        old_peak, old_cpu, _ = run(before, args, work)
        peak, cpu, _ = run(evogate, args, work)
        print(f"| 10^{power} | {mb(size)} | {mb(old_peak)} | {old_peak / n:,.0f} | {old_cpu:.2f} "
              f"| {mb(peak)} | {peak / n:,.0f} | {cpu:.2f} | {cpu / old_cpu:.2f} |", flush=True)


def facts_table(evogate, work, powers):
    print("\n`score` with `facts` against `short`, one kind, 256 distinct answers\n")
    print("| outputs | short CPU s | facts CPU s | facts / short | short peak MB | facts peak MB |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for power in powers:
        n = 10**power
        # Interleaved, twice each, the smaller CPU of the two kept.
        cpus = {"short": [], "facts": []}
        peaks = {"short": 0, "facts": 0}
        for _ in range(2):
            for verifier in ("short", "facts"):
                args, _ = score_inputs(work, n, verifier, answers=256)
                peak, cpu, _ = run(evogate, args, work)
                cpus[verifier].append(cpu)
                peaks[verifier] = max(peaks[verifier], peak)
        short, facts = min(cpus["short"]), min(cpus["facts"])
        print(f"| 10^{power} | {short:.2f} | {facts:.2f} | {facts / short:.2f} | "
              f"{mb(peaks['short'])} | {mb(peaks['facts'])} |", flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    evogate, work = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(work, exist_ok=True)
    rest, before = sys.argv[3:], None
    if rest[:1] == ["--before"]:
        before, rest = os.path.abspath(rest[1]), rest[2:]
    asked = rest or ["split=5,6", "import=5,6", "openai=5,6", "score=5,6", "facts=5,6"]
    binaries = [("before", before), ("after", evogate)] if before else [("after", evogate)]
    for item in asked:
        name, sizes = item.split("=")
        powers = [int(p) for p in sizes.split(",")]
        if name == "split":
            split_table(binaries, work, "`split --verifier facts`, tasks in 10^5 groups",
                        split_inputs, powers)
        elif name in ("split-numeric", "split-short", "split-choice", "split-arxiv", "split-scores"):
            layout = name.split("-")[1]
            title = {"scores": "`split --from-scores`, tasks in N / 10 groups",
                     "arxiv": "`split --verifier arxiv`, N / 4 papers of four tasks"}.get(
                         layout, f"`split --verifier {layout}`, tasks in N / 10 groups")
            split_table(binaries, work, title,
                        lambda w, n, layout=layout: split_other_inputs(w, n, layout), powers)
        elif name == "import":
            memory_table(evogate, work, "`import lm-eval`", lm_eval_inputs, powers)
        elif name == "openai":
            memory_table(evogate, work, "`import openai-evals`", openai_evals_inputs, powers)
        elif name == "score":
            memory_table(evogate, work, "`score --verifier short`, one answer a task",
                         lambda w, n: score_inputs(w, n), powers, before=before)
        elif name == "score-numeric":
            memory_table(evogate, work, "`score --verifier numeric`, one answer a task",
                         lambda w, n: score_inputs(w, n, "numeric"), powers, before=before)
        elif name == "score-facts":
            memory_table(evogate, work, "`score --verifier facts`, one answer a task",
                         lambda w, n: score_inputs(w, n, "facts"), powers, before=before)
        elif name == "score-facts-shared":
            memory_table(evogate, work, "`score --verifier facts`, 256 answers shared by the tasks",
                         lambda w, n: score_inputs(w, n, "facts", 256), powers, before=before)
        elif name == "score-arxiv":
            memory_table(evogate, work, "`score --verifier arxiv`, N / 4 papers, N outputs",
                         score_arxiv_inputs, powers, before=before)
        elif name == "facts":
            facts_table(evogate, work, powers)
        else:
            sys.exit(f"unknown workload {name}: use split, import, openai, score, "
                     "score-numeric, score-facts, score-facts-shared, score-arxiv or facts")


if __name__ == "__main__":
    main()
