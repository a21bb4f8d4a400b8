"""Stopping evogate: how long SIGINT and SIGTERM take to end a run, and whether the exit
code always says what is on disk.

`latency`: each workload (score over 10^6 outputs, score with the `facts` verifier over
answers shared by many tasks, import of a 10^6-line lm-eval log, admit on 10^7 pairs
with a report folder, split, power --sequential at its holdout cap, the signed-rank exact
test at n = 10^5, audit of many claims) is started over old outputs; after DELAY seconds
(while it is busy: early, at 1 s; midway through a whole run, or at 10 s for a long one;
and while it writes its outputs, 0.1 s after a temporary file or folder appears beside
the target) the signal is sent, and the time from the signal to the process's exit is measured. Each
row also checks that the run exited 2 and left its old outputs in place and nothing beside
them. SIGKILL at the same moments gives the floor: the time the kernel alone takes to end
the process (free its memory, close its files) on this machine at that moment.

`race`: `score --out` and `admit --report-dir` are signalled with SIGINT, TRIES times
each, at two kinds of moment: at random around their end (uniform in [0.5, 1.2] of the
median run time), and at the rename (the script polls the target's inode and signals as
soon as it changes, i.e. the new outputs were just moved into place). Each try is
classed by exit code and what the target holds: exit 2 with the old outputs and exit
0/1 with the new are consistent, anything else (exit 2 with the new file in place, an
empty or missing folder) is a fault, as is a temporary file left beside the target.

Usage: stop.py latency EVOGATE WORK_DIR [RUNS] ; stop.py race EVOGATE WORK_DIR [TRIES]
Prints a Markdown table. WORK_DIR keeps the generated inputs between runs (about 1.5 GB).
"""

if __name__ == "__main__":
    from _common import usage_on_help

    usage_on_help(__doc__)

import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import time

from _common import write_lines


def facts_inputs(work, prefix, n, answer, output):
    """A facts-layout truth of n tasks of one kind (`{prefix}truth.csv`, task i's answer
    answer(i)), its tasks (`{prefix}tasks.csv`) and one output a task
    (`{prefix}outputs.csv`, task i's output(i))."""
    write_lines(f"{work}/{prefix}truth.csv", "group,kind,question,answer\n",
                (f"g{i},k,question {i},{answer(i)}\n" for i in range(n)))
    write_lines(f"{work}/{prefix}tasks.csv", "task_id,group,kind,prompt\n",
                (f"g{i}:k,g{i},k,question {i}\n" for i in range(n)))
    write_lines(f"{work}/{prefix}outputs.csv", "task_id,output\n",
                (f"g{i}:k,{output(i)}\n" for i in range(n)))


