"""A seeded survey corpus: many small lm-eval runs, some with one planted fault each, and what the table must say.

    python tests/support/survey_corpus.py OUT [--runs 300] [--seed 7]   (also used by bench/survey_bench.py)

Every run is an honest lm-eval 0.4.x run of two tasks (DROP and a
multiple-choice task, written by tests/support/harness_logs.py) unless the seed
plants one fault in it (every tenth clean run is an honest `--limit` run:
the DROP split is three times the documents scored):

    glued       a DROP prediction "10\\n\\nPassage: ..." (the deep dive's W)  -> LB710 on drop
    decimal     a gold "12.25" answered " 12", cut by the '.' stop (D)      -> LB711, LB713 on drop
    tampered    results' f1 of DROP raised by 0.05                           -> LB709 on drop, not reproduced
    missing     one document dropped from the multiple-choice log            -> LB704, LB705, LB706 (+ LB709
                                                                                when the mean moved)
    cut_log     the multiple-choice log cut off in the middle of a line      -> LB701
    no_log      the multiple-choice log deleted                              -> LB707
    hidden_cut  the multiple-choice log's last document dropped, and n-samples, -> LB717
                the aggregates and the task hash edited to agree
    published   the manifest's published DROP F1 3 points off                -> not reproduced, no rule
    filtered    a wrong DROP answer made right in filtered_resps alone (resps   -> LB719 on drop
                still hold it), em, f1 and the aggregates made to agree
    gold_edit   a wrong DROP answer made right by setting doc.answers to it      -> LB721 on drop
                (the doc's answer field still says otherwise), hashes redone
    choice_edit a choice's continuation rewritten in the multiple-choice log     -> LB722 on the MC task
                (same length, so no score moves; no hash covers it)
    shots_hidden a 2-shot DROP run declared 0-shot (num_fewshot and n-shot): its -> LB723 on drop
                prompts hold the examples before each doc's own text
    doc_copied  a wrong DROP sample replaced by a copy of a right one under its  -> LB725 on drop
                doc_id, the aggregates and the task hash made to agree

Every fourth clean run is an honest 2-shot DROP run, declared so.

`expected` maps (run, task) to the rules its row must show and whether its
published score is reproduced (None: no published score).
"""

from __future__ import annotations

import csv
import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script

from support.harness_logs import (
    DATE,
    aggregate,
    choice_task,
    drop_task,
    results_for,
    with_hashes,
    write_run,
)  # noqa: E402

FAULTS = (
    "glued",
    "decimal",
    "tampered",
    "missing",
    "cut_log",
    "no_log",
    "published",
    "hidden_cut",
    "filtered",
    "gold_edit",
    "choice_edit",
    "shots_hidden",
    "doc_copied",
)
SHOTS = "Passage 90. Question 90? 4\n\nPassage 91. Question 91? 7\n\n"  # two DROP examples, as lm-eval joins them
MC_TASK = "arc_easy"
MANIFEST = "manifest.csv"


def make_corpus(
    root: Path,
    runs: int = 300,
    seed: int = 7,
    fault_rate: float = 0.4,
    drop_docs: int = 8,
    mc_docs: int = 6,
) -> dict[tuple[str, str], dict]:
    """Write the runs and manifest.csv under root; return the expected table (see the module docstring)."""
    rng = random.Random(seed)
    expected: dict[tuple[str, str], dict] = {}
    manifest = []
    for number in range(runs):
        fault = rng.choice(FAULTS) if rng.random() < fault_rate else None
        name = f"org{number % 17}__model-{number:04d}"
        run = f"{name}/results_{DATE}.json"
        rules = _write_one(root / name, fault, rng, drop_docs, mc_docs, number)
        results = json.loads((root / run).read_text(encoding="utf-8"))
        f1 = results["results"]["drop"]["f1,none"]
        published = round(100 * f1, 2) + (3.0 if fault == "published" else 0.0)
        manifest.append(
            {"results": run, "model": name.replace("__", "/"), "drop/f1": f"{published:.2f}"}
        )
        expected[(run, "drop")] = {
            "rules": rules["drop"],
            "reproduced": fault not in ("tampered", "published"),
            "fault": fault,
        }
        expected[(run, MC_TASK)] = {"rules": rules[MC_TASK], "reproduced": None, "fault": fault}
    with open(root / MANIFEST, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["results", "model", "drop/f1"], lineterminator="\n")
        writer.writeheader()
        writer.writerows(manifest)
    return expected


