"""`lbnorm leaderboard`: the published table from accepted submissions (validator/check/leaderboard.py,
validator/report/leaderboard.py).

Runs are the example pythia-1b results with MuSR's murder-mysteries score
changed (its group aggregate and stderr kept consistent, so `check` passes
them), each under its own model, with a submission written by `lbnorm
submission init`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import shutil

import pytest
from click.testing import CliRunner
from support.leaderboard_runs import EXAMPLE, write_run

from validator.cli import cli

MURDER_MYSTERIES = {"org0": 0.50, "org1": 0.62, "org2": 0.58, "org3": 0.50}  # org3 ties org0
FILES = ("leaderboard.csv", "leaderboard.json", "leaderboard.md", "leaderboard.html")


def lbnorm(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def board(tmp_path, monkeypatch):
    """A workspace of four accepted submissions (a git folder, so it is the workspace), the current directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    for org, score in MURDER_MYSTERIES.items():
        write_run(tmp_path / org, f"{org}/model", score)
        assert lbnorm("submission", "init", org).exit_code == 0
    return tmp_path


def normalized(path: str) -> dict:
    """`lbnorm normalize --output-format json` of one results file: its scores and average."""
    result = lbnorm("normalize", path, "--output-format", "json")
    (entry,) = json.loads(result.output)["files"]
    return entry


def test_every_score_is_recomputed_ranked_and_traced_digit_for_digit_with_normalize(board):
    # A reported average off by less than check's tolerance passes; the table must not show it.
    submission = json.loads((board / "org1" / "submission.json").read_text(encoding="utf-8"))
    submission["reported"]["average"] = round(submission["reported"]["average"] + 0.009, 4)
    (board / "org1" / "submission.json").write_text(json.dumps(submission), encoding="utf-8")
    result = lbnorm("leaderboard", "org0", "org1", "org2", "org3", "--out", "board")
    assert result.exit_code == 0, result.output
    table = json.loads((board / "board" / "leaderboard.json").read_text(encoding="utf-8"))
    entries = table["entries"]
    assert [(e["rank"], e["model"]) for e in entries] == [
        (1, "org1/model"),
        (2, "org2/model"),
        (3, "org0/model"),
        (3, "org3/model"),
    ], "ranked by average; equal averages share a rank"
    assert entries[0]["average"] != submission["reported"]["average"]
    for entry in entries:
        expected = normalized(entry["results"])
        assert repr(entry["average"]) == repr(expected["average"])
        assert {k: repr(v) for k, v in entry["scores"].items()} == {
            k: repr(expected["scores"][k]) for k in entry["scores"]
        }
        assert (
            entry["sha256"] == hashlib.sha256((board / entry["results"]).read_bytes()).hexdigest()
        )
        assert entry["results"] == f"{entry['model'].split('/')[0]}/{EXAMPLE.name}"
    rows = list(csv.DictReader(io.StringIO((board / "board" / "leaderboard.csv").read_text())))
    assert [row["average"] for row in rows] == [repr(e["average"]) for e in entries]
    markdown = (board / "board" / "leaderboard.md").read_text(encoding="utf-8")
    assert f"| 1 | org1/model | {entries[0]['average']:.2f} |" in markdown
    page = (board / "board" / "leaderboard.html").read_text(encoding="utf-8")
    assert (
        "<script>" in page and "<script src" not in page and "http" not in page.split("<body>")[1]
    )


def test_the_files_are_the_same_bytes_whatever_the_order_and_the_run(board):
    assert lbnorm("leaderboard", "org0", "org1", "org2", "org3", "--out", "first").exit_code == 0
    assert (
        lbnorm(
            "leaderboard", "org3/submission.json", "org2", "org1", "org0", "--out", "again"
        ).exit_code
        == 0
    )
    for name in FILES:
        assert (board / "first" / name).read_bytes() == (board / "again" / name).read_bytes(), name


def test_a_submission_that_check_fails_is_refused_and_nothing_is_written(board):
    submission = json.loads((board / "org2" / "submission.json").read_text(encoding="utf-8"))
    submission["reported"]["musr"] += 1.0  # beyond check's tolerance
    (board / "org2" / "submission.json").write_text(json.dumps(submission), encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["leaderboard", "org0", "org1", "org2", "--out", "board"], catch_exceptions=False
    )
    assert result.exit_code == 1
    assert "LB601 score-divergence [error] musr: reported" in result.stderr  # check's own report
    assert "1 file fails `lbnorm check` (org2/submission.json)" in result.stderr
    assert "nothing was written" in result.stderr
    assert not (board / "board").exists()


def test_a_bare_results_file_is_not_a_submission(board):
    shutil.rmtree(board / "org1")
    result = CliRunner().invoke(
        cli, ["leaderboard", f"org0/{EXAMPLE.name}", "--out", "board"], catch_exceptions=False
    )
    assert result.exit_code == 1
    assert f"org0/{EXAMPLE.name}: a results file, not a submission" in result.stderr


def test_one_run_named_by_two_submissions_is_refused(board):
    shutil.copytree(board / "org1", board / "copy")
    result = lbnorm("leaderboard", "org0", "org1", "copy", "--out", "board")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line.startswith(
        "lbnorm leaderboard: copy/submission.json and org1/submission.json name the same results file"
    )
    assert not (board / "board").exists()


def test_one_model_ranked_twice_is_refused(board):
    write_run(
        board / "again", "ORG1/model", 0.7
    )  # another run of org1's model: hub ids ignore case
    assert lbnorm("submission", "init", "again").exit_code == 0
    result = lbnorm("leaderboard", "org0", "org1", "again", "--out", "board")
    assert result.exit_code == 1
    [line] = result.stderr.splitlines()
    assert line == (
        "lbnorm leaderboard: again/submission.json and org1/submission.json both rank model "
        "'org1/model'; a leaderboard ranks each model once: leave one out; nothing was written"
    )
    assert not (board / "board").exists()


def test_runs_of_the_same_tasks_share_task_hashes_and_are_ranked(board):
    """task_hashes hash the docs, prompts and targets: every honest run of the same tasks has the same."""
    hashes = {
        json.dumps(json.loads((board / org / EXAMPLE.name).read_text())["task_hashes"])
        for org in MURDER_MYSTERIES
    }
    assert len(hashes) == 1
    assert lbnorm("leaderboard", *MURDER_MYSTERIES, "--out", "board").exit_code == 0
