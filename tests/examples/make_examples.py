"""Regenerate the example folders (run from the repository root).

Every case starts from the official pythia-1b run (examples/pythia-1b) and
changes one thing. Expected lines are found by searching the written text,
independently of lbnorm's own locator, and the numbers a wrong method would
report are computed here with plain arithmetic, independently of lbnorm.

    positive/<case>/  must pass (exit 0) with exactly the findings listed
    negative/<case>/  must fail (exit 1) with exactly the findings listed

Each folder has a case.yaml: description, args (paths to check, relative to
the folder), options (extra command-line options) and findings (rule, file,
line). Checks run with --root tests/examples.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parents[1]))
from support import harness_logs  # noqa: E402  (tests/support/harness_logs.py: logs written the way lm-eval writes them)

HERE = Path(__file__).parent
REPO = HERE.parents[1]
PYTHIA = json.loads(
    (REPO / "examples/pythia-1b/results_2025-01-27T10-10-36.877664.json").read_text()
)
V1 = json.loads((REPO / "tests/data/v1/results_2023-09-08T17-00-44.389859.json").read_text())
V1_SUBMISSION = {
    "schema_version": 1,
    "model": "ehartford/WizardLM-33B-V1.0-Uncensored",
    "profile": "open-llm-leaderboard-v1",
    "results": "results.json",
    "reported": {
        "arc": 63.65,
        "hellaswag": 83.84,
        "mmlu": 59.36,
        "truthfulqa": 56.8,
        "winogrande": 77.66,
        "gsm8k": 18.65,
        "drop": 20.89,
        "average": 59.99,
    },
}
SHARED_RESULTS = "../../shared/pythia-1b.json"
R = PYTHIA["results"]

# --- independent arithmetic (docs/reference/normalization.md) -----------------------------------------

BBH_CHOICES = {
    "boolean_expressions": 2,
    "causal_judgement": 2,
    "date_understanding": 6,
    "disambiguation_qa": 3,
    "formal_fallacies": 2,
    "geometric_shapes": 11,
    "hyperbaton": 2,
    "logical_deduction_five_objects": 5,
    "logical_deduction_seven_objects": 7,
    "logical_deduction_three_objects": 3,
    "movie_recommendation": 6,
    "navigate": 2,
    "object_counting": 19,
    "penguins_in_a_table": 5,
    "reasoning_about_colored_objects": 18,
    "ruin_names": 6,
    "salient_translation_error_detection": 6,
    "snarks": 2,
    "sports_understanding": 2,
    "temporal_sequences": 4,
    "tracking_shuffled_objects_five_objects": 5,
    "tracking_shuffled_objects_seven_objects": 7,
    "tracking_shuffled_objects_three_objects": 3,
    "web_of_lies": 2,
}
MUSR = {"murder_mysteries": 2, "object_placements": 5, "team_allocation": 3}
GPQA = {"diamond": 198, "extended": 546, "main": 448}
MATH = {
    "algebra": 307,
    "counting_and_prob": 123,
    "geometry": 132,
    "intermediate_algebra": 280,
    "num_theory": 154,
    "prealgebra": 193,
    "precalculus": 135,
}


def norm(v, lb, clip=True):
    return (max(v - lb, 0) if clip else v - lb) / (1 - lb) * 100


def acc(task, metric="acc_norm,none"):
    return R[task][metric]


def honest(clip=True, bbh_bounds=None, musr_bounds=None, gpqa="pooled", math_="pooled"):
    bounds = {k: 1 / c for k, c in BBH_CHOICES.items()} | (bbh_bounds or {})
    mb = {k: 1 / c for k, c in MUSR.items()} | (musr_bounds or {})
    scores = {
        "ifeval": (
            acc("leaderboard_ifeval", "inst_level_strict_acc,none") * 100
            + acc("leaderboard_ifeval", "prompt_level_strict_acc,none") * 100
        )
        / 2,
        "bbh": sum(norm(acc(f"leaderboard_bbh_{k}"), b, clip) for k, b in bounds.items()) / 24,
        "math_lvl5": (
            acc("leaderboard_math_hard", "exact_match,none") * 100
            if math_ == "pooled"
            else sum(acc(f"leaderboard_math_{k}_hard", "exact_match,none") * 100 for k in MATH) / 7
        ),
        "gpqa": (
            norm(acc("leaderboard_gpqa"), 0.25)
            if gpqa == "pooled"
            else sum(norm(acc(f"leaderboard_gpqa_{k}"), 0.25) for k in GPQA) / 3
        ),
        "musr": sum(norm(acc(f"leaderboard_musr_{k}"), b, clip) for k, b in mb.items()) / 3,
        "mmlu_pro": norm(acc("leaderboard_mmlu_pro", "acc,none"), 0.1),
    }
    scores["average"] = sum(scores.values()) / 6
    return scores


BBH_SIZES = {
    k: {"causal_judgement": 187, "penguins_in_a_table": 146, "snarks": 178}.get(k, 250)
    for k in BBH_CHOICES
}


def repool_bbh(doc, sizes=BBH_SIZES):
    """Set the BBH group to the size-weighted mean of its subtasks, as lm-eval would."""
    group = doc["results"]["leaderboard_bbh"]
    group["acc_norm,none"] = sum(
        doc["results"][f"leaderboard_bbh_{k}"]["acc_norm,none"] * n for k, n in sizes.items()
    ) / sum(sizes.values())
    doc["groups"]["leaderboard_bbh"] = group


def rounded(scores):
    return {k: round(v, 2) for k, v in scores.items()}


TRUE = honest()

# The leaderboard's published pythia-1b MATH (a Math-Verify re-run); the 2025-01-27 details file gives 0.30.
PUBLISHED_MATH = 0.91
OLD_MATH_VERSIONS = {f"leaderboard_math_{k}_hard": 2.0 for k in MATH}

# --- writing cases ----------------------------------------------------------------------


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """Line of the n-th whole occurrence of needle (0.02 must not match 0.0269)."""
    index, seen = -1, 0
    while seen < occurrence:
        index = text.index(needle, index + 1)
        after = text[index + len(needle) : index + len(needle) + 1]
        if not (after.isdigit() or after in ".eE"):
            seen += 1
    return text.count("\n", 0, index) + 1


def submission(reported=None, results=SHARED_RESULTS, **extra) -> dict:
    doc = {
        "schema_version": 1,
        "model": "EleutherAI/pythia-1b",
        "results": results,
        "reported": rounded(TRUE) if reported is None else reported,
    }
    doc.update(extra)
    return doc


class Case:
    def __init__(self, kind: str, name: str, description: str, options=None, args=None):
        self.dir = HERE / kind / name
        self.description, self.options, self.args = (
            description,
            options or [],
            args or ["submission.json"],
        )
        self.findings: list[dict] = []
        self.texts: dict[str, str] = {}
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)

    def write(self, name: str, content) -> str:
        text = content if isinstance(content, str) else json.dumps(content, indent=2) + "\n"
        (self.dir / name).write_text(text)
        self.texts[name] = text
        return text

    def expect(self, rule: str, file: str, needle: str | None = None, occurrence: int = 1):
        line = line_of(self.texts[file], needle, occurrence) if needle else None
        self.findings.append({"rule": rule, "file": file, "line": line})

    def close(self):
        config = {
            "description": self.description,
            "args": self.args,
            "options": self.options,
            "findings": self.findings,
        }
        (self.dir / "case.yaml").write_text(yaml.safe_dump(config, sort_keys=False, width=100))


def stale_math_case(
    kind, name, reported_math, description, options=None, mutate=None
) -> tuple[Case, str]:
    """The official file with MATH task version 2.0, reporting `reported_math` and an average to match it."""
    reported = rounded(TRUE) | {"math_lvl5": reported_math}
    reported["average"] = round(
        (sum(TRUE[k] for k in TRUE if k not in ("math_lvl5", "average")) + reported_math) / 6, 2
    )

    def old_scorer(doc):
        doc["versions"] = dict(OLD_MATH_VERSIONS)
        if mutate:
            mutate(doc)

    c, text = results_case(kind, name, description, old_scorer, reported=reported, options=options)
    c.expect("LB505", "results.json", '"leaderboard_math_algebra_hard": 2.0')
    return c, text


def results_case(kind, name, description, mutate, reported=None, options=None) -> tuple[Case, str]:
    doc = copy.deepcopy(PYTHIA)
    mutate(doc)
    case = Case(kind, name, description, options)
    text = case.write("results.json", doc)
    case.write("submission.json", submission(reported, results="results.json"))
    return case, text


def main() -> None:
    for kind in ("positive", "negative"):
        shutil.rmtree(HERE / kind, ignore_errors=True)
    (HERE / "shared").mkdir(exist_ok=True)
    (HERE / "shared/pythia-1b.json").write_text(json.dumps(PYTHIA, indent=2) + "\n")
    positives()
    negatives()
    wrong_methods()
    sample_logs()


# --- positive ---------------------------------------------------------------------------


def positives() -> None:
    c = Case(
        "positive",
        "pythia_two_decimals",
        "The official pythia-1b numbers as published (two decimals).",
    )
    c.write("submission.json", submission())
    c.close()

    c = Case("positive", "pythia_full_precision", "The same numbers at full precision.")
    c.write("submission.json", submission(reported=dict(TRUE)))
    c.close()

    c = Case("positive", "yaml_submission", "A YAML submission.", args=["submission.yaml"])
    c.write("submission.yaml", yaml.safe_dump(submission(), sort_keys=False))
    c.close()

    c = Case("positive", "embedded_results", "The results object embedded in the submission.")
    c.write("submission.json", submission(results=PYTHIA))
    c.close()

    def drop_groups(doc):
        for group in (
            "leaderboard",
            "leaderboard_bbh",
            "leaderboard_gpqa",
            "leaderboard_math_hard",
            "leaderboard_musr",
        ):
            doc["results"][group] = {
                "alias": group
            }  # lm-eval 2024-07..2025-04: groups without values
        doc.pop("groups")

    c, _ = results_case(
        "positive",
        "groups_without_values",
        "lm-eval 2024-07..2025-04 wrote group entries without values: GPQA and MATH are pooled.",
        drop_groups,
    )
    c.close()

    c = Case(
        "positive",
        "bare_results_file",
        "A bare lm-eval results file: only the raw-file checks run.",
        args=["results.json"],
    )
    c.write("results.json", PYTHIA)
    c.close()

    c = Case(
        "positive",
        "v1_lighteval",
        "An Open LLM Leaderboard v1 file (lighteval keys, DROP retired).",
        options=["--profile", "open-llm-leaderboard-v1"],
    )
    c.write("results.json", V1)
    c.write("submission.json", V1_SUBMISSION)
    c.close()

    def unweighted(doc):
        musr = [doc["results"][f"leaderboard_musr_{k}"]["acc_norm,none"] for k in MUSR]
        doc["results"]["leaderboard_musr"]["acc_norm,none"] = sum(musr) / 3  # weight_by_size: false
        doc["groups"]["leaderboard_musr"] = doc["results"]["leaderboard_musr"]

    c, _ = results_case(
        "positive", "group_plain_mean", "A group computed with weight_by_size: false.", unweighted
    )
    c.close()

    def local_model(doc):
        del doc["model_name"]
        doc["config"]["model_args"] = "pretrained=/models/pythia-1b,dtype=float16"

    c, _ = results_case(
        "positive",
        "local_model_path",
        "model_args names a local path: no model comparison.",
        local_model,
    )
    c.close()

    c, _ = stale_math_case(
        "positive",
        "stale_math_published_value_within_bound",
        PUBLISHED_MATH,
        "The leaderboard's published Math-Verify MATH (0.91) against its old-scorer file "
        "(task version 2.0): a maintainer's --stale-scorer-bound 1 accepts it as a warning.",
        options=["--stale-scorer-bound", "1"],
    )
    c.expect("LB607", "submission.json", f'"math_lvl5": {PUBLISHED_MATH}')
    c.close()

    def extra_task(doc):
        doc["results"]["arc_easy"] = {"alias": "arc_easy", "acc,none": 0.5, "acc_stderr,none": 0.01}

    c, text = results_case(
        "positive",
        "extra_task_warning",
        "An extra task outside the profile is only a warning.",
        extra_task,
    )
    c.expect("LB301", "results.json", '"arc_easy": {')
    c.close()


# --- negative: the input limits (each lowered to show it is a setting) ---------------------


def limits() -> None:
    c = Case(
        "negative",
        "LB106_file_too_large",
        "The shared results file is larger than --max-file-size 16K.",
        options=["--max-file-size", "16K"],
    )
    c.write("submission.json", submission())
    c.findings.append({"rule": "LB106", "file": "shared/pythia-1b.json", "line": None})
    c.close()

    c = Case(
        "negative",
        "LB107_too_many_files",
        "Two submissions with --max-files 1: nothing is checked.",
        options=["--max-files", "1"],
        args=["*.json"],
    )
    c.write("a.json", submission())
    c.write("b.json", submission())
    c.findings.append({"rule": "LB107", "file": "*.json", "line": None})
    c.close()

    c = Case(
        "negative",
        "LB108_nesting_too_deep",
        "A submission nested deeper than --max-depth 3.",
        options=["--max-depth", "3"],
    )
    c.write("submission.json", submission(notes={"a": {"b": {"c": 1}}}))
    c.expect("LB108", "submission.json", '"b": {')
    c.close()

    c = Case(
        "negative",
        "LB112_too_many_values",
        "A submission with more values than --max-values 20.",
        options=["--max-values", "20"],
    )
    c.write("submission.json", submission(notes=list(range(30))))
    # 1 + every '{', '[' and ',' outside strings: the top object 1+1, its 4 commas, `reported` 1 + 6 commas,
    # one comma, `notes` 1, then 0..6 and their commas: the 21st is the comma after 6.
    c.expect("LB112", "submission.json", "    6,")
    c.close()

    c = Case(
        "negative",
        "LB111_hidden_file_not_walked",
        "A glob does not match a hidden submission; with --strict "
        "the warning that says so fails the run.",
        options=["--strict"],
        args=["*.json"],
    )
    c.write("submission.json", submission())
    c.write(".second-submission.json", submission(reported={"bbh": 99.0}))
    c.findings.append({"rule": "LB111", "file": ".second-submission.json", "line": None})
    c.close()

    c = Case(
        "negative",
        "LB113_sample_log_named_alone",
        "A sample log named to check without the results file it belongs to: it is not audited, "
        "and the finding says how to audit it.",
        args=["samples_drop_2024-06-17T17-37-25.144953.jsonl"],
    )
    c.write("submission.json", submission())
    c.write("samples_drop_2024-06-17T17-37-25.144953.jsonl", '{"doc_id": 0}\n')
    c.findings.append(
        {"rule": "LB113", "file": "samples_drop_2024-06-17T17-37-25.144953.jsonl", "line": None}
    )
    c.close()

    c = Case(
        "negative",
        "LB102_yaml_integer_key",
        "A YAML submission whose mapping key is a number, not a string.",
        args=["submission.yaml"],
    )
    c.write("submission.yaml", yaml.safe_dump(submission(), sort_keys=False) + "1: one\n")
    c.expect("LB102", "submission.yaml", "1: one")
    c.close()

    c = Case(
        "negative",
        "LB109_value_too_long",
        "A model name longer than --max-string-length 200.",
        options=["--max-string-length", "200"],
    )
    c.write("submission.json", submission(model="EleutherAI/" + "x" * 300))
    c.expect("LB109", "submission.json", '"model"')
    c.close()


# --- negative: one per rule -----------------------------------------------------------------


def negatives() -> None:
    c = Case(
        "negative", "LB100_no_files", "A glob that matches nothing fails.", args=["nothing-*.json"]
    )
    c.findings.append({"rule": "LB100", "file": "nothing-*.json", "line": None})
    c.close()

    c = Case("negative", "LB101_not_utf8", "A file that is not UTF-8.")
    (c.dir / "submission.json").write_bytes(b'{"model": "caf\xe9"}\n')
    c.findings.append({"rule": "LB101", "file": "submission.json", "line": None})
    c.close()

    c = Case("negative", "LB102_syntax", "A JSON syntax error, with its line.")
    c.write(
        "submission.json",
        '{\n  "schema_version": 1,\n  "model": "EleutherAI/pythia-1b"\n  "results": "x"\n}\n',
    )
    c.expect("LB102", "submission.json", '"results"')
    c.close()

    c = Case("negative", "LB103_duplicate_key", "The same benchmark reported twice.")
    text = json.dumps(submission(), indent=2).replace(
        '"bbh": 2.29,', '"bbh": 2.29,\n    "bbh": 9.99,'
    )
    c.write("submission.json", text)
    c.expect("LB103", "submission.json", '"bbh": 9.99')
    c.close()

    def respelled_metric(doc):
        doc["results"]["leaderboard_mmlu_pro"]["acc"] = 0.9

    c, text = results_case(
        "negative",
        "LB103_metric_key_respelled",
        "acc,none and acc (lm-eval 0.3's spelling of filter none) in one entry: one metric twice.",
        respelled_metric,
    )
    c.expect("LB103", "results.json", '"acc": 0.9')
    c.close()

    v1 = copy.deepcopy(V1)
    v1["results"]["harness|arc_challenge|25"] = {
        **v1["results"]["harness|arc:challenge|25"],
        "acc_norm": 0.99,
    }
    c = Case(
        "negative",
        "LB103_task_under_its_alias",
        "ARC under its name and under its alias arc_challenge: one profile task twice.",
        options=["--profile", "open-llm-leaderboard-v1"],
    )
    c.write("results.json", v1)
    c.write("submission.json", V1_SUBMISSION)
    c.expect("LB103", "results.json", '"harness|arc_challenge|25": {')
    c.close()

    v1 = copy.deepcopy(V1)
    for key in [k for k in v1["results"] if "|drop|" in k]:
        del v1["results"][key]
    c = Case(
        "negative",
        "LB600_reported_retired_benchmark_without_results",
        "DROP (retired, so a run may leave it out) reported, but the results hold none of its tasks.",
        options=["--profile", "open-llm-leaderboard-v1"],
    )
    c.write("results.json", v1)
    c.write("submission.json", V1_SUBMISSION)
    c.expect("LB600", "submission.json", '"drop": 20.89')
    c.close()

    c = Case("negative", "LB104_nan_reported", "A NaN reported score.")
    c.write(
        "submission.json", json.dumps(submission(), indent=2).replace('"musr": 2.73', '"musr": NaN')
    )
    c.expect("LB104", "submission.json", '"musr": NaN')
    c.close()

    def nan_metric(doc):
        doc["results"]["leaderboard_mmlu_pro"]["acc,none"] = math.nan

    c, text = results_case(
        "negative", "LB104_nan_metric", "A NaN headline metric in the results.", nan_metric
    )
    c.expect("LB104", "results.json", '"acc,none": NaN')
    c.close()

    def nan_stderr(doc):
        doc["results"]["leaderboard_mmlu_pro"]["acc_stderr,none"] = math.nan

    c, text = results_case(
        "negative",
        "LB105_nan_stderr_strict",
        "A NaN stderr fails only with --strict.",
        nan_stderr,
        options=["--strict"],
    )
    c.expect("LB105", "results.json", '"acc_stderr,none": NaN')
    c.close()

    limits()

    c = Case("negative", "LB201_schema", "Every schema error, each on its line.")
    doc = submission()
    del doc["model"]
    doc["tolerance"] = 5
    doc["reported"]["bbh"] = "2.29"
    c.write("submission.json", doc)
    c.expect("LB201", "submission.json", "{")  # 'model' is a required property
    c.expect("LB201", "submission.json", '"tolerance"')  # additional property
    c.expect("LB201", "submission.json", '"bbh": "2.29"')  # not a number
    c.close()

    c = Case("negative", "LB202_results_format", "The results file is not a harness results file.")
    c.write("results.json", {"results": {"some_task": {"score": 1}}})
    c.write("submission.json", submission(results="results.json"))
    c.expect("LB202", "results.json", "{")
    c.close()

    c = Case(
        "negative",
        "LB202_results_file_is_a_submission",
        "The honest submission's results file also carries reported numbers of its own.",
        args=["submission.json", "results.json"],
    )
    both = copy.deepcopy(PYTHIA)
    both["reported"] = {**rounded(TRUE), "average": 65.0}
    c.write("results.json", both)
    c.write("submission.json", submission(results="results.json"))
    c.expect("LB202", "results.json", '"reported": {')
    c.expect("LB202", "submission.json", '"results"')
    c.close()

    c = Case(
        "negative",
        "LB202_results_names_a_submission",
        "A submission names another submission as its results file; the other is still checked.",
        args=["submission.json", "other.json"],
    )
    c.write("results.json", PYTHIA)
    c.write(
        "other.json", submission(results="results.json", reported={**rounded(TRUE), "bbh": 9.99})
    )
    c.write("submission.json", submission(results="other.json"))
    c.expect("LB202", "submission.json", '"results"')
    c.expect("LB601", "other.json", '"bbh": 9.99')
    c.close()

    c = Case("negative", "LB203_results_escapes", "A results path that leaves the repository.")
    c.write("submission.json", submission(results="../../../../../../etc/passwd"))
    c.expect("LB203", "submission.json", '"results"')
    c.close()

    c = Case("negative", "LB203_results_absolute", "An absolute results path.")
    c.write("submission.json", submission(results="/etc/hostname"))
    c.expect("LB203", "submission.json", '"results"')
    c.close()

    c = Case(
        "negative",
        "LB204_profile_mismatch",
        "The submission names a profile the maintainer did not choose.",
        options=["--profile", "open-llm-leaderboard-v2"],
    )
    c.write("submission.json", submission(profile="open-llm-leaderboard-v1"))
    c.expect("LB204", "submission.json", '"profile"')
    c.close()

    def extra(doc):
        doc["results"]["arc_easy"] = {"alias": "arc_easy", "acc,none": 0.5}

    c, _ = results_case(
        "negative",
        "LB301_unknown_task_strict",
        "An unknown task fails with --strict.",
        extra,
        options=["--strict"],
    )
    c.expect("LB301", "results.json", '"arc_easy": {')
    c.close()

    def rename(doc):
        doc["results"]["leaderboard_bbh_snark"] = doc["results"].pop("leaderboard_bbh_snarks")

    c, _ = results_case("negative", "LB302_renamed_subtask", "A BBH subtask renamed.", rename)
    c.expect("LB302", "results.json", '"leaderboard_bbh_snark": {')
    c.expect("LB303", "results.json", '"results": {')
    c.close()

    def remove(doc):
        del doc["results"]["leaderboard_bbh_snarks"]

    c, _ = results_case("negative", "LB303_missing_subtask", "A BBH subtask removed.", remove)
    c.expect("LB303", "results.json", '"results": {')
    c.close()

    def dyck(doc):
        doc["results"]["leaderboard_bbh_dyck_languages"] = {"alias": "x", "acc_norm,none": 0.1}

    c, _ = results_case(
        "negative",
        "LB304_unknown_choice_count_strict",
        "A free-form BBH task with no choice count fails with --strict.",
        dyck,
        options=["--strict"],
    )
    c.expect("LB304", "results.json", '"leaderboard_bbh_dyck_languages": {')
    c.close()

    def no_metric(doc):
        del doc["results"]["leaderboard_musr_team_allocation"]["acc_norm,none"]

    c, _ = results_case(
        "negative",
        "LB305_missing_metric",
        "A subtask without the metric the leaderboard reads.",
        no_metric,
    )
    c.expect("LB305", "results.json", '"leaderboard_musr_team_allocation": {')
    c.close()

    def percent(doc):
        doc["results"]["leaderboard_gpqa_main"]["acc_norm,none"] = 24.553571428571427

    c, _ = results_case(
        "negative", "LB401_percentage_raw", "A raw value written as a percentage.", percent
    )
    c.expect("LB401", "results.json", '"acc_norm,none": 24.553571428571427')
    c.close()

    c = Case("negative", "LB402_reported_scale", "A reported score outside 0-100.")
    c.write("submission.json", submission(reported=rounded(TRUE) | {"ifeval": 122.08}))
    c.expect("LB402", "submission.json", '"ifeval": 122.08')
    c.expect("LB601", "submission.json", '"ifeval": 122.08')
    c.close()

    def edit_value(doc):
        entry = doc["results"]["leaderboard_bbh_snarks"]
        entry["acc_norm,none"] = 0.54  # 96.12/178: not a whole number of answers
        entry["acc_norm_stderr,none"] = math.sqrt(0.54 * 0.46 / 177)  # stderr edited to match
        repool_bbh(doc)  # and the group too, so only k/N gives it away

    c, _ = results_case(
        "negative", "LB403_edited_value", "An edited subtask value that is not k/N.", edit_value
    )
    c.expect("LB403", "results.json", '"acc_norm,none": 0.54')
    c.close()

    def edit_group(doc):
        doc["results"]["leaderboard_gpqa"]["acc_norm,none"] = 0.3
        doc["groups"]["leaderboard_gpqa"] = doc["results"]["leaderboard_gpqa"]

    reported = rounded(TRUE | {"gpqa": norm(0.3, 0.25)})
    reported["average"] = round(
        (sum(TRUE[k] for k in TRUE if k not in ("gpqa", "average")) + norm(0.3, 0.25)) / 6, 2
    )
    c, _ = results_case(
        "negative",
        "LB404_edited_group",
        "A GPQA group value that its subsets do not pool to.",
        edit_group,
        reported=reported,
    )
    c.expect("LB404", "results.json", '"acc_norm,none": 0.3,')
    c.close()

    plain_gpqa = sum(acc(f"leaderboard_gpqa_{k}") for k in GPQA) / 3

    def plain_mean_group(doc):
        doc["results"]["leaderboard_gpqa"]["acc_norm,none"] = plain_gpqa  # weight_by_size: false
        doc["groups"]["leaderboard_gpqa"] = doc["results"]["leaderboard_gpqa"]

    reported = rounded(TRUE | {"gpqa": norm(plain_gpqa, 0.25)})
    reported["average"] = round(
        (sum(TRUE[k] for k in TRUE if k not in ("gpqa", "average")) + norm(plain_gpqa, 0.25)) / 6, 2
    )
    c, _ = results_case(
        "negative",
        "LB404_gpqa_plain_mean_group",
        "A GPQA group written as the plain mean of its subsets (weight_by_size: false): the "
        "score is the group value, so only the pooled value is the leaderboard's.",
        plain_mean_group,
        reported=reported,
    )
    c.expect("LB404", "results.json", f'"acc_norm,none": {plain_gpqa!r},')
    c.close()

    def edit_stderr(doc):
        doc["results"]["leaderboard_musr_murder_mysteries"]["acc_norm_stderr,none"] = 0.02

    c, _ = results_case(
        "negative",
        "LB405_stderr_strict",
        "A stderr that does not fit its value fails with --strict.",
        edit_stderr,
        options=["--strict"],
    )
    c.expect("LB405", "results.json", '"acc_norm_stderr,none": 0.02')
    c.close()

    def limit(doc):
        doc["config"]["limit"] = 10

    c, _ = results_case("negative", "LB501_limit", "A run with --limit.", limit)
    c.expect("LB501", "results.json", '"limit": 10')
    c.close()

    def partial(doc):
        # navigate scored on 100 of 250 documents, everything else consistent with that
        doc["n-samples"]["leaderboard_bbh_navigate"]["effective"] = 100
        entry = doc["results"]["leaderboard_bbh_navigate"]
        entry["acc_norm_stderr,none"] = math.sqrt(0.44 * 0.56 / 99)
        repool_bbh(doc, BBH_SIZES | {"navigate": 100})

    c, _ = results_case(
        "negative", "LB502_partial_samples", "A subtask scored on part of its documents.", partial
    )
    c.expect("LB502", "results.json", '"effective": 100')
    c.close()

    def shots(doc):
        doc["n-shot"]["leaderboard_mmlu_pro"] = 0

    c, _ = results_case(
        "negative", "LB503_fewshot", "MMLU-PRO run 0-shot instead of 5-shot.", shots
    )
    c.expect("LB503", "results.json", '"leaderboard_mmlu_pro": 0')
    c.close()

    c = Case("negative", "LB504_model", "The submission claims another model.")
    c.write("submission.json", submission() | {"model": "EleutherAI/pythia-1.4b"})
    c.expect("LB504", "submission.json", '"model"')
    c.close()

    c, _ = results_case(
        "negative",
        "LB505_stale_math_scorer_strict",
        "Results from MATH task version 2.0 reporting the recomputed scores: a warning, "
        "failing with --strict.",
        lambda doc: doc.update(versions=dict(OLD_MATH_VERSIONS)),
        options=["--strict"],
    )
    c.expect("LB505", "results.json", '"leaderboard_math_algebra_hard": 2.0')
    c.close()

    stale_math_negatives()
    version_negatives()

    def bad_size(doc):
        for group in ("leaderboard_gpqa",):
            doc["results"][group] = {"alias": group}
            doc["groups"].pop(group)
        del doc["n-samples"]["leaderboard_gpqa_main"]["effective"]

    c, text = results_case(
        "negative",
        "LB506_count_missing",
        "GPQA main's n-samples entry has no effective count: lm-eval writes both, and GPQA cannot be "
        "pooled without it.",
        bad_size,
    )
    c.findings.append(
        {
            "rule": "LB506",
            "file": "results.json",
            "line": line_after(text, '"n-samples"', '"leaderboard_gpqa_main": {'),
        }
    )
    c.close()

    c = Case("negative", "LB601_moved_by_0_1", "One reported number moved by 0.1.")
    c.write("submission.json", submission(reported=rounded(TRUE) | {"musr": 2.83}))
    c.expect("LB601", "submission.json", '"musr": 2.83')
    c.close()

    c = Case(
        "negative",
        "LB601_yaml",
        "A divergence in a YAML submission, on its line.",
        args=["submission.yaml"],
    )
    c.write(
        "submission.yaml",
        yaml.safe_dump(submission(reported=rounded(TRUE) | {"gpqa": 1.89}), sort_keys=False),
    )
    c.expect("LB601", "submission.yaml", "gpqa: 1.89")
    c.close()

    c = Case("negative", "LB602_average", "The average moved by 0.1.")
    c.write("submission.json", submission(reported=rounded(TRUE) | {"average": 5.07}))
    c.expect("LB602", "submission.json", '"average": 5.07')
    c.close()

    c = Case("negative", "LB603_reported_missing", "MuSR not reported.")
    reported = rounded(TRUE)
    del reported["musr"]
    c.write("submission.json", submission(reported=reported))
    c.expect("LB603", "submission.json", '"reported"')
    c.close()

    c = Case("negative", "LB604_reported_unknown", "A benchmark id the profile does not have.")
    c.write("submission.json", submission(reported=rounded(TRUE) | {"bbh_raw": 30.04}))
    c.expect("LB604", "submission.json", '"bbh_raw"')
    c.close()


# --- the common wrong methods (where the sources disagree) ----------------------------------

WRONG_METHODS = {
    # name: (description, scores computed the wrong way)
    "no_clipping": ("Subtasks not clipped at 0 before averaging.", honest(clip=False)),
    "gpqa_per_subset": (
        "GPQA normalized per subset and averaged instead of pooled.",
        honest(gpqa="per_subset"),
    ),
    "math_subset_mean": (
        "MATH as the plain mean of the 7 subsets instead of pooled.",
        honest(math_="mean"),
    ),
    "object_counting_18": (
        "BBH object_counting with 18 choices instead of 19.",
        honest(bbh_bounds={"object_counting": 1 / 18}),
    ),
    "bound_0_333": (
        "Lower bound 0.333 instead of exactly 1/3 for every 3-choice task.",
        honest(
            bbh_bounds={k: 0.333 for k, c in BBH_CHOICES.items() if c == 3},
            musr_bounds={"team_allocation": 0.333},
        ),
    ),
}


def stale_math_negatives() -> None:
    c, _ = stale_math_case(
        "negative",
        "LB606_stale_math_published_value",
        PUBLISHED_MATH,
        "The published MATH against an old-scorer file: unverifiable, so an error by default.",
    )
    c.expect("LB606", "submission.json", f'"math_lvl5": {PUBLISHED_MATH}')
    c.expect("LB602", "submission.json", '"average"')
    c.close()

    for name, options in (
        ("LB606_inflated_math_version_2", []),
        ("LB606_inflated_math_version_2_with_bound", ["--stale-scorer-bound", "1"]),
    ):
        c, _ = stale_math_case(
            "negative",
            name,
            40.0,
            "The attack: versions claims MATH task version 2 and MATH is reported as 40.00 "
            "(recomputed 0.30) with an average to match"
            + ("; a maintainer's bound of 1 point does not cover it." if options else "."),
            options=options,
        )
        c.expect("LB606", "submission.json", '"math_lvl5": 40.0')
        c.expect("LB602", "submission.json", '"average"')
        c.close()

    c, _ = stale_math_case(
        "negative",
        "LB607_stale_math_within_bound_strict",
        PUBLISHED_MATH,
        "A stale-scorer difference accepted by the maintainer's bound still fails with --strict.",
        options=["--stale-scorer-bound", "1", "--strict"],
    )
    c.expect("LB607", "submission.json", f'"math_lvl5": {PUBLISHED_MATH}')
    c.close()

    def conflicting(doc):
        doc["configs"] = {
            name: {"task": name, "metadata": {"version": 3.0}} for name in OLD_MATH_VERSIONS
        }

    c, _ = stale_math_case(
        "negative",
        "LB508_version_conflict",
        PUBLISHED_MATH,
        "versions says MATH 2.0 while configs.<task>.metadata.version says 3.0: edited.",
        options=["--stale-scorer-bound", "1"],
        mutate=conflicting,
    )
    c.expect("LB607", "submission.json", f'"math_lvl5": {PUBLISHED_MATH}')
    for index in range(len(MATH)):
        c.expect("LB508", "results.json", f'"{list(OLD_MATH_VERSIONS)[index]}": 2.0')
    c.close()


def version_negatives() -> None:
    # GPQA diamond scored on 100 documents, its split's count edited or written as no integer: the value checks
    # that use the count fail too.
    for name, original, description in (
        (
            "LB506_sample_count",
            100,
            "n-samples gives GPQA diamond 100 documents, not 198; the value checks "
            "that use the count fail too.",
        ),
        (
            "LB506_count_not_whole",
            198.0,
            "n-samples gives GPQA diamond 198.0 documents: read as no count, it "
            "took LB502 away from a run of 100 of them.",
        ),
    ):

        def edited(doc, original=original):
            doc["n-samples"]["leaderboard_gpqa_diamond"] = {"original": original, "effective": 100}

        c, text = results_case("negative", name, description, edited)
        c.expect("LB506", "results.json", f'"original": {original}')
        c.expect("LB404", "results.json", '"acc_norm,none": 0.25671140939597314')
        c.expect("LB403", "results.json", '"acc_norm,none": 0.2727272727272727')
        c.expect("LB405", "results.json", '"acc_norm_stderr,none": 0.03173071239071728')
        c.close()

    v1_reported = {
        "arc": 63.65,
        "hellaswag": 83.84,
        "mmlu": 59.36,
        "truthfulqa": 56.8,
        "winogrande": 77.66,
        "gsm8k": 18.65,
        "drop": 20.89,
        "average": 59.99,
    }
    for name, description, edit, needle in (
        (
            "LB507_old_mmlu_version_0",
            "v1 MMLU (hendrycksTest) task version 0: the v1 leaderboard refused it.",
            lambda versions: versions.update({k: 0 for k in versions if "hendrycksTest" in k}),
            '"harness|hendrycksTest-abstract_algebra|5": 0',
        ),
        (
            "LB507_mmlu_version_missing",
            "v1 results without MMLU task versions cannot pass the gate.",
            lambda versions: [versions.pop(k) for k in list(versions) if "hendrycksTest" in k],
            '"harness|hendrycksTest-abstract_algebra|5": {',
        ),
    ):
        doc = copy.deepcopy(V1)
        edit(doc["versions"])
        c = Case("negative", name, description, options=["--profile", "open-llm-leaderboard-v1"])
        c.write("results.json", doc)
        c.write(
            "submission.json",
            {
                "schema_version": 1,
                "model": "ehartford/WizardLM-33B-V1.0-Uncensored",
                "profile": "open-llm-leaderboard-v1",
                "results": "results.json",
                "reported": v1_reported,
            },
        )
        c.expect("LB507", "results.json", needle)
        c.close()

    c = Case(
        "negative",
        "LB509_lm_eval_04_v1_tasks",
        "An lm-eval 0.4 run of v1-style tasks checked against v1.",
        options=["--profile", "open-llm-leaderboard-v1"],
        args=["results.json"],
    )
    c.write("results.json", lm_eval_04_v1_run())
    for needle in ('"mmlu": {', '"truthfulqa_mc2": {', '"gsm8k": {'):
        c.expect("LB509", "results.json", needle)
    c.expect("LB303", "results.json", '"results": {')  # MMLU's 57 hendrycksTest tasks
    c.expect("LB303", "results.json", '"results": {')  # truthfulqa:mc
    c.expect("LB305", "results.json", '"gsm8k": {')
    for needle in ('"mmlu": {', '"mmlu_abstract_algebra": {', '"mmlu_anatomy": {'):
        c.expect("LB301", "results.json", needle)
    c.expect("LB302", "results.json", '"truthfulqa_mc2": {')  # close to truthfulqa_mc, the 0.3 name
    c.close()


def lm_eval_04_v1_run() -> dict:
    """A small lm-eval 0.4 results file of the v1 tasks under their 0.4 names, values from the v1 example."""
    r = V1["results"]
    results = {
        "arc_challenge": {
            "alias": "arc_challenge",
            "acc_norm,none": r["harness|arc:challenge|25"]["acc_norm"],
        },
        "hellaswag": {"alias": "hellaswag", "acc_norm,none": r["harness|hellaswag|10"]["acc_norm"]},
        "mmlu": {"alias": "mmlu", "acc,none": 0.59},
        "mmlu_abstract_algebra": {
            "alias": " - abstract_algebra",
            "acc,none": r["harness|hendrycksTest-abstract_algebra|5"]["acc"],
        },
        "mmlu_anatomy": {
            "alias": " - anatomy",
            "acc,none": r["harness|hendrycksTest-anatomy|5"]["acc"],
        },
        "truthfulqa_mc2": {
            "alias": "truthfulqa_mc2",
            "acc,none": r["harness|truthfulqa:mc|0"]["mc2"],
        },
        "winogrande": {"alias": "winogrande", "acc,none": r["harness|winogrande|5"]["acc"]},
        "gsm8k": {
            "alias": "gsm8k",
            "exact_match,strict-match": r["harness|gsm8k|5"]["acc"],
            "exact_match,flexible-extract": r["harness|gsm8k|5"]["acc"],
        },
    }
    return {
        "results": results,
        "n-shot": {"arc_challenge": 25, "hellaswag": 10, "winogrande": 5, "gsm8k": 5},
        "config": {
            "model": "hf",
            "model_args": "pretrained=ehartford/WizardLM-33B-V1.0-Uncensored",
            "limit": None,
        },
    }


def wrong_methods() -> None:
    summary = {}
    for name, (description, wrong) in WRONG_METHODS.items():
        reported = rounded(wrong)
        caught = {
            k: abs(reported[k] - TRUE[k]) for k in TRUE if abs(reported[k] - TRUE[k]) > 0.01 + 1e-9
        }
        kind = "negative" if caught else "positive"
        c = Case(
            kind,
            f"wrong_{name}",
            description
            + (
                " Caught at the default tolerance."
                if caught
                else " Within the default tolerance of 0.01: not caught."
            ),
        )
        c.write("submission.json", submission(reported=reported))
        for key in caught:
            c.expect(
                "LB602" if key == "average" else "LB601",
                "submission.json",
                f'"{key}": {reported[key]}',
            )
        c.close()
        summary[name] = {k: round(abs(reported[k] - TRUE[k]), 4) for k in TRUE}
    # Rounding each benchmark before averaging: the average of the rounded six.
    shown = rounded(TRUE)
    shown["average"] = sum(v for k, v in shown.items() if k != "average") / 6
    c = Case(
        "positive",
        "wrong_rounding_before_averaging",
        "Average computed from benchmark scores rounded to 2 decimals. Within tolerance: not caught.",
    )
    c.write("submission.json", submission(reported=shown))
    c.close()
    summary["rounding_before_averaging"] = {
        "average": round(abs(shown["average"] - TRUE["average"]), 4)
    }
    (HERE / "wrong_methods.json").write_text(json.dumps(summary, indent=2) + "\n")


# --- sample logs (LB7xx): a submission that lists its per-sample logs ----------------------------

MUSR_TEAM = "leaderboard_musr_team_allocation"
MUSR_TEAM_CORRECT = 77  # pythia-1b's acc_norm 0.308 = 77/250


def musr_log() -> harness_logs.Task:
    return harness_logs.scripted_choice_task(MUSR_TEAM, [i < MUSR_TEAM_CORRECT for i in range(250)])


def with_examples(task: harness_logs.Task, shots: int) -> harness_logs.Task:
    """Every request's prompt led by `shots` examples, as a few-shot run logs it (each ends in the delimiter)."""
    lead = "".join(f"Who did it in story {-n}? Alice\n\n" for n in range(1, shots + 1))
    for sample in task.samples:
        for request in sample["arguments"].values():
            request["arg_0"] = lead + request["arg_0"]
        harness_logs.with_hashes(sample)
    return task


