"""Cases G01-G14 (`grade --jsonl` and `evogate.Grader`) and P01-P06 (the Python API)."""

from __future__ import annotations

import json
import sys
import textwrap

import gen
from common import DEMO, PAPERS, REPO, Run, case, has_raw_controls, run, sha


def grade(ctx, d, stdin=None, **kw):
    return run([ctx.bin, "grade", "--jsonl", "--truth", PAPERS], cwd=d, stdin=stdin, **kw)


def answers(r: Run) -> list:
    out = []
    for line in r.out.decode("utf-8", "replace").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({"unparsed": line})
    return out


@case("G01", "5", "grade < /dev/zero (ulimit -v 2 GB): an {\"error\"} line or exit 2, not an abort")
def g01(ctx, d):
    r = grade(ctx, d, stdin_path="/dev/zero", vmem_kb=2_000_000, timeout=120)
    ok = r.rc == 2 or (r.rc == 0 and b'"error"' in r.out)
    return ok and "memory allocation" not in r.errtext, r.brief()


@case("G02", "-", "a 100 MiB request line then a normal one: both answered or {\"error\"}, RSS < 1 GB", heavy=True)
def g02(ctx, d):
    with open(d / "req.jsonl", "w") as f:
        f.write(json.dumps({"task_id": "1406.2661:year", "output": "2014 " + "x" * (100 << 20)}) + "\n")
        f.write(json.dumps({"task_id": "1406.2661:year", "output": "2014"}) + "\n")
    r = run([ctx.bin, "grade", "--jsonl", "--truth", PAPERS], cwd=d, stdin_path=str(d / "req.jsonl"), timeout=120, measure=True)
    a = answers(r)
    return r.rc == 0 and len(a) == 2 and 0 < r.maxrss_kb < 1_000_000, r.brief() + f"; {len(a)} answers"


@case("G03", "-", "8 malformed lines, blank lines, then a good last line (no final newline): one error each, then an answer, exit 0")
def g03(ctx, d):
    bad = [b'{"task_id": "1406.2661:year", "out', b"not json", b"[1,2]", b'{"task_id": 5, "output": "x"}',
           b'{"task_id": "1406.2661:year"}', b'{"task_id": "1406.2661:year", "output": null}',
           b'{"task_id": "1406.2661:year", "output": "\\uZZZZ"}', b"\xff\xfe{}"]
    stdin = b"\n".join(bad) + b"\n\n  \n" + b'{"task_id": "1406.2661:year", "output": "2014"}'
    r = grade(ctx, d, stdin)
    a = answers(r)
    errors = sum(1 for x in a[:-1] if "error" in x)
    ok = r.rc == 0 and len(a) == 9 and errors == 8 and "error" not in a[-1]
    return ok, r.brief() + f"; {len(a)} lines, {errors} errors, last {'answered' if a and 'error' not in a[-1] else 'NOT answered'}"


@case("G04", "-", "a task not in the truth: {\"error\"} naming the task")
def g04(ctx, d):
    r = grade(ctx, d, '{"task_id": "nope:year", "output": "x"}\n')
    a = answers(r)
    return r.rc == 0 and len(a) == 1 and "nope:year" in a[0].get("error", ""), r.brief()


@case("G05", "9", "task id with U+202E not in truth: error JSON carries \\u202e, no raw bidi byte", kind="FAIL")
def g05(ctx, d):
    r = grade(ctx, d, json.dumps({"task_id": "1406.2661:ye\u202ear", "output": "x"}) + "\n")
    raw = has_raw_controls(r.out)
    return r.rc == 0 and b"error" in r.out and raw == 0, r.brief() + f"; raw bidi/control characters on stdout: {raw}"


@case("G06", "-", "stdin closed mid-line: one error line, exit 0")
def g06(ctx, d):
    r = grade(ctx, d, b'{"task_id": "1406.2661:year", "out', timeout=20)
    a = answers(r)
    return r.rc == 0 and len(a) == 1 and "error" in a[0], r.brief() + f"; {len(a)} lines"


