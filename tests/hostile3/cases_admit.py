"""Cases R01-R12 (admit's reports), S01-S11 (admit --summary), Q01-Q02 (sql/summary.sql
in DuckDB) and L01-L10 (the ledger)."""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import gen
from common import DEMO, REPO, Skip, case, has_raw_controls, run, sha

FORMULA = tuple("=+-@\uff1d\uff0b\uff0d\uff20")
PAYLOADS = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)"]
NASTY = "=cmd|' /C calc'!A0 \x1b[2J \x1b]52;c;aGk=\x07 \u202eevil <img src=x onerror=alert(1)> [x](http://e) @everyone #1 <script>"


def admit(ctx, d, *args, **kw):
    return run([ctx.bin, "admit", *[str(a) for a in args]], cwd=d, **kw)


def demo_args(d=None):
    return ["--tasks", DEMO / "split" / "holdout.csv", "--manifest", DEMO / "split" / "manifest.json"]


def unguarded(path: Path, columns=None) -> dict:
    """Per column, the text cells a spreadsheet would run: after leading whitespace, an
    opener = + - @ (or their full-width forms). Numbers are not text cells."""
    rows = gen.read_csv(path)
    head, body = rows[0], rows[1:]
    out = {}
    for j, name in enumerate(head):
        if columns and name not in columns:
            continue
        n = 0
        for r in body:
            cell = r[j] if j < len(r) else ""
            try:
                float(cell)
                continue
            except ValueError:
                pass
            if cell.lstrip(" \t\r\n").startswith(FORMULA):
                n += 1
        if n:
            out[name] = n
    return out


