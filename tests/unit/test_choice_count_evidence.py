"""LB715: the profile's num_choices against the choices each doc of the sample log was scored with."""

from __future__ import annotations

import json

import pytest
from support import harness_logs as harness
from support.common import run_cli

PROFILE = """profile_format: 1
name: varying-board
title: Varying board
average: {{order: [varying]}}
benchmarks:
  - id: varying
    name: Varying
    output_type: multiple_choice
    aggregation: mean_of_subtasks
    metrics: [acc]
    tasks:
      - {{task: varying, num_choices: {choices}}}
"""


def board(tmp_path, choices: int):
    """A run whose docs have 2 to 5 choices each (as MuSR object_placements has), and a submission for it."""
    task = harness.choice_task("varying", 40, seed=3)
    counts = [len(sample["arguments"]) for sample in task.samples]
    assert max(counts) == 5 and min(counts) < 5
    paths = harness.write_run(tmp_path / "run", [task])
    (tmp_path / "board.yaml").write_text(PROFILE.format(choices=choices))
    init = run_cli("submission", "init", "--profile-file", "board.yaml", "run", cwd=tmp_path)
    # init checks what it wrote: a profile count below a doc's choices fails there as in check
    if choices <= max(counts):
        assert init.returncode == (0 if choices == max(counts) else 1), init.stdout + init.stderr
    assert (tmp_path / "run" / "submission.json").is_file()
    return task, paths, counts


def check(tmp_path):
    proc = run_cli(
        "check",
        "--output-format",
        "json",
        "--profile-file",
        "board.yaml",
        "run/submission.json",
        cwd=tmp_path,
    )
    return proc.returncode, json.loads(proc.stdout)


def test_the_largest_count_per_doc_proves_the_profile(tmp_path):
    _, _, counts = board(tmp_path, 5)
    code, report = check(tmp_path)
    assert code == 0, report["findings"]
    [audit] = report["audits"]["run/submission.json"].values()
    assert audit["notes"] == [
        "num_choices 5 of the profile is what the log scored (choices per doc: "
        + ", ".join(f"{n} in {counts.count(n)}" for n in sorted(set(counts)))
        + ")"
    ]


def test_a_doc_with_more_choices_than_the_profile_is_reported_at_its_line(tmp_path):
    task, paths, counts = board(tmp_path, 4)
    code, report = check(tmp_path)
    assert code == 1
    first_five = counts.index(5)
    [finding] = [f for f in report["findings"] if f["rule"] == "LB715"]
    assert finding["file"] == f"run/{paths['varying'].name}" and finding["line"] == first_five + 1
    assert finding["json_path"] == "$.arguments"
    assert finding["message"] == (
        f"varying: the profile's num_choices is 4 (baseline 1/4), but doc_id "
        f"{first_five} was scored with 5 choices, more than that"
    )
    assert "choices per doc: " in finding["details"]


def test_audit_takes_the_profile_from_the_command_line(tmp_path):
    """`lbnorm audit --profile-file`: the same LB715 at the same line as check; without a profile, no claim."""
    task, paths, counts = board(tmp_path, 4)
    results = next((tmp_path / "run").glob("results_*.json")).relative_to(tmp_path).as_posix()
    proc = run_cli(
        "audit", "--output-format", "json", "--profile-file", "board.yaml", results, cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stderr
    [finding] = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "LB715"]
    assert (
        finding["file"] == f"run/{paths['varying'].name}" and finding["line"] == counts.index(5) + 1
    )
    plain = run_cli("audit", "--output-format", "json", results, cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout
    assert not [f for f in json.loads(plain.stdout)["findings"] if f["rule"] == "LB715"]


def _limited(paths: dict, original: int) -> None:
    """The results file of a --limit run: its split has `original` documents, of which the log holds the first."""
    data = json.loads(paths["results"].read_text(encoding="utf-8"))
    data["n-samples"]["varying"]["original"] = original
    paths["results"].write_text(json.dumps(data, indent=2), encoding="utf-8")


@pytest.mark.parametrize("limited", [True, False])
def test_a_limited_run_without_a_doc_of_the_profiles_count_is_lb715_saying_why(tmp_path, limited):
    """A profile count no logged doc reaches is LB715 even on a --limit run (a note would let a submitter
    pass a fewer-choices variant by raising n-samples.original); the finding says when the run is partial."""
    _, paths, counts = board(tmp_path, 6)  # no doc has 6 choices
    if limited:
        _limited(paths, len(counts) * 10)
    proc = run_cli(
        "audit",
        "--output-format",
        "json",
        "--profile-file",
        "board.yaml",
        paths["results"].relative_to(tmp_path).as_posix(),
        cwd=tmp_path,
    )
    [finding] = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "LB715"]
    partial = f"though this run logs only {len(counts)} of {len(counts) * 10} documents"
    assert (partial in finding["message"] + finding.get("details", "")) == limited


def test_a_limited_run_with_a_doc_over_the_profiles_count_is_still_lb715(tmp_path):
    _, paths, counts = board(tmp_path, 4)
    _limited(paths, len(counts) * 10)
    proc = run_cli(
        "audit",
        "--output-format",
        "json",
        "--profile-file",
        "board.yaml",
        paths["results"].relative_to(tmp_path).as_posix(),
        cwd=tmp_path,
    )
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]].count("LB715") == 1


def test_a_limited_run_whose_docs_all_have_fewer_choices_is_still_lb715(tmp_path):
    """Every doc scored on 3 choices, the profile says 4: the task has 3 (as BBH object_counting scored on 18
    everywhere has 18), however little of its split ran. Only differing counts per doc make a note."""
    task = harness.scripted_choice_task("varying", [True, False, True, True])
    paths = harness.write_run(tmp_path / "run", [task])
    _limited(paths, 40)
    (tmp_path / "board.yaml").write_text(PROFILE.format(choices=4))
    proc = run_cli(
        "audit",
        "--output-format",
        "json",
        "--profile-file",
        "board.yaml",
        paths["results"].relative_to(tmp_path).as_posix(),
        cwd=tmp_path,
    )
    [finding] = [f for f in json.loads(proc.stdout)["findings"] if f["rule"] == "LB715"]
    assert "no doc was scored with that many (at most 3)" in finding["message"]
