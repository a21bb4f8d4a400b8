"""Runs the `run:` steps of action.yml on this machine, as GitHub's runner would, and
checks what they leave: step outputs, the step summary, pull request comments and the
holdout ledger kept on a branch of a git remote.

A local bare repository stands in for the remote; a local HTTP server on 127.0.0.1
stands in for GitHub's API; GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_EVENT_PATH and
RUNNER_TEMP are files and folders of each fake job. `uses:` steps (setup-python,
upload-artifact) are GitHub's own and are skipped, with their inputs checked.

Scenarios, in order:
1. the install step, once, with the wheel .ci/run built;
2. two pull request jobs at once against one empty ledger branch (a barrier holds each
   job's first `evogate admit` until both have read the ledger, so both decide attempt
   1 and exactly one push is refused): two records, attempts 1 and 2, the second decided
   at alpha * 6 / (pi^2 * 4); a comment by another user that carries the first job's
   marker is left alone and the job writes its own;
3. the first job run again on the same files: a repeated attempt, the ledger branch
   unchanged, its own comment edited in place (the other user's untouched);
4. a job whose baseline is missing, over a planted `admission.md`: exit 2, nothing in the
   summary, no verdict output, the planted folder gone, no comment;
5. the test, zero method, allow-missing, extra arguments (every line of a multi-line
   value used) and artifact name inputs;
6. inputs that cannot be used are refused before evogate runs and before anything is
   removed: a report folder that is or holds an input, the checkout's .git, RUNNER_TEMP,
   or any file that is no part of a report;
7. the comment step with a personal token: it edits the comment its own user wrote, not
   an older one by another user with the same marker.

Usage: python tests/action/harness.py WHEEL   (PyYAML and the wheel's evogate installed)
"""

import hashlib
import http.server
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "reports" / "demo"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")
CHECKS = []


def check(condition, what):
    """Records one check and fails at once with `what` when it does not hold."""
    CHECKS.append(what)
    if not condition:
        raise SystemExit(f"FAIL: {what}")
    print(f"ok: {what}")


def git(*args, cwd=None):
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


class FakeGitHub(http.server.BaseHTTPRequestHandler):
    """The issue-comments API of one repository, in memory, and `GET /user`. A comment's
    author is the token's user: the job's token (`fake-token`) writes as
    github-actions[bot] and, like GitHub's GITHUB_TOKEN, cannot read `/user`; a personal
    token `pat-NAME` is the user NAME."""

    comments = {}
    calls = []
    lock = threading.Lock()

    def login(self):
        token = self.headers.get("Authorization", "").removeprefix("Bearer ")
        return token[4:] if token.startswith("pat-") else "github-actions[bot]"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def do_GET(self):
        with self.lock:
            self.calls.append(("GET", self.path))
            if self.path == "/user":
                if self.login() == "github-actions[bot]":
                    self.answer(403, {"message": "Resource not accessible by integration"})
                else:
                    self.answer(200, {"login": self.login()})
                return
            page = int(re.search(r"[?&]page=(\d+)", self.path).group(1))
            listed = sorted(self.comments.values(), key=lambda c: c["id"])
            self.answer(200, listed[(page - 1) * 100 : page * 100])

    def do_POST(self):
        with self.lock:
            self.calls.append(("POST", self.path))
            comment = {
                "id": 1000 + len(self.comments),
                "body": self.body()["body"],
                "user": {"login": self.login()},
            }
            self.comments[comment["id"]] = comment
            self.answer(201, comment)

    def do_PATCH(self):
        with self.lock:
            self.calls.append(("PATCH", self.path))
            number = int(self.path.rsplit("/", 1)[1])
            self.comments[number]["body"] = self.body()["body"]
            self.answer(200, self.comments[number])