@case("G07", "-", "reader closes stdout early (yes REQ | grade | head -2): exit 0 quietly")
def g07(ctx, d):
    req = json.dumps({"task_id": "1406.2661:year", "output": "2014"})
    script = f"yes '{req}' | {ctx.bin} grade --jsonl --truth {PAPERS} 2>err.txt | head -2 >/dev/null; echo ${{PIPESTATUS[1]}}"
    r = run(["bash", "-c", script], cwd=d, timeout=20)
    status = r.out.decode().strip()
    err = (d / "err.txt").read_text()
    return status == "0" and err == "", f"grade exit {status}, stderr {err[:80]!r}"


# ---------------------------------------------------------------- Python

def py(ctx, d, code: str, timeout=120) -> Run:
    """Runs code in the Python under test, with EVOGATE_BIN the binary under test."""
    (d / "case.py").write_text(textwrap.dedent(code))
    python = ctx.python or sys.executable
    env = {"EVOGATE_BIN": ctx.bin, "PYTHONDONTWRITEBYTECODE": "1"}
    if not ctx.python:
        env["PYTHONPATH"] = str(REPO / "python")
    return run([python, "case.py"], cwd=d, env=env, timeout=timeout)


def py_json(ctx, d, code, timeout=120):
    r = py(ctx, d, code, timeout)
    lines = r.out.decode("utf-8", "replace").strip().splitlines()
    if r.rc == 124:
        return None, r
    try:
        return json.loads(lines[-1]), r
    except (IndexError, ValueError):
        raise RuntimeError(f"the Python case printed no result: {r.brief()} {r.errtext[-300:]}")


GRADER_THREADS = """
import evogate, threading, csv, json, sys, time
T = %r
tasks = [(f"{r['arxiv_id']}:year", r['year']) for r in csv.DictReader(open(T))]
g = evogate.Grader(T)
wrong = [0]; done = [0]; errors = [0]
lock = threading.Lock()
def work(k, calls):
    for i in range(calls):
        tid, year = tasks[(k * 37 + i) %% len(tasks)]
        try:
            got = g.grade(tid, year)['task_id']
        except Exception:
            with lock: errors[0] += 1
            continue
        with lock:
            done[0] += 1
            if got != tid: wrong[0] += 1
res = {}
for threads, calls in ((8, 400), (2, 2000)):
    wrong[0] = done[0] = errors[0] = 0
    ts = [threading.Thread(target=work, args=(k, calls), daemon=True) for k in range(threads)]
    [t.start() for t in ts]
    deadline = time.time() + 30
    [t.join(max(0.0, deadline - time.time())) for t in ts]
    res[f"{threads}x{calls}"] = {"wrong": wrong[0], "done": done[0], "errors": errors[0], "hung": sum(t.is_alive() for t in ts)}
    if res[f"{threads}x{calls}"]["hung"]:
        break
print(json.dumps(res)); sys.stdout.flush()
import os; os._exit(0)
"""


@case("G08", "7", "one Grader shared by 8 threads x 400 calls (and 2 x 2,000): 0 misattributed, 0 hung", kind="FAIL")
def g08(ctx, d):
    res, r = py_json(ctx, d, GRADER_THREADS % str(PAPERS), timeout=150)
    if res is None:
        return False, "the script hung: " + r.brief()
    ok = all(v["wrong"] == 0 and v["hung"] == 0 and v["errors"] == 0 for v in res.values())
    return ok, "; ".join(f"{k}: {v['wrong']} misattributed of {v['done']}, {v['hung']} threads hung, {v['errors']} errors" for k, v in res.items())


