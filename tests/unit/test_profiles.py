"""Profiles are data: the built-ins must say what docs/reference/normalization.md says, and bad profile files fail clearly."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import jsonschema
import pytest
import yaml
from support.common import COMMUNITY, DATA, NORMALIZATION_PAGE, REPO, run_cli

from validator.core.errors import ConfigError
from validator.io.loaders import (
    builtin_profile_names,
    builtin_profile_text,
    builtin_profile_yaml,
    load_builtin_profile,
    load_profile_file,
    parsed_profile,
    parsed_profile_copy,
)

V2 = load_builtin_profile("open-llm-leaderboard-v2")
V1 = load_builtin_profile("open-llm-leaderboard-v1")

# docs/reference/normalization.md's BBH table, transcribed: task -> (num_choices, n)
SPEC_BBH = {
    "boolean_expressions": (2, 250),
    "causal_judgement": (2, 187),
    "date_understanding": (6, 250),
    "disambiguation_qa": (3, 250),
    "formal_fallacies": (2, 250),
    "geometric_shapes": (11, 250),
    "hyperbaton": (2, 250),
    "logical_deduction_five_objects": (5, 250),
    "logical_deduction_seven_objects": (7, 250),
    "logical_deduction_three_objects": (3, 250),
    "movie_recommendation": (6, 250),
    "navigate": (2, 250),
    "object_counting": (19, 250),
    "penguins_in_a_table": (5, 146),
    "reasoning_about_colored_objects": (18, 250),
    "ruin_names": (6, 250),
    "salient_translation_error_detection": (6, 250),
    "snarks": (2, 178),
    "sports_understanding": (2, 250),
    "temporal_sequences": (4, 250),
    "tracking_shuffled_objects_five_objects": (5, 250),
    "tracking_shuffled_objects_seven_objects": (7, 250),
    "tracking_shuffled_objects_three_objects": (3, 250),
    "web_of_lies": (2, 250),
}


def profile_table(bench_id: str) -> dict[str, tuple[int | None, int | None]]:
    bench = V2.benchmark(bench_id)
    return {t.name: (bench.choices_of(t), t.n) for t in bench.tasks}


def test_bbh_has_the_24_choice_counts_and_sizes_of_the_reference_table():
    assert profile_table("bbh") == {f"leaderboard_bbh_{k}": v for k, v in SPEC_BBH.items()}
    assert sum(n for _, n in SPEC_BBH.values()) == 5761


def test_bbh_table_matches_the_reference_page():
    rows = re.findall(
        r"^\| (leaderboard_bbh_\w+) \| (\d+) \| 1/\d+ \| .*? \| (\d+) \|$",
        NORMALIZATION_PAGE.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    assert len(rows) == 24
    assert profile_table("bbh") == {task: (int(c), int(n)) for task, c, n in rows}


def test_other_v2_facts_from_the_reference_page():
    assert profile_table("musr") == {
        "leaderboard_musr_murder_mysteries": (2, 250),
        "leaderboard_musr_object_placements": (5, 256),
        "leaderboard_musr_team_allocation": (3, 250),
    }
    assert profile_table("gpqa") == {
        "leaderboard_gpqa_diamond": (4, 198),
        "leaderboard_gpqa_extended": (4, 546),
        "leaderboard_gpqa_main": (4, 448),
    }
    math = profile_table("math_lvl5")
    assert sum(n for _, n in math.values()) == 1324 and {c for c, _ in math.values()} == {None}
    assert profile_table("mmlu_pro") == {"leaderboard_mmlu_pro": (10, 12032)}
    assert V2.benchmark("mmlu_pro").metrics == ("acc",)
    assert V2.benchmark("ifeval").metrics == ("inst_level_strict_acc", "prompt_level_strict_acc")
    assert {b.id: b.aggregation for b in V2.benchmarks} == {
        "ifeval": "mean_of_metrics",
        "bbh": "mean_of_subtasks",
        "math_lvl5": "pooled",
        "gpqa": "pooled",
        "musr": "mean_of_subtasks",
        "mmlu_pro": "mean_of_subtasks",
    }
    assert {b.id: b.num_fewshot for b in V2.benchmarks} == {
        "ifeval": 0,
        "bbh": 3,
        "math_lvl5": 4,
        "gpqa": 0,
        "musr": 0,
        "mmlu_pro": 5,
    }
    assert V2.average_order == ("ifeval", "bbh", "math_lvl5", "gpqa", "musr", "mmlu_pro")


def test_v1_profile_raw_times_100_with_drop_retired():
    assert V1.normalize is False
    assert V1.average_order == ("arc", "hellaswag", "mmlu", "truthfulqa", "winogrande", "gsm8k")
    assert len(V1.benchmark("mmlu").tasks) == 57
    drop = V1.benchmark("drop")
    assert (
        drop.retired["shown_from"] == "2023-11-09" and drop.retired["shown_until"] == "2023-12-01"
    )
    assert {b.id: b.metrics[0] for b in V1.benchmarks} == {
        "arc": "acc_norm",
        "hellaswag": "acc_norm",
        "mmlu": "acc",
        "truthfulqa": "mc2",
        "winogrande": "acc",
        "gsm8k": "acc",
        "drop": "f1",
    }


def test_every_fact_in_a_builtin_profile_cites_a_listed_source():
    for name in builtin_profile_names():
        profile = load_builtin_profile(name)
        for bench in profile.benchmarks:
            assert bench.sources, f"{name}/{bench.id} cites nothing"


def test_the_profile_schema_is_a_valid_draft_2020_12_schema():
    schema = json.loads((REPO / "schemas" / "profile.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_community_profile_file_normalizes_its_own_tasks(tmp_path):
    doc = json.loads(COMMUNITY.read_text().replace("NaN", "null"))
    doc["results"]["mmlu:abstract_algebra_v2|5"] = {"acc": 0.5}
    doc["results"]["mmlu:anatomy_again|5"] = {"acc": 0.2}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    proc = run_cli(
        "normalize",
        "--profile-file",
        str(DATA / "profiles" / "community.yaml"),
        "--output-format",
        "json",
        str(path),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    scores = json.loads(proc.stdout)["files"][0]
    norm = lambda v: max(v - 0.25, 0) / 0.75 * 100  # noqa: E731
    assert scores["profile"] == "tiny-community-board"
    assert scores["scores"]["mmlu_mini"] == pytest.approx(
        (norm(0.31) + norm(0.4444444444444444)) / 2, abs=1e-12
    )
    pooled = (0.5 * 100 + 0.2 * 135) / 235
    assert scores["scores"]["mmlu_pooled"] == pytest.approx(norm(pooled), abs=1e-12)
    assert scores["raw_sources"]["mmlu_pooled"] == "pooled from subtasks, sizes from the profile"


BROKEN_PROFILES = {
    "one_choice.yaml": (
        "tasks: [{task: t, num_choices: 1}]",
        r"\$\.benchmarks\[0\]\.tasks\[0\]\.num_choices: 1 is less than the minimum of 2",
    ),
    "mc_without_choices.yaml": (
        "tasks: [{task: t}]",
        r"multiple-choice task 't' has no num_choices",
    ),
    "unknown_key.yaml": (
        "tasks: [{task: t, num_choices: 4, weight: 2}]",
        r"Additional properties are not allowed \('weight'",
    ),
}
PROFILE_TEMPLATE = """profile_format: 1
name: broken
title: Broken
average: {{order: [{order}]}}
benchmarks:
  - id: b
    name: B
    output_type: multiple_choice
    aggregation: mean_of_subtasks
    metrics: [acc]
    {tasks}
