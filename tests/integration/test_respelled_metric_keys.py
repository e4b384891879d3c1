"""A metric key lm-eval never writes ("acc_norm, none", blanks around a part) is named as such: LB103 beside
the key it copies, LB305 where it stands alone, never a puzzle of sample counts."""

from __future__ import annotations

import json

import pytest
from support.common import TINY_RUN_RESULTS, reading_board, run_cli

RESULTS = TINY_RUN_RESULTS


@pytest.fixture
def board(tmp_path):
    """An honest run folder with the submission `submission init` writes for it."""
    return reading_board(tmp_path)


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
