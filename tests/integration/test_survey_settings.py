"""The survey's settings: the configuration file's profile, strict and limits, and its own rule options.

A maintainer who set a profile or limits in `.lbnorm.toml` (or `[tool.lbnorm]` of pyproject.toml) gets
them in a survey run from that folder too; `--isolated` ignores the file, `--config FILE` names one. The
file's rule selection is check's and audit's and is not applied (a note says so): check's warnings LB707
and LB111 are errors in a survey, and per-file-ignores match workspace paths, not the folder names a
submitter chooses inside a source. Rules come from --select/--ignore/--warn/--error, and nothing left
unaudited passes, whatever they say.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.survey_corpus import make_corpus
from test_survey import BOARD

from validator.survey.tables import read_jsonl

REPO = Path(__file__).resolve().parents[2]


def survey_in(
    folder: Path, *args: str, source: str = "runs", env: dict | None = None
) -> subprocess.CompletedProcess:
    """`lbnorm survey SOURCE --out out ARGS` run from `folder` (where a configuration file may sit)."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("GITHUB_EVENT_NAME", "GITHUB_ACTIONS")
    }
    environment.update(PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "validator",
            "survey",
            source,
            "--out",
            "out",
            "--no-plots",
            "--workers",
            "1",
            *args,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )


@pytest.fixture
def run_without_a_log(tmp_path: Path) -> Path:
    """A folder holding `runs/`: one clean run whose arc_easy log is gone (LB707, an error in a survey),
    and a git marker so no configuration above the test's folder is found."""
    (tmp_path / ".git").mkdir()
    make_corpus(tmp_path / "runs", runs=1, seed=3, fault_rate=0)
    next((tmp_path / "runs").glob("*/samples_arc_easy_*.jsonl")).unlink()
    return tmp_path


def arc_easy_row(folder: Path) -> dict:
    return next(
        row for row in read_jsonl(folder / "out" / "survey.jsonl") if row["task"] == "arc_easy"
    )


def drop_row(folder: Path) -> dict:
    return next(row for row in read_jsonl(folder / "out" / "survey.jsonl") if row["task"] == "drop")


@pytest.mark.parametrize(
    "name, text",
    [
        (".lbnorm.toml", "max-log-records = 2\n"),
        ("pyproject.toml", '[project]\nname = "board"\n\n[tool.lbnorm]\nmax-log-records = 2\n'),
    ],
)
def test_the_configuration_file_found_upward_sets_the_surveys_limits(run_without_a_log, name, text):
    (run_without_a_log / name).write_text(text, encoding="utf-8")
    nested = run_without_a_log / "sub"
    nested.mkdir()
    (nested / "runs").symlink_to(run_without_a_log / "runs", target_is_directory=True)
    result = survey_in(nested)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        f"lbnorm survey: profile, strict and limits from {run_without_a_log / name}"
        in result.stderr
    )
    assert "rule selection" not in result.stderr  # the file has none
    assert drop_row(nested)["rules"] == {"LB106": 1}  # the drop log has more than 2 records


def test_isolated_ignores_the_configuration_file_and_config_names_one(
    run_without_a_log, tmp_path_factory
):
    (run_without_a_log / ".lbnorm.toml").write_text("max-log-records = 2\n", encoding="utf-8")
    result = survey_in(run_without_a_log, "--isolated")
    assert "from" not in result.stderr.split("units to run")[0]
    assert drop_row(run_without_a_log)["rules"] == {}

    elsewhere = tmp_path_factory.mktemp("board") / "survey.toml"
    elsewhere.write_text("[tool.lbnorm]\nmax-log-records = 2\n", encoding="utf-8")
    (run_without_a_log / ".lbnorm.toml").unlink()
    shutil.rmtree(run_without_a_log / "out")
    result = survey_in(run_without_a_log, "--config", str(elsewhere))
    assert f"limits from {elsewhere}" in result.stderr
    assert drop_row(run_without_a_log)["rules"] == {"LB106": 1}


