"""Regenerate vectors.json from the real lm-eval DROP scorer (not run by the tests).

The tests compare validator.harness.drop with these vectors; lm-eval itself is never a
dependency. How the committed vectors were made (2026-11-21):

    pip download lm-eval==0.4.13 --no-deps && unzip lm_eval-0.4.13-py3-none-any.whl 'lm_eval/tasks/drop/*'
    python -m venv /tmp/hvenv && /tmp/hvenv/bin/pip install numpy==2.4.6 scipy==1.17.1
    /tmp/hvenv/bin/python tests/data/drop_golden/make_vectors.py lm_eval/tasks/drop/utils.py > tests/data/drop_golden/vectors.json

utils.py is loaded from its file, so the rest of lm-eval (torch, datasets...)
is not needed. The scoring functions are identical from harness commit
b281b09 (leaderboard v1, 2023) to 0.4.13 (docs/reference/drop.md).
"""

import importlib.util
import json
import random
import sys

# The worked examples of docs/reference/drop.md, then edge cases.
NAMED = [
    ("E1", "10\n\nPassage: The 2011 census recorded a population of 1,001,360", [["10"]]),
    ("E2", "10\n", [["10"]]),
    ("E3", "10 \n\nPassage: The 2011 census", [["10"]]),
    ("E4", "10\tyards", [["10"]]),
    ("E5", " 12", [["12.25"]]),
    ("E6", " The answer is 12", [["12.25"]]),
    ("E7", " 12.25", [["12.25"]]),
    ("E8", " 12.25.", [["12.25"]]),
    ("E9", " 10 yards were gained by the team in the second quarter", [["10"]]),
    ("E10", " -5", [["5"]]),
    ("E11", " June 5, 2011", [["5 June 2011"]]),
    ("E12", " Tom Brady and Peyton Manning", [["Tom Brady", "Peyton Manning"]]),
    ("E13", " 1,001,360", [["1001360"]]),
    ("E14", " 12%", [["12"]]),
    ("E15", " ten", [["10"]]),
    ("E16", " 11 yards", [["10 yards"]]),
    ("E17", "\n10", [["10"]]),
    ("blank-first-gold", " 10", [[""], ["10"]]),
    ("only-blank-gold", " 10", [[" "]]),
    ("two-golds", " Brady", [["Tom Brady", "Peyton Manning"], ["Brady"]]),
    ("empty-pred", "", [["10"]]),
    ("nan-inf", " nan inf infinity", [["nan"]]),
    ("underscore-number", " 1_000", [["1000"]]),
    ("exponent", " 1e3 points", [["1000"]]),
    ("nbsp", "10\u00a0yards", [["10"]]),
    ("articles", " The Bears and a lion", [["bears", "lion"]]),
    ("date", " 5 June 2011", [["5 June 2011"]]),
    ("hyphen-words", " third-quarter", [["third quarter"]]),
    ("duplicate-tokens", " 10 10 10", [["10"]]),
    ("decimal-glued-period", " 3.5.", [["3.5"]]),
    ("round-half", " a b c d e f g", [["a b c x y z w"]]),
]

NUMBERS = [
    "10",
    "12.25",
    "1,001,360",
    "-5",
    "1e3",
    "1_000",
    "nan",
    "inf",
    "12%",
    "$5",
    "3/4",
    "0.5",
    "007",
    "12",
    "2011",
]
WORDS = [
    "the",
    "a",
    "an",
    "yards",
    "Tom",
    "Brady",
    "Passage:",
    "touchdowns",
    "June",
    "second",
    "field",
    "goal",
    "Answer:",
]
SEPARATORS = [" ", " ", " ", "\n", "\t", "-", "\n\n", " \n", "\u00a0", ".", ","]


def random_text(rng: random.Random, tokens: int) -> str:
    out = []
    for _ in range(tokens):
        out.append(rng.choice(NUMBERS if rng.random() < 0.4 else WORDS))
        out.append(rng.choice(SEPARATORS))
    return ("" if rng.random() < 0.5 else " ") + "".join(out[:-1])


def random_golds(rng: random.Random) -> list[list[str]]:
    return [
        [random_text(rng, rng.randint(1, 3)).strip() for _ in range(rng.randint(1, 3))]
        for _ in range(rng.randint(1, 3))
    ]


def main(path: str) -> None:
    spec = importlib.util.spec_from_file_location("drop_utils", path)
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    rng = random.Random(20261121)
    cases = list(NAMED)
    for i in range(400):
        pred, golds = random_text(rng, rng.randint(1, 8)), random_golds(rng)
        if i % 3 == 0:  # a gold close to the prediction, so matches are common too
            golds.insert(
                rng.randint(0, len(golds)),
                [rng.choice(pred.split() or ["x"]), pred.strip()][: rng.randint(1, 2)],
            )
        cases.append((f"fuzz-{i}", pred, golds))
    vectors = []
    for name, pred, golds in cases:
        scores = utils.process_results({"answers": golds}, [pred])
        vectors.append(
            {
                "name": name,
                "pred": pred,
                "golds": golds,
                "normalized": utils._normalize(pred),
                "em": float(scores["em"]),
                "f1": float(scores["f1"]),
            }
        )
    # Several predicted spans exercise the bipartite alignment (process_results only ever passes one).
    alignments = []
    for i in range(150):
        predicted = [random_text(rng, rng.randint(1, 3)).strip() for _ in range(rng.randint(1, 4))]
        gold = [random_text(rng, rng.randint(1, 3)).strip() for _ in range(rng.randint(1, 4))]
        if i % 2 == 0:
            gold = rng.sample(predicted, len(predicted)) + gold[: rng.randint(0, 1)]
        em, f1 = utils.get_metrics(predicted, gold)
        alignments.append(
            {
                "name": f"align-{i}",
                "predicted": predicted,
                "gold": gold,
                "em": float(em),
                "f1": float(f1),
            }
        )
    json.dump(
        {
            "source": "lm-eval 0.4.13 lm_eval/tasks/drop/utils.py",
            "process_results": vectors,
            "get_metrics": alignments,
        },
        sys.stdout,
        indent=1,
        ensure_ascii=False,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