class Job:
    """One fake GitHub job: a clone of the repository and the runner's files."""

    def __init__(self, base, name, index, inputs, api):
        self.name, self.index, self.inputs = name, index, inputs
        self.folder = base / f"{name}-{index}"
        self.workspace = self.folder / "workspace"
        self.folder.mkdir(parents=True, exist_ok=True)
        if not self.workspace.exists():
            git("clone", "--quiet", str(base / "remote.git"), str(self.workspace))
        self.temp = self.folder / "runner-temp"
        self.temp.mkdir(exist_ok=True)
        self.output_file = self.folder / "github-output"
        self.summary_file = self.folder / "step-summary.md"
        self.event = self.folder / "event.json"
        self.event.write_text(json.dumps({"pull_request": {"number": 42}}))
        self.api = api
        self.outputs = {}
        self.statuses = []
        self.log = ""

    def fresh_files(self):
        self.output_file.write_text("")
        self.summary_file.write_text("")
        self.outputs = {"admit": {}}
        self.statuses = []
        self.log = ""

    def value(self, expression, action):
        """The value GitHub would give one `${{ }}` expression of the action."""
        if expression.startswith("inputs."):
            name = expression[len("inputs."):]
            if name in self.inputs:
                return self.inputs[name]
            default = str(action["inputs"][name].get("default", ""))
            return EXPRESSION.sub(lambda m: self.value(m.group(1), action), default)
        fixed = {
            "github.token": "fake-token",
            "github.job": self.name,
            "strategy.job-index": str(self.index),
            "github.action": "__evogate_evogate",
        }
        if expression in fixed:
            return fixed[expression]
        found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        if found:
            return self.outputs.get(found.group(1), {}).get(found.group(2), "")
        raise SystemExit(f"the harness does not know the expression {expression!r}")

    def read_outputs(self):
        text = self.output_file.read_text()
        found = {}
        lines = iter(text.splitlines())
        for line in lines:
            if "<<" in line:
                name, delimiter = line.split("<<", 1)
                value = []
                for inner in lines:
                    if inner == delimiter:
                        break
                    value.append(inner)
                found[name] = "\n".join(value)
            elif "=" in line:
                name, value = line.split("=", 1)
                found[name] = value
        return found

    def run(self, action, steps, shim=None):
        """Runs the `run:` steps in order, as the runner would; returns the statuses."""
        self.fresh_files()
        failed = False
        for step in steps:
            condition = step.get("if")
            if "uses" in step:
                self.log += f"skipped uses: {step['uses']}\n"
                continue
            if condition is None and failed:
                continue
            if condition not in (None, "always()"):
                raise SystemExit(f"the harness does not evaluate `if: {condition}`")
            env = dict(os.environ)
            env.update(
                GITHUB_OUTPUT=str(self.output_file),
                GITHUB_STEP_SUMMARY=str(self.summary_file),
                GITHUB_EVENT_PATH=str(self.event),
                GITHUB_ACTION_PATH=str(ROOT),
                GITHUB_WORKSPACE=str(self.workspace),
                GITHUB_REPOSITORY="owner/skills",
                GITHUB_API_URL=self.api,
                RUNNER_TEMP=str(self.temp),
            )
            if shim:
                env.update(shim)
                env["PATH"] = shim["SHIM_DIR"] + os.pathsep + env["PATH"]
            for name, raw in (step.get("env") or {}).items():
                env[name] = EXPRESSION.sub(lambda m: self.value(m.group(1), action), str(raw))
            self.output_file.write_text("")
            script = self.temp / "step.sh"
            script.write_text(step["run"])
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.workspace, env=env, capture_output=True, text=True,
            )
            self.log += f"--- step {step.get('name')}: exit {done.returncode}\n{done.stdout}{done.stderr}"
            self.statuses.append((step.get("name"), done.returncode))
            if "id" in step:
                self.outputs[step["id"]] = self.read_outputs()
            failed = failed or done.returncode != 0
        return self.statuses


def every_file(folder):
    """Every file and folder under `folder` (hidden ones and .git included), by path."""
    return {str(path.relative_to(folder)) for path in Path(folder).rglob("*")}


def static_checks(action):
    steps = action["runs"]["steps"]
    for step in steps:
        if "run" in step:
            check("${{" not in step["run"], f"step {step.get('name')!r}: no `${{{{ }}}}` in run:")
            for name, raw in (step.get("env") or {}).items():
                for expression in EXPRESSION.findall(str(raw)):
                    if expression.startswith("inputs."):
                        assert expression[7:] in action["inputs"], expression
    for name, spec in action["inputs"].items():
        assert spec.get("description"), name
    wanted = {"verdict", "p_improvement", "tasks_needed", "report_dir"}
    check(wanted <= set(action["outputs"]), f"outputs include {sorted(wanted)}")
    check(
        "non-inferiority margin" in action["inputs"]["margin"]["description"]
        and "not a smallest improvement" in action["inputs"]["margin"]["description"],
        "the margin input is described as a non-inferiority margin",
    )
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    check(
        upload["with"]["name"] == "${{ steps.admit.outputs.artifact_name }}",
        "the artifact name comes from the admit step (unique per job, index and use)",
    )
    for wanted_input in ["test", "zero-method", "allow-missing", "summary", "margin", "extra-args", "comment"]:
        assert wanted_input in action["inputs"], wanted_input


