"""The peer: a straightforward normalization script, in the style of the leaderboard's published notebook.

    python bench/notebook_style.py RESULTS.json...

json.load each file, then the normalization loop with the choice counts
written inline; no schema, no checks, no positions. This is what a
maintainer writes by hand, and what lbnorm's own cost is compared with.
"""

import json
import sys

BBH = {
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


def normalize(value, lower_bound):
    return max(value - lower_bound, 0) / (1 - lower_bound) * 100


def scores(results):
    r = results["results"]
    bbh = sum(
        normalize(r[f"leaderboard_bbh_{t}"]["acc_norm,none"], 1 / n) for t, n in BBH.items()
    ) / len(BBH)
    musr = sum(
        normalize(r[f"leaderboard_musr_{t}"]["acc_norm,none"], 1 / n) for t, n in MUSR.items()
    ) / len(MUSR)
    ifeval = (
        (
            r["leaderboard_ifeval"]["inst_level_strict_acc,none"]
            + r["leaderboard_ifeval"]["prompt_level_strict_acc,none"]
        )
        / 2
        * 100
    )
    values = {
        "ifeval": ifeval,
        "bbh": bbh,
        "math_lvl5": r["leaderboard_math_hard"]["exact_match,none"] * 100,
        "gpqa": normalize(r["leaderboard_gpqa"]["acc_norm,none"], 0.25),
        "musr": musr,
        "mmlu_pro": normalize(r["leaderboard_mmlu_pro"]["acc,none"], 0.1),
    }
    values["average"] = sum(values.values()) / 6
    return values


if __name__ == "__main__":
    for path in sys.argv[1:]:
        with open(path) as handle:
            print(path, round(scores(json.load(handle))["average"], 2))