def hostile_arms(d: Path, n=60, seed=11):
    """R01/R02/Q01: ids, groups and kinds opening with formulas; groups \\t=1+1, \\r=1+1,
    ' =1+1' and =1+1 (one cluster once trimmed by Unicode whitespace)."""
    rng = random.Random(seed)
    groups = ["\t=1+1", "\r=1+1", " =1+1", "=1+1"] + [f"{PAYLOADS[k % 4]}g{k}" for k in range(16)]
    b, c = [], []
    for i in range(n):
        tid = f"{PAYLOADS[i % 4]}t{i}" if i % 2 == 0 else f"t{i}"
        g = groups[i // 3]
        kind = PAYLOADS[i % 4]
        xb = int(rng.random() < 0.35)
        xc = int(rng.random() < 0.85)
        b.append([tid, g, kind, xb, xb, f"fb{i}"])
        c.append([tid, g, kind, xc, xc, f"fb{i}"])
    cols = ["task_id", "group", "kind", "correct", "score", "feedback"]
    return gen.scores_csv(d / "b.csv", b, cols), gen.scores_csv(d / "c.csv", c, cols)


def arms(d, rows_b, rows_c, cols=("task_id", "group", "kind", "correct", "score", "feedback")):
    return gen.scores_csv(d / "b.csv", rows_b, list(cols)), gen.scores_csv(d / "c.csv", rows_c, list(cols))


def text_arms(d, ids=None, groups=None, kinds=None, feedback=None, n=40, seed=3):
    rng = random.Random(seed)
    b, c = [], []
    for i in range(n):
        xb, xc = int(rng.random() < 0.4), int(rng.random() < 0.8)
        row = lambda x: [ids(i) if ids else f"t{i}", groups(i) if groups else f"g{i // 4}",
                         kinds(i) if kinds else f"k{i % 2}", x, x, feedback(i) if feedback else f"fb{i}"]
        b.append(row(xb))
        c.append(row(xc))
    return arms(d, b, c)


# ---------------------------------------------------------------- reports

@case("R01", "8", "pairs.csv: every identifier cell a spreadsheet would run is prefixed with '", kind="FAIL")
def r01(ctx, d):
    hostile_arms(d)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    if not (d / "rep" / "pairs.csv").exists():
        return False, r.brief()
    bad = unguarded(d / "rep" / "pairs.csv")
    return not bad, r.brief() + f"; unguarded formula cells per column: {bad}"


@case("R02", "8", "groups \\t=1+1, \\r=1+1, ' =1+1': neutralised in pairs.csv", kind="FAIL")
def r02(ctx, d):
    groups = ["\t=1+1", "\r=1+1", " =1+1"]
    text_arms(d, groups=lambda i: groups[i % 3] + f" g{i // 3}")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    if not (d / "rep" / "pairs.csv").exists():
        return False, r.brief()
    bad = unguarded(d / "rep" / "pairs.csv")
    return not bad, r.brief() + f"; unguarded formula cells per column: {bad}"


@case("R03", "-", "feedback =cmd|, =HYPERLINK, +1+1, full-width =1+1, ' =1+1': prefixed with '")
def r03(ctx, d):
    fbs = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://e","x")', "+1+1", "\uff1d1+1", " =1+1", "|calc"]
    text_arms(d, feedback=lambda i: fbs[i % len(fbs)])
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    if not (d / "rep" / "pairs.csv").exists():
        return False, r.brief()
    head = gen.read_csv(d / "rep" / "pairs.csv")[0]
    fb_cols = [h for h in head if "feedback" in h]
    bad = unguarded(d / "rep" / "pairs.csv", fb_cols)
    return bool(fb_cols) and not bad, r.brief() + f"; feedback columns {fb_cols}, unguarded {bad}"


CONTROLS = ["\x1b[2J", "\x1b]52;c;aGk=\x07", "\u009b", "\u202e"]


@case("R04", "8", "ids/feedback with ESC[2J, OSC 52, C1 CSI, U+202E: no raw control in any report file", kind="FAIL")
def r04(ctx, d):
    text_arms(d, ids=lambda i: f"t{i}{CONTROLS[i % 4]}", feedback=lambda i: f"fb{CONTROLS[(i + 1) % 4]}x")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    if not (d / "rep").is_dir():
        return False, r.brief()
    counts = {p.name: has_raw_controls(p.read_bytes()) for p in sorted((d / "rep").iterdir())}
    bad = {k: v for k, v in counts.items() if v}
    return not bad, r.brief() + f"; raw controls per file: {bad or 'none'}"


MD_NASTY = ["<img src=x onerror=alert(1)>", "[x](http://e)", "@x @everyone #12 https://e.test www.e.test", "`tick`", "$x$", "a\nb"]


def md_inert(md: str) -> list:
    problems = []
    if re.search(r"(?<!\\)<img", md):
        problems.append("raw <img")
    if "[x](http" in md:
        problems.append("live link")
    if "@everyone" in md:
        problems.append("live @everyone")
    if has_raw_controls(md.encode()):
        problems.append("raw controls")
    return problems


@case("R05", "-", "admission.md with <img onerror>, links, @everyone, backticks, $x$, newlines in strata/ids/feedback: inert")
def r05(ctx, d):
    text_arms(d, ids=lambda i: f"t{i} {MD_NASTY[i % 6]}", kinds=lambda i: MD_NASTY[i % 2],
              feedback=lambda i: MD_NASTY[(i + 3) % 6] + " \u202e")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    md = (d / "rep" / "admission.md").read_text() if (d / "rep" / "admission.md").exists() else ""
    p = md_inert(md)
    return bool(md) and not p, r.brief() + f"; problems {p or 'none'}"


@case("R06", "-", "GITHUB_STEP_SUMMARY with R05's inputs: the Markdown report appended, inert")
def r06(ctx, d):
    text_arms(d, ids=lambda i: f"t{i} {MD_NASTY[i % 6]}", kinds=lambda i: MD_NASTY[i % 2],
              feedback=lambda i: MD_NASTY[(i + 3) % 6] + " \u202e")
    (d / "s.md").write_text("")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", env={"GITHUB_STEP_SUMMARY": d / "s.md"})
    md = (d / "s.md").read_text()
    p = md_inert(md)
    return bool(md) and not p, r.brief() + f"; {len(md)} bytes appended; problems {p or 'none'}"


def svg_problems(folder: Path) -> list:
    problems = []
    for svg in sorted(folder.glob("*.svg")):
        try:
            root = ET.parse(svg).getroot()
        except ET.ParseError as e:
            problems.append(f"{svg.name}: not XML ({e})")
            continue
        for el in root.iter():
            tag = el.tag.split("}")[-1]
            if tag in ("script", "foreignObject", "img", "iframe", "x", "a"):
                problems.append(f"{svg.name}: <{tag}>")
            for attr in el.attrib:
                if attr.split("}")[-1].lower().startswith("on"):
                    problems.append(f"{svg.name}: attribute {attr}")
    return problems


@case("R07", "-", "three SVGs with strata <img>, </text><script>, ]]><x/>, ESC[2J: well-formed XML, no script")
def r07(ctx, d):
    kinds = ["<img src=x onerror=alert(1)>", "</text><script>alert(1)</script>", "]]><x/>", "\x1b[2J"]
    text_arms(d, kinds=lambda i: kinds[i % 4], n=80)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    svgs = sorted(p.name for p in (d / "rep").glob("*.svg")) if (d / "rep").is_dir() else []
    p = svg_problems(d / "rep") if svgs else ["no SVG"]
    return len(svgs) == 3 and not p, r.brief() + f"; svgs {svgs}; problems {p or 'none'}"


@case("R08", "9", "stratum '\\u202eevil' in strata.svg: bidi control removed or escaped", kind="FAIL")
def r08(ctx, d):
    text_arms(d, kinds=lambda i: "\u202eevil" if i % 2 else "plain")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep")
    svg = d / "rep" / "strata.svg"
    if not svg.exists():
        return False, r.brief()
    n = has_raw_controls(svg.read_bytes())
    return n == 0, r.brief() + f"; raw bidi/control characters in strata.svg: {n}"


@case("R09", "-", "text/json/markdown stdout and an error on ids with ESC, OSC 52, BEL, U+202E, U+009B: no raw controls")
def r09(ctx, d):
    bad_id = "t0\x1b[2J\x1b]52;c;aGk=\x07\u202eextra\u009b"
    text_arms(d, ids=lambda i: bad_id + str(i))
    counts = {}
    for fmt in ("text", "json", "markdown"):
        r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--format", fmt)
        counts[fmt] = has_raw_controls(r.out + r.err)
    rows = gen.read_csv(d / "b.csv")
    rows.append(rows[1])
    gen.scores_csv(d / "dup.csv", rows[1:], rows[0])
    r = admit(ctx, d, "--baseline", "dup.csv", "--candidate", "c.csv")
    counts["error"] = has_raw_controls(r.out + r.err)
    return r.rc == 2 and not any(counts.values()), f"raw controls {counts}; error {r.brief()}"


def demo_copy(d):
    shutil.copy(DEMO / "baseline-scores.csv", d / "b.csv")
    shutil.copy(DEMO / "candidate-scores.csv", d / "c.csv")


@case("R10", "12", "GITHUB_STEP_SUMMARY naming --baseline, then --ledger: exit 2, the file unchanged", kind="FAIL")
def r10(ctx, d):
    got, held = [], True
    for target in ("b.csv", "l.jsonl"):
        demo_copy(d)
        (d / "l.jsonl").unlink(missing_ok=True)
        r0 = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", *demo_args(), "--ledger", "l.jsonl")
        before = sha(d / target)
        r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", *demo_args(), "--ledger", "l.jsonl",
                  env={"GITHUB_STEP_SUMMARY": d / target})
        kept = sha(d / target) == before
        held &= r0.rc in (0, 1) and r.rc == 2 and kept
        got.append(f"{target}: {r.brief()}, {'unchanged' if kept else 'APPENDED TO'}")
    return held, "; ".join(got)