def seed_repository(base):
    """A repository with the demo's holdout and scores, pushed to a bare `remote.git`."""
    remote = base / "remote.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(remote))
    seed = base / "seed"
    (seed / "runs").mkdir(parents=True)
    (seed / "eval" / "split").mkdir(parents=True)
    for arm in ["baseline", "candidate", "regressing"]:
        shutil.copy(DEMO / f"{arm}-scores.csv", seed / "runs" / f"{arm}-scores.csv")
    for name in ["holdout.csv", "manifest.json"]:
        shutil.copy(DEMO / "split" / name, seed / "eval" / "split" / name)
    git("init", "--quiet", "--initial-branch=main", cwd=seed)
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".", cwd=seed)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "seed", cwd=seed)
    git("push", "--quiet", str(remote), "main", cwd=seed)
    return remote


def shim(base, job):
    """`evogate` on PATH in front of the real one: the first `admit` of each job waits
    until both jobs have reached theirs, so both read the same ledger before either pushes."""
    folder = base / "shim"
    folder.mkdir(exist_ok=True)
    (base / "barrier").mkdir(exist_ok=True)
    script = folder / "evogate"
    script.write_text(
        "#!/usr/bin/env bash\n"
        'if [ "${1:-}" = admit ] && [ ! -e "$BARRIER/$JOB_NAME.passed" ]; then\n'
        '  touch "$BARRIER/$JOB_NAME.ready"\n'
        "  for _ in $(seq 600); do\n"
        '    [ "$(find "$BARRIER" -name "*.ready" | wc -l)" -ge 2 ] && break\n'
        "    sleep 0.1\n"
        "  done\n"
        '  touch "$BARRIER/$JOB_NAME.passed"\n'
        "fi\n"
        'exec "$EVOGATE_REAL" "$@"\n'
    )
    script.chmod(0o755)
    return {
        "SHIM_DIR": str(folder),
        "BARRIER": str(base / "barrier"),
        "JOB_NAME": job,
        "EVOGATE_REAL": shutil.which("evogate"),
    }