@pytest.mark.parametrize(
    "setting",
    [
        'warn = ["LB707"]\n',
        'extend-ignore = ["LB707", "LB111"]\n',
        'select = ["LB6"]\n',
        '[per-file-ignores]\n"**" = ["LB7"]\n',
    ],
)
def test_a_check_configurations_rule_selection_does_not_soften_a_survey(run_without_a_log, setting):
    """A file written for check (where LB707 and LB111 are warnings, and globs match workspace paths)
    takes no survey error away: a tampered run behind them still fails with exit 1."""
    (run_without_a_log / ".lbnorm.toml").write_text(setting, encoding="utf-8")
    result = survey_in(run_without_a_log)
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "a survey takes rules from its own --select/--ignore/--warn/--error only" in result.stderr
    )
    row = arc_easy_row(run_without_a_log)
    assert (row["errors"], row["rules"]) == (1, {"LB707": 1})


@pytest.mark.parametrize(
    "args, counts, code",
    [
        (["--ignore", "LB707"], (0, 0), 0),
        (
            ["--extend-ignore", "LB70,LB71"],
            (0, 0),
            0,
        ),  # comma-separated codes, as check's options take them
        (
            ["--warn", "LB7", "--error", "LB707"],
            (1, 0),
            1,
        ),  # the most specific code decides: LB707 over LB7
        (
            ["--select", "LB6"],
            (0, 0),
            0,
        ),  # only check's score rules: the maintainer chose to audit nothing here
    ],
)
def test_the_rule_selection_options_are_checks(run_without_a_log, args, counts, code):
    result = survey_in(run_without_a_log, *args)
    assert result.returncode == code, result.stdout + result.stderr
    row = arc_easy_row(run_without_a_log)
    assert (row["errors"], row["warnings"]) == counts
    assert row["rules"] == ({} if counts == (0, 0) else {"LB707": 1})


@pytest.mark.parametrize("code", ["LB101", "LB106", "LB110", "LB112"])
def test_rules_that_mean_unjudged_cannot_be_ignored_or_demoted(run_without_a_log, code):
    """LB110 and LB112 were missing: --ignore LB112 passed a log too big to read, with a tampered number."""
    for option in ("--ignore", "--warn"):
        result = survey_in(run_without_a_log, option, code)
        assert result.returncode == 2, result.stdout + result.stderr
        assert f"{code} cannot be ignored or made a warning" in result.stderr
    assert not (run_without_a_log / "out").exists()


@pytest.mark.parametrize(
    "args", [["--select", "LB709,LB404"], ["--ignore", "LB700"], ["--warn", "LB7"]]
)
def test_a_run_not_audited_fails_whatever_the_selection(run_without_a_log, args):
    """With every log deleted, --select LB709,LB404 cannot leave the run's "no logs" row without a
    finding and exit 0 on a run nobody audited: such rows fail by their status."""
    for log in (run_without_a_log / "runs").glob("*/samples_*.jsonl"):
        log.unlink()
    result = survey_in(run_without_a_log, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    assert [
        row["status"]
        for row in read_jsonl(run_without_a_log / "out" / "survey.jsonl")
        if row["task"] == ""
    ] == ["no logs"]
    assert "1 units not audited" in result.stdout


def test_the_profile_comes_from_the_file(run_without_a_log):
    """A profile's choice counts are claims the multiple-choice logs must prove (LB715)."""
    (run_without_a_log / "board.yaml").write_text(
        BOARD % 3, encoding="utf-8"
    )  # no arc_easy log has 3 at most
    (run_without_a_log / ".lbnorm.toml").write_text(
        'profile-file = "board.yaml"\n', encoding="utf-8"
    )
    make_corpus(run_without_a_log / "logged", runs=1, seed=4, fault_rate=0)
    result = survey_in(run_without_a_log, source="logged")
    assert result.returncode == 1, result.stdout + result.stderr
    assert arc_easy_row(run_without_a_log)["rules"] == {"LB715": 1}


def test_a_pull_request_workflow_reads_no_configuration_it_did_not_name(run_without_a_log):
    """As check and audit: the checkout is the pull request's, and so would be its configuration."""
    (run_without_a_log / ".lbnorm.toml").write_text("max-log-records = 2\n", encoding="utf-8")
    result = survey_in(run_without_a_log, env={"GITHUB_EVENT_NAME": "pull_request_target"})
    assert "is not read in a GitHub Actions workflow" in result.stderr
    assert drop_row(run_without_a_log)["rules"] == {}


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