@case("R11", "-", "GITHUB_STEP_SUMMARY=/dev/full with --report-dir: exit 2")
def r11(ctx, d):
    demo_copy(d)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep",
              env={"GITHUB_STEP_SUMMARY": "/dev/full"})
    return r.rc == 2 and "GITHUB_STEP_SUMMARY" in r.errtext, r.brief()


@case("R12", "14", "a planted c.import.json that changes the verdict: listed in admission.json inputs with its SHA-256", kind="FAIL")
def r12(ctx, d):
    shutil.copy(gen.LM_EVAL, d / "samples_gsm8k_2025-01-01.jsonl")
    r0 = run([ctx.bin, "import", "lm-eval", "--filter", "strict-match", "--from", "samples_gsm8k_2025-01-01.jsonl",
              "--out", "b.csv"], cwd=d)
    if r0.rc != 0:
        raise RuntimeError(r0.brief())
    shutil.copy(d / "b.csv", d / "c.csv")
    rec = json.loads((d / "b.import.json").read_text())
    rec["dropped"]["missing"]["count"] = 5
    (d / "c.import.json").write_text(json.dumps(rec, indent=2))
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--format", "json")
    try:
        report = json.loads(r.out)
    except ValueError:
        return False, r.brief()
    inputs = report.get("inputs", [])
    listed = [i for i in inputs if str(i.get("path", "")).endswith("c.import.json") and i.get("sha256") == sha(d / "c.import.json")]
    return bool(listed), f"{r.brief()}; verdict {report.get('verdict')}; inputs roles {[i.get('role') for i in inputs]}"


# ---------------------------------------------------------------- admit --summary

def need_duckdb(ctx):
    python = ctx.python or sys.executable
    p = subprocess.run([python, "-c", "import duckdb"], capture_output=True)
    if p.returncode != 0:
        raise Skip(f"{python} has no duckdb (give --python with duckdb installed)")
    return python


def summarise(ctx, d, base, cand, out="m.json"):
    python = need_duckdb(ctx)
    code = ("import duckdb, sys\n"
            "t = open(sys.argv[1], encoding='utf-8').read()\n"
            "t = t.replace('{baseline}', sys.argv[2]).replace('{candidate}', sys.argv[3]).replace('{out}', sys.argv[4])\n"
            "duckdb.connect().execute(t)\n")
    r = run([python, "-c", code, REPO / "sql" / "summary.sql", base, cand, out], cwd=d, timeout=300)
    if r.rc != 0:
        raise RuntimeError("DuckDB: " + r.errtext[-300:])
    return json.loads((d / out).read_text())