@case("G09", "-", "grade child SIGKILLed between calls and during a 200 MB request: EvogateError, no hang (< 60 s)")
def g09(ctx, d):
    code = """
    import evogate, json, os, signal, threading, time
    out = {}
    g = evogate.Grader(%r)
    g.grade("1406.2661:year", "2014")
    os.kill(g._process.pid, signal.SIGKILL); time.sleep(0.2)
    t = time.time()
    try:
        g.grade("1406.2661:year", "2014"); out["between"] = "no error"
    except evogate.EvogateError as e:
        out["between"] = "EvogateError: " + str(e)[:60]
    out["between_s"] = round(time.time() - t, 2)
    g = evogate.Grader(%r)
    pid = g._process.pid
    threading.Timer(0.5, lambda: os.kill(pid, signal.SIGKILL)).start()
    t = time.time()
    try:
        g.grade("1406.2661:year", "x" * (200 << 20)); out["during"] = "no error"
    except evogate.EvogateError as e:
        out["during"] = "EvogateError: " + str(e)[:60]
    out["during_s"] = round(time.time() - t, 2)
    print(json.dumps(out))
    """ % (str(PAPERS), str(PAPERS))
    res, r = py_json(ctx, d, code, timeout=120)
    if res is None:
        return False, "hung: " + r.brief()
    # The bound is the table's "no hang", not a speed: building and writing 200 MB takes
    # seconds on a loaded machine (hostile-3: 1.9 s).
    ok = res["between"].startswith("EvogateError") and res["during"].startswith("EvogateError") and res["during_s"] < 60
    return ok, json.dumps(res, ensure_ascii=True)


@case("G10", "7", "grade child SIGSTOPped: grade() errors after a timeout (or a documented bound)", kind="note")
def g10(ctx, d):
    code = """
    import evogate, inspect, json, os, signal, threading, time
    names = [p for p in inspect.signature(evogate.Grader).parameters if "timeout" in p]
    kw = {names[0]: 3} if names else {}
    g = evogate.Grader(%r, **kw)
    g.grade("1406.2661:year", "2014")
    os.kill(g._process.pid, signal.SIGSTOP)
    res = {"timeout_parameter": bool(kw)}
    def call():
        try:
            g.grade("1406.2661:year", "2014"); res["result"] = "answered"
        except Exception as e:
            res["result"] = type(e).__name__ + ": " + str(e)[:60]
    t = threading.Thread(target=call, daemon=True); t.start(); t.join(20)
    res["hung"] = t.is_alive()
    try:
        os.kill(g._process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the Grader's timeout already killed and reaped it
    print(json.dumps(res)); os._exit(0)
    """ % str(PAPERS)
    res, r = py_json(ctx, d, code, timeout=60)
    if res is None:
        return False, "hung: " + r.brief()
    return not res["hung"], json.dumps(res)


@case("G11", "-", "10^5 grades through one Grader: flat child RSS")
def g11(ctx, d):
    code = """
    import evogate, csv, json
    T = %r
    ids = [f"{r['arxiv_id']}:year" for r in csv.DictReader(open(T))]
    g = evogate.Grader(T)
    def rss():
        for line in open(f"/proc/{g._process.pid}/status"):
            if line.startswith("VmRSS"): return int(line.split()[1])
    marks = {}
    for i in range(1, 100001):
        g.grade(ids[i %% len(ids)], "2014")
        if i in (1000, 10000, 50000, 100000): marks[i] = rss()
    print(json.dumps(marks))
    """ % str(PAPERS)
    res, r = py_json(ctx, d, code, timeout=300)
    if res is None:
        return False, "hung: " + r.brief()
    flat = res["100000"] <= res["1000"] * 1.5 + 1024
    return flat, "child VmRSS kB at 10^3/10^4/5x10^4/10^5 grades: " + ", ".join(str(v) for v in res.values())


@case("G12", "-", "answers with U+202E, odd digits, ESC, homoglyph, NUL: graded; a lone surrogate: EvogateError; next grade works")
def g12(ctx, d):
    code = r"""
    import evogate, json
    g = evogate.Grader(%r)
    res = {}
    for label, ans in [("bidi", "\u202e2014"), ("arabic", "\u0662\u0660\u0661\u0664"), ("wide", "\uff12\uff10\uff11\uff14"),
                       ("esc", "\x1b[2J2014"), ("homoglyph", "Gener\u0430tive Adversarial Nets"), ("nul", "2014\0")]:
        tid = "1406.2661:title" if label == "homoglyph" else "1406.2661:year"
        try:
            res[label] = g.grade(tid, ans)["score"] is not None
        except Exception as e:
            res[label] = type(e).__name__
    try:
        g.grade("1406.2661:year", "\ud800"); res["surrogate"] = "graded"
    except evogate.EvogateError:
        res["surrogate"] = "EvogateError"
    except Exception as e:
        res["surrogate"] = type(e).__name__
    res["after"] = g.grade("1406.2661:year", "2014")["correct"]
    print(json.dumps(res))
    """ % str(PAPERS)
    res, r = py_json(ctx, d, code)
    if res is None:
        return False, "hung: " + r.brief()
    ok = all(res[k] is True for k in ("bidi", "arabic", "wide", "esc", "homoglyph", "nul")) and res["surrogate"] == "EvogateError" and res["after"] is True
    return ok, json.dumps(res)


