"""`lbnorm submission init`: from an lm-eval run to a submission that `check` passes as written."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from support import harness_logs as harness
from support.common import EXAMPLE, REPO, run_cli


def lm_eval_output(tmp_path, tasks=None):
    """<output_path>/<model_name_sanitized>/results_<date>.json and its samples, as lm-eval writes them."""
    tasks = tasks or [
        harness.scripted_choice_task("story_a", [True, False, True, True]),
        harness.scripted_choice_task("story_b", [True, True, False, True], choices=("x", "y")),
    ]
    paths = harness.write_run(tmp_path / "out" / "org__model", tasks)
    return tmp_path / "out", paths


def test_the_example_run_gives_the_shipped_submission(tmp_path):
    run = tmp_path / "pythia-1b"
    run.mkdir()
    shutil.copy(EXAMPLE, run)
    proc = run_cli("submission", "init", str(run), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = json.loads((run / "submission.json").read_text())
    assert written == json.loads((REPO / "examples" / "pythia-1b" / "submission.json").read_text())
    assert "  bbh            2.29   (exact 2.2940)" in proc.stdout
    assert (
        "still yours to decide:" in proc.stdout and "model: 'EleutherAI/pythia-1b'" in proc.stdout
    )
    assert "checked: lbnorm check pythia-1b/submission.json passes" in proc.stdout
    check = run_cli("check", "pythia-1b/submission.json", cwd=tmp_path)
    assert check.returncode == 0, check.stdout


STORY_PROFILE = """profile_format: 1
name: story-board
title: Story board
average: {order: [stories]}
benchmarks:
  - id: stories
    name: Stories
    output_type: multiple_choice
    aggregation: mean_of_subtasks
    metrics: [acc_norm]
    tasks:
      - {task: story_a, num_choices: 3}
      - {task: story_b, num_choices: 2}