def demo_summary(ctx, d):
    return summarise(ctx, d, str(DEMO / "baseline-scores.csv"), str(DEMO / "candidate-scores.csv"))


def decide(ctx, d, doc, *extra, name="s.json", **kw):
    text = doc if isinstance(doc, str) else json.dumps(doc)
    (d / name).write_text(text)
    return admit(ctx, d, "--summary", name, *extra, **kw)


@case("S01", "3", "outcomes both_right 2^64-1, candidate_only 137, n 136: exit 2, outcomes do not add up", kind="FAIL")
def s01(ctx, d):
    doc = demo_summary(ctx, d)
    doc["strata"] = doc["clusters"] = None
    doc["overall"]["outcomes"] = {"both_right": 2**64 - 1, "baseline_only": 0, "candidate_only": 137, "both_wrong": 0}
    r = decide(ctx, d, doc)
    return r.rc == 2, r.brief()


@case("S02", "3", "two extra strata of n 2^63 (all ties): exit 2, strata do not add up to overall", kind="FAIL")
def s02(ctx, d):
    doc = demo_summary(ctx, d)
    for w in ("w1", "w2"):
        doc["strata"]["values"].append({"value": w, "n": 2**63, "baseline_sum_micros": 0, "candidate_sum_micros": 0,
                                        "outcomes": {"both_right": 0, "baseline_only": 0, "candidate_only": 0, "both_wrong": 2**63},
                                        "differences": [[0, 2**63]]})
    r = decide(ctx, d, doc)
    return r.rc == 2, r.brief()


@case("S03", "N", "outcomes (0,0,136,0) against 136 zero differences: refused as inconsistent (or documented)", kind="note")
def s03(ctx, d):
    doc = demo_summary(ctx, d)
    doc["strata"] = doc["clusters"] = None
    o = doc["overall"]
    o["candidate_sum_micros"] = o["baseline_sum_micros"]
    o["outcomes"] = {"both_right": 0, "baseline_only": 0, "candidate_only": 136, "both_wrong": 0}
    o["differences"] = [[0, 136]]
    r = decide(ctx, d, doc)
    return r.rc == 2, r.brief()


@case("S04", "-", "negative counts, a count 136.0, n 1e400, n 2^64: exit 2 each")
def s04(ctx, d):
    base = demo_summary(ctx, d)
    text = json.dumps(base)
    variants = []
    v = json.loads(text); v["overall"]["outcomes"]["both_wrong"] = -1; variants.append(("both_wrong -1", json.dumps(v)))
    v = json.loads(text); v["pairing"]["baseline_only"] = -3; variants.append(("baseline_only -3", json.dumps(v)))
    v = json.loads(text); v["overall"]["n"] = 12345678.5; variants.append(("n 136.0", json.dumps(v).replace("12345678.5", "136.0")))
    v = json.loads(text); v["overall"]["n"] = 12345678.5; variants.append(("n 1e400", json.dumps(v).replace("12345678.5", "1e400")))
    v = json.loads(text); v["overall"]["n"] = 2**64; variants.append(("n 2^64", json.dumps(v)))
    bad = []
    for label, t in variants:
        r = decide(ctx, d, t)
        if r.rc != 2:
            bad.append(f"{label}: {r.brief()}")
    return not bad, f"{5 - len(bad)}/5 exit 2" + (f"; misses {bad}" if bad else "")


@case("S05", "-", "a histogram counting 137 pairs for n 136: exit 2")
def s05(ctx, d):
    doc = demo_summary(ctx, d)
    diffs = doc["overall"]["differences"]
    zero = next(x for x in diffs if x[0] == 0)
    zero[1] += 1
    r = decide(ctx, d, doc)
    return r.rc == 2, r.brief()


@case("S06", "-", "n 2^63 with 10 discordant pairs: a decision (exit 0/1) within 10 s")
def s06(ctx, d):
    doc = demo_summary(ctx, d)
    doc["strata"] = doc["clusters"] = None
    doc["pairing"]["baseline_rows"] = doc["pairing"]["candidate_rows"] = 2**63
    doc["overall"] = {"n": 2**63, "baseline_sum_micros": 0, "candidate_sum_micros": 10_000_000,
                      "outcomes": {"both_right": 0, "baseline_only": 0, "candidate_only": 10, "both_wrong": 2**63 - 10},
                      "differences": [[0, 2**63 - 10], [1_000_000, 10]]}
    r = decide(ctx, d, doc, timeout=10)
    return r.rc in (0, 1), r.brief()