@case("G13", "-", "Grader('missing.csv'), wrong verifiers, grade() after close(): EvogateError each")
def g13(ctx, d):
    code = """
    import evogate, json
    res = []
    def t(f):
        try:
            f(); res.append("no error")
        except evogate.EvogateError as e:
            res.append("EvogateError")
        except Exception as e:
            res.append(type(e).__name__)
    def closed():
        g = evogate.Grader(%r); g.close(); g.grade("1406.2661:year", "2014")
    t(lambda: evogate.Grader("missing.csv").grade("a:year", "x"))
    t(lambda: evogate.Grader(%r, "facts").grade("1406.2661:year", "x"))
    t(lambda: evogate.Grader(%r, "nope").grade("1406.2661:year", "x"))
    t(closed)
    print(json.dumps(res))
    """ % (str(PAPERS), str(PAPERS), str(PAPERS))
    res, r = py_json(ctx, d, code)
    return res == ["EvogateError"] * 4, json.dumps(res)


@case("G14", "-", "fuzz 3 x 20,000 lines: exit 0, one answer per line, nothing on stderr")
def g14(ctx, d):
    got = []
    held = True
    for seed in (1, 2, 3):
        lines = gen.fuzz_lines(20_000, seed)
        r = grade(ctx, d, b"\n".join(lines) + b"\n", timeout=120)
        n = len(r.out.splitlines())
        errs = r.out.count(b'"error"')
        held &= r.rc == 0 and n == len(lines) and r.err == b""
        got.append(f"exit {r.rc}, {n} answers of {len(lines)} ({errs} errors), stderr {len(r.err)} bytes")
    return held, "; ".join(got)


# ---------------------------------------------------------------- Python admit / import_log

ROWS = """
def rows(n=40, shift=0):
    return [{"task_id": f"t{i}", "correct": int((i + shift) % 3 == 0), "score": float((i + shift) % 3 == 0), "kind": f"k{i % 2}"}
            for i in range(n)]
"""


@case("P01", "-", "rows with bad scores/ids (8 calls): EvogateError with the CLI's message")
def p01(ctx, d):
    code = ROWS + textwrap.dedent("""
    import evogate, json, math
    from fractions import Fraction
    res = []
    for field, value in [("score", None), ("score", math.nan), ("score", math.inf), ("score", [1]), ("score", {"a": 1}),
                         ("score", Fraction(1, 3)), ("task_id", None), ("correct", 0.5)]:
        base = rows(); base[5][field] = value
        try:
            evogate.admit(base, rows(shift=1)); res.append("no error")
        except evogate.EvogateError as e:
            res.append("EvogateError")
        except Exception as e:
            res.append(type(e).__name__)
    print(json.dumps(res))
    """)
    res, r = py_json(ctx, d, code)
    return res == ["EvogateError"] * 8, json.dumps(res)


@case("P02", "-", "rows that are ints; alpha/test/strata holding shell or options: an exception, no shell, nothing injected")
def p02(ctx, d):
    code = ROWS + textwrap.dedent("""
    import evogate, json, os
    res = []
    for kw in [dict(baseline=[1, 2, 3]), dict(alpha="0.05; rm -rf /"), dict(test="--help"), dict(strata="--format=text")]:
        args = dict(baseline=rows(), candidate=rows(shift=1)); args.update(kw)
        try:
            evogate.admit(**args); res.append("no error")
        except Exception as e:
            res.append(type(e).__name__)
    print(json.dumps(res))
    """)
    res, r = py_json(ctx, d, code)
    ok = all(x in ("TypeError", "ValueError", "EvogateError") for x in res)
    return ok, json.dumps(res)


