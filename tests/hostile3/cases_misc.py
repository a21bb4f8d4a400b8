"""Cases A01-A05 (action.yml) and M01-M05 (memory on GB inputs, --heavy only)."""

from __future__ import annotations

import json
import os
import re

import gen
from common import REPO, case, run

ACTION = REPO / "action.yml"


def steps() -> list:
    """(name, uses, run block, with block) of each step of action.yml, read line by line
    (no YAML library: the harness is standard library only)."""
    lines = ACTION.read_text().splitlines()
    out, cur = [], None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(\s*)- (name|uses): (.*)$", line)
        if m:
            cur = {"name": "", "uses": "", "run": "", "with": ""}
            cur[m.group(2)] = m.group(3).strip()
            out.append(cur)
            i += 1
            continue
        m = re.match(r"^(\s*)(name|uses): (.*)$", line)
        if cur is not None and m and not cur[m.group(2)]:
            cur[m.group(2)] = m.group(3).strip()
        m = re.match(r"^(\s*)(run|with): ?(\|)?\s*$", line)
        if cur is not None and m:
            indent = len(m.group(1))
            block = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                block.append(lines[i])
                i += 1
            cur[m.group(2)] = "\n".join(block)
            continue
        i += 1
    return out


def admit_step() -> str:
    for s in steps():
        if s["name"] == "evogate admit":
            import textwrap

            return textwrap.dedent(s["run"])
    raise RuntimeError("action.yml has no step named `evogate admit`")


def step_env(ctx, d, **values):
    tools = d / "tools"
    tools.mkdir(exist_ok=True)
    if not (tools / "evogate").exists():
        os.symlink(ctx.bin, tools / "evogate")
    env = {k: "" for k in ("BASELINE", "CANDIDATE", "TASKS", "MANIFEST", "ALPHA", "STRATA", "MARGIN", "CLUSTER", "LEDGER", "REPORT_DIR")}
    env.update(values)
    env["PATH"] = f"{tools}:{os.environ['PATH']}"
    return env


@case("A01", "-", "every ${{ inputs.* }} reaches a run: script only through env:")
def a01(ctx, d):
    bad = [s["name"] or s["uses"] for s in steps() if "${{" in s["run"]]
    n = sum(1 for s in steps() if s["run"])
    return not bad, f"{n} run: steps; steps interpolating ${{{{ }}}} into a script: {bad or 'none'}"


@case("A02", "-", "the admit step run locally with shell and option payloads in every input: nothing runs, nothing injected")
def a02(ctx, d):
    (d / "step.sh").write_text(admit_step())
    env = step_env(ctx, d, BASELINE="b.csv$(touch pwned1)`touch pwned2`", CANDIDATE="c.csv; touch pwned3",
                   TASKS='x" ; touch pwned4; "', ALPHA="0.05 --ledger x", STRATA="--format=json",
                   REPORT_DIR="rep dir $(touch pwned5)")
    r = run(["bash", "-eo", "pipefail", "step.sh"], cwd=d, env=env, timeout=30)
    made = sorted(p.name for p in d.iterdir() if p.name.startswith("pwned") or p.name == "x")
    return not made and r.rc != 0, f"{r.brief()}; files created: {made or 'none'}"


@case("A03", "13", "admit exits 2 with a planted evogate-report/admission.md: the step summary never shows it", kind="FAIL")
def a03(ctx, d):
    (d / "step.sh").write_text(admit_step())
    (d / "evogate-report").mkdir()
    (d / "evogate-report" / "admission.md").write_text("## evogate admit: admitted\n")
    (d / "c.csv").write_text("task_id,score\nt1,1\n")
    env = step_env(ctx, d, BASELINE="missing.csv", CANDIDATE="c.csv", ALPHA="0.05", REPORT_DIR="evogate-report",
                   GITHUB_STEP_SUMMARY=str(d / "s.md"))
    r = run(["bash", "-eo", "pipefail", "step.sh"], cwd=d, env=env, timeout=30)
    summary = (d / "s.md").read_text() if (d / "s.md").exists() else ""
    planted = "## evogate admit: admitted" in summary
    return r.rc == 2 and not planted, f"{r.brief()}; step summary {'holds the PLANTED report' if planted else 'clean'}"


@case("A04", "13", "the action used twice in one run: the artifact name is not fixed (an input or the job in it)", kind="FAIL")
def a04(ctx, d):
    ups = [s for s in steps() if "upload-artifact" in s["uses"]]
    if not ups:
        return True, "no upload step"
    m = re.search(r"^\s*name:\s*(.*)$", ups[0]["with"], re.M)
    name = m.group(1).strip() if m else ""
    return "${{" in name, f"upload-artifact name: {name!r}"


@case("A05", "N", "third-party actions pinned to a commit SHA", kind="note")
def a05(ctx, d):
    uses = [s["uses"] for s in steps() if s["uses"]]
    loose = [u for u in uses if not re.search(r"@[0-9a-f]{40}$", u)]
    return not loose, f"uses: {uses}; not pinned: {loose or 'none'}"


# ---------------------------------------------------------------- memory (heavy)

@case("M01", "-", "import lm-eval of a 2.13 GB log (210,000 lines of 10 KB): exit 0, peak RSS < 200 MB", heavy=True)
def m01(ctx, d):
    gen.lm_log(d / "samples_big_2025-01-01.jsonl", 210_000, pad=10_000)
    r = run([ctx.bin, "import", "lm-eval", "--task", "big", "--from", "samples_big_2025-01-01.jsonl", "--out", "o.csv"],
            cwd=d, timeout=600, measure=True)
    return r.rc == 0 and 0 < r.maxrss_kb < 200_000, r.brief()