@case("S07", "-", "schema missing, v2, an unknown field, schema twice, 100,000-deep nesting: exit 2 each")
def s07(ctx, d):
    base = demo_summary(ctx, d)
    text = json.dumps(base)
    v1 = dict(base); del v1["schema"]
    v2 = dict(base, schema="evogate/summary/v2")
    v3 = dict(base, extra=1)
    twice = text.replace('{"schema": "evogate/summary/v1"', '{"schema": "evogate/summary/v1", "schema": "evogate/summary/v1"', 1)
    deep = text.replace('"clusters": ', '"clusters": ' + "[" * 100_000 + "]" * 100_000 + ', "x": ', 1)
    bad = []
    for label, t in (("no schema", json.dumps(v1)), ("v2", json.dumps(v2)), ("unknown field", json.dumps(v3)),
                     ("schema twice", twice), ("deep", deep)):
        r = decide(ctx, d, t)
        if r.rc != 2:
            bad.append(f"{label}: {r.brief()}")
    return not bad, f"{5 - len(bad)}/5 exit 2" + (f"; misses {bad}" if bad else "")


def regressing_arms(d):
    """S08/S11: 160 pairs, kinds a-c (40 each) where the candidate wins 20-0, kind d (40)
    where it loses 12-0; admit on the files refuses (no-stratum-regressed)."""
    b, c = [], []
    for k, kind in enumerate("abcd"):
        for i in range(40):
            tid = f"{kind}{i}"
            if kind != "d":
                xb, xc = (0, 1) if i < 20 else (1, 1)
            else:
                xb, xc = (1, 0) if i < 12 else (1, 1)
            b.append([tid, f"g{k}{i // 4}", kind, xb, xb, ""])
            c.append([tid, f"g{k}{i // 4}", kind, xc, xc, ""])
    arms(d, b, c)


@case("S08", "4", "strata/clusters/holdout_sha256 keys deleted (kind d regressed 12-0): exit 2, missing field", kind="FAIL")
def s08(ctx, d):
    regressing_arms(d)
    files = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv")
    doc = summarise(ctx, d, str(d / "b.csv"), str(d / "c.csv"))
    full = decide(ctx, d, doc, name="full.json")
    for k in ("strata", "clusters", "holdout_sha256"):
        del doc[k]
    r = decide(ctx, d, doc)
    return r.rc == 2, f"files {files.brief()}; full document {full.brief()}; keys deleted {r.brief()}"


@case("S09", "-", "names and a stratum holding =cmd|, ESC, OSC 52, U+202E, <img>, links, @everyone: inert in every output")
def s09(ctx, d):
    doc = demo_summary(ctx, d)
    doc["baseline"] = doc["candidate"] = NASTY
    doc["strata"]["values"][0]["value"] = NASTY
    (d / "sum.md").write_text("")
    counts = {}
    for fmt in ("text", "json", "markdown"):
        r = decide(ctx, d, doc, "--format", fmt)
        counts[fmt] = has_raw_controls(r.out + r.err)
    r = decide(ctx, d, doc, "--report-dir", "rep", env={"GITHUB_STEP_SUMMARY": d / "sum.md"})
    for f in ("admission.md", "admission.json"):
        p = d / "rep" / f
        counts[f] = has_raw_controls(p.read_bytes()) if p.exists() else "missing"
    counts["step summary"] = has_raw_controls((d / "sum.md").read_bytes())
    md_p = md_inert((d / "rep" / "admission.md").read_text()) if (d / "rep" / "admission.md").exists() else ["missing"]
    svg_p = svg_problems(d / "rep")
    held = not any(counts.values()) and not md_p and not svg_p
    return held, f"{r.brief()}; raw controls {counts}; markdown {md_p or 'inert'}; svg {svg_p or 'well-formed'} (strata.svg's bidi is R08)"


@case("S10", "-", "2,000,000 pairs, about 10^6 distinct differences (hostile-3: 786,923), then 10^6 clusters: a decision in < 60 s and < 2 GB", heavy=True)
def s10(ctx, d):
    need_duckdb(ctx)
    rng = random.Random(10)
    with open(d / "b.csv", "w") as fb, open(d / "c.csv", "w") as fc:
        fb.write("task_id,group,score\n")
        fc.write("task_id,group,score\n")
        for i in range(2_000_000):
            fb.write(f"t{i},g{i // 2},{rng.randrange(1_000_000) / 1e6:.6f}\n")
            fc.write(f"t{i},g{i // 2},{rng.randrange(1_000_000) / 1e6:.6f}\n")
    summarise(ctx, d, str(d / "b.csv"), str(d / "c.csv"))
    got, held = [], True
    for extra in ([], ["--cluster", "group"]):
        r = admit(ctx, d, "--summary", "m.json", *extra, timeout=60, measure=True)
        held &= r.rc in (0, 1) and 0 < r.maxrss_kb < 2_000_000
        got.append(f"{' '.join(extra) or 'plain'}: {r.brief()}")
    distinct = len(json.loads((d / "m.json").read_text())["overall"]["differences"])
    return held, f"{distinct} distinct differences; " + "; ".join(got)


