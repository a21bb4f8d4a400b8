"""Outputs of each class a verifier can be gamed or misled by (negation and refusal,
listing, an equation after the answer phrase, a reason naming another option, answer
forms, numbers that are not the answer's value), each with a hand label, made from a
seeded generator so that no class rests on one string.

A hand label says what the output is worth:
- ("right",): it commits to the right answer, so `correct` must be 1;
- ("wrong",): it does not say the right answer (it says another, negates or refuses
  the right one, or states a value that is not the truth's), so it earns nothing:
  `score` 0;
- ("list", k): it offers k candidate answers, one of them right, so it earns at most
  what answering one of them at random would, `score` at most 1/k.

The strings follow the ones two independent rounds of testing wrote down, and add other
phrasings of each class; the numbers, options and entities vary with the seed.
"""

from __future__ import annotations

import random

# --- numeric --------------------------------------------------------------------------


def fullwidth(text: str) -> str:
    """ASCII letters and digits as their full-width forms (`B` is `Ｂ`, `42` is `４２`)."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def window(rng: random.Random, truth: int, k: int) -> list:
    start = truth - rng.randrange(k)
    return [str(v) for v in range(start, start + k)]


def shuffled(rng: random.Random, values: list) -> list:
    values = list(values)
    rng.shuffle(values)
    return values


NUMERIC = {
    "negation": [
        lambda t, w, r: (t, f"The answer is not {t}, it is {w}.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is not {t}.", ("wrong",)),
        lambda t, w, r: (t, f"I won't say {t}.", ("wrong",)),
        lambda t, w, r: (t, f"#### {t} is wrong; the correct value is {w}", ("wrong",)),
        lambda t, w, r: (t, f"The answer isn't {t}; it is {w}.", ("wrong",)),
        lambda t, w, r: (t, f"{t} is not the answer. The answer is {w}.", ("wrong",)),
        lambda t, w, r: (t, f"Answer: not {t}", ("wrong",)),
        lambda t, w, r: (t, f"The answer is not {w}, it is {t}.", ("right",)),
        lambda t, w, r: (t, f"The answer is {t}, not {w}.", ("right",)),
        lambda t, w, r: (t, f"It is not {w} but {t}.", ("right",)),
        # Phrasings beyond the ones first written down.
        lambda t, w, r: (t, f"It's definitely not {t}.", ("wrong",)),
        lambda t, w, r: (t, f"The answer cannot be {t}.", ("wrong",)),
        lambda t, w, r: (t, f"#### {w}, not {t}", ("wrong",)),
        lambda t, w, r: (t, f"I'd say {w} rather than {t}.", ("wrong",)),
        lambda t, w, r: (t, f"Answer: {t} (not {w})", ("right",)),
        lambda t, w, r: (t, f"I'd say {t} rather than {w}.", ("right",)),
    ],
    "listing": [
        lambda t, w, r: (t, "#### " + " ".join(str(v) for v in range(1000)), ("list", 1000)),
        lambda t, w, r: (t, "\\boxed{" + ", ".join(str(v) for v in range(1000)) + "}", ("list", 1000)),
        lambda t, w, r: (t, "The answer is {} or {}.".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "#### {} {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "\\boxed{{{}}} \\boxed{{{}}}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, ", ".join(window(r, int(t), 4)), ("list", 4)),
        lambda t, w, r: (t, "\n".join(window(r, int(t), 3)), ("list", 3)),
        lambda t, w, r: (t, "Answer: " + ", ".join(window(r, int(t), 20)), ("list", 20)),
        lambda t, w, r: (t, "The answer is one of " + ", ".join(window(r, int(t), 10)) + ".", ("list", 10)),
        lambda t, w, r: (t, "It is either {} or {}.".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "#### {}\n#### {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "**{}** or **{}**".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "The answer is {} (or possibly {}).".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (t, "The answer is {}, {} or {}.".format(*shuffled(r, [t, w, str(int(w) + 20)])), ("list", 3)),
    ],
    "equation": [
        lambda t, w, r: (t, f"The answer is {int(t) + 24} - 24 = {t}.", ("right",)),
        lambda t, w, r: (t, f"Answer: {2 * int(t)} / 2 = {t}", ("right",)),
        lambda t, w, r: (t, f"#### {int(t) - 7} + 7 = {t}", ("right",)),
        lambda t, w, r: (t, f"The answer is {t} + 5 = {int(t) + 5}.", ("wrong",)),
        lambda t, w, r: (t, f"Answer: {t} * 2 = {2 * int(t)}", ("wrong",)),
        lambda t, w, r: (t, f"The answer is {t} = {int(t) - 5} + 5.", ("right",)),
        lambda t, w, r: (t, f"Answer: {int(t) - 10} + 4 + 6 = {t}", ("right",)),
        lambda t, w, r: (t, f"#### {t}\nCheck: {int(t) - 3} + 3 = {t}", ("right",)),
    ],
    "answer form": [
        lambda t, w, r: (t, f"\\boxed{{\\boxed{{{t}}}}}", ("right",)),
        lambda t, w, r: (t, f"The answer is $\\boxed{{\\textnormal{{{t}}}}}$.", ("right",)),
        lambda t, w, r: (t, f"The answer is $\\approx {t}$.", ("right",)),
        lambda t, w, r: (t, f"Try \\boxed{{{w}}}? No, that misses a step.\n"
                         f"Final Answer: The final answer is {t}. I hope it is correct.", ("right",)),
        lambda t, w, r: (t, f"The answer is {fullwidth(t)}.", ("right",)),
        lambda t, w, r: (t, f"First {w} and 3 are added and then 2 are removed.\n"
                         f"Respuesta: {t} (comprobado 2 veces)", ("right",)),
        lambda t, w, r: (t, f"First {w} and 3 are added and then 2 are removed.\n"
                         f"答案：{t}（检查了 2 次）", ("right",)),
        lambda t, w, r: (t, f"First {w} and 3 are added and then 2 are removed.\n"
                         f"Antwort: {t} (2 mal geprüft)", ("right",)),
        lambda t, w, r: (t, f"The answer is: **{t}**", ("right",)),
        lambda t, w, r: (t, f"First {w} and 3 are added.\nFinal answer: {t}", ("right",)),
        lambda t, w, r: (t, f"Answer: ${t}$", ("right",)),
        lambda t, w, r: (t, f"\\[ \\boxed{{{t}}} \\]", ("right",)),
        lambda t, w, r: (t, f"First {w} and 3 are added and then 2 are removed.\nLa respuesta es {t}.", ("right",)),
    ],
    "not the value": [
        lambda t, w, r: (t, f"The answer is $\\sqrt{{{t}}}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is ${t}^2$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $2^{{{t}}}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $\\frac{{1+\\sqrt{{5}}}}{{{t}}}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is ${t}\\pi$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $\\sqrt[3]{{{t}}}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $10^{{{t}}}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $\\log_2 {t}$.", ("wrong",)),
        lambda t, w, r: (t, f"The answer is $\\frac{{{t}}}{{7}}$.", ("wrong",)),
    ],
}

# Forms whose numbers have a shape of their own: (truth, output, label).
NUMERIC_FIXED = {
    "equation": [
        ("42", "The answer is $6 \\times 7 = 42$.", ("right",)),
        ("8", "Answer: 390/52 = 7.5, so 8 buses are needed.", ("right",)),
        ("8", "The answer is: we need 390 / 52 = 7.5, rounded up to 8.", ("right",)),
        ("13", "Answer: 91/7 = 13, so 13 rows.", ("right",)),
        ("12", "Answer: 100/9 = 11.1, so 12 boxes are needed.", ("right",)),
    ],
    "answer form": [
        ("3/4", "\\boxed{\\cfrac{3}{4}}", ("right",)),
        ("1", "$\\frac3{3}$", ("right",)),
        ("3/4", "$\\frac3{4}$", ("right",)),
        ("32349", "The total is $32,\\! 349$.", ("right",)),
        ("1500", "The total is $1,\\!500$ books.", ("right",)),
    ],
    "not the value": [
        ("123456789", "123456900.5", ("wrong",)),
        ("123456789", "#### 123456900.5", ("wrong",)),
        ("987654321", "The answer is 987654400.5.", ("wrong",)),
        ("3", "$x^3$", ("wrong",)),
        ("2", "$\\frac{1+\\sqrt{5}}{2}$", ("wrong",)),
    ],
}


def numeric_cases(rng: random.Random, per_template: int) -> list:
    cases = []
    for name, templates in NUMERIC.items():
        for template in templates:
            for _ in range(per_template):
                truth = rng.randint(12, 980)
                wrong = truth + rng.choice([-10, -3, -1, 1, 2, 7])
                t, output, label = template(str(truth), str(wrong), rng)
                cases.append({"class": name, "truth": t, "output": output, "label": label})
    for name, fixed in NUMERIC_FIXED.items():
        for t, output, label in fixed:
            cases.append({"class": name, "truth": t, "output": output, "label": label})
    return cases


def numeric_latex(truth: str) -> str:
    if "/" in truth:
        a, b = truth.split("/")
        return f"\\frac{{{a}}}{{{b}}}"
    return truth


# --- choice ---------------------------------------------------------------------------

# Four-option questions (as simple-evals' MMLU and most of the references take them);
# the last three have options whose text ends in a capital.
OPTION_SETS = [
    "rubber gloves|safety goggles|breathing mask|lead apron",
    "sunlight|soil|rain|wind",
    "mitosis|meiosis|osmosis|diffusion",
    "Vitamin C|Vitamin D|Iron|Zinc",
    "Plan A|Plan B|Plan C|Plan D",
    "Type A|Type B|Type AB|Type O",
]
REASON_LINE = "Each option does something different, so I compare what each one does before choosing."

CHOICE = {
    "negation": [
        lambda R, W, o: (f"The answer is not {R}.", ("wrong",)),
        lambda R, W, o: (f"Answer: not {R}", ("wrong",)),
        lambda R, W, o: (f"I won't choose {R}.", ("wrong",)),
        lambda R, W, o: (f"{R} is not correct.", ("wrong",)),
        lambda R, W, o: (f"The answer is not {R}, it is {W}.", ("wrong",)),
        lambda R, W, o: (f"The answer is not {W}, it is {R}.", ("right",)),
        lambda R, W, o: (f"Definitely not {R}.", ("wrong",)),
        lambda R, W, o: (f"{REASON_LINE}\nIt cannot be {R}.", ("wrong",)),
        lambda R, W, o: (f"Not {W}: the answer is {R}.", ("right",)),
    ],
    "listing": [
        lambda R, W, o: ("{} or {}".format(*sorted([R, W])), ("list", 2)),
        lambda R, W, o: ("Answer: {}, {}".format(*sorted([R, W])), ("list", 2)),
        lambda R, W, o: ("Answer: " + ", ".join(sorted({R, W, min(set("ABCD") - {R, W})})), ("list", 3)),
        lambda R, W, o: ("(A)(B)(C)(D)", ("list", 4)),
        lambda R, W, o: ("Answer: {} or {}".format(*sorted([o[R], o[W]])), ("list", 2)),
        lambda R, W, o: ("Either ({}) or ({}).".format(*sorted([R, W])), ("list", 2)),
        lambda R, W, o: ("{} / {}".format(*sorted([R, W])), ("list", 2)),
    ],
    "reason": [
        lambda R, W, o: (f"The answer is {R} because {W} is not right.", ("right",)),
        lambda R, W, o: (f"The answer is {R}, not {W}.", ("right",)),
        lambda R, W, o: (f"The answer is {W} because {R} is not right.", ("wrong",)),
        lambda R, W, o: (f"I'd pick {R} since {W} does not fit.", ("right",)),
        lambda R, W, o: (f"Answer: {o[R]}", ("right",)),
        lambda R, W, o: (f"Answer: {o[W]}", ("wrong",)),
        lambda R, W, o: (f"The answer is {o[R]} because {o[W]} fails.", ("right",)),
        lambda R, W, o: (f"The answer is {R} since {W} is wrong.", ("right",)),
        lambda R, W, o: (f"Answer: {R} ({W} is a distractor)", ("right",)),
        lambda R, W, o: (f"The answer is {R}; {W} is tempting but wrong.", ("right",)),
        lambda R, W, o: (f"Option {W} is wrong, so the answer is {R}.", ("right",)),
        lambda R, W, o: (f"The answer is {R} rather than {W}.", ("right",)),
    ],
    "answer form": [
        lambda R, W, o: (f"{REASON_LINE}\n{R} is correct.", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\n{W} is correct.", ("wrong",)),
        lambda R, W, o: (f"{REASON_LINE}\nTherefore, {R}.", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nSo, {R}.", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nI'd go with {R}.", ("right",)),
        lambda R, W, o: (f"Answer: {fullwidth(R)}", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nRespuesta: {R}", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\n答案：{R}", ("right",)),
        lambda R, W, o: (f"The correct answer is ({R}).", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nFinal answer: {R}", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nThe answer is option {R}.", ("right",)),
        lambda R, W, o: (f"{REASON_LINE}\nLa respuesta es {R}.", ("right",)),
    ],
}


def choice_cases(rng: random.Random, per_template: int) -> list:
    cases = []
    for name, templates in CHOICE.items():
        for template in templates:
            for _ in range(per_template):
                options = rng.choice(OPTION_SETS)
                texts = options.split("|")
                right, wrong = rng.sample(range(4), 2)
                R, W = "ABCD"[right], "ABCD"[wrong]
                by_letter = dict(zip("ABCD", texts))
                output, label = template(R, W, by_letter)
                cases.append({"class": name, "answer": R, "options": options,
                              "letters": "ABCD", "output": output, "label": label})
    # `A` read as the article: the right answer A followed by a reason naming B.
    for options in OPTION_SETS[:3]:
        cases.append({"class": "reason", "answer": "A", "options": options, "letters": "ABCD",
                      "output": "The answer is A because B is not right.", "label": ("right",)})
    return cases


# --- short ----------------------------------------------------------------------------

SHORT_TRUTHS = [
    ["Paris"], ["Canberra"], ["Tokyo"], ["1969"], ["1776"], ["Marie Curie", "Maria Sklodowska-Curie"],
    ["Isaac Newton", "Newton"], ["Mount Everest", "Everest"], ["Jane Austen"], ["oxygen"],
]
SHORT_WRONG = ["London", "Berlin", "Madrid", "Sydney", "Kyoto", "1970", "1812", "Albert Einstein",
               "Charles Darwin", "K2", "Emily Bronte", "nitrogen"]

SHORT = {
    "negation": [
        lambda t, w, r: (f"Not {t}", ("wrong",)),
        lambda t, w, r: (f"I won't say {t}", ("wrong",)),
        lambda t, w, r: (f"The answer is not {t}.", ("wrong",)),
        lambda t, w, r: (f"It is not {t}.", ("wrong",)),
        lambda t, w, r: (f"{t}, not {w}", ("right",)),
        lambda t, w, r: (f"Definitely not {t}", ("wrong",)),
        lambda t, w, r: (f"{t} is wrong", ("wrong",)),
        lambda t, w, r: (f"It isn't {t}.", ("wrong",)),
        lambda t, w, r: (f"{t} (not {w})", ("right",)),
        lambda t, w, r: (f"{w}\n{t} (not sure)", ("wrong",)),
        lambda t, w, r: (f"{w} (not sure)\n{t} (not sure)", ("wrong",)),
    ],
    "listing": [
        lambda t, w, r: ("{}, {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("{} or {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("{} and {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("{}\n{}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("{} {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: (" ".join(shuffled(r, [t] + [x for x in SHORT_WRONG if x != w][:3])), ("list", 4)),
        lambda t, w, r: ("either {} or {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("{} vs {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("maybe {}, maybe {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("1. {}\n2. {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("- {}\n- {}".format(*shuffled(r, [t, w])), ("list", 2)),
        lambda t, w, r: ("Answer: {}, {}, {}".format(*shuffled(r, [t, w, "Lisbon"])), ("list", 3)),
    ],
    "answer form": [
        lambda t, w, r: (f"It is said to be {w} by some, but the records agree.\nRespuesta: {t}", ("right",)),
        lambda t, w, r: (fullwidth(t), ("right",)),
        lambda t, w, r: (f"The answer is **{t}**.", ("right",)),
        lambda t, w, r: (f"Final answer: {t}", ("right",)),
    ],
}


def short_cases(rng: random.Random, per_template: int) -> list:
    cases = []
    for name, templates in SHORT.items():
        for template in templates:
            for _ in range(per_template):
                golds = rng.choice(SHORT_TRUTHS)
                truth = rng.choice(golds)
                wrong = rng.choice(SHORT_WRONG)
                output, label = template(truth, wrong, rng)
                cases.append({"class": name, "answer": "|".join(golds), "golds": golds,
                              "output": output, "label": label})
    # Twenty guesses: years around the truth, and twenty capitals.
    cases.append({"class": "listing", "answer": "1969", "golds": ["1969"],
                  "output": " ".join(str(y) for y in range(1960, 1980)), "label": ("list", 20)})
    capitals = ("Paris Berlin Madrid Rome Lisbon Vienna Prague Warsaw Budapest Athens Oslo "
                "Stockholm Helsinki Copenhagen Dublin Brussels Amsterdam Bern Sofia Bucharest")
    cases.append({"class": "listing", "answer": "Paris", "golds": ["Paris"],
                  "output": capitals, "label": ("list", 20)})
    cases.append({"class": "listing", "answer": "1969", "golds": ["1969"],
                  "output": "1969 1970 1971 1972", "label": ("list", 4)})
    return cases


def meets(label: tuple, correct: bool, credit: float) -> bool:
    """Whether a verdict (`correct`, and the credit in [0, 1]: evogate's `score`, a
    reference's 1/0 or SQuAD's F1) is what the hand label says."""
    if label[0] == "right":
        return bool(correct)
    if label[0] == "wrong":
        return credit == 0
    return credit <= 1 / label[1] + 1e-9


def all_cases(seed: int, per_template: int = 4) -> dict:
    rng = random.Random(seed)
    return {
        "numeric": numeric_cases(rng, per_template),
        "choice": choice_cases(rng, per_template),
        "short": short_cases(rng, per_template),
    }

