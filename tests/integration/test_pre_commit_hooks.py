"""The hooks of .pre-commit-hooks.yaml, run by the real pre-commit against a scratch leaderboard repository.

pre-commit clones lbnorm at a commit (here: a snapshot of this working tree,
as `pre-commit try-repo` makes one) and installs it with pip, exactly as for
a user's `rev:`; the hooks then run with their preset `files:` patterns.
One test, one hook environment: the install dominates the time (~20-40 s).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from support.common import EXAMPLE, REPO

pytest.importorskip("pre_commit", reason="pre-commit is a test extra: pip install '.[test]'")

RESULTS_NAME = EXAMPLE.name


def git(cwd, *args):
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@localhost",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def snapshot_of_this_tree(target) -> str:
    """A repository holding the working tree as it is (committed or not), and its commit. An untracked virtual
    environment in the tree that .gitignore does not name (`venv/`, say) is left out: it is not lbnorm, and
    copying it would take most of the suite's time."""
    listed = git(REPO, "ls-files", "-co", "--exclude-standard", "-z").split("\0")
    untracked = set(git(REPO, "ls-files", "-o", "--exclude-standard", "-z").split("\0"))
    environments = tuple(
        name.removesuffix("pyvenv.cfg") for name in untracked if name.endswith("/pyvenv.cfg")
    )
    target.mkdir()
    git(target, "init", "-q")
    for name in filter(None, listed):
        if environments and name in untracked and name.startswith(environments):
            continue
        source = REPO / name
        if not os.path.lexists(source):  # deleted but not yet committed
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target / name)
        else:
            shutil.copy2(source, target / name)
    git(target, "add", "-A")
    git(target, "commit", "-qm", "snapshot")
    return git(target, "rev-parse", "HEAD")


def pre_commit(board, *args):
    env = {**os.environ, "PRE_COMMIT_HOME": str(board.parent / "pre-commit-home")}
    git(board, "add", "-A")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
        cwd=board,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_both_hooks_pass_honest_files_and_fail_changed_numbers(tmp_path):
    rev = snapshot_of_this_tree(tmp_path / "lbnorm")
    board = tmp_path / "board"
    model = board / "submissions" / "EleutherAI" / "pythia-1b"
    model.mkdir(parents=True)
    shutil.copy(EXAMPLE, model / RESULTS_NAME)
    shutil.copy(REPO / "examples" / "pythia-1b" / "submission.json", model / "submission.json")
    (board / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {tmp_path / 'lbnorm'}\n    rev: {rev}\n"
        "    hooks:\n      - id: lbnorm-check\n      - id: lbnorm-recheck\n"
    )
    git(board, "init", "-q")

    honest = pre_commit(board, "--all-files")
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert "lbnorm check (leaderboard submissions)" in honest.stdout and "Passed" in honest.stdout

    submission = json.loads((model / "submission.json").read_text())
    submission["reported"]["bbh"] = 12.29
    (model / "submission.json").write_text(json.dumps(submission, indent=2))
    inflated = pre_commit(board, "--files", "submissions/EleutherAI/pythia-1b/submission.json")
    assert inflated.returncode == 1
    assert "LB601" in inflated.stdout and "bbh" in inflated.stdout

    shutil.copy(REPO / "examples" / "pythia-1b" / "submission.json", model / "submission.json")
    results = json.loads(EXAMPLE.read_text())
    results["results"]["leaderboard_bbh_navigate"]["acc_norm,none"] = 0.9
    (model / RESULTS_NAME).write_text(json.dumps(results, indent=2))
    # pre-commit passes only the changed results file; the re-check finds the submission built on it
    changed = pre_commit(board, "--files", f"submissions/EleutherAI/pythia-1b/{RESULTS_NAME}")
    assert changed.returncode == 1, changed.stdout
    assert (
        "lbnorm check (leaderboard submissions)" in changed.stdout
        and "(no files to check)Skipped" in changed.stdout
    )
    assert (
        "re-checking 1 submission(s) that reference the changed files: "
        "submissions/EleutherAI/pythia-1b/submission.json" in changed.stdout
    )
    assert "LB601" in changed.stdout