@case("S11", "N", "\"strata\": null: documented as not stratified; --strata kind with it: a clear error", kind="note")
def s11(ctx, d):
    regressing_arms(d)
    doc = summarise(ctx, d, str(d / "b.csv"), str(d / "c.csv"))
    doc["strata"] = None
    r1 = decide(ctx, d, doc)
    r2 = decide(ctx, d, doc, "--strata", "kind")
    held = r1.rc == 0 and "not stratified" in r1.text and r2.rc == 2 and "none or none" not in r2.errtext
    return held, f"null strata {r1.brief()}; --strata kind {r2.brief()}"


# ---------------------------------------------------------------- sql/summary.sql

def compare_views(a: dict, b: dict) -> list:
    diffs = []
    for k in ("verdict", "n", "p_improvement", "p_regression"):
        if a.get(k) != b.get(k):
            diffs.append(f"{k} {a.get(k)} vs {b.get(k)}")
    sa = [(s.get("value"), s.get("n")) for s in a.get("strata") or []]
    sb = [(s.get("value"), s.get("n")) for s in b.get("strata") or []]
    if sa != sb:
        diffs.append("strata differ")
    ca, cb = a.get("cluster") or {}, b.get("cluster") or {}
    for k in ("clusters", "p_improvement"):
        if ca.get(k) != cb.get(k):
            diffs.append(f"cluster {k} {ca.get(k)} vs {cb.get(k)}")
    return diffs


@case("Q01", "10", "R01's hostile files through DuckDB then admit --summary: the same verdict, p, strata and clusters as admit", kind="FAIL")
def q01(ctx, d):
    hostile_arms(d)
    summarise(ctx, d, str(d / "b.csv"), str(d / "c.csv"))
    files = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--cluster", "group", "--format", "json")
    summ = admit(ctx, d, "--summary", "m.json", "--cluster", "group", "--format", "json")
    try:
        a, b = json.loads(files.out), json.loads(summ.out)
    except ValueError:
        return False, f"files {files.brief()}; summary {summ.brief()}"
    diffs = compare_views(a, b)
    return not diffs, f"files {a.get('verdict')}, summary {b.get('verdict')}; differences: {diffs or 'none'}"


@case("Q02", "10", "40 pairs, candidate ids with a trailing tab on every other task: summary decides as admit (n 40)", kind="FAIL")
def q02(ctx, d):
    b, c = [], []
    for i in range(40):
        b.append([f"t{i}", 0, 0])
        c.append([f"t{i}" + ("\t" if i % 2 else ""), 1, 1])
    gen.scores_csv(d / "b.csv", b, ["task_id", "correct", "score"])
    gen.scores_csv(d / "c.csv", c, ["task_id", "correct", "score"])
    files = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", "--format", "json")
    summarise(ctx, d, str(d / "b.csv"), str(d / "c.csv"))
    summ = admit(ctx, d, "--summary", "m.json", "--format", "json")
    nf = json.loads(files.out).get("n") if files.rc in (0, 1) else None
    ns = json.loads(summ.out).get("n") if summ.rc in (0, 1) else None
    return files.rc == summ.rc and nf == ns, f"files {files.brief()} n {nf}; summary {summ.brief()} n {ns}"


# ---------------------------------------------------------------- ledger

def ledger_records(path: Path) -> list:
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def ledger_json(ctx, d, cand, *extra, base="b.csv", ledger="l.jsonl"):
    r = admit(ctx, d, "--baseline", base, "--candidate", cand, *extra, "--ledger", ledger, "--format", "json")
    try:
        return r, json.loads(r.out).get("ledger") or {}
    except ValueError:
        return r, {}


def spending(k, alpha=0.05):
    return alpha * 6 / (math.pi ** 2 * k ** 2)


def new_looks(d):
    """The demo candidate as new bytes: a trailing blank line, CRLF, rows reversed."""
    text = (d / "c.csv").read_text()
    lines = text.splitlines()
    (d / "c_blank.csv").write_text(text + "\n")
    (d / "c_crlf.csv").write_text(text.replace("\n", "\r\n"))
    (d / "c_rev.csv").write_text("\n".join([lines[0]] + lines[1:][::-1]) + "\n")
    return ["c_blank.csv", "c_crlf.csv", "c_rev.csv"]


