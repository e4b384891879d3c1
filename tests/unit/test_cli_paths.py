"""Paths on the command line are read wherever they are and shown as typed; what files name stays fenced in.

The person at the keyboard chooses the paths; a pull request chooses what its files name (a
submission's `results` and `samples`) and the symlinks a walk meets. Only the latter are confined.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from support.common import EXAMPLE, REPO, run_cli

RUN = REPO / "examples" / "lm-eval-output"
BOARD_PROFILE = REPO / "examples" / "reading-board.yaml"


@pytest.fixture
def places(tmp_path):
    """A user's home (a git repository of its own) and a folder elsewhere holding a submission and a run."""
    home = tmp_path / "home"
    (home / ".git").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(EXAMPLE.parent, elsewhere / "pythia")
    shutil.copytree(RUN, elsewhere / "out")
    return home, elsewhere


def test_every_command_reads_a_path_outside_the_repository(places):
    home, elsewhere = places
    results = elsewhere / "pythia" / EXAMPLE.name
    proc = run_cli("normalize", str(results), cwd=home)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == str(results)
    proc = run_cli(
        "normalize", "--output-format", "json", f"../elsewhere/pythia/{EXAMPLE.name}", cwd=home
    )
    assert [f["path"] for f in json.loads(proc.stdout)["files"]] == [
        f"../elsewhere/pythia/{EXAMPLE.name}"
    ]
    for argument in (str(elsewhere / "pythia"), "../elsewhere/pythia/submission.json"):
        proc = run_cli("check", "--output-format", "json", argument, cwd=home)
        assert proc.returncode == 0, proc.stdout
    report = json.loads(proc.stdout)
    assert set(report["scores"]) == {"../elsewhere/pythia/submission.json"}
    proc = run_cli("audit", "-q", str(elsewhere / "out"), cwd=home)
    assert proc.returncode == 0 and "3 log(s) audited" in proc.stdout, proc.stdout
    proc = run_cli(
        "check",
        "--profile-file",
        str(BOARD_PROFILE),
        "--output-format",
        "json",
        "../elsewhere/out/*/*.json",
        cwd=home,
    )
    assert proc.returncode == 0, proc.stdout
    assert all(path.startswith("../elsewhere/out/") for path in json.loads(proc.stdout)["scores"])
    draft = home / "draft.json"
    proc = run_cli(
        "profile",
        "derive",
        "-o",
        str(home / "p.yaml"),
        str(next((elsewhere / "out").glob("*/results_*.json"))),
        cwd=home,
    )
    assert proc.returncode == 0, proc.stderr
    proc = run_cli("submission", "init", "-o", str(draft), str(elsewhere / "pythia"), cwd=home)
    assert draft.is_file(), proc.stderr


def test_a_finding_names_the_file_as_typed_with_line_and_column(places):
    home, elsewhere = places
    submission = elsewhere / "pythia" / "submission.json"
    doc = json.loads(submission.read_text())
    doc["reported"]["bbh"] += 1
    submission.write_text(json.dumps(doc, indent=2))
    proc = run_cli("check", "../elsewhere/pythia/submission.json", cwd=home)
    assert proc.returncode == 1
    assert "../elsewhere/pythia/submission.json" in proc.stdout and "LB601" in proc.stdout


def test_what_an_outside_submission_names_stays_in_its_folder(places):
    home, elsewhere = places
    secret = elsewhere.parent / "secret"
    secret.mkdir()
    shutil.copy(EXAMPLE, secret / "results.json")
    (secret / "samples_x_2025-01-27T10-10-36.877664.jsonl").write_text('{"doc_id": 0}\n')
    board = elsewhere / "board"
    board.mkdir()
    submission = json.loads((EXAMPLE.parent / "submission.json").read_text())
    submission["results"] = "../../secret/results.json"
    (board / "escape.json").write_text(json.dumps(submission, indent=2))
    submission["results"] = "results.json"
    submission["samples"] = ["../../secret/samples_x_2025-01-27T10-10-36.877664.jsonl"]
    shutil.copy(EXAMPLE, board / "results.json")
    (board / "logs.json").write_text(json.dumps(submission, indent=2))
    (board / "link.json").symlink_to(secret / "results.json")
    proc = run_cli("check", "--output-format", "json", str(board), cwd=home)
    assert proc.returncode == 1
    findings = {
        (f["rule"], os.path.basename(f["file"])) for f in json.loads(proc.stdout)["findings"]
    }
    assert {("LB203", "escape.json"), ("LB700", "logs.json"), ("LB101", "link.json")} <= findings
    for finding in json.loads(proc.stdout)["findings"]:
        if finding["rule"] in ("LB203", "LB700", "LB101"):
            assert "outside the workspace" in finding["message"]
    proc = run_cli(
        "check", str(board / "link.json"), cwd=home
    )  # named literally: the link is still judged
    assert proc.returncode == 1 and "outside the workspace" in proc.stdout


def test_an_explicit_root_still_fences_the_arguments(places):
    home, elsewhere = places
    proc = run_cli("check", "--root", str(home), str(elsewhere / "pythia"), cwd=home)
    assert proc.returncode == 1 and "LB101" in proc.stdout and "(--root)" in proc.stdout
    proc = run_cli(
        "normalize", "--root", str(home), str(elsewhere / "pythia" / EXAMPLE.name), cwd=home
    )
    assert proc.returncode == 1 and "(--root)" in proc.stdout + proc.stderr


def test_inside_a_repository_a_subfolder_sees_its_siblings(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "runs").mkdir()
    (tmp_path / "subs").mkdir()
    shutil.copy(EXAMPLE, tmp_path / "runs" / EXAMPLE.name)
    submission = json.loads((EXAMPLE.parent / "submission.json").read_text())
    submission["results"] = f"../runs/{EXAMPLE.name}"
    (tmp_path / "subs" / "a.json").write_text(json.dumps(submission, indent=2))
    proc = run_cli("check", "--output-format", "json", "a.json", cwd=tmp_path / "subs")
    assert proc.returncode == 0, proc.stdout
    assert set(json.loads(proc.stdout)["scores"]) == {"a.json"}