def _write_one(
    folder: Path, fault: str | None, rng: random.Random, drop_docs: int, mc_docs: int, number: int
) -> dict[str, set[str]]:
    golds = [[[str(rng.randint(1, 60))]] for _ in range(drop_docs)]
    predictions = [f" {g[0][0]}" if rng.random() < 0.6 else f" {int(g[0][0]) + 1}" for g in golds]
    rules: dict[str, set[str]] = {"drop": set(), MC_TASK: set()}
    if fault == "glued":
        predictions[0] = f"{golds[0][0][0]}\n\nPassage: The census recorded the population"
        rules["drop"] = {"LB710"}
    elif fault == "decimal":
        golds[1], predictions[1] = [["12.25"]], " 12"
        rules["drop"] = {"LB711", "LB713"}
    if fault in ("filtered", "gold_edit"):
        predictions[0] = f" {int(golds[0][0][0]) + 1}"  # a wrong answer, made right below
    elif fault == "doc_copied":
        predictions[0], predictions[1] = (
            f" {golds[0][0][0]}",
            f" {int(golds[1][0][0]) + 1}",
        )  # right, then wrong
    drop, choice = drop_task(predictions, golds), choice_task(MC_TASK, mc_docs, seed=number)
    if fault in ("filtered", "gold_edit"):
        rules["drop"] = {_made_right(drop.samples[0], golds[0][0][0], fault)}
    if (
        fault == "doc_copied"
    ):  # every doc_id is still there; only the doc, with its query_id, shows up twice
        drop.samples[1] = {**json.loads(json.dumps(drop.samples[0])), "doc_id": 1}
        rules["drop"] = {"LB725"}
    if fault == "choice_edit":
        _swap_letters(choice.samples[0])
        rules[MC_TASK] = {"LB722"}
    drop.config["num_fewshot"] = 2 if fault is None and number % 4 == 1 else 0
    if fault == "shots_hidden" or drop.config["num_fewshot"]:
        for sample in drop.samples:
            sample["arguments"]["gen_args_0"]["arg_0"] = (
                SHOTS + sample["arguments"]["gen_args_0"]["arg_0"]
            )
            with_hashes(sample)
        rules["drop"] = {"LB723"} if fault else rules["drop"]
    results = results_for([drop, choice])
    results["config"]["model_args"] = f"pretrained={folder.name.replace('__', '/')}"
    if fault == "tampered":
        results["results"]["drop"]["f1,none"] += 0.05
        rules["drop"] = {"LB709"}
    if fault == "missing":
        removed = choice.samples.pop(rng.randrange(mc_docs))
        rules[MC_TASK] = {"LB704", "LB705", "LB706"}
        if any(
            abs(aggregate(choice, m) - results["results"][MC_TASK][f"{m},none"]) > 1e-9
            for m in ("acc", "acc_norm")
        ):
            rules[MC_TASK].add("LB709")
        del removed
    if fault == "hidden_cut":
        choice.samples.pop()
        agreed = results_for([drop, choice])
        results["results"][MC_TASK], results["task_hashes"][MC_TASK] = (
            agreed["results"][MC_TASK],
            agreed["task_hashes"][MC_TASK],
        )
        results["n-samples"][MC_TASK] = {"original": mc_docs, "effective": mc_docs - 1}
        rules[MC_TASK] = {"LB717"}
    elif (
        fault is None and number % 10 == 3
    ):  # lm-eval scores min(limit, split): all 6 of 6, 8 of 24
        results["config"]["limit"] = float(drop_docs)
        results["n-samples"]["drop"]["original"] = 3 * drop_docs
    paths = write_run(folder, [drop, choice], results)
    if fault == "cut_log":
        text = paths[MC_TASK].read_bytes()
        paths[MC_TASK].write_bytes(text[: len(text) - 40])
        rules[MC_TASK] = {"LB701"}
    elif fault == "no_log":
        paths[MC_TASK].unlink()
        rules[MC_TASK] = {"LB707"}
    return rules


def _made_right(sample: dict, gold: str, fault: str) -> str:
    """A wrong DROP answer scored right, every number made to agree: in filtered_resps alone (LB719), or by
    setting the doc's gold answers to the answer, with the hashes redone (LB721)."""
    if fault == "filtered":
        sample["filtered_resps"] = [f" {gold}"]
    else:
        sample["doc"]["answers"] = [[sample["filtered_resps"][0].strip()]]
        with_hashes(sample)
    sample["em"] = sample["f1"] = 1.0
    return "LB719" if fault == "filtered" else "LB721"


def _swap_letters(sample: dict) -> None:
    """The first choice's continuation with its last two characters swapped: its length, so every score, stays."""
    args = next(iter(sample["arguments"].values()))
    text = args["arg_1"]
    args["arg_1"] = text[:-2] + text[-1] + text[-2] if text[-1] != text[-2] else text[:-1] + "#"


def assert_finds_exactly_the_planted_faults(
    rows: list[dict], expected: dict, published: bool = False
) -> None:
    by_key = {(row["run"], row["task"]): row for row in rows}
    assert len(by_key) == len(rows), "one row per run x task"
    assert set(by_key) == set(expected)
    wrong = {
        key: (want["fault"], sorted(want["rules"]), sorted(by_key[key]["rules"]))
        for key, want in expected.items()
        if set(by_key[key]["rules"]) != want["rules"]
    }
    assert not wrong
    if published:
        reproduced = {key: row["reproduced"] for key, row in by_key.items()}
        assert reproduced == {key: want["reproduced"] for key, want in expected.items()}


def tamper_drop_f1_keeping_size_and_mtime(results: Path) -> float:
    """Change one digit of the results file's DROP F1, then put its mtime back: size and mtime are the old
    ones, as an edit that means to pass unseen leaves them. The F1 as it was."""
    stat, text = results.stat(), results.read_text(encoding="utf-8")
    reported = json.loads(text)["results"]["drop"]["f1,none"]
    written = f'"f1,none": {reported!r}'
    assert text.count(written) == 1
    results.write_text(
        text.replace(written, written[:-1] + ("1" if written[-1] != "1" else "2")), encoding="utf-8"
    )
    os.utime(results, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (results.stat().st_size, results.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    return reported


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--drop-docs", type=int, default=8)
    parser.add_argument("--mc-docs", type=int, default=6)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    table = make_corpus(
        args.out, args.runs, args.seed, drop_docs=args.drop_docs, mc_docs=args.mc_docs
    )
    (args.out / "expected.json").write_text(
        json.dumps(
            [
                {
                    "run": run,
                    "task": task,
                    "rules": sorted(v["rules"]),
                    "reproduced": v["reproduced"],
                    "fault": v["fault"],
                }
                for (run, task), v in sorted(table.items())
            ],
            indent=1,
        ),
        encoding="utf-8",
    )
    print(f"{args.runs} runs in {args.out}")