"""


@pytest.mark.parametrize("name", sorted(BROKEN_PROFILES))
def test_broken_profile_files_exit_3_with_the_place_and_the_problem(tmp_path, name):
    tasks, expected = BROKEN_PROFILES[name]
    path = tmp_path / name
    path.write_text(PROFILE_TEMPLATE.format(order="b", tasks=tasks))
    with pytest.raises(ConfigError, match=expected):
        load_profile_file(path)
    proc = run_cli("normalize", "--profile-file", str(path), str(COMMUNITY))
    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1 and "configuration error" in proc.stderr


@pytest.mark.parametrize(
    "order, tasks, expected",
    [
        (
            "nope",
            "tasks: [{task: t, num_choices: 4}]",
            r"average.order names 'nope', which is not a benchmark id",
        ),
        (
            "b",
            "tasks: [{task: t, num_choices: 4}, {task: t, num_choices: 4}]",
            r"task name 't' appears in benchmarks 'b' and 'b'",
        ),
    ],
)
def test_cross_references_the_schema_cannot_express(tmp_path, order, tasks, expected):
    path = tmp_path / "p.yaml"
    path.write_text(PROFILE_TEMPLATE.format(order=order, tasks=tasks))
    with pytest.raises(ConfigError, match=expected):
        load_profile_file(path)


def test_invalid_yaml_names_line_and_column(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("profile_format: 1\nname: [unclosed\n")
    with pytest.raises(ConfigError, match=r"p\.yaml:\d+:\d+: not valid YAML"):
        load_profile_file(path)


def test_json_profile_files_are_accepted(tmp_path):
    import yaml

    data = yaml.safe_load((DATA / "profiles" / "community.yaml").read_text())
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert load_profile_file(path).name == "tiny-community-board"


def test_missing_profile_file_is_a_configuration_error(tmp_path):
    proc = run_cli("normalize", "--profile-file", str(tmp_path / "absent.yaml"), str(COMMUNITY))
    assert proc.returncode == 3 and "absent.yaml: no such file" in proc.stderr


@pytest.mark.parametrize("name", builtin_profile_names())
def test_every_builtin_profile_passes_the_profile_schema(name):
    """Runs skip the schema for built-in profiles (it is the slowest part of a one-file check); this is the guard."""
    validated = load_builtin_profile(name, validate=True)
    assert validated == load_builtin_profile(name)


@pytest.mark.parametrize("name", builtin_profile_names())
def test_every_builtin_profile_ships_its_yaml_parsed(name):
    """A run reads a built-in profile from its parsed copy, without importing PyYAML: the copy is its YAML's,
    types included (a float stays a float), and the profile built from either is the same."""
    text = builtin_profile_text(name)
    copy, parsed = parsed_profile(name, text), builtin_profile_yaml(name)
    assert json.dumps(copy) == json.dumps(parsed), "run python scripts/parse_profiles.py"
    assert copy == yaml.safe_load(text)


@pytest.mark.parametrize("name", builtin_profile_names())
def test_a_builtin_profile_without_its_copy_is_read_from_its_yaml(name, monkeypatch):
    """The path a run takes when the copy is not of the YAML's text (or is missing): the same profile."""
    from validator.io import loaders

    from_copy = load_builtin_profile(name)
    monkeypatch.setattr(loaders, "parsed_profile", lambda *args: None)
    load_builtin_profile.cache_clear()
    try:
        assert loaders.load_builtin_profile(name) == from_copy
    finally:
        load_builtin_profile.cache_clear()