@case("L01", "-", "the candidate as new bytes (blank line, CRLF, reversed): attempts 2, 3, 4 at 0.0076, 0.0034, 0.0019")
def l01(ctx, d):
    demo_copy(d)
    r, l1 = ledger_json(ctx, d, "c.csv", *demo_args())
    got = [(l1.get("attempt"), l1.get("alpha_this_attempt"))]
    for c in new_looks(d):
        r, led = ledger_json(ctx, d, c, *demo_args())
        got.append((led.get("attempt"), led.get("alpha_this_attempt")))
    want = [(k, spending(k)) for k in (1, 2, 3, 4)]
    ok = all(a == k and alpha is not None and abs(alpha - w) < 1e-9 for (a, alpha), (k, w) in zip(got, want))
    return ok, "attempt, alpha: " + ", ".join(f"{a} {alpha:.6g}" if alpha else f"{a} -" for a, alpha in got)


@case("L02", "-", "the same two files again: nothing appended, a note on stderr")
def l02(ctx, d):
    demo_copy(d)
    ledger_json(ctx, d, "c.csv", *demo_args())
    before = sha(d / "l.jsonl")
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", *demo_args(), "--ledger", "l.jsonl")
    same = sha(d / "l.jsonl") == before
    return same and r.rc in (0, 1) and "no new attempt" in r.errtext, r.brief() + f"; ledger {'unchanged' if same else 'CHANGED'}"


def four_attempts(ctx, d):
    demo_copy(d)
    ledger_json(ctx, d, "c.csv", *demo_args())
    for c in new_looks(d):
        ledger_json(ctx, d, c, *demo_args())
    return len(ledger_records(d / "l.jsonl"))


def reuse_held(ctx, d, r, led, lines_before):
    """A run on a relabelled or reduced holdout holds when it is refused before spending
    (exit 2, nothing appended), or continues the real holdout's spending (attempt >= 5),
    or warns."""
    appended = len(ledger_records(d / "l.jsonl")) - lines_before
    if r.rc == 2 and appended == 0:
        return True, f"{r.brief()}, nothing appended"
    if led.get("attempt", 0) >= 5 or "warning" in r.errtext.lower():
        return True, f"{r.brief()}, attempt {led.get('attempt')}"
    return False, f"{r.brief()}, attempt {led.get('attempt')} of holdout {str(led.get('holdout_sha256'))[:8]} at alpha {led.get('alpha_this_attempt')}"


@case("L03", "11", "after 4 attempts, every task id suffixed #2 (no --manifest): spending continues, or refused", kind="FAIL")
def l03(ctx, d):
    n = four_attempts(ctx, d)
    for arm in ("b.csv", "c.csv"):
        rows = gen.read_csv(d / arm)
        gen.scores_csv(d / f"r_{arm}", [[r[0] + "#2"] + r[1:] for r in rows[1:]], rows[0])
    r, led = ledger_json(ctx, d, "r_c.csv", base="r_b.csv")
    held, got = reuse_held(ctx, d, r, led, n)
    return held, f"{n} attempts before; renamed ids: {got}"


@case("L04", "11", "--tasks = the holdout less one task (twice, different tasks), no --manifest: spending continues, or refused", kind="FAIL")
def l04(ctx, d):
    n = four_attempts(ctx, d)
    lines = (DEMO / "split" / "holdout.csv").read_text().splitlines()
    got, held = [], True
    for drop in (1, 2):
        (d / f"h{drop}.csv").write_text("\n".join(lines[:drop] + lines[drop + 1:]) + "\n")
        before = len(ledger_records(d / "l.jsonl"))
        r, led = ledger_json(ctx, d, "c.csv", "--tasks", f"h{drop}.csv")
        h, g = reuse_held(ctx, d, r, led, before)
        held &= h
        got.append(f"less task {drop}: {g}")
    return held, f"{n} attempts before; " + "; ".join(got)


@case("L05", "11", "summaries with forged holdout_sha256 0..01-03: refused, or tied to the real holdout", kind="FAIL")
def l05(ctx, d):
    n = four_attempts(ctx, d)
    doc = demo_summary(ctx, d)
    got, held = [], True
    for k in (1, 2, 3):
        doc["holdout_sha256"] = f"{k:064x}"
        (d / f"f{k}.json").write_text(json.dumps(doc))
        before = len(ledger_records(d / "l.jsonl"))
        r = admit(ctx, d, "--summary", f"f{k}.json", "--ledger", "l.jsonl", "--format", "json")
        try:
            led = json.loads(r.out).get("ledger") or {}
        except ValueError:
            led = {}
        h, g = reuse_held(ctx, d, r, led, before)
        held &= h
        got.append(f"forged {k}: {g}")
    return held, f"{n} attempts before; " + "; ".join(got)


