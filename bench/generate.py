"""Generate a realistic, reproducible benchmark corpus: lm-eval 0.4.x results for the v2 profile.

    python bench/generate.py --submissions 5000 --out bench/corpus [--seed 1] [--results-kb 2500]

Each model gets a folder with a results file shaped like the ones lm-eval
0.4 writes for the Open LLM Leaderboard (results, groups, group_subtasks,
configs, versions, n-shot, higher-is-better, n-samples, config,
pretty_env_info, ...) and a submission whose reported numbers are the honest
normalized scores rounded to two decimals. The per-task `configs` (prompt
templates, few-shot samples, process_results source) make up most of the
bytes, as in real files; they are generated once per seed, because every
model run with one harness version carries the same configs. Scores start
from the official pythia-1b run; IFEval and MMLU-PRO, which have no group
entry to keep consistent, vary per model.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from validator.core.normalization import score_results  # noqa: E402
from validator.io.loaders import load_builtin_profile  # noqa: E402
from validator.io.readers import read_results  # noqa: E402

TEMPLATE = json.loads(
    (REPO / "examples/pythia-1b/results_2025-01-27T10-10-36.877664.json").read_text()
)
WORDS = (
    "the of and to in is was for that on as with by it from at are this be an which or have not "
    "question answer options step therefore because following select correct each sentence number "
    "object person table left right first last true false yes no premise conclusion valid argument "
    "date today tomorrow yesterday color shape path turn move swap ball position order"
).split()


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choices(WORDS, k=words))


def task_config(rng: random.Random, task: str, size: int) -> dict:
    """One task's entry of `configs`, about `size` bytes, with lm-eval 0.4's keys."""
    generative = "math" in task or "ifeval" in task
    samples = [{"input": text(rng, 120), "target": text(rng, 40)} for _ in range(3)]
    config = {
        "task": task,
        "tag": task.rsplit("_", 1)[0],
        "dataset_path": f"open-llm-leaderboard/{task}",
        "dataset_name": task.split("_", 2)[-1],
        "test_split": "test",
        "fewshot_split": "train",
        "doc_to_text": "{{question}}\n" + text(rng, 40) + "\nAnswer:",
        "doc_to_target": "{{answer}}",
        "doc_to_choice": None if generative else ["(A)", "(B)", "(C)", "(D)"],
        "description": text(rng, 60),
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "fewshot_config": {"sampler": "first_n", "samples": samples},
        "num_fewshot": 3,
        "metric_list": [
            {
                "metric": "exact_match" if generative else "acc_norm",
                "aggregation": "mean",
                "higher_is_better": True,
            }
        ],
        "output_type": "generate_until" if generative else "multiple_choice",
        "generation_kwargs": {
            "until": ["Problem:", "\n\n"],
            "do_sample": False,
            "temperature": 0.0,
            "max_gen_toks": 1024,
        }
        if generative
        else None,
        "repeats": 1,
        "should_decontaminate": False,
        "metadata": {"version": 3.0 if "math" in task else 1.0},
    }
    if generative:
        config["process_results"] = "def process_results(doc, results):\n" + "".join(
            f"    # {text(rng, 12)}\n    value_{i} = doc.get('{text(rng, 1)}')\n" for i in range(40)
        )
    filler = size - len(json.dumps(config))
    if filler > 0:  # long few-shot chains of thought, as BBH and MuSR carry
        config["fewshot_config"]["samples"].append(
            {"input": text(rng, filler // 6), "target": "(A)"}
        )
    return config


def shared_configs(seed: int, results_kb: int) -> str:
    rng = random.Random(seed)
    tasks = [t for t in TEMPLATE["results"] if t not in TEMPLATE["groups"]]
    per_task = results_kb * 1024 // len(tasks)
    return json.dumps({t: task_config(rng, t, per_task) for t in tasks}, indent=2)


def model_results(rng: random.Random, index: int) -> dict:
    doc = json.loads(json.dumps(TEMPLATE))
    # Honest values are k/N, with the binomial standard error lm-eval reports.
    ifeval, mmlu_pro = doc["results"]["leaderboard_ifeval"], doc["results"]["leaderboard_mmlu_pro"]
    for level, n in (("prompt", 541), ("inst", 834)):
        for kind in ("strict", "loose"):
            p = rng.randint(n // 10, n * 9 // 10) / n
            ifeval[f"{level}_level_{kind}_acc,none"] = p
            if level == "prompt":
                ifeval[f"prompt_level_{kind}_acc_stderr,none"] = math.sqrt(p * (1 - p) / (n - 1))
    p = rng.randint(1203, 8422) / 12032
    mmlu_pro["acc,none"], mmlu_pro["acc_stderr,none"] = p, math.sqrt(p * (1 - p) / 12031)
    name = f"org{index % 97}/model-{index:05d}"
    doc["model_name"] = name
    doc["model_name_sanitized"] = name.replace("/", "__")
    doc["config"] = dict(
        doc.get("config") or {}, model_args=f"pretrained={name},revision=main,dtype=bfloat16"
    )
    doc["versions"] = {t: 3.0 if "math" in t else 1.0 for t in doc["results"]}
    doc["higher_is_better"] = {
        t: {"acc_norm": True, "acc": True, "exact_match": True} for t in doc["results"]
    }
    doc["pretty_env_info"] = "PyTorch version: 2.3.0\n" + text(rng, 400)
    doc["git_hash"] = f"{rng.getrandbits(28):07x}"
    doc["date"] = 1737972636.0 + index
    return doc


def write_corpus(out: Path, submissions: int, seed: int, results_kb: int) -> dict:
    profile = load_builtin_profile("open-llm-leaderboard-v2")
    configs = shared_configs(seed, results_kb)
    total = 0
    for index in range(submissions):
        rng = random.Random(seed * 1_000_003 + index)
        doc = model_results(rng, index)
        folder = out / "submissions" / doc["model_name"]
        folder.mkdir(parents=True, exist_ok=True)
        body = json.dumps(doc, indent=2)
        text_ = body[:-2] + ',\n  "configs": ' + configs.replace("\n", "\n  ") + "\n}"
        results_name = "results_2025-01-27T10-10-36.877664.json"
        (folder / results_name).write_text(text_)
        total += len(text_)
        scores = score_results(profile, read_results(doc))
        reported = {bench_id: round(score, 2) for bench_id, score in scores.scores.items()}
        reported["average"] = round(scores.average, 2)
        submission = {
            "schema_version": 1,
            "model": doc["model_name"],
            "profile": profile.name,
            "results": results_name,
            "reported": reported,
        }
        (folder / "submission.json").write_text(json.dumps(submission, indent=2) + "\n")
    manifest = {
        "submissions": submissions,
        "seed": seed,
        "results_kb": results_kb,
        "results_bytes_mean": total // max(submissions, 1),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--results-kb", type=int, default=2500, help="approximate size of each results file"
    )
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "corpus")
    args = parser.parse_args()
    manifest = write_corpus(args.out, args.submissions, args.seed, args.results_kb)
    print(json.dumps(manifest))


if __name__ == "__main__":
    main()
