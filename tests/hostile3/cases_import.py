"""Cases I01-I39, K01-K06 and D01 of hostile-3.md: `import` and its faults."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import gen
from common import Skip, case, has_raw_controls, listing, run, sha


def imp(ctx, d, fmt, src, out="out.csv", *extra, **kw):
    return run([ctx.bin, "import", fmt, "--from", src, "--out", out, *extra], cwd=d, **kw)


def written(d, out="out.csv"):
    return (d / out).exists() or (d / (Path(out).stem + ".import.json")).exists()


def lm_copy(d, name="samples_gsm8k_2025-01-01.jsonl"):
    shutil.copy(gen.LM_EVAL, d / name)
    return name


# ---------------------------------------------------------------- lm-eval input faults

@case("I01", "-", "exit 2 naming file and row, nothing written")
def i01(ctx, d):
    data = gen.LM_EVAL.read_bytes()[:12000]
    (d / "cut.jsonl").write_bytes(data)
    r = imp(ctx, d, "lm-eval", "cut.jsonl", "out.csv", "--task", "x")
    return r.rc == 2 and "cut.jsonl" in r.errtext and "row" in r.errtext and not written(d), r.brief()


@case("I02", "-", "exit 2 naming row 2")
def i02(ctx, d):
    lines = gen.LM_EVAL.read_bytes().split(b"\n")
    rng = random.Random(2)
    junk = bytes(rng.randrange(256) for _ in range(50)).replace(b"\n", b"x")
    lines[1] = lines[1][:300] + junk + lines[1][300:]
    (d / "s.jsonl").write_bytes(b"\n".join(lines))
    r = imp(ctx, d, "lm-eval", "s.jsonl", "out.csv", "--task", "x")
    return r.rc == 2 and "row 2" in r.errtext and not written(d), r.brief()


@case("I03", "16", "a note at least (3-sample run imported as 2), or exit 2", kind="note")
def i03(ctx, d):
    name = gen.LM_EVAL.name
    lines = gen.LM_EVAL.read_text().splitlines(keepends=True)
    (d / name).write_text("".join(lines[:2]))
    shutil.copy(gen.LM_EVAL_RESULTS, d / gen.LM_EVAL_RESULTS.name)
    r = imp(ctx, d, "lm-eval", name, "out.csv", "--filter", "strict-match")
    notes = [l for l in r.errtext.splitlines() if not l.startswith("note: wrote")]
    held = r.rc == 2 or (r.rc == 0 and bool(notes))
    return held, r.brief() + f"; notes besides 'wrote': {len(notes)}"


@case("I04", "5", "exit 2: a JSON line may hold at most 64 MiB (1 GiB line)", kind="FAIL", heavy=True)
def i04(ctx, d):
    head, tail = gen.lm_line(0, 1.0, pad="@PAD@").split("@PAD@")
    with open(d / "samples_big_2025-01-01.jsonl", "w") as f:
        f.write(head)
        for _ in range(64):
            f.write("p" * (1 << 24))
        f.write(tail + "\n")
    r = imp(ctx, d, "lm-eval", "samples_big_2025-01-01.jsonl", timeout=300, measure=True)
    return r.rc == 2 and "MiB" in r.errtext, r.brief()


@case("I05", "5", "exit 2 named error on /dev/zero (under ulimit -v 2 GB), not an abort")
def i05(ctx, d):
    r = imp(ctx, d, "lm-eval", "/dev/zero", "z.csv", "--task", "x", vmem_kb=2_000_000, timeout=120)
    return r.rc == 2 and "memory allocation" not in r.errtext and "out of memory" not in r.errtext, r.brief()


def bomb_case(ctx, d, gib, vmem):
    gen.eval_bomb(d / "bomb.eval", gib)
    size = (d / "bomb.eval").stat().st_size
    r = imp(ctx, d, "inspect", "bomb.eval", timeout=600, measure=True, vmem_kb=vmem)
    bounded = 0 < r.maxrss_kb < 1_600_000
    return r.rc == 2 and bounded and "out of memory" not in r.errtext, f"{size / 1e6:.1f} MB archive; " + r.brief()


@case("I06", "5", "zip bomb (2 MB -> 2 GiB member): exit 2, peak RSS < 1.6 GB", kind="FAIL", heavy=True)
def i06(ctx, d):
    return bomb_case(ctx, d, 2, None)


@case("I07", "5", "zip bomb (6 MB -> 6 GiB), ulimit -v 8 GB: exit 2 before allocating GBs", kind="FAIL", heavy=True)
def i07(ctx, d):
    return bomb_case(ctx, d, 6, 8_000_000)


# ---------------------------------------------------------------- Inspect archives

@case("I08", "-", "traversal member names: nothing written outside --out")
def i08(ctx, d):
    (d / "sub").mkdir()
    names = ["samples/../../x.json", "../../samples/evil.json", "/etc/samples/y.json", "samples/..\\..\\z.json"]
    members = [("header.json", gen.inspect_header()), ("samples/1_epoch_1.json", gen.inspect_sample(1))]
    members += [(n, gen.inspect_sample(i + 2)) for i, n in enumerate(names)]
    gen.eval_zip(d / "sub" / "t.eval", members)
    before = listing(d.parent)
    r = imp(ctx, d / "sub", "inspect", "t.eval")
    new = sorted(set(listing(d.parent)) - set(before))
    ok = set(new) <= {f"{d.name}/sub/out.csv", f"{d.name}/sub/out.import.json"}
    return r.rc in (0, 2) and ok, r.brief() + f"; new files {new}"


@case("I09", "-", "a nested zip as a sample: exit 2 naming the member")
def i09(ctx, d):
    inner = d / "inner.zip"
    gen.eval_zip(inner, [("a.json", "{}")])
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()), ("samples/1_epoch_1.json", inner.read_bytes())])
    r = imp(ctx, d, "inspect", "t.eval")
    return r.rc == 2 and "samples/1_epoch_1.json" in r.errtext, r.brief()


@case("I10", "N", "two members samples/1_epoch_1.json: refused as ambiguous, or a note", kind="note")
def i10(ctx, d):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()),
                                ("samples/1_epoch_1.json", gen.inspect_sample(1, "C")),
                                ("samples/1_epoch_1.json", gen.inspect_sample(1, "I"))])
    r = imp(ctx, d, "inspect", "t.eval")
    notes = [l for l in r.errtext.splitlines() if not l.startswith("note: wrote")]
    return (r.rc == 2 and "two members" in r.errtext) or (r.rc == 0 and bool(notes)), r.brief()


@case("I11", "N", "two header.json members: refused as ambiguous, or a note", kind="note")
def i11(ctx, d):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header("popularity")),
                                ("header.json", gen.inspect_header("other")),
                                ("samples/1_epoch_1.json", gen.inspect_sample(1))])
    r = imp(ctx, d, "inspect", "t.eval")
    notes = [l for l in r.errtext.splitlines() if not l.startswith("note: wrote")]
    return (r.rc == 2 and "two members" in r.errtext) or (r.rc == 0 and bool(notes)), r.brief()


def sample_text_case(ctx, d, text):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()), ("samples/1_epoch_1.json", text)])
    r = imp(ctx, d, "inspect", "t.eval")
    return r.rc == 2 and "samples/1_epoch_1.json" in r.errtext and not written(d), r.brief()


@case("I12", "-", "sample score NaN: exit 2 naming the member")
def i12(ctx, d):
    return sample_text_case(ctx, d, '{"id": 1, "epoch": 1, "scores": {"match": {"value": NaN}}}')


@case("I13", "-", "sample score 1e999: exit 2")
def i13(ctx, d):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()),
                                ("samples/1_epoch_1.json", '{"id": 1, "epoch": 1, "scores": {"match": {"value": 1e999}}}')])
    r = imp(ctx, d, "inspect", "t.eval")
    return r.rc == 2 and not written(d), r.brief()


@case("I14", "-", "sample ids 1 and \"1\": refused as a collision")
def i14(ctx, d):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()),
                                ("samples/1_epoch_1.json", gen.inspect_sample(1)),
                                ("samples/1s_epoch_1.json", gen.inspect_sample("1"))])
    r = imp(ctx, d, "inspect", "t.eval")
    return r.rc == 2 and not written(d), r.brief()


@case("I15", "16", "epochs -1 and \"2\": exit 2 naming the bad epoch", kind="note")
def i15(ctx, d):
    gen.eval_zip(d / "t.eval", [("header.json", gen.inspect_header()),
                                ("samples/1_epoch_a.json", gen.inspect_sample(1, epoch=-1)),
                                ("samples/1_epoch_b.json", gen.inspect_sample(1, epoch="2"))])
    r = imp(ctx, d, "inspect", "t.eval")
    return r.rc == 2 and "epoch" in r.errtext, r.brief()


@case("I16", "-", "14 format/file mismatches: exit 2 naming the file, nothing written")
def i16(ctx, d):
    lm = lm_copy(d, "samples_x_2025-01-01.jsonl")
    shutil.copy(gen.PROMPTFOO, d / "p.json")
    shutil.copy(gen.INSPECT_EVAL, d / "l.eval")
    shutil.copy(gen.OAIEVAL, d / "o.jsonl")
    tries = [(f, lm) for f in ("inspect", "promptfoo", "openai-evals", "helm", "dspy")]
    tries += [(f, "p.json") for f in ("lm-eval", "inspect", "openai-evals", "dspy")]
    tries += [(f, "l.eval") for f in ("lm-eval", "promptfoo", "openai-evals")]
    tries += [(f, "o.jsonl") for f in ("promptfoo", "inspect")]
    bad = []
    for fmt, src in tries:
        extra = ["--task", "x"] if fmt == "lm-eval" else []
        r = imp(ctx, d, fmt, src, "out.csv", *extra)
        if not (r.rc == 2 and src in r.errtext and not written(d)):
            bad.append(f"{fmt}<-{src}: {r.brief()}")
    return not bad, f"{len(tries) - len(bad)}/{len(tries)} exit 2 naming the file" + (f"; first miss {bad[0]}" if bad else "")


@case("I17", "-", "exact_match NaN/Infinity/-Infinity/1e999/-1e999/\"1\"/null/2/1.0000001: exit 2 naming file and row or task")
def i17(ctx, d):
    vals = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999", '"1"', "null", "2", "1.0000001"]
    bad = []
    for i, v in enumerate(vals):
        name = f"samples_v{i}_2025-01-01.jsonl"
        l2 = gen.lm_line(1, 0.5).replace('"exact_match": 0.5', f'"exact_match": {v}')
        (d / name).write_text(gen.lm_line(0) + "\n" + l2 + "\n")
        r = imp(ctx, d, "lm-eval", name, "out.csv", "--filter", "strict-match")
        names = (name in r.errtext and "row 2" in r.errtext) or "task" in r.errtext
        if not (r.rc == 2 and names and not written(d)):
            bad.append(f"{v}: {r.brief()}")
    return not bad, f"{len(vals) - len(bad)}/{len(vals)} exit 2 naming file and row or task" + (f"; first miss {bad[0]}" if bad else "")


@case("I18", "-", "id collisions (\"1:2\" vs gsm8k:1/2, 1 vs \"1\", 1.0 vs 1e0, a file twice): refused")
def i18(ctx, d):
    def log(name, lines):
        (d / name).write_text("".join(l + "\n" for l in lines))
        return name

    a = log("samples_gsm8k_2025-01-01.jsonl", [gen.lm_line("1:2")])
    b = log("samples_gsm8k:1_2025-01-01.jsonl", [gen.lm_line(2)])
    c = log("samples_c_2025-01-01.jsonl", [gen.lm_line(1), gen.lm_line("1")])
    e = log("samples_e_2025-01-01.jsonl", [gen.lm_line(0).replace('"doc_id": 0', '"doc_id": 1.0'),
                                           gen.lm_line(0).replace('"doc_id": 0', '"doc_id": 1e0')])
    runs = [[a, b], [c], [e], [a, a]]
    bad = []
    for froms in runs:
        argv = [ctx.bin, "import", "lm-eval", "--filter", "strict-match", "--out", "out.csv"]
        for f in froms:
            argv += ["--from", f]
        r = run(argv, cwd=d)
        if not (r.rc == 2 and not written(d)):
            bad.append(f"{froms}: {r.brief()}")
    return not bad, f"{len(runs) - len(bad)}/{len(runs)} refused" + (f"; first miss {bad[0]}" if bad else "")


def two_lm_arms(ctx, d):
    na, nb = "samples_gsm8k_2025-01-01.jsonl", "samples_gsm8k_2025-01-02.jsonl"
    shutil.copy(gen.LM_EVAL, d / na)
    lines = [json.loads(l) for l in gen.LM_EVAL.read_text().splitlines()]
    for l in lines:
        l["doc_hash"] = "0" * 64
    (d / nb).write_text("".join(json.dumps(l) + "\n" for l in lines))
    ra = imp(ctx, d, "lm-eval", na, "a.csv", "--filter", "strict-match")
    rb = imp(ctx, d, "lm-eval", nb, "b.csv", "--filter", "strict-match")
    if ra.rc != 0 or rb.rc != 0:
        raise RuntimeError(f"imports failed: {ra.brief()} / {rb.brief()}")


@case("I19", "-", "lm-eval arms on different documents: admit exits 2 naming the task and keys")
def i19(ctx, d):
    two_lm_arms(ctx, d)
    r = run([ctx.bin, "admit", "--baseline", "a.csv", "--candidate", "b.csv"], cwd=d)
    return r.rc == 2 and "document" in r.errtext, r.brief()


@case("I20", "16", "as I19, candidate's .import.json deleted: refused or warned", kind="note")
def i20(ctx, d):
    two_lm_arms(ctx, d)
    (d / "b.import.json").unlink()
    r = run([ctx.bin, "admit", "--baseline", "a.csv", "--candidate", "b.csv"], cwd=d)
    warned = "import.json" in r.errtext or "record" in r.errtext
    return r.rc == 2 or warned, r.brief()


@case("I21", "14", "two Inspect arms from different datasets: refused (exit 2)", kind="FAIL")
def i21(ctx, d):
    gen.eval_log(d / "a.eval", [gen.inspect_sample(i, "C" if i % 2 else "I", input_=f"qa{i}") for i in (1, 2, 3)],
                 task="arc", dataset="allenai/ai2_arc")
    gen.eval_log(d / "b.eval", [gen.inspect_sample(i, "C", input_=f"other{i}") for i in (1, 2, 3)],
                 task="arc", dataset="totally_different")
    for src, out in (("a.eval", "a.csv"), ("b.eval", "b.csv")):
        r = imp(ctx, d, "inspect", src, out)
        if r.rc != 0:
            return r.rc == 2 and "dataset" in r.errtext, "import: " + r.brief()
    r = run([ctx.bin, "admit", "--baseline", "a.csv", "--candidate", "b.csv"], cwd=d)
    return r.rc == 2 and "document" in r.errtext, r.brief()


@case("I22", "10", "ids x, ' x', 'x<TAB>': import refuses, or admit keeps them apart", kind="FAIL")
def i22(ctx, d):
    gen.eval_log(d / "t.eval", [gen.inspect_sample(i) for i in ("x", " x", "x\t")])
    r = imp(ctx, d, "inspect", "t.eval")
    if r.rc == 2:
        # A refusal counts only when it is the duplicate's, not any exit 2 (an unreadable
        # log would refuse too).
        return "duplicated" in r.errtext and ":x`" in r.errtext, "import: " + r.brief()
    a = run([ctx.bin, "admit", "--baseline", "out.csv", "--candidate", "out.csv"], cwd=d)
    return r.rc == 0 and a.rc in (0, 1), f"import {r.brief()}; admit {a.brief()}"


@case("I23", "-", "lm-eval and oaieval logs with CRLF: byte-identical scores CSVs")
def i23(ctx, d):
    res = []
    for fmt, src, extra in (("lm-eval", gen.LM_EVAL, ["--filter", "strict-match"]),
                            ("openai-evals", gen.OAIEVAL, ["--event", "match"])):
        text = src.read_bytes().replace(b"\r\n", b"\n")
        (d / ("lf" + src.suffix)).write_bytes(text)
        (d / ("crlf" + src.suffix)).write_bytes(text.replace(b"\n", b"\r\n"))
        ra = imp(ctx, d, fmt, "lf" + src.suffix, "lf.csv", *extra, *(["--task", "x"] if fmt == "lm-eval" else []))
        rb = imp(ctx, d, fmt, "crlf" + src.suffix, "crlf.csv", *extra, *(["--task", "x"] if fmt == "lm-eval" else []))
        same = ra.rc == 0 and rb.rc == 0 and (d / "lf.csv").read_bytes() == (d / "crlf.csv").read_bytes()
        res.append((fmt, same, ra.brief(), rb.brief()))
        for f in ("lf.csv", "crlf.csv"):
            (d / f).unlink(missing_ok=True)
    return all(s for _, s, _, _ in res), "; ".join(f"{f}: {'identical' if s else 'differ ' + a + ' / ' + b}" for f, s, a, b in res)


@case("I24", "-", "UTF-8 BOM, UTF-16, Latin-1 byte in doc_id: exit 2 naming file and row")
def i24(ctx, d):
    text = gen.LM_EVAL.read_text()
    variants = {"bom.jsonl": b"\xef\xbb\xbf" + text.encode(), "u16.jsonl": text.encode("utf-16"),
                "latin.jsonl": gen.lm_line(0).replace('"doc_id": 0', '"doc_id": "caf\u00e9"').encode("latin-1") + b"\n"}
    bad = []
    for name, data in variants.items():
        (d / name).write_bytes(data)
        r = imp(ctx, d, "lm-eval", name, "out.csv", "--task", "x", "--filter", "strict-match")
        if not (r.rc == 2 and name in r.errtext and "row" in r.errtext and not written(d)):
            bad.append(f"{name}: {r.brief()}")
    return not bad, f"{3 - len(bad)}/3 exit 2 naming file and row" + (f"; first miss {bad[0]}" if bad else "")


@case("I25", "-", "symlink loops and folders as --from: exit 2 at once, no hang")
def i25(ctx, d):
    os.symlink("loopb", d / "a")
    os.symlink("a", d / "loopb")
    (d / "h").mkdir()
    os.symlink("..", d / "h" / "per_instance_stats.json")
    (d / "folder").mkdir()
    tries = [("helm", "a"), ("lm-eval", "a"), ("helm", "h"), ("inspect", "folder"), ("lm-eval", "folder")]
    bad = []
    for fmt, src in tries:
        extra = ["--task", "x"] if fmt == "lm-eval" else (["--metric", "exact_match"] if fmt == "helm" else [])
        r = imp(ctx, d, fmt, src, "out.csv", *extra, timeout=20)
        if r.rc != 2:
            bad.append(f"{fmt} {src}: {r.brief()}")
    return not bad, f"{len(tries) - len(bad)}/{len(tries)} exit 2" + (f"; first miss {bad[0]}" if bad else "")


# ---------------------------------------------------------------- import over its own inputs (F1)

@case("I26", "1", "--out equal to --from (lm-eval, promptfoo, helm): exit 2 naming both, input kept", kind="FAIL")
def i26(ctx, d):
    lm_copy(d, "S.jsonl")
    shutil.copy(gen.PROMPTFOO, d / "p.json")
    shutil.copytree(gen.HELM, d / "h")
    tries = [("lm-eval", "S.jsonl", "S.jsonl", ["--filter", "strict-match", "--task", "gsm8k"]),
             ("promptfoo", "p.json", "p.json", ["--arm", "openai:gpt-5"]),
             ("helm", "h", "h/per_instance_stats.json", ["--metric", "exact_match", "--split", "test"])]
    got, held = [], True
    for fmt, src, out, extra in tries:
        target = d / out
        before = sha(target)
        r = imp(ctx, d, fmt, src, out, *extra)
        kept = sha(target) == before
        held &= r.rc == 2 and kept
        got.append(f"{fmt}: {r.brief()}, input {'kept' if kept else 'REPLACED'}")
    return held, "; ".join(got)


@case("I27", "1", "--from X.import.json --out X.csv: exit 2, input kept", kind="FAIL")
def i27(ctx, d):
    shutil.copy(gen.LM_EVAL, d / "X.import.json")
    before = sha(d / "X.import.json")
    r = imp(ctx, d, "lm-eval", "X.import.json", "X.csv", "--task", "x", "--filter", "strict-match")
    kept = sha(d / "X.import.json") == before
    return r.rc == 2 and kept, r.brief() + f"; input {'kept' if kept else 'REPLACED'}"


@case("I28", "1", "dspy --valset v.import.json --out v.csv: exit 2, valset kept", kind="FAIL")
def i28(ctx, d):
    shutil.copy(gen.GEPA, d / "g.json")
    shutil.copy(gen.VALSET, d / "v.import.json")
    before = sha(d / "v.import.json")
    r = imp(ctx, d, "dspy", "g.json", "v.csv", "--candidate", "0", "--id-field", "input", "--valset", "v.import.json")
    kept = sha(d / "v.import.json") == before
    return r.rc == 2 and kept, r.brief() + f"; valset {'kept' if kept else 'REPLACED'}"


@case("I29", "-", "--out a symlink or a hard link to the --from log: input kept")
def i29(ctx, d):
    lm_copy(d, "S.jsonl")
    before = sha(d / "S.jsonl")
    os.symlink("S.jsonl", d / "sym.csv")
    os.link(d / "S.jsonl", d / "hard.csv")
    got, held = [], True
    for out in ("sym.csv", "hard.csv"):
        r = imp(ctx, d, "lm-eval", "S.jsonl", out, "--task", "x", "--filter", "strict-match")
        kept = sha(d / "S.jsonl") == before
        held &= kept and r.rc in (0, 2)
        got.append(f"{out}: {r.brief()}, log {'kept' if kept else 'REPLACED'}")
    return held, "; ".join(got)


# ---------------------------------------------------------------- dspy, oaieval, promptfoo, helm

def all_exit2(ctx, d, tries):
    bad = []
    for label, fmt, src, extra in tries:
        r = imp(ctx, d, fmt, src, "out.csv", *extra)
        if not (r.rc == 2 and not written(d)):
            bad.append(f"{label}: {r.brief()}")
    return not bad, f"{len(tries) - len(bad)}/{len(tries)} exit 2" + (f"; first miss {bad[0]}" if bad else "")


@case("I30", "-", "GEPA --candidate 2/-1/2^64/1e3, best_idx 7: exit 2 listing the candidates")
def i30(ctx, d):
    shutil.copy(gen.GEPA, d / "g.json")
    (d / "g7.json").write_text(json.dumps(gen.gepa(best_idx=7)))
    tries = [(c, "dspy", "g.json", ["--candidate", c]) for c in ("2", "-1", "18446744073709551616", "1e3")]
    tries.append(("best_idx 7", "dspy", "g7.json", ["--candidate", "best"]))
    return all_exit2(ctx, d, tries)


@case("I31", "-", "GEPA subscore NaN, subscore 5: exit 2")
def i31(ctx, d):
    text = json.dumps(gen.gepa(val_subscores=[{"0": 0.1, "1": 0.2}, {"0": 12345.5, "1": 0.4}]))
    (d / "nan.json").write_text(text.replace("12345.5", "NaN"))
    (d / "five.json").write_text(text.replace("12345.5", "5"))
    return all_exit2(ctx, d, [("NaN", "dspy", "nan.json", ["--candidate", "1"]),
                              ("5", "dspy", "five.json", ["--candidate", "1"])])


@case("I32", "-", "GEPA --valset shorter, doubled, sharing an id: exit 2 naming the valset")
def i32(ctx, d):
    shutil.copy(gen.GEPA, d / "g.json")
    v = json.loads(gen.VALSET.read_text())
    (d / "v_short.json").write_text(json.dumps(v[:1]))
    (d / "v_twice.json").write_text(json.dumps(v + v))
    (d / "v_same.json").write_text(json.dumps([v[0], dict(v[1], input=v[0]["input"])]))
    bad = []
    for name in ("v_short.json", "v_twice.json", "v_same.json"):
        r = imp(ctx, d, "dspy", "g.json", "out.csv", "--candidate", "1", "--id-field", "input", "--valset", name)
        if not (r.rc == 2 and not written(d)):
            bad.append(f"{name}: {r.brief()}")
    return not bad, f"{3 - len(bad)}/3 exit 2" + (f"; first miss {bad[0]}" if bad else "")


@case("I33", "-", "oaieval: a match event twice; cut at byte 2,000; data.correct \"yes\": exit 2")
def i33(ctx, d):
    lines = gen.oaieval_lines()
    match = [i for i, l in enumerate(lines) if '"type": "match"' in l]
    (d / "dup.jsonl").write_text("\n".join(lines + [lines[match[0]]]) + "\n")
    (d / "cut.jsonl").write_bytes(gen.OAIEVAL.read_bytes()[:2000])
    ev = json.loads(lines[match[0]])
    ev["data"]["correct"] = "yes"
    yes = list(lines)
    yes[match[0]] = json.dumps(ev)
    (d / "yes.jsonl").write_text("\n".join(yes) + "\n")
    return all_exit2(ctx, d, [(n, "openai-evals", n, ["--event", "match"]) for n in ("dup.jsonl", "cut.jsonl", "yes.jsonl")])


@case("I34", "-", "oaieval ids with U+202E ESC[2J: CSV keeps ids as data; a duplicate's error escaped")
def i34(ctx, d):
    text = gen.OAIEVAL.read_text()
    ids = sorted(set(json.loads(l).get("sample_id") for l in text.splitlines() if '"sample_id"' in l) - {None})
    hostile = text
    for sid in ids:
        hostile = hostile.replace(f'"sample_id": "{sid}"', f'"sample_id": "{sid}\\u202e\\u001b[2J"')
    (d / "h.jsonl").write_text(hostile)
    r1 = imp(ctx, d, "openai-evals", "h.jsonl", "out.csv", "--event", "match")
    lines = hostile.splitlines()
    match = [l for l in lines if '"type": "match"' in l]
    (d / "h2.jsonl").write_text("\n".join(lines + [match[0]]) + "\n")
    r2 = imp(ctx, d, "openai-evals", "h2.jsonl", "o2.csv", "--event", "match")
    raw_in_csv = (d / "out.csv").exists() and "\u202e" in (d / "out.csv").read_text()
    held = r1.rc == 0 and raw_in_csv and r2.rc == 2 and has_raw_controls(r2.err) == 0
    return held, f"import {r1.brief()}, ids kept raw: {raw_in_csv}; duplicate {r2.brief()}, raw controls in stderr {has_raw_controls(r2.err)}"


@case("I35", "-", "promptfoo: score -0.5; component 1e308 via --drop-assert; cut at 3,000 bytes; a result twice: exit 2")
def i35(ctx, d):
    doc = json.loads(gen.PROMPTFOO.read_text())
    results = doc["results"]["results"]
    arm = "openai:gpt-5"
    mine = [r for r in results if r.get("provider", {}).get("id") == arm]
    if not mine:
        raise Skip("the promptfoo sample has no openai:gpt-5 results")

    def variant(name, edit):
        dd = json.loads(json.dumps(doc))
        edit(dd["results"]["results"])
        (d / name).write_text(json.dumps(dd))

    def neg(rs):
        r = next(x for x in rs if x.get("provider", {}).get("id") == arm)
        r["score"] = -0.5
        if "gradingResult" in r and isinstance(r["gradingResult"], dict):
            r["gradingResult"]["score"] = -0.5

    def comp(rs):
        r = next(x for x in rs if x.get("provider", {}).get("id") == arm)
        g = r.get("gradingResult") or {}
        comps = g.get("componentResults") or []
        comps.append({"pass": True, "score": 1e308, "reason": "x", "assertion": {"type": "equals", "value": "x"}})
        comps.append({"pass": True, "score": 0, "reason": "y", "assertion": {"type": "latency"}})
        g["componentResults"] = comps
        r["gradingResult"] = g

    def twice(rs):
        rs.append(json.loads(json.dumps(next(x for x in rs if x.get("provider", {}).get("id") == arm))))

    variant("neg.json", neg)
    variant("comp.json", comp)
    variant("twice.json", twice)
    (d / "cut.json").write_bytes(gen.PROMPTFOO.read_bytes()[:3000])
    return all_exit2(ctx, d, [("neg", "promptfoo", "neg.json", ["--arm", arm]),
                              ("1e308", "promptfoo", "comp.json", ["--arm", arm, "--drop-assert", "latency"]),
                              ("cut", "promptfoo", "cut.json", ["--arm", arm]),
                              ("twice", "promptfoo", "twice.json", ["--arm", arm])])


@case("I36", "-", "helm: an instance twice; exact_match mean null; instance_id 123: exit 2")
def i36(ctx, d):
    stats = json.loads((gen.HELM / "per_instance_stats.json").read_text())

    def variant(name, edit):
        folder = d / name
        shutil.copytree(gen.HELM, folder)
        s = json.loads(json.dumps(stats))
        edit(s)
        (folder / "per_instance_stats.json").write_text(json.dumps(s))

    def twice(s):
        s.append(json.loads(json.dumps(next(i for i in s if any(st["name"].get("split") == "test" for st in i["stats"])))))

    def null_mean(s):
        for inst in s:
            hits = [st for st in inst["stats"] if st["name"]["name"] == "exact_match"
                    and st["name"].get("split") == "test" and not st["name"].get("perturbation")]
            for st in hits:  # mean null and no sum to fall back on
                st["mean"] = None
                st["sum"] = None
            if hits:
                return

    def numeric(s):
        for inst in s:
            if any(st["name"].get("split") == "test" for st in inst["stats"]):
                inst["instance_id"] = 123
                return

    variant("twice", twice)
    variant("null", null_mean)
    variant("num", numeric)
    return all_exit2(ctx, d, [(n, "helm", n, ["--metric", "exact_match", "--split", "test"]) for n in ("twice", "null", "num")])


@case("I37", "-", ".eval with 200,000 sample members: exit 0 within 60 s, peak RSS < 1 GB")
def i37(ctx, d):
    import zipfile

    header = json.dumps(gen.inspect_header())
    with zipfile.ZipFile(d / "many.eval", "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("header.json", header)
        for i in range(200_000):
            z.writestr(f"samples/{i}_epoch_1.json", '{"id": %d, "epoch": 1, "scores": {"match": {"value": "C"}}}' % i)
    r = imp(ctx, d, "inspect", "many.eval", timeout=60, measure=True)
    return r.rc == 0 and 0 < r.maxrss_kb < 1_000_000, r.brief()


@case("I38", "-", ".eval cut at 3,000 bytes; a flipped byte in a deflated member; an encrypted flag: exit 2 naming file and member")
def i38(ctx, d):
    members = [("header.json", gen.inspect_header()), ("samples/1_epoch_1.json", gen.inspect_sample(1, input_=random.Random(38).randbytes(6000).hex()))]
    gen.eval_zip(d / "ok.eval", members)
    data = (d / "ok.eval").read_bytes()
    (d / "cut.eval").write_bytes(data[:3000])
    import zipfile

    with zipfile.ZipFile(d / "ok.eval") as z:
        info = z.getinfo("samples/1_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    flipped = bytearray(data)
    flipped[start + 5] ^= 0xFF
    flipped[start + 6] ^= 0x55
    (d / "flip.eval").write_bytes(bytes(flipped))
    enc = bytearray(data)
    # The general-purpose flag's bit 0 (encrypted), in the local and the central header.
    enc[info.header_offset + 6] |= 1
    cd = data.rfind(b"PK\x01\x02" + data[data.find(b"PK\x01\x02", 0) + 4:data.find(b"PK\x01\x02", 0) + 4][:0])
    for pos in range(len(data) - 4):
        if data[pos:pos + 4] == b"PK\x01\x02":
            name_len = int.from_bytes(data[pos + 28:pos + 30], "little")
            if data[pos + 46:pos + 46 + name_len] == b"samples/1_epoch_1.json":
                enc[pos + 8] |= 1
    (d / "enc.eval").write_bytes(bytes(enc))
    del cd
    bad = []
    for name in ("cut.eval", "flip.eval", "enc.eval"):
        r = imp(ctx, d, "inspect", name)
        if not (r.rc == 2 and name in r.errtext and not written(d)):
            bad.append(f"{name}: {r.brief()}")
    return not bad, f"{3 - len(bad)}/3 exit 2 naming the file" + (f"; first miss {bad[0]}" if bad else "")


@case("I39", "-", "--scale: 7 invalid refused (exit 2); 0:1e308 and ' 0 : 1 ' accepted")
def i39(ctx, d):
    lm_copy(d, "S.jsonl")
    invalid = ["0:1e-320", "-inf:inf", "1:1", "nan:1", "1e308:-1e308", "0:100:5", "0x0:1"]
    valid = ["0:1e308", " 0 : 1 "]
    bad = []
    for s in invalid + valid:
        r = imp(ctx, d, "lm-eval", "S.jsonl", "out.csv", "--task", "x", "--filter", "strict-match", f"--scale={s}")
        want = 2 if s in invalid else 0
        if r.rc != want:
            bad.append(f"{s!r}: {r.brief()}")
        for f in ("out.csv", "out.import.json"):
            (d / f).unlink(missing_ok=True)
    return not bad, f"{9 - len(bad)}/9 as expected" + (f"; misses {bad}" if bad else "")


# ---------------------------------------------------------------- kills and full disks

def tmp_debris(folder: Path) -> list:
    return sorted(p.name for p in folder.iterdir() if "evogate-tmp" in p.name or "evogate-new" in p.name)


@case("K01", "2", "SIGKILL at the 2nd rename (strace): out.csv and out.import.json both A's or both B's (admit refuses a mix)", kind="FAIL")
def k01(ctx, d):
    if not shutil.which("strace"):
        raise Skip("strace is not installed")
    gen.lm_log(d / "samples_big_2025-01-01.jsonl", 2000, seed=1, doc_salt="A")
    gen.lm_log(d / "samples_big_2025-01-02.jsonl", 2000, seed=2, doc_salt="B")
    for src, out in (("samples_big_2025-01-01.jsonl", "A.csv"), ("samples_big_2025-01-01.jsonl", "out.csv")):
        r = imp(ctx, d, "lm-eval", src, out, "--task", "big")
        if r.rc != 0:
            raise RuntimeError(r.brief())
    a_csv, a_rec = sha(d / "out.csv"), sha(d / "out.import.json")
    r = run(["strace", "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
             "-e", "inject=rename,renameat,renameat2:signal=KILL:when=2",
             ctx.bin, "import", "lm-eval", "--task", "big", "--from", "samples_big_2025-01-02.jsonl", "--out", "out.csv"], cwd=d)
    if "ptrace" in r.errtext or "Operation not permitted" in r.errtext:
        raise Skip("ptrace not permitted: " + r.errtext.strip()[:80])
    csv_is_a = sha(d / "out.csv") == a_csv
    rec_is_a = sha(d / "out.import.json") == a_rec
    a = run([ctx.bin, "admit", "--baseline", "A.csv", "--candidate", "out.csv"], cwd=d)
    mixed = csv_is_a != rec_is_a
    held = (not mixed) or a.rc == 2
    state = f"out.csv {'A' if csv_is_a else 'B'}, record {'A' if rec_is_a else 'B'}"
    return held, f"strace {r.brief()}; {state}; admit A vs out: {a.brief()}; debris {tmp_debris(d)}"


@case("K02", "-", "40 imports of a 147 MB log SIGKILLed at 0.1-0.9 s: old pair or new pair, never a mix", heavy=True)
def k02(ctx, d):
    gen.lm_log(d / "samples_big_2025-01-01.jsonl", 400_000, seed=1, doc_salt="A")
    gen.lm_log(d / "samples_big_2025-01-02.jsonl", 400_000, seed=2, doc_salt="B")
    pairs = {}
    for src in ("samples_big_2025-01-01.jsonl", "samples_big_2025-01-02.jsonl"):
        r = imp(ctx, d, "lm-eval", src, "out.csv", "--task", "big", timeout=300)
        if r.rc != 0:
            raise RuntimeError(r.brief())
        pairs[src] = (sha(d / "out.csv"), sha(d / "out.import.json"))
    rng = random.Random(40)
    consistent = old = new = 0
    for i in range(40):
        src = "samples_big_2025-01-01.jsonl" if i % 2 else "samples_big_2025-01-02.jsonl"
        p = subprocess.Popen([ctx.bin, "import", "lm-eval", "--task", "big", "--from", src, "--out", "out.csv"],
                             cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.1, 0.9))
        p.send_signal(signal.SIGKILL)
        p.wait()
        now = (sha(d / "out.csv"), sha(d / "out.import.json"))
        if now in pairs.values():
            consistent += 1
            if now == pairs[src]:
                new += 1
            else:
                old += 1
    debris = tmp_debris(d)
    return consistent == 40, f"{consistent}/40 consistent pairs ({old} old, {new} new); debris {len(debris)} temp files"


def big_scores(d, rows=30_000):
    lines = ["task_id,score"] + [f"task-{i:08d}-{'x' * 200},{(i % 7) / 7:.6f}" for i in range(rows)]
    (d / "src.csv").write_text("\n".join(lines) + "\n")


def fsize_import(ctx, d, ignore):
    # A 7.5 MB import output over an existing pair, under a 2 MiB file-size limit.
    gen.lm_log(d / "samples_big_2025-01-01.jsonl", 10, seed=1)
    r0 = imp(ctx, d, "lm-eval", "samples_big_2025-01-01.jsonl", "out.csv", "--task", "big")
    if r0.rc != 0:
        raise RuntimeError(r0.brief())
    old = (sha(d / "out.csv"), sha(d / "out.import.json"))
    with open(d / "samples_big_2025-01-02.jsonl", "w") as f:
        for i in range(60_000):
            f.write(gen.lm_line(f"doc-{i:06d}-" + "y" * 100, float(i % 2)) + "\n")
    r = imp(ctx, d, "lm-eval", "samples_big_2025-01-02.jsonl", "out.csv", "--task", "big", fsize=2 << 20, ignore_xfsz=ignore)
    intact = (sha(d / "out.csv"), sha(d / "out.import.json")) == old
    return r, intact


@case("K03", "15", "RLIMIT_FSIZE 2 MiB, default SIGXFSZ: exit 2 named error, old pair intact, no debris", kind="note")
def k03(ctx, d):
    r, intact = fsize_import(ctx, d, ignore=False)
    debris = tmp_debris(d)
    return r.rc == 2 and intact and not debris, r.brief() + f"; old pair {'intact' if intact else 'CHANGED'}; debris {debris}"


@case("K04", "-", "as K03 with SIGXFSZ ignored: exit 2 named error, old pair intact, no temp; empty folder stays empty")
def k04(ctx, d):
    r, intact = fsize_import(ctx, d, ignore=True)
    debris = tmp_debris(d)
    e = d / "empty"
    e.mkdir()
    shutil.copy(d / "samples_big_2025-01-02.jsonl", d / "in.jsonl")
    r2 = run([ctx.bin, "import", "lm-eval", "--task", "big", "--from", "../in.jsonl", "--out", "out.csv"], cwd=e,
             fsize=2 << 20, ignore_xfsz=True)
    empty = not any(e.iterdir())
    held = r.rc == 2 and intact and not debris and r2.rc == 2 and empty
    return held, r.brief() + f"; old pair {'intact' if intact else 'CHANGED'}; debris {debris}; empty folder: {r2.brief()}, {'still empty' if empty else 'NOT empty'}"


def report_pairs(d, n):
    rng = random.Random(5)
    cols = "task_id,group,kind,correct,score,feedback\n"
    b = [cols]
    c = [cols]
    for i in range(n):
        xb, xc = int(rng.random() < 0.5), int(rng.random() < 0.52)
        b.append(f"t{i},g{i // 4},k{i % 3},{xb},{xb},fb{i}\n")
        c.append(f"t{i},g{i // 4},k{i % 3},{xc},{xc},fb{i}\n")
    (d / "b.csv").write_text("".join(b))
    (d / "c.csv").write_text("".join(c))


def folder_state(folder: Path) -> dict:
    return {p.name: sha(p) for p in sorted(folder.iterdir())} if folder.exists() else {}


@case("K05", "16", "RLIMIT_FSIZE 4 MiB, SIGXFSZ ignored, 400,000 pairs over a report folder: exit 2, old folder intact, no debris")
def k05(ctx, d):
    report_pairs(d, 400_000)
    # The old folder: the report of the first 2,000 pairs, so the limit bites on the new one only.
    small = d / "small"
    small.mkdir()
    for arm in ("b.csv", "c.csv"):
        with open(d / arm) as f, open(small / arm, "w") as o:
            o.writelines(l for _, l in zip(range(2001), f))
    r1 = run([ctx.bin, "admit", "--baseline", "small/b.csv", "--candidate", "small/c.csv", "--report-dir", "rep",
              "--strata", "none"], cwd=d)
    if not (d / "rep").is_dir():
        raise RuntimeError(f"no first report: {r1.brief()}")
    old = folder_state(d / "rep")
    r = run([ctx.bin, "admit", "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep", "--strata", "none"],
            cwd=d, fsize=4 << 20, ignore_xfsz=True, timeout=120)
    intact = folder_state(d / "rep") == old
    debris = tmp_debris(d)
    names_temp = "evogate-new" in r.errtext
    return r.rc == 2 and intact and not debris, r.brief() + f"; old folder {'intact' if intact else 'CHANGED'}; debris {debris}; error names the temp path: {names_temp}"


@case("K06", "-", "as K05 with default SIGXFSZ into a new folder, then a rerun: the rerun removes the debris")
def k06(ctx, d):
    report_pairs(d, 400_000)
    r = run([ctx.bin, "admit", "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep2", "--strata", "none"],
            cwd=d, fsize=4 << 20, timeout=120)
    debris1 = tmp_debris(d)
    r2 = run([ctx.bin, "admit", "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep2", "--strata", "none"],
             cwd=d, timeout=120)
    debris2 = tmp_debris(d)
    whole = (d / "rep2" / "pairs.csv").exists() and (d / "rep2" / "admission.json").exists()
    return r2.rc in (0, 1) and not debris2 and whole, f"limited run {r.brief()}, debris {debris1}; rerun {r2.brief()}, debris {debris2}, folder whole: {whole}"


@case("D01", "-", "5 imports of two 505 MB lm-eval logs: identical bytes; swapped --from: identical CSV", heavy=True)
def d01(ctx, d):
    gen.lm_log(d / "samples_gsm_2025-01-01.jsonl", 300_000, seed=1, doc_salt="g", pad=1300)
    gen.lm_log(d / "samples_arc_2025-01-01.jsonl", 300_000, seed=2, doc_salt="a", pad=1300)
    argv = [ctx.bin, "import", "lm-eval", "--filter", "strict-match", "--out", "out.csv",
            "--from", "samples_gsm_2025-01-01.jsonl", "--from", "samples_arc_2025-01-01.jsonl"]
    seen = set()
    for _ in range(5):
        r = run(argv, cwd=d, timeout=300)
        if r.rc != 0:
            return False, r.brief()
        seen.add((sha(d / "out.csv"), sha(d / "out.import.json")))
    csv1 = sha(d / "out.csv")
    sw = argv[:7] + ["--from", "samples_arc_2025-01-01.jsonl", "--from", "samples_gsm_2025-01-01.jsonl"]
    r = run(sw, cwd=d, timeout=300)
    same = r.rc == 0 and sha(d / "out.csv") == csv1
    size = (d / "samples_gsm_2025-01-01.jsonl").stat().st_size / 1e6
    return len(seen) == 1 and same, (f"two {size:.0f} MB logs; {len(seen)} distinct outputs over 5 runs; swapped --from: "
                                     f"{r.brief()}, CSV {'identical' if same else 'DIFFERS'}")
