"""Realistic-size lm-eval runs for the survey benchmarks (tests/support/survey_corpus.py writes the tiny seeded ones).

    python bench/survey_corpus.py OUT --runs 8 [--mc-docs 400] [--drop-docs 600]

Each run is an MMLU-Pro-like multiple-choice task (ten choices, each
request repeating a five-shot prompt of about 4 kB, as lm-eval logs them)
and a DROP task (a passage of about 1.5 kB, a three-shot prompt; answers are
numbers, mostly small, or names, in about DROP's proportions), with
hashes and aggregates as the harness writes them. About 25 MB per run at
the defaults; the real leaderboard's details run to about 1 GB per model.
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.harness_logs import choice_task, drop_task, results_for, with_hashes, write_run  # noqa: E402

WORDS = (
    "the of and to in is was for that on as with by it from at are this be an which or have not touchdown "
    "yards quarter field goal census population percent households families median income"
).split()


def prose(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def mc_task(rng: random.Random, docs: int, seed: int):
    task = choice_task("mmlu_pro_like", docs, seed=seed)
    task.config.update(
        doc_to_text="Question: {{question}}\nAnswer:", num_fewshot=5
    )  # as the prompts below
    # the five examples every request of every doc repeats, each written as doc_to_text writes it, then its
    # target after the target delimiter, then fewshot_delimiter (LB723 counts them)
    shots = "\n\n".join(f"Question: {prose(rng, 136)}\nAnswer: {'ABCD'[n % 4]}" for n in range(5))
    for sample in task.samples:
        question = prose(rng, 60)
        sample["doc"]["question"] = question
        for args in sample["arguments"].values():
            args["arg_0"] = f"{shots}\n\nQuestion: {question}\nAnswer:"
        with_hashes(sample)
    return task


def drop_gold(rng: random.Random) -> str:
    """A DROP answer as the dataset has them: about two thirds numbers, mostly small (so they repeat from
    question to question, and the scorer's caches meet them again), the rest names of one to three words
    that a passage of its own holds (so they seldom repeat)."""
    if rng.random() < 0.65:
        return str(int(rng.expovariate(1 / 12)) + 1)
    return " ".join(name(rng) for _ in range(rng.randint(1, 3)))


def name(rng: random.Random) -> str:
    return "".join(rng.choices(string.ascii_lowercase, k=rng.randint(4, 9))).capitalize()


def drop_run_task(rng: random.Random, docs: int):
    golds = [[[drop_gold(rng)]] for _ in range(docs)]
    predictions = [f" {g[0][0]}" if rng.random() < 0.5 else f" {prose(rng, 3)}" for g in golds]
    task = drop_task(
        predictions, golds, answer_fields=True
    )  # as lm-eval logs DROP docs: traced by LB721
    task.config["num_fewshot"] = 3  # the prompts hold 3 examples (LB723 holds the count to them)
    shots = "\n\n".join(
        prose(rng, 400 // 3 + (n < 400 % 3)) for n in range(3)
    )  # 400 words, as 3 examples
    for sample, gold in zip(task.samples, golds, strict=False):
        passage = f"{prose(rng, 125)} {gold[0][0]} {prose(rng, 125)}"
        sample["doc"]["passage"] = passage
        sample["arguments"]["gen_args_0"]["arg_0"] = (
            f"{shots}\n\n{passage} {sample['doc']['question']}"
        )
        with_hashes(sample)
    return task


def write_corpus(out: Path, runs: int, mc_docs: int, drop_docs: int, seed: int = 1) -> list[Path]:
    rng = random.Random(seed)
    written = []
    for number in range(runs):
        tasks = [mc_task(rng, mc_docs, seed + number), drop_run_task(rng, drop_docs)]
        written.append(
            write_run(out / f"org__model-{number:03d}", tasks, results_for(tasks))["results"]
        )
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--mc-docs", type=int, default=400)
    parser.add_argument("--drop-docs", type=int, default=600)
    args = parser.parse_args()
    paths = write_corpus(args.out, args.runs, args.mc_docs, args.drop_docs)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file())
    print(f"{len(paths)} runs, {size / 1e6:.1f} MB in {args.out}")
