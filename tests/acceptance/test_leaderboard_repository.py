"""A leaderboard repository holding every kind of file lbnorm writes: `check --strict .` passes on it.

Its report, profiles, configuration, pre-commit and CI files are lbnorm's own; a folder check passes them
over quietly. They are recognised by what they hold, so a submission disguised as one is still checked.
"""

from __future__ import annotations

import json
import shutil

import pytest
from support.common import REPO, run_cli

# Each test builds a leaderboard repository and runs lbnorm over all of it.
pytestmark = pytest.mark.slow

RUN = REPO / "examples" / "lm-eval-output" / "example-org__tiny-model"
WORKFLOW = """name: lbnorm
on:
  pull_request:
    paths: ["submissions/**"]
permissions: {}
jobs:
  lbnorm:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@v4
"""
PRE_COMMIT = """repos:
  - repo: local
    hooks:
      - id: lbnorm-check
        name: lbnorm check
        entry: lbnorm check
        language: system
"""


@pytest.fixture
def board(tmp_path):
    """Built as a maintainer builds one, with lbnorm's own commands writing what they write."""
    (tmp_path / ".git").mkdir()
    shutil.copytree(RUN, tmp_path / "submissions" / "tiny")
    (tmp_path / ".lbnorm").mkdir()
    shutil.copy(REPO / "examples" / "reading-board.yaml", tmp_path / ".lbnorm" / "profile.yaml")
    (tmp_path / ".lbnorm.toml").write_text('profile-file = ".lbnorm/profile.yaml"\n')
    (tmp_path / ".pre-commit-config.yaml").write_text(PRE_COMMIT)
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "lbnorm.yml").write_text(WORKFLOW)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "lbnorm.yml").write_text(WORKFLOW.replace("on:", '"on":'))  # outside .github
    shutil.copy(REPO / "action.yml", tmp_path / "ci" / "action.yml")
    steps = [
        (
            "profile",
            "init",
            "--from",
            "open-llm-leaderboard-v2",
            "--name",
            "board",
            "-o",
            "profile.yaml",
        ),
        (
            "profile",
            "derive",
            "-o",
            "derived.yaml",
            f"submissions/tiny/{next(RUN.glob('results_*')).name}",
        ),
        ("submission", "init", "--profile-file", ".lbnorm/profile.yaml", "submissions/tiny"),
    ]
    for step in steps:
        proc = run_cli(*step, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    for name, args in {
        "lbnorm-report.json": ("check", "--output-format", "json", "."),
        "audit-report.json": ("audit", "--output-format", "json", "submissions/tiny"),
        "lbnorm.sarif": ("check", "--output-format", "sarif", "."),
        "junit.xml": ("check", "--output-format", "junit", "."),
    }.items():
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout
        (tmp_path / name).write_text(proc.stdout)
    proc = run_cli(
        "survey",
        "--profile-file",
        ".lbnorm/profile.yaml",
        "--out",
        "survey",
        "submissions",
        cwd=tmp_path,
    )
    assert (tmp_path / "survey" / "settings.json").is_file(), proc.stderr
    return tmp_path


def test_an_honest_board_passes_a_strict_check_of_its_top(board):
    proc = run_cli("check", "--strict", "--output-format", "json", ".", cwd=board)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report["findings"]
    assert report["findings"] == [] and report["files_checked"] == 1
    assert list(report["scores"]) == ["submissions/tiny/submission.json"]


def test_a_submission_dressed_as_lbnorm_output_is_still_checked(board):
    submission = json.loads((board / "submissions" / "tiny" / "submission.json").read_text())
    submission["reported"]["reading"] = 99.0
    submission["lbnorm_version"], submission["findings"] = "1.0", []
    (board / "submissions" / "tiny" / "lbnorm-report.json").write_text(
        json.dumps(submission, indent=2)
    )
    proc = run_cli("check", "--strict", "--output-format", "json", ".", cwd=board)
    rules = {(f["rule"], f["file"]) for f in json.loads(proc.stdout)["findings"]}
    assert proc.returncode == 1
    assert ("LB201", "submissions/tiny/lbnorm-report.json") in rules


def test_lbnorm_files_named_to_check_say_which_command_takes_them(board):
    proc = run_cli("check", "profile.yaml", "lbnorm-report.json", cwd=board)
    assert proc.returncode == 1
    assert proc.stdout.count("LB113 not-for-check") == 2 and "lbnorm profile check" in proc.stdout


def test_sample_logs_given_to_check(board):
    proc = run_cli("check", "submissions/tiny/*.jsonl", cwd=board)  # quoted: check expands it
    assert proc.returncode == 1 and "LB100" in proc.stdout
    assert "matched only sample logs" in proc.stdout and "lbnorm audit" in proc.stdout
    logs = sorted(
        p.relative_to(board).as_posix() for p in (board / "submissions" / "tiny").glob("*.jsonl")
    )
    proc = run_cli("check", *logs, cwd=board)  # as a shell expands it: logs alone
    assert proc.returncode == 1 and proc.stdout.count("LB113 not-for-check") == 3
    assert "syntax" not in proc.stdout and "lbnorm audit" in proc.stdout
    everything = sorted(
        p.relative_to(board).as_posix() for p in (board / "submissions" / "tiny").iterdir()
    )
    proc = run_cli("check", "--strict", *everything, cwd=board)  # the logs with their results file
    assert proc.returncode == 0, proc.stdout