@case("M02", "6", "import inspect of an 873 MB .json log (57,105 samples): peak RSS at most 3x the file", kind="FAIL", heavy=True)
def m02(ctx, d):
    log = json.loads((gen.FORMATS / "inspect" / "log_read_sample.json").read_text())
    sample = log.pop("samples")[0]
    head = json.dumps(log)[:-1]
    # 57,105 samples of about 15.3 KB each: an 873 MB log, under the 1 GiB whole-file cap.
    bare = len(json.dumps(dict(sample, id=57_105, input="")))
    pad = "p" * max(0, 873_000_000 // 57_105 - bare - 1)
    with open(d / "big.json", "w") as f:
        f.write(head + ', "samples": [')
        for i in range(57_105):
            s = dict(sample, id=i + 1, input=pad)
            f.write(("," if i else "") + json.dumps(s))
        f.write("]}")
    size = (d / "big.json").stat().st_size
    r = run([ctx.bin, "import", "inspect", "--from", "big.json", "--out", "o.csv"], cwd=d, timeout=600, measure=True)
    return r.rc == 0 and 0 < r.maxrss_kb * 1024 <= 3 * size, f"{size / 1e6:.0f} MB log; " + r.brief()


@case("M03", "-", "import promptfoo of a 2 GiB sparse file: exit 2, peak RSS < 1.2 GB", heavy=True)
def m03(ctx, d):
    with open(d / "p.json", "wb") as f:
        f.truncate(2 << 30)
    r = run([ctx.bin, "import", "promptfoo", "--from", "p.json", "--out", "o.csv"], cwd=d, timeout=300, measure=True)
    return r.rc == 2 and 0 < r.maxrss_kb < 1_200_000, r.brief()


def big_arms(d, rows=200_000, feedback=10_000):
    pad = "f" * feedback
    for name, shift in (("b.csv", 0), ("c.csv", 1)):
        with open(d / name, "w") as f:
            f.write("task_id,kind,correct,score,feedback\n")
            for i in range(rows):
                x = int((i * 7 + shift * (i % 5 == 0)) % 3 == 0)
                f.write(f"t{i},k{i % 4},{x},{x},{pad}\n")
    return (d / "b.csv").stat().st_size + (d / "c.csv").stat().st_size


@case("M04", "-", "admit on two 2.0 GB scores CSVs: a decision, peak RSS < 1 GB", heavy=True)
def m04(ctx, d):
    total = big_arms(d)
    r = run([ctx.bin, "admit", "--baseline", "b.csv", "--candidate", "c.csv"], cwd=d, timeout=600, measure=True)
    return r.rc in (0, 1) and 0 < r.maxrss_kb < 1_000_000, f"{total / 1e9:.1f} GB in; " + r.brief()


@case("M05", "6", "the same with --report-dir: peak RSS at most 1.5x the input bytes", kind="FAIL", heavy=True)
def m05(ctx, d):
    total = big_arms(d)
    r = run([ctx.bin, "admit", "--baseline", "b.csv", "--candidate", "c.csv", "--report-dir", "rep"], cwd=d,
            timeout=900, measure=True)
    return r.rc in (0, 1) and 0 < r.maxrss_kb * 1024 <= 1.5 * total, f"{total / 1e9:.1f} GB in; " + r.brief()


# ------------------------------------------------ extras: faults from the hidden battery

def score_argv(ctx, out):
    return [ctx.bin, "score", "--truth", REPO / "data" / "arxiv" / "papers.csv",
            "--tasks", REPO / "reports" / "demo" / "split" / "holdout.csv",
            "--outputs", REPO / "data" / "demo" / "baseline.jsonl", "--out", out]


def signal_before_rename(ctx, d, sig):
    import shutil

    from common import Skip

    if not shutil.which("strace"):
        raise Skip("strace is not installed")
    # The rename fails with EINTR and the signal arrives: the moment between the write
    # of the temporary file and its rename.
    r = run(["strace", "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
             "-e", f"inject=rename,renameat,renameat2:error=EINTR:signal={sig}:when=1", *score_argv(ctx, "s.csv")], cwd=d)
    debris = sorted(p.name for p in d.iterdir() if "evogate-tmp" in p.name)
    return r.rc != 0 and not debris, r.brief() + f"; debris {debris or 'none'}"


@case("X01", "15", "SIGINT between the write and the rename of score --out: no temporary file left", kind="FAIL", extra=True)
def x01(ctx, d):
    return signal_before_rename(ctx, d, "INT")


@case("X02", "15", "SIGTERM between the write and the rename of score --out: no temporary file left", kind="FAIL", extra=True)
def x02(ctx, d):
    return signal_before_rename(ctx, d, "TERM")


@case("X03", "15", "admit --margin 1e308: no number of more than 30 digits in the output", kind="FAIL", extra=True)
def x03(ctx, d):
    demo = REPO / "reports" / "demo"
    r = run([ctx.bin, "admit", "--baseline", demo / "baseline-scores.csv", "--candidate", demo / "candidate-scores.csv",
             "--margin", "1e308"], cwd=d)
    longest = max((len(m) for m in re.findall(r"\d+", r.text)), default=0)
    return longest <= 30, r.brief()[:80] + f"; longest digit run {longest}"


@case("X04", "15", "split --ratios 4294967296,1,1: exit 2 saying the ratio is too large", kind="FAIL", extra=True)
def x04(ctx, d):
    r = run([ctx.bin, "split", "--truth", REPO / "data" / "arxiv" / "papers.csv", "--out", "sp",
             "--ratios", "4294967296,1,1"], cwd=d)
    says = any(w in r.errtext.lower() for w in ("too large", "at most", "larger than", "exceeds", "overflow"))
    return r.rc == 2 and says, r.brief()
