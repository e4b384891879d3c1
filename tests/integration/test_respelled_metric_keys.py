"""A metric key lm-eval never writes ("acc_norm, none", blanks around a part) is named as such: LB103 beside
the key it copies, LB305 where it stands alone, never a puzzle of sample counts."""

from __future__ import annotations

import json
import shutil

import pytest
from support.common import REPO, run_cli

RUN = REPO / "examples" / "lm-eval-output" / "example-org__tiny-model"
BOARD_PROFILE = REPO / "examples" / "reading-board.yaml"
RESULTS = "results_2025-03-01T12-00-00.000000.json"


@pytest.fixture
def board(tmp_path):
    """An honest run folder with the submission `submission init` writes for it."""
    (tmp_path / ".git").mkdir()
    shutil.copytree(RUN, tmp_path / "run")
    shutil.copy(BOARD_PROFILE, tmp_path / "reading-board.yaml")
    init = run_cli(
        "submission", "init", "run", "--profile-file", "reading-board.yaml", cwd=tmp_path
    )
    assert init.returncode == 0, init.stdout + init.stderr
    return tmp_path


def respell(board, keep_original: bool) -> int:
    """Re-spell reading_quiz's acc_norm,none as 'acc_norm, none'; the line of the re-spelled key."""
    path = board / "run" / RESULTS
    results = json.loads(path.read_text())
    entry = results["results"]["reading_quiz"]
    value = entry["acc_norm,none"] if keep_original else entry.pop("acc_norm,none")
    entry["acc_norm, none"] = value
    text = json.dumps(results, indent=2)
    path.write_text(text)
    return next(n for n, line in enumerate(text.splitlines(), 1) if '"acc_norm, none"' in line)


def check(board):
    proc = run_cli(
        "check",
        "--profile-file",
        "reading-board.yaml",
        "--output-format",
        "json",
        "run/submission.json",
        cwd=board,
    )
    report = json.loads(proc.stdout)
    return proc, report, [(f["rule"], f["file"], f["line"]) for f in report["findings"]]


def test_a_respelled_key_alone_is_named_as_the_missing_metric(board):
    line = respell(board, keep_original=False)
    proc, report, found = check(board)
    assert proc.returncode == 1
    assert found == [("LB305", f"run/{RESULTS}", line)]
    assert "'acc_norm, none' is not a key lm-eval writes" in report["findings"][0]["message"]
    assert report["files_checked"] == 1


def test_a_respelled_key_beside_the_key_it_copies_is_a_duplicate(board):
    line = respell(board, keep_original=True)
    proc, report, found = check(board)
    assert proc.returncode == 1
    assert found == [("LB103", f"run/{RESULTS}", line)]
    assert report["files_checked"] == 1  # the results file is the submission's, not a second file
