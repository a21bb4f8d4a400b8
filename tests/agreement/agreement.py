"""Agreement of evogate's `numeric`, `choice` and `short` verifiers with the official
scorers, on answer strings phrased as models phrase them (made here from a seeded
generator) and on the outputs in the real eval logs under tests/data/formats/.

References, each run here on the same strings:
- numeric, MATH/AIME-style strings: math-verify 0.9.0 (`parse`, `verify`);
- numeric, GSM8K-style strings: lm-eval's gsm8k filters, `strict-match` on strings that
  hold `####`, `flexible-extract` on the others, then its `exact_match` (regexes copied
  from lm_eval/tasks/gsm8k/gsm8k.yaml);
- choice: Inspect's `choice()` scorer's answer parsing (`ANSWER: X`) and lm-eval's
  MMLU-Pro filter (`answer is \\(?([ABCDEFGHIJ])\\)?`);
- short: SQuAD v1.1's EM and F1, written out below from its evaluate-v1.1.py.

Every disagreement must fall into a class listed in CLASSES (each with why evogate's
grade is the right one; docs/grading.md carries the same list), and agreement must
reach its floor in FLOORS. Usage: python agreement.py EVOGATE_BINARY [--report]; exits 1 on failure.
"""

from __future__ import annotations

import collections
import csv
import json
import os
import random
import re
import string
import subprocess
import sys
import tempfile

import suites

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = os.path.join(HERE, "..", "data", "formats")
# Agreement each reference must reach. The figures depend on the mix of phrasings
# (every template equally often, many of them the edge cases where the scorers part
# ways), so each floor sits a few points under this seed's figure: a change in how either
# side reads an answer shows. The real logs must agree throughout.
FLOORS = {
    "lm-eval flexible-extract": 0.77,
    "lm-eval strict-match (strings with ####)": 0.50,
    "math-verify": 0.97,
    "inspect choice() (strings with ANSWER:)": 0.97,
    "lm-eval mmlu_pro (strings with `answer is`)": 0.71,
    # 25.0% since evogate reads the letter before a reason (`I choose A because ...`
    # is A, not the article): HELM reads only a bare letter.
    "HELM exact letter (the rest)": 0.22,
    "inspect log": 1.0,
    "helm log": 1.0,
    # 47.0% since evogate reads `It is Tokyo.` as Tokyo and counts the words beside an
    # alias as other answers offered: both are classes below, not errors.
    "squad": 0.44,
}
SEED = 31
PER_VERIFIER = 1200

# --- the references -------------------------------------------------------------------

# lm_eval/tasks/gsm8k/gsm8k.yaml (EleutherAI/lm-evaluation-harness, version 3.0).
GSM8K_STRICT = r"#### (\-?[0-9\.\,]+)"
GSM8K_FLEXIBLE = r"(-?[$0-9.,]{2,})|(-?[0-9]+)"
GSM8K_IGNORE = [",", "\\$", "(?s).*#### ", "\\.$"]


def gsm8k_filter(text: str, pattern: str, group_select: int) -> str:
    """lm-eval's RegexFilter then take_first."""
    matches = re.findall(pattern, text)
    if not matches:
        return "[invalid]"
    match = matches[group_select]
    if isinstance(match, tuple):
        match = [m for m in match if m]
        match = match[0] if match else "[invalid]"
    return match.strip()


def gsm8k_exact_match(prediction: str, gold: str) -> bool:
    """lm-eval's exact_match with the task's ignore_case and regexes_to_ignore."""
    for pattern in GSM8K_IGNORE:
        prediction = re.sub(pattern, "", prediction)
        gold = re.sub(pattern, "", gold)
    return prediction.lower() == gold.lower()


def gsm8k_reference(output: str, gold: str) -> tuple[bool, str]:
    if "####" in output:
        return gsm8k_exact_match(gsm8k_filter(output, GSM8K_STRICT, 0), gold), "strict-match"
    return gsm8k_exact_match(gsm8k_filter(output, GSM8K_FLEXIBLE, -1), gold), "flexible-extract"


def math_verify_reference(output: str, gold_latex: str) -> bool:
    from math_verify import parse, verify

    return bool(verify(parse(f"${gold_latex}$"), parse(output)))