def generate(work):
    """The inputs of every workload, written once."""
    os.makedirs(work, exist_ok=True)
    n = 10**6
    # short: a facts-layout truth, its tasks and outputs, one answer a task.
    facts_inputs(work, "", n, lambda i: f"answer {i % 997}",
                 lambda i: f"the answer is answer {(i * 7) % 997}")
    # facts: 10^6 tasks of one kind sharing 256 answers (the workload that was once quadratic).
    m = 10**6
    facts_inputs(work, "facts_", m, lambda i: f"answer{i % 256}", lambda i: f"answer{(i * 3) % 256}")
    # import: a 10^6-line lm-eval samples file.
    digest = "8d52662ed683404d1c5f225090293bd707c942fb370cf956572bef5e4057b3a6"
    write_lines(f"{work}/samples_gsm8k_2025-01-01T00-00-00.0.jsonl", "",
                ('{"doc_id": %d, "doc": {"question": "How far is %d?", "answer": "#### %d"}, '
                 '"target": "#### %d", "arguments": {}, "resps": [["The answer is %d"]], '
                 '"filtered_resps": ["%d"], "filter": "strict-match", "metrics": ["exact_match"], '
                 '"doc_hash": "%s", "prompt_hash": "%s", "target_hash": "%s", "exact_match": %d.0}\n'
                 % (i, i, i, i, i, i, digest, digest, digest, i % 3 == 0) for i in range(n)))
    # admit: 10^7 pairs, 0/1 outcomes.
    big = 10**7
    write_lines(f"{work}/base.csv", "task_id,correct,score\n",
                (f"t{i},{int(i % 3 == 0)},{int(i % 3 == 0)}\n" for i in range(big)))
    write_lines(f"{work}/cand.csv", "task_id,correct,score\n",
                (f"t{i},{int(i % 4 != 0)},{int(i % 4 != 0)}\n" for i in range(big)))
    # signed-rank: 10^5 pairs of scores with many distinct values.
    k = 10**5
    rng = random.Random(7)
    write_lines(f"{work}/sr_base.csv", "task_id,score\n",
                (f"t{i},{rng.random():.6f}\n" for i in range(k)))
    rng = random.Random(8)
    write_lines(f"{work}/sr_cand.csv", "task_id,score\n",
                (f"t{i},{min(1.0, rng.random() * 1.02):.6f}\n" for i in range(k)))
    # split: 4 x 10^5 facts tasks in 4 x 10^4 groups.
    s = 4 * 10**5
    write_lines(f"{work}/split_truth.csv", "group,kind,question,answer\n",
                (f"g{i // 10},k{i % 10},question {i},answer {i}\n" for i in range(s)))
    # audit: 3,000 claims, each re-testing two score files of 20,000 tasks.
    claims = f"{work}/claims"
    os.makedirs(claims, exist_ok=True)
    for arm, rate in (("b", 3), ("c", 4)):
        write_lines(f"{claims}/{arm}.csv", "task_id,correct,score\n",
                    (f"t{i},{int(i % rate != 0)},{int(i % rate != 0)}\n" for i in range(20000)))
    write_lines(f"{claims}/claims3000.csv", "claim_id,description,baseline_scores,candidate_scores\n",
                (f"c{i},claim {i},b.csv,c.csv\n" for i in range(3000)))


def workloads(work):
    """Each workload: name, command, the target it replaces (None: none)."""
    return [
        ("score, short verifier, 10^6 outputs",
         ["score", "--verifier", "short", "--truth", f"{work}/truth.csv", "--tasks", f"{work}/tasks.csv",
          "--outputs", f"{work}/outputs.csv", "--out", "out/scores.csv"], "out/scores.csv"),
        ("score, facts verifier, 10^6 outputs, 256 answers",
         ["score", "--verifier", "facts", "--truth", f"{work}/facts_truth.csv", "--tasks",
          f"{work}/facts_tasks.csv", "--outputs", f"{work}/facts_outputs.csv", "--out", "out/facts.csv"],
         "out/facts.csv"),
        ("import lm-eval, 10^6 lines",
         ["import", "lm-eval", "--from", f"{work}/samples_gsm8k_2025-01-01T00-00-00.0.jsonl",
          "--out", "out/imported.csv"], "out/imported.csv"),
        ("admit, 10^7 pairs, --report-dir",
         ["admit", "--baseline", f"{work}/base.csv", "--candidate", f"{work}/cand.csv",
          "--report-dir", "out/rep"], "out/rep"),
        ("admit, signed-rank exact, 10^5 pairs",
         ["admit", "--test", "signed-rank", "--baseline", f"{work}/sr_base.csv", "--candidate",
          f"{work}/sr_cand.csv", "--report-dir", "out/sr"], "out/sr"),
        ("split, 4x10^5 tasks",
         ["split", "--verifier", "facts", "--truth", f"{work}/split_truth.csv", "--out", "out/split"],
         "out/split"),
        ("power --sequential, holdout 20,000 (the cap)",
         ["power", "--sequential", "--shift", "0.01", "--discordance", "0.3", "--holdout", "20000"], None),
        ("audit, 3,000 claims of 20,000 tasks",
         ["audit", "--claims", f"{work}/claims/claims3000.csv", "--report-dir", "out/audit"], "out/audit"),
    ]


