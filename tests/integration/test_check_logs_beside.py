"""A submission's results file is audited against the sample logs lm-eval wrote beside it, whatever the
submission lists under `samples`: a field the submitter leaves out or trims never softens the verdict."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest
from support.action_runner import parse_outputs, run_action
from support.common import TINY_RUN_RESULTS, reading_board, run_cli

RESULTS = TINY_RUN_RESULTS
QUIZ_LOG = "samples_reading_quiz_2025-03-01T12-00-00.000000.jsonl"
PLACES_LOG = "samples_places_2025-03-01T12-00-00.000000.jsonl"


@pytest.fixture
def board(tmp_path):
    """A leaderboard checkout with an honest run folder and the submission `submission init` writes for it."""
    return reading_board(tmp_path)


def edit_submission(board, samples):
    """Raise reading_quiz in the results file and the reported scores to match; `samples` replaces the list
    (None: the field is left out)."""
    results_path = board / "run" / RESULTS
    results = json.loads(results_path.read_text())
    results["results"]["reading_quiz"]["acc_norm,none"] = 0.55
    results_path.write_text(json.dumps(results, indent=2))
    submission_path = board / "run" / "submission.json"
    submission = json.loads(submission_path.read_text())
    submission["reported"].update(reading=45.0, average=22.5)
    submission.pop("samples")
    if samples is not None:
        submission["samples"] = samples
    submission_path.write_text(json.dumps(submission, indent=2))


def check(board, *paths):
    proc = run_cli(
        "check",
        "--profile-file",
        "reading-board.yaml",
        "--output-format",
        "json",
        *paths,
        cwd=board,
    )
    return proc, json.loads(proc.stdout)


def rules_at(report):
    return sorted((f["rule"], f["file"], f["line"]) for f in report["findings"])


@pytest.mark.parametrize("samples", [None, [PLACES_LOG]], ids=["left-out", "one-of-three"])
def test_an_edited_aggregate_fails_whatever_the_submission_lists(board, samples):
    edit_submission(board, samples)
    for paths in (["run"], ["run/submission.json"]):
        proc, report = check(board, *paths)
        assert proc.returncode == 1, proc.stdout
        assert rules_at(report) == [("LB709", f"run/{RESULTS}", 10)]  # no false LB707 either


def test_an_honest_submission_without_samples_passes_and_its_logs_are_audited(board):
    submission_path = board / "run" / "submission.json"
    submission = json.loads(submission_path.read_text())
    del submission["samples"]
    submission_path.write_text(json.dumps(submission, indent=2))
    proc, report = check(board, "run/submission.json")
    assert proc.returncode == 0, proc.stdout
    assert sorted(report["audits"]["run/submission.json"]) == [
        "places",
        "reading_quiz",
        "reading_stories",
    ]


def test_a_listed_log_for_a_task_wins_over_a_second_one_beside_the_results(board):
    """Two logs for one task beside the results are ambiguous unless the submission lists the one it means."""
    shutil.copy(
        board / "run" / QUIZ_LOG, board / "run" / QUIZ_LOG.replace("samples_", "old_samples_")
    )
    proc, report = check(board, "run/submission.json")
    assert proc.returncode == 0, proc.stdout


def test_the_action_audits_the_logs_beside_the_results(board):
    edit_submission(board, None)
    digest = hashlib.sha256((board / "reading-board.yaml").read_bytes()).hexdigest()
    proc, outputs, _ = run_action(
        board,
        {
            "files": "run/submission.json",
            "profile_file": "reading-board.yaml",
            "profile_sha256": digest,
        },
    )
    assert proc.returncode == 1, proc.stdout
    assert "LB709" in proc.stdout
    assert parse_outputs(outputs)["files_checked"] == "1"