@case("P03", "-", "report_dir and ledger under 'dir with spaces ü ☃/', a baseline path with a space: works")
def p03(ctx, d):
    # The demo's arms and holdout with its manifest (a ledger needs one).
    code = """
    import evogate, json, os, shutil
    D = %r
    folder = "dir with spaces \u00fc \u2603"
    os.makedirs(folder)
    shutil.copytree(D + "/split", folder + "/split")
    shutil.copy(D + "/baseline-scores.csv", "base line.csv")
    a = evogate.admit("base line.csv", D + "/candidate-scores.csv", tasks=folder + "/split/holdout.csv",
                      manifest=folder + "/split/manifest.json", report_dir=folder + "/rep", ledger=folder + "/led ger.jsonl")
    print(json.dumps({"verdict": a.report["verdict"], "files": sorted(os.listdir(folder + "/rep")),
                      "ledger": os.path.exists(folder + "/led ger.jsonl")}))
    """ % str(DEMO)
    res, r = py_json(ctx, d, code)
    if res is None or r.rc != 0:
        return False, r.brief() + " " + r.errtext.strip().splitlines()[-1][:120]
    return len(res["files"]) >= 6 and res["ledger"], json.dumps(res, ensure_ascii=False)


@case("P04", "16", "baseline path '-b.csv': read like any path", kind="note")
def p04(ctx, d):
    code = ROWS + textwrap.dedent("""
    import evogate, csv, json
    with open("-b.csv", "w", newline="") as f:
        w = csv.DictWriter(f, ["task_id", "correct", "score", "kind"]); w.writeheader(); w.writerows(rows())
    try:
        a = evogate.admit("-b.csv", rows(shift=1)); print(json.dumps({"result": a.report["verdict"]}))
    except Exception as e:
        print(json.dumps({"result": type(e).__name__ + ": " + str(e)[:80]}))
    """)
    res, r = py_json(ctx, d, code)
    return not res["result"].startswith(("EvogateError", "TypeError", "ValueError")), res["result"]


@case("P05", "-", "10^6 rows per arm as lists of dicts: a verdict in bounded time", heavy=True)
def p05(ctx, d):
    code = """
    import evogate, json, time
    rows_b = [{"task_id": f"t{i}", "correct": i % 2, "score": float(i % 2), "kind": f"k{i % 4}"} for i in range(10**6)]
    rows_c = [{"task_id": f"t{i}", "correct": (i % 2) | (i % 7 == 0), "score": float((i % 2) | (i % 7 == 0)), "kind": f"k{i % 4}"} for i in range(10**6)]
    t = time.time(); a = evogate.admit(rows_b, rows_c)
    print(json.dumps({"verdict": a.report["verdict"], "seconds": round(time.time() - t, 1)}))
    """
    res, r = py_json(ctx, d, code, timeout=300)
    if res is None:
        return False, r.brief()
    return res["seconds"] < 120, json.dumps(res)


@case("P06", "1", "import_log('lm-eval', ['S.jsonl'], 'S.jsonl'): EvogateError, log kept", kind="FAIL")
def p06(ctx, d):
    import shutil

    shutil.copy(gen.LM_EVAL, d / "S.jsonl")
    before = sha(d / "S.jsonl")
    code = """
    import evogate, json
    try:
        evogate.import_log("lm-eval", ["S.jsonl"], "S.jsonl", filter="strict-match", task="gsm8k"); res = "returned"
    except evogate.EvogateError as e:
        res = "EvogateError: " + str(e)[:80]
    except Exception as e:
        res = type(e).__name__ + ": " + str(e)[:80]
    print(json.dumps(res))
    """
    res, r = py_json(ctx, d, code)
    kept = sha(d / "S.jsonl") == before
    return res.startswith("EvogateError") and kept, f"{res}; log {'kept' if kept else 'REPLACED'}"
