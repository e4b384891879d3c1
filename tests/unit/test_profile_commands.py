"""`lbnorm profile init | derive | check`: from a built-in profile or a run to a leaderboard's own profile."""

from __future__ import annotations

import json
import re

import yaml
from support import harness_logs as harness
from support.common import EXAMPLE, REPO, run_cli

BBH_OBJECT_COUNTING = "leaderboard_bbh_object_counting"


def test_init_writes_the_builtin_profile_with_comments_and_it_checks_clean(tmp_path):
    proc = run_cli(
        "profile",
        "init",
        "--from",
        "open-llm-leaderboard-v2",
        "--name",
        "my-v2",
        "-o",
        "board.yaml",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "board.yaml").read_text()
    assert text.startswith(
        "# Your leaderboard's profile, started from the built-in profile 'open-llm-leaderboard-v2'"
    )
    assert "sha256sum board.yaml" in text
    written = yaml.safe_load(text)
    shipped = yaml.safe_load((REPO / "validator/profiles/open-llm-leaderboard-v2.yaml").read_text())
    assert written == {**shipped, "name": "my-v2"}
    check = run_cli("profile", "check", "board.yaml", cwd=tmp_path)
    assert (check.returncode, check.stdout) == (0, "ok: board.yaml is a valid profile\n")
    again = run_cli(
        "profile", "init", "--from", "open-llm-leaderboard-v2", "-o", "board.yaml", cwd=tmp_path
    )
    assert again.returncode == 1 and "board.yaml exists; pass --force" in again.stderr


def test_check_reports_every_problem_at_its_line(tmp_path):
    profile = tmp_path / "board.yaml"
    profile.write_text("""profile_format: 1
name: board
title: Board
average: {order: [stories, missing]}
benchmarks:
  - id: stories
    name: Stories
    output_type: multiple_choice
    aggregation: mean_of_subtasks
    metrics: [acc_norm]
    tasks:
      - {task: story_a, num_choices: 1}
      - {task: story_b, num_choices: "three"}
""")
    proc = run_cli("profile", "check", str(profile))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{profile}:12:25: [error] benchmarks[0].tasks[0].num_choices: 1 is less than the minimum of 2",
        f"{profile}:13:25: [error] benchmarks[0].tasks[1].num_choices: 'three' is not of type 'integer'",
    ]
    profile.write_text(profile.read_text().replace("1}", "2}").replace('"three"', "3"))
    proc = run_cli("profile", "check", str(profile))
    assert proc.stdout.splitlines() == [
        f"{profile}:4:11: [error] average.order names 'missing', which is not a benchmark id (stories)"
    ]
    profile.write_text("profile_format: 1\nname: [unclosed\n")
    proc = run_cli("profile", "check", str(profile))
    assert proc.returncode == 1 and proc.stdout.startswith(
        f"{profile}:3:1: LB102 syntax-error [error] not valid YAML"
    )


def story_run(tmp_path, literal_a=True):
    a = harness.scripted_choice_task("story_a", [True, False, True, True])
    b = harness.scripted_choice_task(
        "story_b", [True, False, False, True], choices=("w", "x", "y", "z")
    )
    varying = harness.choice_task("varying", 5)  # 2 to 5 choices per doc
    results = harness.results_for([a, b, varying])
    results["group_subtasks"] = {"stories": ["story_a", "story_b"]}
    if literal_a:
        results["configs"]["story_a"]["doc_to_choice"] = ["Alice", "Bob", "Carol"]
    return harness.write_run(tmp_path / "run", [a, b, varying], results)


