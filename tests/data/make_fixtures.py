"""Regenerate the reader fixtures in tests/data (run from the repository root).

The v1 files rebuild the v1 worked example of docs/reference/normalization.md: ehartford/WizardLM-33B-V1.0-Uncensored, published as ARC 63.65,
HellaSwag 83.84, MMLU 59.36, TruthfulQA 56.8, Winogrande 77.66, GSM8K 18.65,
DROP 20.89, average 59.99 (six benchmarks). The per-subject MMLU accuracies
are invented around the published mean (they are not published);
everything else is the published value as a fraction. The same numbers are
written twice: as a lighteval / v1 leaderboard file and as an lm-eval 0.3
file, so both readers must agree.
"""

import json
from pathlib import Path

import yaml

HERE = Path(__file__).parent
MODEL = "ehartford/WizardLM-33B-V1.0-Uncensored"
PROFILE = yaml.safe_load(
    (HERE.parents[1] / "validator/profiles/open-llm-leaderboard-v1.yaml").read_text()
)
SUBJECTS = [
    t["task"].removeprefix("hendrycksTest-")
    for b in PROFILE["benchmarks"]
    if b["id"] == "mmlu"
    for t in b["tasks"]
]
assert len(SUBJECTS) == 57


def mmlu_values() -> list[float]:
    # Symmetric offsets around 0.5936, so the mean is 0.5936 up to float rounding.
    offsets = [((i % 7) - 3) * 0.02 for i in range(56)]
    values = [0.5936 + d for d in offsets]
    values.append(0.5936 * 57 - sum(values))
    return values


def stderr(p: float, n: int = 100) -> float:
    return (p * (1 - p) / (n - 1)) ** 0.5


def v1_lighteval() -> dict:
    results = {
        # ARC-Challenge has 1172 questions: 746/1172 = 0.63652 is published as 63.65.
        "harness|arc:challenge|25": {
            "acc": 715 / 1172,
            "acc_stderr": stderr(715 / 1172, 1172),
            "acc_norm": 746 / 1172,
            "acc_norm_stderr": stderr(746 / 1172, 1172),
        },
        "harness|hellaswag|10": {
            "acc": 0.6400,
            "acc_stderr": stderr(0.64),
            "acc_norm": 0.8384,
            "acc_norm_stderr": stderr(0.8384),
        },
    }
    for subject, value in zip(SUBJECTS, mmlu_values(), strict=True):
        results[f"harness|hendrycksTest-{subject}|5"] = {
            "acc": value,
            "acc_stderr": stderr(value),
            "acc_norm": value - 0.01,
            "acc_norm_stderr": stderr(value - 0.01),
        }
    results["harness|truthfulqa:mc|0"] = {
        "mc1": 0.39,
        "mc1_stderr": stderr(0.39),
        "mc2": 0.568,
        "mc2_stderr": stderr(0.568),
    }
    results["harness|winogrande|5"] = {"acc": 0.7766, "acc_stderr": stderr(0.7766)}
    results["harness|gsm8k|5"] = {"acc": 0.1865, "acc_stderr": stderr(0.1865)}
    results["harness|drop|3"] = {
        "em": 0.0151,
        "em_stderr": 0.0012,
        "f1": 0.2089,
        "f1_stderr": 0.0039,
    }
    results["all"] = {
        "acc": 0.59,
        "acc_stderr": 0.03,
        "acc_norm": 0.6,
        "acc_norm_stderr": 0.03,
        "mc1": 0.39,
        "mc1_stderr": 0.017,
        "mc2": 0.568,
        "mc2_stderr": 0.015,
    }
    versions = {key: 1 if "hendrycksTest" in key else 0 for key in results if key != "all"}
    versions["all"] = 0
    return {
        "config_general": {
            "model_name": MODEL,
            "model_sha": "3f5d3c0a1c4b2e9f",
            "model_dtype": "torch.float16",
            "lighteval_sha": "0e462b4a2b6f0bd6",
            "num_few_shot_default": 0,
            "num_fewshot_seeds": 1,
            "override_batch_size": 1,
            "max_samples": None,
            "job_id": "",
        },
        "results": results,
        "versions": versions,
    }


def v1_lm_eval_03(lighteval: dict) -> dict:
    names = {"arc:challenge": "arc_challenge", "truthfulqa:mc": "truthfulqa_mc"}
    results = {}
    for key, metrics in lighteval["results"].items():
        if key == "all":
            continue
        task = key.split("|")[1]
        results[names.get(task, task)] = metrics
    return {
        "results": results,
        "versions": {task: 1 if task.startswith("hendrycksTest") else 0 for task in results},
        "config": {
            "model": "hf-causal-experimental",
            "model_args": f"pretrained={MODEL},use_accelerate=True",
            "num_fewshot": 0,
            "batch_size": 1,
            "batch_sizes": [],
            "device": "cuda:0",
            "no_cache": True,
            "limit": None,
            "bootstrap_iters": 100000,
            "description_dict": {},
        },
    }


def community_lighteval() -> str:
    # lighteval >= 0.11: 'task|shots' keys, ':_average' and 'all' entries, bare NaN stderr.
    return """{
  "config_general": {"lighteval_sha": "?", "num_fewshot_seeds": 1, "max_samples": null,
                     "model_config": {"model_name": "example-org/tiny-model", "batch_size": 8},
                     "model_name": "example-org/tiny-model"},
  "results": {
    "mmlu:abstract_algebra|5": {"acc": 0.31, "acc_stderr": 0.04648231987117316},
    "mmlu:anatomy|5": {"acc": 0.4444444444444444, "acc_stderr": NaN},
    "mmlu:_average|5": {"acc": 0.3772222222222222, "acc_stderr": 0.04648231987117316},
    "all": {"acc": 0.3772222222222222, "acc_stderr": 0.04648231987117316}
  },
  "versions": {"mmlu:abstract_algebra|5": 0, "mmlu:anatomy|5": 0},
  "config_tasks": {}
}
"""


def main() -> None:
    lighteval = v1_lighteval()
    (HERE / "v1").mkdir(exist_ok=True)
    (HERE / "v1/results_2023-09-08T17-00-44.389859.json").write_text(
        json.dumps(lighteval, indent=2) + "\n"
    )
    (HERE / "v1/results_lm_eval_03.json").write_text(
        json.dumps(v1_lm_eval_03(lighteval), indent=1) + "\n"
    )
    (HERE / "community").mkdir(exist_ok=True)
    (HERE / "community/results_2026-01-21T03-44-18.458309.json").write_text(community_lighteval())


if __name__ == "__main__":
    main()
