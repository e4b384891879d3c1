"""The survey reads the settings check and audit read: the configuration file, and the rule selection options.

A maintainer who set a profile, limits or rule severities in `.lbnorm.toml` (or `[tool.lbnorm]` of
pyproject.toml) gets them in a survey run from that folder too, as ruff's every command reads its
configuration; `--isolated` ignores the file, `--config FILE` names one. The bounds stay the maintainer's:
rules that mean "could not be judged" cannot be ignored or demoted from a file either.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from survey_corpus import make_corpus
from test_survey import BOARD
from validator.survey.tables import read_jsonl

REPO = Path(__file__).resolve().parents[1]


def survey_in(folder: Path, *args: str, source: str = "runs", env: dict | None = None) -> subprocess.CompletedProcess:
    """`lbnorm survey SOURCE --out out ARGS` run from `folder` (where a configuration file may sit)."""
    environment = {name: value for name, value in os.environ.items() if name != "GITHUB_EVENT_NAME"}
    environment.update(PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "validator", "survey", source, "--out", "out", "--no-plots",
                           "--workers", "1", *args], cwd=folder, capture_output=True, text=True, timeout=120,
                          env=environment)


@pytest.fixture
def run_without_a_log(tmp_path: Path) -> Path:
    """A folder holding `runs/`: one clean run whose arc_easy log is gone (LB707, an error in a survey),
    and a git marker so no configuration above the test's folder is found."""
    (tmp_path / ".git").mkdir()
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    next((tmp_path / "runs").glob("*/samples_arc_easy_*.jsonl")).unlink()
    return tmp_path


def arc_easy_row(folder: Path) -> dict:
    return next(row for row in read_jsonl(folder / "out" / "survey.jsonl") if row["task"] == "arc_easy")


@pytest.mark.parametrize("name, text", [(".lbnorm.toml", 'warn = ["LB707"]\n'),
                                        ("pyproject.toml", '[project]\nname = "board"\n\n[tool.lbnorm]\n'
                                                           'warn = ["LB707"]\n')])
def test_the_configuration_file_found_upward_sets_the_surveys_rule_severities(run_without_a_log, name, text):
    (run_without_a_log / name).write_text(text, encoding="utf-8")
    nested = run_without_a_log / "sub"
    nested.mkdir()
    (nested / "runs").symlink_to(run_without_a_log / "runs", target_is_directory=True)
    result = survey_in(nested)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"lbnorm survey: settings from {run_without_a_log / name}" in result.stderr
    row = arc_easy_row(nested)
    assert (row["errors"], row["warnings"], row["rules"]) == (0, 1, {"LB707": 1})


def test_isolated_ignores_the_configuration_file_and_config_names_one(run_without_a_log, tmp_path_factory):
    (run_without_a_log / ".lbnorm.toml").write_text('warn = ["LB707"]\n', encoding="utf-8")
    result = survey_in(run_without_a_log, "--isolated")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "settings from" not in result.stderr
    assert (arc_easy_row(run_without_a_log)["errors"], arc_easy_row(run_without_a_log)["warnings"]) == (1, 0)

    elsewhere = tmp_path_factory.mktemp("board") / "survey.toml"
    elsewhere.write_text('[tool.lbnorm]\nignore = ["LB707"]\n', encoding="utf-8")
    (run_without_a_log / ".lbnorm.toml").unlink()
    shutil.rmtree(run_without_a_log / "out")
    result = survey_in(run_without_a_log, "--config", str(elsewhere))
    assert result.returncode == 0, result.stdout + result.stderr
    row = arc_easy_row(run_without_a_log)
    assert (row["errors"], row["warnings"], row["rules"], row["first_finding"]) == (0, 0, {}, None)


@pytest.mark.parametrize("args, counts, code", [
    (["--ignore", "LB707"], (0, 0), 0),
    (["--extend-ignore", "LB70,LB71"], (0, 0), 0),  # comma-separated codes, as check's options take them
    (["--warn", "LB7", "--error", "LB707"], (1, 0), 1),  # the most specific code decides: LB707 over LB7
    (["--select", "LB6"], (0, 0), 0),  # only check's score rules: the maintainer chose to audit nothing here
])
def test_the_rule_selection_options_are_checks(run_without_a_log, args, counts, code):
    result = survey_in(run_without_a_log, *args)
    assert result.returncode == code, result.stdout + result.stderr
    row = arc_easy_row(run_without_a_log)
    assert (row["errors"], row["warnings"]) == counts
    assert row["rules"] == ({} if counts == (0, 0) else {"LB707": 1})