def test_derive_fills_in_what_the_run_proves_and_leaves_placeholders_that_fail(tmp_path):
    paths = story_run(tmp_path)
    proc = run_cli("profile", "derive", str(paths["results"]), "-o", "board.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "3 task(s)" in proc.stdout and "3 sample log(s) read" in proc.stdout
    assert (
        "3 value(s) are FILL IN placeholders" in proc.stdout
        and "built-in profile" not in proc.stdout
    )
    text = (tmp_path / "board.yaml").read_text()
    data = yaml.safe_load(text)
    stories, varying = data["benchmarks"]
    assert [t["task"] for t in stories["tasks"]] == ["story_a", "story_b"]
    assert stories["tasks"][0]["num_choices"] == 3  # literal doc_to_choice, confirmed by the log
    assert "literal list of 3 and the sample log agrees" in stories["tasks"][0]["note"]
    assert stories["tasks"][1]["num_choices"] == 4  # from the log alone
    assert stories["metrics"] == ["acc_norm"] and stories["tasks"][1]["n"] == 4
    assert varying["tasks"][0]["num_choices"].startswith(
        "FILL IN: the number of answer choices; docs have different counts (samples_varying_"
    )
    assert varying["tasks"][0]["num_choices"].endswith(
        "the Open LLM Leaderboard takes the largest, 5, for such a task (MuSR object_placements)"
    )
    check = run_cli("profile", "check", "board.yaml", cwd=tmp_path)
    assert check.returncode == 1
    lines = text.splitlines()
    for shown in check.stdout.splitlines():
        line = int(shown.split(":")[1])
        assert "placeholder to fill in at" in shown and "FILL IN" in lines[line - 1], shown
    assert len(check.stdout.splitlines()) == 3
    unusable = run_cli(
        "normalize", "--profile-file", "board.yaml", str(paths["results"]), cwd=tmp_path
    )
    assert unusable.returncode == 3 and "FILL IN" in unusable.stderr


def test_a_filled_in_draft_scores_the_run_and_its_submission_passes(tmp_path):
    paths = story_run(tmp_path)
    run_cli(
        "profile",
        "derive",
        str(paths["results"]),
        "--name",
        "story-board",
        "-o",
        "board.yaml",
        cwd=tmp_path,
    )
    text = (tmp_path / "board.yaml").read_text()
    text = re.sub(r'aggregation: "FILL IN[^\n]*', "aggregation: mean_of_subtasks", text)
    text = re.sub(r'\["FILL IN[^\n]*', "[acc_norm]", text)
    text = re.sub(r'num_choices: "FILL IN[^\n]*', "num_choices: 5", text)
    (tmp_path / "board.yaml").write_text(text)
    assert run_cli("profile", "check", "board.yaml", cwd=tmp_path).returncode == 0
    init = run_cli("submission", "init", "--profile-file", "board.yaml", "run", cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    # stories: (3/4 of 3 -> 62.5 + 2/4 of 4 -> 33.33) / 2
    assert (
        json.loads((tmp_path / "run/submission.json").read_text())["reported"]["stories"] == 47.92
    )
    check = run_cli("check", "--profile-file", "board.yaml", "run/submission.json", cwd=tmp_path)
    assert check.returncode == 0, check.stdout


def test_a_config_and_a_log_that_disagree_leave_the_count_to_a_person(tmp_path):
    paths = story_run(tmp_path)
    results = json.loads(paths["results"].read_text())
    results["configs"]["story_a"]["doc_to_choice"] = ["Alice", "Bob", "Carol", "Dave"]
    paths["results"].write_text(json.dumps(results))
    run_cli("profile", "derive", str(paths["results"]), "-o", "board.yaml", cwd=tmp_path)
    task = yaml.safe_load((tmp_path / "board.yaml").read_text())["benchmarks"][0]["tasks"][0]
    assert task["num_choices"].startswith(
        "FILL IN: the number of answer choices; configs list 4 choices but samples_story_a_"
    )


def test_derive_from_the_v2_example_reads_19_choices_for_object_counting(tmp_path):
    """The object_counting trap: about.md says 'should be 18', the task scores 19; a literal list proves 19."""
    doc = json.loads(EXAMPLE.read_text())
    doc["configs"] = {
        task: {"output_type": "multiple_choice"}
        for task in doc["results"]
        if task.startswith("leaderboard_bbh_")
    }
    doc["configs"][BBH_OBJECT_COUNTING]["doc_to_choice"] = [str(i) for i in range(19)]
    results = tmp_path / "results_2025-01-27T10-10-36.877664.json"
    results.write_text(json.dumps(doc))
    proc = run_cli("profile", "derive", str(results), "-o", "board.yaml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith(
        "these are the tasks of the built-in profile open-llm-leaderboard-v2: lbnorm "
        "profile init --from open-llm-leaderboard-v2 gives its verified facts to "
        "start from"
    )
    data = yaml.safe_load((tmp_path / "board.yaml").read_text())
    bbh = next(b for b in data["benchmarks"] if b["id"] == "leaderboard_bbh")
    counting = next(t for t in bbh["tasks"] if t["task"] == BBH_OBJECT_COUNTING)
    assert counting["num_choices"] == 19 and counting["n"] == 250
    assert (
        bbh["output_type"] == "multiple_choice"
        and bbh["metrics"] == ["acc_norm"]
        and bbh["num_fewshot"] == 3
    )
    others = [t["num_choices"] for t in bbh["tasks"] if t["task"] != BBH_OBJECT_COUNTING]
    assert (
        all(
            n.startswith(
                "FILL IN: the number of answer choices; doc_to_choice is not a literal list"
            )
            for n in others
        )
        and len(others) == 23
    )
    gpqa = next(b for b in data["benchmarks"] if b["id"] == "leaderboard_gpqa")  # no configs entry
    assert gpqa["output_type"].startswith(
        "FILL IN: multiple_choice (baseline 1/num_choices) or generate_until"
    )
    assert data["average"]["order"] == [
        "leaderboard_bbh",
        "leaderboard_gpqa",
        "leaderboard_math_hard",
        "leaderboard_musr",
        "leaderboard_ifeval",
        "leaderboard_mmlu_pro",
    ]
    assert {"task": "leaderboard", "note": "group of 39 tasks"} in data["other_entries"]


def test_a_metric_under_two_filters_leaves_the_filter_to_a_person(tmp_path):
    """gsm8k-style: exact_match under strict-match and flexible-extract; a filter is any string to the schema."""
    results = {
        "results": {
            "arith": {
                "alias": "arith",
                "exact_match,strict-match": 0.25,
                "exact_match_stderr,strict-match": 0.01,
                "exact_match,flexible-extract": 0.5,
                "exact_match_stderr,flexible-extract": 0.01,
            }
        },
        "configs": {"arith": {"task": "arith", "output_type": "generate_until"}},
        "versions": {"arith": 3.0},
        "n-shot": {"arith": 5},
        "n-samples": {"arith": {"original": 40, "effective": 40}},
        "config": {"model_args": "pretrained=o/m"},
    }
    path = tmp_path / "results_2025-01-01T00-00-00.000000.json"
    path.write_text(json.dumps(results))
    run_cli("profile", "derive", str(path), "-o", "board.yaml", cwd=tmp_path)
    [bench] = yaml.safe_load((tmp_path / "board.yaml").read_text())["benchmarks"]
    assert bench["output_type"] == "generate_until" and bench["metrics"] == ["exact_match"]
    assert bench["filter"] == [
        "FILL IN: the filter of exact_match the leaderboard reads, one of: flexible-extract, "
        "strict-match"
    ]
    check = run_cli("profile", "check", "board.yaml", cwd=tmp_path)
    assert (
        check.returncode == 1
        and check.stdout.count("placeholder to fill in at benchmarks[0].filter[0]") == 1
    )
    assert len(check.stdout.splitlines()) == 1
    text = (tmp_path / "board.yaml").read_text()
    (tmp_path / "board.yaml").write_text(re.sub(r"filter: \[[^\n]*", "filter: strict-match", text))
    assert run_cli("profile", "check", "board.yaml", cwd=tmp_path).returncode == 0
    scores = run_cli("normalize", "--profile-file", "board.yaml", str(path), cwd=tmp_path)
    assert re.search(r"arith\s+0\.2500\s+25\.00", scores.stdout), scores.stdout


def test_check_names_a_placeholder_the_schema_would_accept(tmp_path):
    profile = tmp_path / "board.yaml"
    profile.write_text(
        (REPO / "examples" / "reading-board.yaml")
        .read_text()
        .replace('title: "Reading board"', 'title: "FILL IN: the title"')
    )
    proc = run_cli("profile", "check", str(profile))
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [
        f"{profile}:7:1: [error] placeholder to fill in at title: FILL IN: the title"
    ]