def test_a_profile_checked_out_with_crlf_line_endings_still_uses_its_copy(tmp_path):
    """Git on Windows may write the YAML with CRLF; read as the package reads it, the text (and so its
    CRC-32) is the same."""
    name = "open-llm-leaderboard-v2"
    text = builtin_profile_text(name)
    (tmp_path / f"{name}.yaml").write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    read_back = (tmp_path / f"{name}.yaml").read_text(encoding="utf-8")
    assert read_back == text and parsed_profile(name, read_back) is not None


def test_no_parsed_copy_is_stale():
    """What the pre-commit hook runs (and CI, through this test): every copy written from its YAML, and no copy
    of a profile that is gone."""
    command = [sys.executable, "scripts/parse_profiles.py", "--check"]
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_parsed_copy_is_used_only_for_the_text_it_was_parsed_from(tmp_path):
    """A profile edited without its copy written again is read from its YAML: the copy is not used."""
    name = "open-llm-leaderboard-v2"
    text = builtin_profile_text(name)
    copy = tmp_path / f"{name}.json"
    copy.write_text(json.dumps(parsed_profile_copy(name, text, {"parsed": True})))
    assert parsed_profile(name, text, tmp_path) == {"parsed": True}
    edited = text.replace("250", "251", 1)
    assert len(edited) == len(text) and parsed_profile(name, edited, tmp_path) is None
    assert parsed_profile(name, text + "\n", tmp_path) is None
    copy.write_text("{not JSON")
    assert parsed_profile(name, text, tmp_path) is None
    copy.unlink()
    assert parsed_profile(name, text, tmp_path) is None
