"""`python -m validator normalize`: outputs, exit codes and messages, as a user meets them."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from support.common import EXAMPLE, REPO, V1_LM_EVAL_03, run_cli

EXPECTED_TEXT_ROWS = [  # two decimals: docs/reference/normalization.md's worked example, rounded
    ("IFEval", "22.08"),
    ("BBH", "2.29"),
    ("MATH Lvl 5", "0.30"),
    ("GPQA", "0.89"),
    ("MuSR", "2.73"),
    ("MMLU-PRO", "1.51"),
    ("Average", "4.97"),
]


def test_text_output_shows_two_decimals():
    proc = run_cli("normalize", str(EXAMPLE))
    assert proc.returncode == 0 and proc.stderr == ""
    for name, score in EXPECTED_TEXT_ROWS:
        assert re.search(
            rf"^  {re.escape(name)} .* {re.escape(score)}$", proc.stdout, re.MULTILINE
        ), name
    assert (
        "model EleutherAI/pythia-1b | lm-eval 0.4.x | profile open-llm-leaderboard-v2"
        in proc.stdout
    )


def test_explain_shows_choice_counts_bounds_and_formulas():
    proc = run_cli("normalize", "--explain", str(EXAMPLE))
    assert proc.returncode == 0
    assert re.search(r"leaderboard_bbh_object_counting\s+0\.072\s+19\s+1/19\s+2\.04", proc.stdout)
    assert re.search(r"leaderboard_musr_team_allocation\s+0\.308\s+3\s+1/3\s+0\.00", proc.stdout)
    assert "GPQA = max(0.25671140939597314 - 1/4, 0) / (1 - 1/4) * 100 = 0.89" in proc.stdout
    assert "raw used: group entry leaderboard_gpqa" in proc.stdout
    assert "BBH = sum of 24 normalized subtasks / 24 = 2.29" in proc.stdout
    assert (
        "Average = (IFEval + BBH + MATH Lvl 5 + GPQA + MuSR + MMLU-PRO) / 6 = 4.97" in proc.stdout
    )


def test_json_output_follows_the_contract():
    proc = run_cli("normalize", "--output-format", "json", str(EXAMPLE))
    doc = json.loads(proc.stdout)
    assert set(doc) == {"lbnorm_version", "files", "errors"} and doc["errors"] == []
    entry = doc["files"][0]
    assert {"path", "profile", "model", "scores", "average", "subtasks"} <= set(entry)
    assert (
        entry["path"] == EXAMPLE.relative_to(REPO).as_posix()
        and entry["model"] == "EleutherAI/pythia-1b"
    )
    assert list(entry["scores"]) == ["ifeval", "bbh", "math_lvl5", "gpqa", "musr", "mmlu_pro"]
    bbh = {s["task"]: s for s in entry["subtasks"]["bbh"]}
    assert bbh["leaderboard_bbh_object_counting"]["num_choices"] == 19
    assert bbh["leaderboard_bbh_object_counting"]["lower_bound"] == 1 / 19
    assert len(bbh) == 24


def test_one_bad_file_never_hides_a_good_one(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{")
    shutil.copy(EXAMPLE, tmp_path / "good.json")
    proc = run_cli("normalize", "--output-format", "json", "broken.json", "good.json", cwd=tmp_path)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert [f["path"] for f in doc["files"]] == ["good.json"]
    assert doc["errors"] == [
        {
            "path": "broken.json",
            "rule": "LB102",
            "message": "broken.json:1:2: not valid JSON: Expecting property "
            "name enclosed in double quotes",
        }
    ]
    text = run_cli("normalize", "broken.json", "good.json", cwd=tmp_path)
    assert text.returncode == 1 and text.stderr == ""
    assert text.stdout.splitlines()[0] == (
        "broken.json:1:2: LB102 syntax-error [error] not valid JSON: Expecting property "
        "name enclosed in double quotes"
    )


def test_a_missing_file_is_the_same_finding_in_every_command(tmp_path):
    line = "nope.json: LB101 unreadable-file [error] no such file"
    for command in (["normalize"], ["check"], ["audit"], ["profile", "check"]):
        proc = run_cli(*command, "nope.json", cwd=tmp_path)
        assert proc.returncode == 1, command
        assert proc.stdout.splitlines()[0] == line, (command, proc.stdout)
        assert "no such file" not in proc.stderr, command


def test_a_file_of_another_leaderboard_gets_a_hint():
    proc = run_cli("normalize", str(V1_LM_EVAL_03))
    assert proc.returncode == 1
    assert "LB202 results-format [error] no task of profile open-llm-leaderboard-v2" in proc.stdout
    assert "try --profile open-llm-leaderboard-v1" in proc.stdout
    fits = run_cli("normalize", "--profile", "open-llm-leaderboard-v1", str(V1_LM_EVAL_03))
    assert "no task of profile" not in fits.stdout and "MMLU" in fits.stdout
    # scored, and the run conditions it breaks are errors, as check reports them: never exit 0
    assert fits.returncode == 1 and "error LB503" in fits.stdout


def test_control_characters_in_a_file_name_cannot_forge_a_line(tmp_path):
    path = tmp_path / "evil\n::error::forged.json"
    path.write_text("[]")
    proc = run_cli("normalize", str(path))
    assert proc.returncode == 1
    assert len(proc.stdout.splitlines()) == 1 and "evil\\n::error::forged.json" in proc.stdout


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["normalize"],
        ["normalize", "--profile", "no-such-board", str(EXAMPLE)],
        [
            "normalize",
            "--profile",
            "open-llm-leaderboard-v2",
            "--profile-file",
            "x.yaml",
            str(EXAMPLE),
        ],
        ["normalize", "--output-format", "xml", str(EXAMPLE)],
        ["normalize", "--no-such-option", str(EXAMPLE)],
    ],
)
def test_usage_errors_exit_2(args):
    proc = run_cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr


def test_version_and_help():
    assert run_cli("--version").stdout.startswith("lbnorm, version ")
    help_text = run_cli("normalize", "--help").stdout
    assert "--explain" in help_text and "--profile-file" in help_text
