"""Generators of the hostile-3 inputs: lm-eval lines, Inspect logs and archives, scores
CSVs, oaieval logs. Standard library only; every random choice is seeded."""

from __future__ import annotations

import csv
import json
import random
import zipfile
from pathlib import Path

from common import FORMATS

LM_EVAL = FORMATS / "lm-eval" / "samples_gsm8k_2025-09-09T13-31-53.431753.jsonl"
LM_EVAL_RESULTS = FORMATS / "lm-eval" / "results_2025-09-09T13-31-53.431753.json"
INSPECT_EVAL = FORMATS / "inspect" / "log_read_sample.eval"
OAIEVAL = next((FORMATS / "openai-evals").glob("*.jsonl"))
PROMPTFOO = FORMATS / "promptfoo" / "sample-export.subset.json"
HELM = next((FORMATS / "helm").iterdir())
GEPA = FORMATS / "dspy" / "gepa_result_v2.json"
VALSET = FORMATS / "dspy" / "gepa_valset.json"


def lm_line(doc_id, score=1.0, doc_hash=None, pad="", filter_="strict-match") -> str:
    """One lm-eval `--log_samples` line, in the shape of the shipped gsm8k log."""
    h = doc_hash if doc_hash is not None else f"{hash_of(doc_id):064x}"
    return json.dumps(
        {
            "doc_id": doc_id,
            "doc": {"question": f"q{doc_id}" + pad, "answer": "#### 1"},
            "target": "1",
            "arguments": {},
            "resps": [["1"]],
            "filtered_resps": ["1"],
            "filter": filter_,
            "metrics": ["exact_match"],
            "doc_hash": h,
            "prompt_hash": "0" * 64,
            "target_hash": "0" * 64,
            "exact_match": score,
        }
    )


def hash_of(value) -> int:
    import hashlib

    return int(hashlib.sha256(str(value).encode()).hexdigest(), 16)


def lm_log(path: Path, n: int, seed: int = 1, doc_salt: str = "", pad: int = 0) -> Path:
    """n lm-eval lines with 0/1 scores; doc_salt changes every document hash."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(n):
            f.write(lm_line(i, float(rng.random() < 0.5), f"{hash_of(doc_salt + str(i)):064x}", "p" * pad) + "\n")
    return path


def inspect_header(task="popularity", dataset=None) -> dict:
    with zipfile.ZipFile(INSPECT_EVAL) as z:
        header = json.loads(z.read("header.json"))
    header["eval"]["task"] = task
    if dataset is not None:
        header["eval"]["dataset"]["name"] = dataset
    return header


def inspect_sample(id_, value="C", epoch=1, input_="q") -> dict:
    return {"id": id_, "epoch": epoch, "input": input_, "target": "C", "scores": {"match": {"value": value}}}


def eval_zip(path: Path, members: list) -> Path:
    """An Inspect `.eval` archive from (name, bytes or str or dict) members, in order."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in members:
                if isinstance(data, dict):
                    data = json.dumps(data)
                z.writestr(name, data)
    return path


def eval_log(path: Path, samples: list, task="popularity", dataset=None) -> Path:
    members = [("header.json", inspect_header(task, dataset))]
    for s in samples:
        members.append((f"samples/{s['id']}_epoch_{s['epoch']}.json", s))
    return eval_zip(path, members)


def eval_bomb(path: Path, gib: int) -> Path:
    """A `.eval` whose one sample member inflates to `gib` GiB of 'a' (appendix, F5)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps(inspect_header()))
        with z.open("samples/1_epoch_1.json", "w", force_zip64=True) as w:
            w.write(b'{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}, "pad": "')
            chunk = b"a" * (1 << 24)
            for _ in range(64 * gib):
                w.write(chunk)
            w.write(b'"}')
    return path


def scores_csv(path: Path, rows: list, columns: list) -> Path:
    """A CSV with LF line ends; a cell holding a comma, quote, CR or LF is quoted (the
    csv module would leave a lone CR bare with an LF terminator)."""

    def cell(v) -> str:
        s = str(v)
        if any(ch in s for ch in ',"\r\n'):
            return '"' + s.replace('"', '""') + '"'
        return s

    with open(path, "w", newline="", encoding="utf-8") as f:
        for r in [columns] + list(rows):
            f.write(",".join(cell(v) for v in r) + "\n")
    return path


def read_csv(path: Path) -> list:
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        return list(csv.reader(f))


def paired_arms(folder: Path, n: int, p_base=0.5, p_cand=0.5, seed=7, ids=None, groups=None, kinds=None,
                feedback=None, correct=True) -> tuple:
    """Two scores files on the same n tasks with independent 0/1 outcomes."""
    rng = random.Random(seed)
    cols = ["task_id", "group", "kind", "correct", "score", "feedback"]
    b, c = [], []
    for i in range(n):
        tid = ids[i] if ids else f"t{i}"
        g = groups[i] if groups else f"g{i // 4}"
        k = kinds[i] if kinds else f"k{i % 3}"
        fb = feedback[i] if feedback else f"fb{i}"
        xb = int(rng.random() < p_base)
        xc = int(rng.random() < p_cand)
        b.append([tid, g, k, xb, xb, fb])
        c.append([tid, g, k, xc, xc, fb])
    return scores_csv(folder / "b.csv", b, cols), scores_csv(folder / "c.csv", c, cols)


def oaieval_lines() -> list:
    return OAIEVAL.read_text().splitlines()


def gepa(**changes) -> dict:
    d = json.loads(GEPA.read_text())
    d.update(changes)
    return d


def fuzz_lines(n: int, seed: int) -> list:
    """G14: 30% random bytes, 20% JSON-ish junk, 50% requests with hostile characters;
    every line non-blank and free of LF/CR."""
    rng = random.Random(seed)
    hostile = ["\0", "\x1b[2J", "\u202e", "\u200d", "\ufeff", "e\u0301", "\U0001f600", "\ue000", "\x9b"]
    junk = ['{"task_id":', "[1,2", '{"output": 3}', "null", '"x"', "{}", '{"task_id": 1, "output": "a"}']
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            line = bytes(rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randint(1, 60)))
            if not line.strip():
                line = b"x" + line
        elif r < 0.5:
            line = rng.choice(junk).encode()
        else:
            tid = rng.choice(["1406.2661:year", "1406.2661:title", "nope:year"]) + rng.choice(["", rng.choice(hostile)])
            output = "".join(rng.choice(hostile + ["2014", "GAN", " "]) for _ in range(rng.randint(0, 8)))
            line = json.dumps({"task_id": tid, "output": output}, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        out.append(line)
    return out