def rotations(d, k):
    lines = (DEMO / "candidate-scores.csv").read_text().splitlines()
    head, body = lines[0], lines[1:]
    name = f"c{k:02d}.csv"
    (d / name).write_text("\n".join([head] + body[k:] + body[:k]) + "\n")
    return name


def concurrent_ledger(ctx, d, n, twice=True, workers=8):
    shutil.copy(DEMO / "baseline-scores.csv", d / "b.csv")
    names = [rotations(d, k) for k in range(n)]
    jobs = names + (names if twice else [])
    with ThreadPoolExecutor(workers) as ex:
        results = list(ex.map(lambda c: admit(ctx, d, "--baseline", "b.csv", "--candidate", c, *demo_args(),
                                              "--ledger", "l.jsonl"), jobs))
    return results


@case("L06", "-", "8 concurrent processes, 40 candidates each admitted twice: attempts 1..40 once each")
def l06(ctx, d):
    results = concurrent_ledger(ctx, d, 40)
    recs = ledger_records(d / "l.jsonl")
    attempts = sorted(r.get("attempt") for r in recs)
    cands = len({r.get("candidate_sha256") for r in recs})
    show = run([ctx.bin, "ledger", "show", "l.jsonl"], cwd=d)
    ok = attempts == list(range(1, 41)) and cands == 40 and show.rc == 0
    codes = sorted({r.rc for r in results})
    return ok, f"exit codes {codes}; {len(recs)} records, attempts 1..40: {attempts == list(range(1, 41))}, {cands} candidates; show {show.brief()}"


@case("L07", "-", "last line torn by 60 bytes: show warns naming row 40; admit cuts it and records attempt 40")
def l07(ctx, d):
    concurrent_ledger(ctx, d, 40, twice=False)
    data = (d / "l.jsonl").read_bytes()
    (d / "l.jsonl").write_bytes(data[:-61])  # the final 60 bytes and the newline
    show = run([ctx.bin, "ledger", "show", "l.jsonl"], cwd=d)
    new = rotations(d, 40)
    r, led = ledger_json(ctx, d, new, *demo_args())
    show2 = run([ctx.bin, "ledger", "show", "l.jsonl"], cwd=d)
    recs = ledger_records(d / "l.jsonl")
    clean = "cut short" not in show2.text and len(recs) == 40 and len((d / "l.jsonl").read_text().splitlines()) == 40
    ok = show.rc == 0 and "row 40" in show.text and led.get("attempt") == 40 and clean
    return ok, f"show {show.brief()}; admit attempt {led.get('attempt')}; after: {len(recs)} records, clean {clean}"


@case("L08", "-", "line 6 of 40 cut to 50 bytes: show and admit exit 2 naming row 6")
def l08(ctx, d):
    concurrent_ledger(ctx, d, 40, twice=False)
    lines = (d / "l.jsonl").read_text().splitlines()
    lines[5] = lines[5][:50]
    (d / "l.jsonl").write_text("\n".join(lines) + "\n")
    show = run([ctx.bin, "ledger", "show", "l.jsonl"], cwd=d)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", rotations(d, 41), *demo_args(), "--ledger", "l.jsonl")
    ok = show.rc == 2 and "row 6" in show.errtext and r.rc == 2 and "row 6" in r.errtext
    return ok, f"show {show.brief()}; admit {r.brief()}"


@case("L09", "5", "ledger show /dev/zero; admit --ledger /dev/zero (ulimit -v 4 GB): exit 2 named error, RSS < 1.3 GB", kind="FAIL", heavy=True)
def l09(ctx, d):
    demo_copy(d)
    show = run([ctx.bin, "ledger", "show", "/dev/zero"], cwd=d, vmem_kb=4_000_000, measure=True, timeout=120)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", *demo_args(), "--ledger", "/dev/zero",
              vmem_kb=4_000_000, measure=True, timeout=120)
    ok = all(x.rc == 2 and "out of memory" not in x.errtext and 0 < x.maxrss_kb < 1_300_000 for x in (show, r))
    return ok, f"show {show.brief()}; admit {r.brief()}"


@case("L10", "16", "a FIFO as the ledger: show and admit exit 2 (not a regular file), no hang", kind="note")
def l10(ctx, d):
    demo_copy(d)
    os.mkfifo(d / "fifo.jsonl")
    show = run([ctx.bin, "ledger", "show", "fifo.jsonl"], cwd=d, timeout=5)
    r = admit(ctx, d, "--baseline", "b.csv", "--candidate", "c.csv", *demo_args(), "--ledger", "fifo.jsonl", timeout=5)
    return show.rc == 2 and r.rc == 2, f"show {show.brief()}; admit {r.brief()}"
