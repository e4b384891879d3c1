"""The normalization of docs/reference/normalization.md, checked on that page's worked examples."""

from __future__ import annotations

import json

import pytest
from support.common import EXAMPLE, without_groups, write_json

from validator.core.normalization import (
    FROM_GROUP,
    FROM_N_SAMPLES,
    FROM_PROFILE_SIZES,
    lower_bound_of,
    normalize_value,
    score_benchmark,
    score_results,
)
from validator.core.results import HarnessResults, TaskEntry
from validator.io.loaders import load_builtin_profile, load_results

V2 = load_builtin_profile("open-llm-leaderboard-v2")


def results_of(values: dict[str, dict[str, float]]) -> HarnessResults:
    entries = {
        task: TaskEntry(key=task, name=task, metrics={(m, "none"): v for m, v in metrics.items()})
        for task, metrics in values.items()
    }
    return HarnessResults(format="test", model=None, entries=entries)


# --- section 8.2: the docs' toy examples ------------------------------------------------


def test_gpqa_toy_example_raw_0_6_gives_46_67():
    score = normalize_value(0.6, lower_bound_of(4, normalize=True))
    assert f"{score:.2f}" == "46.67"
    assert score == pytest.approx((0.6 - 0.25) / 0.75 * 100, abs=1e-12)


def test_musr_toy_example_with_exact_one_third():
    results = results_of(
        {
            "leaderboard_musr_murder_mysteries": {"acc_norm": 0.7},
            "leaderboard_musr_object_placements": {"acc_norm": 0.4},
            "leaderboard_musr_team_allocation": {"acc_norm": 0.6},
        }
    )
    musr = score_benchmark(V2.benchmark("musr"), results, normalize=True)
    assert [f"{s.normalized:.2f}" for s in musr.subtasks] == ["40.00", "25.00", "40.00"]
    assert f"{musr.score:.2f}" == "35.00"
    assert musr.subtasks[2].lower_bound == 1 / 3


def test_the_docs_0_333_bound_would_print_40_03_and_35_01():
    """Why the profile stores choice counts, not rounded bounds (docs/reference/normalization.md, where sources disagree)."""
    wrong_team = normalize_value(0.6, 0.333)
    assert f"{wrong_team:.2f}" == "40.03"
    assert f"{(40.0 + 25.0 + wrong_team) / 3:.2f}" == "35.01"


# --- worked example: EleutherAI/pythia-1b ---------------------------------------------------
# Raw values as printed in docs/reference/normalization.md's worked example, and the expected scores computed from
# them with the page's formula written out here, independently of the code.

BBH_RAWS = {  # name: (raw, num_choices) from the worked example and the BBH table
    "boolean_expressions": (0.468, 2),
    "causal_judgement": (0.5187165775401069, 2),
    "date_understanding": (0.204, 6),
    "disambiguation_qa": (0.332, 3),
    "formal_fallacies": (0.468, 2),
    "geometric_shapes": (0.108, 11),
    "hyperbaton": (0.512, 2),
    "logical_deduction_five_objects": (0.204, 5),
    "logical_deduction_seven_objects": (0.128, 7),
    "logical_deduction_three_objects": (0.36, 3),
    "movie_recommendation": (0.24, 6),
    "navigate": (0.44, 2),
    "object_counting": (0.072, 19),
    "penguins_in_a_table": (0.1917808219178082, 5),
    "reasoning_about_colored_objects": (0.104, 18),
    "ruin_names": (0.2, 6),
    "salient_translation_error_detection": (0.224, 6),
    "snarks": (0.5393258426966292, 2),
    "sports_understanding": (0.46, 2),
    "temporal_sequences": (0.26, 4),
    "tracking_shuffled_objects_five_objects": (0.2, 5),
    "tracking_shuffled_objects_seven_objects": (0.16, 7),
    "tracking_shuffled_objects_three_objects": (0.32, 3),
    "web_of_lies": (0.496, 2),
}
MUSR_RAWS = [(0.492, 2), (0.265625, 5), (0.308, 3)]


def clipped(raw: float, choices: int) -> float:
    return max(raw - 1 / choices, 0) / (1 - 1 / choices) * 100


def expected_pythia() -> dict[str, float]:
    bbh = sum(clipped(r, c) for r, c in BBH_RAWS.values()) / 24
    musr = sum(clipped(r, c) for r, c in MUSR_RAWS) / 3
    scores = {
        "ifeval": (0.2733812949640288 * 100 + 0.16820702402957485 * 100) / 2,
        "bbh": bbh,
        "math_lvl5": 0.0030211480362537764 * 100,
        "gpqa": (0.25671140939597314 - 0.25) / 0.75 * 100,
        "musr": musr,
        "mmlu_pro": (0.11361369680851063 - 0.1) / 0.9 * 100,
    }
    scores["average"] = sum(scores.values()) / 6
    return scores


SPEC_PRINTED = {
    "ifeval": 22.0794,
    "bbh": 2.2940,
    "math_lvl5": 0.3021,
    "gpqa": 0.8949,
    "musr": 2.7344,
    "mmlu_pro": 1.5126,
    "average": 4.9696,
}