def inspect_choice(output: str, letters: str) -> set:
    """Inspect's multiple_choice scorer, single answer: `ANSWER: X` strictly on a line
    of its own, else anywhere; the letter must be one of the options."""
    match = re.search(r"(?i)^ANSWER\s*:\s*([A-Za-z\d ,]+)\s*(?:$|\n|\.)", output, flags=re.MULTILINE)
    if match is None:
        match = re.search(r"(?i)ANSWER\s*:\s*([A-Za-z\d ,]+)(?:[^\w]|\n|$|\.)", output)
    if match is None:
        return set()
    matched = match.group(1).strip().rstrip(".")
    return {matched} if matched in letters else set()


def mmlu_pro_choice(output: str) -> set:
    """lm-eval's mmlu_pro filter: the first `answer is (X)`."""
    match = re.search(r"answer is \(?([ABCDEFGHIJ])\)?", output)
    return {match.group(1)} if match else set()


def squad_normalize(text: str) -> str:
    """SQuAD v1.1 evaluate-v1.1.py, normalize_answer."""

    def remove_articles(t):
        return re.sub(r"\b(a|an|the)\b", " ", t)

    def white_space_fix(t):
        return " ".join(t.split())

    def remove_punc(t):
        exclude = set(string.punctuation)
        return "".join(ch for ch in t if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(text.lower())))