def main():
    wheel = sys.argv[1]
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    steps = action["runs"]["steps"]
    static_checks(action)
    install = [s for s in steps if s.get("name") == "Install evogate"]
    after_install = steps[steps.index(install[0]) + 1 :]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    api = f"http://127.0.0.1:{server.server_address[1]}"

    base = Path(tempfile.mkdtemp(prefix="evogate-action-"))
    try:
        remote = seed_repository(base)
        pr = {
            "baseline": "runs/baseline-scores.csv",
            "tasks": "eval/split/holdout.csv",
            "manifest": "eval/split/manifest.json",
            "ledger": "eval/ledger.jsonl",
            "ledger-branch": "evogate-ledger",
            "comment": "true",
            "wheel": wheel,
        }

        print("== 1. the install step, with the wheel .ci/run built")
        installer = Job(base, "install", 0, pr, api)
        statuses = installer.run(action, [*install])
        check(statuses == [("Install evogate", 0)], f"the install step exits 0: {statuses}")

        print("== 2. two pull request jobs at once against one empty ledger branch")
        # Another user (the pull request's author) plants a comment that starts with the
        # first job's predictable marker, before the Action has written any.
        marker = "<!-- evogate-admit evogate-report-admit-0-__evogate_evogate -->"
        planted_body = f"{marker}\n## evogate admit: admitted\n"
        FakeGitHub.comments[111] = {"id": 111, "body": planted_body, "user": {"login": "mallory"}}
        jobs = {
            "candidate": Job(base, "admit", 0, {**pr, "candidate": "runs/candidate-scores.csv"}, api),
            "regressing": Job(base, "admit", 1, {**pr, "candidate": "runs/regressing-scores.csv"}, api),
        }
        threads = [
            threading.Thread(target=job.run, args=(action, after_install, shim(base, name)))
            for name, job in jobs.items()
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
        for name, job in jobs.items():
            print(f"--- job {name} (index {job.index}) log:\n{job.log}")
            print(f"--- job {name} outputs: {json.dumps(job.outputs['admit'], sort_keys=True)}")
            print(f"--- job {name} step summary (first lines):")
            print("\n".join(job.summary_file.read_text().splitlines()[:4]))
        check(
            [s for _, s in jobs["candidate"].statuses] == [0, 0]
            and [s for _, s in jobs["regressing"].statuses] == [1, 0],
            "admit steps exit 0 (admitted) and 1 (refused); the comment steps 0",
        )
        ledger = git("--git-dir", str(remote), "show", "evogate-ledger:eval/ledger.jsonl")
        records = [json.loads(line) for line in ledger.splitlines()]
        print("--- ledger records on evogate-ledger:")
        for record in records:
            print(json.dumps({k: record[k] for k in ["attempt", "alpha_this_attempt", "verdict", "candidate_sha256"]}))
        check([r["attempt"] for r in records] == [1, 2], "the ledger branch holds two records, attempts 1 and 2")
        # alpha_k = alpha * 6 / (pi^2 k^2) (docs/admission.md), computed here, not by evogate.
        expected = [0.05 * 6 / (math.pi**2 * k * k) for k in (1, 2)]
        check(
            all(abs(r["alpha_this_attempt"] - a) < 1e-15 for r, a in zip(records, expected)),
            f"the attempts were decided at alpha {expected[0]:.6f} and {expected[1]:.6f}",
        )
        digests = {
            name: hashlib.sha256((DEMO / f"{name}-scores.csv").read_bytes()).hexdigest()
            for name in jobs
        }
        check(
            sorted(r["candidate_sha256"] for r in records) == sorted(digests.values()),
            "one record per job's candidate: no attempt lost",
        )
        rejected = [name for name, job in jobs.items() if "push rejected" in job.log]
        check(len(rejected) == 1, f"exactly one job's push was refused and decided again: {rejected}")
        by_digest = {d: n for n, d in digests.items()}
        for record in records:
            job = jobs[by_digest[record["candidate_sha256"]]]
            out = job.outputs["admit"]
            report = json.loads((job.workspace / out["report_dir"] / "admission.json").read_text())
            check(
                out["ledger_attempt"] == str(record["attempt"])
                and report["ledger"]["attempt"] == record["attempt"]
                and abs(report["ledger"]["alpha_this_attempt"] - record["alpha_this_attempt"]) < 1e-12,
                f"job {by_digest[record['candidate_sha256']]}: output ledger_attempt {out['ledger_attempt']}, "
                f"report alpha {report['ledger']['alpha_this_attempt']}",
            )
            check(
                out["verdict"] == report["verdict"]
                and out["p_improvement"] == json.dumps(report["p_improvement"])
                and out["tasks_needed"] == ("" if report["tasks_needed"] is None else str(report["tasks_needed"]))
                and out["report_dir"] == "evogate-report",
                f"outputs verdict={out['verdict']} p_improvement={out['p_improvement']} "
                f"tasks_needed={out['tasks_needed']!r} report_dir={out['report_dir']} match admission.json",
            )
            summary = job.summary_file.read_text()
            check(
                summary.startswith(f"## evogate admit: {report['verdict']}")
                and ".svg" not in summary and "](" not in summary
                and summary.count("## evogate admit:") == 1,
                f"the step summary holds one report ({report['verdict']}) and links no file",
            )
        check(
            jobs["candidate"].outputs["admit"]["verdict"] == "admitted"
            and jobs["regressing"].outputs["admit"]["verdict"] == "refused",
            "verdicts: the candidate admitted, the regressing candidate refused",
        )
        names = {job.outputs["admit"]["artifact_name"] for job in jobs.values()}
        check(len(names) == 2, f"artifact names differ per job: {sorted(names)}")
        posts = [c for c in FakeGitHub.calls if c[0] == "POST"]
        check(
            len(posts) == 2 and len(FakeGitHub.comments) == 3
            and not any(c[0] == "PATCH" for c in FakeGitHub.calls),
            "each job wrote its own pull request comment; the other user's marked comment was not edited",
        )
        check(FakeGitHub.comments[111]["body"] == planted_body, "the planted comment is unchanged")
        own = [
            c["id"] for c in FakeGitHub.comments.values()
            if c["body"].startswith(marker + "\n") and c["user"]["login"] == "github-actions[bot]"
        ]
        check(len(own) == 1, f"the first job's own comment: {own}")

        print("== 3. the first job again on the same files: a repeated attempt")
        tip = git("--git-dir", str(remote), "rev-parse", "evogate-ledger")
        job = jobs["candidate"]
        first_attempt = job.outputs["admit"]["ledger_attempt"]
        job.run(action, after_install)
        print(job.log)
        check(job.statuses == [("evogate admit", 0), ("Comment on the pull request", 0)], f"{job.statuses}")
        check(git("--git-dir", str(remote), "rev-parse", "evogate-ledger") == tip, "the ledger branch is unchanged")
        check(job.outputs["admit"]["ledger_attempt"] == first_attempt, f"the run repeats attempt {first_attempt}")
        patches = [c for c in FakeGitHub.calls if c[0] == "PATCH"]
        check(
            len(patches) == 1 and patches[0][1].endswith(f"/issues/comments/{own[0]}")
            and len(FakeGitHub.comments) == 3,
            f"the job's own comment {own[0]} was edited in place, not added again: {patches}",
        )
        check(FakeGitHub.comments[111]["body"] == planted_body, "the planted comment is still unchanged")

        print("== 4. a missing baseline over a planted report")
        bad = Job(base, "broken", 0, {**pr, "baseline": "runs/missing.csv", "candidate": "runs/candidate-scores.csv"}, api)
        planted = bad.workspace / "evogate-report"
        planted.mkdir()
        (planted / "admission.md").write_text("## evogate admit: admitted\n")
        calls = len(FakeGitHub.calls)
        bad.run(action, after_install)
        print(bad.log)
        check(bad.statuses[0] == ("evogate admit", 2), f"admit exits 2: {bad.statuses}")
        check(bad.summary_file.read_text() == "", "nothing reaches the step summary")
        check("verdict" not in bad.outputs["admit"] and "report_written" not in bad.outputs["admit"], "no verdict output, nothing to upload")
        check(not planted.exists(), "the planted report folder is removed")
        check(len(FakeGitHub.calls) == calls, "no call to the comments API")

        print("== 5. the test, zero method, allow-missing, extra arguments and artifact name inputs")
        options = Job(base, "options", 0, {
            "baseline": "runs/baseline-scores.csv",
            "candidate": "runs/candidate-scores.csv",
            "test": "signed-rank",
            "zero-method": "pratt",
            "allow-missing": "true",
            "extra-args": "--strata none",
            "artifact-name": "gate: arxiv/skill",
        }, api)
        options.run(action, after_install)
        print(options.log[-600:])
        out = options.outputs["admit"]
        report = json.loads((options.workspace / out["report_dir"] / "admission.json").read_text())
        check(
            report["test"]["name"] == "signed-rank" and report["test"]["zero_method"] == "pratt"
            and report["strata_column"] is None and report["ledger"] is None,
            f"the report used test {report['test']['name']}, zero method {report['test']['zero_method']}, "
            f"strata {report['strata_column']}, no ledger",
        )
        check(out["artifact_name"] == "gate--arxiv-skill", f"artifact name sanitised: {out['artifact_name']}")
        check(out["verdict"] == report["verdict"] and out["ledger_attempt"] == "", "outputs match, no attempt")
        # A YAML block scalar of two lines: both reach evogate (newlines are whitespace).
        lines = Job(base, "lines", 0, {
            "baseline": "runs/baseline-scores.csv",
            "candidate": "runs/candidate-scores.csv",
            "extra-args": "--strata=kind\n--margin=0.5\n",
        }, api)
        lines.run(action, after_install)
        report = json.loads((lines.workspace / "evogate-report" / "admission.json").read_text())
        check(
            report["strata_column"] == "kind" and report["margin"] == 0.5,
            f"a two-line extra-args uses both lines: strata {report['strata_column']}, margin {report['margin']}",
        )
        lines.inputs["extra-args"] = "--strata=kind\n--tasks=does-not-exist.csv"
        lines.run(action, after_install)
        check(
            lines.statuses[0] == ("evogate admit", 2) and "`does-not-exist.csv`: cannot read it" in lines.log,
            "a missing --tasks on the second line of extra-args exits 2 naming it",
        )

        print("== 6. inputs that cannot be used are refused before evogate runs or anything is removed")
        refusals = Job(base, "refusals", 0, {}, api)
        (refusals.workspace / "notes").mkdir()
        (refusals.workspace / "notes" / "todo.txt").write_text("keep me\n")
        for bad_inputs, needle in [
            ({"allow-missing": "yes"}, "allow-missing is `yes`"),
            ({"report-dir": "."}, "cannot be removed safely"),
            ({"report-dir": "sub/.."}, "cannot be removed safely"),
            ({"ledger": "eval/ledger.jsonl", "manifest": ""}, "ledger needs manifest"),
            ({"summary": "s.json"}, "not both"),
            ({"report-dir": "runs"}, "report-dir `runs` is or holds the baseline `runs/baseline-scores.csv`"),
            ({"report-dir": "eval", "tasks": "eval/split/holdout.csv"},
             "report-dir `eval` is or holds the tasks `eval/split/holdout.csv`"),
            ({"report-dir": "eval/split", "extra-args": "--strata=kind\n--tasks eval/split/holdout.csv"},
             "is or holds `eval/split/holdout.csv` (from extra-args)"),
            ({"report-dir": ".git"}, "report-dir `.git` is or holds the checkout's .git"),
            ({"report-dir": str(refusals.temp)}, "is or holds the runner's temporary folder (RUNNER_TEMP)"),
            ({"report-dir": "notes"}, "report-dir `notes` holds `todo.txt`, which is no part of an evogate report"),
        ]:
            refusals.inputs = {
                "baseline": "runs/baseline-scores.csv",
                "candidate": "runs/candidate-scores.csv",
                **bad_inputs,
            }
            before = every_file(refusals.workspace)
            runner = every_file(refusals.temp)
            refusals.run(action, after_install)
            check(
                refusals.statuses[0] == ("evogate admit", 2) and needle in refusals.log
                and every_file(refusals.workspace) == before
                and runner <= every_file(refusals.temp),
                f"{bad_inputs}: exit 2, `{needle}`; every file of the workspace ({len(before)}, "
                ".git included) and of RUNNER_TEMP is still there",
            )

        print("== 7. the comment step with a personal token edits its own user's comment")
        step = next(s for s in steps if s.get("name") == "Comment on the pull request")
        FakeGitHub.comments.clear()
        marker = "<!-- evogate-admit gate -->"
        FakeGitHub.comments[5] = {"id": 5, "body": f"{marker}\nplanted", "user": {"login": "mallory"}}
        FakeGitHub.comments[9] = {"id": 9, "body": f"{marker}\nold", "user": {"login": "gatekeeper"}}
        report_md = base / "report.md"
        report_md.write_text("## evogate admit: refused\n")
        env = dict(
            os.environ, COMMENT="true", GITHUB_TOKEN="pat-gatekeeper", REPORT_MARKDOWN=str(report_md),
            MARKER="gate", GITHUB_EVENT_PATH=str(refusals.event), GITHUB_API_URL=api,
            GITHUB_REPOSITORY="owner/skills", GITHUB_ACTION_PATH=str(ROOT),
        )
        calls = len(FakeGitHub.calls)
        done = subprocess.run(["bash", "-c", step["run"]], env=env, capture_output=True, text=True)
        made = FakeGitHub.calls[calls:]
        check(
            done.returncode == 0 and ("PATCH", "/repos/owner/skills/issues/comments/9") in made
            and not any(c[0] in ("POST", "PATCH") and c[1].endswith("/5") for c in made)
            and FakeGitHub.comments[5]["body"] == f"{marker}\nplanted"
            and FakeGitHub.comments[9]["body"] == f"{marker}\n## evogate admit: refused\n",
            f"the token's user's comment 9 is edited, mallory's comment 5 is not: {made}",
        )
    finally:
        server.shutdown()
        shutil.rmtree(base, ignore_errors=True)
    print(f"{len(CHECKS)} passed, 0 failed")


if __name__ == "__main__":
    main()