def drop_log(predictions=None, golds=None, until=(".",), answer_fields=True) -> harness_logs.Task:
    return harness_logs.drop_task(
        predictions or [" 10", " Tom Brady", " 7", " 1,001,360"],
        golds or [[["10"]], [["Tom Brady"]], [["7"], ["seven"]], [["1001360"]]],
        list(until),
        answer_fields,
    )


def samples_case(
    kind: str,
    name: str,
    description: str,
    tasks,
    results_edit=None,
    log_edit=None,
    listed=None,
    options=None,
    unlogged: str | None = "leaderboard_bbh_boolean_expressions",
) -> tuple[Case, dict]:
    """pythia-1b's results with these tasks' configs, n-samples and task_hashes added, and their logs.

    The other tasks of pythia-1b's results have no log: LB707 names them, at `unlogged` (the first of them)."""
    doc = copy.deepcopy(PYTHIA)
    extra = harness_logs.results_for(tasks)
    for task in tasks:
        if task.name not in doc["results"]:
            doc["results"][task.name] = extra["results"][
                task.name
            ]  # drop: outside the profile (LB301)
        for key in ("configs", "n-samples", "task_hashes"):
            doc.setdefault(key, {})[task.name] = extra[key][task.name]
    if results_edit:
        results_edit(doc)
    case = Case(kind, name, description, options)
    case.write("results.json", doc)
    logs = {}
    for task in tasks:
        lines = [json.dumps(sample, ensure_ascii=False) for sample in task.samples]
        if log_edit:
            lines = log_edit(task.name, lines) or lines
        logs[task.name] = f"samples_{task.name}_{harness_logs.DATE}.jsonl"
        case.write(logs[task.name], "".join(line + "\n" for line in lines))
    case.write(
        "submission.json",
        submission(
            results="results.json", samples=listed if listed is not None else sorted(logs.values())
        ),
    )
    if unlogged:
        case.expect("LB707", "results.json", f'"{unlogged}": {{')
    return case, logs