"""


def test_an_output_folder_with_logs_and_a_custom_profile_passes_check_as_written(tmp_path):
    out, paths = lm_eval_output(tmp_path)
    stray = (
        out / "org__model" / f"samples_other_task_{harness.DATE}.jsonl"
    )  # a log of a task this run lacks
    stray.write_text(paths["story_a"].read_text())
    profile = tmp_path / "board.yaml"
    profile.write_text(STORY_PROFILE)
    proc = run_cli("submission", "init", "--profile-file", str(profile), str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    submission = out / "org__model" / "submission.json"
    written = json.loads(submission.read_text())
    # story_a: 3/4 right of 3 choices -> 62.5; story_b: 3/4 right of 2 -> 50; mean 56.25
    assert written == {
        "schema_version": 1,
        "model": "org/model",
        "profile": "story-board",
        "results": paths["results"].name,
        "reported": {"stories": 56.25, "average": 56.25},
        "samples": sorted(p.name for k, p in paths.items() if k != "results"),
    }
    assert "listed 2 sample log(s)" in proc.stdout
    assert "check with --profile-file" in proc.stdout
    assert (
        f"checked: lbnorm check --profile-file {profile} out/org__model/submission.json passes"
        in proc.stdout
    )
    check = run_cli(
        "check", "--profile-file", str(profile), "out/org__model/submission.json", cwd=tmp_path
    )
    assert check.returncode == 0, check.stdout
    assert "0 error(s), 0 warning(s)" in check.stdout


def test_a_submission_written_elsewhere_points_back_at_the_run(tmp_path):
    out, paths = lm_eval_output(tmp_path)
    profile = tmp_path / "board.yaml"
    profile.write_text(STORY_PROFILE)
    target = tmp_path / "submissions" / "org" / "model.json"
    proc = run_cli(
        "submission",
        "init",
        "--profile-file",
        str(profile),
        str(paths["results"]),
        "-o",
        str(target),
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    written = json.loads(target.read_text())
    assert written["results"] == f"../../out/org__model/{paths['results'].name}"
    assert all(log.startswith("../../out/org__model/samples_") for log in written["samples"])
    check = run_cli(
        "check", "--profile-file", str(profile), "submissions/org/model.json", cwd=tmp_path
    )
    assert check.returncode == 0, check.stdout


def test_a_run_the_profile_does_not_know_writes_nothing(tmp_path):
    out, paths = lm_eval_output(tmp_path)
    proc = run_cli("submission", "init", str(out), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"lbnorm: error: {paths['results']}: no task of profile open-llm-leaderboard-v2"
    )
    assert (
        "for your own tasks pass --profile-file (`lbnorm profile derive RESULTS_FILE` drafts one)"
        in proc.stderr
    )
    assert not (out / "org__model" / "submission.json").exists()


def test_nothing_is_overwritten_without_force(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(EXAMPLE, run)
    (run / "submission.json").write_text("my edits\n")
    proc = run_cli("submission", "init", str(run), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == (
        f"lbnorm: error: {run / 'submission.json'} exists; pass --force to overwrite it, "
        "or -o to write elsewhere\n"
    )
    assert (run / "submission.json").read_text() == "my edits\n"
    forced = run_cli(
        "submission", "init", "--force", "--model", "me/renamed", str(run), cwd=tmp_path
    )
    assert json.loads((run / "submission.json").read_text())["model"] == "me/renamed"
    # written, and told as check tells it: the results are another model's
    assert forced.returncode == 1 and "LB504" in forced.stdout, forced.stdout


def test_a_folder_with_two_runs_asks_which_one(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(EXAMPLE, run / "results_2025-01-27T10-10-36.877664.json")
    shutil.copy(EXAMPLE, run / "results_2025-02-01T00-00-00.000000.json")
    proc = run_cli("submission", "init", str(run), cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"lbnorm: error: {run}: 2 results files (")
    assert proc.stderr.rstrip().endswith("; pass the one to submit")


def test_a_run_without_a_model_id_asks_for_one(tmp_path):
    doc = json.loads(EXAMPLE.read_text())
    for key in ("model_name", "model_name_sanitized"):
        doc.pop(key, None)
    doc["config"]["model_args"] = "dtype=float16"
    results = tmp_path / "results_2025-01-27T10-10-36.877664.json"
    results.write_text(json.dumps(doc))
    proc = run_cli("submission", "init", str(results), cwd=tmp_path)
    assert proc.returncode == 1 and proc.stderr.rstrip().endswith("pass --model ORG/NAME")
    assert not (tmp_path / "submission.json").exists()
    bad = run_cli("submission", "init", "--model", "has space", str(results), cwd=tmp_path)
    assert bad.returncode == 2 and "--model" in bad.stderr


@pytest.mark.slow  # writes submissions, edits the log and runs recheck, each as a process
def test_recheck_checks_the_submissions_built_on_a_changed_log(tmp_path):
    out, paths = lm_eval_output(tmp_path)
    (tmp_path / "board.yaml").write_text(STORY_PROFILE)
    run_cli("submission", "init", "--profile-file", "board.yaml", "out", cwd=tmp_path)
    (tmp_path / "unrelated.json").write_text('{"reported": {}, "results": "elsewhere.json"}')
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "bomb.yaml").write_text(
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + "".join(
            f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
            for i in range(12)
        )
    )  # 9 * 4**12 values once expanded: passed over, not expanded
    yaml_submission = json.loads((out / "org__model" / "submission.json").read_text())
    yaml_submission["results"] = f"out/org__model/{yaml_submission['results']}"
    yaml_submission["samples"] = [f"out/org__model/{log}" for log in yaml_submission["samples"]]
    (tmp_path / "copy.yaml").write_text(yaml.safe_dump(yaml_submission))
    log = paths["story_b"].relative_to(tmp_path)
    proc = run_cli("submission", "recheck", "--profile-file", "board.yaml", str(log), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.startswith(
        "re-checking 2 submission(s) that reference the changed files: "
        "out/org__model/submission.json, copy.yaml\n"
    )
    lines = paths["story_b"].read_text().splitlines()
    sample = json.loads(lines[0])
    sample["acc_norm"] = 1 - sample["acc_norm"]  # a logged score edited after the run
    paths["story_b"].write_text("\n".join([json.dumps(sample), *lines[1:]]) + "\n")
    edited = run_cli(
        "submission", "recheck", "--profile-file", "board.yaml", str(log), cwd=tmp_path
    )
    assert edited.returncode == 1 and "LB708" in edited.stdout
    nothing = run_cli("submission", "recheck", "other/samples_x_2024.jsonl", cwd=tmp_path)
    assert (nothing.returncode, nothing.stdout) == (
        0,
        "no submission in **/*.json **/*.yaml **/*.yml references 1 changed file(s); nothing to check\n",
    )


def test_a_partial_run_has_no_average_and_writes_nothing(tmp_path):
    """A run of two of the profile's benchmarks (IFEval and MATH alone) has no average, which a submission must
    report: a data error naming the missing benchmarks, not an internal error."""
    doc = json.loads(EXAMPLE.read_text())
    kept = ("leaderboard_ifeval", "leaderboard_math")
    for key in (
        "results",
        "configs",
        "n-shot",
        "versions",
        "n-samples",
        "higher_is_better",
        "group_subtasks",
    ):
        if isinstance(doc.get(key), dict):
            doc[key] = {task: value for task, value in doc[key].items() if task.startswith(kept)}
    results = tmp_path / "results_2025-01-27T10-10-36.877664.json"
    results.write_text(json.dumps(doc))
    proc = run_cli("submission", "init", str(results), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(
        f"lbnorm: error: {results}: the run does not score every benchmark of profile "
        "open-llm-leaderboard-v2, so there is no average to submit (missing: BBH ("
    )
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "submission.json").exists()


def test_init_reads_the_configuration_check_reads(tmp_path):
    out, paths = lm_eval_output(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "board.yaml").write_text(STORY_PROFILE)
    (tmp_path / ".lbnorm.toml").write_text('profile-file = "board.yaml"\n')
    proc = run_cli("submission", "init", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "with profile story-board" in proc.stdout
    assert "checked: lbnorm check out/org__model/submission.json passes" in proc.stdout
    assert (
        run_cli("check", "--strict", "out/org__model/submission.json", cwd=tmp_path).returncode == 0
    )
    isolated = run_cli("submission", "init", "--isolated", "--force", str(out), cwd=tmp_path)
    assert (
        isolated.returncode == 1 and "no task of profile open-llm-leaderboard-v2" in isolated.stderr
    )
    (tmp_path / "elsewhere.toml").write_text('profile-file = "board.yaml"\n')
    (tmp_path / ".lbnorm.toml").unlink()
    proc = run_cli(
        "submission", "init", "--config", "elsewhere.toml", "--force", str(out), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "checked: lbnorm check --config elsewhere.toml out/org__model/submission.json passes"
        in proc.stdout
    )


def test_a_limit_run_is_written_and_refused_as_check_refuses_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    doc = json.loads(EXAMPLE.read_text())
    doc.setdefault("config", {})["limit"] = 10
    (run / EXAMPLE.name).write_text(json.dumps(doc, indent=2))
    proc = run_cli("submission", "init", "run", cwd=tmp_path)
    assert proc.returncode == 1
    assert "checked: lbnorm check run/submission.json fails" in proc.stdout
    assert "LB501 partial-run-limit" in proc.stdout
    assert run_cli("check", "run/submission.json", cwd=tmp_path).returncode == 1


def test_a_named_output_run_is_found_as_check_finds_it(tmp_path):
    """lm-eval's --output_path NAME.json writes NAME_<date>.json beside its logs."""
    out, paths = lm_eval_output(tmp_path)
    folder = out / "org__model"
    paths["results"].rename(folder / f"mine_{harness.DATE}.json")
    (tmp_path / "board.yaml").write_text(STORY_PROFILE)
    proc = run_cli("submission", "init", "--profile-file", "board.yaml", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    written = json.loads((folder / "submission.json").read_text())
    assert written["results"] == f"mine_{harness.DATE}.json" and len(written["samples"]) == 2


def test_a_submission_written_away_from_its_run_says_check_refuses_it(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    shutil.copy(EXAMPLE, run)
    proc = run_cli("submission", "init", "-o", "elsewhere/s.json", "run", cwd=tmp_path)
    written = json.loads((tmp_path / "elsewhere" / "s.json").read_text())
    assert written["results"] == f"../run/{EXAMPLE.name}"  # relative to the submission
    assert proc.returncode == 0, proc.stdout  # inside the folder it runs in: check reads it
    home = tmp_path / "home"
    home.mkdir()
    proc = run_cli(
        "submission",
        "init",
        "--force",
        "-o",
        str(tmp_path / "elsewhere" / "s.json"),
        str(run),
        cwd=home,
    )
    assert (
        proc.returncode == 1 and "LB203" in proc.stdout
    )  # the results leave the submission's folder