@pytest.mark.parametrize("where, setting", [("option", ["--ignore", "LB101"]), ("file", 'warn = ["LB101"]\n'),
                                            ("file", 'per-file-ignores = {"**" = ["LB106"]}\n')])
def test_rules_that_mean_unjudged_stay_errors_from_a_file_too(run_without_a_log, where, setting):
    if where == "file":
        (run_without_a_log / ".lbnorm.toml").write_text(setting, encoding="utf-8")
    result = survey_in(run_without_a_log, *(setting if where == "option" else []))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot be ignored or made a warning" in result.stderr
    assert not (run_without_a_log / "out").exists()


def test_per_file_ignores_match_the_file_names_the_table_shows(run_without_a_log):
    """A glob on the name as the table's `run` and `log` columns show it (relative to the source)."""
    run = next((run_without_a_log / "runs").iterdir()).name
    (run_without_a_log / ".lbnorm.toml").write_text(
        f'[per-file-ignores]\n"{run}/results_*.json" = ["LB707"]\n"other/*" = ["LB709"]\n', encoding="utf-8")
    result = survey_in(run_without_a_log)
    assert result.returncode == 0, result.stdout + result.stderr
    assert arc_easy_row(run_without_a_log)["rules"] == {}


def test_limits_and_profile_come_from_the_file(run_without_a_log):
    """max-log-records bounds every log (LB106, an error that cannot be demoted); a profile's choice counts
    are claims the multiple-choice logs must prove (LB715)."""
    (run_without_a_log / ".lbnorm.toml").write_text('max-log-records = 2\n', encoding="utf-8")
    result = survey_in(run_without_a_log)
    assert result.returncode == 1
    rows = read_jsonl(run_without_a_log / "out" / "survey.jsonl")
    assert {row["task"]: row["rules"].get("LB106") for row in rows if row["log"]} == {"drop": 1}

    profile = run_without_a_log / "board.yaml"
    profile.write_text(BOARD % 3, encoding="utf-8")  # 3 choices: no arc_easy log of the corpus scores that many
    (run_without_a_log / ".lbnorm.toml").write_text('profile-file = "board.yaml"\nwarn = ["LB707"]\n',
                                                   encoding="utf-8")
    make_corpus(run_without_a_log / "logged", runs=1, seed=4, fault_rate=0)
    shutil.rmtree(run_without_a_log / "out")
    result = survey_in(run_without_a_log, source="logged")
    assert result.returncode == 1, result.stdout + result.stderr
    row = arc_easy_row(run_without_a_log)
    assert row["rules"] == {"LB715": 1}, row


def test_a_pull_request_workflow_reads_no_configuration_it_did_not_name(run_without_a_log):
    """As check and audit: the checkout is the pull request's, and so would be its configuration."""
    (run_without_a_log / ".lbnorm.toml").write_text('warn = ["LB707"]\n', encoding="utf-8")
    result = survey_in(run_without_a_log, env={"GITHUB_EVENT_NAME": "pull_request_target"})
    assert result.returncode == 1, result.stdout + result.stderr
    assert "is not read in a pull-request workflow" in result.stderr


def test_the_journal_settings_record_the_selection_however_it_was_typed(run_without_a_log):
    """--resume refuses a survey whose options changed; the same codes in another order or case are the same."""
    first = survey_in(run_without_a_log, "--warn", "LB707,LB709")
    assert first.returncode == 0, first.stderr
    settings = json.loads((run_without_a_log / "out" / "settings.json").read_text(encoding="utf-8"))
    assert settings["selection.warn"] == ["LB707", "LB709"]
    again = survey_in(run_without_a_log, "--resume", "--warn", "lb709", "--warn", "LB707")
    assert again.returncode == 0, again.stderr
    changed = survey_in(run_without_a_log, "--resume")
    assert changed.returncode == 2 and "selection.warn" in changed.stderr