def line_after(text: str, anchor: str, needle: str) -> int:
    start = text.index(anchor)
    return text.count("\n", 0, text.index(needle, start)) + 1


def sample_logs() -> None:
    c, logs = samples_case(
        "positive",
        "samples_honest",
        "Honest logs for MuSR team allocation (acc_norm from log-likelihoods) and DROP.",
        [musr_log(), drop_log()],
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.close()

    c, logs = samples_case(
        "negative",
        "LB700_samples_missing",
        "A listed log that is not in the repository.",
        [musr_log()],
        listed=["samples_leaderboard_musr_team_allocation_missing.jsonl"],
        unlogged=None,
    )
    c.expect("LB700", "submission.json", '"samples_leaderboard_musr_team_allocation_missing.jsonl"')
    c.close()

    def truncate(task, lines):
        return lines[:-1] + [lines[-1][: len(lines[-1]) // 2]]

    c, logs = samples_case(
        "negative",
        "LB701_truncated_log",
        "The last line of the log was cut off mid-record.",
        [musr_log()],
        log_edit=truncate,
    )
    c.findings.append({"rule": "LB701", "file": logs[MUSR_TEAM], "line": 250})
    c.close()

    def no_hash(task, lines):
        record = json.loads(lines[9])
        del record["doc_hash"]
        lines[9] = json.dumps(record)

    c, logs = samples_case(
        "negative",
        "LB702_sample_without_hash",
        "One sample lacks its doc_hash although the results file has task_hashes.",
        [musr_log()],
        log_edit=no_hash,
    )
    c.findings.append({"rule": "LB702", "file": logs[MUSR_TEAM], "line": 10})
    c.close()

    def edit_doc(task, lines):
        lines[4] = lines[4].replace(
            '"question": "Who did it in story 4?"', '"question": "Who did it in story 4? (easy)"'
        )

    c, logs = samples_case(
        "negative",
        "LB703_edited_document",
        "A document edited after the run: its hash and "
        "its prompt (which still asks the question as it was) both say so.",
        [musr_log()],
        log_edit=edit_doc,
    )
    c.findings.append({"rule": "LB703", "file": logs[MUSR_TEAM], "line": 5})
    c.findings.append({"rule": "LB722", "file": logs[MUSR_TEAM], "line": 5})
    c.close()

    def swap(task, lines):
        lines[0], lines[1] = lines[1], lines[0]

    c, logs = samples_case(
        "negative",
        "LB704_reordered_samples",
        "Two samples swapped: every number agrees, but task_hashes does not.",
        [musr_log()],
        log_edit=swap,
    )
    c.expect("LB704", "results.json", f'"{MUSR_TEAM}": "')
    c.close()

    def duplicate(task, lines):
        lines[-1] = lines[0]

    c, logs = samples_case(
        "negative",
        "LB705_duplicate_document",
        "The last sample replaced by a copy of the first (a correct one).",
        [musr_log()],
        log_edit=duplicate,
    )
    c.findings.append({"rule": "LB705", "file": logs[MUSR_TEAM], "line": 250})
    text = c.texts["results.json"]
    n_samples_line = line_after(text, '"n-samples"', f'"{MUSR_TEAM}": {{')
    c.findings.append({"rule": "LB705", "file": "results.json", "line": n_samples_line + 2})
    c.expect("LB704", "results.json", f'"{MUSR_TEAM}": "')
    c.expect("LB709", "results.json", '"acc_norm,none": 0.308')
    c.expect(
        "LB709", "results.json", '"acc_norm_stderr,none": 0.02925692860650181'
    )  # mean_stderr too
    c.close()

    def drop_last(task, lines):
        return lines[:-1]

    c, logs = samples_case(
        "negative",
        "LB706_missing_document",
        "The log lacks its last document (a partial upload).",
        [musr_log()],
        log_edit=drop_last,
    )
    text = c.texts["results.json"]
    effective = line_after(text, '"n-samples"', f'"{MUSR_TEAM}": {{') + 2
    c.findings += [
        {"rule": "LB706", "file": "results.json", "line": effective},
        {"rule": "LB705", "file": "results.json", "line": effective},
    ]
    c.expect("LB704", "results.json", f'"{MUSR_TEAM}": "')
    c.expect("LB709", "results.json", '"acc_norm,none": 0.308')
    c.expect(
        "LB709", "results.json", '"acc_norm_stderr,none": 0.02925692860650181'
    )  # mean_stderr too
    c.close()

    # The same document dropped, with everything the log proves made to agree: n-samples.effective, acc_norm and
    # the task hash. Only the count no limit explains is left (and check's LB502 for a profile task).
    short = harness_logs.scripted_choice_task(
        MUSR_TEAM, [i < MUSR_TEAM_CORRECT for i in range(249)]
    )
    agreed = harness_logs.results_for([short])

    def agree(doc):
        doc["results"][MUSR_TEAM].update(agreed["results"][MUSR_TEAM])
        doc["n-samples"][MUSR_TEAM] = {"original": 250, "effective": 249}
        subtasks = doc["group_subtasks"]["leaderboard_musr"]
        sizes = {task: doc["n-samples"][task]["effective"] for task in subtasks}
        doc["results"]["leaderboard_musr"]["acc_norm,none"] = sum(
            doc["results"][task]["acc_norm,none"] * sizes[task] for task in subtasks
        ) / sum(sizes.values())

    c, logs = samples_case(
        "negative",
        "LB717_dropped_document_count_edited",
        "The log lacks its last document, and n-samples, acc_norm and the task hash were edited "
        "to agree; no limit explains 249 of 250.",
        [short],
        results_edit=agree,
    )
    text = c.texts["results.json"]
    effective = line_after(text, '"n-samples"', f'"{MUSR_TEAM}": {{') + 2
    c.findings += [
        {"rule": "LB502", "file": "results.json", "line": effective},
        {"rule": "LB717", "file": "results.json", "line": effective},
    ]
    c.close()

    def both_counts(doc):
        agree(doc)
        doc["n-samples"][MUSR_TEAM] = {"original": 249, "effective": 249}

    c, logs = samples_case(
        "negative",
        "LB718_dropped_document_both_counts_edited",
        "The log lacks its last document, and both n-samples counts, acc_norm, the group and the "
        "task hash were edited to agree: only the split's size (250) tells.",
        [short],
        results_edit=both_counts,
    )
    text = c.texts["results.json"]
    original = line_after(text, '"n-samples"', f'"{MUSR_TEAM}": {{') + 1
    c.findings += [
        {"rule": "LB506", "file": "results.json", "line": original},
        {"rule": "LB718", "file": "results.json", "line": original},
    ]
    c.close()

    c, logs = samples_case(
        "negative",
        "LB707_task_without_log",
        "Configs for MuSR team allocation and DROP, but only the MuSR log is listed.",
        [musr_log(), drop_log()],
        listed=[f"samples_{MUSR_TEAM}_{harness_logs.DATE}.jsonl"],
        options=["--strict"],
        unlogged=None,
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.findings.append(
        {
            "rule": "LB707",
            "file": "results.json",
            "line": line_after(c.texts["results.json"], '"configs"', '"drop": {'),
        }
    )
    c.close()

    def flip(task, lines):
        lines[0] = lines[0].replace('"acc_norm": 1.0', '"acc_norm": 0.0')

    c, logs = samples_case(
        "negative",
        "LB708_edited_sample_score",
        "A sample's acc_norm changed: its log-likelihoods still pick the gold answer.",
        [musr_log()],
        log_edit=flip,
    )
    c.findings.append({"rule": "LB708", "file": logs[MUSR_TEAM], "line": 1})
    c.expect("LB709", "results.json", '"acc_norm,none": 0.308')
    c.expect(
        "LB709", "results.json", '"acc_norm_stderr,none": 0.02925692860650181'
    )  # mean_stderr too
    c.close()

    def raise_f1(doc):
        doc["results"]["drop"]["f1,none"] = 0.95

    c, logs = samples_case(
        "negative",
        "LB709_edited_aggregate",
        "DROP's f1 in the results file raised above what its samples give.",
        [drop_log()],
        results_edit=raise_f1,
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.expect("LB709", "results.json", '"f1,none": 0.95')
    c.close()

    def median_f1(doc):
        raise_f1(doc)
        doc["configs"]["drop"]["metric_list"][1]["aggregation"] = "median"

    c, logs = samples_case(
        "negative",
        "LB716_aggregation_not_recomputed",
        "DROP's f1 raised, behind an aggregation the audit does not compute (median).",
        [drop_log()],
        results_edit=median_f1,
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.expect("LB716", "results.json", '"aggregation": "median"')
    c.close()

    spec_run = drop_log(harness_logs.SPEC_RUN_PREDICTIONS, harness_logs.SPEC_RUN_GOLDS)
    c, logs = samples_case(
        "negative",
        "LB710_LB713_drop_deep_dive",
        "The DROP run of docs/reference/drop.md: a glued number, a cut decimal, a long answer, and the '.' "
        "stop with a decimal gold; warnings, so --strict fails.",
        [spec_run],
        options=["--strict"],
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.findings += [
        {"rule": "LB710", "file": logs["drop"], "line": 1},
        {"rule": "LB711", "file": logs["drop"], "line": 2},
        {"rule": "LB712", "file": logs["drop"], "line": 3},
    ]
    text = c.texts["results.json"]
    c.findings.append(
        {
            "rule": "LB713",
            "file": "results.json",
            "line": line_after(text, '"task": "drop"', '"until"'),
        }
    )
    c.close()

    def newline_stop(task, lines):
        return [line.replace('"until": ["."]', '"until": ["\\n"]') for line in lines]

    c, logs = samples_case(
        "negative",
        "LB714_other_stop_sequences",
        "Samples generated with until ['\\n'] under a config that says ['.'].",
        [drop_log()],
        log_edit=newline_stop,
        options=["--strict"],
    )
    c.expect("LB301", "results.json", '"drop": {')
    text = c.texts["results.json"]
    c.findings.append(
        {
            "rule": "LB714",
            "file": "results.json",
            "line": line_after(text, '"task": "drop"', '"until"'),
        }
    )
    c.close()

    def rewrite_filtered(task, lines):
        lines[0] = lines[0].replace('"filtered_resps": [" 10"]', '"filtered_resps": ["10"]')

    # (rule, case, description, the DROP log, its edit, the line of the finding in the log)
    for rule, name, description, log, edit, line in [
        (
            "LB719",
            "filtered_response_edited",
            "A DROP sample's filtered_resps edited (its resps still say ' 10'); "
            "the 'none' filter takes each request's first response.",
            drop_log(),
            rewrite_filtered,
            1,
        ),
        (
            "LB720",
            "response_past_stop",
            "A DROP run whose stop sequence is ',' logs ' 1,001,360': the harness "
            "would have cut it at the comma.",
            drop_log(until=(",",)),
            None,
            4,
        ),
    ]:
        c, logs = samples_case("negative", f"{rule}_{name}", description, [log], log_edit=edit)
        c.expect("LB301", "results.json", '"drop": {')
        c.findings.append({"rule": rule, "file": logs["drop"], "line": line})
        c.close()

    def gold_to_prediction(task, lines):
        sample = json.loads(lines[1])
        sample["doc"]["answers"] = [["Tom Bradley"]]
        sample["resps"], sample["filtered_resps"] = [[" Tom Bradley"]], [" Tom Bradley"]
        lines[1] = json.dumps(harness_logs.with_hashes(sample), ensure_ascii=False)

    c, logs = samples_case(
        "negative",
        "LB721_drop_gold_edited",
        "A wrong DROP answer made right: doc.answers set to the prediction, doc hash recomputed; "
        "the doc's answer field still says Tom Brady.",
        [drop_log(answer_fields=True)],
        log_edit=gold_to_prediction,
    )
    c.expect("LB301", "results.json", '"drop": {')
    c.findings.append({"rule": "LB721", "file": logs["drop"], "line": 2})
    c.expect("LB704", "results.json", '"drop": "')
    c.close()

    def longer_choice(task, lines):
        lines[0] = lines[0].replace('"arg_1": " Carol"', '"arg_1": " Carol and Dave"')

    c, logs = samples_case(
        "negative",
        "LB722_choice_text_edited",
        "A choice's continuation rewritten in the log (no hash covers it); the doc's choices and "
        "the config's doc_to_choice still say ' Carol'.",
        [musr_log()],
        log_edit=longer_choice,
    )
    c.findings.append({"rule": "LB722", "file": logs[MUSR_TEAM], "line": 1})
    c.close()

    def three_shot(doc):
        doc["configs"][MUSR_TEAM]["num_fewshot"] = (
            3  # what ran; n-shot still says the leaderboard's 0
        )

    c, logs = samples_case(
        "negative",
        "LB723_n_shot_rewritten",
        "The task ran 3-shot (its config says so), but n-shot says 0, the leaderboard's setting, "
        "which is where check reads it.",
        [with_examples(musr_log(), 3)],
        results_edit=three_shot,
    )
    c.findings.append(
        {
            "rule": "LB723",
            "file": "results.json",
            "line": line_after(c.texts["results.json"], '"n-shot"', f'"{MUSR_TEAM}": 0'),
        }
    )
    c.close()

    def prompted(task, shots: str = "", num_fewshot: int = 0, passage_edit: str = ""):
        """A DROP log whose prompts hold `shots` before each doc's own text, its config declaring num_fewshot;
        doc 1's passage extended by `passage_edit` after the run. Hashes as the harness (or a careful editor)
        writes them."""
        task.config["num_fewshot"] = num_fewshot
        for sample in task.samples:
            request = sample["arguments"]["gen_args_0"]
            request["arg_0"] = shots + request["arg_0"]
            if sample["doc_id"] == 1:
                sample["doc"]["passage"] += passage_edit
            harness_logs.with_hashes(sample)
        return task

    shots = "Passage 7. Question 7? 7\n\nPassage 8. Question 8? 8\n\n"
    for rule, name, description, task, line in [
        (
            "LB723",
            "few_shot_hidden",
            "A 2-shot DROP run declared 0-shot (num_fewshot 0, and no n-shot entry "
            "to disagree): every prompt holds its examples before the doc's own text.",
            prompted(drop_log(), shots),
            1,
        ),
        (
            "LB722",
            "prompt_not_from_doc",
            "doc 1's passage edited after the run, every hash redone: its prompt "
            "still holds the passage the model read.",
            prompted(drop_log(), passage_edit=" Brady threw 3."),
            2,
        ),
    ]:
        c, logs = samples_case("negative", f"{rule}_{name}", description, [task])
        c.expect("LB301", "results.json", '"drop": {')
        c.findings.append({"rule": rule, "file": logs["drop"], "line": line})
        c.close()

    mmlu_pro = harness_logs.mmlu_pro_task(
        num_fewshot=0
    )  # MMLU-Pro's doc_to_text, a function lbnorm knows
    mmlu_pro.name = mmlu_pro.config["task"] = (
        "mmlu_pro_copy"  # outside the profile, beside pythia's own MMLU-Pro
    )
    c, logs = samples_case(
        "negative",
        "LB723_function_prompt_shots_hidden",
        "A 5-shot run of a task whose "
        "doc_to_text is the leaderboard MMLU-Pro's function, declared 0-shot: lbnorm writes what "
        "that function writes (without running it), and every prompt holds five examples before "
        "it.",
        [mmlu_pro],
    )
    c.expect("LB301", "results.json", '"mmlu_pro_copy": {')
    c.findings.append({"rule": "LB723", "file": logs["mmlu_pro_copy"], "line": 1})
    c.close()

    math = harness_logs.math_task("leaderboard_math_algebra_lvl5", [True, False, True, True])
    wrong = math.samples[1]
    wrong["doc"]["answer"] = wrong["target"] = (
        "8"  # the model's wrong answer made the gold one, all redone
    )
    wrong["resps"] = [[" Final Answer: The final answer is $8$. I hope it is correct."]]
    wrong["filtered_resps"] = wrong["resps"][0]
    harness_logs.with_hashes(wrong)
    wrong["exact_match"] = 1
    c, logs = samples_case(
        "negative",
        "LB724_math_answer_edited",
        "A wrong MATH answer made right: doc.answer and "
        "target set to the model's '8', scores and hashes redone; the doc's solution still boxes "
        "1/2, which is the answer the harness builds from it.",
        [math],
    )
    c.expect("LB302", "results.json", '"leaderboard_math_algebra_lvl5": {')
    c.findings.append({"rule": "LB724", "file": logs["leaderboard_math_algebra_lvl5"], "line": 2})
    c.close()

    arc = harness_logs.choice_task("arc_like", 6)
    for sample in arc.samples:
        sample["doc"]["id"] = (
            f"Mercury_{sample['doc_id']:04d}"  # ARC's row id, which the dataset never repeats
        )
        harness_logs.with_hashes(sample)
    copied = copy.deepcopy(arc.samples[4])
    copied["doc_id"] = 2
    arc.samples[2] = copied
    c, logs = samples_case(
        "negative",
        "LB725_doc_logged_twice",
        "A failed sample replaced by a copy of a passed one "
        "under the failed one's doc_id, aggregates and task hash redone: every doc_id is there, "
        "but the doc with ARC's id Mercury_0004 is logged twice.",
        [arc],
    )
    c.expect("LB301", "results.json", '"arc_like": {')
    c.findings.append({"rule": "LB725", "file": logs["arc_like"], "line": 5})
    c.close()

    # The object_counting trap (docs/reference/normalization.md), from the other side: a run of an 18-choice variant ("1" to "18")
    # under the leaderboard's 19; pythia's 0.072 = 18/250 is what its log aggregates to.
    counting = "leaderboard_bbh_object_counting"
    variant = with_examples(
        harness_logs.scripted_choice_task(
            counting, [i < 18 for i in range(250)], choices=tuple(str(n) for n in range(1, 19))
        ),
        3,
    )
    c, logs = samples_case(
        "negative",
        "LB715_object_counting_18_choices",
        "object_counting's log scores 18 choices per doc; the profile's baseline is 1/19.",
        [variant],
    )
    c.findings.append({"rule": "LB715", "file": logs[counting], "line": 1})
    c.close()


if __name__ == "__main__":
    main()