def squad_f1(prediction: str, gold: str) -> float:
    prediction_tokens = squad_normalize(prediction).split()
    gold_tokens = squad_normalize(gold).split()
    common = collections.Counter(prediction_tokens) & collections.Counter(gold_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = num_same / len(prediction_tokens)
    recall = num_same / len(gold_tokens)
    return (2 * precision * recall) / (precision + recall)


def squad_reference(output: str, golds: list) -> tuple[bool, float]:
    em = max(squad_normalize(output) == squad_normalize(g) for g in golds)
    return em, max(squad_f1(output, g) for g in golds)


# --- the strings ------------------------------------------------------------------------

NOUNS = ["apples", "eggs", "marbles", "tickets", "books", "cookies", "stamps", "pencils"]
NAMES = ["Maya", "Tom", "Aisha", "Luis", "Jin", "Olga", "Sam", "Priya"]


def gsm8k_working(rng: random.Random, answer: int) -> str:
    a, b = rng.randint(2, 30), rng.randint(2, 12)
    name, noun = rng.choice(NAMES), rng.choice(NOUNS)
    lines = [
        f"{name} buys {a} packs of {b} {noun}, so {a} * {b} = <<{a}*{b}={a*b}>>{a*b} {noun}.",
        f"Then {name} gives away {a*b - answer if a*b > answer else 3} {noun}.",
    ]
    return "\n".join(lines[: rng.randint(1, 2)])


def money(rng: random.Random, value: int) -> str:
    form = rng.randint(0, 3)
    if form == 0:
        return str(value)
    if form == 1:
        return f"{value:,}"
    if form == 2:
        return f"${value:,}"
    return f"${value}"


def gsm8k_cases(rng: random.Random, count: int) -> list:
    cases = []
    templates = [
        "hashes", "hashes_units", "answer_is", "last_sentence", "bare", "wrong_hashes",
        "wrong_last", "hedge_hashes", "hedge_answer_is", "boxed", "list", "trailing_number",
        "hashes_decimal", "evasive", "answer_colon",
    ]
    for i in range(count):
        gold = rng.choice([rng.randint(2, 99), rng.randint(100, 999), rng.randint(1000, 99999)])
        working = gsm8k_working(rng, gold)
        other = gold + rng.choice([-10, -2, -1, 1, 3, 12])
        template = templates[i % len(templates)]
        shown = money(rng, gold)
        output = {
            "hashes": f"{working}\n#### {shown}",
            "hashes_units": f"{working}\n#### {gold} {rng.choice(NOUNS)}",
            "answer_is": f"{working}\nThe answer is {shown}.",
            "last_sentence": f"{working}\nSo there are {shown} {rng.choice(NOUNS)} left.",
            "bare": shown,
            "wrong_hashes": f"{working}\n#### {other}",
            "wrong_last": f"{working}\nSo the total is {other}.",
            "hedge_hashes": f"{working}\n#### {gold} {other}",
            "hedge_answer_is": f"{working}\nThe answer is {gold} or {other}.",
            "boxed": f"{working}\nThe answer is $\\boxed{{{gold}}}$.",
            "list": ", ".join(str(v) for v in sorted({gold, other, gold + 5, max(gold - 7, 0)})),
            "trailing_number": f"The answer is {gold}. I checked it 2 times.",
            "hashes_decimal": f"{working}\n#### {gold}.00",
            "evasive": "I am not able to work this out without more information about the problem.",
            "answer_colon": f"{working}\nAnswer: {shown}",
        }[template]
        cases.append({
            "truth": str(gold),
            "output": output,
            "template": template,
            "gold": f"Working: 2 + 2 = 4\n#### {gold}",
        })
    return cases


def math_gold(rng: random.Random):
    """A gold answer as evogate's truth writes it and as LaTeX for math-verify."""
    kind = rng.randint(0, 4)
    if kind == 0:
        n = rng.randint(0, 999)
        return str(n), str(n), [f"{n}", f"{n + rng.choice([1, 2, 10])}"]
    if kind == 1:
        a, b = rng.randint(1, 20), rng.choice([3, 7, 9, 11, 13])
        if a % b == 0:
            a += 1
        return f"{a}/{b}", f"\\frac{{{a}}}{{{b}}}", [f"\\frac{{{a}}}{{{b}}}", f"\\frac{{{a + 1}}}{{{b}}}"]
    if kind == 2:
        v = rng.randint(1, 99) / 4
        if v == int(v):
            v += 0.25
        return str(v), str(v), [str(v), str(v + 1)]
    if kind == 3:
        n = -rng.randint(1, 99)
        return str(n), str(n), [str(n), str(-n)]
    a = rng.randint(1, 9)
    return f"{a}/2", f"\\frac{{{a}}}{{2}}" if a % 2 else str(a // 2), [f"\\frac{{{a}}}{{2}}", f"{a / 2 + 1}"]


def math_cases(rng: random.Random, count: int) -> list:
    templates = [
        "boxed_final", "boxed_inline", "answer_is", "final_answer_colon", "boxed_wrong",
        "two_boxes", "boxed_equation", "bare", "boxed_decimal_form", "last_number",
        "dfrac", "boxed_hedge_text",
    ]
    cases = []
    for i in range(count):
        truth, latex, (right, wrong) = math_gold(rng)
        template = templates[i % len(templates)]
        step = f"We have $x^2 - {rng.randint(2, 9)}x + {rng.randint(1, 9)} = 0$, so we simplify."
        decimal = right
        if right.startswith("\\frac"):
            a, b = re.findall(r"\d+", right)
            decimal = repr(int(a) / int(b))
        output = {
            "boxed_final": f"{step}\nTherefore, the final answer is $\\boxed{{{right}}}$.",
            "boxed_inline": f"$\\boxed{{{right}}}$",
            "answer_is": f"{step}\nThe answer is ${right}$.",
            "final_answer_colon": f"{step}\nFinal Answer: The final answer is ${right}$. I hope it is correct.",
            "boxed_wrong": f"{step}\nSo the answer is $\\boxed{{{wrong}}}$.",
            "two_boxes": f"Either $\\boxed{{{right}}}$ or $\\boxed{{{wrong}}}$.",
            "boxed_equation": f"{step}\n$\\boxed{{x = {right}}}$",
            "bare": f"${right}$",
            "boxed_decimal_form": f"{step}\n$\\boxed{{{decimal}}}$",
            "last_number": f"{step} Hence $x = {right}$.",
            "dfrac": f"{step}\n$\\boxed{{{right.replace('frac', 'dfrac')}}}$",
            "boxed_hedge_text": f"$\\boxed{{{right} \\text{{ or }} {wrong}}}$",
        }[template]
        cases.append({"truth": truth, "latex": latex, "output": output, "template": template})
    return cases


OPTION_WORDS = [
    "safety goggles", "rubber gloves", "breathing mask", "lead apron", "sunlight", "soil",
    "carbon dioxide", "oxygen", "mitosis", "meiosis", "granite", "basalt", "a magnet",
    "a prism", "the moon", "the sun", "evaporation", "condensation", "friction", "gravity",
    "photosynthesis", "respiration", "bone cells", "ovary cells", "kinetic energy",
]


def choice_cases(rng: random.Random, count: int) -> list:
    templates = [
        "letter", "paren", "period", "answer_colon", "inspect_line", "answer_is",
        "answer_is_paren", "text", "reasoning_then_answer", "wrong_letter", "hedge_two",
        "every_letter", "discussion_no_answer", "bold", "answer_letter_text", "i_choose",
        "wrong_answer_is", "think_then_letter",
    ]
    cases = []
    for i in range(count):
        n = 10 if i % 7 == 0 else 4
        letters = "ABCDEFGHIJ"[:n]
        texts = rng.sample(OPTION_WORDS, 4) + [f"option text {k}" for k in range(n - 4)]
        right = rng.randrange(n)
        wrong = (right + rng.randint(1, n - 1)) % n
        r, w = letters[right], letters[wrong]
        template = templates[i % len(templates)]
        discussion = "\n".join(f"{letters[k]}) {texts[k]} - possible, but consider the others." for k in range(n))
        output = {
            "letter": r,
            "paren": f"({r})",
            "period": f"{r}.",
            "answer_colon": f"Answer: {r}",
            "inspect_line": f"Let me think about each option.\n\nANSWER: {r}",
            "answer_is": f"The answer is {r}.",
            "answer_is_paren": f"The answer is ({r}).",
            "text": texts[right].capitalize(),
            "reasoning_then_answer": f"{discussion}\n\nThe best fit is {texts[right]}.\n\nANSWER: {r}",
            "wrong_letter": f"ANSWER: {w}",
            "hedge_two": f"The answer is {r} or {w}.",
            "every_letter": "ANSWER: " + ", ".join(letters[:4]),
            "discussion_no_answer": discussion,
            "bold": f"**{r}**",
            "answer_letter_text": f"Answer: {r}) {texts[right]}",
            "i_choose": f"I choose {r} because it fits best.",
            "wrong_answer_is": f"After checking, the answer is ({w}).",
            "think_then_letter": f"Thinking it over, {texts[right]} is right.\n{r}",
        }[template]
        cases.append({
            "answer": r,
            "options": "|".join(texts),
            "letters": letters,
            "output": output,
            "template": template,
        })
    return cases


ENTITIES = [
    ["Paris"], ["Marie Curie"], ["1969"], ["the Pacific Ocean", "Pacific"],
    ["Leonardo da Vinci", "da Vinci"], ["Mount Everest", "Everest"], ["4 July 1776", "July 4, 1776"],
    ["the Beatles"], ["Amazon River", "Amazon"], ["Isaac Newton", "Newton"], ["oxygen"],
    ["New York City", "NYC"], ["Jane Austen"], ["the Treaty of Versailles"], ["Tokyo"],
    ["William Shakespeare", "Shakespeare"], ["Nile"], ["Ada Lovelace"], ["42"], ["Canberra"],
]


def short_cases(rng: random.Random, count: int) -> list:
    templates = [
        "exact", "lower", "punct", "article", "answer_is", "answer_colon", "partial",
        "superset", "wrong", "hedge", "verbose", "refusal", "first_line", "sentence",
        "reordered",
    ]
    cases = []
    for i in range(count):
        golds = rng.choice(ENTITIES)
        gold = golds[0]
        other = rng.choice([e for e in ENTITIES if e != golds])[0]
        words = gold.split()
        template = templates[i % len(templates)]
        filler = "This is a question on which sources differ and many details matter. "
        output = {
            "exact": gold,
            "lower": gold.lower(),
            "punct": f"{gold}.",
            "article": f"The {gold}" if not gold.startswith("the ") else gold[4:],
            "answer_is": f"The answer is {gold}.",
            "answer_colon": f"Answer: {gold}",
            "partial": " ".join(words[:-1]) if len(words) > 1 else f"{gold} City",
            "superset": f"{gold} in {rng.choice(['Europe', 'history', 'the 1900s'])}",
            "wrong": other,
            "hedge": f"{gold} or {other}",
            "verbose": filler * 4 + f"Perhaps {gold}.",
            "refusal": "I don't know.",
            "first_line": f"{gold}\n\nThis is well documented in {other} records.",
            "sentence": f"It is {gold}.",
            "reordered": " ".join(reversed(words)) if len(words) > 1 else gold,
        }[template]
        cases.append({"answer": "|".join(golds), "golds": golds, "output": output, "template": template})
    return cases


# --- the real logs ----------------------------------------------------------------------


def real_gsm8k() -> list:
    cases = []
    folder = os.path.join(FORMATS, "lm-eval")
    for name in sorted(os.listdir(folder)):
        if not name.startswith("samples_gsm8k"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            for line in handle:
                sample = json.loads(line)
                gold = sample["target"].split("####")[-1].strip().replace(",", "")
                cases.append({
                    "truth": gold,
                    "output": sample["resps"][0][0],
                    "template": f"lm-eval log {sample['filter']}",
                    "gold": sample["target"],
                    "logged": bool(sample["exact_match"]),
                })
    return cases


def real_choice() -> list:
    cases = []
    folder = os.path.join(FORMATS, "inspect")
    for name in ("data_arc_qwen.json", "data_arc_sonnet.json"):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            log = json.load(handle)
        for sample in log["samples"]:
            content = sample["output"]["choices"][0]["message"]["content"]
            text = content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
            letters = "ABCDEFGHIJ"[: len(sample["choices"])]
            cases.append({
                "answer": sample["target"],
                "options": "|".join(sample["choices"]),
                "letters": letters,
                "output": text,
                "template": "inspect log",
                "logged": sample["scores"]["choice"]["answer"] == sample["target"],
            })
    helm = os.path.join(FORMATS, "helm", "mmlu-subject=philosophy,method=multiple_choice_joint,model=openai_gpt2")
    with open(os.path.join(helm, "scenario_state.json"), encoding="utf-8") as handle:
        state = json.load(handle)
    for request in state["request_states"]:
        mapping = request["output_mapping"]
        letters = "".join(sorted(mapping))
        right = [k for k, ref in zip(letters, request["instance"]["references"]) if "correct" in ref["tags"]]
        completion = request["result"]["completions"][0]["text"]
        cases.append({
            "answer": right[0],
            "options": "|".join(mapping[k] for k in letters),
            "letters": letters,
            "output": completion,
            "template": "helm log",
            "logged": completion.strip() == right[0],
        })
    return cases


# --- grading with evogate ---------------------------------------------------------------


def grade_all(binary: str, verifier: str, header: list, rows: list, outputs: list) -> list:
    with tempfile.TemporaryDirectory() as folder:
        truth = os.path.join(folder, "truth.csv")
        with open(truth, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows(rows)
        requests = "".join(
            json.dumps({"task_id": f"c{i}:{row[1]}", "output": output}) + "\n"
            for i, (row, output) in enumerate(zip(rows, outputs))
        )
        done = subprocess.run(
            [binary, "grade", "--jsonl", "--truth", truth, "--verifier", verifier],
            input=requests, capture_output=True, text=True, encoding="utf-8", check=True,
        )
    grades = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(grades) == len(outputs), done.stderr
    for grade in grades:
        assert "error" not in grade, grade
    return grades


# Why evogate's grade is the right one, for each kind of disagreement. A disagreement is
# put in the first class whose test it meets; one that meets none fails the check.
CLASSES = {
    "hedge": "evogate: two or more different final answers offered (`#### 41 42`, "
    "`41 or 42`, two boxes, `B or C`, `Paris or Lyon`) are a hedge, 0.5 and not correct; "
    "the reference takes one of them and may count it right",
    "no choice": "evogate: naming more than half the options is no choice; the reference "
    "reads the first letter of the list",
    "after a marker": "evogate reads the answer after `the answer is`/`Answer:`; the "
    "reference reads the whole string (SQuAD), another place (flexible-extract's last "
    "number, which may be a number said after the answer), or knows no such phrase "
    "(Inspect knows only `ANSWER:`, MMLU-Pro only `answer is`)",
    "answer format": "evogate reads a letter alone (`B`, `(B)`, `**B**`), an option's "
    "text, a number with units or a trailing `.00`, or `\\boxed{x = 5}`; the reference's "
    "pattern does not",
    "verbose or refusal": "evogate: an answer too long to be a short answer, or a refusal, "
    "is no answer (0); SQuAD's F1 gives it a sliver of credit",
    "first line": "evogate reads a multi-line answer's first line; SQuAD's F1 dilutes it "
    "with the explanation below",
    "reordered": "evogate caps F1 credit at 0.99 so only an exact match is correct; SQuAD's "
    "F1 is 1 for the same words in another order",
    "lead-in": "evogate reads the answer after the words that only lead into it "
    "(`It is Tokyo.` is Tokyo); SQuAD compares the whole sentence (EM 0, F1 0.5)",
    "padded": "evogate counts each word beside an alias as another answer offered, 1/(1+m) "
    "for m of them (`Tokyo City` 0.5), since a short answer's words cannot be told from a "
    "list of one-word guesses; SQuAD's F1, 2/(2+m), pays such a list more than guessing",
    "reference reads too little": "math-verify stops at the first unparseable step or "
    "reads the first of two boxes; evogate reads the final answer",
}


def classify(verifier: str, name: str, case: dict, grade: dict, reference) -> str | None:
    if name in suites.NAMES or name.startswith(suites.HAND):
        return suites.classify(verifier, name, case, grade, reference)
    feedback = grade["feedback"]
    output = case["output"]
    if feedback.startswith("hedged"):
        return "hedge"
    if feedback.startswith("named "):
        return "no choice"
    if feedback.startswith(("no short answer", "no answer given")):
        return "verbose or refusal"
    if verifier == "short":
        em, f1 = reference
        if grade["correctness"] == 0.99 and f1 == 1.0:
            return "reordered"
        if feedback.startswith("partial:") and re.search(r" with \d+ other words?;", feedback):
            return "padded"
        if grade["correct"] and re.match(r"(?i)\s*(it is|it's|that is|this is)\b", output):
            return "lead-in"
        better = grade["correctness"] >= f1
        if better and re.search(r"(?i)\banswer\b\s*(is\b|[:=])", output):
            return "after a marker"
        if better and "\n" in output.strip():
            return "first line"
        return None
    marker = re.search(r"(?i)\banswer\b[*_]*\s*(is\b|would be|[:=])|\bI choose\b", output)
    if verifier == "choice":
        if grade["correct"] and marker is None:
            return "answer format"
        if grade["correct"] and marker and name.startswith("HELM"):
            return "after a marker"
        return None
    # numeric
    if not grade["correct"]:
        return None
    if case.get("latex") is not None:
        return "reference reads too little"
    if marker or "\\boxed" in output:
        return "after a marker" if marker else "answer format"
    if grade["correct"] and re.search(r"####\s*(\$|\S+\s+[A-Za-z])|\.00\b", output):
        return "answer format"
    return None


def check(binary: str) -> tuple:
    """The rows (reference, case, evogate's grade, reference's verdict) per verifier,
    and the official scorers' verdicts on the class strings (suites.py)."""
    rng = random.Random(SEED)
    results = {}
    on_labels = {}
    this = sys.modules[__name__]

    # numeric: GSM8K style against lm-eval, MATH/AIME style against math-verify.
    gsm = gsm8k_cases(rng, PER_VERIFIER // 2) + real_gsm8k()
    math = math_cases(rng, PER_VERIFIER // 2)
    numeric = gsm + math
    grades = grade_all(
        binary, "numeric", ["group", "kind", "question", "answer"],
        [[f"c{i}", "n", "q", c["truth"]] for i, c in enumerate(numeric)],
        [c["output"] for c in numeric],
    )
    rows = []
    for case, grade in zip(numeric, grades):
        if "latex" in case:
            rows.append(("math-verify", case, grade, math_verify_reference(case["output"], case["latex"])))
            continue
        flexible = gsm8k_exact_match(gsm8k_filter(case["output"], GSM8K_FLEXIBLE, -1), case["gold"])
        rows.append(("lm-eval flexible-extract", case, grade, flexible))
        if "####" in case["output"]:
            strict = gsm8k_exact_match(gsm8k_filter(case["output"], GSM8K_STRICT, 0), case["gold"])
            rows.append(("lm-eval strict-match (strings with ####)", case, grade, strict))
            if "logged" in case:
                assert strict == case["logged"], ("the lm-eval log disagrees with its filter", case)
    more, on_labels["numeric"] = suites.numeric_rows(binary, this)
    results["numeric"] = rows + more

    choice = choice_cases(rng, PER_VERIFIER) + real_choice()
    grades = grade_all(
        binary, "choice", ["group", "kind", "question", "answer", "options"],
        [[f"c{i}", "c", "q", c["answer"], c["options"]] for i, c in enumerate(choice)],
        [c["output"] for c in choice],
    )
    rows = []
    for case, grade in zip(choice, grades):
        output = case["output"]
        if "logged" in case:
            rows.append((case["template"], case, grade, case["logged"]))
        elif re.search(r"(?i)ANSWER\s*:", output):
            chosen = inspect_choice(output, case["letters"])
            rows.append(("inspect choice() (strings with ANSWER:)", case, grade, chosen == {case["answer"]}))
        elif "answer is" in output:
            chosen = mmlu_pro_choice(output)
            rows.append(("lm-eval mmlu_pro (strings with `answer is`)", case, grade, chosen == {case["answer"]}))
        else:
            rows.append(("HELM exact letter (the rest)", case, grade, output.strip() == case["answer"]))
    more, on_labels["choice"] = suites.choice_rows(binary, this)
    results["choice"] = rows + more

    short = short_cases(rng, PER_VERIFIER)
    grades = grade_all(
        binary, "short", ["group", "kind", "question", "answer"],
        [[f"c{i}", "s", "q", c["answer"]] for i, c in enumerate(short)],
        [c["output"] for c in short],
    )
    rows = []
    for case, grade in zip(short, grades):
        em, f1 = squad_reference(case["output"], case["golds"])
        rows.append(("squad", case, grade, (em, f1)))
    more, on_labels["short"] = suites.short_rows(binary, this)
    results["short"] = rows + more
    return results, on_labels


def agrees(verifier: str, grade: dict, reference) -> bool:
    if isinstance(reference, suites.Label):
        return suites.label_met(grade, reference)
    if verifier == "short":
        em, f1 = reference
        if em or grade["correct"]:
            return bool(em) == bool(grade["correct"])
        return abs(grade["correctness"] - f1) < 1e-9
    return bool(grade["correct"]) == bool(reference)


def main() -> int:
    binary = sys.argv[1]
    results, on_labels = check(binary)
    failed = False
    for verifier, rows in results.items():
        by_reference = collections.defaultdict(lambda: [0, 0])
        classes = collections.Counter()
        strings = len({id(case) for _, case, _, _ in rows})
        for name, case, grade, reference in rows:
            tally = by_reference[name]
            tally[1] += 1
            if agrees(verifier, grade, reference):
                tally[0] += 1
                continue
            found = classify(verifier, name, case, grade, reference)
            classes[found] += 1
            if found is None:
                failed = True
                print(f"UNCLASSIFIED {verifier} [{name}] {case['template']}: {case['output']!r} -> "
                      f"evogate {grade['correctness']} ({grade['feedback']}), reference {reference}")
            elif found == "known miss":
                print(f"known miss {verifier} [{name}]: {case['output']!r} -> evogate {grade['correctness']} "
                      f"({grade['feedback']}): {suites.known_miss(verifier, case['output'])}")
        print(f"{verifier}: {strings} strings")
        for name, (agree, total) in sorted(by_reference.items()):
            rate = agree / total
            print(f"  {name}: {agree}/{total} agree ({rate:.1%})")
            floor = FLOORS[name] if name in FLOORS else suites.FLOORS[name]
            if rate < floor:
                failed = True
                print(f"  FAIL: agreement with {name} below the floor {floor:.0%}")
        for name, count in sorted(classes.items(), key=lambda item: str(item[0])):
            print(f"  disagreement class {name}: {count}")
        if strings < 1000:
            failed = True
            print(f"  FAIL: fewer than 1,000 strings for {verifier}")
        for line in suites.summary(verifier, rows):
            print(line)
        for name, by_class in sorted(suites.references_on_labels(on_labels[verifier]).items()):
            cells = ", ".join(f"{c} {a}/{t}" for c, (a, t) in sorted(by_class.items()))
            agree = sum(a for a, _ in by_class.values())
            total = sum(t for _, t in by_class.values())
            print(f"  (reference) {name} against the hand labels: {agree}/{total} ({cells})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