def test_reference_formula_reproduces_the_spec_printed_values():
    for key, value in expected_pythia().items():
        assert value == pytest.approx(SPEC_PRINTED[key], abs=5e-5), key


def test_spec_values_without_clipping_differ_as_the_spec_says():
    unclipped = lambda r, c: (r - 1 / c) / (1 - 1 / c) * 100  # noqa: E731
    assert sum(unclipped(r, c) for r, c in BBH_RAWS.values()) / 24 == pytest.approx(
        0.6873, abs=5e-5
    )
    assert sum(unclipped(r, c) for r, c in MUSR_RAWS) / 3 == pytest.approx(0.9344, abs=5e-5)


def pythia_variants(tmp_path, example_doc):
    no_groups = without_groups(example_doc)
    no_sizes = without_groups(example_doc)
    no_sizes.pop("n-samples")
    return {
        "with group entries": (EXAMPLE, FROM_GROUP),
        "without group entries": (
            write_json(tmp_path / "no_groups.json", no_groups),
            FROM_N_SAMPLES,
        ),
        "without groups or n-samples": (
            write_json(tmp_path / "no_sizes.json", no_sizes),
            FROM_PROFILE_SIZES,
        ),
    }


@pytest.mark.parametrize(
    "variant", ["with group entries", "without group entries", "without groups or n-samples"]
)
def test_pythia_1b_every_benchmark_and_average_to_1e_9(tmp_path, example_doc, variant):
    path, pooled_source = pythia_variants(tmp_path, example_doc)[variant]
    scores = score_results(V2, load_results(path))
    expected = expected_pythia()
    for bench_id, score in scores.scores.items():
        assert score == pytest.approx(expected[bench_id], abs=1e-9), bench_id
    assert scores.average == pytest.approx(expected["average"], abs=1e-9)
    assert scores.benchmarks["gpqa"].raw_source == pooled_source
    assert scores.benchmarks["math_lvl5"].raw_source == pooled_source


def test_pooled_gpqa_and_math_equal_the_published_group_values(example_doc):
    scores = score_results(V2, load_results(EXAMPLE))
    assert scores.benchmarks["gpqa"].pooled_raw == pytest.approx(306 / 1192, abs=1e-15)
    assert scores.benchmarks["math_lvl5"].pooled_raw == pytest.approx(4 / 1324, abs=1e-15)
    assert scores.benchmarks["gpqa"].pooled_raw == pytest.approx(
        example_doc["results"]["leaderboard_gpqa"]["acc_norm,none"], abs=1e-15
    )


def test_bbh_and_musr_raw_are_unweighted_means_not_the_pooled_group():
    """The Raw column of BBH and MuSR is the plain subtask mean."""
    scores = score_results(V2, load_results(EXAMPLE))
    assert scores.benchmarks["musr"].raw == pytest.approx((0.492 + 0.265625 + 0.308) / 3, abs=1e-15)
    assert scores.benchmarks["bbh"].raw == pytest.approx(
        sum(r for r, _ in BBH_RAWS.values()) / 24, abs=1e-15
    )
    assert scores.benchmarks["bbh"].raw != pytest.approx(
        0.29699704912341607, abs=1e-6
    )  # the pooled group


def test_a_missing_bbh_subtask_leaves_bbh_unscored_never_averaged_over(tmp_path, example_doc):
    del example_doc["results"]["leaderboard_bbh_snarks"]
    scores = score_results(V2, load_results(write_json(tmp_path / "r.json", example_doc)))
    assert "bbh" not in scores.benchmarks and scores.average is None and not scores.complete
    assert scores.missing["bbh"] == (
        "BBH",
        "1 of 24 tasks missing (leaderboard_bbh_snarks); the leaderboard uses every task",
    )


def test_the_average_is_summed_in_profile_order_and_divided_by_six():
    scores = score_results(V2, load_results(EXAMPLE))
    total = 0.0
    for bench_id in ("ifeval", "bbh", "math_lvl5", "gpqa", "musr", "mmlu_pro"):
        total += scores.scores[bench_id]
    assert scores.average == total / 6  # bit-exact, not approximately


def test_sums_are_left_to_right_on_every_python():
    """Python 3.12's sum() compensates rounding (it gives 1.0 here); the leaderboard's front end adds left to
    right, as Python 3.11 did, and lbnorm's numbers must not change with the Python it runs on. On 3.13 the
    pythia-1b average above differed from the leaderboard's in its last bit before sums were made explicit."""
    from validator.core.normalization import ordered_sum, plain_mean, pooled_mean

    assert ordered_sum([1e16, 1.0, -1e16]) == 0.0
    assert plain_mean([1e16, 1.0, -1e16, 0.0]) == 0.0
    assert pooled_mean([1e16, 1.0, -1e16], [1, 1, 1]) == 0.0


def test_json_output_keeps_full_precision(tmp_path):
    from support.common import run_cli

    proc = run_cli("normalize", "--output-format", "json", str(EXAMPLE))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    direct = score_results(V2, load_results(EXAMPLE))
    assert doc["files"][0]["scores"] == direct.scores  # exact float equality
    assert doc["files"][0]["average"] == direct.average