def snapshot(path):
    if path is None or not os.path.exists(path):
        return None
    if os.path.isfile(path):
        return os.path.getsize(path), os.path.getmtime(path)
    return sorted((name, os.path.getmtime(os.path.join(path, name))) for name in os.listdir(path))


def latency(evogate, work, runs):
    generate(work)
    scratch = f"{work}/run"
    print("| workload | whole run | signal | sent at | runs | signal to exit, median (max) | exit | "
          "old outputs kept, nothing beside |")
    print("| --- | ---: | --- | ---: | ---: | ---: | --- | --- |")
    for name, command, target in workloads(work):
        shutil.rmtree(scratch, ignore_errors=True)
        os.makedirs(f"{scratch}/out")
        # The old outputs: one whole run.
        started = time.monotonic()
        subprocess.run([evogate, *command], cwd=scratch, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        whole = time.monotonic() - started
        # Early (reading, grading), midway, and while the outputs are written (a temporary
        # file or folder has appeared beside the target).
        mid = 10.0 if whole > 60 else whole / 2
        for moment in ("early", "midway", "writing"):
            if moment == "writing" and target is None:
                continue
            delay = {"early": min(1.0, whole / 3), "midway": mid, "writing": None}[moment]
            for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
                waits, codes, kept, ended, at = [], set(), True, 0, []
                for _ in range(runs):
                    before = snapshot(os.path.join(scratch, target) if target else None)
                    names = sorted(os.listdir(f"{scratch}/out"))
                    started = time.monotonic()
                    process = subprocess.Popen([evogate, *command], cwd=scratch,
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    if delay is not None:
                        time.sleep(delay)
                    else:
                        while process.poll() is None and not any(
                                ".evogate-" in n for n in os.listdir(f"{scratch}/out")):
                            time.sleep(0.005)
                        time.sleep(0.1)
                    if process.poll() is not None:
                        # Done before the signal (a loaded machine runs faster or slower).
                        ended += 1
                        continue
                    at.append(time.monotonic() - started)
                    sent = time.monotonic()
                    process.send_signal(sig)
                    process.wait()
                    waits.append(time.monotonic() - sent)
                    codes.add(process.returncode)
                    after = snapshot(os.path.join(scratch, target) if target else None)
                    changed = after != before or sorted(os.listdir(f"{scratch}/out")) != names
                    if process.returncode == 2 and changed:
                        kept = False
                    if sig == signal.SIGKILL:
                        # What the kill left is cleared by the next run; here, by hand.
                        for leftover in os.listdir(f"{scratch}/out"):
                            if ".evogate-" in leftover:
                                path = f"{scratch}/out/{leftover}"
                                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
                shown = (f"{statistics.median(waits) * 1000:.0f} ms ({max(waits) * 1000:.0f} ms)"
                         if waits else "–")
                note = f" ({ended} ended first)" if ended else ""
                kept = "–" if sig == signal.SIGKILL else "yes" if kept else "NO"
                shown_whole = f"{whole:.1f} s"
                sent_at = f"{moment}, {statistics.median(at):.1f} s" if at else moment
                print(f"| {name} | {shown_whole} | {sig.name} | {sent_at} | {len(waits)}{note} | {shown} | "
                      f"{', '.join(map(str, sorted(codes)))} | {kept} |")
                sys.stdout.flush()
    shutil.rmtree(scratch, ignore_errors=True)


def race(evogate, work, tries):
    """SIGINT around the end of `score --out` and `admit --report-dir`."""
    scratch = f"{work}/race"
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    n = 10**5
    write_lines(f"{scratch}/truth.csv", "group,kind,question,answer\n",
                (f"g{i},k,question {i},answer {i % 97}\n" for i in range(n)))
    write_lines(f"{scratch}/tasks.csv", "task_id,group,kind,prompt\n",
                (f"g{i}:k,g{i},k,question {i}\n" for i in range(n)))
    for arm, step in (("o1", 5), ("o2", 7)):
        write_lines(f"{scratch}/{arm}.csv", "task_id,output\n",
                    (f"g{i}:k,answer {(i * step) % 97}\n" for i in range(n)))
    for arm, rate in (("b", 3), ("c1", 4), ("c2", 5)):
        write_lines(f"{scratch}/{arm}.csv", "task_id,correct,score\n",
                    (f"t{i},{int(i % rate != 0)},{int(i % rate != 0)}\n" for i in range(n)))
    cases = [
        ("score --out", ["score", "--verifier", "short", "--truth", "truth.csv", "--tasks", "tasks.csv",
                         "--outputs", "o1.csv", "--out", "s.csv"],
         ["score", "--verifier", "short", "--truth", "truth.csv", "--tasks", "tasks.csv",
          "--outputs", "o2.csv", "--out", "s.csv"], "s.csv"),
        ("admit --report-dir", ["admit", "--baseline", "b.csv", "--candidate", "c1.csv", "--report-dir", "rep"],
         ["admit", "--baseline", "b.csv", "--candidate", "c2.csv", "--report-dir", "rep"], "rep"),
    ]

    def content(path):
        full = os.path.join(scratch, path)
        if os.path.isfile(full):
            return open(full, "rb").read()
        if os.path.isdir(full):
            return tuple(sorted((name, open(os.path.join(full, name), "rb").read())
                                for name in os.listdir(full)))
        return None

    def stray():
        return [name for name in os.listdir(scratch) if ".evogate-" in name]

    def inode(path):
        try:
            return os.stat(os.path.join(scratch, path)).st_ino
        except FileNotFoundError:
            return None

    rng = random.Random(11)
    print("| command | signal sent | tries | exit 2, old in place | exit 0/1, new in place | "
          "exit 2, new in place | target missing or partial | temporary files left |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, old_run, new_run, target in cases:
        subprocess.run([evogate, *new_run], cwd=scratch, capture_output=True)
        new = content(target)
        times = []
        for _ in range(3):
            started = time.monotonic()
            subprocess.run([evogate, *old_run], cwd=scratch, capture_output=True)
            times.append(time.monotonic() - started)
        old = content(target)
        assert old != new
        whole = statistics.median(times)
        for when in ("at random", "at the rename"):
            counts = {"old2": 0, "new01": 0, "new2": 0, "broken": 0, "stray": 0}
            for _ in range(tries):
                subprocess.run([evogate, *old_run], cwd=scratch, capture_output=True)
                was = inode(target)
                process = subprocess.Popen([evogate, *new_run], cwd=scratch,
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if when == "at random":
                    time.sleep(whole * rng.uniform(0.5, 1.2))
                else:
                    while inode(target) == was and process.poll() is None:
                        pass
                process.send_signal(signal.SIGINT)
                process.wait()
                seen = content(target)
                code = process.returncode
                if code == 2 and seen == old:
                    counts["old2"] += 1
                elif code in (0, 1) and seen == new:
                    counts["new01"] += 1
                elif code == 2 and seen == new:
                    counts["new2"] += 1
                else:
                    counts["broken"] += 1
                if stray():
                    counts["stray"] += 1
                    for leftover in stray():
                        path = os.path.join(scratch, leftover)
                        shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
            print(f"| {name} (whole run {whole:.2f} s) | {when} | {tries} | {counts['old2']} | "
                  f"{counts['new01']} | {counts['new2']} | {counts['broken']} | {counts['stray']} |")
            sys.stdout.flush()
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    mode, evogate, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else (3 if mode == "latency" else 40)
    {"latency": latency, "race": race}[mode](evogate, work, count)
